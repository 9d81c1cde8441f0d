"""Issue 32 item 5: the progress lines of match, tournament and sprt name the bots, best first, within 80 columns."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from competition.report import display_width
from competition.sprt import SPRT
from kierki_cli.main import cli
from kierki_cli.progress import leaders_line
from kierki_cli.tournament_cmd import sprt_line


def test_a_line_keeps_every_bot_shortening_names_first_then_drops_the_last_bots() -> None:
    short = leaders_line("game 2/4", [(1, "alice", "+5"), (2, "bob", "+9")])
    assert short == "game 2/4  1. alice +5  2. bob +9"
    long = [(place, f"{'x' * 30}{place}", f"{place}.0 (+1.0)") for place in range(1, 5)]
    line = leaders_line("set 3/10  12 games  ETA 40s", long)
    assert display_width(line) <= 80 and "1. xxx" in line and line.endswith("…") and "4. " not in line
    wide = leaders_line("game 1/2", [(1, "東京東京東京東京東京東京東京", "+1"), (2, "b\x1b[2J", "+2")])
    assert display_width(wide) <= 80 and "\\x1b" in wide  # a bot's own name is escaped, wide glyphs counted twice
    kept = leaders_line("g", [(i, f"heuristic_bot_long_name#{i}", "+10") for i in range(4)])
    assert display_width(kept) <= 80 and "#3" in kept  # the seat that tells two of one name apart is kept


def test_the_sprt_line_names_the_better_version_first() -> None:
    test = SPRT(alpha=0.05, beta=0.05, d0=0.0, d1=1.0)
    test.add(-2.5)
    assert sprt_line(test, -2.5).startswith("pairs 1  old ahead of new by 2.50/game  last pair -2.50  LLR ")
    test.add(7.5)
    assert sprt_line(test, 7.5).startswith("pairs 2  new ahead of old by 2.50/game  last pair +7.50  LLR ")


def test_the_tournament_line_names_the_bots_given_best_first(tmp_path: Path) -> None:
    args = ["tournament", "strong_one=sample:heuristic", "weak_one=sample:random", "--game", "hearts"]
    args += ["--option", "target=10", "--sets", "2", "--seed", "3", "--jobs", "2", "--out", str(tmp_path / "t")]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stderr.splitlines() if line.startswith("set ")]
    assert len(lines) == 2 and all(display_width(line) <= 80 for line in lines)
    assert all("  1. " in line and "  2. " in line for line in lines)
    assert {line.split("  1. ")[1].split()[0] for line in lines} <= {"strong_one", "weak_one"}
    assert "after each set: the bots best first, each with its μ−3σ (and mean points a game)" in result.stderr
