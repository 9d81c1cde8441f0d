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

Wall-clock rates fall when other programs want the CPUs, so both report the load average before and after, and
the CPU time per game of each side, which load barely moves: ``coordinator_ms`` (this process: planning, the
pool's threads, the results file) and ``pool_ms`` (the workers and their bots, read from the CPU time of this
process's reaped descendants as its forkserver child reports it). ``cpu_ratio`` = 2 x the jobs=1 side's CPU per
game / the jobs=2 side's: the scaling an otherwise idle 2-CPU machine would show if the games kept both CPUs busy.
"""

from __future__ import annotations

import math
import os
import resource
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any, NamedTuple

import msgspec

from bench.referee_bench import build
from competition import stats
from competition.model import SetRecord
from competition.plan import Entrant
from competition.tournament import run_tournament
from competition.tournament_config import StopRule, TournamentConfig
from referee.bots.procfs import process_stat
from referee.match_config import sample_bot_command
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
            config = TournamentConfig.of(
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


class _Run(NamedTuple):
    games_per_s: float
    coordinator_ms: float  # CPU time of this process per game
    pool_ms: float  # CPU time of the workers and their bots per game


def _descendants_cpu_s() -> float:
    """CPU time of this process's children and of the descendants they have reaped (the forkserver has reaped
    every worker of a finished run, and each worker its bots), from ``/proc``; 0 where there is none."""
    total = 0.0
    try:
        tasks = os.listdir("/proc/self/task")
        children = set()
        for task in tasks:
            with open(f"/proc/self/task/{task}/children") as listing:
                children.update(listing.read().split())
        for child in children:
            fields = process_stat(int(child))
            if fields is None:
                raise OSError(f"/proc/{child}/stat: gone")
            total += sum(int(field) for field in fields[11:15])  # utime stime cutime cstime, in clock ticks
    except OSError:
        return 0.0
    return total / os.sysconf("SC_CLK_TCK")


def _own_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _play(bot: Path, out: Path, jobs: int, pin: bool, sets: int) -> _Run:
    entrants = tuple(Entrant(f"t{i}", str(bot)) for i in range(4))
    config = TournamentConfig.of(entrants=entrants, ruleset=Ruleset.create("kierki", None, {}), seed="1")
    own, pool = _own_cpu_s(), _descendants_cpu_s()
    started = time.perf_counter()
    result = run_tournament(config, out, StopRule(sets=sets), jobs=jobs, pin=pin)
    elapsed = time.perf_counter() - started
    games = sum(len(r.games) for r in result.records)
    return _Run(games / elapsed, 1000 * (_own_cpu_s() - own) / games, 1000 * (_descendants_cpu_s() - pool) / games)


def _runs(seconds: float, variants: list[tuple[int, bool]]) -> list[_Run]:
    """Medians of each (jobs, pin) variant's figures, the variants interleaved over the repeats."""
    with tempfile.TemporaryDirectory() as tmp:
        bot = build("trivial_bot", Path(tmp))
        # Size a run to about ``seconds`` with a first, short one.
        probe = _play(bot, Path(tmp) / "probe", 1, True, 2).games_per_s
        sets = max(2, math.ceil(seconds * probe / 4))
        runs: list[list[_Run]] = [[] for _ in variants]
        for repeat in range(3):
            for index, (jobs, pin) in enumerate(variants):
                out = Path(tmp) / f"r{repeat}-{index}"
                runs[index].append(_play(bot, out, jobs, pin, sets * jobs))
        return [_Run(*(statistics.median(field) for field in zip(*r, strict=True))) for r in runs]


def _cpu_figures(ours: _Run, baseline: _Run, ours_jobs: int, baseline_jobs: int) -> Result:
    per_game = {
        "ours_coordinator_ms": round(ours.coordinator_ms, 2),
        "ours_pool_ms": round(ours.pool_ms, 2),
        "baseline_coordinator_ms": round(baseline.coordinator_ms, 2),
        "baseline_pool_ms": round(baseline.pool_ms, 2),
    }
    ours_cpu = ours.coordinator_ms + ours.pool_ms
    baseline_cpu = baseline.coordinator_ms + baseline.pool_ms
    if ours_cpu > 0:
        per_game["cpu_ratio"] = round(ours_jobs / baseline_jobs * baseline_cpu / ours_cpu, 3)
    return per_game


def _load() -> float:
    return round(os.getloadavg()[0], 2)


def tournament_scaling(seconds: float) -> Result:
    load_before = _load()
    one, two = _runs(seconds, [(1, True), (2, True)])
    return {
        "name": "tournament_scaling",
        "unit": "games/s, jobs=2 / jobs=1",
        "ours": round(two.games_per_s, 2),
        "baseline": round(one.games_per_s, 2),
        "ratio": round(two.games_per_s / one.games_per_s, 3),
        "better": "higher",
        "target": 1.8,
        **_cpu_figures(two, one, 2, 1),
        "load_average": [load_before, _load()],
        "setup": "kierki, 4 trivial C bots, each game a fresh Match, workers pinned",
    }


def pinning(seconds: float) -> Result:
    load_before = _load()
    pinned, unpinned = _runs(seconds, [(2, True), (2, False)])
    return {
        "name": "pinning",
        "unit": "games/s with jobs=2, pinned / unpinned",
        "ours": round(pinned.games_per_s, 2),
        "baseline": round(unpinned.games_per_s, 2),
        "ratio": round(pinned.games_per_s / unpinned.games_per_s, 3),
        "better": "higher",
        **_cpu_figures(pinned, unpinned, 2, 2),
        "load_average": [load_before, _load()],
        "setup": "kierki, 4 trivial C bots, each game a fresh Match",
    }


BENCHMARKS = {
    "duplicate_efficiency": duplicate_efficiency,
    "tournament_scaling": tournament_scaling,
    "pinning": pinning,
}
