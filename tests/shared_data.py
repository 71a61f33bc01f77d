"""What the end-to-end tests need from outside the repository, and where they find it.

The campaign data: ``$RISKEVAL_DATA``, else ``../shared/data`` relative to the repository root.
Chromium (for the browser tests): ``chromium`` or ``chromium-browser`` on the ``PATH``, else
``/usr/bin/chromium``, with playwright installed.

A test that needs either skips, saying what is missing and where it looked, unless
``RISKEVAL_REQUIRE_DATA=1`` (data) or ``RISKEVAL_REQUIRE_BROWSER=1`` (browser) is set: then the
test fails instead, so that a run meant to be complete (``.ci/run``) cannot pass by skipping.
"""

from __future__ import annotations

import os
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
