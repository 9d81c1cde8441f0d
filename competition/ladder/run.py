"""A ladder run, as cron starts it: ``run_ladder``.

A run holds ``DIR/run.lock`` (a ``filelock`` lock: the kernel releases it when the process dies, however it dies),
so a second run started by cron while one is still playing exits at once. Inside the lock a run reclaims the sets a
killed run left claimed, tops the plan up, and then claims, plays and records one set at a time until its budget is
spent: every finished set is committed before the next is claimed, so a ``kill -9`` loses at most the set in play.
"""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import socket
import sqlite3
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import filelock

from competition.duplicate_set import SetRequest
from competition.executors import ExecutorError, GameExecutor
from competition.ladder.config import (
    CONFIG_NAME,
    LOCK_NAME,
    LadderConfig,
    parse_duration,
    read_key,
    unapplied_warnings,
)
from competition.ladder.disk import check_free_space, disk_full, free_reserve, is_disk_full, make_reserve
from competition.ladder.inbox import take_inbox
from competition.ladder.ladder import (
    LadderError,
    bot_spec,
    changed_programs,
    gzip_old_replays,
    open_store,
    readd_hint,
)
from competition.ladder.matchmaking import Candidate, plan_tables
from competition.ladder.play import RefereeFailure, SetOutcome, play_ladder_set
from competition.ladder.retention import prune_old_sets
from competition.ladder.schema import StoreError
from competition.ladder.store import Store
from competition.ladder.store_records import Bot, BotStatus
from competition.open_executor import open_executor
from competition.seeds import set_seed
from referee.api import SandboxError, fair_play_problem

__all__ = [
    "DEAD_RUN",
    "REFEREE_FAILURES_TO_STOP",
    "STOPPED_ON_FULL_DISK",
    "PlaySet",
    "RunReport",
    "nothing_to_play",
    "run_ladder",
]

PlaySet = Callable[[SetRequest, GameExecutor], SetOutcome]
REFEREE_FAILURES_TO_STOP = 3  # sets in a row voided by a failure of the referee: the run stops
# The messages of a run's row that `ladder status` words: a run found still "running" by the next (which holds the
# lock, so its process is gone), and a run that stopped on a full disk.
DEAD_RUN = "it died without finishing (killed, or the machine stopped)"
STOPPED_ON_FULL_DISK = "stopped on a full disk"


@dataclass
class RunReport:
    status: str  # "locked" (another run holds the lock), "finished"
    sets_played: int = 0
    sets_voided: int = 0  # claimed sets are the two together
    reclaimed: list[int] = field(default_factory=list)
    deactivated: dict[str, str] = field(default_factory=dict)
    voided: dict[int, str] = field(default_factory=dict)
    stop_reason: str = ""
    warnings: list[str] = field(default_factory=list)  # housekeeping that failed after the sets were recorded
    # ladder.toml's settings this run could not apply (Isolation.unapplied): said at its start through ``warn``, and
    # kept in its row of the runs table (which ``ladder status`` shows)
    unapplied: list[str] = field(default_factory=list)
    db_seconds: float = 0.0  # time spent in the database (planning, claiming, recording)
    play_seconds: float = 0.0  # time spent playing sets


def _alive(pid: int, host: str) -> bool:
    if host != socket.gethostname():
        return True  # another machine's process: only the claim timeout can tell
    if pid == os.getpid():
        return False  # our pid, but not this run's claim: a run before us had the same pid
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def nothing_to_play(active: Sequence[Bot], players: int) -> str | None:
    """Why no table can be planned from the active bots (None: one can). A bot never takes two seats at a table,
    and a table holds at most one bot per owner (a bot never plays its owner's other bots)."""
    sides = {bot.owner if bot.owner is not None else f"\0{bot.label}" for bot in active}
    if len(active) < players:
        return (
            f"nothing to play: {len(active)} active bot{'' if len(active) == 1 else 's'} for {players} seats, and a "
            f"bot never takes two seats at a table: add {players - len(active)} more"
        )
    if len(sides) < players:
        return (
            f"nothing to play: the {len(active)} active bots have {len(sides)} owners for {players} seats, and a "
            "bot never plays its owner's other bots: add bots of other owners"
        )
    return None


def run_ladder(
    folder: Path,
    *,
    budget_s: float | None = None,
    sets: int | None = None,
    jobs: int | None = None,
    play: PlaySet = play_ladder_set,
    progress: Callable[[str], None] = lambda line: None,
    clock: Callable[[], float] = time.monotonic,
    warn: Callable[[str], None] = lambda line: None,
) -> RunReport:
    """Plan, play and record sets until the budget is spent. ``progress`` gets a line per step; ``warn`` gets, once
    at the start of a run that holds the lock, each setting of ladder.toml that the run cannot apply."""
    config = LadderConfig.load(folder)
    lock = filelock.FileLock(folder / LOCK_NAME)
    try:
        lock.acquire(timeout=0)
    except filelock.Timeout:
        return RunReport("locked")
    try:
        return _Run(folder, config, budget_s, sets, jobs, play, progress, clock, warn).run()
    finally:
        lock.release()


class _Run:
    def __init__(
        self,
        folder: Path,
        config: LadderConfig,
        budget_s: float | None,
        sets: int | None,
        jobs: int | None,
        play: PlaySet,
        progress: Callable[[str], None],
        clock: Callable[[], float],
        warn: Callable[[str], None],
    ) -> None:
        self.folder = folder
        self.config = config
        self.budget_s = parse_duration(config.run.budget) if budget_s is None else budget_s
        self.max_sets = sets if sets is not None else (config.run.sets_per_run or None)
        self.jobs = jobs or config.run.jobs
        self.play = play
        self.progress = progress
        self.clock = clock
        self.warn = warn
        self.report = RunReport("finished")
        self.ruleset = config.ruleset()
        self.match = config.match(folder)
        self.key = read_key(folder)
        self.rng = random.Random(int.from_bytes(os.urandom(8), "big"))

    def seed_for(self, set_id: int) -> str:
        return set_seed(self.key, set_id)

    def _open_executor(self) -> GameExecutor:
        """The executor ladder.toml's [run] names (local worker processes by default, or Dask)."""
        try:
            spec = self.config.run.executor_spec()
            return open_executor(spec, self.jobs, pin=self.config.run.pin, isolation=self.match.isolation)
        except ExecutorError as error:
            raise LadderError(str(error)) from None

    def _record(self, message: str) -> str:
        """The message of this run's row: what ended it, then each setting it could not apply."""
        return "; ".join([*([message] if message else []), *(f"warning: {line}" for line in self.report.unapplied)])

    def run(self) -> RunReport:
        self.report.unapplied = unapplied_warnings(self.config.isolation, str(self.folder / CONFIG_NAME))
        for line in self.report.unapplied:
            self.warn(line)
        if self.config.isolation.sandbox == "bwrap":
            try:
                self.config.isolation.check_here()
            except SandboxError as error:
                raise LadderError(
                    f'{error}. A ladder runs strangers\' bots: fix bubblewrap, or set isolation.sandbox = "none" in '
                    f"{self.folder / CONFIG_NAME} to run them unsandboxed"
                ) from None
        problem = fair_play_problem(self.config.isolation.fair_play)
        if problem is not None:
            raise LadderError(
                f"no control group can be made here ({problem}). A ladder runs strangers' bots, each in a control "
                "group of its own (its deadline its own CPU time, frozen while not to move): run as root or in a "
                f'delegated cgroup (README), or set isolation.fair_play = "none" in {self.folder / CONFIG_NAME} to '
                "time them on the wall clock"
            )
        check_free_space(self.folder, self.config.retention.min_free_mb)
        make_reserve(self.folder)
        try:
            store = open_store(self.folder)
        except (StoreError, sqlite3.Error) as error:
            if is_disk_full(error, self.folder):
                raise disk_full(self.folder, error) from None
            raise
        with store:
            run_id = None
            try:
                for dead in store.mark_dead_runs(DEAD_RUN):
                    self.progress(f"run {dead} marked dead: its process is gone ({DEAD_RUN})")
                run_id = store.start_run(os.getpid(), socket.gethostname())
                self._run(store, run_id)
            except BaseException as error:
                full = not isinstance(error, KeyboardInterrupt) and is_disk_full(error, self.folder)
                if full:
                    free_reserve(self.folder)  # the room to record why the run stops; the next run makes it again
                    error = disk_full(self.folder, error)
                what = "interrupted" if isinstance(error, KeyboardInterrupt) else type(error).__name__
                if full:
                    what = STOPPED_ON_FULL_DISK
                if run_id is not None:
                    with contextlib.suppress(Exception):
                        store.release(run_id)
                        store.finish_run(run_id, "failed", self._record(f"{what}: {error}" if str(error) else what))
                if full:
                    raise error from None
                raise
            store.finish_run(run_id, "finished", self._record(self.report.stop_reason))
        return self.report

    def _run(self, store: Store, run_id: int) -> None:
        report = self.report
        if store.rating_params() != self.config.rating:
            store.set_rating_params(self.config.rating)  # the organiser changed the model: rerate with it
        for label, reason in changed_programs(store).items():
            report.deactivated[label] = reason
            bot = store.bot(label)
            hint = f" (here: `{readd_hint(bot)}`)" if bot is not None else ""  # the terminal may see its command
            self.progress(f"{label} deactivated: {reason}{hint}")
        report.reclaimed = store.reclaim_stale(parse_duration(self.config.run.claim_timeout), _alive)
        for set_id in report.reclaimed:
            self.progress(f"set {set_id} reclaimed: the run that claimed it died")
        shutil.rmtree(self.folder / "work", ignore_errors=True)
        take_inbox(self.folder, self.config, now=time.time, progress=self.progress)
        for partial in (self.folder / "sets").glob("*.partial"):  # sets a killed run was playing (we hold the lock)
            shutil.rmtree(partial, ignore_errors=True)
        started = self.clock()
        durations: list[float] = []
        referee_failures = 0
        runner = self._open_executor()
        try:
            while True:
                if self.max_sets is not None and report.sets_played + report.sets_voided >= self.max_sets:
                    report.stop_reason = f"the limit of {self.max_sets} set{'' if self.max_sets == 1 else 's'}"
                    break
                elapsed = self.clock() - started
                expected = sum(durations) / len(durations) if durations else 0.0
                if elapsed + expected > self.budget_s:
                    report.stop_reason = "budget spent"
                    break
                tick = time.perf_counter()
                self._top_up(store)
                claimed = store.claim_next(run_id, os.getpid(), socket.gethostname())
                report.db_seconds += time.perf_counter() - tick
                if claimed is None:
                    report.stop_reason = nothing_to_play(store.bots(BotStatus.ACTIVE), self.ruleset.players) or (
                        "nothing to play: no planned set could be claimed"
                    )
                    break
                self.progress(f"set {claimed.set_id} claimed: {', '.join(claimed.table)}")
                bots = {bot.label: bot for bot in store.bots(BotStatus.ACTIVE)}
                request = SetRequest(
                    set_id=claimed.set_id,
                    seed=claimed.seed,
                    table=claimed.table,
                    bots={
                        label: bot_spec(bots[label].command, Path(bots[label].cwd), label)
                        for label in set(claimed.table)
                    },
                    match=self.match,
                    root=self.folder,
                    set_dir=f"sets/{claimed.set_id:06d}",
                    higher_is_better=self.config.higher_is_better,
                    analysis=self.config.analysis.settings(),
                )
                tick = time.perf_counter()
                try:
                    outcome = self.play(request, runner)
                except RefereeFailure as failure:
                    if is_disk_full(failure, self.folder):
                        raise  # the disk, not the referee: the set is given back, not voided
                    report.play_seconds += time.perf_counter() - tick
                    replacement = store.void(run_id, claimed.set_id, str(failure), self.seed_for)
                    report.sets_voided += 1
                    report.voided[claimed.set_id] = str(failure)
                    self.progress(f"set {claimed.set_id} voided (replanned as set {replacement}): {failure}")
                    if failure.broken:
                        runner.stop()
                        runner = self._open_executor()
                    referee_failures += 1
                    if referee_failures >= REFEREE_FAILURES_TO_STOP:
                        # Something is wrong with this machine or configuration, not with one set: stop instead
                        # of voiding set after set until the budget is spent.
                        report.stop_reason = f"the referee failed {referee_failures} sets in a row; the last: {failure}"
                        break
                    continue
                referee_failures = 0
                played = time.perf_counter()
                report.play_seconds += played - tick
                durations.append(played - tick)
                self.progress(f"set {claimed.set_id} played")
                try:
                    deactivated = store.record(
                        run_id, outcome.record, outcome.failures, deactivate_after=self.config.bots.deactivate_after
                    )
                except StoreError as error:  # our claim was taken over (the run lock should make this impossible)
                    self.progress(f"set {claimed.set_id} not recorded: {error}")
                    continue
                report.db_seconds += time.perf_counter() - played
                report.sets_played += 1
                self.progress(f"set {claimed.set_id} recorded")
                for label, reason in deactivated.items():
                    report.deactivated[label] = reason
                    self.progress(f"{label} deactivated: {reason}")
        except BaseException:
            runner.stop()
            raise
        runner.close()
        shutil.rmtree(self.folder / "work", ignore_errors=True)
        # The sets are safe by now: housekeeping that fails is reported, and the next run tries again.
        try:
            prune_old_sets(self.folder, store, self.config.retention)
            gzip_old_replays(self.folder, store, parse_duration(self.config.replays_gzip_after))
        except OSError as error:
            if is_disk_full(error, self.folder):
                raise
            self.report.warnings.append(f"old replays not compressed: {error}")
        if self.config.site_dir:
            from competition.ladder.site import write_site

            try:
                write_site(self.folder, store, self.folder / self.config.site_dir)
            except (LadderError, OSError) as error:
                if is_disk_full(error, self.folder):
                    raise
                self.report.warnings.append(f"site not refreshed: {error}")
        for warning in self.report.warnings:
            self.progress(warning)

    def _top_up(self, store: Store) -> None:
        """Plan sets until ``plan_ahead`` are waiting (matchmaking counts the ones already waiting)."""
        missing = self.config.run.plan_ahead - store.count("planned")
        if missing <= 0:
            return
        ratings = store.ratings()
        params = store.rating_params()
        candidates = [
            Candidate(
                bot.label,
                ratings[bot.label].mu if bot.label in ratings else params.mu,
                ratings[bot.label].sigma if bot.label in ratings else params.sigma,
                ratings[bot.label].sets if bot.label in ratings else 0,
                bot.owner,
            )
            for bot in store.bots(BotStatus.ACTIVE)
        ]
        tables = plan_tables(candidates, self.ruleset.players, missing, self.rng, pending=store.pending_tables())
        if tables:
            store.plan(tables, self.seed_for)
