"""Where this process's control groups are: the v1 trees and the v2 directory that /proc/self/cgroup and
/proc/self/mountinfo describe, read from their text (no file is opened here: ``cgroups.find_cgroups`` reads them)."""

from __future__ import annotations

from pathlib import Path
from typing import Final, Literal

__all__ = ["V1_NEEDED", "V1_TREES", "CgroupVersion", "Layout", "layout_from"]

CgroupVersion = Literal["v1", "v2"]
V1_TREES: Final = ("cpu", "cpuacct", "memory", "pids", "freezer")
V1_NEEDED: Final = ("cpuacct", "freezer")  # without CPU accounting and the freezer there is no fair play


class Layout:
    """Our own group's directory in each tree: per v1 controller, or the one v2 directory (key "")."""

    __slots__ = ("dirs", "version")

    def __init__(self, version: CgroupVersion, dirs: dict[str, Path]) -> None:
        self.version = version
        self.dirs = dirs


def layout_from(cgroup_text: str, mountinfo_text: str) -> tuple[Layout | None, Layout | None, str]:
    """The v1 and v2 layouts described by /proc/self/cgroup and /proc/self/mountinfo (None where absent), and
    why each missing one is missing."""
    mounts: dict[str, tuple[str, str]] = {}  # v1 controller (or "" for v2) -> (mount root, mount point)
    for line in mountinfo_text.splitlines():
        fields = line.split()
        if " - " not in line or len(fields) < 5:
            continue
        after = line.split(" - ", 1)[1].split()
        if len(after) < 3:
            continue
        fstype, options = after[0], after[2].split(",")
        root, point = fields[3], fields[4].replace("\\040", " ")
        if fstype == "cgroup2":
            mounts.setdefault("", (root, point))
        elif fstype == "cgroup":
            for option in options:
                if option in V1_TREES:
                    mounts.setdefault(option, (root, point))
    v1: dict[str, Path] = {}
    v2: dict[str, Path] = {}
    for line in cgroup_text.splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, path = parts
        names = [""] if controllers == "" else controllers.split(",")
        for name in names:
            mount = mounts.get(name)
            if mount is None:
                continue
            root, point = mount
            if root != "/" and not (path == root or path.startswith(root.rstrip("/") + "/")):
                continue  # our group is outside what this mount shows
            relative = path[len(root) :] if root != "/" else path
            where = Path(point) / relative.lstrip("/")
            (v2 if name == "" else v1)[name] = where
    why = []
    layout1 = None
    missing = [name for name in V1_NEEDED if name not in v1]
    if v1 and not missing:
        layout1 = Layout("v1", v1)
    elif v1:
        why.append(f"cgroup v1 without the {' and '.join(missing)} tree")
    layout2 = Layout("v2", v2) if "" in v2 else None
    if layout1 is None and layout2 is None and not why:
        why.append("no cgroup file system is mounted")
    return layout1, layout2, "; ".join(why)
