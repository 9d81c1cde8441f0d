"""Fair-play benchmarks (referee/bots/fairplay.py): CPU-heavy passers asked at once, and the freezer's cost.

``passes_cpu_heavy``: Hearts games of four trivial C bots that each compute 30 ms of CPU time per pass, under a
45 ms deadline, the match on one CPU (as ``kierki match`` runs by default). Ours: with control groups (each timed on
its own CPU time); baseline: the same games with ``--fair-play none`` (the wall clock). Reported: timeouts per 100
passes each side, and the wall time per deal that passes.

``freezer_anchor``: one freeze and one thaw of a bot's group (a sleeping process), as a decision makes them, with
the match's frozen anchor group in place (ours) and without it (baseline). Under cgroup v1 the first frozen group
switches a kernel static key on and the last thawed one switches it off, which is what the anchor avoids.
"""

from __future__ import annotations

import itertools
import json
import os
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.referee_bench import _pinned_here, _result, build
from referee.bots.cgroups import CgroupError, find_cgroups
from referee.bots.isolation import FairPlayMode, Isolation
from referee.bots.process import BotProcess
from referee.bots.spawn import join_prefix
from referee.bots.time_control import TimeControl
from referee.match import Match
from referee.match_config import BotSpec, MatchConfig, MatchSpec, RulesetSpec
from referee.rules import Ruleset

Result = dict[str, Any]
PASS_CPU_MS = 30
PASS_DEADLINE_MS = 45


def _passing_game(bot: Path, out: Path, seed: int, fair_play: FairPlayMode) -> tuple[float, int, int, int]:
    """One Hearts game of four CPU-heavy passers: (game seconds, deals that passed, passes, pass timeouts)."""
    spec = MatchSpec(
        rules=RulesetSpec.of(Ruleset.create("hearts", None, {"target": 50})),
        bots=tuple(BotSpec((str(bot), str(-PASS_CPU_MS))) for _ in range(4)),
        seed=str(seed),
        time=TimeControl(move_ms=PASS_DEADLINE_MS, startup_ms=10_000),
        isolation=Isolation(fair_play=fair_play),
    )
    match = Match(MatchConfig.from_spec(spec, out))
    match.run()
    records = [json.loads(line) for line in Path(match.replays[0]).read_text().splitlines()]
    timeouts = passes = 0
    for before, record in itertools.pairwise(records):
        if record.get("type") == "pass":
            passes += 1
            timeouts += before.get("type") == "fault" and before.get("code") == "timeout"
    return match.game_seconds[0], passes // 4, passes, timeouts


def passes_cpu_heavy(seconds: float) -> Result:
    try:
        find_cgroups()
    except CgroupError as error:
        return {"name": "passes_cpu_heavy", "skipped": f"no control groups here: {error}"}
    with tempfile.TemporaryDirectory() as tmp, _pinned_here():
        work = Path(tmp)
        bot = build("trivial_bot", work)
        tally = {side: [0.0, 0, 0, 0] for side in ("cgroup", "none")}
        seed = 0
        start = time.perf_counter()
        while seed < 2 or time.perf_counter() - start < seconds:
            seed += 1
            for side in tally:  # interleaved: a change of load touches both alike
                mode: FairPlayMode = "cgroup" if side == "cgroup" else "none"
                took, deals, passes, timeouts = _passing_game(bot, work / f"{side}-{seed}", seed, mode)
                for index, value in enumerate((took, deals, passes, timeouts)):
                    tally[side][index] += value
    per_100 = {side: 100 * t[3] / t[2] for side, t in tally.items()}
    per_deal = {side: 1000 * t[0] / max(1, t[1]) for side, t in tally.items()}
    return {
        "name": "passes_cpu_heavy",
        "unit": "pass timeouts per 100 passes (ours: control groups; baseline: --fair-play none)",
        "ours": round(per_100["cgroup"], 2),
        "baseline": round(per_100["none"], 2),
        "ratio": round(per_100["cgroup"] / per_100["none"], 3) if per_100["none"] else None,
        "better": "lower",
        "passes": tally["cgroup"][2],
        "ms_per_passing_deal_cgroup": round(per_deal["cgroup"], 1),
        "ms_per_passing_deal_none": round(per_deal["none"], 1),
        "note": f"four passers of {PASS_CPU_MS} ms CPU each under {PASS_DEADLINE_MS} ms, on one CPU",
        "load_average": round(os.getloadavg()[0], 2),
        "target": "0 timeouts with control groups",
    }


def _freeze_thaw_us(group: Any, rounds: int) -> float:
    start = time.perf_counter()
    for _ in range(rounds):
        group.freeze()
        group.thaw()
    return (time.perf_counter() - start) / rounds * 1e6


def freezer_anchor(seconds: float) -> Result:
    try:
        cgroups = find_cgroups()
    except CgroupError as error:
        return {"name": "freezer_anchor", "skipped": f"no control groups here: {error}"}
    ours: list[float] = []
    base: list[float] = []
    match = cgroups.open_match()
    group = match.bot("seat0")
    sleeper = subprocess.Popen([*join_prefix(group), "sleep", "600"])
    try:
        for _ in range(3):  # interleaved: with the anchor, then without it (no other group frozen), then again
            for results, anchored in ((ours, True), (base, False)):
                if anchored and match._anchor is None:
                    match._anchor = match.bot("anchor")
                    match._anchor.freeze()
                elif not anchored and match._anchor is not None:
                    match._anchor.thaw()
                    match._anchor.remove()
                    match._anchor = None
                deadline = time.perf_counter() + seconds / 2
                samples = []
                while time.perf_counter() < deadline:
                    samples.append(_freeze_thaw_us(group, 500))
                results.append(statistics.median(samples))
    finally:
        sleeper.kill()
        sleeper.wait()
        group.remove()
        match.close()
    return _result(
        "freezer_anchor",
        "µs per freeze and thaw of one bot's group (ours: with the match's frozen anchor group; baseline: without)",
        statistics.median(ours),
        statistics.median(base),
        "lower",
        cgroups=cgroups.version,
        note="a 4-seat match has three groups frozen at any time anyway; this is check-bot's and a lone bot's case",
    )


def _round_trips(bots: list[BotProcess], mode: str, count: int) -> float:
    """CPU time (ours and the bots' groups', µs) per request and answer, alternating between the bots."""
    request = b'{"type":"play","id":1,"legal":["2C"]}\n'
    start = time.process_time() + sum(bot.cpu_ns() for bot in bots) / 1e9
    for k in range(count):
        bot = bots[k % len(bots)]
        if mode == "thaw_first":
            bot.thaw()
        elif mode == "write_first":
            bot.thaw_after_write()
        bot.send(request)
        bot.read_line(time.monotonic() + 10)
        if mode != "no_freeze":
            bot.freeze()
    for bot in bots:
        bot.thaw()
    return (time.process_time() + sum(bot.cpu_ns() for bot in bots) / 1e9 - start) / count * 1e6


def freeze_round_trip(seconds: float) -> Result:
    """What freezing adds to a decision, in CPU time (so other load on the machine barely moves it): two trivial C
    bots in control groups answer requests in turn, on one CPU. Ours: frozen after each answer and thawed after
    the next request is written (what the referee does); baseline: never frozen; ``thaw_first_us``: thawed before
    the request is written (the bot wakes once for the thaw and again for the request)."""
    try:
        cgroups = find_cgroups()
    except CgroupError as error:
        return {"name": "freeze_round_trip", "skipped": f"no control groups here: {error}"}
    results: dict[str, list[float]] = {"write_first": [], "no_freeze": [], "thaw_first": []}
    with tempfile.TemporaryDirectory() as tmp, _pinned_here():
        binary = build("trivial_bot", Path(tmp))
        match = cgroups.open_match()
        bots = [
            BotProcess.start(
                [str(binary)], cwd=Path(tmp), env=None, stderr_log=Path(os.devnull), cgroup=match.bot(f"s{i}")
            )
            for i in range(2)
        ]
        try:
            for _ in range(3):
                for mode, found in results.items():
                    deadline = time.perf_counter() + seconds / 3
                    samples = []
                    while time.perf_counter() < deadline:
                        samples.append(_round_trips(bots, mode, 500))
                    found.append(statistics.median(samples))
        finally:
            for bot in bots:
                bot.terminate(0)
            match.close()
    return _result(
        "freeze_round_trip",
        "µs of CPU time (referee and bots) per request and answer (ours: frozen between turns; baseline: not)",
        statistics.median(results["write_first"]),
        statistics.median(results["no_freeze"]),
        "lower",
        cgroups=cgroups.version,
        thaw_first_us=round(statistics.median(results["thaw_first"]), 2),
        freeze_cost_us=round(statistics.median(results["write_first"]) - statistics.median(results["no_freeze"]), 2),
        target="freeze cost <= 5 µs per decision",
    )


BENCHMARKS: dict[str, Callable[[float], Result]] = {
    "passes_cpu_heavy": passes_cpu_heavy,
    "freezer_anchor": freezer_anchor,
    "freeze_round_trip": freeze_round_trip,
}
