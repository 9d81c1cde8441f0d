"""Styled text for the terminal: lines of (text, tag) spans, printed plain, with ANSI colours, or drawn by curses.

Cards are written as the log writes them (``TH``, ``QS``) unless the output is a terminal, where they get suit
symbols (``10♥``, ``Q♠``), red for hearts and diamonds unless ``NO_COLOR`` is set. Text that came from a bot (its
name, a fault message) goes through ``referee.vocabulary.text.printable`` first, so no bot can send escape
sequences to a terminal.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import IO

from referee.rules import RANK_LETTERS, SUIT_LETTERS, SUIT_SYMBOLS, Card, sort_for_display

Span = tuple[str, str]  # text, tag: "" plain, "red", "bold", "dim"
Line = list[Span]

_ANSI = {"red": "\x1b[31m", "bold": "\x1b[1m", "dim": "\x1b[2m"}
_RESET = "\x1b[0m"


@dataclass(frozen=True)
class Style:
    symbols: bool = False  # suit symbols and "10"; otherwise the log's card names (TH, QS)
    colour: bool = False  # red hearts and diamonds, bold titles (ANSI escapes or curses attributes)

    @classmethod
    def for_stream(cls, stream: IO[str], env: Mapping[str, str] | None = None) -> Style:
        """Symbols on a terminal; colour on a terminal unless NO_COLOR is set (no-color.org)."""
        env = os.environ if env is None else env
        try:
            tty = stream.isatty()
        except (AttributeError, ValueError):
            tty = False
        return cls(symbols=tty, colour=tty and not env.get("NO_COLOR"))

    @property
    def arrow(self) -> str:
        return "→" if self.symbols else "->"

    @property
    def pointer(self) -> str:
        return "▶" if self.symbols else ">"

    @property
    def dot(self) -> str:
        return "·" if self.symbols else "-"


def to_text(line: Line, style: Style) -> str:
    if not style.colour:
        return "".join(text for text, _ in line)
    return "".join(f"{_ANSI[tag]}{text}{_RESET}" if tag in _ANSI and text else text for text, tag in line)


def line_width(line: Line) -> int:
    return sum(len(text) for text, _ in line)


def card_text(card: Card, style: Style) -> str:
    rank = RANK_LETTERS[card >> 2]
    if style.symbols:
        return ("10" if rank == "T" else rank) + SUIT_SYMBOLS[card & 3]
    return rank + SUIT_LETTERS[card & 3]


def _red(card: Card) -> bool:
    return card & 3 in (1, 2)


def card_span(card: Card, style: Style) -> Span:
    return card_text(card, style), "red" if _red(card) else ""


def cards_spans(cards: Iterable[Card], style: Style, *, group: bool = True) -> Line:
    """Cards separated by spaces; grouped by suit (two spaces between suits) when ``group``."""
    ordered = sort_for_display(cards) if group else list(cards)
    line: Line = []
    previous: int | None = None
    for card in ordered:
        if line:
            line.append(("  " if group and card & 3 != previous else " ", ""))
        line.append(card_span(card, style))
        previous = card & 3
    return line


def suit_text(suit: int | None, style: Style) -> Span:
    if suit is None:
        return "no trump", ""
    return (SUIT_SYMBOLS[suit] if style.symbols else SUIT_LETTERS[suit]), "red" if suit in (1, 2) else ""
