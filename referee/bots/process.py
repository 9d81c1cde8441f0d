"""Run one bot as a subprocess and move lines to and from it under deadlines.

This layer knows nothing about games or JSON. It exists so that no bot, however broken or
hostile, can hang the referee, make it use unbounded memory, or leave processes behind.

Design decisions (the why):

* One thread, one poll loop. Every wait (``read_line``, ``flush``, ``terminate``) is a
  loop over one ``select.poll`` object kept for the bot's life, watching the bot's stdin
  (only while we have bytes to write), stdout, stderr and a pidfd, bounded by a
  ``time.monotonic()`` deadline. There are no helper threads, so writing a request,
  waiting for the answer and draining stderr cannot deadlock against each other: a bot
  that does not read its stdin, or floods its stderr, only costs us the deadline we were going to wait anyway.
* Because the referee has no threads, resource limits are applied with ``preexec_fn``
  (``setrlimit`` between fork and exec). That is the only race-free way: the limits are in
  force before the bot's first instruction. ``preexec_fn`` is unsafe once other threads
  exist (a lock held by another thread at fork time stays locked in the child forever), so
  if the calling process does have threads (a test harness, an embedding program, or a
  native library's pool: importing numpy starts OpenBLAS threads; we count the tasks in
  /proc/self/task) we do not use it and instead apply the same limits with
  ``resource.prlimit`` on the pid right after start. The bot then runs unlimited for the
  moment between its exec and our prlimit call; acceptable for a fallback.
* stdin is non-blocking with our own pending buffer: ``send`` never blocks, and the bytes
  go out inside the same poll loop that waits for the answer. If the pending buffer would
  grow past ``stdin_cap_bytes`` the bot is considered stuck and every later call reports
  ``Overflow`` (callers should treat it like ``Closed``).
* We split stdout into lines ourselves and read at most ``max_line_bytes + 2`` bytes (a CR and LF)
  beyond what is buffered, so a 100 MB line costs bounded memory: once a line is known to
  be too long we return ``LineTooLong`` and throw the rest of it away as it arrives, in
  64 KiB reads (what follows its newline is kept, so the buffer never exceeds 64 KiB +
  ``max_line_bytes``).
* stderr is copied to a log file up to a cap and then read and discarded, so a chatty bot
  never blocks on a full pipe (which would look like a timeout) and never fills the disk.
* Exit is observed with a pidfd (or ``waitid(WNOWAIT)`` polling where pidfds are missing)
  *without reaping*. Until we reap, the bot's pid, which is also its process-group id and
  session id (``start_new_session=True``), cannot be recycled, so ``killpg`` and the
  ``/proc`` session sweep in ``terminate`` cannot hit an unrelated process.
* ``terminate`` kills the process group and then every process whose session id is the
  bot's, which catches descendants that moved to another process group. A descendant that
  calls ``setsid()`` itself leaves the session; ``reaper.py`` catches it instead (the referee
  is a child subreaper, so the orphan becomes its child when the bot dies). Killed orphans may
  stay visible as zombies for a moment until they are reaped; they hold no resources.
* ``RLIMIT_NPROC`` counts all processes of the user and does not apply to root; it is a
  coarse fork-bomb brake, not a sandbox.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import math
import os
import resource
import select
import shlex
import signal
import struct
import subprocess
import termios
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import BinaryIO

from referee.bots import procfs
from referee.bots.limits import ResourceLimits, limit_pairs, setrlimits, single_threaded

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

_READ_CHUNK = 65536
_STDERR_DRAIN_ROUNDS = 16  # bounds drain_stderr() against a bot that writes as fast as we read
_STDERR_TAIL_BYTES = 4096  # the end of the bot's stderr kept in memory: its last words explain a failure
_POLL_CAP_MS = 60_000  # poll() takes a C int; longer deadlines just loop
_NO_PIDFD_POLL_MS = 50  # how often we check for exit when the kernel has no pidfd
_TERM_WAIT_S = 0.2  # between SIGTERM and SIGKILL
_SWEEP_S = 2.0  # how long we keep SIGKILLing session members that have not died yet
_REAP_S = 5.0  # SIGKILLed processes die promptly; this only bounds a wedged kernel
_HOLDER_CHECK_S = 0.1  # with launchers in front of the bot, how often a wait checks who still holds its stdout


class BotProcessError(RuntimeError):
    """Something went wrong running a bot process (not the bot misbehaving: that is a result)."""


class BotStartError(BotProcessError):
    """The bot's command could not be started; the message says why and what to fix."""


@dataclass(frozen=True, slots=True)
class Line:
    """One complete line from the bot's stdout, without its newline."""

    data: bytes
    elapsed_s: float  # from the request being fully written (or from the call) to the read


@dataclass(frozen=True, slots=True)
class Timeout:
    """The deadline passed before a line (or the flush) completed."""


@dataclass(frozen=True, slots=True)
class Closed:
    """The bot's stdout reached EOF or the bot exited; nothing more will come."""


@dataclass(frozen=True, slots=True)
class LineTooLong:
    """A line exceeded ``max_line_bytes``; only its start is kept, the rest is discarded."""

    prefix: bytes


@dataclass(frozen=True, slots=True)
class Overflow:
    """The bot stopped reading stdin and our pending output passed the cap; treat as Closed."""

    pending_bytes: int


@dataclass(frozen=True, slots=True)
class Flushed:
    """Everything sent so far has been written into the bot's stdin pipe."""


LineResult = Line | Timeout | Closed | LineTooLong | Overflow
FlushResult = Flushed | Timeout | Closed | Overflow


class BotProcess:
    """One running bot. Not thread-safe by design: see the module docstring."""

    def __init__(
        self,
        proc: subprocess.Popen[bytes],
        stderr_log: BinaryIO,
        *,
        stderr_cap_bytes: int,
        max_line_bytes: int,
        stdin_cap_bytes: int,
        launchers: int = 0,
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
        self._log = stderr_log
        self._stderr_cap = stderr_cap_bytes
        self._max_line = max_line_bytes
        self._stdin_cap = stdin_cap_bytes
        self._launchers = launchers

        self._pending = bytearray()
        self._written_at: float | None = None  # when the pending buffer last became empty
        self._out = bytearray()
        self._discarding = False  # inside an over-long line, dropping bytes up to its newline
        self._stdout_eof = False
        self._stderr_eof = False
        self._stderr_logged = 0
        self._stderr_truncated = False
        self.stderr_log_error: str | None = None  # why the stderr log stopped (a full disk), if it did
        self._stderr_tail = bytearray()
        self._stdin_broken = False
        self._overflow: Overflow | None = None
        self._exited = False
        self._terminated = False
        # One poll object for the bot's life: each fd is registered once and its mask changed only when what we
        # wait for changes (a new poll object with 3-4 registrations on every round cost more than the round trip).
        self._poller = select.poll()
        self._masks: dict[int, int] = {}

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
    ) -> BotProcess:
        """Start ``argv`` in its own session; raise ``BotStartError`` if it cannot run.

        ``launchers`` is how many processes stand in front of the bot and keep its pipes open (a sandbox's own
        processes: bubblewrap and its pid-1 init make 2): the bot's stdout then counts as closed once no process
        behind them holds it, as it would without them.
        """
        if not argv:
            raise BotStartError("cannot start bot: its command is empty; configure a command")
        if max_line_bytes < 1 or stderr_cap_bytes < 0 or stdin_cap_bytes < 1:
            raise ValueError("max_line_bytes and stdin_cap_bytes must be >= 1, caps >= 0")
        pairs = limit_pairs(limits)
        use_preexec = bool(pairs) and single_threaded()
        try:
            log = open(stderr_log, "wb", buffering=0)  # noqa: SIM115 - closed in terminate()
        except OSError as exc:
            raise BotStartError(
                f"cannot open the stderr log {stderr_log} for bot {shlex.join(argv)}: "
                f"{exc.strerror}; check that its directory exists and is writable"
            ) from exc
        try:
            proc = subprocess.Popen(
                list(argv),
                cwd=cwd,
                env=None if env is None else dict(env),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                bufsize=0,
                close_fds=True,
                start_new_session=True,
                preexec_fn=setrlimits(pairs) if use_preexec else None,
            )
        except OSError as exc:
            log.close()
            raise _start_error(argv, cwd, exc) from exc
        except subprocess.SubprocessError as exc:  # preexec_fn raised: setrlimit refused
            log.close()
            raise BotStartError(
                f"cannot start bot {shlex.join(argv)}: applying resource limits {limits} "
                f"failed ({exc}); lower the limits or run without them"
            ) from exc
        _LIVE_BOTS.add(proc.pid)
        bot = cls(
            proc,
            log,
            stderr_cap_bytes=stderr_cap_bytes,
            max_line_bytes=max_line_bytes,
            stdin_cap_bytes=stdin_cap_bytes,
            launchers=launchers,
        )
        if pairs and not use_preexec:
            try:
                for res, soft, hard in pairs:
                    resource.prlimit(proc.pid, res, (soft, hard))
            except ProcessLookupError:
                pass  # already gone: read_line will report Closed
            except OSError as exc:
                bot.terminate(0)
                raise BotStartError(
                    f"cannot start bot {shlex.join(argv)}: applying resource limits {limits} "
                    f"failed ({exc.strerror}); lower the limits or run without them"
                ) from exc
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
        return len(self._out)

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
            room = b"\n" not in self._out and len(self._out) <= self._max_line + 1
            self._pump(deadline - now, want_stdout=room)
        return Closed() if self._terminated else Flushed()

    def read_line(self, deadline: float) -> LineResult:
        """Return the next stdout line, writing pending input and draining stderr meanwhile."""
        call_start = time.monotonic()
        if self._pending and not self._stdin_broken and not self._terminated:
            self._write_pending()  # a pipe with room takes it now: no poll round needed for the usual request
            # On one CPU the write usually let the bot run and answer already: read before sleeping in poll.
            if not self._stdout_eof and self._overflow is None and b"\n" not in self._out:
                self._read_stdout()
        first = True
        progress = True
        while True:
            if self._overflow is not None:
                return self._overflow
            got = self._take_line(call_start)
            if got is not None:
                return got
            if self._terminated or self._stdout_eof or (self._exited and not progress):
                return Closed()
            now = time.monotonic()
            if now >= deadline and not first:
                return Timeout()
            first = False
            # Once the bot has exited we only collect what is already in the pipe.
            wait = 0.0 if self._exited else deadline - now
            if self._launchers and wait > _HOLDER_CHECK_S:
                wait = _HOLDER_CHECK_S  # look every so often whether the bot itself still holds its stdout
            progress = self._pump(wait, want_stdout=True)
            if self._launchers and not progress and not self._exited and self._stdout_abandoned():
                self._stdout_eof = True

    def _stdout_abandoned(self) -> bool:
        """With launchers in front of the bot: True when none of the processes behind them holds stdout any more.

        Any doubt (a /proc file that cannot be read, no bot process to look at) counts as held: the deadline then
        decides, as before.
        """
        target = f"pipe:[{os.fstat(self._stdout_fd).st_ino}]"
        frontier, depth, behind = [self._proc.pid], 0, 0
        while frontier:
            if depth >= self._launchers:
                behind += len(frontier)
                for pid in frontier:
                    try:
                        fds = os.listdir(f"/proc/{pid}/fd")
                    except OSError:
                        return False
                    for fd in fds:
                        with contextlib.suppress(OSError):
                            if os.readlink(f"/proc/{pid}/fd/{fd}") == target:
                                return False
            children: list[int] = []
            for pid in frontier:
                found = procfs.children(pid)
                if found is None:
                    return False
                children += found
            frontier, depth = children, depth + 1
        return behind > 0  # nobody behind the launchers yet (still starting) or any more (exiting): not this

    def drain_stderr(self) -> None:
        """Move whatever stderr is ready into the log without waiting (call between turns)."""
        if not self._terminated:
            self._drain_stderr()

    def stderr_tail(self) -> bytes:
        """The last bytes the bot wrote to stderr (a few KiB, past the log's cap too), after draining what is ready."""
        self.drain_stderr()
        return bytes(self._stderr_tail)

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

    def _take_line(self, call_start: float) -> Line | LineTooLong | None:
        """Cut the next complete (or provably over-long) line out of the buffer."""
        out = self._out
        end = out.find(b"\n")
        result: Line | LineTooLong
        if end >= 0:
            if end - (end > 0 and out[end - 1] == 13) > self._max_line:  # the limit does not count a CRLF's CR
                result = LineTooLong(bytes(out[: self._max_line]))
            else:
                start = self._written_at if self._written_at is not None else call_start
                result = Line(bytes(out[:end]), max(0.0, time.monotonic() - start))
            del out[: end + 1]
        elif len(out) > self._max_line + 1 or (len(out) == self._max_line + 1 and out[-1] != 13):
            result = LineTooLong(bytes(out[: self._max_line]))
            out.clear()
            self._discarding = True
        else:
            return None
        self._written_at = None
        return result

    # -- the poll loop ----------------------------------------------------------------------

    def _pump(self, timeout_s: float, *, want_stdout: bool) -> bool:
        """One poll round over all our fds; True if stdout moved or the bot just exited."""
        self._watch_all(want_stdout)
        ms = _poll_ms(timeout_s, self._pidfd is None and not self._exited)
        was_exited = self._exited
        progress = False
        for fd, _events in self._poller.poll(ms):
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
        self._watch(self._stdin_fd, select.POLLOUT if self._pending and not self._stdin_broken else 0)
        self._watch(self._stdout_fd, select.POLLIN if want_stdout and not self._stdout_eof else 0)
        self._watch(self._stderr_fd, 0 if self._stderr_eof else select.POLLIN)
        if self._pidfd is not None:
            self._watch(self._pidfd, 0 if self._exited else select.POLLIN)

    def _watch(self, fd: int, mask: int) -> None:
        """Poll ``fd`` for ``mask`` from now on (0: not at all, so a hung-up pipe we do not read cannot spin us)."""
        if self._masks.get(fd, 0) == mask:
            return
        if not mask:
            self._poller.unregister(fd)
            del self._masks[fd]
        elif fd in self._masks:
            self._poller.modify(fd, mask)
            self._masks[fd] = mask
        else:
            self._poller.register(fd, mask)
            self._masks[fd] = mask

    def _write_pending(self) -> None:
        try:
            n = os.write(self._stdin_fd, self._pending[:_READ_CHUNK])
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
        # Inside an over-long line every byte up to its newline is dropped at once: read big chunks then.
        big = self._terminated or self._discarding
        size = _READ_CHUNK if big else self._max_line + 2 - len(self._out)  # a longest line, its CR and its LF
        try:
            chunk = os.read(self._stdout_fd, max(1, size))
        except BlockingIOError:
            return False
        if not chunk:
            self._stdout_eof = True
            return True
        if self._terminated:
            return True  # shutting down: keep the pipe moving so the bot can exit
        if self._discarding:
            end = chunk.find(b"\n")
            if end < 0:
                return True
            self._discarding = False
            chunk = chunk[end + 1 :]
        self._out += chunk
        return True

    def _read_stderr(self) -> bool:
        """Copy stderr into the log up to the cap, discard beyond; True if data or EOF."""
        try:
            chunk = os.read(self._stderr_fd, _READ_CHUNK)
        except BlockingIOError:
            return False
        if not chunk:
            self._stderr_eof = True
            return True
        self._stderr_tail += chunk[-_STDERR_TAIL_BYTES:]
        del self._stderr_tail[:-_STDERR_TAIL_BYTES]
        room = self._stderr_cap - self._stderr_logged
        try:
            if room > 0:
                kept = chunk[:room]
                self._log.write(kept)
                self._stderr_logged += len(kept)
            if len(chunk) > room and not self._stderr_truncated:
                self._stderr_truncated = True
                self._log.write(f"\n[stderr truncated after {self._stderr_cap} bytes]\n".encode())
        except OSError as error:
            # A full disk (a bot may have filled it) stops this log, never the match: the bytes are still read.
            self.stderr_log_error = f"the stderr log stopped: {error.strerror or error}"
            self._stderr_logged = self._stderr_cap
            self._stderr_truncated = True
        return True

    # -- stopping ---------------------------------------------------------------------------

    def terminate(self, grace_s: float = 0.5) -> None:
        """Close stdin, give the bot ``grace_s`` to exit, then kill its group and session."""
        if self._terminated:
            return
        self._terminated = True
        self._pending = bytearray()
        self._out = bytearray()  # after terminate there is nothing more to read
        assert self._proc.stdin is not None
        self._proc.stdin.close()
        self._stdin_broken = True
        try:
            self._wait_exit(time.monotonic() + grace_s)
            if not self._exited:
                self._signal_group(signal.SIGTERM)
                self._wait_exit(time.monotonic() + _TERM_WAIT_S)
            # Even after a clean exit, children it left behind must go too.
            self._signal_group(signal.SIGKILL)
            if not self._left_nobody():
                self._kill_session()
            try:
                self._proc.wait(timeout=_REAP_S)
            except subprocess.TimeoutExpired as exc:
                raise BotProcessError(
                    f"bot pid {self.pid} survived SIGKILL for {_REAP_S}s (stuck in the kernel?)"
                ) from exc
            finally:
                _LIVE_BOTS.discard(self._proc.pid)
            self._drain_stderr()  # the dead bot's last words explain crashes
        finally:
            for stream in (self._proc.stdout, self._proc.stderr):
                if stream is not None:
                    stream.close()
            if self._pidfd is not None:
                os.close(self._pidfd)
                self._pidfd = None
            self._log.close()

    def _wait_exit(self, deadline: float) -> None:
        while not self._exited:
            now = time.monotonic()
            if now >= deadline:
                self._peek_exit()
                return
            self._pump(deadline - now, want_stdout=True)

    def _signal_group(self, sig: signal.Signals) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self._proc.pid, sig)

    def _left_nobody(self) -> bool:
        """True when the bot has exited and provably left no process behind, so the ``/proc`` sweep can be skipped.

        When this process adopts orphans (``adopt_orphans``), a descendant still alive after the bot's exit either
        is our child now or has a live ancestor that is: so our children being only bots proves there is none.
        Anything else (no adoption, an unknown child, children not listed by this kernel) means: sweep.
        """
        if not _ADOPTING or not self._exited:
            return False
        children = own_children()
        return children is not None and children <= _LIVE_BOTS

    def _kill_session(self) -> None:
        """SIGKILL every live process in the bot's session, including other process groups."""
        deadline = time.monotonic() + _SWEEP_S
        me = os.getpid()
        while True:
            members = [p for p in procfs.session_members(self._proc.pid) if p != me]
            if not members or time.monotonic() >= deadline:
                return
            for member in members:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(member, signal.SIGKILL)
            time.sleep(0.005)  # SIGKILL is asynchronous; give the kernel a moment

    def __enter__(self) -> BotProcess:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.terminate()


_LIVE_BOTS: set[int] = set()  # pids of the bots started here and not yet reaped
_ADOPTING = False  # set by adopt_orphans: orphaned descendants of a bot become our children


def adopt_orphans() -> None:
    """Note that this process is a child subreaper (``referee.bots.reaper``): lets ``terminate`` skip its sweep."""
    global _ADOPTING
    _ADOPTING = True


def own_children() -> set[int] | None:
    """This process's children, zombies included, from ``/proc/self/task/*/children``; None where not listed."""
    children: set[int] = set()
    try:
        for task in os.listdir("/proc/self/task"):
            with open(f"/proc/self/task/{task}/children", "rb") as listing:
                children.update(int(pid) for pid in listing.read().split())
    except FileNotFoundError:
        return None  # a kernel without CONFIG_PROC_CHILDREN, or a thread that just ended: ask the slow way
    except OSError:
        return None
    return children


def wait_any(bots: Sequence[BotProcess], deadline: float) -> None:
    """Sleep until one of ``bots`` may have news (a line, room for input, stderr, an exit) or ``deadline``.

    It reads nothing: each bot's own ``read_line`` then takes what is there. This is how several requests out at
    once (every seat's pass) are waited for together, each answer read as it comes.
    """
    poller = select.poll()
    slow_exit = False
    for bot in bots:
        if bot._terminated:
            return  # it has news: read_line says Closed at once
        bot._watch_all(want_stdout=True)
        for fd, mask in bot._masks.items():
            poller.register(fd, mask)
        slow_exit = slow_exit or (bot._pidfd is None and not bot._exited)
    poller.poll(_poll_ms(deadline - time.monotonic(), slow_exit))


# -- helpers ----------------------------------------------------------------------------------


def _poll_ms(timeout_s: float, slow_exit: bool) -> int:
    """poll()'s timeout for a wait of ``timeout_s``; capped when an exit can only be seen by asking again."""
    ms = min(math.ceil(max(0.0, timeout_s) * 1000), _POLL_CAP_MS)
    return min(ms, _NO_PIDFD_POLL_MS) if slow_exit else ms


def _start_error(argv: Sequence[str], cwd: Path, exc: OSError) -> BotStartError:
    program = argv[0]
    if not cwd.is_dir():
        why = f"its working directory {cwd} does not exist or is not a directory"
        fix = "create it or fix the bot's working directory"
    elif exc.errno == errno.ENOENT:
        if "/" in program and (cwd / program).exists():
            why = f"{program!r} exists but the interpreter on its #! line was not found"
            fix = "fix the #! line or start it through its interpreter, e.g. python3 bot.py"
        else:
            if os.path.isabs(program):
                why = f"executable {program!r} was not found"
            else:
                where = f"relative to {cwd}" if "/" in program else "on PATH"
                why = f"executable {program!r} was not found {where}"
            fix = "check the spelling, install it, or give an absolute path"
    elif exc.errno in (errno.EACCES, errno.EPERM):
        why = f"{program!r} is not executable (permission denied)"
        fix = "run chmod +x on it, or start it through its interpreter, e.g. python3 bot.py"
    elif exc.errno == errno.ENOEXEC:
        why = f"{program!r} is not a program the system can run (a script without #! line?)"
        fix = "add a #! line or start it through its interpreter, e.g. python3 bot.py"
    else:
        why = exc.strerror or str(exc)
        fix = "check the bot's command line"
    return BotStartError(f"cannot start bot command {shlex.join(argv)}: {why}; {fix}")
