"""What a match is asked to play: the bots' commands, the ruleset, the clock, the isolation and the rest of a
match's configuration, and the errors that stop a match before or while it runs (``referee.match`` plays it)."""

from __future__ import annotations

import errno
import importlib.util
import os
import shlex
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path, PurePath
from typing import Final, TypeVar

import msgspec

from protocol import messages as m
from referee import wire
from referee.bots.isolation import Isolation
from referee.bots.time_control import TimeControl
from referee.rules import Action, DealSpec, GameEnded, RulesError, Ruleset
from referee.vocabulary.faults import FaultPolicy


class MatchSetupError(RuntimeError):
    """The match could not run, or had to stop: a bot that cannot be started or fails its handshake, a bad
    configuration, a replay log that cannot be written.

    ``stderr`` holds the last lines the bot concerned wrote to its stderr, when there is one (they usually say why).
    """

    def __init__(self, message: str, stderr: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.stderr = stderr


class DiskFullError(MatchSetupError):
    """The match stopped, or could not make its folder: the disk its logs go to is full, and no bot's private
    directory holds the space."""


class SeatFilledDisk(DiskFullError):
    """The match stopped on a full disk, and one bot's private directory holds the space: its doing, not the
    referee's. ``bot`` is its index in the match's bots; ``reason`` says what it did, for its author."""

    def __init__(self, message: str, bot: int, reason: str) -> None:
        super().__init__(message)
        self.bot = bot
        self.reason = reason


class BotSpec(msgspec.Struct, frozen=True):
    """How to start one bot: its command, folder and own environment, and its own time control if any."""

    argv: tuple[str, ...]
    cwd: Path = msgspec.field(default_factory=Path.cwd)
    env: tuple[tuple[str, str], ...] = ()  # this bot's own variables, over its isolation's bot_env
    time: TimeControl | None = None  # this bot's own time control, instead of MatchSpec.time
    # The organiser's name for the bot (a tournament's NAME, a ladder's NAME@version): its seat's name in the
    # replay header, beside the name the bot gives itself in its hello. None: the match names none.
    label: str | None = None

    @classmethod
    def parse(cls, command: str) -> BotSpec:
        """A shell-quoted command line, or ``sample:NAME`` for a sample bot (``SAMPLE_BOTS``: heuristic, random,
        montecarlo, expert)."""
        if command.startswith("sample:"):
            name = command.removeprefix("sample:").removesuffix("_bot")
            if name not in SAMPLE_BOTS:
                raise MatchSetupError(
                    f"no sample bot {name!r}: use one of " + ", ".join(f"sample:{n}" for n in SAMPLE_BOTS)
                )
            return sample_bot_command(f"{name}_bot")
        try:
            argv = tuple(shlex.split(command))
        except ValueError as error:
            raise MatchSetupError(f"bot command {command!r}: {error}") from None
        if not argv:
            raise MatchSetupError("a bot command is empty; give the program to run, e.g. 'python3 bot.py'")
        return cls(argv)

    @property
    def command(self) -> str:
        return shlex.join(self.argv)


# A rule option's value, as ``Ruleset.options`` gives it.
OptionValue = bool | int | str | tuple[int, ...]
# A decision as the bot's answer says it (its id unused): how the bytes of `encode_spec` hold a `Prefix`'s.
Answer = m.PassAnswer | m.TrumpAnswer | m.PlayAnswer | m.MoonAnswer


class RulesetSpec(msgspec.Struct, frozen=True):
    """A `Ruleset` as plain data: its game, players and every option (`RulesetSpec.of` a ruleset; `resolve` back)."""

    game: str
    players: int
    options: dict[str, OptionValue] = msgspec.field(default_factory=dict)

    @classmethod
    def of(cls, ruleset: Ruleset) -> RulesetSpec:
        return cls(ruleset.game.value, ruleset.players, ruleset.options())

    def resolve(self) -> Ruleset:
        """The ruleset; a `MatchSetupError` saying what is wrong (an unknown option, a player count)."""
        try:
            return Ruleset.create(self.game, self.players, self.options)
        except RulesError as error:
            raise MatchSetupError(str(error)) from None


class Prefix:
    """Decisions (seat, action) applied before any bot is asked, in game 1: a game resumed from its replay log
    (``kierki match --from``). Rules actions throughout; only the bytes of `encode_spec` write each one as the
    answer a bot would have sent for it, and `decode_spec` reads them back."""

    __slots__ = ("decisions",)

    def __init__(self, decisions: Iterable[tuple[int, Action]] = ()) -> None:
        self.decisions: tuple[tuple[int, Action], ...] = tuple(decisions)

    def __iter__(self) -> Iterator[tuple[int, Action]]:
        return iter(self.decisions)

    def __len__(self) -> int:
        return len(self.decisions)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Prefix) and other.decisions == self.decisions

    def __hash__(self) -> int:
        return hash(self.decisions)

    def __repr__(self) -> str:
        return f"Prefix({self.decisions!r})"


class MatchSpec(msgspec.Struct, frozen=True, kw_only=True):
    """What a match is asked to play, as plain data: every setting of a match but the folder it writes into, each
    declared here once. ``encode_spec`` and ``decode_spec`` carry it as bytes: this is what a tournament ships to a
    worker, on this machine or another (``competition.game.GameSpec``). `MatchConfig.from_spec` resolves it."""

    rules: RulesetSpec
    bots: tuple[BotSpec, ...] = ()
    seed: str = "1"  # any text; see referee/rules/dealing.py
    first_game: int = 1  # the number of the first game (a resumed game keeps its number: its deals depend on it)
    games: int = 1
    deals: tuple[DealSpec, ...] = ()
    deals_source: str | None = None
    time: TimeControl = msgspec.field(default_factory=TimeControl)
    faults: FaultPolicy = msgspec.field(default_factory=FaultPolicy)
    isolation: Isolation = msgspec.field(default_factory=Isolation)  # every bot's (referee/bots/isolation.py)
    transcript: bool = False
    stderr_cap_bytes: int = 1_000_000
    prefix: Prefix = msgspec.field(default_factory=Prefix)  # decisions replayed first: a game resumed from its log
    # A seat whose bot cannot start or fails its handshake is forfeited from the start (played by the fallback,
    # the reason in SeatResult.start_failure) instead of stopping the match: tournaments never stop for one bot.
    forfeit_unstartable: bool = False
    # Seats forfeited before the start without starting their bot, with the reason (a bot a tournament dropped).
    absent: tuple[tuple[int, str], ...] = ()
    # Each game after the first moves every bot one seat on (bot i sits at seat i + game - 1), so over a multiple of
    # the players every bot sits at every seat equally often; results stay per bot (SeatResult.seat: its first seat).
    rotate: bool = False
    # Stop each game once this many deals have ended (None: play it to its end). Only a ladder's short validation
    # game sets it: the rules are unchanged, the replay log ends with status "stopped" and no game_end, the
    # bots hear bye "aborted" after that deal_end, and places are those of the totals so far.
    deals_per_game: int | None = None


class MatchConfig(msgspec.Struct, frozen=True):
    """A match ready to play: its `MatchSpec`, the ruleset the spec names (resolved), and the folder it writes into.

    Built by `MatchConfig.from_spec` (the one place the commands, tournaments, the ladder and the workers make one);
    it checks itself as it is made."""

    spec: MatchSpec
    ruleset: Ruleset
    out_dir: Path

    def __post_init__(self) -> None:
        spec = self.spec
        if len(spec.bots) != self.ruleset.players:
            raise MatchSetupError(
                f"{self.ruleset.game.value} with {self.ruleset.players} players needs "
                f"{self.ruleset.players} bot commands, got {len(spec.bots)}"
            )
        if spec.deals_per_game is not None and spec.deals_per_game < 1:
            raise MatchSetupError(f"deals_per_game is {spec.deals_per_game}: give at least 1 (None: whole games)")
        if spec.games < 1:
            raise MatchSetupError(f"games is {spec.games}: give at least 1")

    @classmethod
    def from_spec(cls, spec: MatchSpec, out_dir: Path) -> MatchConfig:
        """The match ``spec`` states, played in ``out_dir``: the one factory of a match's configuration. Raises
        `MatchSetupError` saying what cannot be played (an unknown rule option, a bot count the game does not seat)."""
        return cls(spec, spec.rules.resolve(), out_dir)


SpecT = TypeVar("SpecT", bound=msgspec.Struct)


def encode_plain(value: object) -> object:
    """msgspec's ``enc_hook`` for the configuration's own types: a path as text, a prefix's decisions as answers."""
    if isinstance(value, PurePath):
        return os.fspath(value)
    if isinstance(value, Prefix):
        return [(seat, wire.to_answer(action, 0)) for seat, action in value]
    raise NotImplementedError(f"{type(value).__name__} is not plain data")


def decode_plain(kind: type, value: object) -> object:
    """msgspec's ``dec_hook``, `encode_plain` undone."""
    if kind is Path and isinstance(value, str):
        return Path(value)
    if kind is Prefix:
        answers = msgspec.convert(value, tuple[tuple[int, Answer], ...])
        return Prefix((seat, wire.to_action(answer)) for seat, answer in answers)  # (AnswerError: a ValueError)
    raise NotImplementedError(f"cannot decode {kind.__name__}")


_spec_encoder: Final = msgspec.msgpack.Encoder(enc_hook=encode_plain)


def encode_spec(spec: msgspec.Struct) -> bytes:
    """A spec (a `MatchSpec`, a ``competition.game.GameSpec``) as bytes: msgpack, paths as text, a prefix's
    decisions as answers."""
    return _spec_encoder.encode(spec)


def decode_spec(data: bytes, kind: type[SpecT]) -> SpecT:
    """``encode_spec``'s bytes back as a ``kind``, checked field by field (a `msgspec.ValidationError` if not)."""
    return msgspec.msgpack.decode(data, type=kind, dec_hook=decode_plain)


GameEndedCallback = Callable[[int, int, GameEnded], None]  # after each game: its number, the games, how it ended


SAMPLE_BOTS = ("heuristic", "random", "montecarlo", "expert")
# The sample bots are files beside this package: the repository's sample_bots/ in a checkout or an editable install,
# site-packages/sample_bots/ in an installed wheel. Found by path, never imported: the referee runs bots, and an
# import of them would make it depend on the code it referees (pyproject.toml, contract "no-sample-bots").


def _sample_bots_dir() -> Path:
    """The ``sample_bots`` folder beside this package, or, where this module runs from elsewhere (the compiled build
    that ``KIERKI_COMPILED`` names holds the referee's modules but not the bots), wherever the import system would
    find the package: ``find_spec`` of a top-level package locates it without running any of its code."""
    beside = Path(__file__).resolve().parent.parent / "sample_bots"
    if beside.is_dir():
        return beside
    spec = importlib.util.find_spec("sample_bots")
    locations = list(spec.submodule_search_locations or ()) if spec is not None else []
    return Path(locations[0]) if locations else beside


SAMPLE_BOTS_DIR: Final = _sample_bots_dir()


def sample_bot_command(name: str) -> BotSpec:
    """A sample bot from ``sample_bots/``, run with this Python: the file ``NAME.py``, or the package ``NAME``
    without its ``_bot`` (``montecarlo_bot``: ``sample_bots/montecarlo/__main__.py``)."""
    package = SAMPLE_BOTS_DIR / name.removesuffix("_bot") / "__main__.py"
    path = package if package.is_file() else SAMPLE_BOTS_DIR / f"{name}.py"
    if not path.is_file():
        raise MatchSetupError(
            f"the sample bot {name} is missing (no {path.name} in the kierki installation's sample_bots folder): "
            "reinstall kierki"
        )
    return BotSpec((sys.executable, str(path)))


def default_bots(players: int) -> tuple[BotSpec, ...]:
    """The sample bots: heuristic and random alternating around the table."""
    return tuple(sample_bot_command("heuristic_bot" if s % 2 == 0 else "random_bot") for s in range(players))


def parse_bot_commands(commands: Sequence[str]) -> tuple[BotSpec, ...]:
    return tuple(BotSpec.parse(c) for c in commands)


def make_out_dir(out_dir: Path) -> None:
    """Create a run's output folder (and its parents); raise ``MatchSetupError`` saying why it cannot be made."""
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        message = f"cannot create the output folder {out_dir}: {error.strerror}; choose another with --out"
        if error.errno in (errno.ENOSPC, errno.EDQUOT):  # a game played beside this one may hold the space
            raise DiskFullError(f"{message} (the disk is full)") from None
        raise MatchSetupError(message) from None
