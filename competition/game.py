"""One game of a duplicate set as plain data, and the one function that plays it: `GameSpec` -> `play_game`.

Every executor ships a `GameSpec` to a worker (the local pool to its processes, `competition.runner`; Dask to
workers on any machine, `competition.remote`) and gets a `GameOutcome` back, plain data both. `play_game` plays
the game with the ordinary referee (a one-game `referee.match.Match`, its bots started afresh) in a folder it is
given, and names the files the game left there by the names they take in the set's folder: its replay log and each
seat's stderr log and transcript when they hold anything. A worker on this machine moves them there
(`play_here`); a remote worker sends their bytes, which the coordinator writes (`competition.remote.deliver`).
"""

from __future__ import annotations

import errno
import os
import shutil
import time
from collections.abc import Mapping
from pathlib import Path

import msgspec

from competition.model import GameRecord, SeatAnalysis
from referee.api import (
    HOG_BYTES,
    HOG_FILES,
    AnalysisSettings,
    DiskFullError,
    Match,
    MatchConfig,
    MatchResult,
    MatchSetupError,
    MatchSpec,
    SeatFilledDisk,
)

__all__ = ["GameOutcome", "GameSpec", "game_record", "game_stem", "play_game", "play_here"]


class GameSpec(msgspec.Struct, frozen=True, kw_only=True):
    """One game of a set: the match it is (one game), who sits where, and where the set's files go.

    The run's folder ``root`` (a tournament's OUT, a ladder's DIR) is the coordinator's: a worker there plays in
    ``work_dir`` and moves the files into ``partial_dir``, the set's folder while it is played; ``set_dir`` is the
    set's folder once finished, relative to ``root`` (the record names the replay log by it)."""

    set_id: int
    index: int  # 0-based: the rotation it plays in its set
    names: tuple[str, ...]  # bot name per seat
    match: MatchSpec  # one game: its seed is the set's, its bots the names' own
    root: Path
    set_dir: str  # e.g. "sets/0001"
    analysis: AnalysisSettings | None = None  # analyse the game once played (``kierki tournament --analyse``)

    def __post_init__(self) -> None:
        if self.match.games != 1:
            raise ValueError(f"a set's game is one game, not {self.match.games}")
        if len(self.names) != len(self.match.bots):
            raise ValueError(f"{len(self.names)} names for {len(self.match.bots)} bots")

    @property
    def stem(self) -> str:
        return game_stem(self.index)

    @property
    def partial_dir(self) -> Path:
        return self.root / f"{self.set_dir}.partial"

    @property
    def final_dir(self) -> Path:
        return self.root / self.set_dir

    @property
    def work_dir(self) -> Path:
        """Where a worker on the coordinator's machine plays it (the run removes ``root/work`` as it starts)."""
        return self.root / "work" / f"{Path(self.set_dir).name}-{self.stem}"


class GameOutcome(msgspec.Struct, frozen=True, kw_only=True):
    """What a worker sends back: the game's record, or why it could not be played (a configuration the referee
    refused: the run stops, no bot is blamed)."""

    set_id: int
    index: int
    record: GameRecord | None = None
    start_failures: tuple[str | None, ...] = ()  # per seat: why its bot could not start (None: it started)
    # per seat: what its bot broke that stopped the game (it filled the disk), which was then played again without
    # it, its seat forfeited (None: nothing; empty: no seat)
    charged: tuple[str | None, ...] = ()
    error: str | None = None


def game_stem(index: int) -> str:
    """The start of the names of a set's game's files (index 0-based) in the set's folder: ``game3.replay.jsonl``,
    ``game3.seat2.stderr.log``."""
    return f"game{index + 1}"


def play_game(spec: GameSpec, folder: Path) -> tuple[GameOutcome, dict[str, Path]]:
    """Play the game in ``folder`` (the bots' private folders and logs go there) and return its outcome and the
    files it left, each under its name in the set's folder (``game3.replay.jsonl``, ``game3.seat1.stderr.log``,
    ``game3.seat1.transcript.log``; a log is left out when it is empty: most bots write nothing to stderr)."""
    match = spec.match
    charged: dict[int, str] = {}
    waits = 0
    while True:
        try:
            result = Match(MatchConfig.from_spec(match, folder)).run()
        except SeatFilledDisk as filled:
            # One bot stopped the game (its files filled the disk): it is charged, its files go, and the game is
            # played again from its start with its seat forfeited, so the others' game is not lost with it. Each
            # round leaves one more seat out, so this ends.
            charged[filled.bot] = filled.reason
            shutil.rmtree(folder, ignore_errors=True)
            absent = (*match.absent, (filled.bot, f"charged: it {filled.reason}"))
            match = msgspec.structs.replace(match, absent=absent)
            continue
        except DiskFullError as error:
            # A full disk that no seat of this game holds: a game played beside it (the same set's, on this disk)
            # may hold it and be about to be charged for it. Played again once the space is back, a few times.
            waits += 1
            if waits > len(spec.names) or not _space_returns(folder.parent):
                return GameOutcome(set_id=spec.set_id, index=spec.index, error=str(error)), {}
            shutil.rmtree(folder, ignore_errors=True)
            continue
        except MatchSetupError as error:
            return GameOutcome(set_id=spec.set_id, index=spec.index, error=str(error)), {}
        break
    files = {f"{spec.stem}.replay.jsonl": Path(result.replays[0])}
    for seat in range(len(spec.names)):
        for kind in ("stderr", "transcript"):
            log = folder / f"seat{seat}.{kind}.log"
            if log.exists() and log.stat().st_size:
                files[f"{spec.stem}.seat{seat}.{kind}.log"] = log
    record, failures = game_record(spec, result, charged)
    if spec.analysis is not None:
        analysed = analyse_game(files[f"{spec.stem}.replay.jsonl"], spec.analysis)
        record = msgspec.structs.replace(record, analysis=analysed)
    said = tuple(charged.get(seat) for seat in range(len(spec.names))) if charged else ()
    outcome = GameOutcome(set_id=spec.set_id, index=spec.index, record=record, start_failures=failures, charged=said)
    return outcome, files


SPACE_WAIT_S = 5.0  # how long a game stopped by a full disk that is not its doing waits for the space to return


def _space_returns(folder: Path) -> bool:
    """Whether the disk under ``folder`` has a bot's worth of space free (`referee.bots.disk_use.HOG_BYTES` and
    ``HOG_FILES``) within
    `SPACE_WAIT_S` (polled: the space comes back when another game's process removes its charged bot's files)."""
    deadline = time.monotonic() + SPACE_WAIT_S
    while True:
        try:
            disk = os.statvfs(folder)
        except OSError:
            return False
        # A bot's worth of bytes and of entries: a bot that fills the disk with empty files takes its inodes.
        if disk.f_bavail * disk.f_frsize >= 2 * HOG_BYTES and (disk.f_files == 0 or disk.f_favail >= 2 * HOG_FILES):
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.1)


def _make_set_dir(spec: GameSpec) -> None:
    """The set's folder, for the game's files: on a disk that a bot of a game played beside this one has filled
    (blocks or entries) the mkdir waits for the space to return, as a game does (`play_game`), a few times."""
    for attempt in range(len(spec.names) + 1):
        try:
            spec.partial_dir.mkdir(parents=True, exist_ok=True)
            return
        except OSError as error:
            full = error.errno in (errno.ENOSPC, errno.EDQUOT)
            if not full or attempt == len(spec.names) or not _space_returns(spec.root):
                raise


def analyse_game(log: Path, settings: AnalysisSettings) -> tuple[SeatAnalysis | None, ...]:
    """Each seat's figures from ``kierki analyse`` of the game's log, in the worker that played it; nothing when
    the log cannot be analysed (the game's record still counts: the analysis is an extra)."""
    from referee.api import ReplayError, analyse_log
    from referee.rules import RulesError

    try:
        summary = analyse_log(log, settings).summary
    except (ReplayError, RulesError, ValueError):  # a log or a position the search cannot take: no figures
        return ()
    by_seat = {s.seat: s for s in summary.seats}
    return tuple(
        SeatAnalysis(
            decisions=row.decisions,
            loss=row.total_loss,
            largest=tuple((item.decision, item.loss, item.grade) for item in row.largest),
        )
        if (row := by_seat.get(seat)) is not None
        else None
        for seat in range(max(by_seat, default=-1) + 1)
    )


def play_here(spec: GameSpec) -> GameOutcome:
    """Play the game on the coordinator's machine: in its work folder, its files moved into the set's folder, the
    rest (the bots' private folders) removed."""
    outcome, files = play_game(spec, spec.work_dir)
    if files:
        _make_set_dir(spec)
    for name, path in files.items():
        os.replace(path, spec.partial_dir / name)
    shutil.rmtree(spec.work_dir, ignore_errors=True)
    return outcome


def game_record(
    spec: GameSpec, result: MatchResult, charged: Mapping[int, str] | None = None
) -> tuple[GameRecord, tuple[str | None, ...]]:
    """A one-game match's record, and per seat why its bot could not start (None: it started, or was absent). A
    ``charged`` seat (left out of the game for what it broke: `play_game`) counts as forfeited, not as unstartable."""
    charged = charged or {}
    record = GameRecord(
        index=spec.index,
        seats=spec.names,
        totals=tuple(s.totals[0] for s in result.seats),
        places=tuple(s.places[0] for s in result.seats),
        faults=tuple(dict(s.faults) for s in result.seats),
        start_failed=tuple(s.start_failure is not None and s.seat not in charged for s in result.seats),
        forfeited=tuple(s.forfeited_in_game is not None or s.start_failure is not None for s in result.seats),
        cpu_ms=tuple(s.cpu_total_ms for s in result.seats),
        replay=f"{spec.set_dir}/{spec.stem}.replay.jsonl",
    )
    skipped = {**dict(spec.match.absent), **charged}
    failures = tuple(
        s.start_failure if s.start_failure is not None and s.seat not in skipped else None for s in result.seats
    )
    return record, failures
