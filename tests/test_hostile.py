"""The zoo of hostile bots (tests/hostile/): whatever a bot does, the match ends with a right result, the other seats
see a normal game, and no process of any bot is left behind.

Every match here records transcripts, and ``play`` checks the same four things for every bot before the test checks
the consequence it is about: the match finished (a kierki match sums to 0, a hearts game reaches its target), the
other seats have no faults and got only well-formed messages ending in a normal ``game_end`` and ``bye``, the
referee sent well-formed messages to the hostile seat too, and no process of any seat's session is alive. Bounds
are counts (faults, bytes buffered, log sizes), never seconds.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
import typing
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from kierki_cli.main import cli
from protocol import codec
from protocol import messages as m
from referee.bots.fairplay import fair_play_problem
from referee.bots.isolation import FairPlayMode, Isolation
from referee.bots.process import BotProcess
from referee.bots.procfs import process_stat, session_members
from referee.bots.sandbox import (
    DEFAULT_DISK_MB,
    FILES_PER_MB,
    NO_LIMITS,
    Limits,
    SandboxError,
    SandboxKind,
    bot_env,
    check_bwrap,
    describe_exit,
    prepare,
    resolve_argv,
    status_tasks,
    user_task_count,
)
from referee.bots.time_control import TimeControl
from referee.match import Match
from referee.match_config import BotSpec, MatchConfig, MatchSetupError, MatchSpec, RulesetSpec, default_bots
from referee.rules import Ruleset
from referee.vocabulary.match_result import MatchResult, SeatResult

HOSTILE = Path(__file__).parent / "hostile"
ROOT = Path(__file__).resolve().parent.parent  # the checkout: protocol and kierki_cli, and the pure referee
FAST_MS = 1000  # the deadline when the hostile bot answers (nobody waits for it: the others answer at once)
SHORT_MS = 200  # the deadline when it is expected to time out: each timeout costs this much
SLOW_OK_MS = 20_000  # for a decision that does real work before it fails (allocating, writing): never waited for
HEARTS_30: dict[str, object] = {"target": 30}
MIB = 1024 * 1024
REQUESTS = typing.get_args(m.Request)


def hostile(name: str, *args: str) -> BotSpec:
    return BotSpec((sys.executable, str(HOSTILE / f"{name}.py"), *args))


def bwrap_problem() -> str | None:
    if shutil.which("bwrap") is None:
        return "bubblewrap (bwrap) is not installed"
    try:
        check_bwrap()
    except SandboxError as error:
        return str(error)
    return None


needs_bwrap = pytest.mark.skipif(bwrap_problem() is not None, reason=str(bwrap_problem()))
# How a bot that allocates without end ends: killed for its control group's memory, or a MemoryError (RLIMIT_AS).
OUT_OF_MEMORY = "exit status 1" if fair_play_problem("cgroup") else "out of memory: limit 256 MB"
needs_cgroups = pytest.mark.skipif(
    fair_play_problem("cgroup") is not None, reason=f"no cgroups: {fair_play_problem('auto')}"
)


# --- processes -------------------------------------------------------------------------------------------------


def processes_with(marker: str) -> list[int]:
    """Live pids whose command line contains ``marker`` (finds a process that left its session)."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            cmdline = Path(f"/proc/{name}/cmdline").read_bytes()
        except OSError:
            continue
        fields = process_stat(int(name))
        if marker.encode() in cmdline and fields and fields[0] not in (b"Z", b"X"):
            found.append(int(name))
    return found


def settle(check: Callable[[], list[int]], rounds: int = 400) -> list[int]:
    """``check()`` once it is empty, or what it still returns after a bounded number of short waits.

    SIGKILL is asynchronous: a process killed a moment ago (the last members of a pid namespace) may still be
    listed for a few milliseconds. This bounds a loop, not a duration the test asserts on.
    """
    found = check()
    for _ in range(rounds):
        if not found:
            break
        time.sleep(0.005)
        found = check()
    return found


# --- the referee in a process of its own -----------------------------------------------------------------------


def session_build() -> tuple[str, Path]:
    """The file this session's BotProcess came from (pure or compiled: KIERKI_COMPILED), and the folder that holds
    that ``referee`` package."""
    build = sys.modules[BotProcess.__module__].__file__
    assert build is not None
    return build, Path(build).parent.parent.parent


def kierki_in_a_process() -> list[str]:
    """The ``kierki`` command for a referee process of its own, on this session's build; it exits at once if it
    imported the other one (the checkout's pure source is found first from the current folder otherwise)."""
    build, home = session_build()
    code = (
        f"import sys; sys.path[:0] = [{str(home)!r}, {str(ROOT)!r}]; from referee.bots import process; "
        f"sys.exit('kierki_in_a_process: not the build of the tests: ' + str(process.__file__)) "
        f"if process.__file__ != {build!r} else None; from kierki_cli.main import cli; cli()"
    )
    return [sys.executable, "-c", code]


# --- one match with a hostile seat ---------------------------------------------------------------------------


@dataclass
class Played:
    match: Match
    result: MatchResult
    out: Path
    bad: int

    @property
    def bad_seat(self) -> SeatResult:
        return self.result.seats[self.bad]

    def replay(self, game: int = 1) -> list[dict[str, Any]]:
        path = self.out / f"game{game:03d}.replay.jsonl"
        return [json.loads(line) for line in path.read_text().splitlines()]

    def faults(self) -> list[dict[str, Any]]:
        return [r for r in self.replay() if r["type"] == "fault"]

    def transcript(self, seat: int) -> list[tuple[str, bytes]]:
        path = self.out / f"seat{seat}.transcript.log"
        lines = []
        for raw in path.read_bytes().split(b"\n")[:-1]:
            _time, direction, line = raw.split(b" ", 2)
            lines.append((direction.decode(), line))
        return lines

    def stderr(self, seat: int | None = None) -> bytes:
        return (self.out / f"seat{self.bad if seat is None else seat}.stderr.log").read_bytes()

    def ignored_lines(self) -> int:
        return self.match.seats[self.bad].stats.ignored_lines


def play(
    tmp_path: Path,
    bad: BotSpec,
    *,
    game: str = "hearts",
    options: dict[str, object] | None = None,
    move_ms: int = FAST_MS,
    seed: int = 5,
    limits: Limits | None = None,
    sandbox: SandboxKind = "none",
    bot_env: tuple[tuple[str, str], ...] = (),
    seat: int = 0,
    fair_play: FairPlayMode = "auto",
) -> Played:
    """Play one game with ``bad`` at ``seat`` and sample bots elsewhere, and check what must hold for any bot."""
    if options is None and game == "hearts":
        options = HEARTS_30
    ruleset = Ruleset.create(game, None, options)
    bots = list(default_bots(ruleset.players))
    bots[seat] = bad
    out = tmp_path / "out"
    config = MatchConfig.from_spec(
        MatchSpec(
            rules=RulesetSpec.of(ruleset),
            bots=tuple(bots),
            seed=str(seed),
            time=TimeControl(move_ms=move_ms, startup_ms=10_000),
            transcript=True,
            isolation=Isolation(
                limits=Limits() if limits is None else limits, sandbox=sandbox, bot_env=bot_env, fair_play=fair_play
            ),
        ),
        out,
    )
    match = Match(config)
    try:
        result = match.run()
    finally:
        assert_no_processes_left(match)
    played = Played(match, result, out, seat)
    assert_match_finished(played, ruleset)
    for other in range(ruleset.players):
        assert_well_formed_messages(played, other)
        if other != seat:
            assert_normal_game(played, other)
    return played


def assert_no_processes_left(match: Match) -> None:
    for seat in match.seats:
        assert isinstance(seat.process, BotProcess)
        left = settle(functools.partial(session_members, seat.process.pid))
        assert left == [], f"seat {seat.seat} left processes behind"


def assert_match_finished(played: Played, ruleset: Ruleset) -> None:
    result = played.result
    assert result.status == "complete" and result.games == 1
    totals = [s.total for s in result.seats]
    records = played.replay()
    assert {k: v for k, v in records[-1].items() if k != "cpu_ms"} == {"type": "end", "status": "complete"}
    assert records[-2]["type"] == "game_end" and records[-2]["totals"] == totals
    if ruleset.game.value == "kierki":
        assert sum(totals) == 0
    else:
        target = ruleset.options()["target"]
        assert isinstance(target, int) and max(totals) >= target


def assert_well_formed_messages(played: Played, seat: int) -> None:
    """Whatever a bot did, the referee wrote only valid protocol messages to it."""
    for direction, line in played.transcript(seat):
        if direction == "->":
            codec.decode_referee_line(line)


def assert_normal_game(played: Played, seat: int) -> None:
    """A seat next to the hostile one: no faults, no error messages, its answers taken, a normal end."""
    result = played.result.seats[seat]
    assert result.faults == {} and result.strikes == 0 and result.forfeited_in_game is None
    assert played.match.seats[seat].stats.ignored_lines == 0
    sent = [codec.decode_referee_line(line) for d, line in played.transcript(seat) if d == "->"]
    answers = [codec.decode_bot_line(line) for d, line in played.transcript(seat) if d == "<-"]
    requests = [msg for msg in sent if hasattr(msg, "id")]
    assert not any(isinstance(msg, m.ErrorEvent) for msg in sent)
    assert [a.id for a in answers] == [r.id for r in requests]  # every request answered, in order
    ends = [msg for msg in sent if isinstance(msg, m.GameEndEvent)]
    assert len(ends) == 1 and list(ends[0].totals) == [s.total for s in played.result.seats]
    assert isinstance(sent[-1], m.ByeEvent) and sent[-1].reason == "match_over"


def assert_forfeited_by(played: Played, code: str, count: int) -> None:
    bad = played.bad_seat
    assert bad.faults == {code: count} and bad.strikes == count
    assert bad.forfeited_in_game == 1
    faults = played.faults()
    assert [f["code"] for f in faults] == [code] * count and faults[-1]["forfeited"]
    if code == "crash":
        return  # nothing more can be said to a bot that is gone
    sent = [codec.decode_referee_line(line) for d, line in played.transcript(played.bad) if d == "->"]
    assert isinstance(sent[-1], m.ByeEvent) and sent[-1].reason == "forfeited"
    errors = [msg for msg in sent if isinstance(msg, m.ErrorEvent)]
    assert [e.code for e in errors] == [code] * count and errors[-1].forfeited


def assert_unharmed(played: Played) -> None:
    bad = played.bad_seat
    assert bad.faults == {} and bad.strikes == 0 and bad.forfeited_in_game is None


# --- the handshake: a bot that never gets going stops the match cleanly --------------------------------------


@pytest.mark.parametrize(("name", "why"), [("silent", "no answer within"), ("crash_at_start", "exited")])
def test_a_bot_that_never_says_hello_stops_the_match_and_leaves_nothing(tmp_path: Path, name: str, why: str) -> None:
    ruleset = Ruleset.create("hearts", None, HEARTS_30)
    config = MatchConfig.from_spec(
        MatchSpec(
            rules=RulesetSpec.of(ruleset),
            bots=(*default_bots(4)[:2], hostile(name), default_bots(4)[3]),
            time=TimeControl(move_ms=SHORT_MS, startup_ms=SHORT_MS * 2),
            transcript=True,
        ),
        tmp_path / "out",
    )
    match = Match(config)
    with pytest.raises(MatchSetupError, match=f"seat 2 .* failed the handshake: .*{why}"):
        match.run()
    assert_no_processes_left(match)
    for seat in (0, 1):  # they said hello: they hear that the match was aborted, not that it is over
        sent = [line for way, line in _transcript(tmp_path / "out", seat) if way == "->"]
        assert json.loads(sent[-1]) == {"type": "bye", "reason": "aborted"}
    if name == "crash_at_start":
        assert b"RuntimeError: hostile bot: crashing at start" in (tmp_path / "out" / "seat2.stderr.log").read_bytes()


# --- bad answers: a fallback each time, forfeited at the third strike -----------------------------------------


@pytest.mark.parametrize(
    ("name", "code", "says"),
    [
        ("garbage", "malformed", "not valid JSON"),
        ("binary_junk", "malformed", "not valid UTF-8"),
        ("wrong_type", "wrong_type", 'you sent "hello"'),
        ("wrong_fields", "malformed", "invalid"),
        ("deep_json", "malformed", "nested too deeply"),
        ("not_held", "illegal", "not in your hand"),
    ],
)
def test_bad_answers_are_struck_three_times_then_forfeited(tmp_path: Path, name: str, code: str, says: str) -> None:
    played = play(tmp_path, hostile(name, "2"))
    assert_forfeited_by(played, code, 3)
    assert says in played.faults()[0]["message"]
    decisions = [r for r in played.replay() if r["type"] in ("play", "pass") and r["seat"] == 0]
    assert not decisions[0].get("fallback")  # its first decision was its own
    assert all(r.get("fallback") for r in decisions[1:])  # then fallbacks, then the forfeited seat's fallbacks


@pytest.mark.parametrize("name", ["pass_wrong_count", "pass_duplicate"])
def test_a_wrong_pass_is_illegal(tmp_path: Path, name: str) -> None:
    played = play(tmp_path, hostile(name), options={"target": 100}, seed=8)
    assert_forfeited_by(played, "illegal", 3)  # one strike per passing deal; its plays are all legal
    rule = "pass-count" if name == "pass_wrong_count" else "pass-own-cards"
    assert all(f"[rule: {rule}]" in f["message"] for f in played.faults())


# --- silence: timeouts -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["never_answers", "busy_loop"])
def test_silence_times_out_three_times_then_forfeits(tmp_path: Path, name: str) -> None:
    played = play(tmp_path, hostile(name, "2"), move_ms=SHORT_MS)
    assert_forfeited_by(played, "timeout", 3)


def test_a_late_answer_is_never_taken_for_the_next_request(tmp_path: Path) -> None:
    played = play(tmp_path, hostile("late_answer", "2"), move_ms=SHORT_MS)
    assert_forfeited_by(played, "timeout", 3)
    assert played.ignored_lines() >= 1  # the late answers did arrive, during the next request, and were dropped
    current = None
    for direction, line in played.transcript(0):  # every answer that was not taken was older than the request
        if direction == "->":
            message = codec.decode_referee_line(line)
            if isinstance(message, REQUESTS):
                current = message.id
        elif (answer := codec.decode_bot_line(line)).id != current:
            assert current is not None and answer.id < current
    first_late = next(i for i, r in enumerate(played.replay()) if r["type"] == "fault")
    late_decisions = [r for r in played.replay()[first_late:] if r.get("seat") == 0 and "fallback" in r]
    assert late_decisions and all(r["fallback"] for r in late_decisions)


# --- floods: bounded memory and disk, no fault when the answers are right --------------------------------------


def peak_rss_kib() -> int:
    """This process's peak resident memory so far (VmHWM), in KiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM in /proc/self/status")


def huge_line_in_a_process_of_its_own(out: str, ending: str, build: str) -> None:
    """The child of the test below: plays the huge-line match with ``play``'s checks and prints what it measured.

    Run as ``python -P -c`` with this folder, the session's build and the checkout on PYTHONPATH; ``build`` is the
    file the session's BotProcess came from, so a child that imported the other build (pure or compiled) refuses to
    measure.
    """
    if (loaded := sys.modules[BotProcess.__module__].__file__) != build:
        sys.exit(f"the child loaded {loaded}, not the session's {build}")
    before = peak_rss_kib()
    if ending == "ended":
        played = play(Path(out), hostile("huge_line", "2"))
    else:
        played = play(Path(out), hostile("huge_line", "2", "open"), move_ms=500)
    after = peak_rss_kib()
    allocated = b"x" * (64 * MIB)  # the measure sees 64 MiB that are really touched, so it would see 100 MB
    probe = peak_rss_kib()
    bad = played.bad_seat
    report = {"faults": bad.faults, "forfeited": bad.forfeited_in_game, "before": before, "after": after}
    print(json.dumps({**report, "probe": probe, "allocated": len(allocated)}))


@pytest.mark.parametrize("ending", ["ended", "open"])
def test_a_100_mb_line_costs_bounded_memory_and_one_strike(tmp_path: Path, ending: str) -> None:
    """Ended: one strike. Left open: the bot's next answer ends the long line and is lost with it, a timeout.

    The match runs in a process of its own, whose peak resident memory (VmHWM) is read before and after it: the
    same measure for the pure and the compiled build, whose BotProcess cannot be patched to report its buffer.
    """
    build, home = session_build()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).parent), str(home), str(ROOT)])}
    code = "import sys, test_hostile; test_hostile.huge_line_in_a_process_of_its_own(*sys.argv[1:])"
    child = subprocess.run(
        [sys.executable, "-P", "-c", code, str(tmp_path), ending, build],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert child.returncode == 0, child.stdout[-2000:] + child.stderr[-4000:]
    measured = json.loads(child.stdout.splitlines()[-1])
    if ending == "ended":
        assert measured["faults"] == {"malformed": 1}
    else:
        assert measured["faults"] == {"malformed": 1, "timeout": 1}
    assert measured["forfeited"] is None
    assert measured["probe"] - measured["after"] >= 60 * 1024  # the measure works: it saw the 64 MiB probe
    # KiB; about 1 MiB on either build (a 64 KiB read, one line and the match's own growth) out of 100 MB
    assert measured["after"] - measured["before"] <= 8 * 1024
    records = [json.loads(line) for line in (tmp_path / "out" / "game001.replay.jsonl").read_text().splitlines()]
    fault_at = next(i for i, r in enumerate(records) if r["type"] == "fault")
    assert f"longer than {codec.MAX_BOT_LINE_BYTES} bytes" in records[fault_at]["message"]
    later = records[fault_at + 2 :]
    own = [r for r in later if r["type"] in ("play", "pass") and r["seat"] == 0 and not r.get("fallback")]
    assert own, "after the long line the bot's own answers are taken again (so all 100 MB went through the referee)"


def test_a_stderr_flood_is_capped_in_the_log_and_costs_nothing_else(tmp_path: Path) -> None:
    played = play(tmp_path, hostile("stderr_flood"), move_ms=SLOW_OK_MS)  # a loaded machine drains slower
    assert_unharmed(played)
    log = played.stderr()
    cap = played.match.config.spec.stderr_cap_bytes
    assert cap < len(log) <= cap + 100 and log.rstrip().endswith(f"[stderr truncated after {cap} bytes]".encode())


def test_ten_thousand_lines_with_wrong_ids_are_ignored(tmp_path: Path) -> None:
    played = play(tmp_path, hostile("extra_lines", "2"))
    assert_unharmed(played)
    assert played.ignored_lines() == 10_000


def test_an_answer_sent_twice_is_taken_once(tmp_path: Path) -> None:
    played = play(tmp_path, hostile("answers_twice"))
    assert_unharmed(played)
    decisions = played.bad_seat.decisions
    assert decisions - 1 <= played.ignored_lines() <= decisions  # the last copy may come after the last request


# --- the bot goes away, or pretends to ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("crash_mid_game", "exited (exit status 1)"),
        ("exit_code", "exited (exit status 7)"),
        ("exits_after_hello", "exited (exit status 0)"),
        ("close_stdout", "closed its output but kept running"),
        ("fork_and_exit", "exited (exit status 0)"),
    ],
)
def test_a_bot_that_stops_answering_for_good_is_forfeited_at_once(tmp_path: Path, name: str, says: str) -> None:
    played = play(tmp_path, hostile(name, "2"))
    assert_forfeited_by(played, "crash", 1)
    assert says in played.faults()[0]["message"]
    if name == "crash_mid_game":
        assert b"RuntimeError: hostile bot: crashing at decision 2" in played.stderr()


def test_a_bot_that_ignores_sigterm_and_bye_is_killed_at_the_end(tmp_path: Path) -> None:
    played = play(tmp_path, hostile("ignore_sigterm"))
    assert_unharmed(played)
    process = played.match.seats[0].process
    assert process is not None and process.returncode == -signal.SIGKILL


# --- resource limits ---------------------------------------------------------------------------------------


def test_memory_without_limit_meets_the_memory_limit_of_its_address_space_without_control_groups(
    tmp_path: Path,
) -> None:
    played = play(
        tmp_path,
        hostile("memory_hog", "2"),
        limits=Limits(memory_mb=256),
        move_ms=SLOW_OK_MS,
        fair_play="none",
    )
    assert_forfeited_by(played, "crash", 1)
    assert b"MemoryError" in played.stderr()


@needs_cgroups
@pytest.mark.parametrize("sandbox", ["none", pytest.param("bwrap", marks=needs_bwrap)])
def test_a_bot_allocating_past_the_limit_is_reported_as_out_of_memory(tmp_path: Path, sandbox: SandboxKind) -> None:
    """In a control group the limit is resident memory: the kernel kills the bot when it goes over, and the bot is
    told (and the log says) that it ran out of its memory, its own fault."""
    played = play(
        tmp_path, hostile("memory_hog", "2"), limits=Limits(memory_mb=256), move_ms=SLOW_OK_MS, sandbox=sandbox
    )
    assert_forfeited_by(played, "crash", 1)
    assert "out of memory: limit 256 MB (--limit-memory)" in played.faults()[0]["message"]
    assert played.result.isolation is not None and played.result.isolation["memory"] == "cgroup"


def test_a_huge_file_is_cut_at_the_file_size_limit(tmp_path: Path) -> None:
    played = play(tmp_path, hostile("huge_file", "2"), limits=Limits(file_mb=8), move_ms=SLOW_OK_MS)
    assert_forfeited_by(played, "crash", 1)
    assert b"OSError: [Errno 27] File too large" in played.stderr()  # Python ignores SIGXFSZ, so the write fails
    written = played.out / "seat0" / "huge.bin"  # in its private directory, where its working directory is
    assert written.stat().st_size == 8 * MIB


def test_cpu_time_is_limited_per_match(tmp_path: Path) -> None:
    played = play(tmp_path, hostile("cpu_hog"), limits=Limits(cpu_s=1))
    assert_forfeited_by(played, "crash", 1)
    assert "SIGXCPU" in played.faults()[0]["message"] and "--limit-cpu" in played.faults()[0]["message"]


def test_a_fork_bomb_is_capped_and_every_child_is_killed(tmp_path: Path) -> None:
    played = play(tmp_path, hostile("fork_bomb"), limits=Limits(processes=64))
    assert_unharmed(played)
    said = played.stderr().decode()
    assert "forked" in said
    forked = int(said.split("forked ")[1].split()[0])
    assert 1 <= forked <= 200
    held = played.result.isolation is not None and played.result.isolation["processes"] == "cgroup"
    if held or os.getuid() != 0:  # RLIMIT_NPROC does not apply to root (pids.max does); else the bot's own cap
        assert forked <= 64 and "fork failed" in said
    # play() has checked that none of them is left


@needs_bwrap
@pytest.mark.parametrize(
    ("name", "args", "limits", "faults", "says"),
    [
        ("crash_mid_game", ["2"], Limits(), {"crash": 1}, "exit status 1"),
        ("busy_loop", ["2"], Limits(), {"timeout": 3}, "no answer within"),
        ("huge_line", ["2"], Limits(), {"malformed": 1}, "longer than"),
        ("stderr_flood", [], Limits(), {}, ""),
        ("fork_and_exit", ["2"], Limits(), {"crash": 1}, "exit status 0"),
        ("ignore_sigterm", [], Limits(), {}, ""),
        ("close_stdout", ["2"], Limits(), {"crash": 1}, "closed its output but kept running"),
        ("fork_bomb", [], Limits(processes=64), {}, ""),
        ("memory_hog", ["2"], Limits(memory_mb=256), {"crash": 1}, OUT_OF_MEMORY),
        ("cpu_hog", [], Limits(cpu_s=1), {"crash": 1}, "128 + SIGXCPU: the CPU-time limit (--limit-cpu)"),
    ],
)
def test_the_zoo_inside_bubblewrap(
    tmp_path: Path, name: str, args: list[str], limits: Limits, faults: dict[str, int], says: str
) -> None:
    """The same consequences through bubblewrap: its exit statuses, its pid namespace, the limits inside it."""
    move_ms = SHORT_MS if "timeout" in faults else SLOW_OK_MS
    played = play(tmp_path, hostile(name, *args), limits=limits, sandbox="bwrap", move_ms=move_ms)
    assert played.bad_seat.faults == faults
    assert (played.bad_seat.forfeited_in_game == 1) == (sum(faults.values()) >= 3 or "crash" in faults)
    if says:
        assert says in played.faults()[0]["message"]


# --- isolation: what a bot can see and touch ---------------------------------------------------------------


@pytest.fixture
def listener() -> Iterator[int]:
    """A TCP socket on 127.0.0.1 that the snoop tries to reach; yields its port."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(8)
        yield server.getsockname()[1]


def snoop(tmp_path: Path, port: int, sandbox: SandboxKind, monkeypatch: pytest.MonkeyPatch) -> tuple[Played, Any]:
    outside = tmp_path / "outside"
    outside.mkdir()
    secret_dir = tmp_path / "out" / "seat1"
    secret_dir.mkdir(parents=True)
    (secret_dir / "secret.txt").write_text("seat 1's secret")
    monkeypatch.setenv("KIERKI_TEST_SECRET_TOKEN", "must-not-reach-bots")
    played = play(
        tmp_path,
        hostile("snoop", "1", str(port), str(outside)),
        game="kierki",
        sandbox=sandbox,
        bot_env=(("KIERKI_GIVEN", "yes"),),
        limits=Limits(disk_mb=0),  # its report stays in its private directory, here on the host
    )
    assert_unharmed(played)
    report = json.loads((played.out / "seat0" / "snoop.json").read_text())
    assert report["cwd"] == str((played.out / "seat0").resolve())
    # PWD is set by bubblewrap's --chdir, LC_CTYPE by Python's own C-locale coercion
    assert set(report["env"]) <= {"PATH", "HOME", "TMPDIR", "LANG", "LC_ALL", "LC_CTYPE", "PWD", "KIERKI_GIVEN"}
    assert "KIERKI_GIVEN" in report["env"] and "KIERKI_TEST_SECRET_TOKEN" not in report["env"]
    return played, report


def test_without_a_sandbox_a_bot_can_read_other_seats_files_and_the_replay(
    tmp_path: Path, listener: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What --sandbox none does not stop (SECURITY.md): same user, same file system, same network."""
    played, report = snoop(tmp_path, listener, "none", monkeypatch)
    assert report["read_other_private"] == {"ok": True, "value": "seat 1's secret"}
    assert report["read_other_stderr"]["ok"] and "seat1.stderr.log" in report["list_out"]["value"]
    assert report["read_replay"]["ok"] and report["replay_hands_seen"]  # every hand, while the game runs
    assert report["write_out"]["ok"] and (played.out / "planted-by-snoop.txt").exists()
    assert report["write_outside"]["ok"] and (tmp_path / "outside" / "planted-by-snoop.txt").exists()
    assert report["connect"]["ok"]
    assert report["read_shadow"]["ok"] == (os.geteuid() == 0)  # the referee's user: root reads it too


@needs_bwrap
def test_in_bubblewrap_a_bot_sees_no_other_seat_no_log_and_no_network(
    tmp_path: Path, listener: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    played, report = snoop(tmp_path, listener, "bwrap", monkeypatch)
    assert report["list_out"] == {"ok": True, "value": ["seat0"]}  # an empty stand-in for --out, and its own dir
    assert not report["read_other_private"]["ok"] and not report["read_other_stderr"]["ok"]
    assert not report["replay_hands_seen"]
    assert not report["write_out"]["ok"] and "Read-only" in report["write_out"]["error"]
    assert not report["write_outside"]["ok"] and not (tmp_path / "outside" / "planted-by-snoop.txt").exists()
    assert not report["connect"]["ok"]
    assert not (played.out / "planted-by-snoop.txt").exists()
    # /etc is shown read-only, but a bot never runs as root: as root's bot it is nobody, else the user's own
    assert not report["read_shadow"]["ok"] and "PermissionError" in report["read_shadow"]["error"]


@pytest.mark.parametrize("sandbox", ["none", pytest.param("bwrap", marks=needs_bwrap)])
def test_a_child_that_leaves_the_session_does_not_survive_the_match(tmp_path: Path, sandbox: SandboxKind) -> None:
    """setsid() escapes the session sweep; the referee, a child subreaper, adopts the orphan and ends it.

    Under bubblewrap the pid namespace already takes it down with the sandbox.
    """
    marker = f"escape-{uuid.uuid4().hex}"
    played = play(tmp_path, hostile("setsid_escape", "1", marker), sandbox=sandbox)
    assert_unharmed(played)
    escaped = settle(lambda: processes_with(marker))
    try:
        assert escaped == []
    finally:
        for pid in escaped:
            os.kill(pid, signal.SIGKILL)


@pytest.mark.parametrize("sandbox", ["none", pytest.param("bwrap", marks=needs_bwrap)])
def test_a_bot_that_kills_its_parent_kills_the_referee_only_without_a_sandbox(tmp_path: Path, sandbox: str) -> None:
    """Run in a separate referee process: without a sandbox the attack succeeds, and must not hit pytest."""
    marker = f"killer-{uuid.uuid4().hex}"
    bot = f"{sys.executable} {HOSTILE / 'kill_referee.py'} 1 {marker}"
    sample = " ".join(default_bots(4)[1].argv)
    command = [*kierki_in_a_process(), "match", "--game", "hearts"]
    command += ["--option", "target=30", "--seed", "3", "--out", str(tmp_path / "out"), "--sandbox", sandbox]
    command += ["--json", bot, sample, sample, sample]
    referee = subprocess.run(command, capture_output=True, timeout=120, check=False)
    try:
        if sandbox == "none":
            assert referee.returncode == -signal.SIGKILL
        else:
            assert referee.returncode == 0, referee.stderr
            result = json.loads(referee.stdout)
            assert result["status"] == "complete" and result["seats"][0]["faults"] == {}
    finally:  # with the referee gone, the bots see their input end and leave; make sure
        left = settle(lambda: processes_with(marker))
        for pid in left:
            os.kill(pid, signal.SIGKILL)
    assert left == []


def test_a_referee_killed_in_a_later_deal_leaves_every_finished_deal_in_the_log(tmp_path: Path) -> None:
    """The replay log is flushed at least once per deal: SIGKILL (no handler runs) in deal 2 keeps deal 1 whole."""
    marker = f"late-killer-{uuid.uuid4().hex}"
    bot = f"{sys.executable} {HOSTILE / 'kill_referee_later.py'} 20 {marker}"  # a seat decides 14 times a deal
    sample = " ".join(default_bots(4)[1].argv)
    command = [*kierki_in_a_process(), "match", "--game", "hearts"]
    command += ["--option", "target=100", "--seed", "3", "--out", str(tmp_path / "out"), bot, sample, sample, sample]
    referee = subprocess.run(command, capture_output=True, timeout=120, check=False)
    try:
        assert referee.returncode == -signal.SIGKILL, referee.stderr
    finally:
        left = settle(lambda: processes_with(marker))
        for pid in left:
            os.kill(pid, signal.SIGKILL)
    part = tmp_path / "out" / "game001.replay.jsonl.part"
    records = [json.loads(line) for line in part.read_text().splitlines()]
    ends = [r for r in records if r["type"] == "deal_end"]
    assert len(ends) >= 1 and ends[0]["deal"] == 1  # deal 1, finished before the kill, is in the file
    shown = CliRunner().invoke(cli, ["replay", str(part), "--deal", "1"])
    assert shown.exit_code == 0 and "partial log" in shown.output, shown.output


# --- the sandbox module --------------------------------------------------------------------------------------


def test_relative_commands_keep_working_from_the_private_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, listener: int
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    for name in ("snoop.py", "_common.py"):
        shutil.copy(HOSTILE / name, project / name)
    monkeypatch.chdir(project)
    spec = BotSpec.parse(f"{sys.executable} snoop.py 1 {listener} ./missing-dir")
    played = play(tmp_path, spec, game="kierki")
    assert_unharmed(played)
    report = json.loads((played.out / "seat0" / "snoop.json").read_text())
    assert report["cwd"] == str((played.out / "seat0").resolve())
    header = played.replay()[0]
    assert header["bots"][0]["command"] == spec.command  # the log keeps the command as given


def test_resolve_argv_makes_existing_relative_paths_absolute(tmp_path: Path) -> None:
    (tmp_path / "bot.py").write_text("")
    (tmp_path / "weights.bin").write_text("")
    argv = ["python3", "bot.py", "--level", "2", "--weights=weights.bin", "./run.sh", "-v", "missing.txt"]
    assert resolve_argv(argv, tmp_path) == (
        "python3",
        str(tmp_path / "bot.py"),
        "--level",
        "2",
        f"--weights={tmp_path / 'weights.bin'}",
        "./run.sh",
        "-v",
        "missing.txt",
    )
    assert resolve_argv(["./run.sh", "x"], tmp_path) == (str(tmp_path / "run.sh"), "x")


def test_the_environment_is_built_not_inherited(tmp_path: Path) -> None:
    base = {"PATH": "/usr/bin", "LANG": "C.UTF-8", "AWS_SECRET_ACCESS_KEY": "x", "HOME": "/root", "PYTHONPATH": "y"}
    env = bot_env(tmp_path, (("OMP_NUM_THREADS", "1"),), base)
    assert env == {
        "PATH": "/usr/bin",
        "LANG": "C.UTF-8",
        "HOME": str(tmp_path),
        "TMPDIR": str(tmp_path / "tmp"),
        "OMP_NUM_THREADS": "1",
    }


def test_prepare_makes_the_private_directory(tmp_path: Path) -> None:
    bot = prepare(
        ["python3", "-c", "pass"], user_cwd=tmp_path, private_dir=tmp_path / "out" / "seat3", out_dir=tmp_path
    )
    assert bot.cwd == bot.home == (tmp_path / "out" / "seat3").resolve() and (bot.home / "tmp").is_dir()
    with pytest.raises(SandboxError, match="unknown sandbox"):
        prepare(["x"], user_cwd=tmp_path, private_dir=tmp_path, out_dir=tmp_path, sandbox="docker")  # type: ignore[arg-type]


@needs_bwrap
def test_bwrap_refuses_a_bot_inside_the_out_folder_and_a_missing_program(tmp_path: Path) -> None:
    out = tmp_path / "out"
    (out / "bot.py").parent.mkdir(parents=True)
    (out / "bot.py").write_text("")
    kwargs: dict[str, Any] = {"user_cwd": tmp_path, "private_dir": out / "seat0", "out_dir": out, "sandbox": "bwrap"}
    with pytest.raises(SandboxError, match="inside the --out folder"):
        prepare(["python3", "out/bot.py"], **kwargs)
    with pytest.raises(SandboxError, match="not found on PATH"):
        prepare(["no-such-program-kierki"], **kwargs)


def _bwrap_match(tmp_path: Path) -> MatchConfig:
    """A Hearts match of the sample bots under bubblewrap, played in ``tmp_path/out``."""
    rules = RulesetSpec.of(Ruleset.create("hearts", None, HEARTS_30))
    spec = MatchSpec(rules=rules, bots=default_bots(4), isolation=Isolation(sandbox="bwrap"))
    return MatchConfig.from_spec(spec, tmp_path / "out")


def test_bwrap_missing_is_a_clear_setup_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no bwrap there
    config = _bwrap_match(tmp_path)
    with pytest.raises(MatchSetupError, match="needs bubblewrap"):
        Match(config).run()


def test_limits_resolve_to_kernel_values() -> None:
    limits = Limits().resource_limits(games=3)
    assert limits.memory_bytes == 1024 * MIB and limits.file_bytes == 64 * MIB
    assert limits.cpu_seconds == 3 * 600
    assert limits.processes is not None and limits.processes >= 256 + 1
    assert user_task_count() >= 1


def test_a_process_status_counts_its_threads_for_its_real_uid_only() -> None:
    status = b"Name:\tbot\nUmask:\t0022\nUid:\t1000\t0\t0\t0\nGid:\t1000\t1000\t1000\t1000\nThreads:\t7\nX:\t1\n"
    assert status_tasks(status, 1000) == 7
    assert status_tasks(status, 0) == 0  # the effective uid is 0; RLIMIT_NPROC counts the real one
    assert status_tasks(status.replace(b"Threads:\t7\n", b""), 1000) == 1
    with open("/proc/self/status", "rb") as own:
        assert status_tasks(own.read(), os.getuid()) >= 1
    none = NO_LIMITS.resource_limits(games=3)
    assert (none.memory_bytes, none.cpu_seconds, none.processes, none.file_bytes) == (None, None, None, None)


@pytest.mark.parametrize(
    ("code", "says"),
    [
        (None, "still running"),
        (0, "exit status 0"),
        (-signal.SIGXCPU, "killed by SIGXCPU: the CPU-time limit (--limit-cpu)"),
        (-signal.SIGXFSZ, "killed by SIGXFSZ: it wrote a file larger"),
        (128 + signal.SIGXCPU, "exit status 152 = 128 + SIGXCPU: the CPU-time limit (--limit-cpu)"),
        (137, "exit status 137 = 128 + SIGKILL"),
        (130, "exit status 130"),
        (-99, "killed by signal 99"),
    ],
)
def test_describe_exit(code: int | None, says: str) -> None:
    assert says in describe_exit(code)


# --- the command line ----------------------------------------------------------------------------------------


def test_cli_limits_reach_the_bots(tmp_path: Path) -> None:
    bot = f"{sys.executable} {HOSTILE / 'memory_hog.py'} 2"
    sample = " ".join(default_bots(4)[1].argv)
    args = ["match", "--game", "hearts", "--option", "target=30", "--seed", "5", "--out", str(tmp_path / "out")]
    args += ["--limit-memory", "256", "--limit-cpu", "100", "--time-per-move", str(SLOW_OK_MS)]
    args += ["--json", bot, sample, sample, sample]
    outcome = CliRunner().invoke(cli, args)
    assert outcome.exit_code == 0, outcome.output
    result = json.loads(outcome.stdout)
    assert result["seats"][0]["faults"] == {"crash": 1}


def test_cli_rejects_a_bad_bot_env() -> None:
    outcome = CliRunner().invoke(cli, ["match", "--bot-env", "no-equals-sign"])
    assert outcome.exit_code == 2 and "NAME=VALUE" in outcome.output


def test_a_machine_that_forbids_bwrap_is_a_clear_setup_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = tmp_path / "bin" / "bwrap"  # what bubblewrap says in a container without user namespaces
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to creating new namespace' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}:{os.environ['PATH']}")
    config = _bwrap_match(tmp_path)
    match = Match(config)
    with pytest.raises(MatchSetupError, match=r"cannot create its sandbox .*No permissions.*--sandbox none"):
        match.run()
    assert match.seats == []  # no bot was started


# --- match data the organiser keeps beside the bots -----------------------------------------------------------


@pytest.fixture
def organiser(tmp_path: Path) -> Path:
    """An organiser's folder as the README's defaults make it: the bot, a deal file, a replay, earlier logs."""
    folder = tmp_path / "organiser"
    folder.mkdir()
    for name in ("read_files.py", "_common.py"):
        shutil.copy(HOSTILE / name, folder / name)
    golden = Path(__file__).parent / "golden" / "hearts-target30-seed5.replay.jsonl"
    shutil.copy(golden, folder / "resume-from.replay.jsonl")
    (folder / "kierki-out" / "earlier").mkdir(parents=True)
    shutil.copy(golden, folder / "kierki-out" / "earlier" / "game001.replay.jsonl")
    deals = parse_deal_file_from_golden(golden)
    (folder / "deals.json").write_bytes(deals)
    return folder


def parse_deal_file_from_golden(golden: Path) -> bytes:
    from rules_helpers import dump_deal_file

    from referee.rules import DealSpec, parse_card

    record = json.loads(golden.read_text().splitlines()[1])
    hands = tuple(tuple(parse_card(c) for c in hand) for hand in record["hands"])
    return dump_deal_file(Ruleset.create("hearts", None, HEARTS_30), [DealSpec(hands, (), record["dealer"])])


@needs_bwrap
def _reading(
    organiser: Path, targets: list[Path], out: Path, sandbox: SandboxKind, deals_source: str | None = None
) -> MatchConfig:
    """A Hearts match whose seat 0 tries to read each of ``targets`` (the organiser's read_files.py bot)."""
    bots = list(default_bots(4))
    bots[0] = BotSpec((sys.executable, str(organiser / "read_files.py"), "1"))
    return MatchConfig.from_spec(
        MatchSpec(
            rules=RulesetSpec.of(Ruleset.create("hearts", None, HEARTS_30)),
            bots=tuple(bots),
            seed="5",
            deals_source=deals_source,
            time=TimeControl(move_ms=FAST_MS, startup_ms=10_000),
            isolation=Isolation(
                limits=Limits(disk_mb=0),  # its report stays in its private directory, here on the host
                sandbox=sandbox,
                bot_env=(("KIERKI_SNOOP_PATHS", ":".join(str(t) for t in targets)),),
            ),
        ),
        out,
    )


@pytest.mark.parametrize("source", ["deals.json", "resume-from.replay.jsonl"])
def test_in_bubblewrap_a_bot_reads_no_deal_file_no_replay_and_no_earlier_log(organiser: Path, source: str) -> None:
    """The bot's own folder is visible to it, but the match data the organiser keeps there is masked."""
    targets = [
        organiser / source,
        organiser / "kierki-out",
        organiser / "kierki-out" / "earlier" / "game001.replay.jsonl",
    ]
    out = organiser / "kierki-out" / "now"
    config = _reading(organiser, targets, out, "bwrap", deals_source=str(organiser / source))
    match = Match(config)
    try:
        match.run()
    finally:
        assert_no_processes_left(match)
    report = json.loads((out / "seat0" / "read.json").read_text())
    hand_names = ('"hands"', '"deals"')
    for path, result in report.items():
        assert not any(name in str(result.get("value", "")) for name in hand_names), (path, result)
    assert report[str(organiser / "kierki-out")] == {"ok": True, "value": ["now"]}  # only the way to its own folder
    assert report[str(organiser / source)].get("value", "") == ""  # masked by /dev/null: nothing to read
    assert not report[str(targets[2])]["ok"]


@needs_bwrap
def test_bot_ro_shows_a_folder_read_only_that_the_sandbox_hides_otherwise(tmp_path: Path) -> None:
    """`kierki match --sandbox bwrap --bot-ro DATA`: the organiser names what a bot may read beyond its program."""
    data = tmp_path / "data"
    data.mkdir()
    (data / "weights.txt").write_text("weights\n")
    bot = tmp_path / "bot" / "reader.py"
    bot.parent.mkdir()
    bot.write_text(  # reads the file (and tries to change it), then plays as the random sample bot
        "import os, runpy, sys\n"
        "path = os.environ['WEIGHTS']\n"
        "print('read', open(path).read().strip(), file=sys.stderr)\n"
        "try:\n"
        "    open(path, 'a').write('mine')\n"
        "except OSError as error:\n"
        "    print('write refused', error.errno, file=sys.stderr)\n"
        "sys.argv = sys.argv[1:]\n"
        "runpy.run_path(sys.argv[0], run_name='__main__')\n"
    )
    random_bot = " ".join(default_bots(4)[1].argv)
    reader = f"{sys.executable} {bot} {random_bot.split()[-1]}"
    base = ["match", "--game", "hearts", "--option", "target=10", "--seed", "3", "--sandbox", "bwrap"]
    base += ["--bot-env", f"WEIGHTS={data / 'weights.txt'}"]
    blind = CliRunner().invoke(cli, [*base, "--out", str(tmp_path / "o1"), reader, random_bot, random_bot, random_bot])
    assert blind.exit_code == 1 and "failed the handshake" in blind.output  # no --bot-ro: the file is not there
    args = [*base, "--bot-ro", str(data), "--out", str(tmp_path / "o2")]
    sighted = CliRunner().invoke(cli, [*args, reader, random_bot, random_bot, random_bot])
    assert sighted.exit_code == 0, sighted.output
    log = (tmp_path / "o2" / "seat0.stderr.log").read_text()
    # EROFS: read-only; as root's bot it runs as nobody, and the file is root's (EACCES comes first)
    refused = 30 if os.geteuid() != 0 else 13
    assert "read weights" in log and f"write refused {refused}" in log
    assert (data / "weights.txt").read_text() == "weights\n"
    unsandboxed = CliRunner().invoke(cli, ["match", "--bot-ro", str(data)])
    assert unsandboxed.exit_code == 2 and "--limit-disk and --bot-ro apply inside a sandbox" in unsandboxed.output


def test_without_a_sandbox_the_same_bot_reads_them_all(organiser: Path) -> None:
    """What the test above guards against: the files do hold every hand, and --sandbox none shows them."""
    targets = [organiser / "deals.json", organiser / "kierki-out" / "earlier" / "game001.replay.jsonl"]
    out = organiser / "kierki-out" / "now"
    config = _reading(organiser, targets, out, "none")
    Match(config).run()
    report = json.loads((out / "seat0" / "read.json").read_text())
    assert '"deals"' in report[str(targets[0])]["value"] and '"hands"' in report[str(targets[1])]["value"]


@needs_bwrap
def test_limit_disk_gives_the_bot_a_private_tmpfs_of_that_size(tmp_path: Path) -> None:
    """A bot that fills its private directory fills only its own tmpfs: it gets ENOSPC, the host disk nothing."""
    played = play(tmp_path, hostile("huge_file", "2"), limits=Limits(disk_mb=4), sandbox="bwrap", move_ms=SLOW_OK_MS)
    assert_forfeited_by(played, "crash", 1)
    assert b"No space left on device" in played.stderr()
    assert not (played.out / "seat0" / "huge.bin").exists()  # it lived in the tmpfs, gone with the sandbox


@needs_bwrap
def test_by_default_a_bots_home_tmp_and_dev_shm_are_its_own_bounded_tmpfs(tmp_path: Path) -> None:
    """Each writable place is a tmpfs of --limit-disk MB holding MB x FILES_PER_MB files: a bot that fills them all,
    with blocks and then with empty files, gets ENOSPC in its own writes and plays on; nothing reaches the host.
    As root the file count is the tmpfs's own; else its memory group bounds it (not checked here)."""
    assert Limits().disk_mb == DEFAULT_DISK_MB
    played = play(tmp_path, hostile("fill_places", "2"), limits=Limits(disk_mb=4), sandbox="bwrap", move_ms=SLOW_OK_MS)
    assert_unharmed(played)
    (line,) = [line for line in played.stderr().splitlines() if line.startswith(b"{")]
    report = json.loads(line)
    assert set(report) == {str((played.out / "seat0").resolve()), "/tmp", "/dev/shm"}
    for place, filled in report.items():
        assert filled["bytes"] <= 4 * MIB and filled["stopped"] == "No space left on device", place
        if os.geteuid() == 0:
            assert filled["files"] < 4 * FILES_PER_MB and filled["files_stopped"] == "No space left on device", place
    left = sorted(path.relative_to(played.out) for path in (played.out / "seat0").rglob("*"))
    assert left == [Path("seat0/tmp")]  # what prepare made: its files lived in the tmpfs, gone with the sandbox


# --- the referee stopped from outside --------------------------------------------------------------------------


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_a_referee_stopped_by_a_signal_ends_the_game_and_every_bot(tmp_path: Path, stop: signal.Signals) -> None:
    """SIGTERM and SIGHUP stop a match as Ctrl-C does: an ``end`` record, ``bye`` to every bot, no bot left."""
    marker = f"stubborn-{uuid.uuid4().hex}"
    out = tmp_path / "out"
    sample = " ".join(default_bots(4)[1].argv)
    command = [*kierki_in_a_process(), "match", "--game", "hearts"]
    command += ["--option", "target=100", "--seed", "3", "--out", str(out), "--transcript", "--json"]
    command += [f"{sys.executable} {HOSTILE / 'stubborn.py'} 1 {marker}", sample, sample, sample]
    referee = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    log = out / "game001.replay.jsonl.part"
    try:
        for _ in range(6000):  # until the game is well under way (the stubborn bot takes 20 ms a decision)
            if log.exists() and log.read_bytes().count(b"\n") >= 20:
                break
            assert referee.poll() is None, referee.communicate()
            time.sleep(0.01)
        referee.send_signal(stop)
        _, stderr = referee.communicate(timeout=60)
    finally:
        referee.kill()
    assert referee.returncode == 130, stderr  # README: 130 after Ctrl-C, SIGTERM or SIGHUP
    assert b"the standings above are those of the 0 finished game(s)" in stderr
    assert json.loads((out / "result.json").read_text())["status"] == "interrupted"
    records = [json.loads(line) for line in (out / "game001.replay.jsonl").read_text().splitlines()]
    assert records[-1]["type"] == "end" and records[-1]["status"] == "interrupted"
    for seat in range(4):
        sent = [line for way, line in _transcript(out, seat) if way == "->"]
        assert json.loads(sent[-1]) == {"type": "bye", "reason": "aborted"}, seat
    assert settle(lambda: processes_with(marker)) == []


def _transcript(out: Path, seat: int) -> list[tuple[str, bytes]]:
    lines = (out / f"seat{seat}.transcript.log").read_bytes().splitlines()
    return [(line.split(b" ", 2)[1].decode(), line.split(b" ", 2)[2]) for line in lines]


@pytest.mark.parametrize("kind", ["bad_card", "unknown_field"])
def test_a_broken_line_with_an_old_id_is_ignored_like_any_stale_answer(tmp_path: Path, kind: str) -> None:
    played = play(tmp_path, hostile("stale_broken", "2", kind))
    assert played.bad_seat.faults == {} and played.bad_seat.strikes == 0
    assert played.bad_seat.ignored_lines > 0 and played.ignored_lines() == played.bad_seat.ignored_lines
    logged = sum(r.get("ignored", 0) for r in played.replay() if r["type"] in ("play", "pass", "trump", "moon"))
    assert logged == played.bad_seat.ignored_lines  # each decision's record counts the lines ignored meanwhile


def test_a_hello_of_protocol_3_with_new_fields_is_a_version_mismatch(tmp_path: Path) -> None:
    ruleset = Ruleset.create("hearts", None, HEARTS_30)
    config = MatchConfig.from_spec(
        MatchSpec(
            rules=RulesetSpec.of(ruleset),
            bots=(hostile("hello_v3"), *default_bots(4)[1:]),
            time=TimeControl(move_ms=FAST_MS, startup_ms=10_000),
        ),
        tmp_path / "out",
    )
    match = Match(config)
    with pytest.raises(MatchSetupError, match=r"seat 0 .* speaks protocol 3; this referee speaks 1 and 2"):
        match.run()
    assert_no_processes_left(match)
    assert b"bye protocol_mismatch" in (tmp_path / "out" / "seat0.stderr.log").read_bytes()


def test_a_longest_answer_ending_in_crlf_is_no_fault(tmp_path: Path) -> None:
    played = play(tmp_path, hostile("crlf_longest", "1"))
    assert played.bad_seat.faults == {} and played.bad_seat.forfeited_in_game is None


# --- bot-supplied text on the organiser's terminal -------------------------------------------------------------


def test_a_bot_name_full_of_escape_sequences_is_shown_not_obeyed(tmp_path: Path) -> None:
    evil = f"{sys.executable} {HOSTILE / 'evil_name.py'}"
    sample = " ".join(default_bots(4)[1].argv)
    args = ["match", "--game", "hearts", "--option", "target=30", "--seed", "3", "--out", str(tmp_path / "out")]
    result = CliRunner().invoke(cli, [*args, evil, sample, sample, sample])
    assert result.exit_code == 0, result.output
    shown = result.stdout
    assert "\x1b" not in shown and "\u202e" not in shown and "\x07" not in shown and "\u200b" not in shown
    assert "\\x1b[2J\\x1b[H1  0  winner  +999  \\x1b[8m" in shown and "\\u202e1.0\\u200b\\x07" in shown


def test_printable_escapes_controls_and_keeps_ordinary_text() -> None:
    from referee.vocabulary.text import printable

    assert printable("heuristic_bot 1.0 Łódź ♠♥ 東京") == "heuristic_bot 1.0 Łódź ♠♥ 東京"
    assert printable("a\x1b[31mb\x00\x7f\x9b\n\t") == "a\\x1b[31mb\\x00\\x7f\\x9b\\x0a\\x09"
    assert printable("x\u202ey\u2066z\ufeff") == "x\\u202ey\\u2066z\\ufeff"


# --- the referee's own world: a full disk ----------------------------------------------------------------------


def _private_tmpfs_problem() -> str | None:
    """The disk-full test mounts a small tmpfs in a private mount namespace (unshare -Urm, no root needed)."""
    if shutil.which("unshare") is None:
        return "unshare (util-linux) is not installed"
    probe = subprocess.run(["unshare", "-Urm", "true"], capture_output=True, check=False)
    return None if probe.returncode == 0 else f"unshare -Urm is not allowed here: {probe.stderr.decode().strip()}"


@pytest.mark.skipif(_private_tmpfs_problem() is not None, reason=str(_private_tmpfs_problem()))
def test_a_full_disk_ends_the_match_cleanly_and_keeps_the_finished_games(tmp_path: Path) -> None:
    """A bot fills the disk the logs are on: one-line reason, exit 1, every bot stopped, game 1's log intact."""
    marker = f"filler-{uuid.uuid4().hex}"
    disk, kept = tmp_path / "disk", tmp_path / "kept"
    disk.mkdir()
    sample = " ".join(default_bots(4)[1].argv)
    filler = f"{sys.executable} {HOSTILE / 'fill_disk.py'} 1 {marker}"
    referee = [*kierki_in_a_process(), "match", "--game", "hearts"]
    referee += ["--option", "target=30", "--games", "3", "--seed", "3", "--out", f"{disk}/out", filler, sample]
    referee += [sample, sample]
    script = (
        f"mount -t tmpfs -o size=4m tmpfs {disk} || exit 99\n"
        f"{shlex.join(referee)} > {tmp_path}/stdout 2> {tmp_path}/stderr; echo $? > {tmp_path}/rc\n"
        f"cp -a {disk}/out {kept}\n"
    )
    subprocess.run(["unshare", "-Urm", "sh", "-c", script], timeout=300, check=True)
    stderr = (tmp_path / "stderr").read_text()
    assert (tmp_path / "rc").read_text().strip() == "1", stderr
    reason = re.findall(r"Error: .*", stderr)  # (the progress line may precede it on the same line)
    assert len(reason) == 1 and "cannot write the replay log" in reason[0] and "No space left" in reason[0], stderr
    assert f"seat 0 ({filler}) filled the disk: its private directory held " in reason[0]  # the cause, named
    assert "Traceback" not in stderr
    first = kept / "game001.replay.jsonl"
    assert run_cli_verify(first)  # the finished game is complete and verifies
    second = kept / "game002.replay.jsonl.part"
    assert second.exists() and second.read_bytes().count(b"\n") >= 1  # what fit on the disk, flushed per deal
    assert settle(lambda: processes_with(marker)) == []


def test_a_stderr_log_that_cannot_be_written_is_noted_in_the_result_and_the_table(tmp_path: Path) -> None:
    """The seat's stderr log is /dev/full (every write fails with ENOSPC): it plays on, and the result says so."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "seat0.stderr.log").symlink_to("/dev/full")
    flood = f"{sys.executable} {HOSTILE / 'stderr_flood.py'}"
    sample = " ".join(default_bots(4)[1].argv)
    args = ["match", "--game", "hearts", "--option", "target=10", "--seed", "3", "--out", str(out)]
    result = CliRunner().invoke(cli, [*args, flood, sample, sample, sample])
    assert result.exit_code == 0, result.output
    seats = json.loads((out / "result.json").read_text())["seats"]
    assert [s["stderr_log_error"] is not None for s in seats] == [True, False, False, False]
    assert "No space left on device" in seats[0]["stderr_log_error"] and not seats[0]["forfeited_in_game"]
    assert "seat 0: the stderr log stopped: No space left on device" in result.stdout


def run_cli_verify(path: Path) -> bool:
    result = CliRunner().invoke(cli, ["replay", "--verify", str(path)])
    return result.exit_code == 0 and result.stdout.startswith("OK: ")
