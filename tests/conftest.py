"""Settings of the whole test suite, and the skip of a test that needs an extra of riskeval that is
not installed (:func:`shared_data.missing_extra`)."""

from __future__ import annotations

from typing import Any

import pytest
from shared_data import missing_extra

from riskeval.core import _numba

# The notice of the first compilation goes to stderr once per process, from whichever test compiles
# first: no test's stderr may depend on the state of numba's cache (test_startup.py checks the
# notice in processes of its own).
_numba.notice_written = True


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
