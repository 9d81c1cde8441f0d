"""A game as plain data, for a worker on another machine: `GameSpec` out, `RemoteOutcome` back.

The spec holds everything that decides the game (rules and options, seed and deals, bot commands, time, faults and
isolation settings) as builtins, plus the sha256 of each bot's program file. `run_game_spec` runs on the worker:
it checks the bots' files against those hashes and refuses the game when one is missing or different (the
coordinator then tries another worker, or gives up: an infrastructure failure, never the bot's loss), plays the
game with the ordinary referee in a private temporary folder, and returns the record with the replay log's bytes
and the bots' stderr logs. Only the coordinator writes files: `deliver` puts them where the local runner would.

A bot's *program file* is the command's first word when it is a path (``./bot``, ``/opt/bots/mine``), or, after an
interpreter (``python3 bot.py``, ``java -jar bot.jar``), its first argument that names a file; ``sample:NAME``
bots are resolved on the worker (its own Python and installed copy) and their file hashed too. A bare program
name (``mybot``, found in PATH) has no file to check.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import re
import socket
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

import msgspec

from competition.runner import GameOutcome, GameTask, game_record, game_stem
from referee.bots.fairplay import FairPlay
from referee.bots.sandbox import Limits, SandboxError, check_bwrap
from referee.bots.seat import TimeControl
from referee.faults import Consequence, FaultCode, FaultPolicy
from referee.match import SAMPLE_BOTS, BotSpec, Match, MatchConfig, MatchSetupError, sample_bot_command
from referee.rules import Ruleset
from referee.rules.dealing import DealSpec

__all__ = [
    "GameSpec",
    "RemoteOutcome",
    "deliver",
    "game_spec",
    "probe_sandbox",
    "program_files",
    "run_game_spec",
    "sandbox_refusal",
]

_INTERPRETER = re.compile(
    r"^(python|pypy|node|nodejs|perl|ruby|bash|sh|dash|zsh|java|php|lua|luajit|Rscript|deno|bun|julia|dotnet|mono)"
    r"[\d.]*$"
)


class FileHash(msgspec.Struct, frozen=True):
    path: str  # as the command names it (relative to the bot's cwd, or absolute); sample:NAME for a sample bot
    sha256: str


class BotData(msgspec.Struct, frozen=True, kw_only=True):
    argv: tuple[str, ...]
    cwd: str
    env: tuple[tuple[str, str], ...] = ()
    time: tuple[int, int, int, int] | None = None  # move, startup, bank, increment (ms); None: the game's
    sample: str | None = None  # a sample bot: run the worker's own copy
    files: tuple[FileHash, ...] = ()


class GameSpec(msgspec.Struct, frozen=True, kw_only=True):
    """One game of a set, as builtins: what a worker needs to play it exactly as the coordinator would."""

    kierki: str  # the coordinator's kierki version: a worker with another refuses (its referee may differ)
    set_id: int
    index: int
    names: tuple[str, ...]
    final_dir: str  # the set's folder relative to the tournament's: the record names the replay by it
    game: str
    players: int
    options: dict[str, Any]
    seed: str
    first_game: int = 1
    deals: tuple[tuple[tuple[tuple[int, ...], ...], tuple[int, ...], int | None], ...] = ()
    bots: tuple[BotData, ...]
    time: tuple[int, int, int, int]
    max_strikes: int = 3
    consequences: tuple[tuple[str, str], ...] = ()
    limits: dict[str, int | None] = {}
    sandbox: str = "none"
    bot_env: tuple[tuple[str, str], ...] = ()
    bot_ro: tuple[str, ...] = ()
    fair_play: FairPlay = FairPlay()
    stderr_cap_bytes: int = 1_000_000
    forfeit_unstartable: bool = True
    absent: tuple[tuple[int, str], ...] = ()


class RemoteOutcome(msgspec.Struct, frozen=True, kw_only=True):
    """What a worker sends back: a refusal (``refused``), a game that could not be set up (``error``), or the
    game's record with its replay log and the non-empty stderr logs (seat -> bytes)."""

    worker: str  # host:pid, for messages
    refused: str | None = None
    error: str | None = None
    record: Any = None  # GameRecord (a msgspec Struct of builtins)
    start_failures: tuple[str | None, ...] = ()
    replay: bytes = b""
    stderr: dict[int, bytes] = {}


# --- the coordinator's side ---------------------------------------------------------------------------------


def kierki_version() -> str:
    try:
        return importlib.metadata.version("kierki")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


@cache
def _sample_argvs() -> dict[tuple[str, ...], str]:
    return {sample_bot_command(f"{name}_bot").argv: name for name in SAMPLE_BOTS}


def _sample_file(name: str) -> Path:
    return Path(sample_bot_command(f"{name}_bot").argv[-1])


def program_files(argv: tuple[str, ...], cwd: Path) -> tuple[str, ...]:
    """The files of a command worth checking on a worker (see the module's docstring), as the command names them."""
    first = argv[0]
    if not _INTERPRETER.match(Path(first).name):
        return (first,) if "/" in first and (cwd / first).is_file() else ()
    for argument in argv[1:]:
        if not argument.startswith("-") and (cwd / argument).is_file():
            return (argument,)
    return ()


def _bot_data(spec: BotSpec) -> BotData:
    time = None if spec.time is None else _time_tuple(spec.time)
    sample = _sample_argvs().get(spec.argv)
    files: tuple[FileHash, ...]
    if sample is not None:
        files = (FileHash(f"sample:{sample}", sha256_of(_sample_file(sample))),)
    else:
        files = tuple(FileHash(name, sha256_of(spec.cwd / name)) for name in program_files(spec.argv, spec.cwd))
    return BotData(argv=spec.argv, cwd=os.fspath(spec.cwd), env=spec.env, time=time, sample=sample, files=files)


def _time_tuple(time: TimeControl) -> tuple[int, int, int, int]:
    return (time.move_ms, time.startup_ms, time.bank_ms, time.increment_ms)


def game_spec(task: GameTask) -> GameSpec:
    """The task as plain data, with the hash of every bot's program file as the coordinator sees it now."""
    config = task.config
    if config.games != 1 or config.prefix or config.transcript or config.rotate:
        raise ValueError("a remote game is one game without a prefix, a transcript or rotation")
    return GameSpec(
        kierki=kierki_version(),
        set_id=task.set_id,
        index=task.index,
        names=task.names,
        final_dir=task.final_dir,
        game=config.ruleset.game.value,
        players=config.ruleset.players,
        options=config.ruleset.options(),
        seed=config.seed,
        first_game=config.first_game,
        deals=tuple((d.hands, d.kitty, d.dealer) for d in config.deals),
        bots=tuple(_bot_data(bot) for bot in config.bots),
        time=_time_tuple(config.time),
        max_strikes=config.faults.max_strikes,
        consequences=tuple((code.value, what.value) for code, what in config.faults.consequences.items()),
        limits=dict(vars(config.limits)),
        sandbox=config.sandbox,
        bot_env=config.bot_env,
        bot_ro=tuple(os.fspath(path) for path in config.bot_ro),
        fair_play=config.fair_play,
        stderr_cap_bytes=config.stderr_cap_bytes,
        forfeit_unstartable=config.forfeit_unstartable,
        absent=config.absent,
    )


def deliver(task: GameTask, outcome: RemoteOutcome) -> GameOutcome:
    """Write a remote game's logs where `competition.runner.play_game` puts them, and return its outcome."""
    if outcome.error is not None or outcome.record is None:
        return GameOutcome(task.set_id, task.index, None, error=outcome.error or "the worker returned no record")
    stem = game_stem(task.index)
    task.set_dir.mkdir(parents=True, exist_ok=True)
    _write_atomic(task.set_dir / f"{stem}.replay.jsonl", outcome.replay)
    for seat, data in sorted(outcome.stderr.items()):
        _write_atomic(task.set_dir / f"{stem}.seat{seat}.stderr.log", data)
    return GameOutcome(task.set_id, task.index, outcome.record, outcome.start_failures)


def _write_atomic(path: Path, data: bytes) -> None:
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_bytes(data)
    os.replace(temporary, path)


# --- the worker's side --------------------------------------------------------------------------------------


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def check_files(spec: GameSpec) -> str | None:
    """Why this worker must not play the game (its kierki or a bot's file differs from the coordinator's), or None."""
    here = worker_name()
    if spec.kierki != kierki_version():
        return f"worker {here} runs kierki {kierki_version()}, the coordinator {spec.kierki}: install the same version"
    for name, bot in zip(spec.names, spec.bots, strict=True):
        for file in bot.files:
            path = _sample_file(bot.sample) if bot.sample is not None else Path(bot.cwd) / file.path
            try:
                digest = sha256_of(path)
            except FileNotFoundError:
                return f"bot {name}: {path} is missing on worker {here}; put the bots on a shared path or copy them"
            except OSError as error:
                return f"bot {name}: cannot read {path} on worker {here}: {error.strerror}"
            if digest != file.sha256:
                return (
                    f"bot {name}: {path} on worker {here} differs from the coordinator's "
                    f"(sha256 {digest[:12]}… against {file.sha256[:12]}…); deploy the same files on every worker"
                )
        if not Path(bot.cwd).is_dir():
            return f"bot {name}: its folder {bot.cwd} is missing on worker {here}"
    return None


def probe_sandbox() -> str | None:
    """On a worker: why bubblewrap cannot create its sandbox here (the coordinator's own check says nothing of this
    machine), or None when it can. The same probe a match makes before it starts its bots (``check_bwrap``)."""
    try:
        check_bwrap()
    except SandboxError as error:
        return str(error)
    return None


def sandbox_refusal(worker: str, problem: str) -> str:
    """The one line that says a worker cannot sandbox its bots (``probe_sandbox``'s problem, on one line)."""
    return f"worker {worker} cannot run the bots under bubblewrap: {' '.join(problem.split())}"


_sandbox_problem = cache(probe_sandbox)  # once per worker process: every match probes again before its bots start


def match_config(spec: GameSpec, out_dir: Path) -> MatchConfig:
    """The spec as the referee's configuration, with this worker's copy of the sample bots."""
    bots = []
    for bot in spec.bots:
        argv = sample_bot_command(f"{bot.sample}_bot").argv if bot.sample is not None else bot.argv
        bots.append(BotSpec(argv, Path(bot.cwd), bot.env, None if bot.time is None else TimeControl(*bot.time)))
    consequences = {FaultCode(code): Consequence(what) for code, what in spec.consequences}
    faults = FaultPolicy(max_strikes=spec.max_strikes, consequences=consequences) if consequences else None
    return MatchConfig(
        ruleset=Ruleset.create(spec.game, spec.players, spec.options),
        bots=tuple(bots),
        out_dir=out_dir,
        seed=spec.seed,
        first_game=spec.first_game,
        games=1,
        deals=tuple(DealSpec(hands, kitty, dealer) for hands, kitty, dealer in spec.deals),
        time=TimeControl(*spec.time),
        faults=faults or FaultPolicy(max_strikes=spec.max_strikes),
        limits=Limits(**spec.limits),  # type: ignore[arg-type]
        sandbox=spec.sandbox,  # type: ignore[arg-type]
        bot_env=spec.bot_env,
        bot_ro=tuple(Path(path) for path in spec.bot_ro),
        fair_play=spec.fair_play,
        stderr_cap_bytes=spec.stderr_cap_bytes,
        forfeit_unstartable=spec.forfeit_unstartable,
        absent=spec.absent,
    )


def run_game_spec(spec: GameSpec) -> RemoteOutcome:
    """On a worker: check the bots' files, play the game in a private temporary folder, return what it made."""
    here = worker_name()
    refusal = check_files(spec)
    if refusal is None and spec.sandbox == "bwrap":
        problem = _sandbox_problem()
        if problem is not None:
            refusal = sandbox_refusal(here, problem)
    if refusal is not None:
        return RemoteOutcome(worker=here, refused=refusal)
    with tempfile.TemporaryDirectory(prefix="kierki-game-") as folder:
        try:
            result = Match(match_config(spec, Path(folder))).run()
        except MatchSetupError as error:
            return RemoteOutcome(worker=here, error=str(error))
        record, failures = game_record(spec.index, spec.names, spec.final_dir, spec.absent, result)
        stderr = {}
        for seat in range(len(spec.names)):
            log = Path(folder) / f"seat{seat}.stderr.log"
            if log.exists() and log.stat().st_size:
                stderr[seat] = log.read_bytes()
        replay = Path(result.replays[0]).read_bytes()
    return RemoteOutcome(worker=here, record=record, start_failures=failures, replay=replay, stderr=stderr)
