"""A ladder's settings: ``DIR/ladder.toml`` (every setting, written in full by ``init`` and editable) and the
secret key that seeds its sets (``DIR/secret.key``, mode 600).

Set seeds are a keyed hash of the set's id under the secret key: the organiser can replay any set's deals, and a bot
(which never sees the ladder's folder) cannot guess the next set's cards from the ones it has been dealt.
"""

from __future__ import annotations

import os
import re
import secrets
import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Annotated, Any

import msgspec
import tomli_w
from msgspec import Meta

from competition.executors import ExecutorError, ExecutorSpec
from competition.ratings import RatingParams
from referee.api import (
    DEFAULT_CPU_S_PER_GAME,
    LIMIT_SETTINGS,
    AnalysisSettings,
    FaultPolicy,
    Isolation,
    Limits,
    MatchSpec,
    RulesetSpec,
    SettingError,
    TimeControl,
    check_declared,
)
from referee.rules import Game, Ruleset

__all__ = [
    "CONFIG_NAME",
    "DATABASE_NAME",
    "KEY_NAME",
    "LADDER_ISOLATION",
    "ConfigError",
    "LadderConfig",
    "check_bot_ro",
    "isolation_in",
    "isolation_table",
    "ladder_isolation",
    "parse_duration",
    "unapplied_warnings",
]

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


# A ladder runs strangers' bots: under bubblewrap unless told otherwise, the CPU limit explicit (one game's default),
# and each bot's writes in tmpfs of its own (disk_mb, DEFAULT_DISK_MB: its files fill only its own space).
LADDER_ISOLATION = Isolation(limits=Limits(cpu_s=DEFAULT_CPU_S_PER_GAME), sandbox="bwrap")


def ladder_isolation(isolation: Isolation) -> Isolation:
    """``isolation`` (the command line's) as ladder.toml keeps it: the CPU limit explicit (left out: the referee's
    default for one game, a ladder's games being one game each), read-only paths absolute."""
    cpu_s = DEFAULT_CPU_S_PER_GAME if isolation.limits.cpu_s is None else isolation.limits.cpu_s
    return msgspec.structs.replace(
        isolation,
        limits=replace(isolation.limits, cpu_s=cpu_s),
        bot_ro=tuple(path.resolve() for path in isolation.bot_ro),
    )


def isolation_table(isolation: Isolation) -> dict[str, Any]:
    """ladder.toml's ``[isolation]``: each key means what the option of the same name means for ``kierki match``
    (the limits' keys at the top, ``memory_mb`` for ``--limit-memory``); 0 turns a limit off."""
    data = msgspec.to_builtins(isolation, enc_hook=str)
    limits = data.pop("limits")
    if limits["cpu_s"] is None:
        limits["cpu_s"] = DEFAULT_CPU_S_PER_GAME
    sandbox, bot_ro, bot_env = data.pop("sandbox"), list(data.pop("bot_ro")), dict(data.pop("bot_env"))
    return {"sandbox": sandbox, **limits, "bot_ro": bot_ro, "bot_env": bot_env, **data}


def _isolation_from(table: object, where: str) -> Isolation:
    """``[isolation]`` as the referee's `Isolation`, through its own check (a `ConfigError` naming the key)."""
    defaults = isolation_table(LADDER_ISOLATION)
    given = _table(table, "isolation", defaults, where)
    bot_ro = given.pop("bot_ro", [])
    if not all(isinstance(path, str) and path for path in bot_ro):
        raise ConfigError(f"{where}: isolation.bot_ro must be a list of paths (strings)")
    bot_env = given.pop("bot_env", {})
    limits = {name: given.pop(name) for name in LIMIT_SETTINGS if name in given}
    try:
        return Isolation(
            limits=replace(LADDER_ISOLATION.limits, **limits),
            bot_ro=tuple(Path(path) for path in bot_ro),
            bot_env=tuple(bot_env.items()),
            **{"sandbox": LADDER_ISOLATION.sandbox, **given},
        )
    except SettingError as error:
        raise ConfigError(f"{where}: isolation.{error}") from None


def unapplied_warnings(isolation: Isolation, where: str) -> list[str]:
    """The settings a run accepts but cannot apply, each as one line that says what to change.

    ``ladder init`` refuses them, as ``kierki match`` does, but a hand-edited ladder.toml may hold them; refusing
    it on load would stop a ladder's cron runs, so every run says so instead (``run_ladder``'s ``warn``). (Of the
    settings only the sandbox applies, ``bot_ro`` is refused on load: `LadderConfig.check`.)"""
    if "disk_mb" in isolation.unapplied():
        return [
            f"{where}: isolation.disk_mb = {isolation.limits.disk_mb} is not applied: the disk limit is a tmpfs inside "
            f'the sandbox, and sandbox = "{isolation.sandbox}"; set sandbox = "bwrap" to apply it, or disk_mb = 0'
        ]
    return []


def isolation_in(isolation: Isolation, folder: Path) -> Isolation:
    """The isolation of a ladder's games: its read-only paths relative to the ladder's folder resolved, and control
    groups required unless fair_play = "none" (a ladder runs strangers' bots: a game on a machine without them
    fails instead of running on the wall clock)."""
    return msgspec.structs.replace(
        isolation,
        bot_ro=tuple((folder / path).resolve() for path in isolation.bot_ro),
        fair_play="none" if isolation.fair_play == "none" else "cgroup",
    )


def check_bot_ro(isolation: Isolation, folder: Path, where: str) -> None:
    """Each bot_ro path exists and shows none of the ladder's folder (its secret key, every bot's logs)."""
    ladder = folder.resolve()
    for given, path in zip(isolation.bot_ro, isolation_in(isolation, folder).bot_ro, strict=True):
        if not path.exists():
            raise ConfigError(f"{where}: isolation.bot_ro: {given} does not exist")
        if ladder.is_relative_to(path) or path.is_relative_to(ladder):
            raise ConfigError(
                f"{where}: isolation.bot_ro: {given} shows the ladder's folder (its secret key and logs) to "
                "every bot: name a folder outside it that does not hold it"
            )


class _Section(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A table of ladder.toml: its bounds declared on its fields, checked as it is made (a `SettingError` that
    `LadderConfig.from_dict` words as ``bots.max_strikes = 0: must be at least 1``)."""

    def __post_init__(self) -> None:
        check_declared(self)


AtLeast0 = Annotated[int, Meta(ge=0)]
AtLeast1 = Annotated[int, Meta(ge=1)]


class RunSettings(_Section, frozen=True):
    jobs: AtLeast1 = 2  # games of a set played at once (worker processes)
    sets_per_run: AtLeast0 = 0  # 0: until the budget is spent
    budget: str = "9m"  # a run plans no new set once this is spent (a cron interval minus a margin)
    plan_ahead: AtLeast1 = 8  # sets kept planned ahead of the run
    claim_timeout: str = "2h"  # a claim older than this is taken over even if its process seems alive
    pin: bool = True  # pin each worker to one CPU
    executor: str = "local"  # where games run: "local" (worker processes here), "dask", "dask-local"
    scheduler: str = ""  # executor "dask": the scheduler's address, e.g. "tcp://10.0.0.5:8786"
    workers: AtLeast0 = 0  # executor "dask-local": worker processes (0: jobs)
    retries: AtLeast0 = 2  # executor "dask"/"dask-local": how often a task that raised is run again

    def executor_spec(self, where: str = "ladder.toml [run]") -> ExecutorSpec:
        """The executor these settings name (``ExecutorSpec`` checks them, with messages naming ``where``)."""
        table: dict[str, object] = {"executor": self.executor, "retries": self.retries}
        if self.scheduler:
            table["scheduler"] = self.scheduler
        if self.workers:
            table["workers"] = self.workers
        return ExecutorSpec.from_table(table, where)


class BotSettings(_Section, frozen=True):
    deactivate_after: AtLeast1 = 3  # sets in a row with a crash, a start failure or a forfeit
    max_strikes: AtLeast1 = 3  # faults in a game before its seat is forfeited
    validation: bool = True  # a short game against the sample bots before a bot is added
    validation_deals: AtLeast0 = 2  # the deals it plays (the game is stopped after them); 0: a whole game


class InboxSettings(_Section, frozen=True):
    enabled: bool = True  # every run (and `ladder intake`) takes the complete submissions in DIR/inbox
    max_mb: AtLeast1 = 64  # a submission's files, all told
    max_files: AtLeast1 = 2000
    unsandboxed: bool = False  # take submissions with isolation.sandbox = "none" (strangers' code unsandboxed)


class RetentionSettings(_Section, frozen=True):
    keep_days: AtLeast0 = 0  # replay logs of sets played longer ago than this are pruned (0: kept)
    keep_sets: AtLeast0 = 0  # ... and of sets older than the newest this many (0: kept)
    min_free_mb: AtLeast0 = 200  # a run refuses to start with less free space than this under DIR (0: no check)


class AnalysisSection(_Section, frozen=True):
    enabled: bool = False  # analyse each game once played, in its worker (kierki analyse; docs/viewers/analysis.md)
    playouts: AtLeast0 = 0  # the search's playouts a decision (0: kierki analyse's default)

    def settings(self) -> AnalysisSettings | None:
        if not self.enabled:
            return None
        return AnalysisSettings(playouts=self.playouts or None)


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
    isolation: Isolation = LADDER_ISOLATION
    run: RunSettings = field(default_factory=RunSettings)
    bots: BotSettings = field(default_factory=BotSettings)
    inbox: InboxSettings = field(default_factory=InboxSettings)
    retention: RetentionSettings = field(default_factory=RetentionSettings)
    replays_gzip_after: str = "1h"  # replay logs of sets older than this are gzip-compressed
    site_dir: str = ""  # when set, every run refreshes the site there
    rating: RatingParams = field(default_factory=RatingParams)
    analysis: AnalysisSection = field(default_factory=AnalysisSection)

    def ruleset(self, where: str = CONFIG_NAME) -> Ruleset:
        try:
            return Ruleset.create(self.game, self.players, dict(self.options))
        except ValueError as error:
            raise ConfigError(f"{where}: game {self.game!r}: {error}") from None

    @property
    def higher_is_better(self) -> bool:
        return Game(self.game).higher_is_better

    def match(self, folder: Path) -> MatchSpec:
        """How every game of the ladder in ``folder`` is played: its rules, clock, strikes and isolation (its
        sets' games and the validation game fill in the bots and the seed)."""
        return MatchSpec(
            rules=RulesetSpec.of(self.ruleset()),
            time=self.time,
            faults=FaultPolicy(max_strikes=self.bots.max_strikes),
            isolation=isolation_in(self.isolation, folder),
        )

    def to_toml(self) -> str:
        data: dict[str, Any] = {
            "format": self.format,
            "game": self.game,
            "players": self.players,
            "replays_gzip_after": self.replays_gzip_after,
            "site_dir": self.site_dir,
            "options": dict(self.options),
            "time": msgspec.structs.asdict(self.time),
            "isolation": isolation_table(self.isolation),
            "run": msgspec.structs.asdict(self.run),
            "bots": msgspec.structs.asdict(self.bots),
            "inbox": msgspec.structs.asdict(self.inbox),
            "retention": msgspec.structs.asdict(self.retention),
            "rating": {"model": "plackett-luce", **msgspec.structs.asdict(self.rating)},
            "analysis": msgspec.structs.asdict(self.analysis),
        }
        header = (
            "# The ladder's settings (kierki ladder init wrote them; edit freely, every run reads them).\n"
            '# isolation.sandbox: "bwrap" (a run refuses to start without a working bubblewrap) or "none".\n'
            '# isolation.fair_play: "auto" (a run refuses to start where no control group can be made) or "none".\n'
            '# Durations: a number with s, m, h or d. site_dir: "" for no site, else where runs write it.\n'
            "# [isolation]: as kierki match's options (cpu_s: --limit-cpu, per game); 0 turns a limit off.\n"
            "# isolation.disk_mb: with bwrap, a bot's private directory, /tmp and /dev/shm are each a tmpfs of this\n"
            "# many MB, at most 64 files a MB, in its memory (SECURITY.md, Disk); 0: its directory on this disk.\n"
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
        check_bot_ro(config.isolation, folder, str(path))
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
            time=_time_from(data.get("time", {}), where),
            isolation=_isolation_from(isolation, where),
            run=_section(RunSettings, data, "run", where),
            bots=_section(BotSettings, data, "bots", where),
            inbox=_section(InboxSettings, data, "inbox", where),
            retention=_section(RetentionSettings, data, "retention", where),
            replays_gzip_after=str(data.get("replays_gzip_after", "1h")),
            site_dir=str(data.get("site_dir", "")),
            rating=_section(RatingParams, {"rating": rating}, "rating", where),
            analysis=_section(AnalysisSection, data, "analysis", where),
        )
        config.check(where)
        return config

    def check(self, where: str = CONFIG_NAME) -> None:
        """What the settings' own values do not check themselves (the time control, the isolation, the rating
        model's parameters and each table do, as they are made, against the bounds their types declare:
        `_time_from`, `_isolation_from`, `_section`)."""
        if "bot_ro" in self.isolation.unapplied():
            raise ConfigError(f'{where}: isolation.bot_ro applies inside the sandbox: set sandbox = "bwrap"')
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


def _table(table: object, key: str, defaults: dict[str, Any], where: str) -> dict[str, Any]:
    """A TOML table whose keys are those of ``defaults``, each value of its default's type (an int for a float)."""
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: [{key}] must be a table")
    unknown = sorted(set(table) - set(defaults))
    if unknown:
        raise ConfigError(f"{where}: [{key}]: unknown setting(s) {', '.join(unknown)}; known: {', '.join(defaults)}")
    checked = {}
    for name, value in table.items():
        expected = type(defaults[name])
        if expected is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        elif not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
            raise ConfigError(f"{where}: {key}.{name} = {value!r}: expected {expected.__name__}")
        checked[name] = value
    return checked


def _section(kind: Any, data: dict[str, Any], key: str, where: str) -> Any:
    """A table as its Struct: each key of its type (`_table`), each value within the bounds the type declares."""
    try:
        return kind(**_table(data.get(key, {}), key, msgspec.structs.asdict(kind()), where))
    except SettingError as error:
        raise ConfigError(f"{where}: {key}.{error}") from None


def _time_from(table: object, where: str) -> TimeControl:
    """``[time]`` as the referee's `TimeControl`, through its own check (a `ConfigError` naming the key)."""
    try:
        return TimeControl(**_table(table, "time", msgspec.structs.asdict(TimeControl()), where))
    except SettingError as error:
        raise ConfigError(f"{where}: time.{error}") from None


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
