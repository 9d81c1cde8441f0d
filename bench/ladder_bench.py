"""Ladder benchmark: ``ladder_sets_per_hour``, a ladder's throughput with the sample bots, and the database's share.

A fresh ladder (Hearts, 4 players, default options, no sandbox, 2 jobs) with two heuristic and two random sample
bots runs for the given budget. ``ours``: duplicate sets played per hour of wall time (planning, claiming, playing
and committing each set); ``db_share``: the part of that time spent in SQLite (planning, claiming and the commit
of each result with its rating update), which the ladder's design says must stay small next to the games.
"""

from __future__ import annotations

import dataclasses
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import sample_bots
from competition.ladder.config import BotSettings, LadderConfig, RunSettings
from competition.ladder.ladder import add_bot, init_ladder
from competition.ladder.run import run_ladder
from referee.bots.isolation import Isolation

Result = dict[str, Any]


def ladder_sets_per_hour(seconds: float) -> Result:
    samples = Path(sample_bots.__file__).parent
    config = LadderConfig(game="hearts", players=4)
    config = dataclasses.replace(
        config,
        isolation=Isolation(sandbox="none"),
        run=RunSettings(jobs=2),
        bots=BotSettings(validation=False),
    )
    with tempfile.TemporaryDirectory(prefix="kierki-ladder-bench-") as base:
        folder = Path(base) / "ladder"
        init_ladder(folder, config)
        for name, program in (("h1", "heuristic"), ("h2", "heuristic"), ("r1", "random"), ("r2", "random")):
            add_bot(folder, name, [sys.executable, str(samples / f"{program}_bot.py")], cwd=Path(base))
        started = time.perf_counter()
        report = run_ladder(folder, budget_s=max(seconds, 1.0), sets=None)
        if report.sets_played == 0:  # the budget ran out before one set: play one regardless
            report = run_ladder(folder, sets=1)
        wall = time.perf_counter() - started
    busy = report.db_seconds + report.play_seconds
    return {
        "name": "ladder_sets_per_hour",
        "unit": "sets/h",
        "ours": round(report.sets_played / wall * 3600, 1),
        "baseline": None,
        "ratio": None,
        "better": "higher",
        "sets": report.sets_played,
        "wall_s": round(wall, 2),
        "db_share": round(report.db_seconds / busy, 5) if busy else None,
        "db_ms_per_set": round(1000 * report.db_seconds / max(1, report.sets_played), 2),
        "game": "hearts, 4 players, target 100",
        "jobs": 2,
    }
