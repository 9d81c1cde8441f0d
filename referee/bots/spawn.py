"""Starting a bot: its command in a session of its own, its pipes, its stderr log, its kernel limits in force.

``referee.bots.process.BotProcess.start`` starts a bot through here; a command that cannot run is a
``BotStartError`` whose one line says why and what to fix.

Why limits go in ``preexec_fn``: the referee has no threads of its own, so resource limits are applied with
``setrlimit`` between fork and exec. That is the only race-free way: the limits are in force before the bot's
first instruction. ``preexec_fn`` is unsafe once other threads exist (a lock held by another thread at fork time
stays locked in the child forever), so if the calling process does have threads (a test harness, an embedding
program, or a native library's pool: importing numpy starts OpenBLAS threads; we count the tasks in
/proc/self/task) we do not use it and instead apply the same limits with ``resource.prlimit`` on the pid right
after start (``apply_late_limits``). The bot then runs unlimited for the moment between its exec and our prlimit
call; acceptable for a fallback.
"""

from __future__ import annotations

import errno
import os
import resource
import shlex
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import BinaryIO

from referee.bots.limits import ResourceLimits, limit_pairs, setrlimits, single_threaded
from referee.bots.results import BotStartError

__all__ = ["LimitPairs", "apply_late_limits", "spawn"]

LimitPairs = list[tuple[int, int, int]]  # (resource, soft, hard), as limits.limit_pairs resolves them


def spawn(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str] | None,
    stderr_log: Path,
    limits: ResourceLimits | None,
) -> tuple[subprocess.Popen[bytes], BinaryIO, LimitPairs]:
    """Start ``argv`` with three pipes in its own session, and open its stderr log; raise ``BotStartError``.

    Returns the process, the log (the caller closes it) and the limits still to apply with ``apply_late_limits``
    (none when they were set in the child before exec).
    """
    if not argv:
        raise BotStartError("cannot start bot: its command is empty; configure a command")
    pairs = limit_pairs(limits)
    use_preexec = bool(pairs) and single_threaded()
    try:
        log = open(stderr_log, "wb", buffering=0)  # noqa: SIM115 - the caller closes it (BotProcess.terminate)
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
    return proc, log, [] if use_preexec else pairs


def apply_late_limits(pid: int, pairs: LimitPairs, argv: Sequence[str], limits: ResourceLimits | None) -> None:
    """Apply ``pairs`` to a started bot with ``prlimit``; raise ``BotStartError`` (the caller stops the bot)."""
    try:
        for res, soft, hard in pairs:
            resource.prlimit(pid, res, (soft, hard))
    except ProcessLookupError:
        pass  # already gone: read_line will report Closed
    except OSError as exc:
        raise BotStartError(
            f"cannot start bot {shlex.join(argv)}: applying resource limits {limits} "
            f"failed ({exc.strerror}); lower the limits or run without them"
        ) from exc


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
