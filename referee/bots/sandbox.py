"""Isolation for bot processes: resource limits, a scrubbed environment, a private directory, optionally bubblewrap.

``process.py`` runs whatever argv, cwd, env and kernel limits it is given; this module decides what those are for
one seat. SECURITY.md says what each level protects against and, as importantly, what it does not.

Design decisions (the why):

* The bot's working directory is its private directory (``<out>/seatN/``), not the user's. Several seats often
  run the same program (self-play), and a bot that writes ``state.json`` next to itself would otherwise clobber
  its twin. So that ``python3 my_bot.py`` keeps working, every relative path in the command that exists relative
  to the user's directory is made absolute first (also ``--opt=path``); the program itself is made absolute when
  it contains a ``/``. A bot that opens data files relative to the current directory must open them relative to
  its own file instead (``Path(__file__).parent``), or be given their path on its command line.
* The environment is built, not filtered: ``PATH``, ``LANG`` and ``LC_ALL`` from the referee, ``HOME`` = the
  private directory and ``TMPDIR`` = ``HOME/tmp``, plus what the user passes with ``--bot-env``. A referee run
  from a shell with API tokens in its environment must not hand them to strangers' code.
* Limits are stated the way a user thinks (MiB, seconds, extra processes) and turned into kernel values once per
  match. ``RLIMIT_NPROC`` counts every process and thread of the user, so "N processes" becomes "the user's
  current count + N"; a bare N would stop a bot from starting at all on a busy desktop.
* bubblewrap builds the bot's file tree from an allow-list, not from the host's: the system folders a program
  needs to run (``/usr``, ``/bin``, ``/lib*``, ``/etc``), read-only; the bot's own program folders, read-only (the
  folder of its program and of every existing absolute path on its command line; for a program in a ``bin`` or
  ``shims`` folder, the installation above it, so an interpreter finds its libraries); folders the organiser names
  with ``--bot-ro``, read-only; its private directory, writable; fresh ``/dev``, ``/proc`` and ``/tmp``. Nothing
  else of the host exists inside. Where a visible folder holds match data (the ``--out`` folder and its siblings,
  which hold earlier matches' logs; the ``--deals`` file; the ``--from`` replay), that data is masked: the folder by
  an empty read-only tmpfs, a file by ``/dev/null``. The bot also gets no network, its own pid namespace (so even a
  descendant that calls ``setsid()`` dies with the sandbox), and no capabilities (it matters when the referee runs
  as root). Whether the kernel lets bubblewrap create namespaces is probed once per match, so a container that
  forbids them fails the match at once with a clear message instead of every bot "crashing" at start.
* Under bubblewrap a bot's writable places are its own, by default (``--limit-disk``, ``DEFAULT_DISK_MB``): its
  private directory, its ``/tmp`` and its ``/dev/shm`` are each a tmpfs of ``disk_mb`` MiB holding at most
  ``disk_mb * FILES_PER_MB`` files, so a bot that fills one gets ENOSPC in its own writes while the referee's logs,
  the organiser's disk and every other bot are untouched, and its files vanish with its sandbox. A tmpfs lives in
  memory: its pages are charged to the bot's own memory group. bubblewrap sets a tmpfs's size but not its inode
  count, so the count is set by a remount inside the sandbox before the bot runs; only a referee running as root
  can (util-linux's ``mount`` refuses any other user, inside a user namespace too), so without root the number of
  files is bounded by the memory group instead (the kernel charges every inode to it).
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Final, Literal

import msgspec

from referee.bots.limits import ResourceLimits
from referee.bots.procfs import proc_files

__all__ = [
    "DEFAULT_CPU_S_PER_GAME",
    "DEFAULT_DISK_MB",
    "DEFAULT_FILE_MB",
    "DEFAULT_MEMORY_MB",
    "DEFAULT_PROCESSES",
    "FILES_PER_MB",
    "NO_LIMITS",
    "SANDBOXES",
    "Limits",
    "PreparedBot",
    "SandboxError",
    "SandboxKind",
    "bot_env",
    "bot_uid",
    "bwrap_argv",
    "check_bwrap",
    "describe_exit",
    "prepare",
    "resolve_argv",
    "status_tasks",
    "user_task_count",
]

SandboxKind = Literal["none", "bwrap"]
SANDBOXES: Final[tuple[SandboxKind, ...]] = ("none", "bwrap")

DEFAULT_MEMORY_MB: Final = 1024
DEFAULT_CPU_S_PER_GAME: Final = 600
DEFAULT_PROCESSES: Final = 256
DEFAULT_FILE_MB: Final = 64
# Under bubblewrap, the size of each of a bot's writable tmpfs (its private directory, /tmp, /dev/shm) and the files
# each may hold per MiB: 256 MiB and 16,384 files by default, a quarter of the default memory limit each.
DEFAULT_DISK_MB: Final = 256
FILES_PER_MB: Final = 64
MIB: Final = 1024 * 1024

PASSED_ENV: Final = ("PATH", "LANG", "LC_ALL")  # copied from the referee's environment when set
# What any program needs to run, bound read-only inside bubblewrap (those that exist; symlinks stay symlinks).
SYSTEM_FOLDERS: Final = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")
_INSTALL_FOLDERS: Final = ("bin", "shims")  # a program here belongs to the installation above (a venv, pyenv)
SHARED_PLACES: Final = ("/tmp", "/dev/shm")  # writable by any program: inside bubblewrap, each the bot's own tmpfs


class SandboxError(RuntimeError):
    """The isolation asked for cannot be set up; the message says why and what to do."""


# A limit: a whole number, 0 turning it off (checked by `referee.bots.isolation.Isolation`).
Off = Annotated[int, msgspec.Meta(ge=0)]


@dataclass(frozen=True)
class Limits:
    """Per-bot limits as a user states them; 0 turns a limit off.

    ``cpu_s`` is CPU seconds over the whole match; None means ``DEFAULT_CPU_S_PER_GAME`` per game, so a long
    match does not kill a bot that merely used its time on every move. ``processes`` is how many processes and
    threads a bot may add to what the user already runs (``RLIMIT_NPROC`` is per user and ignored for root).
    Core files are always off.
    """

    memory_mb: Off = DEFAULT_MEMORY_MB
    cpu_s: Off | None = None
    processes: Off = DEFAULT_PROCESSES
    file_mb: Off = DEFAULT_FILE_MB
    # bubblewrap only: the private directory, /tmp and /dev/shm are each a tmpfs of this size holding at most
    # disk_mb * FILES_PER_MB files (0: the real directory, and /tmp and /dev/shm bounded by memory alone)
    disk_mb: Off = DEFAULT_DISK_MB

    def resource_limits(self, games: int) -> ResourceLimits:
        """The kernel limits for a match of ``games`` games, resolved now (the process count is a snapshot)."""
        cpu = DEFAULT_CPU_S_PER_GAME * max(1, games) if self.cpu_s is None else self.cpu_s
        return ResourceLimits(
            memory_bytes=self.memory_mb * MIB if self.memory_mb > 0 else None,
            cpu_seconds=cpu if cpu > 0 else None,
            processes=user_task_count() + self.processes if self.processes > 0 else None,
            file_bytes=self.file_mb * MIB if self.file_mb > 0 else None,
            core_bytes=0,  # a crash must not leave a core file the size of the bot's memory
        )


NO_LIMITS: Final = Limits(memory_mb=0, cpu_s=0, processes=0, file_mb=0, disk_mb=0)


class PreparedBot(msgspec.Struct, frozen=True):
    """What ``BotProcess.start`` runs for one seat."""

    argv: tuple[str, ...]
    cwd: Path
    env: dict[str, str]
    home: Path
    launchers: int = 0  # processes in front of the bot that hold its pipes (bubblewrap and its init: 2)


BOT_UID: Final = 65534  # "nobody": who a bot runs as inside bubblewrap when the referee is root


def bot_uid(sandbox: SandboxKind) -> int | None:
    """The uid bots run as when it is not the referee's: inside bubblewrap, when the referee is root."""
    return BOT_UID if sandbox == "bwrap" and os.geteuid() == 0 else None


def user_task_count(uid: int | None = None) -> int:
    """Processes and threads whose real uid is ``uid`` (default: ours): what ``RLIMIT_NPROC`` is compared with."""
    uid = os.getuid() if uid is None else uid
    return sum(status_tasks(text, uid) for _, text in proc_files("status"))


def status_tasks(status: bytes, uid: int) -> int:
    """The tasks (threads) a ``/proc/PID/status`` counts for real uid ``uid``: its Threads, or 0 for another user.

    Two fields of a long file: found, not every line split (this runs once per process on the machine).
    """
    at = status.find(b"\nUid:")
    if at < 0 or int(status[at + 5 : status.index(b"\n", at + 5)].split()[0]) != uid:
        return 0
    at = status.find(b"\nThreads:")
    return int(status[at + 9 : status.index(b"\n", at + 9)]) if at >= 0 else 1


def resolve_argv(argv: Sequence[str], user_cwd: Path) -> tuple[str, ...]:
    """Make the command independent of the working directory it will run in (see the module docstring)."""
    if not argv:
        return ()
    program = argv[0]
    if "/" in program and not os.path.isabs(program):
        program = os.path.normpath(user_cwd / program)
    resolved = [program]
    for arg in argv[1:]:
        key, sep, value = arg.partition("=")
        if arg.startswith("-") and sep and _relative_existing(value, user_cwd):
            resolved.append(f"{key}={os.path.normpath(user_cwd / value)}")
        elif not arg.startswith("-") and _relative_existing(arg, user_cwd):
            resolved.append(os.path.normpath(user_cwd / arg))
        else:
            resolved.append(arg)
    return tuple(resolved)


def _relative_existing(path: str, user_cwd: Path) -> bool:
    return bool(path) and not os.path.isabs(path) and (user_cwd / path).exists()


def bot_env(home: Path, extra: Sequence[tuple[str, str]] = (), base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The whole environment of a bot: a few variables it needs, its private HOME and TMPDIR, and ``extra``."""
    source = os.environ if base is None else base
    env = {key: source[key] for key in PASSED_ENV if key in source}
    env.setdefault("PATH", os.defpath)
    env["HOME"] = str(home)
    env["TMPDIR"] = str(home / "tmp")
    env.update(extra)
    return env


def prepare(
    argv: Sequence[str],
    *,
    user_cwd: Path,
    private_dir: Path,
    out_dir: Path,
    sandbox: SandboxKind = "none",
    extra_env: Sequence[tuple[str, str]] = (),
    read_only: Sequence[Path] = (),
    hidden: Sequence[Path] = (),
    disk_mb: int = 0,
) -> PreparedBot:
    """Create the seat's private directory and build the command, directory and environment to run it with.

    Under bubblewrap, ``read_only`` are extra folders the bot may read (``--bot-ro``) and ``hidden`` are files of
    the organiser's that hold match data (a deal file, a replay resumed from), masked wherever they would show.
    """
    if sandbox not in SANDBOXES:
        raise SandboxError(f"unknown sandbox {sandbox!r}; use one of: {', '.join(SANDBOXES)}")
    home = private_dir.resolve()
    try:
        (home / "tmp").mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise SandboxError(f"cannot create the bot's private directory {home}: {error.strerror}") from None
    command = resolve_argv(argv, user_cwd)
    env = bot_env(home, extra_env)
    if sandbox == "bwrap":
        uid = bot_uid(sandbox)
        if uid is not None:  # the bot runs as an unprivileged user: its private directory must be its own
            for folder in (home, home / "tmp"):
                os.chown(folder, uid, uid)
        command = bwrap_argv(
            _bwrap_program(),
            command,
            home=home,
            out_dir=out_dir.resolve(),
            path=env["PATH"],
            read_only=[Path(os.path.abspath(p)) for p in read_only],
            hidden=[Path(os.path.realpath(p)) for p in hidden],
            disk_mb=disk_mb,
        )
    return PreparedBot(command, home, env, home, launchers=2 if sandbox == "bwrap" else 0)


def _bwrap_program() -> str:
    import shutil  # here and in _command_files: only --sandbox bwrap needs it (it costs 2-3 ms at import)

    program = shutil.which("bwrap")
    if program is None:
        raise SandboxError(
            "--sandbox bwrap needs bubblewrap, and 'bwrap' is not on PATH: install it "
            "(apt-get install bubblewrap, dnf install bubblewrap) or use --sandbox none"
        )
    return program


def _bwrap_base(program: str, disk_mb: int = 0) -> list[str]:
    """Everything but the per-seat binds: the system folders, fresh /dev /proc /tmp (and /dev/shm, each a tmpfs of
    ``disk_mb`` MiB when it is not 0), no network, no caps.

    As root, the sandbox keeps only the capabilities that ``setpriv`` needs to drop to ``BOT_UID`` (``drop_root``),
    and the one that ``bounded_files`` needs to set the inode counts; without root, bubblewrap's user namespace runs
    the bot as the referee's own unprivileged user."""
    args = [program]
    for folder in SYSTEM_FOLDERS:
        if os.path.islink(folder):
            args += ["--symlink", os.readlink(folder), folder]
        elif os.path.isdir(folder):
            args += ["--ro-bind", folder, folder]
    args += ["--dev", "/dev", "--proc", "/proc"]
    for place in SHARED_PLACES:
        args += ["--perms", "1777", *_size(disk_mb), "--tmpfs", place]
    args += ["--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
    args += ["--die-with-parent", "--cap-drop", "ALL"]
    if os.geteuid() == 0:
        args += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add", "CAP_SETPCAP"]
        if disk_mb > 0:
            args += ["--cap-add", "CAP_SYS_ADMIN"]  # for bounded_files' remount only: setpriv drops it before the bot
    return args


def _size(disk_mb: int) -> list[str]:
    return ["--size", str(disk_mb * MIB)] if disk_mb > 0 else []


def bounded_files(places: Sequence[str], disk_mb: int) -> list[str]:
    """The words that, run first inside the sandbox, set the inode count of each tmpfs in ``places`` to ``disk_mb *
    FILES_PER_MB`` and then run the rest of the command; none unless the referee is root and ``disk_mb`` is set
    (see the module's docstring)."""
    import shlex
    import shutil

    mount = shutil.which("mount", path="/usr/bin:/bin:/usr/sbin:/sbin")
    if os.geteuid() != 0 or disk_mb <= 0 or mount is None:
        return []
    files = disk_mb * FILES_PER_MB
    remounts = " && ".join(f"{mount} -o remount,nr_inodes={files} -- {shlex.quote(place)}" for place in places)
    return ["/bin/sh", "-c", f'{remounts} && exec "$@"', "sh"]


def drop_root() -> list[str]:
    """The words that run a command inside the sandbox as ``BOT_UID`` (with no capabilities, no supplementary
    groups, and no way back through a set-user-ID program: no_new_privs) when the referee is root; none else."""
    if os.geteuid() != 0:
        return []
    import shutil

    setpriv = shutil.which("setpriv")
    if setpriv is None:
        raise SandboxError(
            "--sandbox bwrap as root runs each bot as an unprivileged user through util-linux's setpriv, which is "
            "not installed: install util-linux, or run the referee as an unprivileged user"
        )
    ids = [f"--reuid={BOT_UID}", f"--regid={BOT_UID}", "--clear-groups"]
    return [setpriv, *ids, "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--"]


def bwrap_argv(
    program: str,
    argv: Sequence[str],
    *,
    home: Path,
    out_dir: Path,
    path: str,
    read_only: Sequence[Path] = (),
    hidden: Sequence[Path] = (),
    disk_mb: int = 0,
) -> tuple[str, ...]:
    """``argv`` wrapped in bubblewrap; raise SandboxError for a command the sandbox would hide from itself."""
    args = _bwrap_base(program, disk_mb)
    files = _command_files(argv, path)
    for file in files:
        if _is_within(file, out_dir):
            raise SandboxError(
                f"{file} is inside the --out folder {out_dir}, which --sandbox bwrap hides from every bot; "
                "keep bot programs outside --out"
            )
    visible = _visible_folders([*(_program_folder(f) for f in files), *read_only])
    made: set[Path] = set()
    for folder in visible:
        args += [*_reachable(folder, made), "--ro-bind", str(folder), str(folder)]
    # Match data inside a visible folder: the --out folder's top folder there (earlier matches' logs live beside
    # it), and the organiser's deal or replay file.
    read_only_last = [str(out_dir), "/"]  # made read-only once every mount point inside them exists
    for folder in visible:
        if _is_within(out_dir, folder) and out_dir != folder:
            top = folder / out_dir.relative_to(folder).parts[0]
            args += ["--tmpfs", str(top)]
            read_only_last.insert(0, str(top))
        elif _is_within(folder, out_dir):
            raise SandboxError(f"--bot-ro {folder} is inside the --out folder {out_dir}, which bots never see")
    for file in hidden:
        if any(_is_within(file, folder) for folder in visible) and not _is_within(file, out_dir):
            args += ["--ro-bind", "/dev/null", str(file)]
    # The --out folder is an empty stand-in (wherever it is, /tmp included) holding only the private directory.
    args += [*_reachable(out_dir, made), "--tmpfs", str(out_dir)]
    if disk_mb > 0:  # (1777: the bot may run as another user than the sandbox's tmpfs belongs to)
        args += ["--perms", "1777", *_size(disk_mb), "--tmpfs", str(home)]
        args += ["--perms", "1777", "--dir", str(home / "tmp")]
    else:
        args += ["--bind", str(home), str(home)]
    # The folders bubblewrap made to hold the binds live in its root tmpfs: read-only too, once all are made.
    for mount in read_only_last:
        args += ["--remount-ro", mount]
    own = [str(home), *SHARED_PLACES]
    args += ["--chdir", str(home), "--", *bounded_files(own, disk_mb), *drop_root(), *argv]
    return tuple(args)


def _reachable(path: Path, made: set[Path]) -> list[str]:
    """``--dir`` (mode 755) for each folder above ``path`` that is not there yet: bubblewrap makes the folders that
    hold a mount point with the host's modes, and a bot running as another user than the referee (root's bots run
    as ``BOT_UID``) could not pass a folder that is private on the host (``/root``, pytest's temporary folders).
    Only their names show; what they hold on the host does not."""
    args: list[str] = []
    for parent in reversed(path.parents):
        if parent == Path("/") or parent in made:
            continue
        made.add(parent)
        args += ["--perms", "0755", "--dir", str(parent)]
    return args


def _program_folder(file: Path) -> Path:
    """The folder a program needs: its own, or the installation above a ``bin``/``shims`` folder."""
    folder = file if file.is_dir() else file.parent
    if folder.name in _INSTALL_FOLDERS and folder.parent != folder.parent.parent:
        return folder.parent
    return folder


def _visible_folders(folders: Sequence[Path]) -> list[Path]:
    """The folders to bind: outside the system folders, each once, none inside another."""
    system = [Path(os.path.realpath(f)) for f in SYSTEM_FOLDERS if os.path.exists(f)]
    kept: list[Path] = []
    for folder in sorted(set(folders), key=lambda f: len(f.parts)):
        if folder == Path("/"):
            raise SandboxError(
                "a bot's program or --bot-ro path is the root folder, which would show every file of this "
                "machine to the bot; put the bot in a folder of its own"
            )
        if not any(_is_within(folder, k) for k in [*system, *kept]):
            kept.append(folder)
    return kept


def _command_files(argv: Sequence[str], path: str) -> list[Path]:
    """Absolute paths the command names: its program (looked up on ``path``) and any existing absolute argument."""
    import shutil

    files = []
    program = argv[0] if "/" in argv[0] else shutil.which(argv[0], path=path)
    if program is None:
        raise SandboxError(
            f"executable {argv[0]!r} was not found on PATH; check the spelling, install it, or give an absolute path"
        )
    files += [Path(os.path.abspath(program)), Path(os.path.realpath(program))]
    for arg in argv[1:]:
        value = arg.partition("=")[2] if arg.startswith("-") else arg
        if os.path.isabs(value) and os.path.exists(value):
            files += [Path(os.path.abspath(value)), Path(os.path.realpath(value))]
    return files


def _is_within(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def check_bwrap(timeout_s: float = 10.0) -> None:
    """Raise SandboxError unless bubblewrap can create its sandbox on this machine (once per match)."""
    program = _bwrap_program()
    try:
        probe = subprocess.run(
            [*_bwrap_base(program), "--", *drop_root(), "true"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=timeout_s,
            env={"PATH": os.environ.get("PATH", os.defpath)},
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise SandboxError(f"--sandbox bwrap: bubblewrap could not be run ({error}); use --sandbox none") from None
    if probe.returncode != 0:
        why = probe.stderr.decode("utf-8", "replace").strip() or f"exit status {probe.returncode}"
        raise SandboxError(
            f"--sandbox bwrap: bubblewrap cannot create its sandbox on this machine ({why}). Containers often "
            "forbid the namespaces it needs: allow user namespaces (or run the container with a seccomp profile "
            "that permits them), or use --sandbox none"
        )


_LIMIT_SIGNALS: Final = {
    signal.SIGXCPU: "the CPU-time limit (--limit-cpu) was reached",
    signal.SIGXFSZ: "it wrote a file larger than the file-size limit (--limit-file)",
    signal.SIGKILL: "killed outright: the CPU-time hard limit, the system's out-of-memory killer or an operator",
    signal.SIGSEGV: "a crash; under a memory limit (--limit-memory) a failed allocation can end this way",
}


def describe_exit(code: int | None) -> str:
    """How a bot's process ended, in words, with the limit it probably hit (for the error message it gets)."""
    if code is None:
        return "still running"
    if code < 0:
        try:
            sig = signal.Signals(-code)
        except ValueError:
            return f"killed by signal {-code}"
        why = _LIMIT_SIGNALS.get(sig)
        return f"killed by {sig.name}" + (f": {why}" if why else "")
    if code > 128 and code - 128 in _LIMIT_SIGNALS:  # how bubblewrap and shells report a child's death by signal
        sig = signal.Signals(code - 128)
        return f"exit status {code} = 128 + {sig.name}: {_LIMIT_SIGNALS[sig]}"
    return f"exit status {code}"
