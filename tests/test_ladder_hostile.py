"""One entrant cannot stall a ladder: what a hostile bot writes fills only its own space, and what it breaks is
charged to it (issue 37). Each ladder lives on a small tmpfs of its own, so a filled disk is a real one."""

from __future__ import annotations

import dataclasses
import os
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest
import tomli_w
from competition_helpers import tmpfs

import sample_bots
from competition.ladder.config import (
    CONFIG_NAME,
    LADDER_ISOLATION,
    BotSettings,
    LadderConfig,
    RetentionSettings,
    RunSettings,
)
from competition.ladder.disk import RESERVE_NAME
from competition.ladder.ladder import add_bot, init_ladder
from competition.ladder.run import run_ladder
from competition.ladder.store import Store
from referee.bots.fairplay import fair_play_problem
from referee.bots.sandbox import SandboxError, check_bwrap

SAMPLES = Path(sample_bots.__file__).parent
HOSTILE = Path(__file__).parent / "hostile"
DISK_MB = 64
LOGS_MB = 2  # what a run may add to the ladder's disk: its database, the sets' replay and stderr logs


def _bwrap_problem() -> str | None:
    try:
        check_bwrap()
    except SandboxError as error:
        return str(error)
    return None


PROBLEM = _bwrap_problem() or fair_play_problem("cgroup")
needs_sandbox = pytest.mark.skipif(
    PROBLEM is not None, reason=f"ladder init's defaults need bwrap and cgroups: {PROBLEM}"
)


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 64 MB tmpfs of our own with 4,000 inodes, the ladder's disk."""
    with tmpfs(tmp_path / "disk", f"size={DISK_MB}m,nr_inodes=4000") as where:
        yield where


def _used(disk: Path) -> tuple[int, int]:
    """Bytes and inodes in use on the disk, the run's reserve (``competition.ladder.disk``) not counted."""
    stats = os.statvfs(disk)
    reserve = disk / "ladder" / RESERVE_NAME
    reserved = (reserve.stat().st_blocks * 512, 1) if reserve.exists() else (0, 0)
    return (stats.f_blocks - stats.f_bfree) * stats.f_frsize - reserved[0], stats.f_files - stats.f_ffree - reserved[1]


def _ladder(
    disk: Path, tmp_path: Path, *, disk_mb: int | None = None, kind: str = "big", sandbox: str = "bwrap"
) -> tuple[Path, Path]:
    """A ladder on ``disk`` (ladder init's isolation, with ``disk_mb`` and ``sandbox`` when given) of three sample
    bots and a filler, which plays its validation game honestly and misbehaves once the returned marker exists."""
    folder = disk / "ladder"
    limits = (
        LADDER_ISOLATION.limits if disk_mb is None else dataclasses.replace(LADDER_ISOLATION.limits, disk_mb=disk_mb)
    )
    isolation = msgspec.structs.replace(LADDER_ISOLATION, limits=limits, sandbox=sandbox)
    config = LadderConfig(
        game="hearts",
        players=4,
        options={"target": "10"},  # a short game keeps the suite fast
        isolation=isolation,
        run=RunSettings(jobs=2, pin=False, plan_ahead=2),
        bots=BotSettings(validation=False, deactivate_after=2),
        retention=RetentionSettings(min_free_mb=1),  # so that a run starts on so small a disk
    )
    init_ladder(folder, config)
    bots = tmp_path / "bots"  # outside the ladder's disk, readable by the sandbox's user
    bots.mkdir(mode=0o755)
    marker = bots / "misbehave"
    for number, name in enumerate(("heuristic_bot", "random_bot", "heuristic_bot")):
        add_bot(folder, f"b{number}", [sys.executable, str(SAMPLES / f"{name}.py")], cwd=tmp_path, owner=f"o{number}")
    settings = tomllib.loads((folder / CONFIG_NAME).read_text())
    settings["bots"]["validation"] = True  # the filler plays its validation game, and honestly: it is accepted
    (folder / CONFIG_NAME).write_text(tomli_w.dumps(settings))
    filler = [sys.executable, str(HOSTILE / "fill_home.py"), "1", str(marker), kind]
    add_bot(folder, "filler", filler, cwd=tmp_path, owner="mallory")
    marker.touch()
    return folder, marker


def _stderr_logs(folder: Path) -> str:
    return "".join(log.read_text(errors="replace") for log in sorted((folder / "sets").glob("*/*.stderr.log")))


@needs_sandbox
def test_a_bot_filling_its_home_fills_only_its_own_tmpfs_and_the_ladder_plays_on(
    small_disk: Path, tmp_path: Path
) -> None:
    """ladder init's defaults: the filler's writes stop at its own tmpfs (ENOSPC), no set is voided, nothing of it is
    left on the ladder's disk. On 2d5db07 every set was voided: its files filled the disk the replay logs go to."""
    folder, _ = _ladder(small_disk, tmp_path)
    before = _used(small_disk)
    report = run_ladder(folder, sets=2)
    assert (report.sets_played, report.sets_voided) == (2, 0), report.voided
    filled = "filled: 5 big files, then No space left on device"  # 256 MB, in each game of the 2 sets
    assert _stderr_logs(folder).count(filled) == 8
    after = _used(small_disk)
    assert after[0] - before[0] < LOGS_MB * 1024 * 1024 and after[1] - before[1] < 100
    with Store.open(folder / "ladder.sqlite") as store:
        assert [bot.status for bot in store.bots()] == ["active"] * 4  # its own space was full: no harm, no charge


@needs_sandbox
@pytest.mark.parametrize(("kind", "sandbox"), [("big", "bwrap"), ("small", "none")])
def test_a_bot_whose_files_fill_the_ladders_disk_is_charged_and_deactivated(
    small_disk: Path, tmp_path: Path, kind: str, sandbox: str
) -> None:
    """disk_mb = 0 or no sandbox (its private directory a folder on the ladder's disk): the filler fills that disk
    with large files, or with empty ones (its inodes). Each game it breaks is played again without it, so its sets
    are played, not voided, and after ``bots.deactivate_after`` (here 2) such sets it is deactivated with the reason;
    its files are gone. On 2d5db07 every set was voided and the filler never charged."""
    folder, _ = _ladder(small_disk, tmp_path, disk_mb=0, kind=kind, sandbox=sandbox)
    before = _used(small_disk)
    report = run_ladder(folder, sets=4)
    assert (report.sets_played, report.sets_voided) == (2, 0), report.voided
    assert report.stop_reason.startswith("nothing to play: 3 active bots for 4 seats")
    (reason,) = report.deactivated.values()
    assert list(report.deactivated) == ["filler@1"]
    assert (
        reason.startswith("2 sets in a row failed; the last: forfeited game")
        and "filled the disk: its private directory held" in reason
    ), reason
    with Store.open(folder / "ladder.sqlite") as store:
        games = [game for record in store.results() for game in record.games]
        # Charged in a game of each set at least: a set's games are played two at a time, and a game whose filler
        # found the disk full already (the other game's) and emptied again before its log needed it was not harmed.
        filler = [[game.forfeited[game.seats.index("filler@1")] for game in record.games] for record in store.results()]
        assert len(filler) == 2 and all(len(charged) == 4 and any(charged) for charged in filler), filler
        wronged = [
            (game.index, name, game.faults[seat], game.start_failed[seat])
            for game in games
            for seat, name in enumerate(game.seats)
            if name != "filler@1" and game.forfeited[seat]
        ]
        assert wronged == [], (wronged, _stderr_logs(folder)[-3000:])
    after = _used(small_disk)
    assert after[0] - before[0] < LOGS_MB * 1024 * 1024 and after[1] - before[1] < 100


@needs_sandbox
def test_a_bot_that_passed_validation_and_then_fails_every_start_is_deactivated(
    small_disk: Path, tmp_path: Path
) -> None:
    """Accepted, then it exits at every ``hello``: its seats are forfeited (the sets played, not voided) and after
    ``bots.deactivate_after`` sets it is deactivated, the reason its author reads saying so."""
    folder, _ = _ladder(small_disk, tmp_path, kind="exit")
    report = run_ladder(folder, sets=4)
    assert (report.sets_played, report.sets_voided) == (2, 0), report.voided
    assert list(report.deactivated) == ["filler@1"]
    assert report.deactivated["filler@1"].startswith("2 sets in a row failed; the last: could not start: seat ")
