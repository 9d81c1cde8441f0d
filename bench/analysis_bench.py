"""What ``kierki analyse`` costs (``referee.analysis``, docs/viewers/analysis.md), at its default budget.

- ``analysis_speed``: decisions analysed per CPU second, over the first ``DEALS`` deals of the golden 4-player Kierki
  game (every seat), against the search alone (``referee.search.evaluate`` on the same observations, no replay
  rebuilt, no perfect-information solve): the ratio is what the analysis adds to the search.
- ``analysis_match_cpu``: the CPU seconds of analysing that whole golden game (a whole ``kierki match``: 12 deals),
  every seat, at the default budget, one process.
- ``analysis_jobs_scaling``: the wall time of ``analyse_log`` of the golden Hearts game (every seat) on one and on two
  processes (``--jobs``), the same figures both ways; the speed-up is ours, 2.0 the ideal.

Run it in both builds (``KIERKI_COMPILED=build/compiled``, tools/build_compiled.py).
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from referee import search
from referee.analysis import DEFAULT_PLAYOUTS, AnalysisSettings, analyse_log, decision_seed, open_log

ROOT = Path(__file__).resolve().parent.parent
KIERKI = ROOT / "tests" / "golden" / "kierki-seed3.replay.jsonl"
HEARTS = ROOT / "tests" / "golden" / "hearts-target30-seed5.replay.jsonl"
DEALS = (1, 2, 8)  # two penalty deals and a trump deal


def analysis_speed(rules_build: str) -> dict[str, Any]:
    settings = AnalysisSettings(deals=DEALS)
    start = time.process_time()
    analysed = analyse_log(KIERKI, settings)
    ours_cpu = time.process_time() - start
    decisions = len(analysed.decisions)
    timeline, _, _ = open_log(KIERKI)
    wanted = {d.decision for d in analysed.decisions}
    views = []
    for step in timeline.decisions:
        if step.index in wanted:
            views.append((step.index, timeline.state_at(step.index).observation(step.seat)))
    start = time.process_time()
    for index, seen in views:
        choices = search.choices_of(timeline.ruleset, seen)
        search.evaluate(timeline.ruleset, seen, settings.budget(), decision_seed(0, index), choices=choices)
    base_cpu = time.process_time() - start
    ours, baseline = decisions / ours_cpu, len(views) / base_cpu
    return {
        "name": "analysis_speed",
        "unit": "decisions analysed per CPU second",
        "ours": round(ours, 2),
        "baseline": round(baseline, 2),
        "ratio": round(ours / baseline, 3),
        "better": "higher",
        "rules_build": rules_build,
        "playouts": DEFAULT_PLAYOUTS,
        "decisions": decisions,
        "log": f"{KIERKI.relative_to(ROOT)} deals {list(DEALS)}",
        "baseline_is": "referee.search.evaluate alone on the same observations (no replay, no exact solve)",
    }


def analysis_match_cpu(rules_build: str) -> dict[str, Any]:
    start = time.process_time()
    analysed = analyse_log(KIERKI, AnalysisSettings())
    cpu = time.process_time() - start
    return {
        "name": "analysis_match_cpu",
        "unit": "CPU seconds to analyse a whole 4-player Kierki match, every seat",
        "ours": round(cpu, 2),
        "baseline": None,
        "ratio": None,
        "better": "lower",
        "rules_build": rules_build,
        "playouts": DEFAULT_PLAYOUTS,
        "decisions_in_log": analysed.summary.decisions,
        "decisions_analysed": len(analysed.decisions),
        "log": str(KIERKI.relative_to(ROOT)),
    }


def _share_cpu(path: Path, settings: AnalysisSettings, indices: list[int]) -> float:
    """The CPU seconds one process of ``--jobs`` spends on its share (``referee.analysis``'s own worker)."""
    from referee.analysis import _worker

    start = time.process_time()
    _worker(path, settings, indices)
    return time.process_time() - start


def analysis_jobs_scaling(rules_build: str) -> dict[str, Any]:
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context

    from referee.analysis import _wanted

    walls = {}
    outputs = {}
    cpu_one = 0.0
    for jobs in (1, 2):
        start, cpu = time.perf_counter(), time.process_time()
        outputs[jobs] = analyse_log(HEARTS, AnalysisSettings(), jobs=jobs)
        walls[jobs] = time.perf_counter() - start
        if jobs == 1:
            cpu_one = time.process_time() - cpu
    assert outputs[1] == outputs[2], "the figures do not depend on --jobs"
    # On a loaded machine the wall clock says little: the CPU of each process's share says what two idle cores give.
    timeline, _, _ = open_log(HEARTS)
    wanted = _wanted(timeline, AnalysisSettings())
    with ProcessPoolExecutor(2, mp_context=get_context("forkserver")) as pool:
        shares = list(pool.map(_share_cpu, [HEARTS] * 2, [AnalysisSettings()] * 2, [wanted[0::2], wanted[1::2]]))
    return {
        "name": "analysis_jobs_scaling",
        "unit": "wall-time speed-up of --jobs 2 over --jobs 1 (2.0 ideal)",
        "ours": round(walls[1] / walls[2], 3),
        "baseline": 1.0,
        "ratio": round(walls[1] / walls[2], 3),
        "better": "higher",
        "clock": "wall",
        "rules_build": rules_build,
        "wall_s": {str(jobs): round(wall, 2) for jobs, wall in walls.items()},
        "cpu_s_jobs_1": round(cpu_one, 2),
        "cpu_s_each_share_jobs_2": [round(share, 2) for share in shares],
        "speedup_from_cpu_shares": round(cpu_one / max(shares), 3),
        "cpus": len(os.sched_getaffinity(0)),
        "load_1min": round(os.getloadavg()[0], 2),
        "log": str(HEARTS.relative_to(ROOT)),
    }
