"""Referee benchmarks: per-decision overhead against a raw pipe round trip, match throughput, parallel scaling.

Every figure is a ratio against a baseline measured in the same run on the same machine, so the numbers compare
across machines. Bots are `trivial_bot.c` (answers by string search, next to no work of its own) so the referee's
cost shows; the raw baseline is a Python parent doing a blocking readline against `echo_child.c`, with requests
and answers of the same sizes as in the match.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from referee.bots.isolation import Isolation
from referee.bots.time_control import TimeControl
from referee.match import Match
from referee.match_config import BotSpec, MatchConfig, MatchSpec, RulesetSpec
from referee.rules import Ruleset

HERE = Path(__file__).parent
Result = dict[str, Any]


def _result(name: str, unit: str, ours: float, baseline: float, better: str, **context: Any) -> Result:
    if hasattr(os, "getloadavg"):
        context.setdefault("load_average", round(os.getloadavg()[0], 2))  # wall-clock figures suffer under load
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


class _pinned_here:
    """This process on one CPU for a block (what kierki match does by default), then back to what it had."""

    def __enter__(self) -> None:
        self.before = _usable()
        if self.before:
            os.sched_setaffinity(0, {min(self.before)})

    def __exit__(self, *exc: object) -> None:
        if self.before:
            os.sched_setaffinity(0, self.before)


def play_match(
    bot: Path, out_dir: Path, seed: int, transcript: bool = False, isolation: Isolation | None = None
) -> tuple[float, int, Match]:
    """One full 4-player Kierki match with trivial bots; returns (seconds, decisions, match).

    The seconds include starting and stopping the bots; ``match.game_seconds`` has the game loop alone.
    ``isolation``: the match's (the default: control groups and freezing where they can be made).
    """
    spec = MatchSpec(
        rules=RulesetSpec.of(Ruleset.create("kierki")),
        bots=tuple(BotSpec((str(bot),)) for _ in range(4)),
        seed=str(seed),
        time=TimeControl(move_ms=5000, startup_ms=10_000),
        transcript=transcript,
        isolation=Isolation() if isolation is None else isolation,
    )
    config = MatchConfig.from_spec(spec, out_dir)
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
    with tempfile.TemporaryDirectory() as tmp, _pinned_here():  # restored after: later benchmarks may not pin
        work = Path(tmp)
        bot, echo = build("trivial_bot", work), build("echo_child", work)
        request_bytes, answer_bytes = _message_sizes(bot, work)
        ours: list[float] = []
        base: list[float] = []
        # The same matches with control groups but no freezing, and without control groups, in the same repeats:
        # what fair play costs per decision (two writes to freeze and thaw, two reads of the CPU time).
        sides = {"no_freeze": Isolation(freeze=False), "no_cgroups": Isolation(fair_play="none")}
        other: dict[str, list[float]] = {name: [] for name in sides}
        in_force = None
        for repeat in range(3):
            for name, isolation in [("ours", None), *sides.items()]:
                elapsed = decisions = 0.0
                while elapsed < seconds:
                    _, count, match = play_match(
                        bot, work / f"m{repeat}-{name}-{decisions}", seed=repeat + 2, isolation=isolation
                    )
                    elapsed += match.game_seconds[0]
                    decisions += count
                    in_force = match.result_so_far().isolation if name == "ours" else in_force
                (ours if name == "ours" else other[name]).append(elapsed / decisions)
            base.append(raw_round_trips(echo, request_bytes, answer_bytes, seconds))
    return _result(
        "referee_overhead",
        "µs/decision",
        statistics.median(ours) * 1e6,
        statistics.median(base) * 1e6,
        "lower",
        request_bytes=request_bytes,
        answer_bytes=answer_bytes,
        referee_build=referee_build(),
        target="<= 3.0",
        fair_play=in_force,
        no_freeze_us=round(statistics.median(other["no_freeze"]) * 1e6, 2),
        no_cgroups_us=round(statistics.median(other["no_cgroups"]) * 1e6, 2),
        freeze_cost_us=round((statistics.median(ours) - statistics.median(other["no_freeze"])) * 1e6, 2),
        fair_play_cost_us=round((statistics.median(ours) - statistics.median(other["no_cgroups"])) * 1e6, 2),
    )


def _seat_stream(transcript: Path) -> list[tuple[bytes, Any]]:
    """One seat's play requests as the match sent them: per request, the events that rode with it (already
    encoded) and the request decoded back into its msgspec Struct."""
    from protocol import codec
    from protocol import messages as m

    stream: list[tuple[bytes, Any]] = []
    events: list[bytes] = []
    for line in transcript.read_bytes().splitlines():
        _, direction, payload = line.split(b" ", 2)
        if direction != b"->":
            continue
        message = codec.decode_referee_line(payload)
        if isinstance(message, m.PlayRequest):
            stream.append((b"".join(events), message))
            events = []
        elif isinstance(message, m.Event):
            events.append(payload + b"\n")
    return stream


def protocol_floor(seconds: float) -> Result:
    """What any referee written in Python must spend per decision just to speak the protocol, against the raw
    round trip of the same bytes: the request's msgspec Struct (built beforehand) encoded, written with the events
    riding with it in one ``os.write``, the answer read with one blocking ``os.read`` and decoded by the protocol's
    decoder, plus the events' encoding (each event once, as the match shares a public event's line between seats).
    No game state, no request built from it, no legality check, no replay record, no deadline: everything the
    referee does beyond this is what ``referee_overhead`` adds. ``with_rules_core`` adds the rules core's own
    ``GameState.apply`` of the same game's decisions (no I/O), the one other thing no referee can skip."""
    from protocol import codec
    from referee.replay.reader import parse
    from referee.replay.timeline import build_timeline
    from referee.rules import GameState

    with tempfile.TemporaryDirectory() as tmp, _pinned_here():
        work = Path(tmp)
        bot, echo = build("trivial_bot", work), build("echo_child", work)
        _, decisions, match = play_match(bot, work / "t", seed=1, transcript=True)
        stream = _seat_stream(work / "t" / "seat0.transcript.log")
        sent = sum(len(events) + len(codec.encode(request)) for events, request in stream) // len(stream)
        timeline = build_timeline(parse(Path(match.replays[0]).read_bytes()))
        steps = [(step.seat, step.action) for step in timeline.decisions]
        ruleset, seed = timeline.ruleset, timeline.replay.header.seed
        event_messages = [codec.decode_referee_line(line) for events, _ in stream for line in events.splitlines()]

        def encode_events() -> float:  # per decision of the match
            start = time.perf_counter()
            for message in event_messages:
                codec.encode(message)
            return (time.perf_counter() - start) / decisions

        def apply_only() -> float:
            state = GameState(ruleset, seed=seed)
            start = time.perf_counter()
            for seat, action in steps:
                state.apply(action, seat)
            return (time.perf_counter() - start) / len(steps)

        def speak(seconds: float) -> float:
            child = subprocess.Popen([str(bot)], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
            assert child.stdin is not None and child.stdout is not None
            to_bot, from_bot = child.stdin.fileno(), child.stdout.fileno()
            encode, decode, write, read = codec.encode, codec.decode_bot_line, os.write, os.read
            count = 0
            start = time.perf_counter()
            while time.perf_counter() - start < seconds:
                for events, request in stream:
                    write(to_bot, events + encode(request))
                    decode(read(from_bot, 65536))
                count += len(stream)
            elapsed = time.perf_counter() - start
            child.stdin.close()
            child.wait()
            return elapsed / count

        floors, cores, raws = [], [], []
        for _ in range(3):
            events_s = statistics.median(encode_events() for _ in range(20))
            floors.append(speak(seconds) + events_s)
            cores.append(statistics.median(apply_only() for _ in range(20)))
            raws.append(raw_round_trips(echo, sent, 36, seconds))
    floor, core, raw = statistics.median(floors), statistics.median(cores), statistics.median(raws)
    return _result(
        "protocol_floor",
        "µs/decision (ours: the protocol's messages alone, encoded, written, read, decoded)",
        floor * 1e6,
        raw * 1e6,
        "lower",
        bytes_per_write=sent,
        rules_core_apply_us=round(core * 1e6, 2),
        with_rules_core=round((floor + core) / raw, 3),
        rules_build=referee_build(),
        note="what referee_overhead's target (<= 3.0) leaves for everything else: 3.0 minus with_rules_core",
    )


def referee_build() -> str:
    """Which build of the match loop this process runs: "compiled" (mypyc, ``KIERKI_COMPILED``) or "pure"."""
    from referee import match

    return "pure" if (match.__file__ or "").endswith(".py") else "compiled"


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
    with tempfile.TemporaryDirectory() as tmp, _pinned_here():
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


# --- pinning, a whole `kierki match` from the shell, startup, concurrent passes ---------------------------------


def _usable() -> set[int]:
    return set(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else set()


def _per_decision(bot: Path, work: Path, seconds: float, tag: str) -> float:
    """Game-loop seconds per decision of back-to-back Kierki matches for at least ``seconds``."""
    elapsed = decisions = 0.0
    count = 0
    while elapsed < seconds:
        _, made, match = play_match(bot, work / f"{tag}{count}", seed=count + 2)
        elapsed += match.game_seconds[0]
        decisions += made
        count += 1
    return elapsed / decisions


def unpinned_penalty(seconds: float) -> Result:
    """The same matches with referee and bots free to run on every CPU, against all of them on one CPU."""
    usable = _usable()
    if len(usable) < 2:
        return {"name": "unpinned_penalty", "skipped": "needs two CPUs and sched_setaffinity"}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        bot = build("trivial_bot", work)
        free, pinned = [], []
        try:
            for repeat in range(3):
                os.sched_setaffinity(0, usable)
                free.append(_per_decision(bot, work, seconds, f"free{repeat}-"))
                os.sched_setaffinity(0, {min(usable)})
                pinned.append(_per_decision(bot, work, seconds, f"pinned{repeat}-"))
        finally:
            os.sched_setaffinity(0, usable)
    return _result(
        "unpinned_penalty",
        "µs/decision (ours: unpinned, baseline: pinned to one CPU)",
        statistics.median(free) * 1e6,
        statistics.median(pinned) * 1e6,
        "lower",
        cpus=len(usable),
        note="kierki match pins by default (--cpu); this is what --cpu none costs",
    )


def _kierki_command() -> list[str]:
    """The installed ``kierki`` script next to this Python, else the same entry point through ``-c``."""
    script = Path(sys.executable).parent / "kierki"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "from kierki_cli.launch import main; main()"]


def _wall(command: list[str], **kwargs: Any) -> tuple[float, subprocess.CompletedProcess[bytes]]:
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, check=True, **kwargs)
    return time.perf_counter() - start, done


def _runs(seconds: float, minimum: int, once: Callable[[], float]) -> list[float]:
    times: list[float] = []
    start = time.perf_counter()
    while len(times) < minimum or time.perf_counter() - start < seconds:
        times.append(once())
    return times


def _spawn_four(bot: Path) -> float:
    """Four bots started with pipes and ended at once (stdin closed, waited for): the floor of starting a match."""
    start = time.perf_counter()
    children = [
        subprocess.Popen([str(bot)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for _ in range(4)
    ]
    for child in children:
        child.communicate()
    return time.perf_counter() - start


def match_wall(seconds: float) -> Result:
    """``kierki match`` with four trivial C bots, as typed in a shell, against its floor: a bare ``python -c pass``,
    four bot spawns, and the match's decisions as raw round trips of the same sizes (all on one CPU)."""
    kierki = _kierki_command()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        bot, echo = build("trivial_bot", work), build("echo_child", work)
        request_bytes, answer_bytes = _message_sizes(bot, work)
        counter = iter(range(1_000_000))
        decisions: list[int] = []

        def one_match() -> float:
            out = work / f"wall{next(counter)}"
            took, done = _wall([*kierki, "match", "--seed", "7", "--json", "--out", str(out), *[str(bot)] * 4])
            decisions.append(sum(seat["decisions"] for seat in json.loads(done.stdout)["seats"]))
            return took

        ours = statistics.median(_runs(seconds, 5, one_match))
        bare = statistics.median(_runs(seconds / 2, 5, lambda: _wall([sys.executable, "-c", "pass"])[0]))
        # Context, not part of the floor: the interpreter with the two libraries every kierki command loads.
        deps = [sys.executable, "-c", "import click, msgspec.json"]
        with_deps = statistics.median(_runs(seconds / 2, 5, lambda: _wall(deps)[0]))
        with _pinned_here():
            spawns = statistics.median(_runs(seconds / 4, 5, lambda: _spawn_four(bot)))
            trip = raw_round_trips(echo, request_bytes, answer_bytes, seconds / 2)
    floor = bare + spawns + decisions[0] * trip
    return _result(
        "match_wall",
        "ms per whole kierki match",
        ours * 1e3,
        floor * 1e3,
        "lower",
        floor_parts_ms={
            "python_c_pass": round(bare * 1e3, 2),
            "four_spawns": round(spawns * 1e3, 2),
            "round_trips": round(decisions[0] * trip * 1e3, 2),
        },
        decisions=decisions[0],
        python_click_msgspec_ms=round(with_deps * 1e3, 2),
        floor_with_click_msgspec=round((with_deps + spawns + decisions[0] * trip) / floor, 3),
        target="<= 2.5",
    )


def cli_startup(seconds: float) -> Result:
    """``kierki --help`` against a bare ``python -c pass`` of the same interpreter, wall clock, median."""
    kierki = _kierki_command()
    ours: list[float] = []
    bare: list[float] = []

    def pair() -> float:  # interleaved, so a change of load or CPU clock touches both sides alike
        ours.append(_wall([*kierki, "--help"])[0])
        bare.append(_wall([sys.executable, "-c", "pass"])[0])
        return ours[-1] + bare[-1]

    _runs(2 * seconds, 9, pair)
    return _result(
        "cli_startup",
        "ms",
        statistics.median(ours) * 1e3,
        statistics.median(bare) * 1e3,
        "lower",
        command=" ".join(Path(part).name for part in kierki) + " --help",
        target="<= 2.0",
    )


PASS_MS = 20


def _hearts_game(bot_argv: tuple[str, ...], out: Path, seed: int) -> tuple[float, int]:
    """One Hearts game with four copies of ``bot_argv``: (game seconds, deals that passed)."""
    spec = MatchSpec(
        rules=RulesetSpec.of(Ruleset.create("hearts")),
        bots=tuple(BotSpec(bot_argv) for _ in range(4)),
        seed=str(seed),
        time=TimeControl(move_ms=5000, startup_ms=10_000),
    )
    config = MatchConfig.from_spec(spec, out)
    match = Match(config)
    match.run()
    records = [json.loads(line) for line in Path(match.replays[0]).read_text().splitlines()]
    passes = sum(1 for record in records if record.get("type") == "pass")
    return match.game_seconds[0], passes // 4


def passes_concurrent(seconds: float) -> Result:
    """Hearts games with passers that take 20 ms per pass, against the same games with instant passers: the extra
    time per deal that passes, in units of one pass time (1.0: every seat passes at once; 4.0: one after another)."""
    with tempfile.TemporaryDirectory() as tmp, _pinned_here():
        work = Path(tmp)
        bot = build("trivial_bot", work)
        extra: list[float] = []
        for repeat in range(3):
            slow = fast = 0.0
            deals = 0
            seed = 0
            start = time.perf_counter()
            while seed < 2 or time.perf_counter() - start < seconds:
                seed += 1
                took, passed = _hearts_game((str(bot), str(PASS_MS)), work / f"slow{repeat}-{seed}", seed)
                slow += took
                deals += passed
                fast += _hearts_game((str(bot),), work / f"fast{repeat}-{seed}", seed)[0]
            extra.append((slow - fast) / deals)
    return _result(
        "passes_concurrent",
        "ms extra per deal that passes (ours: bots taking 20 ms per pass; baseline: one pass time)",
        statistics.median(extra) * 1e3,
        PASS_MS,
        "lower",
        note="1.0: the four passes overlap; asked one seat at a time it would be 4.0",
        target="<= 1.25",
    )


BENCHMARKS: dict[str, Callable[[float], Result]] = {
    "referee_overhead": referee_overhead,
    "protocol_floor": protocol_floor,
    "match_throughput": match_throughput,
    "parallel_scaling": parallel_scaling,
    "unpinned_penalty": unpinned_penalty,
    "match_wall": match_wall,
    "cli_startup": cli_startup,
    "passes_concurrent": passes_concurrent,
}
