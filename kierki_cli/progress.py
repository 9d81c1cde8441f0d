"""The one-line progress of ``match``, ``tournament`` and ``sprt``: what is done, then the bots best first, each
named, within 80 columns (a terminal's usual width, and a log's line stays one line).

What does not fit is shortened in this order: the names (to no fewer than 6 columns each, ending in ``…``), then the
bots from the last up, leaving ``…`` where they were: the leaders always show.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from competition.report import display_width
from referee.api import printable

__all__ = ["WIDTH", "Leader", "leaders_line", "write_progress"]

WIDTH = 80
_SHORTEST_NAME = 6


Leader = tuple[int, str, str]  # (place, the bot's name as given, what it stands at: "+605", "6.2 (+5.8/game)")


def _shorten(name: str, room: int) -> str:
    """``name`` in ``room`` columns, ending in ``…``; a ``#SEAT`` that tells two bots of one name apart is kept."""
    if display_width(name) <= room:
        return name
    head, mark, tail = name.rpartition("#")
    if mark and tail.isdigit() and head:
        return _shorten(head, room - len(tail) - 1) + mark + tail
    kept = ""
    for char in name:
        if display_width(kept + char) > room - 1:
            break
        kept += char
    return kept + "…"


def leaders_line(done: str, leaders: Sequence[Leader], width: int = WIDTH) -> str:
    """``done`` (``game 2/4``, ``set 3/10  12 games  ETA 40s``) and then ``1. NAME FIGURE`` per bot, best first, in
    at most ``width`` columns. Names are made printable here (a bot's own name may hold anything)."""
    names = [printable(name) for _, name, _ in leaders]

    def render(room: int | None, shown: int) -> str:
        cells = [
            f"{place}. {name if room is None else _shorten(name, room)} {figure}"
            for (place, _, figure), name in zip(leaders[:shown], names[:shown], strict=True)
        ]
        if shown < len(leaders):
            cells.append("…")
        return "  ".join([done, *cells]) if cells else done

    longest = max((display_width(name) for name in names), default=0)
    for shown in range(len(leaders), 0, -1):
        for room in [None, *range(longest - 1, _SHORTEST_NAME - 1, -1)]:
            line = render(room, shown)
            if display_width(line) <= width:
                return line
    return _shorten(done, width)


def write_progress(stream: TextIO, line: str, *, tty: bool, last: bool = False) -> None:
    """On a terminal, one line rewritten in place (padded to clear the last one); in a log, one line each time."""
    if tty:
        stream.write("\r" + line + " " * max(0, WIDTH - 1 - display_width(line)) + ("\n" if last else ""))
    else:
        stream.write(line + "\n")
    stream.flush()
