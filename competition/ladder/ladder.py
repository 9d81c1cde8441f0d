"""The ladder's operations on its folder: init, add and retire a bot, compress old replays. The CLI
(`kierki_cli.ladder_cmd`) only words them; a run (what cron starts) is `competition.ladder.run`.
"""

from __future__ import annotations

import gzip
import os
import secrets
import shlex
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path

import msgspec

from competition.ladder.config import (
    CONFIG_NAME,
    DATABASE_NAME,
    KEY_NAME,
    ConfigError,
    LadderConfig,
    check_bot_ro,
    read_key,
    unapplied_warnings,
    write_key,
)
from competition.ladder.schema import StoreError
from competition.ladder.store import Store
from competition.ladder.store_records import Added, Bot, BotStatus, check_look_alike, check_owner
from competition.names import name_problem
from competition.ratings import RatingParams
from competition.remote import sha256_of
from referee.api import (
    SEE_STDERR_LOG,
    SYSTEM_FOLDERS,
    BotSpec,
    Match,
    MatchConfig,
    MatchSetupError,
    last_lines,
    sample_bot_command,
)

__all__ = [
    "LadderError",
    "ValidationFailed",
    "add_bot",
    "gzip_old_replays",
    "init_ladder",
    "log_tail",
    "open_store",
    "program_changed",
    "program_file",
    "reactivate_bot",
    "readd_hint",
    "retire_bot",
]


class LadderError(RuntimeError):
    """A ladder operation that cannot be done; the message says what to do instead.

    ``stderr``: the last lines a bot wrote to its stderr, when they say why it failed (its log is gone by then)."""

    def __init__(self, message: str, stderr: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.stderr = stderr


class ValidationFailed(LadderError):
    """A bot that failed its validation game (the message says how, ``stderr`` what it wrote)."""


def open_store(folder: Path) -> Store:
    if not (folder / CONFIG_NAME).exists():
        raise LadderError(f"{folder} holds no ladder (no {CONFIG_NAME}): create one with `kierki ladder init`")
    return Store.open(folder / DATABASE_NAME)


def init_ladder(folder: Path, config: LadderConfig) -> None:
    config.check()
    check_bot_ro(config.isolation, folder, CONFIG_NAME)
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


def bot_spec(command: str, cwd: Path, label: str | None = None) -> BotSpec:
    """How to start a bot: its command line (or ``sample:heuristic``, ``sample:random``) run from ``cwd``;
    ``label`` (NAME@version) names its seat in the replays."""
    try:
        spec = BotSpec.parse(command)
    except MatchSetupError as error:
        raise LadderError(str(error)) from None
    return BotSpec(spec.argv, spec.cwd if command.startswith("sample:") else cwd, label=label)


def check_name(name: str, what: str = "bot name") -> str:
    problem = name_problem(name)
    if problem is not None:
        raise LadderError(f"{what} {name!r}: {problem} (it names the bot on the site)")
    return name


def add_bot(
    folder: Path,
    name: str,
    argv: Sequence[str],
    *,
    cwd: Path,
    owner: str | None = None,
    new_version: bool = False,
    own_folder: Path | None = None,
    warn: Callable[[str], None] = lambda line: None,
) -> Added:
    """Validate and register a bot; returns what was done (`Added`: the bot, the earlier versions it retired, or
    that it was unchanged). A name belongs to its owner (`NameTaken`, a `StoreError`, for another); a new version
    is made only when the command or the program file changed (or with ``new_version``); an unchanged bot is
    neither validated nor touched. ``warn`` gets each setting of ladder.toml that the validation game (and every
    run) cannot apply. ``own_folder``: the bot's copy in the ladder's own store (``DIR/bots/NAME@V``, the inbox's),
    the one place inside the ladder's folder its command may name."""
    config = LadderConfig.load(folder)
    for line in unapplied_warnings(config.isolation, str(folder / CONFIG_NAME)):
        warn(line)
    check_name(name)
    if not argv:
        raise LadderError("give the bot's command after --, e.g. kierki ladder add DIR mine -- python3 bot.py")
    own = own_folder.resolve() if own_folder is not None else None
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
        if not value or not (cwd / value).exists():
            continue
        named = (cwd / value).resolve()
        if named.is_relative_to(ladder) and not (own is not None and named.is_relative_to(own)):
            raise LadderError(f"the bot's command names {value}, inside the ladder's folder: keep bots outside it")
    command = shlex.join(argv)
    program_hash = sha256_of(program) if program else None
    with open_store(folder) as store:
        latest = store.latest(name)
        alike = store.look_alike(name) if latest is None else None
    check_look_alike(name, alike)  # before the validation game: a name that is not yours is refused at once
    if latest is not None:
        check_owner(latest, owner)
        if not new_version and (latest.command, latest.program_hash) == (command, program_hash):
            return Added(latest, [], unchanged=True)
    spec = bot_spec(command, cwd)
    if config.bots.validation:
        failed = validate_bot(folder, config, spec)
        if failed is not None:
            why, stderr = failed
            raise ValidationFailed(f"{name} was not added: it failed its validation game: {why}", stderr)
    with open_store(folder) as store:
        return store.add_bot(
            name,
            command,
            str(cwd),
            owner=owner,
            program=str(program) if program else None,
            program_hash=program_hash,
            new_version=new_version,
        )


def readd_hint(bot: Bot) -> str:
    """How the organiser adds a bot's new version (for the terminal: its command may name the server's paths)."""
    owner = f" --owner {shlex.quote(bot.owner)}" if bot.owner is not None else ""
    return f"kierki ladder add DIR {bot.name}{owner} -- {bot.command}"


def reactivate_bot(folder: Path, name: str, reason: str) -> Bot:
    """Bring back a deactivated or retired bot with its rating (`Store.reactivate`). A bot whose program file has
    changed since it was added is refused: that is a new version, to be added."""
    with open_store(folder) as store:
        bot = store.bot(name) if "@" in name else store.latest(name)
        if bot is not None and program_changed(bot):
            raise LadderError(
                f"{bot.label}'s program file changed since it was added: add the new version with `{readd_hint(bot)}`"
            )
        try:
            return store.reactivate(name, reason)
        except StoreError as error:
            raise LadderError(str(error)) from None


def program_changed(bot: Bot) -> bool:
    """The bot's program file changed (or vanished) since it was added."""
    if bot.program is None or bot.program_hash is None:
        return False
    try:
        return sha256_of(Path(bot.program)) != bot.program_hash
    except OSError:
        return True


def validate_bot(folder: Path, config: LadderConfig, spec: BotSpec) -> tuple[str, tuple[str, ...]] | None:
    """A short game against the sample bots under the ladder's settings: None if the bot played it cleanly, else
    why and the last lines of the bot's stderr (read before the game's folder and logs are removed).

    Short: the referee stops it after ``bots.validation_deals`` deals (0: the whole game). The rules, the clock,
    the limits and the sandbox are the ladder's own, so it catches what a set would: a bot that does not start,
    a bad hello, an illegal or malformed answer, a timeout, a crash in those deals (the second deal: a bot that
    keeps the first deal's state)."""
    ruleset = config.ruleset()
    samples = [sample_bot_command("heuristic_bot"), sample_bot_command("random_bot")]
    others = tuple(samples[i % len(samples)] for i in range(ruleset.players - 1))
    work = folder / "work" / f"validate-{os.getpid()}"
    shutil.rmtree(work, ignore_errors=True)
    match = msgspec.structs.replace(
        config.match(folder),
        bots=(spec, *others),
        seed=secrets.token_hex(16),
        deals_per_game=config.bots.validation_deals or None,
    )
    try:
        result = Match(MatchConfig.from_spec(match, work)).run()
        seat = result.seats[0]
        faults = ", ".join(f"{code} x{count}" for code, count in sorted(seat.faults.items()))
        if seat.forfeited_in_game is None and not faults:
            return None
        stderr = tuple(last_lines(log_tail(work / "seat0.stderr.log", VALIDATION_STDERR_BYTES)[0]))
    except MatchSetupError as error:
        return str(error).replace(SEE_STDERR_LOG, _shown(error.stderr)), error.stderr
    finally:
        shutil.rmtree(work, ignore_errors=True)
    # The game's logs are removed: its reasons point to the lines returned instead.
    shown = _shown(stderr)
    if seat.forfeited_in_game is not None:
        why = seat.forfeit_reason or faults or "no fault recorded"
        return f"it forfeited the game ({why.replace(SEE_STDERR_LOG, shown)})", stderr
    return f"it made faults: {faults}", stderr


def _shown(stderr: tuple[str, ...]) -> str:
    """What a validation failure's reason says instead of "see its stderr log" (the log is removed with the game)."""
    return "its last stderr lines are shown" if stderr else "it wrote nothing to stderr"


VALIDATION_STDERR_BYTES = 4096  # the end of the log read for the lines shown (last_lines) when a bot fails


def log_tail(path: Path, limit: int) -> tuple[bytes, int]:
    """The last ``limit`` bytes of a log file and the file's whole size; (b"", 0) when it cannot be read (a bot
    that never wrote to stderr may leave none)."""
    try:
        with path.open("rb") as file:
            size = file.seek(0, os.SEEK_END)
            file.seek(max(0, size - limit))
            return file.read(), size
    except OSError:
        return b"", 0


def retire_bot(folder: Path, name: str) -> list[Bot]:
    with open_store(folder) as store:
        retired = store.retire(name)
    if not retired:
        raise LadderError(f"no active bot named {name!r}; `kierki ladder standings {folder}` lists them")
    return retired


def changed_programs(store: Store) -> dict[str, str]:
    """Active bots whose program file changed (or vanished) since they were added: deactivated, with the reason
    (it names the file by its name alone: a reason is published on the site, and the server's paths are not)."""
    refused = {}
    for bot in store.bots(BotStatus.ACTIVE):
        if program_changed(bot):
            assert bot.program is not None
            reason = (
                f"its program file {Path(bot.program).name} changed since it was added; the organiser adds the new "
                f"version with `kierki ladder add DIR {bot.name}"
                + (f" --owner {shlex.quote(bot.owner)}" if bot.owner is not None else "")
                + " -- COMMAND`"
            )
            store.deactivate(bot.label, reason)
            refused[bot.label] = reason
    return refused


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
