"""Text a bot supplied, made safe to print: a bot must not be able to move the cursor, recolour or retitle the
user's terminal, or hide text behind a bidirectional override."""

from __future__ import annotations

__all__ = ["printable"]


def printable(text: str) -> str:
    """``text`` with every character that is not printable (C0 and C1 controls, DEL, format characters such as
    bidi overrides, line and paragraph separators) shown as its Python escape: ESC as ``\\x1b``, a tab as ``\\t``."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text)
