"""Fair play between bots: each in a control group of its own, timed by the CPU time it uses, frozen while it is
not to move. The setting is part of the match's `Isolation` (``fair_play``: the mode, ``freeze``); `FairPlaySetup`
is what one match has in force.

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

from typing import Final

from referee.bots.cgroups import BotCgroup, CgroupError, Cgroups, MatchCgroups, find_cgroups
from referee.bots.isolation import FairPlayMode, Isolation
from referee.bots.limits import ResourceLimits
from referee.bots.sandbox import MIB, Limits

__all__ = [
    "FairPlayError",
    "FairPlaySetup",
    "fair_play_problem",
    "wall_cap_s",
]

WALL_CAP_FACTOR: Final = 2.0
WALL_CAP_EXTRA_S: Final = 1.0


class FairPlayError(RuntimeError):
    """``fair_play = "cgroup"`` where no control group can be made; the message says why and what to do."""


def wall_cap_s(allowed_s: float, together: int = 1) -> float:
    """The wall-clock cap of a request timed on CPU time: ``allowed_s`` of CPU, ``together`` bots running at once."""
    return WALL_CAP_FACTOR * max(1, together) * allowed_s + WALL_CAP_EXTRA_S


def fair_play_problem(mode: FairPlayMode) -> str | None:
    """Why no control group can be made here (None: they can, or ``mode`` is none): the one line to show."""
    if mode == "none":
        return None
    try:
        find_cgroups()
    except CgroupError as error:
        return str(error)
    return None


class FairPlaySetup:
    """What one match has in force: its control groups (None: none), and how the seats are timed and frozen."""

    __slots__ = ("_closed", "cgroups", "group", "isolation", "problem")

    def __init__(self, isolation: Isolation, group: MatchCgroups | None, problem: str | None = None) -> None:
        self.isolation = isolation
        self.group = group
        self.cgroups: Cgroups | None = group.cgroups if group is not None else None
        self.problem = problem  # why there is no group, in mode auto
        self._closed = False

    @classmethod
    def open(cls, isolation: Isolation) -> FairPlaySetup:
        """Make the match's group; without one, FairPlayError in mode cgroup, else a setup without groups."""
        if isolation.fair_play == "none":
            return cls(isolation, None)
        try:
            return cls(isolation, find_cgroups().open_match())
        except CgroupError as error:
            if isolation.fair_play == "cgroup":
                raise FairPlayError(
                    f"--fair-play cgroup: no control group can be made here ({error}); run as root, or in a "
                    "delegated cgroup (systemd-run --user --scope -p Delegate=yes kierki ...), or give "
                    "--fair-play none to time bots on the wall clock"
                ) from None
            return cls(isolation, None, str(error))

    @property
    def version(self) -> str | None:
        return None if self.group is None else self.group.version

    @property
    def freezes(self) -> bool:
        return self.group is not None and self.isolation.freeze

    def controls(self, what: str) -> bool:
        """Whether the groups limit ``what`` ("memory", "pids", "cpu")."""
        return self.cgroups is not None and what in self.cgroups.controls

    def resource_limits(self, games: int) -> ResourceLimits:
        """The kernel's per-process limits of each bot of a match of ``games`` games (`Limits.resource_limits`),
        less those the groups hold instead (memory, processes)."""
        limits = self.isolation.limits
        unlimited = Limits(
            memory_mb=0 if self.controls("memory") else limits.memory_mb,
            cpu_s=limits.cpu_s,
            processes=0 if self.controls("pids") else limits.processes,
            file_mb=limits.file_mb,
            disk_mb=limits.disk_mb,
        )
        return unlimited.resource_limits(games)

    def bot_group(self, name: str) -> BotCgroup | None:
        """A new group for one bot with its memory and process limits, or None without groups."""
        if self.group is None:
            return None
        limits = self.isolation.limits
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
