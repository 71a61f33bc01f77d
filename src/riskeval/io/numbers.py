"""Numbers in text files: decimal notation only.

Python's ``float`` and ``int`` accept more than files mean: ``1_0`` is 10, and ``float`` reads
non-ASCII digits (``'١'`` is 1.0).  The readers of text formats (trec_eval output, topic weights)
accept the decimal notation that trec_eval and spreadsheets write, and nothing else.
"""

from __future__ import annotations

import re

_DECIMAL = re.compile(
    r"[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?|inf(?:inity)?|nan)", re.IGNORECASE | re.ASCII
)


def parse_decimal(text: str) -> float | None:
    """The value of ``text`` written in decimal notation (``0.25``, ``-1e-3``, ``.5``; ``nan`` and
    ``inf`` too, for the caller to refuse as not finite), or ``None``."""
    return float(text) if _DECIMAL.fullmatch(text) else None
