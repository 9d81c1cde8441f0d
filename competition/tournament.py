"""A tournament, as a library: configuration in, duplicate sets played in parallel, records out.

``run_tournament`` plans the sets (`competition.plan`), plays each through `competition.duplicate_set.play_set`
on an executor (by default a pool of pinned workers, `competition.runner`) and appends each finished set's
`SetRecord` to ``OUT/results.jsonl`` (`competition.results_file`). The configuration is stored in
``OUT/tournament.json`` with the stopping rule (`competition.tournament_config`: `TournamentConfig`, and
`StopRule`: what ``--resume`` alone plays on to);
``resume=True`` continues from the results file with the same configuration, skipping finished sets.
A bot that cannot start never stops the tournament; after ``drop_after`` consecutive start failures it is dropped
and the reason is kept in the result. A dropped bot is seated in no later set: the sets not yet begun are drawn
from the remaining bots (the same deal seeds, tables drawn afresh for that field: `Tournament._pending`); the sets
already under way finish with the fallback in its seats. When too few bots remain to fill the table as before
(fewer than the seats, or than all the bots when there were fewer than seats to begin with), or a gauntlet's
candidate or an SPRT's version is dropped, the tournament stops early and says why (``stopped_short``).
"""

from __future__ import annotations

import contextlib
import shutil
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path

from competition import stats
from competition.duplicate_set import GameFailed, SetInPlay, SetOutcome, SetRequest, play_set
from competition.executors import ExecutorSpec, GameExecutor, InfrastructureError
from competition.game import GameOutcome, game_stem
from competition.model import SetRecord
from competition.open_executor import open_executor
from competition.plan import Plan, PlannedSet
from competition.results_file import ResultsFile
from competition.stopping import Held, stop_signals_held
from competition.tournament_config import StopRule, TournamentConfig, TournamentError, prepare_out_dir
from referee.api import GameStatus

# How long the coordinator waits for a game before it looks whether a stop signal came (competition/stopping.py).
CHECKPOINT_S = 0.25


@dataclass
class TournamentProgress:
    """What the progress line shows, after each finished set."""

    sets_done: int
    sets_target: int
    games_done: int
    elapsed_s: float
    records: list[SetRecord]
    dropped: dict[str, str]
    stopped_short: str | None = None


@dataclass
class TournamentResult:
    config: TournamentConfig
    out_dir: Path
    records: list[SetRecord]
    dropped: dict[str, str]  # bot -> why it was dropped
    status: GameStatus  # COMPLETE, or INTERRUPTED (Ctrl-C, SIGTERM, SIGHUP)
    elapsed_s: float = 0.0
    games_played: int = 0  # in this run (not counting resumed sets)
    stopped_short: str | None = None  # why the plan ended before its target (too few bots left after a drop)


def _clean_unfinished(out_dir: Path, finished: set[int]) -> None:
    """Remove what a stopped run left of sets it did not finish: they are played again from the start."""
    for path in (out_dir / "sets").iterdir():
        stem = path.name.removesuffix(".partial")
        if path.name.endswith(".partial") or not stem.isdigit() or int(stem) not in finished:
            shutil.rmtree(path, ignore_errors=True)
    shutil.rmtree(out_dir / "work", ignore_errors=True)
    (out_dir / "work").mkdir()


# --- playing ------------------------------------------------------------------------------------------------


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
        progress: Callable[[TournamentProgress], None] | None = None,
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
        self.match = config.match
        self.specs = {e.name: config.bot_spec(e) for e in config.entrants}
        self.games = 0  # played in this run
        self.dropped: dict[str, str] = {}
        self._failures: dict[str, int] = {}
        self.records: list[SetRecord] = []
        self.stopped_short: str | None = None

    def run(self) -> TournamentResult:
        with stop_signals_held():  # a stop waits for the folder to be in order (rmtree cannot be cut in half)
            prepare_out_dir(self.config, self.out_dir, resume=self.resume, stop=self.stop)
            results, self.records = ResultsFile.open(self.out_dir / "results.jsonl")
            finished = {r.set_id for r in self.records}
            self._replay_start_failures()
            _clean_unfinished(self.out_dir, finished)
        if self.ready:
            self.ready()
        started = time.monotonic()
        target = self.stop.target(self.plan)
        status = GameStatus.COMPLETE
        playing: dict[int, SetInPlay] = {}
        abandoned: list[SetInPlay] = []  # sets cut short by an early stop: their running games still finish
        pending = self._pending(finished)
        try:
            # A stop is taken at the loop's checkpoint, not where it lands: competition/stopping.py.
            with stop_signals_held() as held:
                executor = open_executor(self.executor, self.jobs, pin=self.pin, isolation=self.config.isolation)
                with results, executor as runner:
                    self._play_sets(runner, results, held, pending, target, started, playing, abandoned)
        except KeyboardInterrupt:
            status = GameStatus.INTERRUPTED
        self.games += sum(s.games_done for s in [*playing.values(), *abandoned])
        if status is GameStatus.COMPLETE:
            with stop_signals_held():
                _clean_unfinished(self.out_dir, {r.set_id for r in self.records})  # sets left when it stopped early
                with contextlib.suppress(OSError):
                    (self.out_dir / "work").rmdir()
        return TournamentResult(
            self.config,
            self.out_dir,
            self.records,
            dict(self.dropped),
            status,
            time.monotonic() - started,
            self.games,
            self.stopped_short,
        )

    def _play_sets(
        self,
        runner: GameExecutor,
        results: ResultsFile,
        held: Held,
        pending: Iterator[PlannedSet],
        target: int,
        started: float,
        playing: dict[int, SetInPlay],
        abandoned: list[SetInPlay],
    ) -> None:
        """Play the pending sets to the target or an early stop, recording each finished one; ``playing`` and
        ``abandoned`` say, however it ends (a stop is raised at ``held``'s checkpoint), which games were under way."""
        exhausted = False
        while True:
            # Whole sets, while fewer than two games per worker wait: each worker always has the next.
            while not exhausted and sum(s.pending for s in playing.values()) < 2 * runner.jobs:
                planned = next(pending, None)
                if planned is None or planned.set_id > target:
                    exhausted = True
                else:
                    playing[planned.set_id] = play_set(self._request(planned), runner)
            waiting = [f for s in playing.values() for f in s.futures if not f.done()]
            if not waiting and not playing:
                break
            if waiting:
                wait(waiting, timeout=CHECKPOINT_S, return_when=FIRST_COMPLETED)
            held.check()
            for set_id in sorted(playing):
                if set_id not in playing:
                    continue  # abandoned meanwhile (an early stop)
                outcome = self._outcome(playing[set_id])
                if outcome is None:
                    continue
                del playing[set_id]
                self.games += len(outcome.games)
                for game in outcome.games:
                    self._note_start_failures(game)
                self.records.append(outcome.record)
                results.append(outcome.record)
                if self.progress:
                    games_done = self.games + sum(s.games_done for s in playing.values())
                    self.progress(
                        TournamentProgress(
                            len(self.records),
                            target,
                            games_done,
                            time.monotonic() - started,
                            self.records,
                            dict(self.dropped),
                            self.stopped_short,
                        )
                    )
                if self._precise_enough() or (self.stop_when and self.stop_when(self.records)):
                    exhausted = True
                    for unfinished in playing.values():  # games already running finish; their sets may not
                        unfinished.cancel()
                    abandoned.extend(s for s in playing.values() if any(f.cancelled() for f in s.futures))
                    for cut in [i for i, s in playing.items() if s in abandoned]:
                        del playing[cut]

    def _pending(self, finished: set[int]) -> Iterator[PlannedSet]:
        """The sets still to play, in order: the plan's, until a bot is dropped; from then on the plan of the bots
        left (a pure function of the configuration and who was dropped, so a resumed run plays what the stopped
        one would have). Ends, saying why in ``stopped_short``, when the bots left cannot fill a table as before."""
        last = 0
        while True:
            dropped = set(self.dropped)
            plan = self._plan_without(dropped)
            if plan is None:
                return
            for planned in plan.iter_sets():
                if planned.set_id <= last:
                    continue
                if set(self.dropped) != dropped and (plan.format != "paired" or planned.set_id % 2):
                    break  # a bot was dropped meanwhile: plan again without it (an SPRT's pair stays whole)
                last = planned.set_id
                if planned.set_id not in finished:
                    yield planned

    def _plan_without(self, dropped: set[str]) -> Plan | None:
        plan = self.plan
        if not dropped & set(plan.bots):
            return plan
        names = ", ".join(sorted(dropped))
        kept = tuple(b for b in plan.bots if b not in dropped)
        shared = int(plan.format == "paired")  # an SPRT's two versions take turns in one seat
        needed = min(plan.players, len(plan.bots) - shared)
        if plan.candidate in dropped or plan.baseline in dropped:
            role = "the candidate" if plan.candidate in dropped else "the baseline"
            self.stopped_short = f"stopped early: {role} was dropped ({names})"
            return None
        if len(kept) - shared < max(needed, 2):
            left = len(kept) - shared
            self.stopped_short = (
                f"stopped early: {left} bot{'' if left == 1 else 's'} left after dropping {names}, "
                f"too few to fill {needed} seats"
            )
            return None
        return Plan(plan.format, kept, plan.players, plan.seed, plan.rotations, plan.candidate, plan.baseline)

    def _request(self, planned: PlannedSet) -> SetRequest:
        config = self.config
        return SetRequest(
            set_id=planned.set_id,
            seed=planned.seed,
            table=planned.table,
            bots=self.specs,
            match=self.match,
            root=self.out_dir,
            set_dir=f"sets/{planned.set_id:04d}",
            higher_is_better=config.higher_is_better,
            rotations=planned.rotations,
            dropped=dict(self.dropped),
            analysis=config.analysed,
        )

    def _outcome(self, set_in_play: SetInPlay) -> SetOutcome | None:
        """The set's outcome once it is finished; a game the referee failed stops the tournament."""
        try:
            return set_in_play.outcome()
        except GameFailed as failed:
            cause = failed.cause
            if isinstance(cause, BrokenProcessPool):
                raise TournamentError(
                    "a worker process died (killed from outside?); the finished sets are kept: continue with --resume"
                ) from None
            if isinstance(cause, InfrastructureError):
                raise TournamentError(
                    f"{cause}; the finished sets are kept: fix the workers, then continue with --resume"
                ) from None
            raise TournamentError(str(failed)) from cause  # a bug or the disk, not a bot: stop with what it was

    def _replay_start_failures(self) -> None:
        """On resume, count the start failures in a row the finished sets hold (their reasons are in the sets'
        stderr logs), so a bot dropped before the stop stays dropped."""
        for record in sorted(self.records, key=lambda r: r.set_id):
            for game in record.games:
                failures = tuple(
                    "a start failure before the resume" if failed else None
                    for failed in game.start_failed or (False,) * len(game.seats)
                )
                self._note_start_failures(
                    GameOutcome(set_id=record.set_id, index=game.index, record=game, start_failures=failures)
                )

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
    progress: Callable[[TournamentProgress], None] | None = None,
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
