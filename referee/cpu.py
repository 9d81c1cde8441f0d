"""One CPU for a match: the referee and its bots pinned together.

A decision is a round trip referee -> bot -> referee through two pipes. On one CPU each hand-off is a plain
context switch; between CPUs it is a cross-CPU wake-up, several times dearer (BENCHMARKS.md, ``unpinned_penalty``).
Affinity is inherited, so pinning the referee before it starts its bots pins the bots too.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["CpuError", "choose_cpu", "cpu_allowance", "pinned", "usable_cpus"]


class CpuError(ValueError):
    """A CPU that this process may not run on, or pinning where the system has none."""


def usable_cpus() -> list[int]:
    """The CPUs this process may run on, lowest first; empty where the system cannot pin (not Linux)."""
    if not hasattr(os, "sched_getaffinity"):
        return []
    return sorted(os.sched_getaffinity(0))


def cpu_allowance(cgroup_root: Path = Path("/sys/fs/cgroup"), own: Path = Path("/proc/self/cgroup")) -> int:
    """How many CPUs' worth of work this process may do at once: the CPUs it may run on, fewer where its control
    group's CPU quota allows less (cgroup v2 ``cpu.max``, v1 ``cpu.cfs_quota_us`` / ``cpu.cfs_period_us``, rounded
    up); at least 1. A default for worker counts: a machine's CPU count overstates what a container may use."""
    cpus = len(usable_cpus()) or os.cpu_count() or 1
    quota = _cgroup_quota(cgroup_root, own)
    return max(1, min(cpus, math.ceil(quota)) if quota is not None else cpus)


def _cgroup_quota(root: Path, own: Path) -> float | None:
    """The CPU quota (in CPUs) of this process's control group, None when it has none or it cannot be read."""
    try:
        lines = own.read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, controllers, path = line.split(":", 2)
        relative = path.lstrip("/")
        try:
            if controllers == "":  # v2: one hierarchy
                quota, _, period = (root / relative / "cpu.max").read_text().partition(" ")
                if quota.strip() != "max":
                    return int(quota) / int(period)
            elif "cpu" in controllers.split(","):  # v1: the cpu controller's own hierarchy
                folder = root / controllers / relative
                if not folder.is_dir():
                    folder = root / "cpu" / relative
                quota_us = int((folder / "cpu.cfs_quota_us").read_text())
                if quota_us > 0:
                    return quota_us / int((folder / "cpu.cfs_period_us").read_text())
        except (OSError, ValueError):
            continue
    return None


def choose_cpu(usable: list[int] | None = None) -> int | None:
    """The default CPU of a match: one of the usable set, chosen by process id.

    Matches started side by side (a shell loop with ``&``, several terminals) have consecutive ids and so land on
    different CPUs, without sampling the load first (which would cost more than a short match). None where the
    system cannot pin.
    """
    cpus = usable_cpus() if usable is None else usable
    return cpus[os.getpid() % len(cpus)] if cpus else None


def check_cpu(cpu: int) -> None:
    """Raise CpuError unless this process may be pinned to ``cpu``."""
    cpus = usable_cpus()
    if not cpus:
        raise CpuError("this system cannot pin a process to a CPU; leave out --cpu or give --cpu none")
    if cpu not in cpus:
        shown = ",".join(map(str, cpus))
        raise CpuError(f"CPU {cpu} is not one this process may run on ({shown}); choose one of them or none")


@contextmanager
def pinned(cpu: int | None) -> Iterator[None]:
    """Run the block (and every process it starts) on ``cpu`` alone; None leaves the affinity alone.

    The affinity before is restored afterwards, so a caller that goes on (a test, an embedding program) is not
    left on one CPU.
    """
    if cpu is None:
        yield
        return
    check_cpu(cpu)
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {cpu})
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)
