"""A tournament, as a library: configuration in, duplicate sets played in parallel, records out.

``run_tournament`` plans the sets (`competition.plan`), hands their games to a pool of pinned workers
(`competition.runner`), assembles each finished set into a `SetRecord`, moves its folder into place and appends
it to ``OUT/results.jsonl`` (`competition.results`). The configuration is stored in ``OUT/tournament.json``;
``resume=True`` continues from the results file with the same configuration, skipping finished sets.
A bot that cannot start never stops the tournament; after ``drop_after`` consecutive start failures it is dropped
(its later seats are played by the fallback without starting it) and the reason is kept in the result.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from competition import stats
from competition.executors import ExecutorSpec, InfrastructureError
from competition.model import GameRecord, SetRecord
from competition.plan import Entrant, Format, Plan, PlannedSet, Rotations, round_up
from competition.results import ResultsFile
from competition.runner import GameOutcome, GameTask, game_stem
from competition.stopping import stop_signals_held
from referee.bots.fairplay import FairPlay
from referee.bots.sandbox import Limits, SandboxKind
from referee.bots.seat import TimeControl
from referee.faults import FaultPolicy
from referee.match import BotSpec, MatchConfig
from referee.match_config import MatchSetupError, make_out_dir
from referee.rules import Ruleset

CONFIG_VERSION = 1


class TournamentError(RuntimeError):
    """The tournament cannot run or resume: a folder that holds another tournament, a game that cannot be set up."""


@dataclass(frozen=True)
class TournamentConfig:
    """Everything that decides what a tournament plays; stored in ``OUT/tournament.json`` and checked on resume."""

    entrants: tuple[Entrant, ...]
    ruleset: Ruleset
    seed: str
    format: Format = "round-robin"
    candidate: str | None = None
    baseline: str | None = None  # the paired format (kierki sprt): the old version, in the candidate's place
    rotations: Rotations = "cyclic"
    time: TimeControl = field(default_factory=TimeControl)
    max_strikes: int = 3
    limits: Limits = field(default_factory=Limits)
    sandbox: SandboxKind = "none"
    bot_env: tuple[tuple[str, str], ...] = ()
    bot_ro: tuple[Path, ...] = ()
    drop_after: int = 3
    fair_play: FairPlay = field(default_factory=FairPlay)

    @property
    def plan(self) -> Plan:
        names = tuple(e.name for e in self.entrants)
        return Plan(self.format, names, self.ruleset.players, self.seed, self.rotations, self.candidate, self.baseline)

    @property
    def higher_is_better(self) -> bool:
        return self.ruleset.game.value in ("kierki", "kierki3")

    def to_json(self) -> dict[str, Any]:
        return {
            "version": CONFIG_VERSION,
            "game": self.ruleset.game.value,
            "players": self.ruleset.players,
            "options": self.ruleset.options(),
            "seed": self.seed,
            "format": self.format,
            "candidate": self.candidate,
            "baseline": self.baseline,
            "rotations": self.rotations,
            "bots": [e.to_json() for e in self.entrants],
            "time": vars(self.time),
            "max_strikes": self.max_strikes,
            "limits": vars(self.limits),
            "sandbox": self.sandbox,
            "bot_env": [list(pair) for pair in self.bot_env],
            "bot_ro": [str(path) for path in self.bot_ro],
            "drop_after": self.drop_after,
            # Only when not the default: a tournament stored before fair play existed resumes with the default.
            **({} if self.fair_play == FairPlay() else {"fair_play": msgspec.structs.asdict(self.fair_play)}),
        }

    def bot_spec(self, entrant: Entrant) -> BotSpec:
        spec = BotSpec.parse(entrant.command)
        own = {k: v for k, v in vars(entrant.time).items() if v is not None}
        return BotSpec(
            spec.argv,
            Path(entrant.cwd) if entrant.cwd else spec.cwd,
            entrant.env,
            TimeControl(**{**vars(self.time), **own}) if own else None,
        )


@dataclass(frozen=True)
class StopRule:
    """``sets``: play that many (rounded up to whole rounds); ``until_ci``: until every bot's 95% interval is
    narrower than this many points per game (at most ``max_sets`` sets)."""

    sets: int | None = None
    until_ci: float | None = None
    max_sets: int = 1000

    def target(self, plan: Plan) -> int:
        count = self.sets if self.sets is not None else self.max_sets
        return round_up(count, plan.round_length)


@dataclass
class Progress:
    """What the progress line shows, after each finished set."""

    sets_done: int
    sets_target: int
    games_done: int
    elapsed_s: float
    records: list[SetRecord]
    dropped: dict[str, str]


@dataclass
class TournamentResult:
    config: TournamentConfig
    out_dir: Path
    records: list[SetRecord]
    dropped: dict[str, str]  # bot -> why it was dropped
    status: str  # complete, interrupted
    elapsed_s: float = 0.0
    games_played: int = 0  # in this run (not counting resumed sets)


# --- the output folder --------------------------------------------------------------------------------------


def _write_json_atomic(path: Path, data: dict[str, Any]) -> None:
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(json.dumps(data, indent=2) + "\n")
    os.replace(temporary, path)


def prepare_out_dir(config: TournamentConfig, out_dir: Path, *, resume: bool) -> None:
    """Create the folder and store the configuration, or on resume check that it is the same."""
    stored_path = out_dir / "tournament.json"
    if resume:
        try:
            stored = json.loads(stored_path.read_text())
        except FileNotFoundError:
            raise TournamentError(f"{out_dir} holds no tournament to resume (no tournament.json)") from None
        except (OSError, ValueError) as error:
            raise TournamentError(f"cannot read {stored_path}: {error}") from None
        current = json.loads(json.dumps(config.to_json()))
        if stored != current:
            different = sorted(k for k in set(stored) | set(current) if stored.get(k) != current.get(k))
            raise TournamentError(
                f"--resume: the configuration differs from the one in {stored_path} "
                f"({', '.join(different)}); give the same bots and options (and --seed {stored.get('seed')})"
            )
    else:
        if stored_path.exists():
            raise TournamentError(
                f"{out_dir} already holds a tournament: continue it with --resume, or choose another --out"
            )
        try:
            make_out_dir(out_dir)
        except MatchSetupError as error:
            raise TournamentError(str(error)) from None
        _write_json_atomic(stored_path, config.to_json())
    (out_dir / "sets").mkdir(exist_ok=True)
    (out_dir / "work").mkdir(exist_ok=True)


def _clean_unfinished(out_dir: Path, finished: set[int]) -> None:
    """Remove what a stopped run left of sets it did not finish: they are played again from the start."""
    for path in (out_dir / "sets").iterdir():
        stem = path.name.removesuffix(".partial")
        if path.name.endswith(".partial") or not stem.isdigit() or int(stem) not in finished:
            shutil.rmtree(path, ignore_errors=True)
    shutil.rmtree(out_dir / "work", ignore_errors=True)
    (out_dir / "work").mkdir()


# --- playing ------------------------------------------------------------------------------------------------


class _SetInProgress:
    def __init__(self, planned: PlannedSet) -> None:
        self.planned = planned
        self.games: dict[int, GameRecord] = {}


class Tournament:
    def __init__(
        self,
        config: TournamentConfig,
        out_dir: Path,
        stop: StopRule,
        *,
        jobs: int = 1,
        pin: bool = True,
        resume: bool = False,
        progress: Callable[[Progress], None] | None = None,
        stop_when: Callable[[list[SetRecord]], bool] | None = None,
        executor: ExecutorSpec | None = None,
        ready: Callable[[], None] | None = None,
    ) -> None:
        """``stop_when`` is asked after each finished set (with every finished set) whether to stop early;
        ``executor`` says where the games are played (`competition.executors`; default: the local pool);
        ``ready`` is called once the output folder is in place (created, or checked for a resume), before any
        game: a caller that announces the run there announces none that could not begin."""
        self.config = config
        self.out_dir = out_dir
        self.stop = stop
        self.jobs = jobs
        self.pin = pin
        self.resume = resume
        self.progress = progress
        self.stop_when = stop_when
        self.executor = executor or ExecutorSpec()
        self.ready = ready
        self.plan = config.plan
        self.specs = {e.name: config.bot_spec(e) for e in config.entrants}
        self.dropped: dict[str, str] = {}
        self._failures: dict[str, int] = {}
        self.records: list[SetRecord] = []

    def run(self) -> TournamentResult:
        with stop_signals_held():  # a stop waits for the folder to be in order (rmtree cannot be cut in half)
            prepare_out_dir(self.config, self.out_dir, resume=self.resume)
            results, self.records = ResultsFile.open(self.out_dir / "results.jsonl")
            finished = {r.set_id for r in self.records}
            self._replay_start_failures()
            _clean_unfinished(self.out_dir, finished)
        if self.ready:
            self.ready()
        started = time.monotonic()
        target = self.stop.target(self.plan)
        games = 0
        status = "complete"
        in_flight: dict[Future[GameOutcome], int] = {}
        sets: dict[int, _SetInProgress] = {}
        pending = self._tasks(finished, target, sets)
        try:
            with results, self.executor.open(self.jobs, pin=self.pin, sandbox=self.config.sandbox) as runner:
                exhausted = False
                while True:
                    while not exhausted and len(in_flight) < 2 * runner.jobs:
                        task = next(pending, None)
                        if task is None:
                            exhausted = True
                        else:
                            in_flight[runner.submit(task)] = task.set_id
                    if not in_flight:
                        break
                    done, _ = wait(in_flight, return_when=FIRST_COMPLETED)
                    for future in done:
                        set_id = in_flight.pop(future)
                        try:
                            outcome = future.result()
                        except BrokenProcessPool:
                            raise TournamentError(
                                "a worker process died (killed from outside?); the finished sets are kept: "
                                "continue with --resume"
                            ) from None
                        except InfrastructureError as error:
                            raise TournamentError(
                                f"{error}; the finished sets are kept: fix the workers, then continue with --resume"
                            ) from None
                        except Exception as error:  # a bug or the disk, not a bot: stop with what it was
                            raise TournamentError(
                                f"set {set_id}: a game failed: {type(error).__name__}: {error}"
                            ) from error
                        if outcome.error is not None:
                            raise TournamentError(outcome.error)
                        games += 1
                        self._note_start_failures(outcome)
                        current = sets[outcome.set_id]
                        assert outcome.record is not None
                        current.games[outcome.index] = outcome.record
                        if len(current.games) == len(current.planned.rotations):
                            del sets[outcome.set_id]
                            results.append(self._finish_set(current))
                            if self.progress:
                                self.progress(
                                    Progress(
                                        len(self.records),
                                        target,
                                        games,
                                        time.monotonic() - started,
                                        self.records,
                                        dict(self.dropped),
                                    )
                                )
                            if self._precise_enough() or (self.stop_when and self.stop_when(self.records)):
                                exhausted = True
                                for queued in [f for f in in_flight if f.cancel()]:
                                    del in_flight[queued]  # games already running finish; their sets may not
        except KeyboardInterrupt:
            status = "interrupted"
        if status == "complete":
            with stop_signals_held():
                _clean_unfinished(self.out_dir, {r.set_id for r in self.records})  # sets left when it stopped early
                with contextlib.suppress(OSError):
                    (self.out_dir / "work").rmdir()
        return TournamentResult(
            self.config, self.out_dir, self.records, dict(self.dropped), status, time.monotonic() - started, games
        )

    def _tasks(self, finished: set[int], target: int, sets: dict[int, _SetInProgress]) -> Iterator[GameTask]:
        for planned in self.plan.iter_sets():
            if planned.set_id > target:
                return
            if planned.set_id in finished:
                continue
            sets[planned.set_id] = _SetInProgress(planned)
            for index in range(len(planned.rotations)):
                yield self._task(planned, index)

    def _task(self, planned: PlannedSet, index: int) -> GameTask:
        config = self.config
        names = planned.seats(index)
        label = f"{planned.set_id:04d}"
        absent = tuple(
            (seat, f"dropped: {self.dropped[name]}") for seat, name in enumerate(names) if name in self.dropped
        )
        match_config = MatchConfig(
            ruleset=config.ruleset,
            bots=tuple(self.specs[name] for name in names),
            out_dir=self.out_dir / "work" / f"{label}-game{index + 1}",
            seed=planned.seed,
            games=1,
            time=config.time,
            faults=FaultPolicy(max_strikes=config.max_strikes),
            limits=config.limits,
            sandbox=config.sandbox,
            bot_env=config.bot_env,
            bot_ro=config.bot_ro,
            fair_play=config.fair_play,
            forfeit_unstartable=True,
            absent=absent,
        )
        return GameTask(
            planned.set_id, index, match_config, names, self.out_dir / "sets" / f"{label}.partial", f"sets/{label}"
        )

    def _replay_start_failures(self) -> None:
        """On resume, count the start failures in a row the finished sets hold (their reasons are in the sets'
        stderr logs), so a bot dropped before the stop stays dropped."""
        for record in sorted(self.records, key=lambda r: r.set_id):
            for game in record.games:
                failures = tuple(
                    "a start failure before the resume" if failed else None
                    for failed in game.start_failed or (False,) * len(game.seats)
                )
                self._note_start_failures(GameOutcome(record.set_id, game.index, game, failures))

    def _note_start_failures(self, outcome: GameOutcome) -> None:
        assert outcome.record is not None
        failed: dict[str, str | None] = {}
        for seat, (name, failure) in enumerate(zip(outcome.record.seats, outcome.start_failures, strict=True)):
            if name in self.dropped:
                continue
            if failure is not None:
                failed[name] = failure + self._stderr_log_note(outcome, seat)
            else:
                failed.setdefault(name, None)
        for name, failure in failed.items():
            if failure is None:
                self._failures[name] = 0
                continue
            self._failures[name] = self._failures.get(name, 0) + 1
            if self._failures[name] >= self.config.drop_after:
                self.dropped[name] = f"{self._failures[name]} start failures in a row; the last: {failure}"

    def _stderr_log_note(self, outcome: GameOutcome, seat: int) -> str:
        """The seat's stderr log, as `` (OUT/sets/0001/game3.seat2.stderr.log)``, when its bot wrote any (the log
        is kept only then), so a drop's reason says where to look; the set's folder has that name once finished."""
        name = f"{game_stem(outcome.index)}.seat{seat}.stderr.log"
        label = f"{outcome.set_id:04d}"
        sets = self.out_dir / "sets"
        if not (sets / f"{label}.partial" / name).exists() and not (sets / label / name).exists():
            return ""
        return f" ({sets / label / name})"

    def _finish_set(self, current: _SetInProgress) -> SetRecord:
        planned = current.planned
        label = f"{planned.set_id:04d}"
        partial = self.out_dir / "sets" / f"{label}.partial"
        os.replace(partial, self.out_dir / "sets" / label)
        record = SetRecord(
            set_id=planned.set_id,
            seed=planned.seed,
            game=self.config.ruleset.game.value,
            players=self.config.ruleset.players,
            higher_is_better=self.config.higher_is_better,
            bots=planned.table,
            games=tuple(current.games[i] for i in range(len(planned.rotations))),
        )
        self.records.append(record)
        return record

    def _precise_enough(self) -> bool:
        width = self.stop.until_ci
        if width is None:
            return False
        if len(self.records) % self.plan.round_length:
            return False  # stop only after whole rounds, so every bot has played as often
        table = stats.standings(self.records)
        return all(b.score.width < width for b in table.bots if b.bot not in self.dropped)


def run_tournament(
    config: TournamentConfig,
    out_dir: Path,
    stop: StopRule,
    *,
    jobs: int = 1,
    pin: bool = True,
    resume: bool = False,
    progress: Callable[[Progress], None] | None = None,
    stop_when: Callable[[list[SetRecord]], bool] | None = None,
    executor: ExecutorSpec | None = None,
    ready: Callable[[], None] | None = None,
) -> TournamentResult:
    return Tournament(
        config,
        out_dir,
        stop,
        jobs=jobs,
        pin=pin,
        resume=resume,
        progress=progress,
        stop_when=stop_when,
        executor=executor,
        ready=ready,
    ).run()
