"""Kernel resource limits for a bot process, resolved in the referee and in force before the bot's first instruction.

``spawn.py`` starts the bot; this module says which limits that takes and how they are applied: by starting the
bot through util-linux's ``prlimit`` program (``prlimit_prefix``: it sets the limits on itself, then execs the
bot in place, same pid), or, where that program is missing and the referee has one thread, with ``setrlimit`` in
``preexec_fn`` between fork and exec. Both are race-free, and the limits are inherited by whatever the bot starts
(bubblewrap's sandboxed child included). The program is preferred: it needs no fork of the referee's Python
process (``subprocess`` can then use ``vfork``) and works in a threaded process, where ``preexec_fn`` is unsafe.
"""

from __future__ import annotations

import os
import resource
import shutil
import threading
from collections.abc import Callable

import msgspec

__all__ = [
    "LIMIT_FIELDS",
    "ResourceLimits",
    "limit_pairs",
    "prlimit_prefix",
    "prlimit_program",
    "setrlimits",
    "single_threaded",
]


class ResourceLimits(msgspec.Struct, frozen=True):
    """Kernel limits for the bot process; ``None`` leaves that limit as the referee's own."""

    memory_bytes: int | None = None  # RLIMIT_AS: address space, so allocations fail early
    cpu_seconds: int | None = None  # RLIMIT_CPU: SIGXCPU/SIGKILL when CPU time runs out
    processes: int | None = None  # RLIMIT_NPROC: per user, ignored for root
    file_bytes: int | None = None  # RLIMIT_FSIZE: largest file the bot may write
    core_bytes: int | None = None  # RLIMIT_CORE: 0 stops a crashing bot from writing a core file


LIMIT_FIELDS = (
    ("memory_bytes", resource.RLIMIT_AS),
    ("cpu_seconds", resource.RLIMIT_CPU),
    ("processes", resource.RLIMIT_NPROC),
    ("file_bytes", resource.RLIMIT_FSIZE),
    ("core_bytes", resource.RLIMIT_CORE),
)
_PRLIMIT_OPTIONS = {
    resource.RLIMIT_AS: "--as",
    resource.RLIMIT_CPU: "--cpu",
    resource.RLIMIT_NPROC: "--nproc",
    resource.RLIMIT_FSIZE: "--fsize",
    resource.RLIMIT_CORE: "--core",
}


def limit_pairs(limits: ResourceLimits | None) -> list[tuple[int, int, int]]:
    """Resolve limits in the parent, so the child only makes setrlimit calls: (resource, soft, hard).

    A value above our own hard limit is clamped to it: raising a hard limit needs privileges,
    and asking for more than the referee has is not a reason to refuse to start. The CPU
    limit's hard value is one second above the soft one, so a bot first gets SIGXCPU (which
    says what happened, and which it may catch to exit cleanly) and SIGKILL only after that.
    """
    if limits is None:
        return []
    pairs = []
    for name, res in LIMIT_FIELDS:
        value: int | None = getattr(limits, name)
        if value is None:
            continue
        ours = resource.getrlimit(res)[1]
        hard = value + 1 if res == resource.RLIMIT_CPU else value
        if ours != resource.RLIM_INFINITY:
            value, hard = min(value, ours), min(hard, ours)
        pairs.append((res, value, hard))
    return pairs


def single_threaded() -> bool:
    """Count kernel tasks, not just Python threads: native libraries start threads too."""
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:
        return threading.active_count() == 1


def setrlimits(pairs: list[tuple[int, int, int]]) -> Callable[[], None]:
    def apply() -> None:
        for res, soft, hard in pairs:
            resource.setrlimit(res, (soft, hard))

    return apply


def prlimit_program() -> str | None:
    """The path of util-linux's ``prlimit``, or None where it is not installed."""
    return shutil.which("prlimit")


def prlimit_prefix(program: str, pairs: list[tuple[int, int, int]]) -> list[str]:
    """The words that start a command under ``pairs``: ``prlimit --as=SOFT:HARD ... --`` (then the command)."""

    def value(limit: int) -> str:
        return "unlimited" if limit == resource.RLIM_INFINITY else str(limit)

    return [program, *(f"{_PRLIMIT_OPTIONS[res]}={value(soft)}:{value(hard)}" for res, soft, hard in pairs), "--"]
