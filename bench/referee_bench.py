"""Referee benchmarks: per-decision overhead against a raw pipe round trip, match throughput, parallel scaling.

Every figure is a ratio against a baseline measured in the same run on the same machine, so the numbers compare
across machines. Bots are `trivial_bot.c` (answers by string search, next to no work of its own) so the referee's
cost shows; the raw baseline is a Python parent doing a blocking readline against `echo_child.c`, with requests
and answers of the same sizes as in the match.
"""

from __future__ import annotations

import multiprocessing
import os
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from referee.bots.seat import TimeControl
from referee.match import BotSpec, Match, MatchConfig
from referee.rules import Ruleset

HERE = Path(__file__).parent
Result = dict[str, Any]


def _result(name: str, unit: str, ours: float, baseline: float, better: str, **context: Any) -> Result:
    return {
        "name": name,
        "unit": unit,
        "ours": round(ours, 2),
        "baseline": round(baseline, 2),
        "ratio": round(ours / baseline, 3),
        "better": better,
        **context,
    }


def build(name: str, out_dir: Path) -> Path:
    """Compile bench/NAME.c once per run into out_dir."""
    binary = out_dir / name
    if not binary.exists():
        subprocess.run(["cc", "-O2", "-o", str(binary), str(HERE / f"{name}.c")], check=True)
    return binary


def pin_to_one_cpu(cpu: int = 0) -> None:
    """Referee and bots on one core: a hand-off between cores costs several times one on the same core."""
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {cpu % (os.cpu_count() or 1)})


def play_match(bot: Path, out_dir: Path, seed: int, transcript: bool = False) -> tuple[float, int, Match]:
    """One full 4-player Kierki match with trivial bots; returns (seconds, decisions, match).

    The seconds include starting and stopping the bots; ``match.game_seconds`` has the game loop alone.
    """
    config = MatchConfig(
        ruleset=Ruleset.create("kierki"),
        bots=tuple(BotSpec((str(bot),)) for _ in range(4)),
        out_dir=out_dir,
        seed=seed,
        time=TimeControl(move_ms=5000, startup_ms=10_000),
        transcript=transcript,
    )
    match = Match(config)
    start = time.perf_counter()
    match.run()
    elapsed = time.perf_counter() - start
    return elapsed, sum(s.stats.decisions for s in match.seats), match


def _message_sizes(bot: Path, work: Path) -> tuple[int, int]:
    """Average bytes sent per decision (request plus the events riding with it) and per answer."""
    _, decisions, _ = play_match(bot, work / "sizes", seed=1, transcript=True)
    sent = received = 0
    for log in (work / "sizes").glob("seat*.transcript.log"):
        for line in log.read_bytes().splitlines():
            _, direction, payload = line.split(b" ", 2)
            if direction == b"->":
                sent += len(payload) + 1
            else:
                received += len(payload) + 1
    return sent // decisions, received // decisions


def raw_round_trips(echo: Path, request_bytes: int, answer_bytes: int, seconds: float) -> float:
    """Seconds per round trip: blocking write + readline against a C echo child."""
    child = subprocess.Popen([str(echo), str(answer_bytes - 1)], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert child.stdin is not None and child.stdout is not None
    request = b"x" * (request_bytes - 1) + b"\n"
    count = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(200):
            child.stdin.write(request)
            child.stdin.flush()
            child.stdout.readline()
        count += 200
    elapsed = time.perf_counter() - start
    child.stdin.close()
    child.wait()
    return elapsed / count


def referee_overhead(seconds: float) -> Result:
    pin_to_one_cpu()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        bot, echo = build("trivial_bot", work), build("echo_child", work)
        request_bytes, answer_bytes = _message_sizes(bot, work)
        ours: list[float] = []
        base: list[float] = []
        for repeat in range(3):
            elapsed = decisions = 0.0
            while elapsed < seconds:
                _, count, match = play_match(bot, work / f"m{repeat}-{decisions}", seed=repeat + 2)
                elapsed += match.game_seconds[0]
                decisions += count
            ours.append(elapsed / decisions)
            base.append(raw_round_trips(echo, request_bytes, answer_bytes, seconds))
    return _result(
        "referee_overhead",
        "µs/decision",
        statistics.median(ours) * 1e6,
        statistics.median(base) * 1e6,
        "lower",
        request_bytes=request_bytes,
        answer_bytes=answer_bytes,
        target="<= 1.6",
    )


def _matches_for(seconds: float, cpu: int, work: str, queue: Any) -> None:
    pin_to_one_cpu(cpu)
    bot = Path(work) / "trivial_bot"
    count = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        play_match(bot, Path(work) / f"p{cpu}-{count}", seed=count + 1)
        count += 1
    queue.put(count / (time.perf_counter() - start))


def _in_parallel(workers: int, seconds: float, work: str) -> float:
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    procs = [context.Process(target=_matches_for, args=(seconds, cpu, work, queue)) for cpu in range(workers)]
    for p in procs:
        p.start()
    rates = [queue.get() for _ in procs]
    for p in procs:
        p.join()
    return float(sum(rates))


def match_throughput(seconds: float) -> Result:
    """Full Kierki matches per second on one core, against raw round trips of the same count per second."""
    pin_to_one_cpu()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        bot, echo = build("trivial_bot", work), build("echo_child", work)
        request_bytes, answer_bytes = _message_sizes(bot, work)
        rates, bases = [], []
        for _ in range(3):
            rates.append(_in_parallel(1, seconds, str(work)))
            per_trip = raw_round_trips(echo, request_bytes, answer_bytes, seconds)
            bases.append(1 / (per_trip * 600))  # a 4-player Kierki match is about 600 decisions
    return _result(
        "match_throughput",
        "matches/s",
        statistics.median(rates),
        statistics.median(bases),
        "higher",
        note="baseline: raw round trips for 600 decisions (a Kierki match) in the same time",
    )


def parallel_scaling(seconds: float) -> Result:
    """Two matches at once, each pinned to its own core, against one."""
    cores = os.cpu_count() or 1
    with tempfile.TemporaryDirectory() as tmp:
        build("trivial_bot", Path(tmp))
        ones, twos = [], []
        for _ in range(3):
            ones.append(_in_parallel(1, seconds, tmp))
            twos.append(_in_parallel(min(2, cores), seconds, tmp))
    return _result(
        "parallel_scaling",
        "matches/s",
        statistics.median(twos),
        statistics.median(ones),
        "higher",
        cores=cores,
        target=">= 1.8",
    )


BENCHMARKS: dict[str, Callable[[float], Result]] = {
    "referee_overhead": referee_overhead,
    "match_throughput": match_throughput,
    "parallel_scaling": parallel_scaling,
}
