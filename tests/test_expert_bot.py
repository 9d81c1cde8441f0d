"""The expert sample bot (sample_bots/expert): check-bot passes it in all four games, it answers every decision of
every game legally through the referee's own wire messages, the same seed and playouts make the same game, and its
budget stays inside the request's time on either clock."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from bot_helpers import python_bot
from test_checkbot import assert_all_pass, run_check
from test_montecarlo_bot import GAMES, play_search_game

from protocol import messages as m
from referee.match_config import BotSpec
from sample_bots.expert.bot import ExpertBot

ROOT = Path(__file__).resolve().parent.parent
MAIN = ROOT / "sample_bots" / "expert" / "__main__.py"


def play_game(game: str, players: int, options: dict[str, object], seed: str, playouts: int) -> list[tuple[str, str]]:
    """A whole game of experts, each at ``playouts`` a decision (``play_search_game``)."""
    bots = [ExpertBot(playouts=playouts, seed=seat) for seat in range(players)]
    return play_search_game(bots, game, options, seed, playouts)


@pytest.mark.parametrize(("game", "players", "options"), GAMES, ids=[g for g, _, _ in GAMES])
def test_it_answers_every_decision_of_every_game_legally(game: str, players: int, options: dict[str, object]) -> None:
    kinds = Counter(kind for kind, _ in play_game(game, players, options, "expert-1", playouts=2))
    if game == "kierki":
        assert {k for k in kinds if k.startswith("play")} == {
            f"play {kind}"
            for kind in (
                "no_tricks",
                "no_hearts",
                "no_queens",
                "no_kings_jacks",
                "no_king_of_hearts",
                "no_seventh_last",
                "robber",
                "trump",
                "lottery",
            )
        }
    if game.startswith("kierki"):
        assert kinds["trump"] == players  # every seat names trump once
    else:
        assert kinds["pass"] > 0


def test_the_same_seed_and_playouts_make_the_same_game() -> None:
    first = play_game("hearts", 4, {"target": 20}, "repeat", playouts=6)
    assert first == play_game("hearts", 4, {"target": 20}, "repeat", playouts=6)


def test_its_budget_stays_inside_the_request_s_time() -> None:
    bot = ExpertBot()
    time = m.TimeControl(move_ms=400, startup_ms=5000, bank_ms=2000, increment_ms=0)
    bot.on_hello(m.HelloRequest(id=1, protocol=1, game="hearts", players=4, seat=0, options={}, time=time, games=1))
    plain = bot.budget(400)
    assert plain.cpu_ms == plain.wall_ms == 220  # 60% of 400 is more than the cap: 75% of 400 less 80 ms
    banked = bot.budget(2400)
    assert banked.cpu_ms == 240 + 100 and banked.wall_ms == 1720  # 60% of the move and a 20th of the bank
    assert bot.budget(50).cpu_ms == 1  # never more than the request allows, however short
    cpu_timed = ExpertBot(cpu_clock=True)  # the referee's wall cap is 2 x 400 + 1000 ms: 75% of it less 80
    cpu_timed.on_hello(
        m.HelloRequest(id=1, protocol=1, game="hearts", players=4, seat=0, options={}, time=time, games=1)
    )
    assert cpu_timed.budget(400).cpu_ms == 220 and cpu_timed.budget(400).wall_ms == 1270
    counted = ExpertBot(playouts=30).budget(400)
    assert counted.playouts == 30 and counted.cpu_ms is None and counted.wall_ms == 220


def test_sample_expert_names_the_package() -> None:
    argv = BotSpec.parse("sample:expert").argv
    assert Path(argv[-1]) == MAIN and MAIN.is_file()


def test_check_bot_passes_it() -> None:
    report = run_check(python_bot(MAIN, "--playouts", "6", "--seed", "1"))
    assert_all_pass(report)
    names = " ".join(r.name for r in report.results)
    for situation in ("pass", "trump", "loteryjka", "moon", "kitty"):
        assert situation in names
