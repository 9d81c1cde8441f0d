"""Games and their named rule options.

Every house rule is a named option with the default that RULES.md adopts, so a match or a ladder selects a
variant by name and no variant ever needs a code change. A `Ruleset` is immutable and fully resolved: it holds
every option of its game, defaults included, so a replay header that records ``ruleset.options()`` reproduces
the game exactly.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

from referee.rules.records import RulesError

OptionValue = bool | int | str | tuple[int, ...]


class Game(enum.StrEnum):
    KIERKI = "kierki"
    KIERKI3 = "kierki3"
    HEARTS = "hearts"
    CANCELLATION = "cancellation"

    @property
    def higher_is_better(self) -> bool:
        """Whether a higher total is better: Kierki and Kierki for 3 score mostly penalties below zero and the
        highest total wins; the Hearts games count penalty points up and the lowest total wins (RULES.md)."""
        return self is Game.KIERKI or self is Game.KIERKI3


PLAYER_COUNTS: Mapping[Game, tuple[int, ...]] = {
    Game.KIERKI: (4,),
    Game.KIERKI3: (3,),
    Game.HEARTS: (4,),
    Game.CANCELLATION: (6, 7, 8, 9, 10, 11),
}


class Passing(enum.StrEnum):
    """Pass direction per hand (hearts family)."""

    CYCLE = "cycle"  # left, right, across, none (hearts)
    ALTERNATE = "alternate"  # left, right (cancellation)
    LEFT = "left"
    RIGHT = "right"
    NONE = "none"


class LotteryStart(enum.StrEnum):
    """Where the loteryjka starts: the dealer's card, or a fixed rank."""

    DEALER = "dealer"
    SEVEN = "7"
    EIGHT = "8"


class LotteryMissing2C(enum.StrEnum):
    """3-player loteryjka started at rank 2, when 2♣ is not in the deck."""

    VIRTUAL = "virtual"
    FORBID_TWO = "forbid_two"


class MoonDefault(enum.StrEnum):
    """The moon choice played for a bot that does not answer."""

    OTHERS = "others"
    SELF = "self"
    SAFETY = "safety"


class LastCancelled(enum.StrEnum):
    """Who collects a cancellation last trick that nobody won."""

    NOBODY = "nobody"
    LEADER = "leader"
    SECOND_HIGHEST = "second_highest"


class RulesetError(RulesError):
    """A game, player count or rule option that does not exist or has a value it cannot take."""


@dataclass(frozen=True)
class OptionSpec:
    """One rule option: its name, the games that have it, its help, its allowed values and default."""

    name: str
    games: frozenset[Game]
    help: str
    choices: tuple[OptionValue, ...] = ()
    default: Callable[[Game, int], OptionValue] = lambda game, players: False
    minimum: int | None = None  # the least value of a whole-number option

    def parse(self, raw: object) -> OptionValue:
        """Accept a native value (JSON) or the text of ``--option KEY=VALUE``."""
        kind = type(self.default(next(iter(self.games)), 4))
        try:
            value: OptionValue
            if kind is bool:
                value = _parse_bool(raw)
            elif kind is int:
                if isinstance(raw, bool) or not isinstance(raw, int | str):
                    raise ValueError
                value = int(raw)
            elif issubclass(kind, enum.StrEnum):
                if not isinstance(raw, str | int) or isinstance(raw, bool):
                    raise ValueError
                value = kind(str(raw))
            elif kind is tuple:
                items = raw.split(",") if isinstance(raw, str) else raw
                if not isinstance(items, list | tuple):
                    raise ValueError
                value = tuple(int(x) for x in items)
            else:
                if not isinstance(raw, str | int) or isinstance(raw, bool):
                    raise ValueError
                value = str(raw)
        except ValueError:
            if self.choices:
                raise RulesetError(f"option {self.name}: {raw!r} is not allowed" + self._choices_hint()) from None
            what = {bool: "true or false", int: "a whole number", tuple: "a list of numbers like 7,13"}.get(
                kind, "text"
            )
            raise RulesetError(f"option {self.name}: {raw!r} is not {what}" + self._choices_hint()) from None
        if self.choices and value not in self.choices:
            raise RulesetError(f"option {self.name}: {raw!r} is not allowed" + self._choices_hint())
        if self.minimum is not None and isinstance(value, int) and value < self.minimum:
            raise RulesetError(f"option {self.name}: {raw!r} is too small (the least is {self.minimum})")
        return value

    def _choices_hint(self) -> str:
        if not self.choices:
            return ""
        shown = ", ".join(_show(c) for c in self.choices)
        return f" (choose one of: {shown})"


def _show(value: OptionValue) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, tuple):
        return ",".join(str(v) for v in value)
    return str(value)


def _parse_bool(raw: object) -> bool:
    if isinstance(raw, bool):
        return raw
    if isinstance(raw, str) and raw.lower() in ("true", "1", "yes", "on"):
        return True
    if isinstance(raw, str) and raw.lower() in ("false", "0", "no", "off"):
        return False
    raise ValueError


_KIERKI = frozenset({Game.KIERKI, Game.KIERKI3})
_HEARTS_FAMILY = frozenset({Game.HEARTS, Game.CANCELLATION})


def _const(value: OptionValue) -> Callable[[Game, int], OptionValue]:
    return lambda game, players: value


def _by_game(**values: OptionValue) -> Callable[[Game, int], OptionValue]:
    return lambda game, players: values[game.value]


OPTION_SPECS: tuple[OptionSpec, ...] = (
    # Polish Kierki, 4 and 3 players (RULES.md §2, §3).
    OptionSpec(
        "play_out_all_tricks",
        _KIERKI,
        "deals 2-5 run all tricks instead of ending at the trick that takes the last penalty card "
        "(scores are identical either way) [A-K7]",
    ),
    OptionSpec(
        "kh_must_discard",
        _KIERKI,
        "deal 5: a player holding K♥ must play it whenever it is a legal card and they are not on lead "
        "(house rule recorded by ZG/ENC) [A-K5]",
    ),
    OptionSpec(
        "deal6_tricks",
        _KIERKI,
        "deal 6: the two tricks that cost the 7th/last-trick penalty [A-K6, A-K3-1]",
        default=lambda game, players: (7, 13) if game is Game.KIERKI else (7, 17),
    ),
    OptionSpec(
        "allow_no_trump",
        _KIERKI,
        "trump deals: the dealer may also name no trump (NT) [A-K9]",
    ),
    OptionSpec(
        "rozbojnik",
        _KIERKI,
        "play deal 7, the robber (rozbójnik); without it the match has one deal fewer [A-K3-2]",
        default=_const(True),
    ),
    OptionSpec(
        "trump_trick_value_3p",
        frozenset({Game.KIERKI3}),
        "points per trick in the 3-player trump deals: 20 (seed, the match sums to -255) or 25 "
        "(balanced, sums to 0) [A-K3-6]",
        choices=(20, 25),
        default=_const(20),
    ),
    OptionSpec(
        "lottery_start",
        _KIERKI,
        "loteryjka start rank: 'dealer' (the dealer plays any card and its rank opens every suit), or a "
        "fixed rank '7' or '8' (Fan-Tan style; the player left of the dealer moves first) [A-K11]",
        choices=tuple(LotteryStart),
        default=_const(LotteryStart.DEALER),
    ),
    OptionSpec(
        "lottery_missing_2c",
        frozenset({Game.KIERKI3}),
        "3 players, loteryjka started at rank 2: 'virtual' (clubs count as opened at a virtual 2♣) or "
        "'forbid_two' (the dealer may not open with a 2) [A-K3-7]",
        choices=tuple(LotteryMissing2C),
        default=_const(LotteryMissing2C.VIRTUAL),
    ),
    # Hearts and Cancellation Hearts (RULES.md §1, §4).
    OptionSpec(
        "qs_breaks_hearts",
        _HEARTS_FAMILY,
        "playing Q♠ breaks hearts [A-H3, A-CH6]",
        default=_by_game(hearts=False, cancellation=True),
    ),
    OptionSpec(
        "first_trick_no_points",
        _HEARTS_FAMILY,
        "no heart or Q♠ may be played to trick 1 unless the hand holds nothing else [§4.1.5, A-CH5]",
        default=_by_game(hearts=True, cancellation=False),
    ),
    OptionSpec(
        "first_trick_prefer_heart_over_qs",
        _HEARTS_FAMILY,
        "trick 1, a void hand of only hearts and Q♠ must play a heart rather than Q♠ [A-H2]",
    ),
    OptionSpec(
        "target",
        _HEARTS_FAMILY,
        "the game ends after the hand in which any total reaches this (at least 1) [A-H7, §1.1.15]",
        default=_by_game(hearts=100, cancellation=150),
        minimum=1,
    ),
    OptionSpec(
        "moon_value",
        _HEARTS_FAMILY,
        "points the moon shooter takes off their own total or gives to every other player [A-CH13]",
        choices=(26, 52),
        default=_const(26),
    ),
    OptionSpec(
        "moon_default",
        _HEARTS_FAMILY,
        "moon choice played for a bot that does not answer: 'others' (+N to everyone else), 'self' (-N "
        "to the shooter) or 'safety' (self when 'others' would end the game without the shooter "
        "winning) [A-H6, A-CH14]",
        choices=tuple(MoonDefault),
        default=_const(MoonDefault.OTHERS),
    ),
    OptionSpec(  # one spec per game, so that each lists exactly the choices its game takes
        "passing",
        frozenset({Game.HEARTS}),
        "pass direction per hand: 'cycle' (left, right, across, none), 'left' every hand, or 'none' [§4.1.3]",
        choices=(Passing.CYCLE, Passing.LEFT, Passing.NONE),
        default=_const(Passing.CYCLE),
    ),
    OptionSpec(
        "passing",
        frozenset({Game.CANCELLATION}),
        "pass direction per hand: 'alternate' (left, right), 'left' every hand, 'right' every hand, or 'none' [A-CH3]",
        choices=(Passing.ALTERNATE, Passing.LEFT, Passing.RIGHT, Passing.NONE),
        default=_const(Passing.ALTERNATE),
    ),
    OptionSpec(
        "last_cancelled",
        frozenset({Game.CANCELLATION}),
        "a last trick with no winner: 'nobody' collects it (seed), the 'leader' takes it (WP-CH), or the "
        "'second_highest' (the later copy of the highest led-suit card, GRACE) [A-CH11]",
        choices=tuple(LastCancelled),
        default=_const(LastCancelled.NOBODY),
    ),
)


def option_specs(game: Game) -> list[OptionSpec]:
    return [spec for spec in OPTION_SPECS if game in spec.games]


@dataclass(frozen=True)
class Ruleset:
    """A game, its player count and every one of its options, resolved."""

    game: Game
    players: int
    values: tuple[tuple[str, OptionValue], ...] = field(default=())

    # Resolved once, so the hot paths read attributes rather than look names up.
    play_out_all_tricks: bool = False
    kh_must_discard: bool = False
    deal6_tricks: tuple[int, ...] = (7, 13)
    allow_no_trump: bool = False
    rozbojnik: bool = True
    trump_trick_value: int = 25
    lottery_start: LotteryStart = LotteryStart.DEALER
    lottery_missing_2c: LotteryMissing2C = LotteryMissing2C.VIRTUAL
    qs_breaks_hearts: bool = False
    first_trick_no_points: bool = True
    first_trick_prefer_heart_over_qs: bool = False
    target: int = 100
    moon_value: int = 26
    moon_default: MoonDefault = MoonDefault.OTHERS
    passing: Passing = Passing.CYCLE
    last_cancelled: LastCancelled = LastCancelled.NOBODY

    @classmethod
    def create(
        cls,
        game: Game | str,
        players: int | None = None,
        options: Mapping[str, object] | None = None,
    ) -> Ruleset:
        """Resolve a game, a player count (None: the game's default) and named options."""
        try:
            game = Game(game)
        except ValueError:
            names = ", ".join(g.value for g in Game)
            raise RulesetError(f"unknown game {game!r}: choose one of {names}") from None
        allowed = PLAYER_COUNTS[game]
        if players is None:
            players = allowed[0]
        if players not in allowed:
            raise RulesetError(
                f"{game.value} is played by {allowed[0]}"
                + (f" to {allowed[-1]}" if len(allowed) > 1 else "")
                + f" players, not {players}"
            )
        given = dict(options or {})
        resolved: dict[str, OptionValue] = {}
        for spec in option_specs(game):
            if spec.name in given:
                resolved[spec.name] = spec.parse(given.pop(spec.name))
            else:
                resolved[spec.name] = spec.default(game, players)
        if given:
            known = ", ".join(spec.name for spec in option_specs(game))
            unknown = ", ".join(sorted(given))
            raise RulesetError(f"{game.value} has no option {unknown}; its options are: {known}")
        last_trick = 13 if game is Game.KIERKI else 17
        deal6 = resolved.get("deal6_tricks", (7, 13))
        if game in _KIERKI and (
            not isinstance(deal6, tuple)
            or len(deal6) != 2
            or deal6[0] == deal6[1]
            or not all(1 <= t <= last_trick for t in deal6)
        ):
            raise RulesetError(
                f"option deal6_tricks: give two different trick numbers from 1 to {last_trick}, for example 7,13"
            )
        attrs: dict[str, OptionValue] = dict(resolved)
        if "trump_trick_value_3p" in attrs:
            attrs["trump_trick_value"] = attrs.pop("trump_trick_value_3p")
        ruleset = cls(game=game, players=players, values=tuple(sorted(resolved.items())))
        return replace(ruleset, **attrs)  # type: ignore[arg-type]

    def options(self) -> dict[str, OptionValue]:
        """Every option of this game with its value (JSON-friendly except tuples)."""
        return dict(self.values)

    def describe(self) -> str:
        shown = " ".join(f"{name}={_show(value)}" for name, value in self.values)
        return f"{self.game.value} ({self.players} players) {shown}".rstrip()
