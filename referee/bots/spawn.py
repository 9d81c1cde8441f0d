"""Starting a bot: its command in a session of its own, its pipes, its stderr log, its kernel limits in force.

``referee.bots.process.BotProcess.start`` starts a bot through here; a command that cannot run is a
``BotStartError`` whose one line says why and what to fix.

How limits are put in force before the bot's first instruction (``limits.py``): the bot is started through
util-linux's ``prlimit`` program, which sets the limits on itself and then execs the bot in place (the same pid).
Nothing of ours runs between fork and exec, so ``subprocess`` may use ``vfork`` (starting a bot costs about a
quarter of a fork of the referee), it is safe in a process with threads, and the limits hold for whatever the bot
starts, bubblewrap's sandboxed child included. Because the exec that can fail is then ``prlimit``'s, the command
is checked here first (``check_command``: the working directory, the program on PATH or at its path, execute
permission, a ``#!`` interpreter), so a bot that cannot run still gets the one-line ``BotStartError`` saying why.
Where ``prlimit`` is not installed, the limits are set with ``setrlimit`` in ``preexec_fn`` (a fork, also
race-free) when the referee has one thread; with threads (``preexec_fn`` could deadlock the child) and no
``prlimit``, the bot is not started and the error says to install util-linux.
"""

from __future__ import annotations

import errno
import functools
import os
import shlex
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import BinaryIO

from referee.bots.cgroups import BotCgroup
from referee.bots.limits import (
    ResourceLimits,
    limit_pairs,
    prlimit_prefix,
    prlimit_program,
    setrlimits,
    single_threaded,
)
from referee.bots.pipe_results import BotStartError

__all__ = ["JOIN_SCRIPT", "check_command", "join_prefix", "spawn"]

# The first thing a bot's process runs when it has a control group: it writes its own pid to the group's
# cgroup.procs files (one per v1 tree), then execs the rest of its command in place, so the bot's first
# instruction already runs in the group, and so does everything it starts. sh is in every system; it costs
# about a millisecond per start.
JOIN_SCRIPT = (
    'n=$1; shift; while [ "$n" -gt 0 ]; do echo $$ >"$1" || '
    '{ echo "kierki: cannot move the bot into its control group ($1)" >&2; exit 125; }; shift; n=$((n-1)); done; '
    'exec "$@"'
)


def join_prefix(cgroup: BotCgroup) -> list[str]:
    """The words that start a command inside ``cgroup``: ``sh -c JOIN_SCRIPT kierki-join N FILE... --``."""
    files = cgroup.join_files
    return ["/bin/sh", "-c", JOIN_SCRIPT, "kierki-join", str(len(files)), *files]


def spawn(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str] | None,
    stderr_log: Path,
    limits: ResourceLimits | None,
    cgroup: BotCgroup | None = None,
) -> tuple[subprocess.Popen[bytes], BinaryIO]:
    """Start ``argv`` with three pipes in its own session, in its control group when it has one, its limits in
    force, and open its stderr log; raise ``BotStartError``. Returns the process and the log (the caller closes
    it)."""
    if not argv:
        raise BotStartError("cannot start bot: its command is empty; configure a command")
    pairs = limit_pairs(limits)
    command = list(argv)
    use_preexec = False
    checked = False
    if pairs:
        wrapper = _prlimit()
        if wrapper is not None:
            check_command(argv, cwd, env)
            checked = True
            command = prlimit_prefix(wrapper, pairs) + command
        elif single_threaded():
            use_preexec = True
        else:
            raise BotStartError(
                f"cannot start bot {shlex.join(argv)} under resource limits: this process has threads, so they can "
                "only be set through util-linux's prlimit program, which is not installed; install util-linux, or "
                "turn the limits off (--limit-memory 0 --limit-cpu 0 --limit-processes 0 --limit-file 0)"
            )
    if cgroup is not None:
        if not checked:
            check_command(argv, cwd, env)  # the exec that can fail is sh's now: say what is wrong first
        command = join_prefix(cgroup) + command
    try:
        log = open(stderr_log, "wb", buffering=0)  # noqa: SIM115 - the caller closes it (BotProcess.terminate)
    except OSError as exc:
        raise BotStartError(
            f"cannot open the stderr log {stderr_log} for bot {shlex.join(argv)}: "
            f"{exc.strerror}; check that its directory exists and is writable"
        ) from exc
    try:
        proc = subprocess.Popen(
            command,
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
    return proc, log


@functools.cache
def _prlimit() -> str | None:
    return prlimit_program()


def check_command(argv: Sequence[str], cwd: Path, env: Mapping[str, str] | None) -> None:
    """Raise the ``BotStartError`` that starting ``argv`` would raise for a missing working directory, a program
    not found (on the PATH it will run with) or not executable, or a ``#!`` interpreter that does not exist."""
    program = argv[0]

    def fail(code: int) -> BotStartError:
        return _start_error(argv, cwd, OSError(code, os.strerror(code)))

    if not cwd.is_dir():
        raise fail(errno.ENOENT)
    if "/" in program:
        path = cwd / program
        if not path.exists():
            raise fail(errno.ENOENT)
    else:
        search = (os.environ if env is None else env).get("PATH", os.defpath)
        found = shutil.which(program, path=search)
        if found is None:
            raise fail(errno.ENOENT)
        path = cwd / found
    if path.is_dir() or not os.access(path, os.X_OK):
        raise fail(errno.EACCES)
    try:
        with open(path, "rb") as file:
            head = file.read(256)
    except OSError:
        return  # unreadable but executable: the exec will say
    if head.startswith(b"#!"):
        words = head[2:].split(b"\n", 1)[0].split()
        if words and not os.access(os.fsdecode(words[0]), os.X_OK):
            raise fail(errno.ENOENT)


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
