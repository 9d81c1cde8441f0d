"""The ladder's operations: init, add, retire, run, rerate, status. The CLI (`kierki_cli.ladder_cmd`) only words them.

A run holds ``DIR/run.lock`` (a ``filelock`` lock: the kernel releases it when the process dies, however it dies),
so a second run started by cron while one is still playing exits at once. Inside the lock a run reclaims the sets a
killed run left claimed, tops the plan up, and then claims, plays and records one set at a time until its budget is
spent: every finished set is committed before the next is claimed, so a ``kill -9`` loses at most the set in play.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import os
import random
import secrets
import shlex
import shutil
import socket
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import filelock

from competition.executors import ExecutorError, GameExecutor
from competition.ladder.config import (
    CONFIG_NAME,
    DATABASE_NAME,
    KEY_NAME,
    LOCK_NAME,
    ConfigError,
    LadderConfig,
    parse_duration,
    read_key,
    set_seed,
    write_key,
)
from competition.ladder.matchmaking import Candidate, plan_tables
from competition.ladder.play import RefereeFailure, SetOutcome, SetRequest, play_set
from competition.ladder.store import Bot, Store, StoreError
from competition.ratings import RatingParams
from referee.bots.sandbox import SYSTEM_FOLDERS, SandboxError, check_bwrap
from referee.faults import FaultPolicy
from referee.match import BotSpec, Match, MatchConfig, MatchSetupError, sample_bot_command

__all__ = [
    "LadderError",
    "RunReport",
    "add_bot",
    "gzip_old_replays",
    "init_ladder",
    "open_store",
    "program_file",
    "retire_bot",
    "run_ladder",
]

_NAME_CHARS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-+")
PlaySet = Callable[[SetRequest, GameExecutor], SetOutcome]
REFEREE_FAILURES_TO_STOP = 3  # sets in a row voided by a failure of the referee: the run stops


class LadderError(RuntimeError):
    """A ladder operation that cannot be done; the message says what to do instead."""


def open_store(folder: Path) -> Store:
    if not (folder / CONFIG_NAME).exists():
        raise LadderError(f"{folder} holds no ladder (no {CONFIG_NAME}): create one with `kierki ladder init`")
    return Store.open(folder / DATABASE_NAME)


def init_ladder(folder: Path, config: LadderConfig) -> None:
    config.check()
    if (folder / CONFIG_NAME).exists():
        raise LadderError(f"{folder} already holds a ladder; choose an empty folder")
    if (folder / DATABASE_NAME).exists():
        raise LadderError(
            f"{folder} holds a ladder database but no {CONFIG_NAME} (an init stopped half-way?): remove "
            f"{folder / DATABASE_NAME} if it holds nothing you need, and init again"
        )
    folder.mkdir(parents=True, exist_ok=True)
    if not (folder / KEY_NAME).exists():  # an init stopped half-way left its key: no set was seeded with it yet
        write_key(folder)
    read_key(folder)
    with Store.open(folder / DATABASE_NAME, create=True) as store:
        store.set_rating_params(config.rating)
    temporary = folder / (CONFIG_NAME + ".tmp")
    temporary.write_text(config.to_toml())
    os.replace(temporary, folder / CONFIG_NAME)  # last: a folder with ladder.toml is a complete ladder


# --- bots -------------------------------------------------------------------------------------------------------


def program_file(argv: Sequence[str], cwd: Path) -> Path | None:
    """The bot's own program file: the first argument after the program that names a file (``python3 bot.py``),
    else the program itself when it is a file outside the system folders (``./bot``)."""
    for arg in argv[1:]:
        value = arg.partition("=")[2] if arg.startswith("-") else arg
        if value and (cwd / value).is_file():
            return (cwd / value).resolve()
    if argv and "/" in argv[0] and (cwd / argv[0]).is_file():
        path = (cwd / argv[0]).resolve()
        if not any(path.is_relative_to(folder) for folder in SYSTEM_FOLDERS):
            return path
    return None


def file_hash(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def bot_spec(command: str, cwd: Path) -> BotSpec:
    """How to start a bot: its command line (or ``sample:heuristic``, ``sample:random``) run from ``cwd``."""
    try:
        spec = BotSpec.parse(command)
    except MatchSetupError as error:
        raise LadderError(str(error)) from None
    return spec if command.startswith("sample:") else BotSpec(spec.argv, cwd)


def check_name(name: str) -> str:
    if not name or not set(name) <= _NAME_CHARS or len(name) > 40:
        raise LadderError(f"bot name {name!r}: use 1-40 letters, digits and _.-+ (it names the bot on the site)")
    return name


def add_bot(
    folder: Path, name: str, argv: Sequence[str], *, cwd: Path, owner: str | None = None
) -> tuple[Bot, list[Bot]]:
    """Validate and register a bot; returns it and the earlier versions it retired."""
    config = LadderConfig.load(folder)
    check_name(name)
    if not argv:
        raise LadderError("give the bot's command after --, e.g. kierki ladder add DIR mine -- python3 bot.py")
    cwd = cwd.resolve()
    program = program_file(argv, cwd)
    # A sandboxed bot sees its program's folder and every path its command names: none may show the ladder's
    # folder (the secret key of the seeds, the other bots' logs).
    ladder = folder.resolve()
    if program is not None and ladder.is_relative_to(program.parent):
        raise LadderError(
            f"the bot's folder {program.parent} contains the ladder's folder (and its secret key): move the ladder "
            "or the bot so that neither is inside the other"
        )
    for arg in argv:
        value = arg.partition("=")[2] if arg.startswith("-") else arg
        if value and (cwd / value).exists() and (cwd / value).resolve().is_relative_to(ladder):
            raise LadderError(f"the bot's command names {value}, inside the ladder's folder: keep bots outside it")
    spec = bot_spec(shlex.join(argv), cwd)
    if config.bots.validation:
        why = validate_bot(folder, config, spec)
        if why is not None:
            raise LadderError(f"{name} was not added: it failed its validation game: {why}")
    with open_store(folder) as store:
        return store.add_bot(
            name,
            shlex.join(argv),
            str(cwd),
            owner=owner,
            program=str(program) if program else None,
            program_hash=file_hash(program) if program else None,
        )


def validate_bot(folder: Path, config: LadderConfig, spec: BotSpec) -> str | None:
    """One game against the sample bots under the ladder's settings: None if the bot played it cleanly."""
    ruleset = config.ruleset()
    samples = [sample_bot_command("heuristic_bot"), sample_bot_command("random_bot")]
    others = tuple(samples[i % len(samples)] for i in range(ruleset.players - 1))
    work = folder / "work" / f"validate-{os.getpid()}"
    shutil.rmtree(work, ignore_errors=True)
    match_config = MatchConfig(
        ruleset=ruleset,
        bots=(spec, *others),
        out_dir=work,
        seed=secrets.token_hex(16),
        games=1,
        time=config.time,
        faults=FaultPolicy(max_strikes=config.bots.max_strikes),
        limits=config.isolation.limits(),
        sandbox=config.isolation.sandbox,
    )
    try:
        result = Match(match_config).run()
    except MatchSetupError as error:
        return str(error)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    seat = result.seats[0]
    faults = ", ".join(f"{code} x{count}" for code, count in sorted(seat.faults.items()))
    if seat.forfeited_in_game is not None:
        return f"it forfeited the game ({faults or 'no fault recorded'})"
    if faults:
        return f"it made faults: {faults}"
    return None


def retire_bot(folder: Path, name: str) -> list[Bot]:
    with open_store(folder) as store:
        retired = store.retire(name)
    if not retired:
        raise LadderError(f"no active bot named {name!r}; `kierki ladder standings {folder}` lists them")
    return retired


def changed_programs(store: Store) -> dict[str, str]:
    """Active bots whose program file changed (or vanished) since they were added: deactivated, with the reason."""
    refused = {}
    for bot in store.bots("active"):
        if bot.program is None or bot.program_hash is None:
            continue
        path = Path(bot.program)
        try:
            same = file_hash(path) == bot.program_hash
        except OSError:
            same = False
        if not same:
            reason = (
                f"its program file {path} changed since it was added; add the new version with "
                f"`kierki ladder add DIR {bot.name} -- {bot.command}`"
            )
            store.deactivate(bot.label, reason)
            refused[bot.label] = reason
    return refused


# --- a run --------------------------------------------------------------------------------------------------------


@dataclass
class RunReport:
    status: str  # "locked" (another run holds the lock), "finished"
    sets_played: int = 0
    sets_voided: int = 0
    reclaimed: list[int] = field(default_factory=list)
    deactivated: dict[str, str] = field(default_factory=dict)
    voided: dict[int, str] = field(default_factory=dict)
    stop_reason: str = ""
    warnings: list[str] = field(default_factory=list)  # housekeeping that failed after the sets were recorded
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


def run_ladder(
    folder: Path,
    *,
    budget_s: float | None = None,
    sets: int | None = None,
    jobs: int | None = None,
    play: PlaySet = play_set,
    progress: Callable[[str], None] = lambda line: None,
    clock: Callable[[], float] = time.monotonic,
) -> RunReport:
    config = LadderConfig.load(folder)
    lock = filelock.FileLock(folder / LOCK_NAME)
    try:
        lock.acquire(timeout=0)
    except filelock.Timeout:
        return RunReport("locked")
    try:
        return _Run(folder, config, budget_s, sets, jobs, play, progress, clock).run()
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
    ) -> None:
        self.folder = folder
        self.config = config
        self.budget_s = parse_duration(config.run.budget) if budget_s is None else budget_s
        self.max_sets = sets if sets is not None else (config.run.sets_per_run or None)
        self.jobs = jobs or config.run.jobs
        self.play = play
        self.progress = progress
        self.clock = clock
        self.report = RunReport("finished")
        self.ruleset = config.ruleset()
        self.key = read_key(folder)
        self.rng = random.Random(int.from_bytes(os.urandom(8), "big"))

    def seed_for(self, set_id: int) -> str:
        return set_seed(self.key, set_id)

    def _open_executor(self) -> GameExecutor:
        """The executor ladder.toml's [run] names (local worker processes by default, or Dask)."""
        try:
            return self.config.run.executor_spec().open(self.jobs, pin=self.config.run.pin)
        except ExecutorError as error:
            raise LadderError(str(error)) from None

    def run(self) -> RunReport:
        if self.config.isolation.sandbox == "bwrap":
            try:
                check_bwrap()
            except SandboxError as error:
                raise LadderError(
                    f'{error}. A ladder runs strangers\' bots: fix bubblewrap, or set isolation.sandbox = "none" in '
                    f"{self.folder / CONFIG_NAME} to run them unsandboxed"
                ) from None
        with open_store(self.folder) as store:
            run_id = store.start_run(os.getpid(), socket.gethostname())
            try:
                self._run(store, run_id)
            except BaseException as error:
                what = "interrupted" if isinstance(error, KeyboardInterrupt) else type(error).__name__
                with contextlib.suppress(Exception):
                    store.release(run_id)
                    store.finish_run(run_id, "failed", f"{what}: {error}" if str(error) else what)
                raise
            store.finish_run(run_id, "finished", self.report.stop_reason)
        return self.report

    def _run(self, store: Store, run_id: int) -> None:
        report = self.report
        if store.rating_params() != self.config.rating:
            store.set_rating_params(self.config.rating)  # the organiser changed the model: rerate with it
        for label, reason in changed_programs(store).items():
            report.deactivated[label] = reason
            self.progress(f"{label} deactivated: {reason}")
        report.reclaimed = store.reclaim_stale(parse_duration(self.config.run.claim_timeout), _alive)
        for set_id in report.reclaimed:
            self.progress(f"set {set_id} reclaimed: the run that claimed it died")
        shutil.rmtree(self.folder / "work", ignore_errors=True)
        for partial in (self.folder / "sets").glob("*.partial"):  # sets a killed run was playing (we hold the lock)
            shutil.rmtree(partial, ignore_errors=True)
        started = self.clock()
        durations: list[float] = []
        referee_failures = 0
        runner = self._open_executor()
        try:
            while True:
                if self.max_sets is not None and report.sets_played + report.sets_voided >= self.max_sets:
                    report.stop_reason = f"{self.max_sets} sets played"
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
                    report.stop_reason = "nothing to play: the ladder needs at least two active bots"
                    break
                self.progress(f"set {claimed.set_id} claimed: {', '.join(claimed.table)}")
                bots = {bot.label: bot for bot in store.bots("active")}
                request = SetRequest(
                    set_id=claimed.set_id,
                    seed=claimed.seed,
                    table=claimed.table,
                    specs={label: bot_spec(bots[label].command, Path(bots[label].cwd)) for label in set(claimed.table)},
                    ruleset=self.ruleset,
                    higher_is_better=self.config.higher_is_better,
                    folder=self.folder,
                    time=self.config.time,
                    limits=self.config.isolation.limits(),
                    sandbox=self.config.isolation.sandbox,
                    max_strikes=self.config.bots.max_strikes,
                )
                tick = time.perf_counter()
                try:
                    outcome = self.play(request, runner)
                except RefereeFailure as failure:
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
            gzip_old_replays(self.folder, store, parse_duration(self.config.replays_gzip_after))
        except OSError as error:
            self.report.warnings.append(f"old replays not compressed: {error}")
        if self.config.site_dir:
            from competition.ladder.site import write_site

            try:
                write_site(self.folder, store, self.folder / self.config.site_dir)
            except (LadderError, OSError) as error:
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
            for bot in store.bots("active")
        ]
        tables = plan_tables(candidates, self.ruleset.players, missing, self.rng, pending=store.pending_tables())
        if tables:
            store.plan(tables, self.seed_for)


# --- replays ----------------------------------------------------------------------------------------------------


def gzip_old_replays(folder: Path, store: Store, age_s: float) -> int:
    """Compress the replay logs of sets played more than ``age_s`` ago; returns how many files were compressed.

    Each is written to a temporary name, synced and renamed over, and only then is the plain log removed: a kill
    at any point leaves a readable log (one of the two, or both)."""
    compressed = 0
    for set_id in store.uncompressed_before(store.clock() - age_s):
        set_dir = folder / f"sets/{set_id:06d}"
        for log in sorted(set_dir.glob("*.replay.jsonl")):
            target = log.with_name(log.name + ".gz")
            temporary = log.with_name(log.name + ".gz.tmp")
            with log.open("rb") as source, gzip.open(temporary, "wb") as sink:
                shutil.copyfileobj(source, sink)
            with temporary.open("rb") as written:
                os.fsync(written.fileno())
            os.replace(temporary, target)
            log.unlink()
            compressed += 1
        store.mark_compressed(set_id)
    return compressed


def replay_file(folder: Path, relative: str) -> Path | None:
    """A set record's replay path, as it is now (plain, or gzip-compressed since)."""
    for candidate in (folder / relative, folder / (relative + ".gz")):
        if candidate.exists():
            return candidate
    return None


def default_config(game: str, players: int | None, options: dict[str, str]) -> LadderConfig:
    from referee.rules import Ruleset

    try:
        ruleset = Ruleset.create(game, players, options)
    except ValueError as error:
        raise ConfigError(f"game {game!r}: {error}") from None
    return LadderConfig(game=game, players=ruleset.players, options=dict(options), rating=RatingParams())
