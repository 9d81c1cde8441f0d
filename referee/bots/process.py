"""Run one bot as a subprocess and move lines to and from it under deadlines.

This layer knows nothing about games or JSON. It exists so that no bot, however broken or
hostile, can hang the referee, make it use unbounded memory, or leave processes behind.
Starting a bot is in ``spawn.py`` (its limits, and why they go in ``preexec_fn``), stopping it for
good in ``stop.py`` (the group and session sweep), its stderr in ``stderr_log.py``, what the calls
return in ``results.py``; this module is the running bot: its pipes and the one poll loop.

Design decisions (the why):

* One thread, one poll loop. Every wait (``read_line``, ``flush``, ``terminate``) is a
  loop over one ``select.poll`` object kept for the bot's life (``polling.py``), watching the bot's stdin
  (only while we have bytes to write), stdout, stderr and a pidfd, bounded by a
  ``time.monotonic()`` deadline. There are no helper threads, so writing a request,
  waiting for the answer and draining stderr cannot deadlock against each other: a bot
  that does not read its stdin, or floods its stderr, only costs us the deadline we were going to wait anyway.
* stdin is non-blocking with our own pending buffer: ``send`` never blocks, and the bytes
  go out inside the same poll loop that waits for the answer. If the pending buffer would
  grow past ``stdin_cap_bytes`` the bot is considered stuck and every later call reports
  ``Overflow`` (callers should treat it like ``Closed``).
* We split stdout into lines ourselves in bounded memory (``lines.py``): a 100 MB line costs
  at most 64 KiB + ``max_line_bytes``, and comes back as ``LineTooLong``.
* stderr is read whenever it is ready, copied to a log up to a cap and then dropped
  (``stderr_log.py``), so a chatty bot never blocks on a full pipe and never fills the disk.
* Exit is observed with a pidfd (or ``waitid(WNOWAIT)`` polling where pidfds are missing)
  *without reaping*, so the pid stays the bot's until ``terminate`` has swept its group and
  session (``stop.py`` says why that matters).
* ``RLIMIT_NPROC`` counts all processes of the user and does not apply to root; it is a
  coarse fork-bomb brake, not a sandbox.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import select
import signal
import struct
import subprocess
import termios
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Final

from referee.bots import procfs, stop
from referee.bots.cgroups import BotCgroup, CgroupError
from referee.bots.limits import ResourceLimits
from referee.bots.lines import BIG_READ, StdoutLines
from referee.bots.pipe_results import (
    BotProcessError,
    BotStartError,
    Closed,
    Flushed,
    FlushResult,
    Line,
    LineResult,
    LineTooLong,
    Overflow,
    Timeout,
)
from referee.bots.polling import FdWatch, wait_for_any
from referee.bots.spawn import spawn
from referee.bots.stderr_log import StderrLog
from referee.bots.stop import adopt_orphans, own_children

__all__ = [
    "BotProcess",
    "BotProcessError",
    "BotStartError",
    "Closed",
    "FlushResult",
    "Flushed",
    "Line",
    "LineResult",
    "LineTooLong",
    "Overflow",
    "ResourceLimits",
    "Timeout",
    "adopt_orphans",
    "own_children",
    "wait_any",
]

_STDERR_DRAIN_ROUNDS: Final = 16  # bounds drain_stderr() against a bot that writes as fast as we read
_TERM_WAIT_S: Final = 0.2  # between SIGTERM and SIGKILL
_REAP_S: Final = 5.0  # SIGKILLed processes die promptly; this only bounds a wedged kernel
_HOLDER_CHECK_S: Final = 0.1  # with launchers in front of the bot, how often a wait checks who still holds its stdout
_CPUS: Final = os.cpu_count() or 1  # a bot's group can use CPU time this much faster than the wall clock runs
_CPU_CHECK_S: Final = 0.002  # the shortest wait between two looks at a bot's CPU time near its budget


class BotProcess:
    """One running bot. Not thread-safe by design: see the module docstring."""

    def __init__(
        self,
        proc: subprocess.Popen[bytes],
        stderr_log: StderrLog,
        *,
        max_line_bytes: int,
        stdin_cap_bytes: int,
        launchers: int = 0,
        cgroup: BotCgroup | None = None,
    ) -> None:
        """Wrap an already started process; use ``BotProcess.start`` instead."""
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        self._proc = proc
        self._stdin_fd = proc.stdin.fileno()
        self._stdout_fd = proc.stdout.fileno()
        self._stderr_fd = proc.stderr.fileno()
        for fd in (self._stdin_fd, self._stdout_fd, self._stderr_fd):
            os.set_blocking(fd, False)
        self._pidfd: int | None = None
        with contextlib.suppress(AttributeError, OSError):
            self._pidfd = os.pidfd_open(proc.pid)
        self._stderr = stderr_log
        self._stdin_cap = stdin_cap_bytes
        self._launchers = launchers

        self._pending = bytearray()
        self._written_at: float | None = None  # when the pending buffer last became empty
        self._lines = StdoutLines(self._stdout_fd, max_line_bytes)
        self._stderr_eof = False
        self._stdin_broken = False
        self._overflow: Overflow | None = None
        self._exited = False
        self._terminated = False
        self._watch = FdWatch()
        self._cgroup = cgroup
        self._frozen = False
        self._cpu_final = -1  # its CPU time when its group was removed
        self._thaw_next = False  # thaw it once the pending bytes are written (``thaw_after_write``)

    # -- starting ---------------------------------------------------------------------------

    @classmethod
    def start(
        cls,
        argv: Sequence[str],
        *,
        cwd: Path,
        env: Mapping[str, str] | None,
        stderr_log: Path,
        stderr_cap_bytes: int = 1_000_000,
        max_line_bytes: int = 4096,
        limits: ResourceLimits | None = None,
        stdin_cap_bytes: int = 8 * 1024 * 1024,
        launchers: int = 0,
        cgroup: BotCgroup | None = None,
    ) -> BotProcess:
        """Start ``argv`` in its own session; raise ``BotStartError`` if it cannot run.

        ``launchers`` is how many processes stand in front of the bot and keep its pipes open (a sandbox's own
        processes: bubblewrap and its pid-1 init make 2): the bot's stdout then counts as closed once no process
        behind them holds it, as it would without them. ``cgroup`` is the bot's control group, joined before its
        first instruction; the bot owns it from then on (``terminate`` kills and removes it, also when the start
        fails).
        """
        if argv and (max_line_bytes < 1 or stderr_cap_bytes < 0 or stdin_cap_bytes < 1):
            raise ValueError("max_line_bytes and stdin_cap_bytes must be >= 1, caps >= 0")
        try:
            proc, log = spawn(argv, cwd=cwd, env=env, stderr_log=stderr_log, limits=limits, cgroup=cgroup)
        except BaseException:
            if cgroup is not None:
                with contextlib.suppress(CgroupError):
                    cgroup.remove()
            raise
        stop.LIVE_BOTS.add(proc.pid)
        bot = cls(
            proc,
            StderrLog(log, stderr_cap_bytes),
            max_line_bytes=max_line_bytes,
            stdin_cap_bytes=stdin_cap_bytes,
            launchers=launchers,
            cgroup=cgroup,
        )
        return bot

    # -- state ------------------------------------------------------------------------------

    @property
    def pid(self) -> int:
        """Also the bot's process-group id and session id."""
        return self._proc.pid

    @property
    def returncode(self) -> int | None:
        """Exit status (negative = killed by that signal), or None while running."""
        if self._proc.returncode is not None:
            return self._proc.returncode
        return self._peek_exit()

    @property
    def alive(self) -> bool:
        """True until the bot's main process has exited."""
        return self.returncode is None

    @property
    def buffered_bytes(self) -> int:
        """Unconsumed stdout bytes we hold: lets tests check memory stays bounded."""
        return len(self._lines.data)

    @property
    def stderr_log_error(self) -> str | None:
        """Why the stderr log stopped early (a full disk), if it did."""
        return self._stderr.error

    # -- its control group: CPU time, freezing, limits ------------------------------------------------------------

    @property
    def cgroup(self) -> BotCgroup | None:
        return self._cgroup

    def cpu_ns(self) -> int:
        """CPU time every process of the bot has used so far (its control group's), in ns; -1 without a group."""
        group = self._cgroup
        if group is None or group.removed:
            return self._cpu_final
        return group.cpu_ns()

    def freeze(self) -> None:
        """Stop every process of the bot where it is (the cgroup freezer) until ``thaw``; no-op without a group."""
        group = self._cgroup
        if group is not None and not self._frozen and not self._terminated:
            group.freeze()
            self._frozen = True

    def thaw(self) -> None:
        self._thaw_next = False
        group = self._cgroup
        if group is not None and self._frozen:
            group.thaw()
            self._frozen = False

    def thaw_after_write(self) -> None:
        """Thaw the bot in the next ``read_line``, right after it writes what is pending (the request).

        A thawed bot that is waiting in ``read`` goes back to waiting when nothing is there yet and is woken again
        by the write; thawed after the write, it finds its request at once (one wake-up a decision fewer,
        BENCHMARKS.md). A pipe too full for the request thaws it all the same, so it can read."""
        if self._frozen:
            self._thaw_next = True

    @property
    def frozen(self) -> bool:
        return self._frozen

    def limit_hit(self) -> str | None:
        """The limit of its control group the bot ran into (``out of memory: limit 1024 MB``), or None."""
        group = self._cgroup
        if group is None:
            return None
        with contextlib.suppress(OSError):
            if group.oom_kills() > 0:
                limit = group.memory_bytes
                shown = f"{limit // (1024 * 1024)} MB" if limit is not None else "its group's"
                return f"out of memory: limit {shown} (--limit-memory)"
        return None

    def unread_input_bytes(self) -> int:
        """Bytes sent to the bot that it has not read yet: our pending buffer plus what waits in its stdin pipe.

        What the bot has already pulled into its own input buffer counts as read (a pipe cannot tell more).
        """
        if self._stdin_broken or self._terminated:
            return 0
        in_pipe = 0
        with contextlib.suppress(OSError):
            in_pipe = struct.unpack("i", fcntl.ioctl(self._stdin_fd, termios.FIONREAD, b"\0\0\0\0"))[0]
        return len(self._pending) + in_pipe

    def _peek_exit(self) -> int | None:
        """Exit status without reaping, so the pid stays ours until terminate() sweeps."""
        try:
            info = os.waitid(os.P_PID, self._proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            return self._proc.returncode
        if info is None:
            return None
        self._exited = True
        return info.si_status if info.si_code == os.CLD_EXITED else -info.si_status

    # -- talking ----------------------------------------------------------------------------

    def send(self, data: bytes) -> None:
        """Queue bytes for the bot's stdin; never blocks. Failures show up in read_line."""
        if self._terminated or self._stdin_broken or self._overflow is not None:
            return
        total = len(self._pending) + len(data)
        if total > self._stdin_cap:
            self._overflow = Overflow(total)
            self._pending = bytearray()
            return
        self._pending += data
        self._written_at = None

    def flush(self, deadline: float) -> FlushResult:
        """Wait until everything sent is in the pipe: lets callers time the bot exactly."""
        if self._overflow is not None:
            return self._overflow
        first = True
        while self._pending:
            if self._terminated or self._stdin_broken or self._exited:
                return Closed()
            now = time.monotonic()
            if now >= deadline and not first:
                return Timeout()
            first = False
            self._pump(deadline - now, want_stdout=self._lines.has_room())
        return Closed() if self._terminated else Flushed()

    def read_line(self, deadline: float, cpu_until: int = 0) -> LineResult:
        """Return the next stdout line, writing pending input and draining stderr meanwhile.

        ``Timeout`` once the wall clock reaches ``deadline``, or, with ``cpu_until`` (ns, > 0), once the bot's
        control group has used that much CPU time: then the wait looks at it every so often, as soon as the time
        left could have been used up on every CPU.
        """
        call_start = time.monotonic()
        lines = self._lines
        if self._pending and not self._stdin_broken and not self._terminated:
            self._write_pending()  # a pipe with room takes it now: no poll round needed for the usual request
            if self._thaw_next:
                self.thaw()
            # On one CPU the write usually let the bot run and answer already: read before sleeping in poll.
            if not lines.eof and self._overflow is None and (not lines.data or lines.data.find(b"\n") < 0):
                self._read_stdout()  # (find, not ``in``: see has_room; usually nothing is buffered to search)
        elif self._thaw_next:
            self.thaw()
        first = True
        progress = True
        while True:
            if self._overflow is not None:
                return self._overflow
            taken = lines.take()
            if taken is not None:
                written_at, self._written_at = self._written_at, None
                if isinstance(taken, bytes):  # (both ends from the same monotonic clock: never negative)
                    return Line(taken, time.monotonic() - (call_start if written_at is None else written_at))
                return taken
            if self._terminated or lines.eof or (self._exited and not progress):
                return Closed()
            now = time.monotonic()
            if now >= deadline and not first:
                return Timeout()
            # Once the bot has exited we only collect what is already in the pipe.
            wait = 0.0 if self._exited else deadline - now
            if cpu_until > 0 and self._cgroup is not None:
                left = cpu_until - self._cgroup.cpu_ns()
                if left <= 0 and not first:
                    return Timeout()
                wait = min(wait, max(_CPU_CHECK_S, left / 1e9 / _CPUS))
            first = False
            if self._launchers and wait > _HOLDER_CHECK_S:
                wait = _HOLDER_CHECK_S  # look every so often whether the bot itself still holds its stdout
            progress = self._pump(wait, want_stdout=True)
            if self._launchers and not progress and not self._exited and self._stdout_abandoned():
                lines.eof = True

    def _stdout_abandoned(self) -> bool:
        """With launchers in front of the bot: True when none of the processes behind them holds stdout any more."""
        return procfs.abandoned_behind(self._proc.pid, self._launchers, os.fstat(self._stdout_fd).st_ino)

    def drain_stderr(self) -> None:
        """Move whatever stderr is ready into the log without waiting (call between turns)."""
        if not self._terminated:
            self._drain_stderr()

    def stderr_tail(self) -> bytes:
        """The last bytes the bot wrote to stderr (a few KiB, past the log's cap too), after draining what is ready."""
        self.drain_stderr()
        return self._stderr.tail()

    def close_input(self) -> None:
        """Close the bot's stdin, dropping bytes not yet written; its stdout stays readable.

        A bot reads end of input and should exit; one whose answers sit in an unflushed buffer writes them on the
        way out, which is how check-bot tells a missing flush from a missing answer. ``terminate`` would discard them.
        """
        if self._terminated:
            return
        assert self._proc.stdin is not None
        self._proc.stdin.close()
        self._stdin_broken = True
        self._pending = bytearray()

    def wait_exit(self, deadline: float) -> int | None:
        """Wait until the bot exits by itself or ``deadline`` passes, reading its pipes; its exit status or None."""
        if not self._terminated:
            self._wait_exit(deadline)
        return self.returncode

    def _drain_stderr(self) -> None:
        for _ in range(_STDERR_DRAIN_ROUNDS):
            if self._stderr_eof or not self._read_stderr():
                return

    # -- the poll loop ----------------------------------------------------------------------

    def _pump(self, timeout_s: float, *, want_stdout: bool) -> bool:
        """One poll round over all our fds; True if stdout moved or the bot just exited."""
        self._watch_all(want_stdout)
        was_exited = self._exited
        progress = False
        for fd, _events in self._watch.poll(timeout_s, self._pidfd is None and not self._exited):
            if fd == self._stdin_fd:
                self._write_pending()
            elif fd == self._stdout_fd:
                progress = self._read_stdout() or progress
            elif fd == self._stderr_fd:
                self._read_stderr()
            elif fd == self._pidfd:
                self._exited = True
        if self._pidfd is None and not self._exited:
            self._peek_exit()
        return progress or (self._exited and not was_exited)

    def _watch_all(self, want_stdout: bool) -> None:
        watch = self._watch.watch
        watch(self._stdin_fd, select.POLLOUT if self._pending and not self._stdin_broken else 0)
        watch(self._stdout_fd, select.POLLIN if want_stdout and not self._lines.eof else 0)
        watch(self._stderr_fd, 0 if self._stderr_eof else select.POLLIN)
        if self._pidfd is not None:
            watch(self._pidfd, 0 if self._exited else select.POLLIN)

    def _write_pending(self) -> None:
        try:
            n = os.write(self._stdin_fd, self._pending)  # a pipe takes what fits; no copy of the buffer
        except BlockingIOError:
            return
        except BrokenPipeError:
            # Nobody reads stdin any more; keep listening, the bot may still answer or exit.
            self._stdin_broken = True
            self._pending = bytearray()
            return
        del self._pending[:n]
        if not self._pending:
            self._written_at = time.monotonic()

    def _read_stdout(self) -> bool:
        """Read a bounded amount; True if data or EOF arrived."""
        if self._terminated:
            return self._lines.drain()  # shutting down: only keep the pipe moving so the bot can exit
        return self._lines.fill()

    def _read_stderr(self) -> bool:
        """Copy stderr into the log up to the cap, discard beyond; True if data or EOF."""
        try:
            chunk = os.read(self._stderr_fd, BIG_READ)
        except BlockingIOError:
            return False
        if not chunk:
            self._stderr_eof = True
            return True
        self._stderr.take(chunk)
        return True

    # -- stopping ---------------------------------------------------------------------------

    def terminate(self, grace_s: float = 0.5) -> None:
        """Close stdin, give the bot ``grace_s`` to exit, then kill its group and session."""
        if self._terminated:
            return
        self.thaw()  # a frozen bot can read neither bye nor the end of its input
        self._terminated = True
        self._pending = bytearray()
        self._lines.data.clear()  # after terminate there is nothing more to read
        assert self._proc.stdin is not None
        self._proc.stdin.close()
        self._stdin_broken = True
        try:
            self._wait_exit(time.monotonic() + grace_s)
            if not self._exited:
                stop.kill_group(self._proc.pid, signal.SIGTERM)
                self._wait_exit(time.monotonic() + _TERM_WAIT_S)
            # Even after a clean exit, children it left behind must go too.
            stop.kill_group(self._proc.pid, signal.SIGKILL)
            group = self._cgroup
            if group is not None:
                try:
                    group.kill()  # every process the bot made, whatever session or group it moved to
                except CgroupError as error:
                    raise BotProcessError(str(error)) from None
            elif not stop.left_nobody(self._exited):
                stop.kill_session(self._proc.pid)
            try:
                self._proc.wait(timeout=_REAP_S)
            except subprocess.TimeoutExpired as exc:
                raise BotProcessError(
                    f"bot pid {self.pid} survived SIGKILL for {_REAP_S}s (stuck in the kernel?)"
                ) from exc
            finally:
                stop.LIVE_BOTS.discard(self._proc.pid)
            self._drain_stderr()  # the dead bot's last words explain crashes
            if group is not None:
                try:
                    self._cpu_final = group.cpu_ns()
                    group.remove()
                except CgroupError as error:
                    raise BotProcessError(str(error)) from None
        finally:
            for stream in (self._proc.stdout, self._proc.stderr):
                if stream is not None:
                    stream.close()
            if self._pidfd is not None:
                os.close(self._pidfd)
                self._pidfd = None
            self._stderr.close()

    def _wait_exit(self, deadline: float) -> None:
        while not self._exited:
            now = time.monotonic()
            if now >= deadline:
                self._peek_exit()
                return
            self._pump(deadline - now, want_stdout=True)

    def __enter__(self) -> BotProcess:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.terminate()


def wait_any(bots: Sequence[BotProcess], deadline: float) -> None:
    """Sleep until one of ``bots`` may have news (a line, room for input, stderr, an exit) or ``deadline``.

    It reads nothing: each bot's own ``read_line`` then takes what is there. This is how several requests out at
    once (every seat's pass) are waited for together, each answer read as it comes.
    """
    if any(bot._terminated for bot in bots):
        return  # it has news: read_line says Closed at once
    for bot in bots:
        bot._watch_all(want_stdout=True)
    slow_exit = any(bot._pidfd is None and not bot._exited for bot in bots)
    wait_for_any([bot._watch for bot in bots], deadline - time.monotonic(), slow_exit)
