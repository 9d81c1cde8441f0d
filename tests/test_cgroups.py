"""The control-group backends (referee/bots/cgroups.py): the layout read from /proc, v2 on a fake tree (the files a
kernel with every controller would show), and both versions on this machine's real trees where it has them.

This machine has cgroup v1 with every controller and an empty cgroup2 tree beside it: the v2 backend is run on
that for real (joining, freezing, CPU time, cgroup.kill; no memory, pids or cpu controller there), and its
limits are checked on the fake tree. Nothing here waits on a clock: a frozen group's CPU time is compared across
reads, a thawed one is waited for by a bounded loop.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import time
import typing
from pathlib import Path

import pytest
from cgroup_helpers import private_group
from test_hostile import settle

from protocol import codec
from protocol import messages as m
from referee.bots import cgroups
from referee.bots.cgroup_layout import CgroupVersion, layout_from
from referee.bots.cgroups import CgroupError, find_cgroups
from referee.bots.process import BotProcess
from referee.bots.seat import BotSeat
from referee.bots.time_control import TimeControl

FAIR = Path(__file__).parent / "bots" / "fair.py"
# On the pytest-xdist worker of test_fair_play.py, whose SIGKILL test counts every spinning child of fair.py.
pytestmark = pytest.mark.xdist_group("fair_play")

PURE_V2 = (
    "0::/user.slice/user-1000.slice/user@1000.service/app.slice/kierki.scope\n",
    "30 23 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate\n",
)
V1_COMOUNTED = (
    "5:cpu,cpuacct:/\n4:memory:/batch\n3:freezer:/\n2:pids:/\n1:name=systemd:/\n0::/\n",
    "32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n"
    "35 31 0:32 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n"
    "37 31 0:34 / /sys/fs/cgroup/freezer rw - cgroup cgroup rw,freezer\n"
    "39 31 0:36 / /sys/fs/cgroup/pids rw - cgroup cgroup rw,pids\n",
)


def test_the_layout_is_read_from_proc_self_cgroup_and_mountinfo() -> None:
    v1, v2, why = layout_from(*PURE_V2)
    assert v1 is None and why == ""
    assert v2 is not None and v2.dirs == {
        "": Path("/sys/fs/cgroup/user.slice/user-1000.slice/user@1000.service/app.slice/kierki.scope")
    }
    v1, v2, _ = layout_from(*V1_COMOUNTED)
    assert v2 is None and v1 is not None  # a 0:: line but no cgroup2 mount: no v2
    assert v1.dirs["cpu"] == v1.dirs["cpuacct"] == Path("/sys/fs/cgroup/cpu,cpuacct")  # one tree, two controllers
    assert v1.dirs["memory"] == Path("/sys/fs/cgroup/memory/batch")
    # A container's mount shows only its own part of the tree: paths are relative to the mount's root.
    inside = ("0::/docker/abc/inner\n", "30 23 0:26 /docker/abc /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n")
    assert layout_from(*inside)[1].dirs == {"": Path("/sys/fs/cgroup/inner")}  # type: ignore[union-attr]
    no_freezer = ("2:cpuacct:/\n", "33 31 0:30 / /sys/fs/cgroup/cpuacct rw - cgroup cgroup rw,cpuacct\n")
    assert layout_from(*no_freezer) == (None, None, "cgroup v1 without the freezer tree")


class FakeKernel:
    """What the kernel does with the files ``cgroups`` writes, on a plain directory tree: a new group's files,
    cgroup.subtree_control's +controller words, a pid written to cgroup.procs moving there."""

    FILES: typing.ClassVar = {"cgroup.procs": "", "cgroup.freeze": "0", "cgroup.kill": "", "cgroup.type": "domain\n"}

    def __init__(self, root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.root = root
        self.writes: list[tuple[str, str]] = []
        monkeypatch.setattr(cgroups, "_make_dir", self.make_dir)
        monkeypatch.setattr(cgroups, "_write", self.write)
        monkeypatch.setattr(cgroups, "_rmdir", shutil.rmtree)

    def make_dir(self, path: Path, controllers: str = "") -> None:
        path.mkdir()
        parent = (path.parent / "cgroup.subtree_control").read_text() if path != self.root else controllers
        files = {**self.FILES, "cgroup.controllers": parent, "cgroup.subtree_control": ""}
        files["cpu.stat"] = "usage_usec 1500\nuser_usec 1000\nsystem_usec 500\n"
        files["memory.events"] = "low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n"
        for name, text in files.items():
            (path / name).write_text(text)

    def write(self, path: Path, text: str) -> None:
        self.writes.append((path.name, text))
        if path.name == "cgroup.subtree_control":
            enabled = set(path.read_text().split())
            for word in text.split():
                (enabled.add if word[0] == "+" else enabled.discard)(word[1:])
            path.write_text(" ".join(sorted(enabled)))
        elif path.name == "cgroup.procs":
            for procs in self.root.rglob("cgroup.procs"):  # a process is in one group only
                procs.write_text(" ".join(p for p in procs.read_text().split() if p != text))
            path.write_text(path.read_text() + text + "\n")
        else:
            path.write_text(text)


def test_v2_on_a_delegated_tree_moves_the_referee_into_a_leaf_and_limits_each_bot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A delegated group (systemd's Delegate=yes) holding only the referee: it moves into kierki-referee so that
    its group may give the cpu, memory and pids controllers to the bots' groups; each bot's group gets its
    memory limit without swap, the whole group killed together on out of memory, its pids.max."""
    kernel = FakeKernel(tmp_path / "scope", monkeypatch)
    kernel.make_dir(kernel.root, "cpu io memory pids")
    (kernel.root / "cgroup.procs").write_text(f"{os.getpid()}\n")
    found = cgroups._v2(kernel.root)
    assert found.version == "v2" and found.controls == {"cpu", "memory", "pids"}
    assert (kernel.root / "kierki-referee" / "cgroup.procs").read_text().split() == [str(os.getpid())]
    assert (kernel.root / "cgroup.procs").read_text().split() == []
    assert (kernel.root / "cgroup.subtree_control").read_text().split() == ["cpu", "memory", "pids"]
    # The next kierki process (a tournament's worker) starts in the leaf and finds the same place.
    assert cgroups._v2(kernel.root / "kierki-referee").dirs == {"": kernel.root}

    match = found.open_match()
    group = match.bot("seat0", memory_bytes=256 << 20, processes=64)
    folder = kernel.root / match.name / "seat0"
    assert (kernel.root / match.name / "cgroup.subtree_control").read_text().split() == ["cpu", "memory", "pids"]
    assert group.join_files == (str(folder / "cgroup.procs"),)
    assert (folder / "memory.max").read_text() == str(256 << 20)
    assert (folder / "memory.swap.max").read_text() == "0" and (folder / "memory.oom.group").read_text() == "1"
    assert (folder / "pids.max").read_text() == "64"
    assert group.cpu_ns() == 1_500_000 and group.oom_kills() == 1
    group.freeze()
    group.thaw()
    assert (folder / "cgroup.freeze").read_text().endswith("10")  # the kept handle wrote 1, then 0
    group.remove()
    assert ("cgroup.kill", "1") in kernel.writes and not folder.exists()
    match.close()
    assert not (kernel.root / match.name).exists()


def test_v2_beside_other_processes_gives_freezing_and_cpu_time_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The referee shares its group with another process (a shell): it cannot take the controllers from it, so
    the bots' groups freeze and count CPU time, and the per-process limits stay (``controls`` is empty)."""
    kernel = FakeKernel(tmp_path / "shared", monkeypatch)
    kernel.make_dir(kernel.root, "cpu memory pids")
    (kernel.root / "cgroup.procs").write_text(f"1\n{os.getpid()}\n")
    found = cgroups._v2(kernel.root)
    assert found.controls == frozenset()
    assert (kernel.root / "cgroup.procs").read_text().split() == ["1", str(os.getpid())]  # nobody moved
    group = found.open_match().bot("seat0", memory_bytes=256 << 20, processes=64)
    assert group.memory_bytes is None and group.processes is None


def test_a_tree_the_user_cannot_write_is_no_cgroup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "access", lambda path, mode: False)
    with pytest.raises(CgroupError, match="not writable by this user"):
        cgroups._v2(tmp_path)


def _real(version: CgroupVersion) -> cgroups.Cgroups:
    try:
        found = find_cgroups(version)
    except CgroupError as error:
        pytest.skip(f"no cgroups here: {error}")
    if found.version != version:
        pytest.skip(f"no cgroup {version} tree this process may use here")
    return found


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_every_process_a_bot_makes_is_in_its_group_frozen_counted_and_killed_with_it(version: CgroupVersion) -> None:
    """The bot joins its group before its first instruction; children that leave its session stay in it; frozen,
    its CPU time does not move; the end kills them all and removes the group (and the match's)."""
    match = _real(version).open_match()
    group = match.bot("seat0")
    argv = [sys.executable, str(FAIR), "spinners", "2"]
    bot = BotProcess.start(argv, cwd=Path.cwd(), env=None, stderr_log=Path(os.devnull), cgroup=group)
    try:
        bot.send(codec.encode(_hello(1)))
        line = bot.read_line(time.monotonic() + 60)
        assert b'"hello"' in getattr(line, "data", b"")
        assert settle(lambda: [] if len(group.members()) >= 3 else [1], rounds=2000) == []  # the bot and 2 spinners
        left = settle(lambda: [pid for pid in group.members() if pid != bot.pid and _session(pid) == bot.pid])
        assert left == []  # the children left its session, and are in its group
        bot.freeze()
        assert settle(lambda: [] if group.is_frozen() else [1], rounds=2000) == []
        frozen = group.cpu_ns()
        for _ in range(200):  # some work of ours while it is frozen
            group.members()
        assert group.cpu_ns() == frozen
        bot.thaw()
        assert settle(lambda: [] if group.cpu_ns() > frozen else [1], rounds=2000) == []
    finally:
        bot.terminate(0)
    assert group.removed and not group.path.exists() and bot.cpu_ns() > 0  # its last CPU time is kept
    match.close()
    assert all(not path.exists() for path in match.dirs().values())


# A referee that ends without a word (``os._exit``: a Dask worker whose nanny's pipe closed; SIGKILL is the same to
# the kernel) while its bot, which has a child that left its session and spins, is frozen.
_ENDS_WITH_ITS_BOT_FROZEN = """
import os, sys
from pathlib import Path
from referee.bots.cgroups import find_cgroups
from referee.bots.process import BotProcess

match = find_cgroups(sys.argv[1]).open_match()
group = match.bot("seat0")
spinner = 'setsid /bin/sh -c "while :; do :; done" </dev/null >/dev/null 2>&1 & exec cat'
BotProcess.start(["/bin/sh", "-c", spinner], cwd=Path.cwd(), env=None, stderr_log=Path(os.devnull), cgroup=group)
while len(group.members()) < 2:
    pass
group.freeze()
while not group.is_frozen():
    pass
print(" ".join(map(str, group.members())), match.name, flush=True)
os._exit(1)
"""


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_a_referee_that_ends_without_a_word_leaves_no_bot_its_guardian_removes_its_groups(
    version: CgroupVersion,
) -> None:
    """The referee's guardian sees it end and kills its frozen bot and the bot's child, and removes the groups, with
    no other process's help (in a group of its own, no other match's sweep sees them)."""
    _real(version)
    with private_group(version) as group:
        ended = subprocess.run(
            group.command([sys.executable, "-c", _ENDS_WITH_ITS_BOT_FROZEN, version]), capture_output=True, check=False
        )
        assert ended.returncode == 1, ended.stderr
        *pids, name = ended.stdout.split()
        assert len(pids) >= 2
        assert settle(lambda: [pid for pid in map(int, pids) if _running(pid)], rounds=4000) == []
        assert settle(lambda: [1] if group.processes() else [], rounds=4000) == []  # the guardian ended too
        assert all(not (path / name.decode()).exists() for path in group.cgroups.dirs.values())


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in (b"Z", b"X")


def _hello(request_id: int) -> m.HelloRequest:
    return m.HelloRequest(
        id=request_id, protocol=1, game="hearts", players=4, seat=0, options={}, time=TimeControl().to_wire(), games=1
    )


def _session(pid: int) -> int:
    fields = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()
    return int(fields[3])


def test_a_frozen_bot_with_a_full_pipe_does_not_hold_up_the_referee() -> None:
    """Events for a frozen bot (the end of a game) go into its pipe as far as it has room; the rest waits in the
    referee's buffer instead of the referee waiting for the bot, and reaches it with its next request."""
    found = _real(find_cgroups().version)
    match = found.open_match()
    bot = BotProcess.start(
        [sys.executable, str(FAIR), "think", "0"],
        cwd=Path.cwd(),
        env=None,
        stderr_log=Path(os.devnull),
        cgroup=match.bot("seat0"),
    )
    seat = BotSeat(0, bot, TimeControl(startup_ms=60_000))
    seat.freeze = True
    try:
        bot.freeze()
        event = b'{"type":"note","pad":"' + b"x" * 1000 + b'"}\n'
        for _ in range(300):  # 300 KB: several times what a pipe holds
            seat.queue_encoded(event)
        done = threading.Event()

        def flush() -> None:
            seat.flush(timeout_s=3600)
            done.set()

        flusher = threading.Thread(target=flush)
        flusher.start()
        flusher.join(120)  # a guard against a hang of an hour, not a measurement
        assert done.is_set(), "flushing to a frozen bot waited for it"
        assert bot.unread_input_bytes() > 200_000  # still ours and in its pipe: it has read nothing
        hello = _hello(seat.new_id())
        reply = seat.converse(hello, timeout_s=60.0, startup=True)
        assert isinstance(reply.answer, m.HelloAnswer)  # thawed, it read the 300 events, then the request
        assert bot.frozen  # and is frozen again once it answered
    finally:
        bot.terminate(0)
        match.close()


def test_a_stale_group_left_half_removed_is_swept_without_its_freezer() -> None:
    """A referee killed while it removed its groups can leave one in some hierarchies only; the next match's sweep
    kills what is in it and removes it instead of failing on the missing freezer (every match failed so)."""
    found = _real("v1")
    if "memory" not in found.dirs or "freezer" not in found.dirs or found.dirs["memory"] == found.dirs["freezer"]:
        pytest.skip("needs separate v1 memory and freezer hierarchies")
    dead = 2**22 - 3  # a pid no process has: its referee is gone
    name = f"kierki-{cgroups._pidns()}-{dead}-1-0"
    group = found.dirs["memory"] / name
    (group / "seat0").mkdir(parents=True)
    try:
        assert cgroups.sweep_stale(found) >= 1
        assert not group.exists()
    finally:
        for path in (group / "seat0", group):
            if path.exists():
                path.rmdir()
