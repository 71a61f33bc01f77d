"""Settings of the whole test suite, and the skip of a test that needs an extra of riskeval that is
not installed (:func:`shared_data.missing_extra`)."""

from __future__ import annotations

from typing import Any

import pytest
from shared_data import missing_extra

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


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Any:
    """A test module that cannot be imported for want of an extra is skipped, saying which."""
    outcome = yield
    report = outcome.get_result()
    reason = missing_extra(str(report.longrepr)) if report.failed else None
    if reason is not None:
        report.outcome = "skipped"
        report.longrepr = (str(collector.path), 0, f"Skipped: {reason}")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Any:
    """A test that fails for want of an extra (its import, or riskeval's error naming the extra) is
    skipped, saying which."""
    outcome = yield
    report = outcome.get_result()
    reason = missing_extra(str(report.longrepr)) if report.failed and call.excinfo is not None else None
    if reason is not None:
        report.outcome = "skipped"
        report.longrepr = (str(item.path), item.location[1] or 0, f"Skipped: {reason}")
