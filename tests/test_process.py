"""Tests for referee.bots.process: one bot subprocess, bytes and lines under deadlines.

Waiting is always done through the API under test with a deadline; no sleeps.
"""

from __future__ import annotations

import re
import stat
import subprocess
import sys
import threading
import time
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from referee.bots import spawn as spawn_module
from referee.bots.limits import ResourceLimits, prlimit_program
from referee.bots.pipe_results import BotStartError, Closed, Flushed, Line, LineTooLong, Overflow, Timeout
from referee.bots.process import BotProcess
from referee.bots.procfs import process_stat, session_members
from referee.vocabulary.faults import Fault

BOTS = Path(__file__).parent / "bots"
SOON = 10.0  # generous deadline for answers that should come at once; never reached when green

Spawn = Callable[..., BotProcess]


def deadline(seconds: float = SOON) -> float:
    return time.monotonic() + seconds


@pytest.fixture
def spawn(tmp_path: Path) -> Iterator[Spawn]:
    """Start test bots by name and make sure every one is terminated afterwards."""
    started: list[BotProcess] = []

    def _spawn(name: str, *args: str, **kwargs: object) -> BotProcess:
        kwargs.setdefault("stderr_log", tmp_path / f"{name}.stderr.log")
        bot = BotProcess.start(
            [sys.executable, str(BOTS / f"{name}.py"), *args],
            cwd=tmp_path,
            env=None,
            **kwargs,  # type: ignore[arg-type]
        )
        started.append(bot)
        return bot

    yield _spawn
    for bot in started:
        bot.terminate(grace_s=0.2)


def expect_line(bot: BotProcess, seconds: float = SOON) -> bytes:
    result = bot.read_line(deadline(seconds))
    assert isinstance(result, Line), result
    return result.data


def proc_stat(pid: int) -> tuple[str, int, int]:
    """(state, process group, session) of ``pid``."""
    fields = process_stat(pid)
    if fields is None:
        raise FileNotFoundError(f"/proc/{pid}/stat")
    return fields[0].decode(), int(fields[2]), int(fields[3])


def is_gone(pid: int) -> bool:
    fields = process_stat(pid)
    return fields is None or fields[0] in (b"Z", b"X")


# -- lines ------------------------------------------------------------------------------------


def test_echo_round_trip(spawn: Spawn) -> None:
    bot = spawn("echo")
    bot.send(b'{"type": "hello"}\n')
    result = bot.read_line(deadline())
    assert isinstance(result, Line)
    assert result.data == b'{"type": "hello"}'
    assert result.elapsed_s >= 0.0
    bot.send(b"second\n")
    assert isinstance(bot.flush(deadline()), Flushed)
    assert expect_line(bot) == b"second"


def test_many_lines_in_one_chunk_are_split(spawn: Spawn) -> None:
    bot = spawn("burst")
    assert [expect_line(bot) for _ in range(1000)] == [b"line %d" % i for i in range(1000)]


def test_partial_line_across_reads(spawn: Spawn) -> None:
    bot = spawn("partial")
    assert isinstance(bot.read_line(deadline(0.2)), Timeout)
    assert bot.buffered_bytes == 3
    bot.send(b"go\n")
    assert expect_line(bot) == b"hello"


def test_timeout_on_silent_bot(spawn: Spawn) -> None:
    bot = spawn("silent")
    bot.send(b"anything\n")
    assert isinstance(bot.read_line(deadline(0.2)), Timeout)
    assert bot.alive


def test_deadline_in_the_past_still_returns_buffered_lines(spawn: Spawn) -> None:
    bot = spawn("burst")
    assert expect_line(bot) == b"line 0"
    result = bot.read_line(time.monotonic() - 1)
    assert isinstance(result, Line) and result.data == b"line 1"


def test_closed_when_bot_exits(spawn: Spawn) -> None:
    bot = spawn("exit_after_line")
    bot.send(b"bye\n")
    assert isinstance(bot.read_line(deadline()), Closed)
    assert isinstance(bot.read_line(deadline()), Closed)
    bot.terminate()
    assert bot.returncode == 3
    assert not bot.alive


def test_closed_when_bot_exits_but_a_descendant_holds_stdout(spawn: Spawn) -> None:
    bot = spawn("double_fork", "--exit-now")
    grandchild = int(expect_line(bot))
    assert isinstance(bot.read_line(deadline()), Closed)  # not Timeout: we saw the exit
    bot.terminate(grace_s=0.1)
    assert is_gone(grandchild)


def test_line_too_long_costs_bounded_memory(spawn: Spawn) -> None:
    bot = spawn("long_line", max_line_bytes=4096)
    tracemalloc.start()
    try:
        first = bot.read_line(deadline())
        assert bot.buffered_bytes <= 4096
        second = bot.read_line(deadline())
        assert bot.buffered_bytes <= 4096
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert first == LineTooLong(b"x" * 4096)
    assert isinstance(second, Line) and second.data == b"ok"
    assert peak < 1_000_000  # the bot wrote 10 MB


def test_line_of_exactly_max_bytes_is_accepted(spawn: Spawn) -> None:
    bot = spawn("echo", max_line_bytes=10)
    bot.send(b"0123456789\n01234567890\nok\n")
    assert expect_line(bot) == b"0123456789"
    assert bot.read_line(deadline()) == LineTooLong(b"0123456789")
    assert expect_line(bot) == b"ok"


def test_a_longest_line_may_end_in_crlf(spawn: Spawn) -> None:
    """The limit counts the line, not its line end: max bytes + CRLF is a line, max + 1 bytes + CRLF is not."""
    bot = spawn("echo", max_line_bytes=10)
    bot.send(b"0123456789\r\n01234567890\r\nok\r\n")
    assert expect_line(bot) == b"0123456789\r"
    assert bot.read_line(deadline()) == LineTooLong(b"0123456789")
    assert expect_line(bot) == b"ok\r"


# -- stderr -----------------------------------------------------------------------------------


def test_stderr_flood_is_capped_and_answer_still_arrives(spawn: Spawn, tmp_path: Path) -> None:
    log = tmp_path / "flood.log"
    bot = spawn("stderr_flood", stderr_log=log, stderr_cap_bytes=65536)
    assert expect_line(bot) == b"done"
    bot.terminate()
    marker = b"\n[stderr truncated after 65536 bytes]\n"
    content = log.read_bytes()
    assert len(content) <= 65536 + len(marker)
    assert content == b"e" * 65536 + marker


def test_a_full_disk_stops_the_stderr_log_not_the_bot(spawn: Spawn) -> None:
    """Writing the log fails with ENOSPC (/dev/full): logging stops for this bot, reading and answering go on."""
    bot = spawn("stderr_flood", stderr_log=Path("/dev/full"))
    assert expect_line(bot) == b"done"
    assert bot.stderr_log_error is not None and "No space left on device" in bot.stderr_log_error
    bot.terminate()


def test_drain_stderr_between_requests(spawn: Spawn, tmp_path: Path) -> None:
    log = tmp_path / "echo.log"
    bot = spawn("echo", stderr_log=log)
    bot.send(b"ping\n")
    assert expect_line(bot) == b"ping"
    bot.drain_stderr()  # the bot wrote stderr before stdout, so it is in the pipe by now
    assert log.read_bytes() == b"echo: ping\n"


# -- stdin ------------------------------------------------------------------------------------


def test_bot_that_never_reads_stdin_does_not_hang_us(spawn: Spawn) -> None:
    bot = spawn("no_read")
    assert expect_line(bot) == b"ready"
    bot.send(b"x" * 4_000_000)  # far more than a pipe holds, still under the cap
    assert isinstance(bot.flush(deadline(0.2)), Timeout)
    assert isinstance(bot.read_line(deadline(0.2)), Timeout)
    for _ in range(20):
        bot.send(b"y" * 1_000_000)
    assert isinstance(bot.read_line(deadline()), Overflow)
    assert isinstance(bot.flush(deadline()), Overflow)


def test_unread_input_counts_what_the_bot_has_not_read(spawn: Spawn) -> None:
    """Our pending bytes plus what waits in the bot's stdin pipe: the seat turns it into "N earlier messages"."""
    bot = spawn("no_read")
    assert expect_line(bot) == b"ready"
    assert bot.unread_input_bytes() == 0
    bot.send(b"one\ntwo\nthree\n")
    assert bot.unread_input_bytes() == 14  # still ours
    assert isinstance(bot.flush(deadline()), Flushed)
    assert bot.unread_input_bytes() == 14  # in the pipe now, and the bot never reads it
    bot.close_input()
    assert bot.unread_input_bytes() == 0


def test_a_seat_names_the_messages_unread_at_a_missed_deadline(spawn: Spawn) -> None:
    from protocol import messages as m
    from referee.bots.seat import BotSeat
    from referee.bots.time_control import TimeControl

    bot = spawn("no_read")
    assert expect_line(bot) == b"ready"
    seat = BotSeat(0, bot, TimeControl(move_ms=50))
    for number in range(1, 6):
        seat.queue(m.LotteryPassEvent(game_number=1, deal=12, seat=number % 4))
    request = m.MoonRequest(id=1, game_number=1, deal=1, options=m.MoonOptions(self_=(0,), others=(0,)), time_ms=50)
    reply = seat.converse(request)
    assert reply.backlog == 5
    assert isinstance(reply.outcome, Fault) and "your bot had 5 earlier messages still to read" in reply.outcome.message


# -- termination ------------------------------------------------------------------------------


def test_terminate_kills_bot_that_ignores_sigterm(spawn: Spawn) -> None:
    bot = spawn("ignore_term")
    assert expect_line(bot) == b"ready"
    bot.terminate(grace_s=0.1)
    assert bot.returncode == -9
    assert not bot.alive
    assert session_members(bot.pid) == []
    bot.terminate()  # idempotent
    assert isinstance(bot.read_line(deadline()), Closed)
    bot.send(b"ignored\n")
    assert isinstance(bot.flush(deadline()), Closed | Flushed)


def test_terminate_kills_grandchild_in_another_process_group(spawn: Spawn) -> None:
    bot = spawn("double_fork")
    grandchild = int(expect_line(bot))
    _, pgrp, session = proc_stat(grandchild)
    assert pgrp != bot.pid and session == bot.pid
    bot.terminate(grace_s=0.1)
    assert bot.returncode == 0  # the bot itself exited on end of input
    assert is_gone(grandchild)
    assert session_members(bot.pid) == []


def test_well_behaved_bot_exits_on_end_of_input(spawn: Spawn) -> None:
    bot = spawn("echo")
    bot.terminate(grace_s=SOON)
    assert bot.returncode == 0


# -- starting ---------------------------------------------------------------------------------


def test_missing_executable_raises_start_error(tmp_path: Path) -> None:
    with pytest.raises(BotStartError, match=r"no-such-bot-xyz --fast: .* not found on PATH"):
        BotProcess.start(["no-such-bot-xyz", "--fast"], cwd=tmp_path, env=None, stderr_log=tmp_path / "log")
    with pytest.raises(BotStartError, match=r"'\./missing\.py' was not found relative to"):
        BotProcess.start(["./missing.py"], cwd=tmp_path, env=None, stderr_log=tmp_path / "log")


def test_bad_cwd_and_non_executable_raise_start_error(tmp_path: Path) -> None:
    with pytest.raises(BotStartError, match=r"working directory .*nowhere does not exist"):
        BotProcess.start([sys.executable], cwd=tmp_path / "nowhere", env=None, stderr_log=tmp_path / "log")
    script = tmp_path / "bot.py"
    script.write_text("print('hi')\n")
    script.chmod(stat.S_IRUSR | stat.S_IWUSR)
    with pytest.raises(BotStartError, match=r"not executable.*chmod \+x"):
        BotProcess.start([str(script)], cwd=tmp_path, env=None, stderr_log=tmp_path / "log")


class PopenSpy:
    """Records the arguments of every ``subprocess.Popen`` the spawn makes, then starts it as usual."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls: list[tuple[list[str], dict[str, object]]] = []
        real = subprocess.Popen

        def popen(args: list[str], **kwargs: object) -> subprocess.Popen[bytes]:
            self.calls.append((list(args), kwargs))
            return real(args, **kwargs)  # type: ignore[call-overload, no-any-return]

        monkeypatch.setattr(subprocess, "Popen", popen)  # spawn.py calls subprocess.Popen through the module


@pytest.mark.parametrize("threads", [False, True], ids=["one-thread", "with-threads"])
def test_memory_limit_is_in_force_from_the_first_instruction_and_kills_a_hog(
    spawn: Spawn, monkeypatch: pytest.MonkeyPatch, threads: bool
) -> None:
    if prlimit_program() is None:
        pytest.skip("util-linux's prlimit is not installed")
    spy = PopenSpy(monkeypatch)
    stop = threading.Event()
    helper = threading.Thread(target=stop.wait)
    if threads:
        helper.start()
    try:
        bot = spawn("hog", limits=ResourceLimits(memory_bytes=256 * 1024**2, cpu_seconds=30))
    finally:
        stop.set()
        if threads:
            helper.join()
    # Started through prlimit, which sets the limits and execs the bot in place: nothing of ours runs between fork
    # and exec (so subprocess may vfork), whatever threads the referee has.
    [(args, kwargs)] = spy.calls
    assert args[0].endswith("prlimit") and "--as=268435456:268435456" in args and "--cpu=30:31" in args
    assert kwargs.get("preexec_fn") is None
    assert expect_line(bot) == b"ready"
    limits = Path(f"/proc/{bot.pid}/limits").read_text()  # the bot's own pid: prlimit exec'd it in place
    assert re.search(r"Max address space\s+268435456\s+268435456", limits)
    bot.send(b"go\n")
    assert isinstance(bot.read_line(deadline()), Closed)
    bot.terminate()
    assert bot.returncode not in (None, 0)


def test_the_first_instruction_of_a_limited_command_sees_its_limits(tmp_path: Path) -> None:
    if prlimit_program() is None:
        pytest.skip("util-linux's prlimit is not installed")
    # cat reads its limits as its first act: a limit applied after the start would often be missing here.
    bot = BotProcess.start(
        ["cat", "/proc/self/limits"],
        cwd=tmp_path,
        env=None,
        stderr_log=tmp_path / "log",
        limits=ResourceLimits(memory_bytes=300 * 1024**2, file_bytes=5 * 1024**2),
    )
    lines = []
    while isinstance(line := bot.read_line(deadline()), Line):
        lines.append(line.data.decode())
    bot.terminate()
    text = "\n".join(lines)
    assert re.search(r"Max address space\s+314572800\s+314572800", text), text
    assert re.search(r"Max file size\s+5242880\s+5242880", text), text


def test_without_prlimit_one_thread_sets_limits_in_the_child(spawn: Spawn, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(spawn_module, "_prlimit", lambda: None)
    monkeypatch.setattr(spawn_module, "single_threaded", lambda: True)
    spy = PopenSpy(monkeypatch)
    bot = spawn("hog", limits=ResourceLimits(memory_bytes=256 * 1024**2))
    [(args, kwargs)] = spy.calls
    assert "prlimit" not in args[0] and kwargs.get("preexec_fn") is not None
    assert expect_line(bot) == b"ready"
    assert "268435456" in Path(f"/proc/{bot.pid}/limits").read_text()
    bot.send(b"go\n")
    assert isinstance(bot.read_line(deadline()), Closed)


def test_without_prlimit_threads_refuse_to_start_a_limited_bot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(spawn_module, "_prlimit", lambda: None)
    monkeypatch.setattr(spawn_module, "single_threaded", lambda: False)
    with pytest.raises(BotStartError, match=r"this process has threads.*install util-linux"):
        BotProcess.start(
            [sys.executable, "-c", "pass"],
            cwd=tmp_path,
            env=None,
            stderr_log=tmp_path / "log",
            limits=ResourceLimits(memory_bytes=256 * 1024**2),
        )


@pytest.mark.parametrize("limited", [False, True], ids=["plain", "through-prlimit"])
def test_a_command_that_cannot_run_is_named_alike_with_or_without_limits(tmp_path: Path, limited: bool) -> None:
    limits = ResourceLimits(memory_bytes=512 * 1024**2) if limited else None

    def start(argv: list[str], cwd: Path = tmp_path) -> None:
        BotProcess.start(argv, cwd=cwd, env=None, stderr_log=tmp_path / "log", limits=limits).terminate()

    with pytest.raises(BotStartError, match=r"no-such-bot-xyz --fast: .* not found on PATH"):
        start(["no-such-bot-xyz", "--fast"])
    with pytest.raises(BotStartError, match=r"'\./missing\.py' was not found relative to"):
        start(["./missing.py"])
    with pytest.raises(BotStartError, match=r"working directory .*nowhere does not exist"):
        start([sys.executable], cwd=tmp_path / "nowhere")
    script = tmp_path / "bot.py"
    script.write_text("print('hi')\n")
    script.chmod(stat.S_IRUSR | stat.S_IWUSR)
    with pytest.raises(BotStartError, match=r"not executable.*chmod \+x"):
        start(["./bot.py"])
    script.write_text("#!/no/such/python3\nprint('hi')\n")
    script.chmod(stat.S_IRWXU)
    with pytest.raises(BotStartError, match=r"interpreter on its #! line was not found"):
        start(["./bot.py"])


# -- what check-bot needs: end of input without terminating, waiting for exit, the end of stderr ------------------

UNFLUSHED_ECHO = (
    "import sys\n"
    "out = open(1, 'w', buffering=1 << 16, closefd=False)\n"
    "for line in sys.stdin:\n"
    "    out.write(line)\n"  # never flushed: Python writes the buffer out only at exit
)


def test_close_input_lets_an_unflushed_answer_out(tmp_path: Path) -> None:
    bot = BotProcess.start(
        [sys.executable, "-c", UNFLUSHED_ECHO], cwd=tmp_path, env=None, stderr_log=tmp_path / "e.log"
    )
    try:
        bot.send(b"held\n")
        assert isinstance(bot.flush(deadline()), Flushed)
        assert isinstance(bot.read_line(deadline(0.2)), Timeout)  # it sits in the bot's buffer
        bot.close_input()
        assert expect_line(bot) == b"held"  # end of input: the bot exits and its buffer comes out
        assert isinstance(bot.read_line(deadline()), Closed)
        assert bot.wait_exit(deadline()) == 0
        bot.send(b"ignored after close\n")  # never raises, never blocks
    finally:
        bot.terminate(0)


def test_wait_exit_is_none_while_the_bot_runs(spawn: Spawn) -> None:
    bot = spawn("echo")
    assert bot.wait_exit(deadline(0.05)) is None
    assert bot.alive
    bot.close_input()
    assert bot.wait_exit(deadline()) == 0


def test_stderr_tail_keeps_the_last_bytes_even_past_the_log_cap(spawn: Spawn, tmp_path: Path) -> None:
    bot = spawn("echo")
    bot.send(b"ping\n")
    assert expect_line(bot) == b"ping"
    assert bot.stderr_tail() == b"echo: ping\n"  # written before the answer, so in the pipe by now
    flood = spawn("stderr_flood", stderr_log=tmp_path / "flood.log", stderr_cap_bytes=1000)
    assert expect_line(flood) == b"done"
    flood.terminate()
    tail = flood.stderr_tail()
    assert 0 < len(tail) <= 4096 and set(tail) == {ord("e")}


# Run in a fresh interpreter: a long-lived test process adopts other tests' orphans, which (rightly) forces sweeps.
_SWEEP_SCENARIO = """
import subprocess, sys, time
from pathlib import Path
import referee.bots.process as process
from referee.bots import procfs, reaper

bots, out = Path(sys.argv[1]), Path(sys.argv[2])
if not reaper.become_subreaper() or process.own_children() is None:
    print("skip"); sys.exit()
sweeps = []
real = procfs.session_members
procfs.session_members = lambda sid: sweeps.append(sid) or real(sid)

def spawn(name):
    return process.BotProcess.start([sys.executable, str(bots / f"{name}.py")], cwd=out, env=None,
                                    stderr_log=out / f"{name}.log")

clean = spawn("echo")
stranger = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
clean.terminate(10)  # a child of ours that is no bot (as an adopted descendant would be): sweep
print("with a stranger", sweeps == [clean.pid])
stranger.stdin.close(); stranger.wait()
quiet = spawn("echo")
quiet.terminate(10)
print("nothing left", sweeps == [clean.pid])
left = spawn("double_fork")
left.read_line(time.monotonic() + 10)
left.terminate(0.1)
print("a grandchild left", sweeps[-1] == left.pid)
"""


def test_no_proc_sweep_when_an_adopting_referee_sees_nothing_left(tmp_path: Path) -> None:
    """An orphan-adopting referee whose children are only bots knows nothing survived: no /proc scan then."""
    done = subprocess.run(
        [sys.executable, "-c", _SWEEP_SCENARIO, str(BOTS), str(tmp_path)], capture_output=True, text=True, check=True
    )
    if done.stdout.strip() == "skip":
        pytest.skip("needs a child subreaper and /proc/self/task/*/children")
    assert done.stdout.splitlines() == ["with a stranger True", "nothing left True", "a grandchild left True"]
