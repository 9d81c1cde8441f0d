"""Fair play between bots: each in a control group of its own, timed by the CPU time it uses, frozen while it is
not to move. The setting (`FairPlay`) and what one match has in force (`FairPlaySetup`).

Why: a deadline on the wall clock is shared with the rivals, and a rival can spend it (a bot whose children call
``setsid()`` and spin forfeited the whole table; four passers that each need 300 ms of CPU time out together on
one CPU). With a control group per bot (``cgroups.py``):

* **Your time is your CPU time**: a request's deadline is the CPU time every process of the bot used from the
  request's write to its answer's read, against ``time_ms`` (``cpu_deadline``). A wall-clock cap stops a bot that
  waits without computing: twice the time that every bot running at that moment could take if each used its whole
  ``time_ms``, plus one second (``wall_cap_s``). The cap is never reached by a bot that computes within its time
  unless the machine is more than half busy with other work.
* **Frozen while not to move** (``freeze``, default on): from the moment its answer is read until its next request
  is written, so it can neither think on its rivals' time nor take their CPU. Events for a frozen bot wait in its
  pipe or in the referee's buffer. ``--no-freeze`` lets trusted bots ponder.
* **Equal weight**: every group has the kernel's default CPU weight, however many processes it holds; seats asked
  at once (every seat's pass) are thawed together and share the CPU equally, each timed on its own CPU time.
* **Memory and processes by what is used**: the memory limit is the group's (resident memory, no swap beyond it),
  so runtimes that reserve large address ranges (the JVM, .NET, Go) start with their default flags; the process
  limit is the group's ``pids.max``, which holds for root too. Where the group cannot limit one of them, the
  kernel's per-process limit (``RLIMIT_AS``, ``RLIMIT_NPROC``) stays.

Mode ``auto`` (the default) uses control groups where they can be made and otherwise runs as before (the wall
clock, no freezing), with one line that says so; ``cgroup`` refuses to run without them; ``none`` never uses them.
"""

from __future__ import annotations

from typing import Final, Literal

import msgspec

from referee.bots.cgroups import BotCgroup, CgroupError, Cgroups, MatchCgroups, find_cgroups
from referee.bots.limits import ResourceLimits
from referee.bots.sandbox import MIB, Limits

__all__ = [
    "FAIR_PLAY_MODES",
    "FairPlay",
    "FairPlayError",
    "FairPlayMode",
    "FairPlaySetup",
    "fair_play_problem",
    "wall_cap_s",
]

FairPlayMode = Literal["auto", "cgroup", "none"]
FAIR_PLAY_MODES: Final[tuple[FairPlayMode, ...]] = ("auto", "cgroup", "none")
WALL_CAP_FACTOR: Final = 2.0
WALL_CAP_EXTRA_S: Final = 1.0


class FairPlayError(RuntimeError):
    """``mode = "cgroup"`` where no control group can be made; the message says why and what to do."""


class FairPlay(msgspec.Struct, frozen=True):
    """How bots share the machine (module docstring): ``mode`` auto, cgroup or none; ``freeze`` a bot that is
    not to move (off: trusted bots may ponder)."""

    mode: FairPlayMode = "auto"
    freeze: bool = True


def wall_cap_s(allowed_s: float, together: int = 1) -> float:
    """The wall-clock cap of a request timed on CPU time: ``allowed_s`` of CPU, ``together`` bots running at once."""
    return WALL_CAP_FACTOR * max(1, together) * allowed_s + WALL_CAP_EXTRA_S


def fair_play_problem(fair_play: FairPlay) -> str | None:
    """Why no control group can be made here (None: they can, or ``mode`` is none): the one line to show."""
    if fair_play.mode == "none":
        return None
    try:
        find_cgroups()
    except CgroupError as error:
        return str(error)
    return None


class FairPlaySetup:
    """What one match has in force: its control groups (None: none), and how the seats are timed and frozen."""

    __slots__ = ("_closed", "cgroups", "fair_play", "group", "problem")

    def __init__(self, fair_play: FairPlay, group: MatchCgroups | None, problem: str | None = None) -> None:
        self.fair_play = fair_play
        self.group = group
        self.cgroups: Cgroups | None = group.cgroups if group is not None else None
        self.problem = problem  # why there is no group, in mode auto
        self._closed = False

    @classmethod
    def open(cls, fair_play: FairPlay) -> FairPlaySetup:
        """Make the match's group; without one, FairPlayError in mode cgroup, else a setup without groups."""
        if fair_play.mode == "none":
            return cls(fair_play, None)
        try:
            return cls(fair_play, find_cgroups().open_match())
        except CgroupError as error:
            if fair_play.mode == "cgroup":
                raise FairPlayError(
                    f"--fair-play cgroup: no control group can be made here ({error}); run as root, or in a "
                    "delegated cgroup (systemd-run --user --scope -p Delegate=yes kierki ...), or give "
                    "--fair-play none to time bots on the wall clock"
                ) from None
            return cls(fair_play, None, str(error))

    @property
    def version(self) -> str | None:
        return None if self.group is None else self.group.version

    @property
    def freezes(self) -> bool:
        return self.group is not None and self.fair_play.freeze

    def controls(self, what: str) -> bool:
        """Whether the groups limit ``what`` ("memory", "pids", "cpu")."""
        return self.cgroups is not None and what in self.cgroups.controls

    def resource_limits(self, limits: Limits, games: int) -> ResourceLimits:
        """The kernel's per-process limits, less those the groups hold instead (memory, processes)."""
        unlimited = Limits(
            memory_mb=0 if self.controls("memory") else limits.memory_mb,
            cpu_s=limits.cpu_s,
            processes=0 if self.controls("pids") else limits.processes,
            file_mb=limits.file_mb,
            disk_mb=limits.disk_mb,
        )
        return unlimited.resource_limits(games)

    def bot_group(self, name: str, limits: Limits) -> BotCgroup | None:
        """A new group for one bot with its memory and process limits, or None without groups."""
        if self.group is None:
            return None
        return self.group.bot(
            name,
            memory_bytes=limits.memory_mb * MIB if limits.memory_mb > 0 else None,
            processes=limits.processes if limits.processes > 0 else None,
        )

    def close(self) -> None:
        """Remove the match's group (the bots' own are gone with them); what was in force stays readable."""
        if self.group is not None and not self._closed:
            self._closed = True
            self.group.close()

    def describe(self) -> dict[str, object]:
        """What was in force, for the replay header and result.json."""
        return {
            "cgroups": self.version,
            "clock": "cpu" if self.group is not None else "wall",
            "freeze": self.freezes,
            "memory": "cgroup" if self.controls("memory") else "rlimit",
            "processes": "cgroup" if self.controls("pids") else "rlimit",
        }
