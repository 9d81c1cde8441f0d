"""Every message of the kierki wire protocol, version 2, as one frozen ``msgspec.Struct`` each.

The Structs *are* the protocol: PROTOCOL.md documents them, ``protocol/schema.json`` is generated from them and
the codec decodes straight into them, so the three can never disagree.

Rules that keep the wire stable while the code changes:

- Every message is tagged on ``"type"`` with an explicit ``tag="..."`` string, so renaming a class never
  changes what goes over the pipe.
- Each class repeats ``frozen=True, kw_only=True``: msgspec applies ``kw_only`` only to the fields of the class
  that says it, and mypy only treats a subclass as frozen when it says so.
- Referee-to-bot messages ignore unknown fields when decoded, and any field added to them later must get a
  default, so recorded logs and fake bots of an older version keep decoding.
- Bot-to-referee answers forbid unknown fields: a bot that writes ``"crad"`` gets told so at once instead of
  silently having its answer replaced by the fallback.
- Cards are strings, never integers, so a bot author can read a log; ``Card`` validates them on decode.

The struct docstrings become the ``title``/``description`` of each definition in the JSON Schema, so they are
written for bot authors.
"""

from collections.abc import Mapping
from types import MappingProxyType
from typing import Annotated, Final, Literal, TypeAlias, get_args

import msgspec

__all__ = [
    "ANSWER_TYPES",
    "CARD_PATTERN",
    "EVENT_TYPES",
    "Answer",
    "BotMessage",
    "ByeEvent",
    "ByeReason",
    "Card",
    "CompletedTrick",
    "CurrentTrick",
    "DealEndEvent",
    "DealEvent",
    "DealKind",
    "DealPass",
    "ErrorCode",
    "ErrorEvent",
    "ErrorEventV1",
    "Event",
    "GameEndEvent",
    "GameName",
    "GameStartEvent",
    "HelloAnswer",
    "HelloRequest",
    "LotteryColumns",
    "LotteryMove",
    "LotteryPassEvent",
    "LotteryState",
    "MoonAnswer",
    "MoonChoice",
    "MoonOptions",
    "MoonRecord",
    "MoonRequest",
    "OptionValue",
    "PassAnswer",
    "PassDirection",
    "PassRequest",
    "PassedEvent",
    "PlayAnswer",
    "PlayRequest",
    "PlayedEvent",
    "Rank",
    "RefereeMessage",
    "Request",
    "Scores",
    "Scoring",
    "Seat",
    "Suit",
    "TimeControl",
    "TrickCard",
    "TrickEvent",
    "TrumpAnswer",
    "TrumpChoice",
    "TrumpRequest",
]

# --- value types -------------------------------------------------------------------------------------------

CARD_PATTERN: Final = "^[2-9TJQKA][CDHS]$"

Card: TypeAlias = Annotated[
    str,
    msgspec.Meta(
        pattern=CARD_PATTERN,
        description='Rank then suit: ranks 2-9 T J Q K A, suits C D H S, e.g. "QS", "TH", "2C".',
    ),
]
Seat: TypeAlias = Annotated[int, msgspec.Meta(ge=0, description="A seat, 0 to players-1; clockwise is increasing.")]
RequestId: TypeAlias = Annotated[int, msgspec.Meta(ge=0, description="Increases with every request to this bot.")]
AnswerId: TypeAlias = Annotated[int, msgspec.Meta(ge=0, description="The id of the request this answers.")]
Millis: TypeAlias = Annotated[int, msgspec.Meta(ge=0, description="Milliseconds.")]

GameName: TypeAlias = Literal["kierki", "kierki3", "hearts", "cancellation"]
Suit: TypeAlias = Literal["C", "D", "H", "S"]
TrumpChoice: TypeAlias = Literal["C", "D", "H", "S", "NT"]
Rank: TypeAlias = Literal["2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A"]
PassDirection: TypeAlias = Literal["left", "right", "across"]
DealKind: TypeAlias = Literal[
    "no_tricks",
    "no_hearts",
    "no_queens",
    "no_kings_jacks",
    "no_king_of_hearts",
    "no_seventh_last",
    "robber",
    "trump",
    "lottery",
    "hearts",
    "cancellation",
]
MoonChoice: TypeAlias = Literal["self", "others"]
ErrorCode: TypeAlias = Literal["timeout", "illegal", "malformed", "wrong_type", "crash"]
ByeReason: TypeAlias = Literal["match_over", "forfeited", "protocol_mismatch", "aborted"]
# Mirrors the rule options' value types (a list only for lists of trick numbers such as deal6_tricks).
OptionValue: TypeAlias = bool | int | str | tuple[int, ...]


class _RefereeMessage(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=False, tag_field="type"):
    """Base of referee-to-bot messages: lenient on decode, so a newer referee's extra fields are ignored."""


class _BotMessage(
    msgspec.Struct,
    frozen=True,
    kw_only=True,
    omit_defaults=False,
    tag_field="type",
    forbid_unknown_fields=True,
):
    """Base of bot-to-referee answers: strict, so a misspelt field is reported rather than ignored."""


class _Part(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=False):
    """Base of the objects nested inside referee messages."""


# --- nested parts ------------------------------------------------------------------------------------------


class TimeControl(_Part, frozen=True, kw_only=True):
    """The clock of a match, in milliseconds; each request's "time_ms" is what actually applies.

    "move_ms" is the time for one decision and "startup_ms" the time to answer "hello" (process start-up
    included). "bank_ms" is a reserve (0: none) that pays for decisions longer than "move_ms", and
    "increment_ms" is added to the reserve after every decision.
    """

    move_ms: Millis
    startup_ms: Millis
    bank_ms: Millis
    increment_ms: Millis


class TrickCard(_Part, frozen=True, kw_only=True):
    """One card played to a trick and the seat that played it."""

    seat: Seat
    card: Card


class CurrentTrick(_Part, frozen=True, kw_only=True):
    """The trick being played: who led it and the cards played so far, in playing order."""

    leader: Seat
    cards: tuple[TrickCard, ...]


class CompletedTrick(_Part, frozen=True, kw_only=True):
    """A finished trick. "number" counts from 1; "winner" is null when no card won (Cancellation)."""

    number: int
    leader: Seat
    cards: tuple[TrickCard, ...]
    winner: Seat | None


class LotteryColumns(_Part, frozen=True, kw_only=True):
    """Per suit, the lowest and highest card laid in the loteryjka, or null while the suit is unopened."""

    C: tuple[Card, Card] | None
    D: tuple[Card, Card] | None
    H: tuple[Card, Card] | None
    S: tuple[Card, Card] | None


class LotteryMove(_Part, frozen=True, kw_only=True):
    """One turn of the loteryjka: the seat and the card it laid, or a null card when it had none it could lay and
    was passed."""

    seat: Seat
    card: Card | None


class LotteryState(_Part, frozen=True, kw_only=True):
    """The loteryjka table. "start_rank" is null until the first card fixes it (the dealer's opening card).
    "moves" is every turn of this deal so far, in order (a pass as a null card), and "out" the seats that have laid
    their last card, first out first (added later with defaults: empty from an older referee)."""

    start_rank: Rank | None
    columns: LotteryColumns
    moves: tuple[LotteryMove, ...] = ()
    out: tuple[Seat, ...] = ()


class DealPass(_Part, frozen=True, kw_only=True):
    """This deal's pass as your seat saw it: the direction, the seat you passed to and the one that passed to you,
    the cards you sent and the cards you received (what the "passed" event said)."""

    direction: PassDirection
    to: Seat
    from_: Seat = msgspec.field(name="from")
    sent: tuple[Card, ...]
    received: tuple[Card, ...]


class Scores(_Part, frozen=True, kw_only=True):
    """Per seat: points taken so far in this deal, and game totals from the deals already finished ("totals", as
    in deal_end and game_end; "total" is the same list under its first name, kept for bots written before)."""

    deal: tuple[int, ...]
    total: tuple[int, ...]
    totals: tuple[int, ...] = ()


class MoonOptions(_Part, frozen=True, kw_only=True):
    """The game totals per seat after each moon option, so the shooter can compare them directly."""

    self_: tuple[int, ...] = msgspec.field(name="self")
    others: tuple[int, ...]


class MoonRecord(_Part, frozen=True, kw_only=True):
    """Who shot the moon in a deal and which option was applied."""

    seat: Seat
    choice: MoonChoice


# --- bot -> referee: answers -------------------------------------------------------------------------------
# Defined before the referee messages because ErrorEvent.fallback carries one of them.


class HelloAnswer(_BotMessage, tag="hello", frozen=True, kw_only=True):
    """Answer to "hello": who the bot is and which protocol version it speaks."""

    id: AnswerId
    name: str
    version: str
    protocol: int


class PassAnswer(_BotMessage, tag="pass", frozen=True, kw_only=True):
    """Answer to "pass": exactly "count" cards from the hand."""

    id: AnswerId
    cards: tuple[Card, ...]


class TrumpAnswer(_BotMessage, tag="trump", frozen=True, kw_only=True):
    """Answer to "trump": one of the offered "choices" ("NT" only when offered)."""

    id: AnswerId
    suit: TrumpChoice


class PlayAnswer(_BotMessage, tag="play", frozen=True, kw_only=True):
    """Answer to "play": one card from "legal"."""

    id: AnswerId
    card: Card


class MoonAnswer(_BotMessage, tag="moon", frozen=True, kw_only=True):
    """Answer to "moon": take the moon value off your own total, or add it to everyone else's."""

    id: AnswerId
    choice: MoonChoice


Answer: TypeAlias = HelloAnswer | PassAnswer | TrumpAnswer | PlayAnswer | MoonAnswer
BotMessage: TypeAlias = Answer
"""Everything a bot may write to its stdout."""

# --- referee -> bot: requests ------------------------------------------------------------------------------


class HelloRequest(_RefereeMessage, tag="hello", frozen=True, kw_only=True):
    """First message of a match; answer within "time.startup_ms" with your name and protocol version."""

    id: RequestId
    protocol: int
    game: GameName
    players: int
    seat: Seat
    options: dict[str, OptionValue]
    time: TimeControl
    games: int


# Every decision request carries, since they were added (with defaults, so a log or a fake bot of an older referee
# still decodes): your seat, the game, and its rule options ("rules": hello's "options"; the moon request's
# "options" were already its two outcomes).


class PassRequest(_RefereeMessage, tag="pass", frozen=True, kw_only=True):
    """Choose "count" cards of "hand" to give to seat "to". Every seat passes at the same time."""

    id: RequestId
    game_number: int
    deal: int
    direction: PassDirection
    to: Seat
    count: int
    hand: tuple[Card, ...]
    time_ms: Millis
    seat: Seat | None = None  # added later, as every field below
    game: GameName | None = None
    rules: dict[str, OptionValue] = msgspec.field(default_factory=dict)
    dealer: Seat | None = None
    totals: tuple[int, ...] = ()


class TrumpRequest(_RefereeMessage, tag="trump", frozen=True, kw_only=True):
    """Kierki trump deal: name trump having seen only the first cards dealt to you ("cards")."""

    id: RequestId
    game_number: int
    deal: int
    cards: tuple[Card, ...]
    choices: tuple[TrumpChoice, ...]
    time_ms: Millis
    seat: Seat | None = None  # added later, as every field below
    game: GameName | None = None
    rules: dict[str, OptionValue] = msgspec.field(default_factory=dict)
    totals: tuple[int, ...] = ()


class PlayRequest(_RefereeMessage, tag="play", frozen=True, kw_only=True):
    """Your turn: play one card of "legal". Carries everything of this game your seat has seen that bears on the rest
    of it, so a bot may keep no state: the game and its rules, your seat, this deal's dealer, pass, tricks and
    loteryjka moves, and the scores. "legal" lists the cards in the order of "hand": by suit (C, D, H, S), low to
    high."""

    id: RequestId
    game_number: int
    deal: int
    kind: DealKind
    hand: tuple[Card, ...]
    legal: tuple[Card, ...]
    trump: Suit | None
    trick: CurrentTrick | None
    tricks: tuple[CompletedTrick, ...]
    lottery: LotteryState | None
    scores: Scores
    time_ms: Millis
    seat: Seat | None = None  # added later, as every field below
    game: GameName | None = None
    rules: dict[str, OptionValue] = msgspec.field(default_factory=dict)
    dealer: Seat | None = None
    pass_: DealPass | None = msgspec.field(default=None, name="pass")  # null: no passing in this deal


class MoonRequest(_RefereeMessage, tag="moon", frozen=True, kw_only=True):
    """You took every penalty card: choose how the moon is scored, seeing the totals either way. Only the seat that
    shot the moon is asked, so "seat" is always yours. "options" are the two outcomes to choose from, not rule
    options (those are hello's)."""

    id: RequestId
    game_number: int
    deal: int
    options: MoonOptions
    time_ms: Millis
    seat: Seat | None = None  # the shooter: you (added with a default; always set by this referee)
    game: GameName | None = None  # added later, as the field below
    rules: dict[str, OptionValue] = msgspec.field(default_factory=dict)


Request: TypeAlias = HelloRequest | PassRequest | TrumpRequest | PlayRequest | MoonRequest

# --- referee -> bot: events --------------------------------------------------------------------------------


class Scoring(_Part, frozen=True, kw_only=True):
    """What each thing taken is worth in this game (0 or empty where the game has no such item); which deal scores
    which item is the deal's "kind" (PROTOCOL.md, "The games"). Kierki's penalties are negative, the Hearts games
    count penalty points up."""

    trick: int = 0
    heart: int = 0
    queen: int = 0
    king_or_jack: int = 0
    king_of_hearts: int = 0
    seventh_or_last: int = 0
    seventh_or_last_tricks: tuple[int, ...] = ()
    trump_trick: int = 0
    lottery: tuple[int, ...] = ()
    queen_of_spades: int = 0
    moon: int = 0


class GameStartEvent(_RefereeMessage, tag="game_start", frozen=True, kw_only=True):
    """A game of the match begins; "game_number" counts from 1 and "seat" is yours in this game; "scoring" gives
    the point values (added in protocol 1 with a default, so a decoder written before it keeps working)."""

    game_number: int
    players: int
    seat: Seat
    dealer: Seat
    scoring: Scoring = msgspec.field(default_factory=Scoring)


class DealEvent(_RefereeMessage, tag="deal", frozen=True, kw_only=True):
    """A deal begins: your whole hand. In a Kierki trump deal it comes once trump is named."""

    game_number: int
    deal: int
    kind: DealKind
    dealer: Seat
    hand: tuple[Card, ...]
    trump: Suit | None
    pass_direction: PassDirection | Literal["none"]
    kitty_size: int


class PassedEvent(_RefereeMessage, tag="passed", frozen=True, kw_only=True):
    """Passing is over: what you sent, what you received and from whom, and your new hand."""

    game_number: int
    deal: int
    sent: tuple[Card, ...]
    received: tuple[Card, ...]
    from_: Seat = msgspec.field(name="from")
    hand: tuple[Card, ...]


class PlayedEvent(_RefereeMessage, tag="played", frozen=True, kw_only=True):
    """A card was played, by any seat, yours included."""

    game_number: int
    deal: int
    seat: Seat
    card: Card


class LotteryPassEvent(_RefereeMessage, tag="lottery_pass", frozen=True, kw_only=True):
    """In the loteryjka a seat with no legal card was passed; the referee does this without asking."""

    game_number: int
    deal: int
    seat: Seat


class TrickEvent(_RefereeMessage, tag="trick", frozen=True, kw_only=True):
    """A trick is complete; "winner" is null when no card won it (Cancellation Hearts)."""

    game_number: int
    deal: int
    number: int
    leader: Seat
    cards: tuple[TrickCard, ...]
    winner: Seat | None


class DealEndEvent(_RefereeMessage, tag="deal_end", frozen=True, kw_only=True):
    """A deal is over: points per seat for this deal and game totals after it."""

    game_number: int
    deal: int
    scores: tuple[int, ...]
    totals: tuple[int, ...]
    early: bool
    moon: MoonRecord | None


class GameEndEvent(_RefereeMessage, tag="game_end", frozen=True, kw_only=True):
    """A game is over: final totals and places (1 is best; equal totals share a place)."""

    game_number: int
    totals: tuple[int, ...]
    places: tuple[int, ...]


class ErrorEvent(_RefereeMessage, tag="error", frozen=True, kw_only=True):
    """Your bot misbehaved: what was wrong, what the referee played for you, and where that leaves you. An event:
    answer nothing. "request_id" is the id of the request concerned (every fault happens while a request waits
    for its answer); only requests carry "id"."""

    request_id: RequestId
    code: ErrorCode
    message: str
    fallback: BotMessage | None
    strikes: int
    forfeited: bool

    def in_protocol(self, version: int) -> "ErrorEvent | ErrorEventV1":
        """This event as a bot that speaks protocol ``version`` reads it (protocol 1: `ErrorEventV1`)."""
        if version >= 2:
            return self
        return ErrorEventV1(
            id=self.request_id,
            code=self.code,
            message=self.message,
            fallback=self.fallback,
            strikes=self.strikes,
            forfeited=self.forfeited,
        )


class ErrorEventV1(_RefereeMessage, tag="error", frozen=True, kw_only=True):
    """The "error" event as protocol 1 writes it, to a bot that answered "hello" with protocol 1: the request
    concerned in "id" (renamed "request_id" in protocol 2, where only requests carry "id"). Not in `RefereeMessage`:
    the referee encodes it for such bots only, and ``codec.decode_referee_line`` reads it as an `ErrorEvent`."""

    id: RequestId
    code: ErrorCode
    message: str
    fallback: BotMessage | None
    strikes: int
    forfeited: bool

    def current(self) -> "ErrorEvent":
        """The same event in this protocol's form."""
        return ErrorEvent(
            request_id=self.id,
            code=self.code,
            message=self.message,
            fallback=self.fallback,
            strikes=self.strikes,
            forfeited=self.forfeited,
        )


class ByeEvent(_RefereeMessage, tag="bye", frozen=True, kw_only=True):
    """The referee is done with this bot; exit."""

    reason: ByeReason


Event: TypeAlias = (
    GameStartEvent
    | DealEvent
    | PassedEvent
    | PlayedEvent
    | LotteryPassEvent
    | TrickEvent
    | DealEndEvent
    | GameEndEvent
    | ErrorEvent
    | ByeEvent
)
RefereeMessage: TypeAlias = Request | Event
"""Everything the referee writes to a bot's stdin."""

EVENT_TYPES: Final[frozenset[str]] = frozenset(str(cls.__struct_config__.tag) for cls in get_args(Event))
"""The "type" of every event: a line of one of these types from a bot answers an event, which wants no answer."""

ANSWER_TYPES: Final[Mapping[type[Request], type[Answer]]] = MappingProxyType(
    {
        HelloRequest: HelloAnswer,
        PassRequest: PassAnswer,
        TrumpRequest: TrumpAnswer,
        PlayRequest: PlayAnswer,
        MoonRequest: MoonAnswer,
    }
)
"""The answer each request expects; any other answer type is a "wrong_type" error."""
