"""What the tests need from outside the repository, and where they find it.

riskeval's extras (``pip install -e ".[test]"`` installs none of them): a test that needs one that
is not installed is skipped with a message naming it (:func:`missing_extra`, applied to every test
by ``conftest.py``), unless ``RISKEVAL_REQUIRE_EXTRAS=1`` is set: then it fails.

The campaign data: ``$RISKEVAL_DATA``, else ``../shared/data`` relative to the repository root.
Chromium (for the browser tests): ``chromium`` or ``chromium-browser`` on the ``PATH``, else
``/usr/bin/chromium``, with playwright installed.

A test that needs either skips, saying what is missing and where it looked, unless
``RISKEVAL_REQUIRE_DATA=1`` (data) or ``RISKEVAL_REQUIRE_BROWSER=1`` (browser) is set: then the
test fails instead, so that a run meant to be complete (``.ci/run``) cannot pass by skipping.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
from pathlib import Path
from typing import NoReturn

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: Chromium executables tried in turn, on the ``PATH`` or by absolute path.
CHROMIUM = ("chromium", "chromium-browser", "/usr/bin/chromium")


def _required(variable: str) -> bool:
    return os.environ.get(variable, "") not in ("", "0")


def _missing(variable: str, message: str) -> NoReturn:
    if _required(variable):
        pytest.fail(f"{message} ({variable} is set, so this is a failure, not a skip)", pytrace=False)
    pytest.skip(message)


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def missing_extra(failure: str) -> str | None:
    """The skip message of a test that failed or could not be collected for want of one of
    riskeval's extras: ``failure`` (the error's text) names a module of an extra (``No module named
    'lightgbm'``, pandas' ```Import pyarrow` failed``) or the extra itself (riskeval's errors:
    ``... needs ...: pip install "riskeval[report]"``), and that extra is indeed not installed.  ``None`` for any other
    failure, and under ``RISKEVAL_REQUIRE_EXTRAS=1``: a run meant to be complete fails instead."""
    from riskeval._optional import EXTRAS

    if _required("RISKEVAL_REQUIRE_EXTRAS"):
        return None
    named = re.findall(r"No module named '([\w.]+)'|`Import ([\w.]+)` failed", failure)  # Python's, pandas'
    extras = {EXTRAS[m.split(".")[0]] for m in map("".join, named) if m.split(".")[0] in EXTRAS}
    extras |= set(re.findall(r"needs [^\n]*?pip install [\"']riskeval\[(\w+)\][\"']", failure))  # riskeval's
    for extra in sorted(extras):
        absent = [m for m, e in EXTRAS.items() if e == extra and not _installed(m)]
        if absent:
            return (
                f"needs riskeval's '{extra}' extra ({', '.join(absent)} not installed): "
                f'pip install -e ".[{extra}]" (RISKEVAL_REQUIRE_EXTRAS=1 makes this a failure)'
            )
    return None


def needs_extra(extra: str) -> None:
    """Skip the calling test (fail it under ``RISKEVAL_REQUIRE_EXTRAS=1``) when a module of
    riskeval's ``extra`` is not installed: for a test whose command line catches the error (exit
    status 2, the message on stderr) rather than raising it."""
    from riskeval._optional import EXTRAS

    absent = [m for m, e in EXTRAS.items() if e == extra and not _installed(m)]
    if absent:
        _missing(
            "RISKEVAL_REQUIRE_EXTRAS",
            f"needs riskeval's '{extra}' extra ({', '.join(absent)} not installed): pip install -e \".[{extra}]\"",
        )


def data_root() -> Path:
    """The folder holding the campaign data sets: ``$RISKEVAL_DATA`` or ``../shared/data``."""
    env = os.environ.get("RISKEVAL_DATA")
    return Path(env) if env else ROOT.parent / "shared" / "data"


def shared_data(*parts: str) -> Path:
    """Path of ``<data root>/<parts>``; skips the calling test (fails under
    ``RISKEVAL_REQUIRE_DATA=1``) if it does not exist."""
    path = data_root().joinpath(*parts)
    if not path.exists():
        _missing(
            "RISKEVAL_REQUIRE_DATA",
            f"campaign data not found: {path} (set RISKEVAL_DATA to the folder holding {'/'.join(parts)})",
        )
    return path


def chromium() -> str:
    """Path of a Chromium executable for playwright; skips the calling test (fails under
    ``RISKEVAL_REQUIRE_BROWSER=1``) if playwright or Chromium is absent."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        _missing("RISKEVAL_REQUIRE_BROWSER", "playwright is not installed (pip install playwright)")
    for name in CHROMIUM:
        found = shutil.which(name)
        if found:
            return found
    _missing(
        "RISKEVAL_REQUIRE_BROWSER",
        "Chromium is not installed (apt-get install chromium): the browser tests cannot run",
    )
