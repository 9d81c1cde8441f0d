"""Tournament benchmarks: what duplicate play saves, how games in parallel scale, what CPU pinning buys.

- ``duplicate_efficiency``: the heuristic sample bot against three random ones (a gauntlet), hearts, through
  ``competition.stats.duplicate_efficiency``: duplicate sets (``ours``) against games of random deals
  (``baseline``) needed to tell the heuristic bot from ``rand1`` at 95%, averaged over seeds. The random-deal
  games are the same games taken one by one (each one's marginal is a game of a random deal), so no extra games
  are played. The heuristic bot is so much better that a handful of units separates it either way (the needed
  counts sit near their floor of 2), so ``ratio`` is the large-sample form var(game) / var(set): how many
  random-deal games one duplicate set is worth; ``games_ratio`` divides that by the games a set costs.
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

import msgspec

from bench.referee_bench import build
from competition import stats
from competition.model import SetRecord
from competition.plan import Entrant
from competition.tournament import StopRule, TournamentConfig, run_tournament
from referee.match import sample_bot_command
from referee.rules import Ruleset

Result = dict[str, Any]


def _single_games(records: list[SetRecord]) -> list[SetRecord]:
    """Every game of the sets on its own: each one's marginal is a game of a random deal (the games of one set
    share their deals, which makes the spread estimated from them noisier, not biased)."""
    return [msgspec.structs.replace(r, games=(g,)) for r in records for g in r.games]


def duplicate_efficiency(seconds: float, seeds: int = 3, sets: int = 8) -> Result:
    ruleset = Ruleset.create("hearts", None, {"target": "50"})
    random_bot = sample_bot_command("random_bot").command
    randoms = [Entrant(f"rand{i}", f"{random_bot} --seed {i}") for i in range(1, 4)]
    entrants = (Entrant("heur", "sample:heuristic"), *randoms)
    runs = []
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(1, seeds + 1):
            config = TournamentConfig(
                entrants=entrants, ruleset=ruleset, seed=str(seed), format="gauntlet", candidate="heur"
            )
            records = run_tournament(config, Path(tmp) / str(seed), StopRule(sets=sets), jobs=2).records
            runs.append(stats.duplicate_efficiency(_single_games(records), records, "heur", "rand1"))
    # The heuristic bot is so much better that a handful of units separates it either way (units_needed's floor
    # of 2 then hides the difference), so the ratio is given in its large-sample form.
    sets_vs_games = statistics.fmean(r.random_spread**2 / r.set_spread**2 for r in runs)
    games_vs_games = statistics.fmean(r.random_spread**2 / (r.games_per_set * r.set_spread**2) for r in runs)
    return {
        "name": "duplicate_efficiency",
        "unit": "random-deal games needed / duplicate sets needed (large-sample: var(game) / var(set))",
        "ours": round(statistics.fmean(r.duplicate_sets for r in runs), 2),
        "baseline": round(statistics.fmean(r.random_games for r in runs), 2),
        "ratio": round(sets_vs_games, 2),
        "games_ratio": round(games_vs_games, 2),
        "ratio_at_these_counts": round(statistics.fmean(r.ratio for r in runs), 2),
        "better": "higher",
        "seeds": seeds,
        "sets_per_seed": sets,
        "games_per_set": runs[0].games_per_set,
        "difference_per_game": round(statistics.fmean(r.difference for r in runs), 2),  # heur - rand1: < 0 is better
        "setup": "hearts target=50, heuristic vs 3 random bots (gauntlet), cyclic rotations; heur vs rand1",
        "elapsed_s": round(time.perf_counter() - started, 1),
    }


def _games_per_second(bot: Path, out: Path, jobs: int, pin: bool, sets: int) -> float:
    entrants = tuple(Entrant(f"t{i}", str(bot)) for i in range(4))
    config = TournamentConfig(entrants=entrants, ruleset=Ruleset.create("kierki", None, {}), seed="1")
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
