"""Text from input files made safe to print on a terminal.

Run tags, system names, topic ids and file names come from the files a command reads.  A terminal
acts on the control characters in them: ``ESC [ 31 m`` recolours the screen, ``ESC ] ... BEL``
sets the window title or writes a hyperlink, ``\\r`` moves the cursor back over what was printed,
and the bidirectional overrides (U+202A to U+202E, U+2066 to U+2069) reorder what is shown.
:func:`escape_controls` writes each of them as a Python escape (``\\x1b``, ``\\r``, ``\\u202e``),
so the text is shown as it is and acts on nothing.  Output for programs (CSV, JSON, the files a
command writes) keeps the exact characters.
"""

from __future__ import annotations

import re

#: C0 controls, DEL, C1 controls, and the bidirectional embeddings, overrides and isolates.
_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
#: The same, except the line break and tab of a message that spans lines.
_CONTROLS_BUT_LAYOUT = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def escape_controls(text: str, *, keep_lines: bool = False) -> str:
    """``text`` with every control character written as its escape.

    Parameters
    ----------
    text : str
        Text to print on a terminal.
    keep_lines : bool, default False
        Keep line breaks and tabs (a message of several lines); every other control character is
        still escaped.  With False (a table cell, a name) they are escaped too.

    Returns
    -------
    str
        ``\\t``, ``\\n`` and ``\\r`` by name, other characters below U+0100 as ``\\xNN``, the
        bidirectional controls as ``\\uNNNN``; every other character unchanged.
    """
    pattern = _CONTROLS_BUT_LAYOUT if keep_lines else _CONTROLS
    return pattern.sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
