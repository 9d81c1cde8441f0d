"""The interactive stepper: a replay in the terminal, one card (or pass, or trump choice) at a time.

`Stepper` is the position and its keys, apart from the screen, so a test drives it without a terminal; its
screen is the table of ``referee.replay.view`` drawn by ``replay_view.render_table``. `run_interactive` shows it
with curses until q.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from kierki_cli.replay_view import render_table
from kierki_cli.styled import Line, Style, line_width
from referee.api import DealRecord, Timeline, TrickRecord, printable, step_view

if TYPE_CHECKING:  # the stepper without an analysis never loads the search library
    from referee.api import DecisionAnalysis

SHORT_HELP = "n/p step  ]/[ trick  d deal  0-9/s seat  a all  q quit"  # s N Enter: seats 10 and up
HELP = "n/→ next  p/← back  ]/N next trick  [/P back  d/g deal  0-9 or s seat view  a all hands  q quit"


class Stepper:
    """The viewer's position and its keys, apart from the screen (so a test can drive it without a terminal)."""

    def __init__(
        self,
        timeline: Timeline,
        viewer: int | None = None,
        index: int = 0,
        analysis: Mapping[int, DecisionAnalysis] | None = None,
    ) -> None:
        self.timeline = timeline
        self.analysis = analysis  # by decision number (``kierki analyse --json``): shown under the table
        self.viewer = viewer
        self.index = index
        self.prompt: str | None = None  # the digits typed after d/g (a deal) or s (a seat)
        self.asking = "deal"
        self.message = ""
        frames = timeline.frames
        # Where ]/[ stop: each finished trick, each deal's start and end.
        self.stops = [
            i
            for i, f in enumerate(frames)
            if i == 0 or f.closing or any(isinstance(e.record, TrickRecord | DealRecord) for e in f.entries)
        ]
        if self.stops[-1] != len(frames) - 1:
            self.stops.append(len(frames) - 1)

    @property
    def last(self) -> int:
        return len(self.timeline.frames) - 1

    def key(self, key: str) -> bool:
        """Handle one key (a character, or a name: left, right, home, end, enter, backspace, esc). False: quit."""
        self.message = ""
        if self.prompt is not None:
            return self._prompt_key(key)
        if key in ("q", "Q"):
            return False
        if key in ("n", "right", " ", "j", "down"):
            self._go(self.index + 1)
        elif key in ("p", "left", "k", "up", "backspace"):
            self._go(self.index - 1)
        elif key in ("]", "N"):
            self._go(next((i for i in self.stops if i > self.index), self.last))
        elif key in ("[", "P"):
            self._go(next((i for i in reversed(self.stops) if i < self.index), 0))
        elif key == "home":
            self._go(0)
        elif key == "end":
            self._go(self.last)
        elif key in ("d", "g", "s"):
            self.prompt, self.asking = "", "seat" if key == "s" else "deal"
        elif key.isdigit() and len(key) == 1:
            self._seat(int(key))
        elif key == "a":
            self.viewer = None
        else:
            self.message = f"keys: {HELP}"
        return True

    def _seat(self, seat: int) -> None:
        players = self.timeline.ruleset.players
        if 0 <= seat < players:
            self.viewer = seat
        else:
            self.message = f"there is no seat {seat}: seats are 0 to {players - 1}"

    def _where(self) -> str:
        frame = self.timeline.frames[self.index]
        if frame.closing:
            return f"deal {frame.deal} is over"
        if frame.position >= len(self.timeline.decisions):
            return "the end of the log"
        name = self.timeline.replay.name
        replayed = ""
        if frame.decision is not None and frame.decision.record.replayed:
            replayed = f"#{frame.decision.index} was replayed from the earlier log; "
        at = frame.position
        return f"{replayed}next: decision #{at} (kierki match --from {name} --at {at} resumes here)"

    def _go(self, index: int) -> None:
        if index < 0:
            self.message = "this is the start of the game"
        elif index > self.last:
            self.message = "this is the end of the log"
        self.index = max(0, min(self.last, index))

    def _prompt_key(self, key: str) -> bool:
        assert self.prompt is not None
        if key.isdigit() and len(key) == 1:
            self.prompt += key
        elif key == "backspace":
            self.prompt = self.prompt[:-1]
        elif key == "esc":
            self.prompt = None
        elif key == "enter":
            typed, self.prompt = self.prompt, None
            if self.asking == "seat":
                self._seat(int(typed) if typed else -1)
                return True
            deal = int(typed) if typed else 0
            index = self.timeline.deal_frame(deal)
            if index is None:
                deals = self.timeline.deal_numbers()
                self.message = f"no deal {typed or '?'}: this log has deals {deals[0]} to {deals[-1]}"
            else:
                self.index = index
        return True

    def screen(self, style: Style, height: int | None = None, width: int | None = None) -> list[Line]:
        """The screen's lines; with a size, fitted to it: the compact table when the full one does not fit, and
        the step's events cut (the last kept) before the position and the keys."""
        table = step_view(self.timeline, self.index, self.viewer)
        lines = render_table(table, style)
        judged = self._analysis_lines()
        if width is not None and height is not None:
            if len(lines) + len(judged) + 3 > height or max(line_width(line) for line in lines) > width:
                lines = render_table(table, style, width=width)
                judged = [_clip(line, width) for line in judged[:2]]
                if len(lines) + len(judged) + 2 > height:
                    lines = [*lines[: max(height - 3 - len(judged), 1)], [("…", "dim")]]
            lines += judged
            lines += self._footer(style, width)
            return lines
        lines += judged
        lines.append([])
        lines += self._footer(style)
        return lines

    def _analysis_lines(self) -> list[Line]:
        """The analysis of this step's decision: shown with all hands or in the deciding seat's own view only (its
        choices are its legal cards)."""
        frame = self.timeline.frames[self.index]
        if self.analysis is None or frame.decision is None:
            return []
        number = frame.decision.index
        found = self.analysis.get(number)
        if found is None:
            return [[(f"analysis: #{number} not analysed (forced, or its seat not asked for)", "dim")]]
        if self.viewer is not None and self.viewer != found.seat:
            return [[(f"analysis: #{number} is seat {found.seat}'s (shown in its own view)", "dim")]]
        error = "?" if found.stderr is None else f"{found.stderr:.2f}"
        grade = f" {found.grade}" if found.grade else ""
        head: Line = [
            (f"analysis #{number}: seat {found.seat} {found.chosen}, loss {found.loss:.2f} ± {error}", "bold"),
            (grade, "red" if found.grade in ("mistake", "blunder") else "bold"),
            (f"; best {found.best}", ""),
        ]
        ranked = sorted(found.choices, key=lambda c: -c.value)
        values: Line = [("  " + "  ".join(f"{printable(c.choice)} {c.value:+.2f}" for c in ranked), "dim")]
        lines = [head, values]
        if found.perfect is not None:
            perfect = found.perfect
            known = f"  all cards known (no seat knew them): best {perfect.best}, loss {perfect.loss:.2f}"
            lines.append([(known, "dim")])
        return lines

    def _footer(self, style: Style, width: int | None = None) -> list[Line]:
        lines: list[Line] = []
        if self.prompt is not None:
            asked = "view of seat" if self.asking == "seat" else "go to deal"
            lines.append([(f"{asked}: ", "bold"), (self.prompt, ""), ("_  (Enter to go, Esc to cancel)", "dim")])
        elif self.message:
            lines.append([(self.message, "bold")])
        else:
            where = self._where()
            if width is not None and len(where) > width:  # the command does not fit: its number does
                where = where.split(" (kierki match")[0] + " (resume: match --from FILE --at N)"
            lines.append([(where, "dim")])
        keys = HELP if style.symbols else HELP.replace("→", "right").replace("←", "left")
        lines.append([(keys if width is None or len(keys) <= width else SHORT_HELP, "dim")])
        return lines


def _clip(line: Line, width: int) -> Line:
    """The line cut to ``width`` characters, its end marked."""
    if line_width(line) <= width:
        return line
    out: Line = []
    room = width - 1
    for text, tag in line:
        if room <= 0:
            break
        out.append((text[:room], tag))
        room -= len(text[:room])
    out.append(("…", "dim"))
    return out


_CURSES_KEYS = {
    "KEY_LEFT": "left",
    "KEY_RIGHT": "right",
    "KEY_UP": "up",
    "KEY_DOWN": "down",
    "KEY_HOME": "home",
    "KEY_END": "end",
    "KEY_BACKSPACE": "backspace",
    "KEY_ENTER": "enter",
    "KEY_NPAGE": "]",
    "KEY_PPAGE": "[",
    "\n": "enter",
    "\r": "enter",
    "\x7f": "backspace",
    "\x08": "backspace",
    "\x1b": "esc",
}


def run_interactive(stepper: Stepper, style: Style) -> None:
    """Step through the replay in the terminal with curses until q."""
    import curses
    import locale

    locale.setlocale(locale.LC_ALL, "")
    os.environ.setdefault("ESCDELAY", "25")

    def main(screen: Any) -> None:
        attrs = {"": curses.A_NORMAL, "bold": curses.A_BOLD, "dim": curses.A_DIM, "red": curses.A_NORMAL}
        if style.colour and curses.has_colors():
            curses.start_color()
            curses.use_default_colors()
            curses.init_pair(1, curses.COLOR_RED, -1)
            attrs["red"] = curses.color_pair(1)
        curses.curs_set(0)
        while True:
            height, width = screen.getmaxyx()
            _draw(screen, stepper.screen(style, height, width), attrs)
            try:
                pressed = screen.get_wch()
            except KeyboardInterrupt:
                return
            name = curses.keyname(pressed).decode() if isinstance(pressed, int) else pressed
            if not stepper.key(_CURSES_KEYS.get(name, name)):
                return

    curses.wrapper(main)


def _draw(screen: Any, lines: list[Line], attrs: dict[str, int]) -> None:
    import curses

    screen.erase()
    height, width = screen.getmaxyx()
    for y, line in enumerate(lines[: height - 1]):
        x = 0
        for text, tag in line:
            if x >= width - 1:
                break
            shown = text[: width - 1 - x]
            try:
                screen.addstr(y, x, shown, attrs.get(tag, curses.A_NORMAL))
            except curses.error:
                break
            x += len(shown)
    screen.refresh()
