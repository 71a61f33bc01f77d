"""Settings of the whole test suite."""

import riskeval.evaluation.engine as evaluation_engine
import riskeval.io.qrels as qrels_reader
from riskeval.core import _numba

# The notice of a first compilation goes to stderr once per part and process, from whichever test
# compiles first: no test's stderr may depend on the state of numba's cache (test_startup.py and
# test_compile_notice.py check the notices in processes of their own).
_numba.quiet = True

# The suite's small files go through the compiled readers and kernels, as large inputs do: below
# these sizes a process leaves them to ir_measures and to the line reader, with the same values
# (test_startup.py checks the sizes as shipped).
evaluation_engine.COMPILED_MIN_BYTES = 0
qrels_reader.COMPILED_BYTES = 0
