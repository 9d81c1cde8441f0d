"""A game for a worker on another machine: `RemoteGame` out, `RemoteOutcome` back.

The worker gets the game's `GameSpec` (the same plain data the local pool's workers get), encoded, with the
coordinator's kierki version and the sha256 of each bot's program file. `run_remote` runs on the worker: it refuses
the game when its kierki differs (before it decodes the spec: its referee may differ) or a bot's file is missing
or different (the coordinator then tries another worker, or gives up: an infrastructure failure, never the bot's
loss), plays it with `competition.game.play_game` in a private temporary folder, and returns the outcome with the
bytes of the files the game left. Only the coordinator writes files: `deliver` puts them where the local pool's
workers put them.

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
from typing import Final

import msgspec

from competition.game import GameOutcome, GameSpec, play_game
from referee.api import (
    SAMPLE_BOTS,
    BotSpec,
    Isolation,
    SandboxError,
    decode_spec,
    encode_spec,
    fair_play_problem,
    sample_bot_command,
)

__all__ = [
    "BWRAP_PROBLEM",
    "CGROUP_PROBLEM",
    "BotFiles",
    "RemoteGame",
    "RemoteOutcome",
    "deliver",
    "probe_isolation",
    "program_files",
    "refusal_fix",
    "remote_game",
    "run_remote",
    "worker_refusal",
]

_INTERPRETER = re.compile(
    r"^(python|pypy|node|nodejs|perl|ruby|bash|sh|dash|zsh|java|php|lua|luajit|Rscript|deno|bun|julia|dotnet|mono)"
    r"[\d.]*$"
)


class FileHash(msgspec.Struct, frozen=True):
    path: str  # as the command names it (relative to the bot's cwd, or absolute); sample:NAME for a sample bot
    sha256: str


class BotFiles(msgspec.Struct, frozen=True, kw_only=True):
    """What a worker checks of one seat's bot before it plays: its program files, or that it is a sample bot."""

    sample: str | None = None  # a sample bot: the worker runs its own copy
    files: tuple[FileHash, ...] = ()


class RemoteGame(msgspec.Struct, frozen=True, kw_only=True):
    """One game as a Dask task ships it: the `GameSpec` (encoded: a worker of another kierki decodes nothing of
    it before it refuses), the coordinator's kierki version and each seat's `BotFiles`."""

    kierki: str
    bots: tuple[BotFiles, ...]
    spec: bytes  # ``encode_spec(GameSpec)``


class RemoteOutcome(msgspec.Struct, frozen=True, kw_only=True):
    """What a worker sends back: a refusal (``refused``), or the game's outcome and the bytes of the files it left,
    by their names in the set's folder (`competition.game.play_game`)."""

    worker: str  # host:pid, for messages
    refused: str | None = None
    outcome: GameOutcome | None = None
    files: dict[str, bytes] = {}


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


def _bot_files(spec: BotSpec) -> BotFiles:
    sample = _sample_argvs().get(spec.argv)
    if sample is not None:
        return BotFiles(sample=sample, files=(FileHash(f"sample:{sample}", sha256_of(_sample_file(sample))),))
    return BotFiles(
        files=tuple(FileHash(name, sha256_of(spec.cwd / name)) for name in program_files(spec.argv, spec.cwd))
    )


def remote_game(spec: GameSpec) -> RemoteGame:
    """The game as a worker gets it, with the hash of every bot's program file as the coordinator sees it now
    (an OSError: a program file this machine cannot read)."""
    return RemoteGame(
        kierki=kierki_version(), bots=tuple(_bot_files(bot) for bot in spec.match.bots), spec=encode_spec(spec)
    )


def deliver(spec: GameSpec, outcome: RemoteOutcome) -> GameOutcome:
    """Write a remote game's files where a local worker puts them (`competition.game.play_here`); its outcome."""
    if outcome.outcome is None:
        return GameOutcome(set_id=spec.set_id, index=spec.index, error="the worker returned no outcome")
    if outcome.files:
        spec.partial_dir.mkdir(parents=True, exist_ok=True)
    for name, data in sorted(outcome.files.items()):
        _write_atomic(spec.partial_dir / name, data)
    return outcome.outcome


def _write_atomic(path: Path, data: bytes) -> None:
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_bytes(data)
    os.replace(temporary, path)


# --- the worker's side --------------------------------------------------------------------------------------


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def check_files(spec: GameSpec, bots: tuple[BotFiles, ...]) -> str | None:
    """Why this worker must not play the game (a bot's file differs from the coordinator's), or None."""
    here = worker_name()
    for name, bot, checked in zip(spec.names, spec.match.bots, bots, strict=True):
        for file in checked.files:
            path = _sample_file(checked.sample) if checked.sample is not None else bot.cwd / file.path
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
        if not bot.cwd.is_dir():
            return f"bot {name}: its folder {bot.cwd} is missing on worker {here}"
    return None


BWRAP_PROBLEM: Final = "cannot run the bots under bubblewrap"
CGROUP_PROBLEM: Final = "cannot give each bot a control group of its own"
_FIXES: Final = {
    BWRAP_PROBLEM: "fix bubblewrap on that worker",
    CGROUP_PROBLEM: "run that worker as root or in a delegated cgroup (README), or give --fair-play none",
}


def probe_isolation(isolation: Isolation) -> tuple[str, str] | None:
    """On a worker: why it cannot apply ``isolation`` here, as (what it cannot do, the error), or None when it can.
    The coordinator's own checks say nothing of this machine, so a worker makes the ones a match makes before it
    starts its bots: bubblewrap creates its sandbox (`Isolation.check_here`), and, with ``fair_play = "cgroup"``
    (strangers' bots in a tournament or a ladder), a control group can be made for each bot (`fair_play_problem`);
    with ``auto`` a worker without them plays as a match does, timed on the wall clock, and its result says so."""
    try:
        isolation.check_here()
    except SandboxError as error:
        return BWRAP_PROBLEM, str(error)
    if isolation.fair_play == "cgroup":
        problem = fair_play_problem("cgroup")
        if problem is not None:
            return CGROUP_PROBLEM, problem
    return None


def worker_refusal(worker: str, problem: tuple[str, str]) -> str:
    """The one line that says a worker cannot isolate the bots (``probe_isolation``'s problem, on one line)."""
    what, error = problem
    return f"worker {worker} {what}: {' '.join(error.split())}"


def refusal_fix(problem: tuple[str, str]) -> str:
    """What the organiser does about a worker's ``probe_isolation`` problem."""
    return _FIXES.get(problem[0], "fix that worker")


_isolation_problem = cache(probe_isolation)  # once per worker process and isolation: every match checks again


def _own_samples(spec: GameSpec, bots: tuple[BotFiles, ...]) -> GameSpec:
    """The spec with this worker's copy of the sample bots (its own Python and installed package)."""
    specs = tuple(
        bot
        if checked.sample is None
        else BotSpec(sample_bot_command(f"{checked.sample}_bot").argv, bot.cwd, bot.env, bot.time, bot.label)
        for bot, checked in zip(spec.match.bots, bots, strict=True)
    )
    return msgspec.structs.replace(spec, match=msgspec.structs.replace(spec.match, bots=specs))


def run_remote(game: RemoteGame) -> RemoteOutcome:
    """On a worker: check the versions and the bots' files, play the game in a private temporary folder, return
    its outcome and the bytes of its files."""
    here = worker_name()
    if game.kierki != kierki_version():
        version = (
            f"worker {here} runs kierki {kierki_version()}, the coordinator {game.kierki}: install the same version"
        )
        return RemoteOutcome(worker=here, refused=version)
    spec = _own_samples(decode_spec(game.spec, GameSpec), game.bots)
    refusal = check_files(spec, game.bots)
    if refusal is None:
        problem = _isolation_problem(spec.match.isolation)
        if problem is not None:
            refusal = worker_refusal(here, problem)
    if refusal is not None:
        return RemoteOutcome(worker=here, refused=refusal)
    with tempfile.TemporaryDirectory(prefix="kierki-game-") as folder:
        outcome, files = play_game(spec, Path(folder))
        data = {name: path.read_bytes() for name, path in files.items()}
    return RemoteOutcome(worker=here, outcome=outcome, files=data)
