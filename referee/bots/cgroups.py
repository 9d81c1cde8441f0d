"""A control group per bot: every process it makes in one place, whose CPU time, memory and process count the
kernel accounts and limits together, which can be frozen between its turns and killed whole.

This is the kernel's documented file interface (Documentation/admin-guide/cgroup-v1/ and cgroup-v2.rst), used
directly: no maintained Python library covers both versions with the freezer and the kill (PyPI's ``cgroupspy`` is
v1 only, ``libcgroup`` bindings date from 2019). Two backends stand behind one class, `BotCgroup`:

* **v2** (one unified tree, what systemd gives on current servers): a bot's group is one directory;
  ``cgroup.procs`` (join, list), ``cgroup.freeze`` (freeze and thaw), ``cpu.stat`` ``usage_usec`` (CPU time),
  ``memory.max``, ``memory.swap.max``, ``memory.oom.group`` and ``memory.events`` ``oom_kill`` (memory),
  ``pids.max`` (processes), ``cgroup.kill`` (kill). Freezing, the CPU count and the kill are in every v2 group;
  the memory, pids and cpu controllers only where the tree gives them to our group (``cgroup.controllers``).
* **v1** (one tree per controller, what the machines this project is tested on have): the same directory name in
  the ``cpu``, ``cpuacct``, ``memory``, ``pids`` and ``freezer`` trees; ``cpuacct.usage`` (ns),
  ``memory.limit_in_bytes`` and ``memory.memsw.limit_in_bytes``, ``memory.oom_control`` ``oom_kill``,
  ``pids.max``, ``freezer.state`` (FROZEN, THAWED). Killing is freeze, SIGKILL every member, thaw.

Where the groups go: beside the referee, in its own group of each tree, under one group per match named
``kierki-<pid namespace>-<pid>-<start time>-<n>`` (``MatchCgroups``). A match removes its groups when it ends. A
referee that ends without doing so (SIGKILL, the ``os._exit`` of a Dask worker whose nanny went away, the OOM
killer) would leave its bots behind, those frozen at that instant for good: a frozen bot cannot read the end of its
input. So the first match of a process starts its *guardian* (``guard``), a small process in a session of its
own that holds the read end of a pipe whose write end only the referee has; when the referee ends, however, the
pipe's end comes, and the guardian kills and removes that referee's groups (thawing the frozen bots so that they
die) and exits. What the guardian cannot remove (it was killed too, by a kill of every process on the machine or of
a whole cgroup) the next match removes: every match first removes the groups of referees that are gone
(``sweep_stale``): a name of our pid namespace whose process no longer exists with that start time. Nothing
else is touched. Under v2 a group that holds processes cannot give controllers to its children, so a referee
alone in its group (``systemd-run --user --scope -p Delegate=yes kierki ...``) first moves itself into a leaf of
its own, ``kierki-referee``; the processes it starts (a tournament's workers) stay there and find the delegated
group as its parent.

The file handles a decision needs (freeze, thaw, the CPU count) are opened once and kept, so a turn costs two
writes and two reads. Under v1, changing any group between frozen and thawed switches a kernel static key when no
other group is frozen, which costs 100-200 µs; one empty group kept frozen for the match (the *anchor*) keeps
the key on, and a change then costs about 2 µs (BENCHMARKS.md).
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import os
import re
import signal
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Final

from referee.bots.cgroup_layout import V1_NEEDED, CgroupVersion, Layout, layout_from
from referee.bots.guardian import start_guardian

__all__ = [
    "BotCgroup",
    "CgroupError",
    "CgroupVersion",
    "Cgroups",
    "MatchCgroups",
    "find_cgroups",
    "guard",
    "layout_from",
    "sweep_stale",
]

V2_CONTROLLERS: Final = ("cpu", "memory", "pids")
REFEREE_LEAF: Final = "kierki-referee"
_STALE: Final = re.compile(r"kierki-(\d+)-(\d+)-(\d+)-\d+")
_EMPTY_S: Final = 5.0  # how long a kill waits for the members to go (SIGKILL is prompt; this bounds a wedged kernel)
_FROZEN_S: Final = 1.0  # how long a v1 kill waits for the freezer to stop every member before it kills anyway
_counter = itertools.count(1)


class CgroupError(RuntimeError):
    """No control group can be made or used here; the message says why and what to do."""


def _read(path: Path) -> str:
    return path.read_text()


def _write(path: Path, text: str) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def _make_dir(path: Path) -> None:
    """mkdir; the kernel fills a new group's directory with its files (tests replace this to fake that)."""
    path.mkdir()


def _flat(text: str, key: str) -> int:
    """The value of ``key`` in a flat-keyed cgroup file (``key value`` lines), 0 when absent."""
    for line in text.splitlines():
        name, _, value = line.partition(" ")
        if name == key:
            return int(value)
    return 0


def _v2_available(own: Path) -> set[str]:
    try:
        return set(_read(own / "cgroup.controllers").split()) & set(V2_CONTROLLERS)
    except OSError:
        return set()


class Cgroups:
    """The control groups this process can make for its bots: a version and where they go.

    ``find_cgroups`` finds them; ``controls`` names what the groups limit besides CPU time and freezing
    ("memory", "pids", "cpu": the weight), which decides whether a bot's memory and process limits are the
    group's or the kernel's per-process ones.
    """

    def __init__(self, version: CgroupVersion, dirs: dict[str, Path], controls: frozenset[str]) -> None:
        self.version = version
        self.dirs = dirs  # v1: controller -> our group in its tree; v2: "" -> the group that holds the matches
        self.controls = controls

    def describe(self) -> str:
        limited = ", ".join(sorted(self.controls)) or "nothing"
        return f"cgroup {self.version} (limits: {limited})"

    def open_match(self) -> MatchCgroups:
        """A group for one match's bots, after removing those of referees that are gone, with this process's
        guardian running (``guard``)."""
        sweep_stale(self)
        start_guardian(self.version, self.dirs, _referee_prefix())
        name = f"{_referee_prefix()}{next(_counter)}"
        made: list[Path] = []
        try:
            for tree in self._trees():
                path = tree / name
                _make_dir(path)
                made.append(path)
            if self.version == "v2" and self.controls:
                _write(self.dirs[""] / name / "cgroup.subtree_control", " ".join(f"+{c}" for c in self.controls))
        except OSError as error:
            for path in reversed(made):
                with contextlib.suppress(OSError):
                    path.rmdir()
            raise CgroupError(
                f"cannot create a control group under {made[-1].parent if made else name}: {error.strerror}"
            ) from None
        return MatchCgroups(self, name)

    def _trees(self) -> list[Path]:
        return list(dict.fromkeys(self.dirs.values()))  # v1 controllers mounted together share one directory


def find_cgroups(prefer: CgroupVersion | None = None) -> Cgroups:
    """The control groups this process may make, or CgroupError saying why there are none.

    v2 is taken where its tree gives our group controllers (a pure v2 machine, or a delegated subtree); v1 where
    its cpuacct and freezer trees are mounted; else a v2 tree without controllers (freezing and CPU time only,
    the kernel's per-process limits for memory and processes). ``prefer`` tries one version first (tests).
    """
    try:
        layout1, layout2, why = layout_from(_read(Path("/proc/self/cgroup")), _read(Path("/proc/self/mountinfo")))
    except OSError as error:
        raise CgroupError(f"cannot read /proc/self/cgroup: {error.strerror}") from None
    order: list[CgroupVersion] = ["v2", "v1"]
    if layout2 is not None and not _v2_available(layout2.dirs[""]) and layout1 is not None:
        order = ["v1", "v2"]
    if prefer is not None:
        order.sort(key=lambda v: v != prefer)
    problems = [why] if why else []
    for version in order:
        layout = layout1 if version == "v1" else layout2
        if layout is None:
            continue
        try:
            return _v1(layout) if version == "v1" else _v2(layout.dirs[""])
        except CgroupError as error:
            problems.append(str(error))
    raise CgroupError("; ".join(problems) or "no usable cgroup tree")


def _writable(path: Path) -> None:
    if not os.access(path, os.W_OK):
        raise CgroupError(f"{path} is not writable by this user (no delegated cgroup)")


def _v1(layout: Layout) -> Cgroups:
    for name in V1_NEEDED:
        _writable(layout.dirs[name])
    usable = {name: path for name, path in layout.dirs.items() if os.access(path, os.W_OK)}
    controls = frozenset(name for name in ("cpu", "memory", "pids") if name in usable)
    return Cgroups("v1", usable, controls)


def _v2(own: Path) -> Cgroups:
    base = own.parent if own.name == REFEREE_LEAF else own
    _writable(base)
    available = _v2_available(base)
    enabled = set(_read(base / "cgroup.subtree_control").split()) if available else set()
    if available - enabled:
        available = _enable_v2(base, available) if base == own else available
    return Cgroups("v2", {"": base}, frozenset(available & set(V2_CONTROLLERS)))


def _enable_v2(base: Path, wanted: set[str]) -> set[str]:
    """Give ``base``'s children the ``wanted`` controllers; under v2 a group that holds processes cannot, so a
    referee alone in ``base`` moves into the leaf ``base/kierki-referee`` first. What could be enabled."""
    is_root = not (base / "cgroup.type").exists()  # the root group has no cgroup.type and may hold processes
    if not is_root:
        members = [int(p) for p in _read(base / "cgroup.procs").split()]
        if members and members != [os.getpid()]:
            return set()  # others share our group: only freezing and CPU time (the caller says so)
        if members:
            leaf = base / REFEREE_LEAF
            with contextlib.suppress(FileExistsError):
                _make_dir(leaf)
            try:
                _write(leaf / "cgroup.procs", str(os.getpid()))
            except OSError:
                return set()
    try:
        _write(base / "cgroup.subtree_control", " ".join(f"+{name}" for name in sorted(wanted)))
    except OSError:
        return set()
    return set(_read(base / "cgroup.subtree_control").split()) & wanted


# --- stale groups ----------------------------------------------------------------------------------------------


def _pidns() -> int:
    try:
        return os.stat("/proc/self/ns/pid").st_ino
    except OSError:
        return 0


def _start_time(pid: int) -> int:
    """The process's start time in clock ticks since boot (field 22 of /proc/PID/stat), -1 when it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return -1
    return int(stat[stat.rfind(b")") + 2 :].split()[19])


def _referee_prefix() -> str:
    """How the names of this process's match groups begin."""
    return f"kierki-{_pidns()}-{os.getpid()}-{_start_time(os.getpid())}-"


def sweep_stale(cgroups: Cgroups) -> int:
    """Kill and remove the groups of referees of our pid namespace that no longer run; how many went."""
    ours = _pidns()

    def stale(name: str) -> bool:
        found = _STALE.fullmatch(name)
        return found is not None and int(found[1]) == ours and _start_time(int(found[2])) != int(found[3])

    return _remove_groups(cgroups, stale)


def _remove_groups(cgroups: Cgroups, chosen: Callable[[str], bool]) -> int:
    """Kill and remove the match groups whose names are ``chosen``; how many went."""
    removed = 0
    for tree in cgroups._trees():
        try:
            names = os.listdir(tree)
        except OSError:
            continue
        for name in names:
            if not chosen(name):
                continue
            group = MatchCgroups(cgroups, name, anchor=False)
            group.close()
            removed += not (tree / name).exists()
    return removed


# --- the guardian -----------------------------------------------------------------------------------------------


def guard(args: list[str]) -> None:
    """The guardian (``python -c``; args: the version, the prefix of its referee's group names, and KEY=PATH of
    each tree): wait for the end of input, which comes when the referee has ended (it alone holds the pipe's other
    end), then kill and remove that referee's groups."""
    named, prefix, *trees = args
    version: CgroupVersion = "v1" if named == "v1" else "v2"
    dirs = {key: Path(path) for key, _, path in (tree.partition("=") for tree in trees)}
    while os.read(0, 4096):
        pass
    _remove_groups(Cgroups(version, dirs, frozenset()), lambda name: name.startswith(prefix))


# --- one match, one bot ----------------------------------------------------------------------------------------


class MatchCgroups:
    """The group that holds one match's bot groups; ``close`` kills and removes whatever is left in it."""

    def __init__(self, cgroups: Cgroups, name: str, *, anchor: bool = True) -> None:
        self.cgroups = cgroups
        self.name = name
        self._anchor: BotCgroup | None = None
        if anchor and cgroups.version == "v1":
            with contextlib.suppress(OSError, CgroupError):
                self._anchor = self.bot("anchor")
                self._anchor.freeze()

    @property
    def version(self) -> CgroupVersion:
        return self.cgroups.version

    def dirs(self, child: str = "") -> dict[str, Path]:
        return {key: path / self.name / child if child else path / self.name for key, path in self.cgroups.dirs.items()}

    def bot(self, name: str, *, memory_bytes: int | None = None, processes: int | None = None) -> BotCgroup:
        """A new group for one bot, with its limits (None: none) where the groups hold them."""
        made: list[Path] = []
        try:
            for path in dict.fromkeys(self.dirs(name).values()):
                _make_dir(path)
                made.append(path)
            group: BotCgroup = (_V1Bot if self.version == "v1" else _V2Bot)(self.dirs(name), self.cgroups.controls)
            group.configure(memory_bytes, processes)
        except OSError as error:
            for path in reversed(made):
                with contextlib.suppress(OSError):
                    path.rmdir()
            raise CgroupError(f"cannot create the bot's control group {name}: {error.strerror}") from None
        return group

    def close(self) -> None:
        """Kill and remove every bot group left in the match's group (a bot's own terminate removes its group
        first), then the match's group itself; what cannot be removed yet is left for the next sweep."""
        if self._anchor is not None:
            self._anchor.thaw()
            self._anchor.remove()
            self._anchor = None
        top = self.dirs()
        children: set[str] = set()
        for path in top.values():
            with contextlib.suppress(OSError):
                children.update(entry.name for entry in os.scandir(path) if entry.is_dir())
        for child in sorted(children):
            paths = {key: path / child for key, path in top.items() if (path / child).is_dir()}
            if paths:
                with contextlib.suppress(OSError, CgroupError, KeyError):
                    (_V1Bot if self.version == "v1" else _V2Bot)(paths, frozenset()).remove()
        for path in dict.fromkeys(top.values()):
            with contextlib.suppress(OSError, CgroupError):
                _rmdir(path)


class BotCgroup:
    """One bot's control group. The spawn wrapper writes the bot's pid to every file of ``join_files`` before it
    execs the bot, so everything the bot ever runs is in the group, whatever sessions it makes."""

    version: CgroupVersion = "v2"

    def __init__(self, dirs: dict[str, Path], controls: frozenset[str]) -> None:
        self.dirs = dirs
        self.controls = controls
        self.memory_bytes: int | None = None  # the memory limit in force (None: the group sets none)
        self.processes: int | None = None
        self.removed = False
        self._freeze_fd = -1
        self._cpu_fd = -1

    @property
    def join_files(self) -> tuple[str, ...]:
        return tuple(str(path / "cgroup.procs") for path in dict.fromkeys(self.dirs.values()))

    @property
    def path(self) -> Path:
        """The directory that names the group (v1: its freezer tree's)."""
        return self.dirs.get("freezer", self.dirs.get("", next(iter(self.dirs.values()))))

    def configure(self, memory_bytes: int | None, processes: int | None) -> None:
        raise NotImplementedError

    def cpu_ns(self) -> int:
        """CPU time every process of the group has used so far, in nanoseconds."""
        raise NotImplementedError

    def freeze(self) -> None:
        raise NotImplementedError

    def thaw(self) -> None:
        raise NotImplementedError

    def is_frozen(self) -> bool:
        """Whether every process of the group has stopped (freezing takes a moment after ``freeze``)."""
        raise NotImplementedError

    def oom_kills(self) -> int:
        """How many processes of the group the kernel killed for going over its memory limit."""
        raise NotImplementedError

    def members(self) -> list[int]:
        """The pids in the group now (zombies have left it)."""
        try:
            return [int(pid) for pid in _read(self.path / "cgroup.procs").split()]
        except FileNotFoundError:
            return []

    def _kill_all(self) -> None:
        raise NotImplementedError

    def kill(self) -> None:
        """SIGKILL every process of the group and wait until none is left; CgroupError when some survive."""
        if self.removed:
            return
        deadline = time.monotonic() + _EMPTY_S
        self._kill_all()
        while self.members():
            if time.monotonic() >= deadline:
                raise CgroupError(f"processes {self.members()} of {self.path} survived SIGKILL (stuck in the kernel?)")
            time.sleep(0.001)
            self._kill_all()

    def remove(self) -> None:
        """Kill what is left and remove the group (its directory in every tree); idempotent."""
        if self.removed:
            return
        self.kill()
        for fd in (self._freeze_fd, self._cpu_fd):
            if fd >= 0:
                os.close(fd)
        self._freeze_fd = self._cpu_fd = -1
        for path in reversed(list(dict.fromkeys(self.dirs.values()))):
            _rmdir(path)
        self.removed = True

    def _fd(self, path: Path, flags: int) -> int:
        return os.open(path, flags | os.O_CLOEXEC)


def _rmdir(path: Path) -> None:
    """rmdir a group; a group that still shows members for a moment after they died is retried briefly."""
    for _ in range(200):
        try:
            path.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError as error:
            if error.errno != errno.EBUSY:
                raise CgroupError(f"cannot remove the control group {path}: {error.strerror}") from None
            time.sleep(0.001)
    raise CgroupError(f"cannot remove the control group {path}: it is still in use")


def _kill_each(pids: Iterable[int]) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)


class _V2Bot(BotCgroup):
    version: CgroupVersion = "v2"

    def configure(self, memory_bytes: int | None, processes: int | None) -> None:
        group = self.dirs[""]
        if memory_bytes is not None and "memory" in self.controls:
            _write(group / "memory.max", str(memory_bytes))
            with contextlib.suppress(FileNotFoundError):  # no swap beyond the limit; absent without swap
                _write(group / "memory.swap.max", "0")
            _write(group / "memory.oom.group", "1")  # out of memory: the whole bot goes, not one thread of it
            self.memory_bytes = memory_bytes
        if processes is not None and "pids" in self.controls:
            _write(group / "pids.max", str(processes))
            self.processes = processes
        self._freeze_fd = self._fd(group / "cgroup.freeze", os.O_WRONLY)
        self._cpu_fd = self._fd(group / "cpu.stat", os.O_RDONLY)

    def cpu_ns(self) -> int:
        return _flat(os.pread(self._cpu_fd, 4096, 0).decode(), "usage_usec") * 1000

    def freeze(self) -> None:
        os.write(self._freeze_fd, b"1")

    def thaw(self) -> None:
        os.write(self._freeze_fd, b"0")

    def is_frozen(self) -> bool:
        return _flat(_read(self.dirs[""] / "cgroup.events"), "frozen") == 1

    def oom_kills(self) -> int:
        try:
            return _flat(_read(self.dirs[""] / "memory.events"), "oom_kill")
        except FileNotFoundError:
            return 0

    def _kill_all(self) -> None:
        try:
            _write(self.dirs[""] / "cgroup.kill", "1")
        except FileNotFoundError:  # before Linux 5.14: a frozen v2 task still dies of SIGKILL
            _kill_each(self.members())


class _V1Bot(BotCgroup):
    version: CgroupVersion = "v1"

    def configure(self, memory_bytes: int | None, processes: int | None) -> None:
        dirs = self.dirs
        if memory_bytes is not None and "memory" in self.controls:
            _write(dirs["memory"] / "memory.limit_in_bytes", str(memory_bytes))
            with contextlib.suppress(FileNotFoundError, PermissionError):  # no swap beyond it, where swap is counted
                _write(dirs["memory"] / "memory.memsw.limit_in_bytes", str(memory_bytes))
            self.memory_bytes = memory_bytes
        if processes is not None and "pids" in self.controls:
            _write(dirs["pids"] / "pids.max", str(processes))
            self.processes = processes
        self._freeze_fd = self._fd(dirs["freezer"] / "freezer.state", os.O_RDWR)
        self._cpu_fd = self._fd(dirs["cpuacct"] / "cpuacct.usage", os.O_RDONLY)

    def cpu_ns(self) -> int:
        return int(os.pread(self._cpu_fd, 64, 0))

    def freeze(self) -> None:
        os.write(self._freeze_fd, b"FROZEN")

    def thaw(self) -> None:
        os.write(self._freeze_fd, b"THAWED")

    def is_frozen(self) -> bool:
        return _read(self.dirs["freezer"] / "freezer.state").strip() == "FROZEN"

    def oom_kills(self) -> int:
        if "memory" not in self.dirs:
            return 0
        try:
            return _flat(_read(self.dirs["memory"] / "memory.oom_control"), "oom_kill")
        except FileNotFoundError:
            return 0

    def _kill_all(self) -> None:
        """Freeze (so nothing forks while we kill), SIGKILL each member, thaw (a frozen v1 task dies only then).
        A group left half removed by a killed referee may have no freezer directory: its members are killed as
        they are (the sweep comes back to what a fork left)."""
        if "freezer" not in self.dirs:
            _kill_each(self.members())
            return
        state = self.dirs["freezer"] / "freezer.state"
        _write(state, "FROZEN")
        _wait(lambda: _read(state).strip() == "FROZEN", _FROZEN_S)
        _kill_each(self.members())
        _write(state, "THAWED")


def _wait(done: Callable[[], bool], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not done() and time.monotonic() < deadline:
        time.sleep(0.0005)
