"""``kierki play`` in a real terminal: a tmux session runs a short Hearts game with a person at seat 0, and the test
types the whole game as a person would (reading the screen: the hand, the legal cards), tries an illegal card and
a card that is not in the hand (both refused with the reason), and then verifies the game's replay log."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from tmux_helpers import PAUSE_S, POLLS, TMUX, TmuxSession

from kierki_cli.main import cli

pytestmark = pytest.mark.skipif(TMUX is None, reason="tmux is not installed: kierki play needs a real terminal")
PROMPTS = ("your card (", "cards to pass (", "trump (", "self or others: ")


class Session(TmuxSession):
    """``kierki play ARGS`` in a terminal of 110x50; its exit status stays on the screen once it ends."""

    def __init__(self, directory: Path, args: list[str]) -> None:
        super().__init__(directory, "play", ["play", *args], size=(110, 50), then="echo EXITED $?; sleep 30")

    def lines(self) -> list[str]:
        return [line for line in self.screen().rstrip("\n").split("\n") if line.strip()]

    def next_prompt(self, before: list[str]) -> list[str]:
        """The screen once it shows a new prompt (or the game's end), after the screen ``before``."""
        for _ in range(3 * POLLS):  # about 30 s at most: a bot's turn may come first
            lines = self.lines()
            if lines and lines != before and any(p in lines[-1] for p in (*PROMPTS, "EXITED")):
                return lines
            time.sleep(PAUSE_S)
        pytest.fail("no new prompt:\n" + "\n".join(self.lines()))


def _last(lines: list[str], prefix: str) -> str:
    return next(line for line in reversed(lines) if line.startswith(prefix))


def test_a_person_plays_a_whole_game_in_the_terminal(tmp_path: Path) -> None:
    out = tmp_path / "out"
    args = ["--game", "hearts", "--option", "target=10", "--seed", "5", "--letters", "--out", str(out)]
    session = Session(tmp_path, args)
    refused_rule = refused_hand = by_number = by_name = passes = 0
    try:
        screen = session.next_prompt([])
        for _ in range(400):
            prompt = screen[-1]
            if "EXITED" in prompt:
                break
            if prompt.startswith("your card"):
                hand = re.findall(r"(\d+):([2-9TJQKA][CDHS])(\*?)", _last(screen, "your hand:"))
                legal = _last(screen, "legal:").split()[1:]
                assert sorted(c for _, c, star in hand if star) == sorted(legal)
                suits = ["CDHS".index(c[1]) for _, c, _ in hand]
                assert suits == sorted(suits), "the hand is sorted by suit"
                illegal = [c for _, c, star in hand if not star]
                if illegal and refused_rule < 2:
                    session.type(illegal[0].lower())
                    screen = session.next_prompt(screen)
                    assert any(line.startswith("not allowed: ") and illegal[0] in line for line in screen[-3:]), screen
                    refused_rule += 1
                if refused_hand == 0:
                    held = {c for _, c, _ in hand}
                    missing = next(f"{r}{s}" for s in "CDHS" for r in "23456789TJQKA" if f"{r}{s}" not in held)
                    session.type(missing)
                    screen = session.next_prompt(screen)
                    assert "is not in your hand" in "\n".join(screen[-3:]), screen
                    refused_hand += 1
                if by_number <= by_name:
                    number = next(n for n, c, star in hand if star)
                    session.type(number)
                    by_number += 1
                else:
                    session.type(legal[-1].replace("T", "10"))
                    by_name += 1
            elif "cards to pass" in prompt:
                session.type("1 2 3")
                passes += 1
            elif prompt.startswith("self or others"):
                session.type("others")
            else:
                pytest.fail(f"unexpected prompt {prompt!r}")
            screen = session.next_prompt(screen)
        text = "\n".join(screen)
        assert "EXITED 0" in text, text
        assert "game over" in text or "replay:" in text
    finally:
        session.close()
    assert refused_rule >= 1 and refused_hand == 1 and passes >= 1 and by_number >= 5 and by_name >= 5
    log = out / "game001.replay.jsonl"
    result = CliRunner().invoke(cli, ["replay", "--verify", str(log)])
    assert result.exit_code == 0 and result.output.startswith("OK: "), result.output
    header = log.read_text().splitlines()[0]
    assert '"name":"you"' in header
    assert '"fallback":true' not in log.read_text()  # every decision of seat 0 was the person's
