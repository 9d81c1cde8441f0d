"""Text that reaches the organiser's terminal: whatever a bot wrote is shown, never obeyed.

Bot names, versions, error details and stderr tails are written by strangers. A bot named with escape sequences
could clear the screen, move the cursor and forge a table row, or turn text invisible; so every bot-supplied
string passes through ``printable`` before it is printed: control characters (C0, DEL, C1) and the Unicode
controls that reorder or hide text (bidi overrides and isolates, zero-width characters) are shown as escapes.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["printable"]

_INVISIBLE = {"Cc", "Cf", "Zl", "Zp"}  # controls, format characters (bidi, zero-width), line/paragraph separators
_SAFE = re.compile(r"[ -~\u00a0-\u00ac\u00ae-\u02ff]*")  # the common case, checked at C speed


def printable(text: str) -> str:
    """``text`` with every control or invisible formatting character written as an escape (``\\x1b``)."""
    if _SAFE.fullmatch(text):
        return text
    return "".join(_escape(ch) if unicodedata.category(ch) in _INVISIBLE else ch for ch in text)


def _escape(ch: str) -> str:
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"
