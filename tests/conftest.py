"""Settings of the whole test suite."""

from riskeval.core import _numba

# The notice of a first compilation goes to stderr once per part and process, from whichever test
# compiles first: no test's stderr may depend on the state of numba's cache (test_startup.py and
# test_compile_notice.py check the notices in processes of their own).
_numba.quiet = True
