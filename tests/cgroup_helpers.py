"""A control group of a test's own, to run a referee in whose groups the test counts after killing it.

Every match removes the groups of dead referees that it finds beside its own (``sweep_stale``): a match of another
test, of another pytest-xdist worker or of another run on the machine would remove what a test left on purpose to
count, at any moment. Started inside a group of its own (``PrivateGroup.command``), a referee makes its groups
there, where only a sweep of ``PrivateGroup.cgroups`` looks; what it leaves is the test's alone to count and
remove.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path

from referee.bots.cgroup_layout import CgroupVersion
from referee.bots.cgroups import Cgroups, find_cgroups

__all__ = ["PrivateGroup", "private_group"]

# Joins every group file named before "--" and runs the rest (as the bots' spawn wrapper joins theirs).
_JOIN = 'while [ "$1" != -- ]; do echo $$ >"$1" || exit 125; shift; done; shift; exec "$@"'


class PrivateGroup:
    """A group beside ours in each tree: ``cgroups`` is what a referee started in it makes its groups in."""

    def __init__(self, cgroups: Cgroups) -> None:
        self.cgroups = cgroups

    def command(self, argv: Sequence[str]) -> list[str]:
        """``argv`` run in this group (and everything it starts, unless it moves)."""
        joins = [str(path / "cgroup.procs") for path in self.cgroups._trees()]
        return ["/bin/sh", "-c", _JOIN, "sh", *joins, "--", *argv]

    def bot_groups(self) -> list[Path]:
        """The bots' groups in it now (the groups of its matches' groups), where frozen is read."""
        freezer = self.cgroups.dirs.get("freezer", self.cgroups.dirs.get(""))
        assert freezer is not None
        return sorted(
            bot for match in freezer.glob("kierki-*") if match.is_dir() for bot in match.iterdir() if bot.is_dir()
        )

    def frozen_bots(self) -> int:
        """How many bots' groups in it are frozen now (the anchor of a v1 match, which holds nothing, excluded)."""
        frozen = 0
        for group in self.bot_groups():
            if group.name == "anchor":
                continue
            with contextlib.suppress(OSError):
                state = group / "freezer.state"
                if state.exists():
                    frozen += state.read_text().strip() == "FROZEN"
                else:
                    frozen += "frozen 1" in (group / "cgroup.events").read_text().splitlines()
        return frozen

    def processes(self) -> list[int]:
        """Every live process in the group and its descendants (the referee, its guardian, bots, workers)."""
        pids: set[int] = set()
        for top in self.cgroups._trees():
            for folder, _, _ in os.walk(top):
                with contextlib.suppress(OSError):
                    pids.update(int(pid) for pid in (Path(folder) / "cgroup.procs").read_text().split())
        return sorted(pids)


@contextlib.contextmanager
def private_group(prefer: CgroupVersion | None = None) -> Iterator[PrivateGroup]:
    """A new group beside ours in each tree (of version ``prefer`` where there is one), emptied (its processes
    killed, frozen ones thawed) and removed after."""
    ours = find_cgroups(prefer)
    name = f"kierki-test-{uuid.uuid4().hex[:12]}"  # no referee's name: no sweep outside it removes it
    dirs = {key: path / name for key, path in ours.dirs.items()}
    made = []
    try:
        for path in dict.fromkeys(dirs.values()):
            path.mkdir()
            made.append(path)
        yield PrivateGroup(Cgroups(ours.version, dirs, frozenset()))
    finally:
        for top in made:
            _empty_and_remove(top)


def _empty_and_remove(top: Path) -> None:
    """Kill every process under ``top`` (thawing what is frozen, which dies only then under v1), remove its groups
    from the leaves up."""
    for folder, _, _ in sorted(os.walk(top), key=lambda entry: -len(Path(entry[0]).parts)):
        group = Path(folder)
        for _ in range(1000):  # bounded looks: SIGKILL is asynchronous
            with contextlib.suppress(OSError):
                for pid in (group / "cgroup.procs").read_text().split():
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(int(pid), signal.SIGKILL)
            for thaw, text in (("freezer.state", "THAWED"), ("cgroup.freeze", "0")):
                with contextlib.suppress(OSError):
                    (group / thaw).write_text(text)
            try:
                group.rmdir()
                break
            except FileNotFoundError:
                break
            except OSError:
                time.sleep(0.002)
