"""Settings of the whole test suite."""

from riskeval.core import _numba

# The notice of the first compilation goes to stderr once per process, from whichever test compiles
# first: no test's stderr may depend on the state of numba's cache (test_startup.py checks the
# notice in processes of its own).
_numba.notice_written = True
