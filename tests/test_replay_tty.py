"""The interactive viewer, driven in a real terminal: a tmux session of 120x40 runs ``kierki replay FILE``, the
test sends keys and reads the screen back (polling until the expected text shows, a bounded number of times)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from tmux_helpers import PAUSE_S, POLLS, TMUX, TmuxSession

pytestmark = pytest.mark.skipif(TMUX is None, reason="tmux is not installed: the viewer needs a real terminal to test")

GOLDEN = Path(__file__).parent / "golden" / "kierki-seed3.replay.jsonl"
SUITS = dict(zip("CDHS", "♣♦♥♠", strict=True))


def symbol(card: str) -> str:
    return ("10" if card[0] == "T" else card[0]) + SUITS[card[1]]


class Terminal(TmuxSession):
    """``kierki replay ARGS`` in a terminal of ``size`` (columns, rows)."""

    def __init__(
        self, directory: Path, args: list[str], env: dict[str, str] | None = None, size: tuple[int, int] = (120, 40)
    ) -> None:
        super().__init__(directory, "replay", ["replay", *args], size=size, env=env)


def test_stepping_through_a_game_in_a_terminal(tmp_path: Path) -> None:
    rows = [json.loads(line) for line in GOLDEN.read_text().splitlines()]
    first, second = rows[2], rows[3]
    trick = rows[6]
    deal3 = next(r for r in rows if r["type"] == "deal" and r["deal"] == 3)
    n = sum(1 for r in rows if r["type"] in ("play", "pass", "trump", "moon"))
    leader = (rows[1]["dealer"] + 1) % 4
    terminal = Terminal(tmp_path, [str(GOLDEN)])
    try:
        terminal.wait_for(
            "kierki · deal 1 of 12: no tricks", f"0 of {n} decisions made", f"trick 1: seat {leader} to lead"
        )
        terminal.keys("n")
        screen = terminal.wait_for(f"1 of {n} decisions made")
        assert f"trick 1, seat {first['seat']} led:  {first['seat']}:{symbol(first['card'])}" in screen
        terminal.keys("Right")
        screen = terminal.wait_for(f"2 of {n} decisions made")
        assert f"{second['seat']}:{symbol(second['card'])}" in screen
        terminal.keys("Left")
        terminal.wait_for(f"1 of {n} decisions made")
        terminal.keys("]")
        shown = "  ".join(f"{(trick['leader'] + i) % 4}:{symbol(c)}" for i, c in enumerate(trick["cards"]))
        terminal.wait_for(f"last trick 1:  {shown}  → seat {trick['winner']}", f"4 of {n} decisions made")
        terminal.keys("d", "3", "Enter")
        screen = terminal.wait_for("deal 3 of 12: no queens")
        terminal.keys("2")
        screen = terminal.wait_for("seat 2's view")
        assert screen.count("(13 cards)") == 3
        hand = sorted(deal3["hands"][2], key=lambda c: ("CDHS".index(c[1]), "23456789TJQKA".index(c[0])))
        assert all(symbol(card) in screen for card in hand)
        others = {card for seat, cards in enumerate(deal3["hands"]) if seat != 2 for card in cards}
        hidden = [line for line in screen.splitlines() if "(13 cards)" in line]
        assert not any(symbol(card) in line for line in hidden for card in others)
        terminal.keys("a")
        terminal.wait_for("all hands")
        terminal.keys("q")
        assert terminal.gone(), "q did not quit the viewer"
    finally:
        terminal.close()


def test_colours_in_a_terminal_unless_no_color(tmp_path: Path) -> None:
    for no_color, red in ((None, True), ("1", False)):
        terminal = Terminal(tmp_path, [str(GOLDEN)], {"NO_COLOR": no_color} if no_color else None)
        try:
            terminal.wait_for("0 of ", "decisions made")
            screen = terminal.wait_for("♥", escapes=True)
            assert ("\x1b[31m" in screen) is red, screen
            terminal.keys("q")
            assert terminal.gone()
        finally:
            terminal.close()


def test_an_eleven_player_game_fits_80_by_24(tmp_path: Path) -> None:
    """Every screen of an 11-player Cancellation game fits a 80x24 terminal: the seats, the trick, the position
    line and the keys stay in view (the compact table: no blank lines, the passes in one block while made)."""
    from html_helpers import write_game

    log = write_game(tmp_path / "c11.replay.jsonl", "cancellation", 11, 3, fault_seat=4)
    terminal = Terminal(tmp_path, [str(log)], size=(80, 24))
    try:
        screen = terminal.wait_for("seat", "q quit")
        seen_kinds = set()
        for step in range(60):  # through the passes, the first tricks and a deal's end
            lines = screen.rstrip("\n").split("\n")
            assert len(lines) <= 24 and all(len(line) <= 80 for line in lines)
            assert "q quit" in lines[-1], screen
            assert all(f"{seat:>2} " in screen for seat in range(11)), screen  # every seat's row
            if "passed:" in screen:
                seen_kinds.add("passes")
            if "trick " in screen:
                seen_kinds.add("trick")
            if "[" in screen and "]" in screen.split("\n", 2)[2]:
                seen_kinds.add("cancelled")
            terminal.keys("]" if step > 15 and step % 2 else "n")  # card by card through the passes first
            screen = _changed(terminal, screen)
        assert {"passes", "trick"} <= seen_kinds, seen_kinds
        terminal.keys("q")
        assert terminal.gone()
    finally:
        terminal.close()


def _changed(terminal: Terminal, before: str) -> str:
    """The screen once a key has changed it (every step changes the position shown) and the redraw is over: two
    looks in a row alike, so that a capture taken halfway through a redraw (new lines above, old ones below) is
    never judged."""
    screen = last = before
    for _ in range(POLLS):
        screen = terminal.screen()
        if screen != before and "q quit" in screen and screen == last:
            return screen
        last = screen
        time.sleep(PAUSE_S)
    pytest.fail(f"the screen did not change:\n{screen}")
