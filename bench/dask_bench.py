"""``dask_overhead``: games per second through a two-worker Dask LocalCluster against the local pool with two jobs.

Both sides play the same tournaments (Kierki, four trivial C bots, so a game is mostly the referee and four bot
starts). ``ours`` is ``--executor dask`` on a ``distributed.LocalCluster`` of two worker processes with one
thread each (started once, its start-up reported apart as ``cluster_start_s``; each tournament connects a
client to it); ``baseline`` the local pool with ``--jobs 2``, unpinned like the Dask workers (``local_pinned``:
the pool as it runs by default, for context). Each side plays a tournament of N sets and one of 2N, and its rate
is the marginal one, (games of 2N - games of N) / (time of 2N - time of N): what one more game costs, without
the fixed cost of a run (the local pool's forkserver start, the Dask client's connection), which
``run_s_dask`` and ``run_s_local`` estimate. The sides are interleaved over 3 repeats; N is sized so the N-set
run takes about ``seconds``. ``per_game_overhead_ms`` is what the Dask path adds to one game's time on a worker
(the spec and its hashes, the scheduler's round trips, the logs sent back and written by the coordinator):
2 / ours - 2 / baseline; ``overhead_fraction`` divides it by the local game's time (2 / baseline).
"""

from __future__ import annotations

import logging
import math
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.referee_bench import build
from competition.executors import ExecutorSpec
from competition.plan import Entrant
from competition.tournament import run_tournament
from competition.tournament_config import StopRule, TournamentConfig
from referee.rules import Ruleset

Result = dict[str, Any]


def _run(bot: Path, out: Path, sets: int, executor: ExecutorSpec, pin: bool) -> tuple[int, float]:
    """Games played and wall seconds of one tournament."""
    entrants = tuple(Entrant(f"t{i}", str(bot)) for i in range(4))
    config = TournamentConfig.of(entrants=entrants, ruleset=Ruleset.create("kierki", None, {}), seed="1")
    started = time.perf_counter()
    result = run_tournament(config, out, StopRule(sets=sets), jobs=2, pin=pin, executor=executor)
    return sum(len(r.games) for r in result.records), time.perf_counter() - started


def dask_overhead(seconds: float) -> Result:
    import distributed

    with tempfile.TemporaryDirectory() as tmp:
        bot = build("trivial_bot", Path(tmp))
        started = time.perf_counter()
        cluster = distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=logging.ERROR
        )
        cluster_start = time.perf_counter() - started
        try:
            dask = ExecutorSpec("dask", scheduler=cluster.scheduler_address)
            variants = {"dask": (dask, False), "local": (ExecutorSpec(), False), "local_pinned": (ExecutorSpec(), True)}
            games, elapsed = _run(bot, Path(tmp) / "probe", 2, ExecutorSpec(), False)
            sets = max(4, math.ceil(seconds * games / elapsed / 4))
            rates: dict[str, list[float]] = {name: [] for name in variants}
            fixed: dict[str, list[float]] = {name: [] for name in variants}
            for repeat in range(3):
                for name, (executor, pin) in variants.items():
                    g1, t1 = _run(bot, Path(tmp) / f"{name}{repeat}a", sets, executor, pin)
                    g2, t2 = _run(bot, Path(tmp) / f"{name}{repeat}b", 2 * sets, executor, pin)
                    rate = (g2 - g1) / (t2 - t1)
                    rates[name].append(rate)
                    fixed[name].append(t1 - g1 / rate)
        finally:
            cluster.close()
    ours, baseline = statistics.median(rates["dask"]), statistics.median(rates["local"])
    overhead_ms = 1000 * (2 / ours - 2 / baseline)
    return {
        "name": "dask_overhead",
        "unit": "games/s (marginal), dask LocalCluster of 2 workers / local pool of 2 jobs",
        "ours": round(ours, 2),
        "baseline": round(baseline, 2),
        "ratio": round(ours / baseline, 3),
        "better": "higher",
        "game_ms": round(2000 / baseline, 1),
        "per_game_overhead_ms": round(overhead_ms, 1),
        "overhead_fraction": round(overhead_ms / (2000 / baseline), 3),
        "local_pinned": round(statistics.median(rates["local_pinned"]), 2),
        "run_s_dask": round(statistics.median(fixed["dask"]), 2),
        "run_s_local": round(statistics.median(fixed["local"]), 2),
        "cluster_start_s": round(cluster_start, 2),
        "sets": [sets, 2 * sets],
        "setup": "kierki, 4 trivial C bots, each game a fresh Match",
    }


BENCHMARKS = {"dask_overhead": dask_overhead}
