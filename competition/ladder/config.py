"""A ladder's settings: ``DIR/ladder.toml`` (every setting, written in full by ``init`` and editable) and the
secret key that seeds its sets (``DIR/secret.key``, mode 600).

Set seeds are a keyed hash of the set's id under the secret key: the organiser can replay any set's deals, and a bot
(which never sees the ladder's folder) cannot guess the next set's cards from the ones it has been dealt.
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
import tomllib
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import tomli_w

from competition.executors import ExecutorError, ExecutorSpec
from competition.ratings import RatingParams
from referee.bots.fairplay import FAIR_PLAY_MODES, FairPlay
from referee.bots.sandbox import DEFAULT_CPU_S_PER_GAME, SANDBOXES, Limits, SandboxKind
from referee.bots.seat import TimeControl
from referee.rules import Ruleset

__all__ = ["CONFIG_NAME", "DATABASE_NAME", "KEY_NAME", "ConfigError", "LadderConfig", "parse_duration", "set_seed"]

CONFIG_NAME = "ladder.toml"
DATABASE_NAME = "ladder.sqlite"
KEY_NAME = "secret.key"
LOCK_NAME = "run.lock"


class ConfigError(ValueError):
    """ladder.toml is missing, malformed or holds a value that cannot work; the message names the key."""


_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(s|m|h|d)?\s*$")
_UNITS = {"s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0, None: 1.0}


def parse_duration(text: str) -> float:
    """``90``, ``90s``, ``9m``, ``2h``, ``7d`` -> seconds."""
    found = _DURATION.match(text)
    if found is None:
        raise ConfigError(f"{text!r} is not a duration: write a number with s, m, h or d, e.g. 9m")
    return float(found.group(1)) * _UNITS[found.group(2)]


_LIMIT_FIELDS = ("memory_mb", "cpu_s", "processes", "file_mb", "disk_mb")
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class Isolation:
    """``[isolation]``: each key means what the option of the same name means for ``kierki match`` (a ladder's
    games are one game each); 0 turns a limit off."""

    sandbox: SandboxKind = "bwrap"
    memory_mb: int = Limits.memory_mb
    cpu_s: int = DEFAULT_CPU_S_PER_GAME  # CPU seconds per bot per game; 0: no limit (format 1: 0 meant this default)
    processes: int = Limits.processes
    file_mb: int = Limits.file_mb
    disk_mb: int = 0
    bot_ro: list[str] = field(default_factory=list)  # read-only paths every bot may read (relative: to DIR)
    bot_env: dict[str, str] = field(default_factory=dict)  # environment variables for every bot
    # Each bot in a control group of its own (referee/bots/fairplay.py): "auto" or "cgroup" (a run refuses to
    # start where none can be made), or "none"; freeze: frozen while not to move (false: trusted bots ponder).
    fair_play: str = "auto"
    freeze: bool = True

    @classmethod
    def of(
        cls,
        limits: Limits,
        sandbox: SandboxKind,
        *,
        bot_ro: list[str],
        bot_env: dict[str, str],
        fair_play: FairPlay | None = None,
    ) -> Isolation:
        """The settings of the command line's isolation options (``kierki_cli.isolation``), as ladder.toml writes
        them: every limit explicit, the CPU limit left out being the referee's default for one game."""
        fair = FairPlay() if fair_play is None else fair_play
        return cls(
            fair_play=fair.mode,
            freeze=fair.freeze,
            sandbox=sandbox,
            memory_mb=limits.memory_mb,
            cpu_s=DEFAULT_CPU_S_PER_GAME if limits.cpu_s is None else limits.cpu_s,
            processes=limits.processes,
            file_mb=limits.file_mb,
            disk_mb=limits.disk_mb,
            bot_ro=bot_ro,
            bot_env=bot_env,
        )

    def fair_play_setting(self) -> FairPlay:
        """What the ladder's games run under: strict control groups unless "none" (a ladder runs strangers' bots,
        so a game on a machine without them fails instead of running on the wall clock)."""
        return FairPlay(mode="none" if self.fair_play == "none" else "cgroup", freeze=self.freeze)

    def bot_ro_paths(self, folder: Path) -> tuple[Path, ...]:
        return tuple((folder / path).resolve() for path in self.bot_ro)

    def check(self, where: str) -> None:
        if not all(isinstance(path, str) and path for path in self.bot_ro):
            raise ConfigError(f"{where}: isolation.bot_ro must be a list of paths (strings)")
        if self.fair_play not in FAIR_PLAY_MODES:
            raise ConfigError(f'{where}: isolation.fair_play {self.fair_play!r}: use "auto", "cgroup" or "none"')
        if self.bot_ro and self.sandbox != "bwrap":
            raise ConfigError(f'{where}: isolation.bot_ro applies inside the sandbox: set sandbox = "bwrap"')
        for name, value in self.bot_env.items():
            if not ENV_NAME.fullmatch(name) or not isinstance(value, str):
                raise ConfigError(
                    f'{where}: isolation.bot_env: {name!r}: write NAME = "VALUE" (a name of letters, digits and _)'
                )

    def check_paths(self, folder: Path, where: str) -> None:
        """Each bot_ro path exists and shows none of the ladder's folder (its secret key, every bot's logs)."""
        ladder = folder.resolve()
        for given, path in zip(self.bot_ro, self.bot_ro_paths(folder), strict=True):
            if not path.exists():
                raise ConfigError(f"{where}: isolation.bot_ro: {given} does not exist")
            if ladder.is_relative_to(path) or path.is_relative_to(ladder):
                raise ConfigError(
                    f"{where}: isolation.bot_ro: {given} shows the ladder's folder (its secret key and logs) to "
                    "every bot: name a folder outside it that does not hold it"
                )

    def unapplied(self, where: str) -> list[str]:
        """The settings a run accepts but cannot apply, each as one line that says what to change.

        ``ladder init`` refuses them, as ``kierki match`` does, but a hand-edited ladder.toml may hold them; refusing
        it on load would stop a ladder's cron runs, so every run says so instead (``run_ladder``'s ``warn``)."""
        if self.disk_mb > 0 and self.sandbox != "bwrap":
            return [
                f"{where}: isolation.disk_mb = {self.disk_mb} is not applied: the disk limit is a tmpfs inside the "
                f'sandbox, and sandbox = "{self.sandbox}"; set sandbox = "bwrap" to apply it, or disk_mb = 0'
            ]
        return []

    def limits(self) -> Limits:
        return Limits(
            memory_mb=self.memory_mb,
            cpu_s=self.cpu_s,
            processes=self.processes,
            file_mb=self.file_mb,
            disk_mb=self.disk_mb,
        )


@dataclass(frozen=True)
class RunSettings:
    jobs: int = 2  # games of a set played at once (worker processes)
    sets_per_run: int = 0  # 0: until the budget is spent
    budget: str = "9m"  # a run plans no new set once this is spent (a cron interval minus a margin)
    plan_ahead: int = 8  # sets kept planned ahead of the run
    claim_timeout: str = "2h"  # a claim older than this is taken over even if its process seems alive
    pin: bool = True  # pin each worker to one CPU
    executor: str = "local"  # where games run: "local" (worker processes here), "dask", "dask-local"
    scheduler: str = ""  # executor "dask": the scheduler's address, e.g. "tcp://10.0.0.5:8786"
    workers: int = 0  # executor "dask-local": worker processes (0: jobs)
    retries: int = 2  # executor "dask"/"dask-local": how often a task that raised is run again

    def executor_spec(self, where: str = "ladder.toml [run]") -> ExecutorSpec:
        """The executor these settings name (``ExecutorSpec`` checks them, with messages naming ``where``)."""
        table: dict[str, object] = {"executor": self.executor, "retries": self.retries}
        if self.scheduler:
            table["scheduler"] = self.scheduler
        if self.workers:
            table["workers"] = self.workers
        return ExecutorSpec.from_table(table, where)


@dataclass(frozen=True)
class BotSettings:
    deactivate_after: int = 3  # sets in a row with a crash, a start failure or a forfeit
    max_strikes: int = 3  # faults in a game before its seat is forfeited
    validation: bool = True  # a short game against the sample bots before a bot is added
    validation_deals: int = 2  # the deals it plays (the game is stopped after them); 0: a whole game


# ladder.toml's format. 1 (no ``format`` key: files written before it existed): isolation.cpu_s = 0 meant the
# referee's 600 CPU seconds per game, where ``kierki match --limit-cpu 0`` means no limit. From 2 on, 0 is no limit
# there too; a format 1 file is read with its old meaning (its 0 is 600), never rewritten.
FORMAT = 2


@dataclass(frozen=True)
class LadderConfig:
    game: str
    players: int
    format: int = FORMAT
    options: dict[str, str] = field(default_factory=dict)
    time: TimeControl = field(default_factory=TimeControl)
    isolation: Isolation = field(default_factory=Isolation)
    run: RunSettings = field(default_factory=RunSettings)
    bots: BotSettings = field(default_factory=BotSettings)
    replays_gzip_after: str = "7d"  # replay logs of sets older than this are gzip-compressed
    site_dir: str = ""  # when set, every run refreshes the site there
    rating: RatingParams = field(default_factory=RatingParams)

    def ruleset(self, where: str = CONFIG_NAME) -> Ruleset:
        try:
            return Ruleset.create(self.game, self.players, dict(self.options))
        except ValueError as error:
            raise ConfigError(f"{where}: game {self.game!r}: {error}") from None

    @property
    def higher_is_better(self) -> bool:
        return self.game in ("kierki", "kierki3")

    def to_toml(self) -> str:
        data: dict[str, Any] = {
            "format": self.format,
            "game": self.game,
            "players": self.players,
            "replays_gzip_after": self.replays_gzip_after,
            "site_dir": self.site_dir,
            "options": dict(self.options),
            "time": asdict(self.time),
            "isolation": asdict(self.isolation),
            "run": asdict(self.run),
            "bots": asdict(self.bots),
            "rating": {"model": "plackett-luce", **asdict(self.rating)},
        }
        header = (
            "# The ladder's settings (kierki ladder init wrote them; edit freely, every run reads them).\n"
            '# isolation.sandbox: "bwrap" (a run refuses to start without a working bubblewrap) or "none".\n'
            '# isolation.fair_play: "auto" (a run refuses to start where no control group can be made) or "none".\n'
            '# Durations: a number with s, m, h or d. site_dir: "" for no site, else where runs write it.\n'
            "# [isolation]: as kierki match's options (cpu_s: --limit-cpu, per game); 0 turns a limit off.\n"
        )
        return header + tomli_w.dumps(data)

    @classmethod
    def load(cls, folder: Path) -> LadderConfig:
        path = folder / CONFIG_NAME
        try:
            data = tomllib.loads(path.read_text())
        except FileNotFoundError:
            raise ConfigError(f"{path} does not exist: create the ladder with `kierki ladder init {folder}`") from None
        except (OSError, UnicodeDecodeError) as error:
            raise ConfigError(f"cannot read {path}: {error}") from None
        except tomllib.TOMLDecodeError as error:
            raise ConfigError(f"{path}: not valid TOML: {error}") from None
        config = cls.from_dict(data, str(path))
        config.isolation.check_paths(folder, str(path))
        return config

    @classmethod
    def from_dict(cls, data: dict[str, Any], where: str = CONFIG_NAME) -> LadderConfig:
        top = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - top)
        if unknown:
            raise ConfigError(f"{where}: unknown setting(s) {', '.join(unknown)}; known: {', '.join(sorted(top))}")
        if not isinstance(data.get("game"), str) or not isinstance(data.get("players"), int):
            raise ConfigError(f"{where}: game (a string) and players (an integer) must be given")
        options = data.get("options", {})
        if not isinstance(options, dict):
            raise ConfigError(f'{where}: [options] must be a table of KEY = "VALUE"')
        version = data.get("format", 1)
        if not isinstance(version, int) or isinstance(version, bool) or not 1 <= version <= FORMAT:
            raise ConfigError(
                f"{where}: format = {version!r}: this kierki reads ladder.toml formats 1 to {FORMAT}; a newer "
                "kierki wrote it: upgrade kierki"
            )
        isolation = data.get("isolation", {})
        if version == 1 and isinstance(isolation, dict) and isolation.get("cpu_s") == 0:
            isolation = {**isolation, "cpu_s": DEFAULT_CPU_S_PER_GAME}  # format 1's 0: the referee's default
        rating = dict(data.get("rating", {}))
        model = rating.pop("model", "plackett-luce")
        if model != "plackett-luce":
            raise ConfigError(f'{where}: rating.model {model!r}: the ladder rates with "plackett-luce"')
        config = cls(
            game=data["game"],
            players=data["players"],
            format=version,
            options={str(k): str(v) for k, v in options.items()},
            time=_section(TimeControl, data, "time", where),
            isolation=_section(Isolation, {"isolation": isolation}, "isolation", where),
            run=_section(RunSettings, data, "run", where),
            bots=_section(BotSettings, data, "bots", where),
            replays_gzip_after=str(data.get("replays_gzip_after", "7d")),
            site_dir=str(data.get("site_dir", "")),
            rating=_section(RatingParams, {"rating": rating}, "rating", where),
        )
        config.check(where)
        return config

    def check(self, where: str = CONFIG_NAME) -> None:
        if self.isolation.sandbox not in SANDBOXES:
            raise ConfigError(f'{where}: isolation.sandbox {self.isolation.sandbox!r}: use "bwrap" or "none"')
        self.isolation.check(where)
        # The numbers the command-line options bound (kierki ladder init, kierki match): a hand-edited ladder.toml
        # must not play with a 0 ms deadline or rate with a zero-width model.
        at_least: list[tuple[str, int, int]] = [
            ("time.move_ms", self.time.move_ms, 1),
            ("time.startup_ms", self.time.startup_ms, 1),
            ("time.bank_ms", self.time.bank_ms, 0),
            ("time.increment_ms", self.time.increment_ms, 0),
            ("bots.max_strikes", self.bots.max_strikes, 1),
            ("bots.validation_deals", self.bots.validation_deals, 0),
            ("run.workers", self.run.workers, 0),
            ("run.retries", self.run.retries, 0),
        ]
        at_least += [(f"isolation.{name}", getattr(self.isolation, name), 0) for name in _LIMIT_FIELDS]
        for setting, number, lowest in at_least:
            if number < lowest:
                raise ConfigError(f"{where}: {setting} = {number}: must be at least {lowest}")
        for name in ("sigma", "beta", "kappa"):
            if not getattr(self.rating, name) > 0:
                raise ConfigError(f"{where}: rating.{name} = {getattr(self.rating, name)}: must be above 0")
        if not self.rating.tau >= 0:
            raise ConfigError(f"{where}: rating.tau = {self.rating.tau}: must be 0 or more")
        if self.run.jobs < 1 or self.run.sets_per_run < 0 or self.run.plan_ahead < 1:
            raise ConfigError(f"{where}: run.jobs and run.plan_ahead must be at least 1, run.sets_per_run at least 0")
        if self.bots.deactivate_after < 1:
            raise ConfigError(f"{where}: bots.deactivate_after must be at least 1")
        try:
            self.run.executor_spec(f"{where} [run]")
        except ExecutorError as error:
            raise ConfigError(str(error)) from None
        for key, value in (
            ("run.budget", self.run.budget),
            ("run.claim_timeout", self.run.claim_timeout),
            ("replays_gzip_after", self.replays_gzip_after),
        ):
            try:
                parse_duration(value)
            except ConfigError as error:
                raise ConfigError(f"{where}: {key}: {error}") from None
        self.ruleset(where)


def _section(kind: Any, data: dict[str, Any], key: str, where: str) -> Any:
    table = data.get(key, {})
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: [{key}] must be a table")
    known = {f.name: f for f in fields(kind)}
    unknown = sorted(set(table) - set(known))
    if unknown:
        raise ConfigError(f"{where}: [{key}]: unknown setting(s) {', '.join(unknown)}; known: {', '.join(known)}")
    defaults = kind()
    for name, value in table.items():
        expected = type(getattr(defaults, name))
        if expected is float and isinstance(value, int) and not isinstance(value, bool):
            continue
        if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
            raise ConfigError(f"{where}: {key}.{name} = {value!r}: expected {expected.__name__}")
    return kind(**{k: float(v) if type(getattr(defaults, k)) is float else v for k, v in table.items()})


# --- the secret key ---------------------------------------------------------------------------------------------


def write_key(folder: Path) -> None:
    """A fresh 256-bit key, readable by its owner only."""
    path = folder / KEY_NAME
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as file:
        file.write(secrets.token_hex(32) + "\n")


def read_key(folder: Path) -> bytes:
    path = folder / KEY_NAME
    try:
        text = path.read_text().strip()
        key = bytes.fromhex(text)
    except FileNotFoundError:
        raise ConfigError(f"{path} is missing: the ladder's set seeds need it (restore it from a backup)") from None
    except (OSError, ValueError) as error:
        raise ConfigError(f"cannot read the secret key {path}: {error}") from None
    if path.stat().st_mode & 0o077:
        raise ConfigError(f"{path} is readable by others: chmod 600 {path}")
    if not 16 <= len(key) <= 64:
        raise ConfigError(f"{path}: the key must be 16 to 64 bytes in hex; write a new one only for a new ladder")
    return key


def set_seed(key: bytes, set_id: int) -> str:
    """The deal seed of a set: a keyed hash (BLAKE2b) of the set's id under the ladder's secret key, as 32 hex
    digits (128 bits, as a match's default seed)."""
    return hashlib.blake2b(set_id.to_bytes(8, "big"), key=key, digest_size=16).hexdigest()
