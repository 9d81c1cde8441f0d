"""Text a bot wrote, made safe to show: on the organiser's terminal, in a report, in a log line.

Bot names, versions, error details and stderr tails are written by strangers. A bot named with escape sequences
could clear the screen, move the cursor and forge a table row, or turn text invisible; so every bot-supplied
string passes through ``printable`` before it is printed: control characters (C0, DEL, C1), the Unicode controls
that reorder or hide text (bidi overrides and isolates, zero-width characters) and lone surrogates (which cannot
even be encoded) are shown as escapes. It lives here, below every layer that shows bot text (the terminal
commands in ``kierki_cli``, the reports of ``competition``), so there is one rule.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["printable"]

_INVISIBLE = {"Cc", "Cf", "Zl", "Zp", "Cs"}  # controls, format (bidi, zero-width), separators, lone surrogates
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
