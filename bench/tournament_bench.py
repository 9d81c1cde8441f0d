"""Tournament benchmarks: what duplicate play saves, how games in parallel scale, what CPU pinning buys.

- ``duplicate_efficiency``: the heuristic sample bot against three random ones (a gauntlet), hearts. From the same
  games, two estimates of how many units it takes to tell the heuristic bot from the random ones at 95%: per game
  of random deals (each game on its own: its marginal is a game of a random deal), and per duplicate set (the mean
  over the set's rotations, which share the deals). Units needed ``n = (1.96 sd / mean)^2``, so the ratio of games
  to sets needed is ``var(game) / var(set)``; ``games_ratio`` also charges a set its games.
- ``tournament_scaling``: games per second of wall time with ``jobs=2`` against ``jobs=1`` (Kierki, trivial C
  bots, so the referee's and the start-up costs show); target >= 1.8 on a 2-core machine.
- ``pinning``: the same 2-job tournament with each worker pinned to its own CPU against unpinned.
"""

from __future__ import annotations

import math
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.referee_bench import build
from competition.model import SetRecord
from competition.plan import Entrant
from competition.tournament import StopRule, TournamentConfig, run_tournament
from referee.match import sample_bot_command
from referee.rules import Ruleset

Result = dict[str, Any]
Z95 = 1.96


def _difference(record: SetRecord, game_index: int) -> float:
    """Heuristic's score minus the mean of the random bots' scores in one game, positive when heuristic is better
    (hearts: lower is better)."""
    game = record.games[game_index]
    randoms = [t for name, t in zip(game.seats, game.totals, strict=True) if name != "heur"]
    return statistics.fmean(randoms) - game.score_of("heur")


def duplicate_efficiency(seconds: float, seeds: int = 3, sets: int = 8) -> Result:
    ruleset = Ruleset.create("hearts", None, {"target": "50"})
    random_bot = sample_bot_command("random_bot").command
    randoms = [Entrant(f"rand{i}", f"{random_bot} --seed {i}") for i in range(1, 4)]
    entrants = (Entrant("heur", "sample:heuristic"), *randoms)
    per_seed = []
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(1, seeds + 1):
            config = TournamentConfig(
                entrants=entrants, ruleset=ruleset, seed=seed, format="gauntlet", candidate="heur"
            )
            result = run_tournament(config, Path(tmp) / str(seed), StopRule(sets=sets), jobs=2)
            games = [_difference(r, i) for r in result.records for i in range(len(r.games))]
            set_means = [statistics.fmean(_difference(r, i) for i in range(len(r.games))) for r in result.records]
            mean = statistics.fmean(games)
            games_needed = (Z95 * statistics.stdev(games) / mean) ** 2
            sets_needed = (Z95 * statistics.stdev(set_means) / mean) ** 2
            per_game = len(games) / len(set_means)
            per_seed.append((games_needed, sets_needed, per_game, mean))
    units = statistics.fmean(g / s for g, s, _, _ in per_seed)
    cost = statistics.fmean(g / (s * k) for g, s, k, _ in per_seed)
    return {
        "name": "duplicate_efficiency",
        "unit": "random-deal games needed / duplicate sets needed",
        "ours": round(statistics.fmean(s for _, s, _, _ in per_seed), 2),
        "baseline": round(statistics.fmean(g for g, _, _, _ in per_seed), 2),
        "ratio": round(units, 2),
        "games_ratio": round(cost, 2),
        "better": "higher",
        "seeds": seeds,
        "sets_per_seed": sets,
        "games_per_set": per_seed[0][2],
        "mean_difference": round(statistics.fmean(m for *_, m in per_seed), 2),
        "setup": "hearts target=50, heuristic vs 3 random bots (gauntlet), cyclic rotations",
        "seconds": round(time.perf_counter() - started, 1),
    }


def _games_per_second(bot: Path, out: Path, jobs: int, pin: bool, sets: int) -> float:
    entrants = tuple(Entrant(f"t{i}", str(bot)) for i in range(4))
    config = TournamentConfig(entrants=entrants, ruleset=Ruleset.create("kierki", None, {}), seed=1)
    started = time.perf_counter()
    result = run_tournament(config, out, StopRule(sets=sets), jobs=jobs, pin=pin)
    elapsed = time.perf_counter() - started
    return sum(len(r.games) for r in result.records) / elapsed


def _rates(seconds: float, variants: list[tuple[int, bool]]) -> list[float]:
    """Median games per second of each (jobs, pin) variant, the variants interleaved over the repeats."""
    with tempfile.TemporaryDirectory() as tmp:
        bot = build("trivial_bot", Path(tmp))
        # Size a run to about ``seconds`` with a first, short one.
        probe = _games_per_second(bot, Path(tmp) / "probe", 1, True, 2)
        sets = max(2, math.ceil(seconds * probe / 4))
        rates: list[list[float]] = [[] for _ in variants]
        for repeat in range(3):
            for index, (jobs, pin) in enumerate(variants):
                out = Path(tmp) / f"r{repeat}-{index}"
                rates[index].append(_games_per_second(bot, out, jobs, pin, sets * jobs))
        return [statistics.median(r) for r in rates]


def tournament_scaling(seconds: float) -> Result:
    one, two = _rates(seconds, [(1, True), (2, True)])
    return {
        "name": "tournament_scaling",
        "unit": "games/s, jobs=2 / jobs=1",
        "ours": round(two, 2),
        "baseline": round(one, 2),
        "ratio": round(two / one, 3),
        "better": "higher",
        "target": 1.8,
        "setup": "kierki, 4 trivial C bots, each game a fresh Match, workers pinned",
    }


def pinning(seconds: float) -> Result:
    pinned, unpinned = _rates(seconds, [(2, True), (2, False)])
    return {
        "name": "pinning",
        "unit": "games/s with jobs=2, pinned / unpinned",
        "ours": round(pinned, 2),
        "baseline": round(unpinned, 2),
        "ratio": round(pinned / unpinned, 3),
        "better": "higher",
        "setup": "kierki, 4 trivial C bots, each game a fresh Match",
    }


BENCHMARKS = {
    "duplicate_efficiency": duplicate_efficiency,
    "tournament_scaling": tournament_scaling,
    "pinning": pinning,
}
