"""The stepper's screen without a terminal: fitted to 80x24 in every game (11 players included), the kitty and
cancelled cards shown, a resumed log's replayed decisions named, and --symbols/--letters."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from html_helpers import GOLDEN

from kierki_cli.main import cli
from kierki_cli.replay_stepper import Stepper
from kierki_cli.styled import Style, to_text
from referee.replay.reader import load
from referee.replay.timeline import Timeline, build_timeline

SEAT_ROW = re.compile(r"^[▶> ] +\d+d? ")


def _screen(stepper: Stepper, style: Style) -> list[str]:
    return [to_text(line, style) for line in stepper.screen(style, 24, 80)]


@pytest.mark.parametrize("name", ["kierki", "kierki3", "hearts", "cancellation6", "cancellation11"])
def test_every_screen_fits_80_by_24(viewer_logs: dict[str, Path], name: str) -> None:
    timeline = build_timeline(load(viewer_logs[name]))
    players = timeline.ruleset.players
    for style in (Style(), Style(symbols=True)):
        for viewer in (None, players - 1):
            stepper = Stepper(timeline, viewer)
            for index in range(len(timeline.frames)):
                stepper.index = index
                lines = _screen(stepper, style)
                assert len(lines) <= 24, "\n".join(lines)
                assert max(len(line) for line in lines) <= 80, "\n".join(lines)
                assert "q quit" in lines[-1] and "s seat" in lines[-1]  # s N Enter: the only way to seat 10
                head = next(i for i, line in enumerate(lines) if " bot " in line and " hand " in line)
                rows = lines[head + 1 : head + 1 + players]
                assert all(SEAT_ROW.match(row) for row in rows), "\n".join(lines)


def _find(timeline: Timeline, viewer: int | None, want: str) -> list[str]:
    stepper = Stepper(timeline, viewer)
    for index in range(len(timeline.frames)):
        stepper.index = index
        lines = _screen(stepper, Style())
        if any(want in line for line in lines):
            return lines
    pytest.fail(f"{want!r} never shown")


def test_the_kitty_and_cancelled_cards(viewer_logs: dict[str, Path]) -> None:
    timeline = build_timeline(load(viewer_logs["cancellation11"]))
    kitty = " ".join(timeline.replay.deal_entries()[0].raw["kitty"])
    assert any(f"kitty: {kitty} (taken)" in line for line in _find(timeline, None, "(taken)"))
    seat_view = _find(timeline, 3, "kitty:")
    assert not any(kitty in line for line in seat_view)  # a seat learns only the kitty's size
    cancelled = _find(timeline, None, ":[")
    assert any(line.startswith(("trick ", "last ")) and ":[" in line for line in cancelled)


def test_a_resumed_log_names_the_replayed_decisions(tmp_path: Path) -> None:
    source = GOLDEN / "hearts-target30-seed5.replay.jsonl"
    out = tmp_path / "resumed"
    result = CliRunner().invoke(cli, ["match", "--from", str(source), "--at", "6", "--out", str(out)])
    assert result.exit_code == 0, result.output
    timeline = build_timeline(load(out / "game001.replay.jsonl"))
    stepper = Stepper(timeline)
    stepper.index = next(i for i, f in enumerate(timeline.frames) if f.decision and f.decision.index == 5)
    assert "#5 was replayed from the earlier log" in "\n".join(_screen(stepper, Style()))
    stepper.index = next(i for i, f in enumerate(timeline.frames) if f.decision and f.decision.index == 6)
    assert "replayed" not in "\n".join(_screen(stepper, Style()))


def test_symbols_or_letters(viewer_logs: dict[str, Path]) -> None:
    path = str(viewer_logs["hearts"])
    letters = CliRunner().invoke(cli, ["replay", path, "--deal", "1", "--letters"]).output
    symbols = CliRunner().invoke(cli, ["replay", path, "--deal", "1", "--symbols"]).output
    assert "♥" not in letters and " AH" in letters
    assert "♥" in symbols and " AH" not in symbols
