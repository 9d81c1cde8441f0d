"""Fair play (referee/bots/fairplay.py): each bot in a control group of its own, timed on its own CPU time, frozen
while it is not to move. The attacks of issue 23, each of which made honest bots time out before.

Bounds are counts (timeouts, faults, processes left, CPU time a bot measured itself), never seconds. The honest
bots here need a small share of their time (40 ms of CPU time under a 300 ms deadline), so a loaded machine does
not make them late; without control groups the same tests fail (the attack wins).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from cgroup_helpers import PrivateGroup, private_group
from click.testing import CliRunner
from test_hostile import kierki_in_a_process, needs_bwrap, needs_cgroups, processes_with, settle

from kierki_cli.main import cli
from referee.bots import fairplay
from referee.bots.cgroups import CgroupError, find_cgroups, sweep_stale
from referee.bots.isolation import FairPlayMode, Isolation
from referee.bots.procfs import children
from referee.bots.sandbox import SandboxKind
from referee.bots.time_control import TimeControl
from referee.cpu import choose_cpu, pinned
from referee.match import Match
from referee.match_config import BotSpec, MatchConfig, MatchSpec, RulesetSpec
from referee.rules import Ruleset
from referee.vocabulary.faults import FaultCode
from referee.vocabulary.match_result import MatchResult

FAIR = Path(__file__).parent / "bots" / "fair.py"
# One pytest-xdist worker runs this file's tests (and test_cgroups.py's) one after another: the SIGKILL test counts
# every live spinning child of fair.py on the machine, which another of these tests would otherwise be starting.
pytestmark = pytest.mark.xdist_group("fair_play")
HONEST_MS = 40  # CPU time an honest bot spends on each decision
DEADLINE_MS = 300


def fair_bot(mode: str, *args: str) -> BotSpec:
    return BotSpec((sys.executable, str(FAIR), mode, *args))


def play(
    tmp_path: Path,
    bots: list[BotSpec],
    *,
    move_ms: int,
    sandbox: SandboxKind = "none",
    fair_play: FairPlayMode = "auto",
    freeze: bool = True,
    deals: int | None = 1,
    pin: bool = False,
) -> tuple[Match, MatchResult]:
    config = MatchConfig.from_spec(
        MatchSpec(
            rules=RulesetSpec.of(Ruleset.create("hearts", None, {"target": 30})),
            bots=tuple(bots),
            seed="5",
            time=TimeControl(move_ms=move_ms, startup_ms=10_000),
            isolation=Isolation(sandbox=sandbox, fair_play=fair_play, freeze=freeze),
            deals_per_game=deals,
        ),
        tmp_path / "out",
    )
    match = Match(config)
    with pinned(choose_cpu() if pin else None):
        result = match.run()
    return match, result


def kierki_groups() -> list[str]:
    """The match groups this process made (kierki-<pid namespace>-<pid>-...) that are still there."""
    ours = f"kierki-{os.stat('/proc/self/ns/pid').st_ino}-{os.getpid()}-"
    found = []
    for tree in dict.fromkeys(find_cgroups().dirs.values()):
        found += [str(tree / name) for name in os.listdir(tree) if name.startswith(ours)]
    return found


def timeouts(result: MatchResult, seats: range) -> list[int]:
    return [result.seats[seat].faults.get(FaultCode.TIMEOUT, 0) for seat in seats]


@needs_cgroups
@pytest.mark.parametrize("sandbox", ["none", pytest.param("bwrap", marks=needs_bwrap)])
def test_children_that_leave_the_session_and_spin_cost_the_honest_bots_nothing(
    tmp_path: Path, sandbox: SandboxKind
) -> None:
    """A bot whose 16 children call setsid() and spin for the rest of the game: with control groups it is frozen
    while the others think and its children with it; every process it made is gone with its group at the end."""
    bots = [fair_bot("spinners", "16"), *(fair_bot("think", str(HONEST_MS)) for _ in range(3))]
    _, result = play(tmp_path, bots, move_ms=DEADLINE_MS, sandbox=sandbox)
    assert result.status == "stopped" and result.isolation is not None and result.isolation["clock"] == "cpu"
    assert timeouts(result, range(1, 4)) == [0, 0, 0]
    assert all(seat.faults == {} for seat in result.seats)
    honest = result.seats[1]
    assert honest.decisions > 10 and honest.cpu_ms and honest.cpu_ms[0] >= HONEST_MS * (honest.decisions - 1)
    assert kierki_groups() == []
    assert settle(lambda: processes_with(str(FAIR))) == []


@needs_cgroups
def test_without_freezing_the_spinners_still_cost_the_honest_bots_no_timeout(tmp_path: Path) -> None:
    """--no-freeze: the attacker's group runs all the time, but with the weight of one bot, and each honest bot is
    timed on its own CPU time, so what the children take is not counted against anyone."""
    bots = [fair_bot("spinners", "16"), *(fair_bot("think", str(HONEST_MS)) for _ in range(3))]
    _, result = play(tmp_path, bots, move_ms=DEADLINE_MS, freeze=False)
    assert result.isolation is not None and not result.isolation["freeze"]
    assert timeouts(result, range(1, 4)) == [0, 0, 0]


@needs_cgroups
def test_four_passers_that_each_need_300_ms_of_cpu_pass_in_time_on_one_cpu(tmp_path: Path) -> None:
    """Every seat's pass is asked at once, on the one CPU a match runs on: together they take 1.2 s of it, more than
    the 1000 ms deadline, but each is timed on its own 300 ms."""
    bots = [fair_bot("think", "300", "pass") for _ in range(4)]
    _, result = play(tmp_path, bots, move_ms=1000, pin=True)
    assert [seat.faults for seat in result.seats] == [{}] * 4
    records = [json.loads(line) for line in Path(result.replays[0]).read_text().splitlines()]
    passes = [r for r in records if r["type"] == "pass"]
    assert len(passes) == 4 and all(r["cpu_ms"] >= 300 for r in passes)


@needs_cgroups
def test_a_bot_that_thinks_while_it_is_not_its_turn_gets_no_cpu_then(tmp_path: Path) -> None:
    """The pondering bot measures the CPU time its second thread gets between its answer and its next request: a
    frozen bot gets none (the little it reports is the moment before the referee freezes it and after it thaws).
    With --no-freeze it ponders; every seat stays within its time either way."""
    pondered = {}
    for freeze in (True, False):
        bots = [fair_bot("ponder"), *(fair_bot("think", "20") for _ in range(3))]
        _, result = play(tmp_path / str(freeze), bots, move_ms=1000, freeze=freeze)
        assert [seat.faults for seat in result.seats] == [{}] * 4
        said = (tmp_path / str(freeze) / "out" / "seat0.stderr.log").read_text()
        found = re.search(r"pondered ([0-9.]+) ms over (\d+) gaps", said)
        assert found is not None, said
        pondered[freeze] = float(found[1]) / int(found[2])  # per gap, in which the three others spent 60 ms
    # A frozen bot ponders only in the moment between its answer and the referee's freeze (longer when the machine
    # is busy); a thawed one through the others' 60 ms.
    assert pondered[True] < 3.0 or pondered[True] * 10 < pondered[False], pondered
    assert pondered[False] > pondered[True]


def _referee_in(group: PrivateGroup, out: Path) -> subprocess.Popen[bytes]:
    """A referee in ``group`` of a match whose seat 0 starts two children that leave its session and spin, once they
    spin and a bot is frozen (the moments its end must handle: a frozen bot cannot read the end of its input)."""
    command = [*kierki_in_a_process(), "match", "--game", "hearts", "--seed", "3", "--out", str(out)]
    command += [f"{sys.executable} {FAIR} spinners 2", *([f"{sys.executable} {FAIR} think 0"] * 3)]
    command += ["--time-per-move", "60000"]
    referee = subprocess.Popen(
        group.command(command), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    started = settle(lambda: [] if len(_children_of_spinners()) >= 2 and group.frozen_bots() else [1], rounds=4000)
    assert started == [], "the spinning children never started"
    return referee


def _guardian_of(referee: int) -> int:
    """The referee's guardian: its child that runs ``referee.bots.cgroups.guard``."""
    (guardian,) = [pid for pid in children(referee) or [] if b"cgroups import guard" in _cmdline(pid)]
    return guardian


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


@needs_cgroups
def test_a_referee_that_returns_waits_for_its_guardian_and_leaves_no_process(tmp_path: Path) -> None:
    """A referee that ends normally closes its guardian's pipe and waits for it: when its process has ended, no
    process of its group is left (the guardian outlived it before, and its Popen, collected at exit while the
    guardian still ran, was a ResourceWarning under ``python -X dev``)."""
    with private_group() as group:
        command = [sys.executable, "-X", "dev", *kierki_in_a_process()[1:], "match", "--game", "hearts"]
        command += ["--option", "target=10", "--seed", "3", "--out", str(tmp_path / "out"), "--fair-play", "cgroup"]
        done = subprocess.run(group.command(command), capture_output=True, text=True, timeout=300, check=False)
        assert done.returncode == 0, done.stderr
        assert "ResourceWarning" not in done.stderr, done.stderr
        assert group.processes() == []  # counted at once: the guardian ended before the referee did


@needs_cgroups
def test_a_referee_killed_with_sigkill_leaves_no_bot_its_guardian_removes_them(tmp_path: Path) -> None:
    """A referee killed with SIGKILL cannot remove its groups; its guardian, which sees it end, kills the bots in
    them (the frozen ones thawed so that they die) and the children that left their session, and removes them,
    with no other kierki process's help (in a group of its own, no other match's sweep sees them)."""
    with private_group() as group:
        referee = _referee_in(group, tmp_path / "out")
        referee.kill()
        referee.wait()
        assert settle(group.processes) == []  # the bots, the spinning children and the guardian
        assert group.bot_groups() == [] and _children_of_spinners() == []


@needs_cgroups
def test_a_referee_killed_with_its_guardian_leaves_groups_that_the_next_match_removes(tmp_path: Path) -> None:
    """A referee killed with SIGKILL together with its guardian leaves its groups and what is in them (the children
    that left their session spin on); the next match of the same pid namespace beside them kills and removes them,
    and a match elsewhere (another group: another test's, another worker's) does not touch them."""
    with private_group() as group:
        referee = _referee_in(group, tmp_path / "out")
        os.kill(_guardian_of(referee.pid), signal.SIGKILL)
        referee.kill()
        referee.wait()
        assert sweep_stale(find_cgroups()) >= 0  # a match beside ours, outside the group: removes nothing of it
        left = _children_of_spinners()
        assert len(left) >= 2 and group.bot_groups() != []  # nobody could end them
        assert sweep_stale(group.cgroups) >= 1
        assert settle(_children_of_spinners) == [] and group.bot_groups() == []


def _children_of_spinners() -> list[int]:
    """Live spinning children (they carry the bot's command line: fair.py spinners)."""
    found = []
    for pid in processes_with(str(FAIR)):
        try:
            spinning = b"spinners" in Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if spinning and _session_left(pid):
            found.append(pid)
    return found


def _session_left(pid: int) -> bool:
    try:
        fields = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()
    except OSError:
        return False
    return int(fields[3]) == pid  # its own session: one of the children that called setsid()


# --- where no control group can be made ---------------------------------------------------------------------------


@pytest.fixture
def no_cgroups(monkeypatch: pytest.MonkeyPatch) -> None:
    """This machine as one without control groups (an unprivileged user without delegation)."""

    def nothing(prefer: object = None) -> object:
        raise CgroupError("no cgroup file system is mounted")

    monkeypatch.setattr(fairplay, "find_cgroups", nothing)


@pytest.mark.usefixtures("no_cgroups")
def test_without_control_groups_a_match_says_so_in_one_line_and_cgroup_refuses(tmp_path: Path) -> None:
    args = ["match", "--game", "hearts", "--option", "target=10", "--seed", "some-seed-for-the-test-1"]
    ran = CliRunner().invoke(cli, [*args, "--out", str(tmp_path / "auto")])
    assert ran.exit_code == 0, ran.output
    assert ran.output.count("note: no control groups here (no cgroup file system is mounted)") == 1
    result = json.loads((tmp_path / "auto" / "result.json").read_text())
    assert result["isolation"]["clock"] == "wall" and result["isolation"]["cgroups"] is None
    assert all(seat["cpu_ms"] == [] and seat["cpu_total_ms"] is None for seat in result["seats"])
    refused = CliRunner().invoke(cli, [*args, "--fair-play", "cgroup", "--out", str(tmp_path / "strict")])
    assert refused.exit_code == 1 and "--fair-play cgroup: no control group can be made here" in refused.output
    quiet = CliRunner().invoke(cli, [*args, "--fair-play", "none", "--out", str(tmp_path / "none")])
    assert quiet.exit_code == 0 and "note:" not in quiet.output
    mistaken = CliRunner().invoke(cli, [*args, "--fair-play", "none", "--no-freeze"])
    assert mistaken.exit_code == 2 and "--no-freeze applies to bots in control groups" in mistaken.output


@pytest.mark.usefixtures("no_cgroups")
def test_a_tournament_of_strangers_bots_refuses_to_run_without_control_groups_unless_told(tmp_path: Path) -> None:
    bots = tmp_path / "bots.toml"
    bots.write_text(
        '[[bot]]\nname = "a"\ncommand = "sample:heuristic"\nowner = "alice"\n'
        '[[bot]]\nname = "b"\ncommand = "sample:random"\nowner = "bob"\n'
    )
    args = ["tournament", "--bots", str(bots), "--game", "hearts", "--option", "target=10", "--sets", "1"]
    args += ["--seed", "fair-play-owners-seed-1234", "--jobs", "1", "--sandbox", "none"]
    refused = CliRunner().invoke(cli, [*args, "--out", str(tmp_path / "refused")])
    assert refused.exit_code == 2 and not (tmp_path / "refused").exists()
    assert "2 owners (alice, bob), so each runs in a control group of its own by default" in refused.output
    assert "give --fair-play none" in refused.output  # (told so, it runs: as with --sandbox none, test_tournament)


@needs_cgroups
def test_a_tournament_of_strangers_bots_requires_control_groups_in_every_game(tmp_path: Path) -> None:
    """With control groups here, strangers' games ask for them strictly (a worker without them refuses), and
    each bot's CPU time reaches the standings."""
    bots = tmp_path / "bots.toml"
    bots.write_text(
        '[[bot]]\nname = "a"\ncommand = "sample:heuristic"\nowner = "alice"\n'
        '[[bot]]\nname = "b"\ncommand = "sample:random"\nowner = "bob"\n'
    )
    args = ["tournament", "--bots", str(bots), "--game", "hearts", "--option", "target=10", "--sets", "1"]
    args += ["--seed", "fair-play-owners-seed-1234", "--jobs", "1", "--sandbox", "none", "--json"]
    ran = CliRunner().invoke(cli, [*args, "--out", str(tmp_path / "out")])
    assert ran.exit_code == 0, ran.output
    assert json.loads((tmp_path / "out" / "tournament.json").read_text())["fair_play"] == "cgroup"
    standings = json.loads((tmp_path / "out" / "standings.json").read_text())
    assert all(bot["cpu_ms"] > 0 for bot in standings["bots"])
