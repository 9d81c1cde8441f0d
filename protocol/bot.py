"""A kierki bot in Python as one class: override the decisions you care about and ``run`` does the protocol.

    from protocol.bot import Bot, run
    from protocol.messages import PlayRequest

    class Lowest(Bot):
        name = "lowest"
        version = "1.0"

        def play(self, request: PlayRequest) -> str:
            return min(request.legal, key=lambda card: "23456789TJQKA".index(card[0]))

    run(Lowest())

``run`` reads the referee's lines, decodes each with the protocol's own decoder (``protocol.codec``), answers every
request with the answer of its type and id, flushes, ignores message types it does not know, and returns on
``bye`` or at end of input. Each decision method gets the typed request (``protocol.messages``), which carries
everything of the game the seat has seen (PROTOCOL.md section 8), and returns its choice as written on the wire:
a card ``"QS"``, a list of cards, a suit letter (``None`` for no trump), ``"self"`` or ``"others"``.

Every decision has a default, the choice the referee itself plays for a seat whose bot did not answer (PROTOCOL.md
section 7), so a bot may override only ``play``. A decision method that raises, or returns a value the request does
not allow, costs nothing but the decision: its traceback or a line saying what was wrong goes to stderr (which the
referee keeps in the bot's log) and the default is answered instead, so a bug in one situation is neither a strike
nor a forfeit. The referee's ``error`` events (an event like the others: ``request_id`` names the request) are
written to stderr as well. ``hello`` is answered with this library's protocol version (2), or 1 to a referee that
names 1.

This module needs msgspec and the ``protocol`` package alone.
"""

from __future__ import annotations

import io
import sys
import traceback
import typing
from collections import Counter
from collections.abc import Callable, Iterable
from typing import IO, Final, TypeVar

from protocol.codec import PROTOCOL_VERSION, ProtocolError, decode_referee_line, encode_answer
from protocol.messages import (
    Answer,
    ByeEvent,
    ErrorEvent,
    Event,
    HelloAnswer,
    HelloRequest,
    MoonAnswer,
    MoonChoice,
    MoonRequest,
    PassAnswer,
    PassRequest,
    PlayAnswer,
    PlayRequest,
    RefereeMessage,
    Request,
    TrumpAnswer,
    TrumpChoice,
    TrumpRequest,
)

__all__ = ["Bot", "card_order", "run"]

RANKS: Final = "23456789TJQKA"
SUITS: Final = "CDHS"
_REQUEST_TYPES: Final = typing.get_args(Request)
_KNOWN_TYPES: Final = frozenset(cls.__struct_config__.tag for cls in typing.get_args(RefereeMessage))
_R = TypeVar("_R", bound=Request)


def card_order(card: str) -> tuple[int, int]:
    """A card's place in the referee's order: by rank (2 lowest), then by suit C, D, H, S. (``hand`` and ``legal``
    are listed by suit instead; sort them with this key to get rank order.)"""
    return RANKS.index(card[0]), SUITS.index(card[1])


class Bot:
    """A bot: subclass it, set ``name`` and ``version``, override any of ``play``, ``pass_cards``, ``trump``,
    ``moon`` and the ``on_hello`` and ``on_event`` hooks, then ``run(YourBot())``."""

    name: str = "python-bot"
    version: str = "0"

    def on_hello(self, request: HelloRequest) -> None:
        """Called with ``hello`` before it is answered (the game, the rule options, the clock). Does nothing."""

    def on_event(self, message: Event) -> None:
        """Called with every event (``game_start``, ``deal``, ``played``... ``bye`` last). Does nothing."""

    def play(self, request: PlayRequest) -> str:
        """The card to play, one of ``request.legal``. By default the lowest-ranked (``card_order``)."""
        return min(request.legal, key=card_order)

    def pass_cards(self, request: PassRequest) -> list[str]:
        """``request.count`` cards of ``request.hand`` (a card you hold twice may be named twice). By default the
        highest in ``card_order``, highest first."""
        return sorted(request.hand, key=card_order)[len(request.hand) - request.count :][::-1]

    def trump(self, request: TrumpRequest) -> str | None:
        """The trump suit, a letter of ``request.choices``, or None for no trump when ``"NT"`` is offered. By
        default the suit of most of ``request.cards``; between equals the higher sum of ranks, then S, H, D, C."""
        suits = [choice for choice in request.choices if choice != "NT"]

        def strength(suit: str) -> tuple[int, int, int]:
            ranks = [RANKS.index(card[0]) for card in request.cards if card[1] == suit]
            return len(ranks), sum(ranks), SUITS.index(suit)

        return max(suits, key=strength) if suits else None

    def moon(self, request: MoonRequest) -> str:
        """You shot the moon: ``"self"`` (the moon value off your total) or ``"others"`` (added to everyone else's),
        ``request.options`` giving the totals after each. By default what the ``moon_default`` rule option says."""
        rule = request.rules.get("moon_default", "others")
        if rule == "safety" and request.seat is not None:
            others = request.options.others
            target = request.rules.get("target")
            ends = isinstance(target, int) and max(others) >= target
            return "self" if ends and others[request.seat] > min(others) else "others"
        return "self" if rule == "self" else "others"


def run(bot: Bot, *, stdin: IO[bytes] | IO[str] | None = None, stdout: IO[bytes] | IO[str] | None = None) -> None:
    """Play ``bot`` over the protocol until ``bye`` or the end of input: by default on this process's stdin and
    stdout, or on the streams given (binary, or text such as ``io.StringIO``)."""
    lines: Iterable[bytes | str] = sys.stdin.buffer if stdin is None else stdin
    write = _writer(sys.stdout.buffer if stdout is None else stdout)
    talker = _Talker(bot)
    try:
        for line in lines:
            message = talker.read(line.encode("utf-8") if isinstance(line, str) else line)
            if message is None:
                continue
            if isinstance(message, _REQUEST_TYPES):
                write(encode_answer(talker.answer(message)))
                continue
            talker.call(bot.on_event, message, "on_event")
            if isinstance(message, ByeEvent):
                return
    except BrokenPipeError:  # the referee has gone: nothing is left to answer
        return


def _writer(stream: IO[bytes] | IO[str]) -> Callable[[bytes], None]:
    """Write one answer line and flush it at once (the referee is waiting for it)."""
    if isinstance(stream, io.TextIOBase):
        text = typing.cast(IO[str], stream)

        def write_text(line: bytes) -> None:
            text.write(line.decode("utf-8"))
            text.flush()

        return write_text
    binary = typing.cast(IO[bytes], stream)

    def write_bytes(line: bytes) -> None:
        binary.write(line)
        binary.flush()

    return write_bytes


class _Talker:
    """One bot's side of the conversation: decoding, the answer to each request, and what goes to stderr."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.label = type(bot).__name__

    def log(self, text: str) -> None:
        print(f"{self.bot.name or self.label}: {text}", file=sys.stderr, flush=True)

    def read(self, line: bytes) -> RefereeMessage | None:
        """The message a line holds; None for a blank line, an unknown type (from a later protocol) or a bad line."""
        if not line.strip():
            return None
        try:
            message = decode_referee_line(line)
        except ProtocolError as error:
            if error.message_type is not None and error.message_type not in _KNOWN_TYPES:
                return None  # a message type of a later protocol version: bots ignore it (PROTOCOL.md section 1)
            self.log(f"cannot read a line from the referee, skipped it: {error}")
            return None
        if isinstance(message, ErrorEvent):
            self.log(f"the referee reports {message.code} on request {message.request_id}: {message.message}")
        return message

    def call(self, method: Callable[[typing.Any], object], message: object, name: str) -> None:
        try:
            method(message)
        except Exception:
            self.log(f"{self.label}.{name} raised, ignored:\n{traceback.format_exc().rstrip()}")

    def answer(self, request: Request) -> Answer:
        if isinstance(request, HelloRequest):
            self.call(self.bot.on_hello, request, "on_hello")
            # A referee speaks every version up to the one it names: answer ours, or its own when it is older (a
            # protocol-1 referee writes the error event's request in "id", which ``read`` understands too).
            protocol = max(1, min(request.protocol, PROTOCOL_VERSION))
            if request.protocol != PROTOCOL_VERSION:
                self.log(f"the referee speaks protocol {request.protocol}, this library {PROTOCOL_VERSION}")
            return HelloAnswer(
                id=request.id, name=self.bot.name or self.label, version=self.bot.version, protocol=protocol
            )
        where = f"on request {request.id} (game {request.game_number}, deal {request.deal})"
        if isinstance(request, PlayRequest):
            card = self.decide(f"play {where}", self.bot.play, Bot.play, request, _play_problem)
            return PlayAnswer(id=request.id, card=card)
        if isinstance(request, PassRequest):
            cards = self.decide(f"pass_cards {where}", self.bot.pass_cards, Bot.pass_cards, request, _pass_problem)
            return PassAnswer(id=request.id, cards=tuple(cards))
        if isinstance(request, TrumpRequest):
            suit = self.decide(f"trump {where}", self.bot.trump, Bot.trump, request, _trump_problem)
            return TrumpAnswer(id=request.id, suit=typing.cast(TrumpChoice, "NT" if suit is None else suit))
        choice = self.decide(f"moon {where}", self.bot.moon, Bot.moon, request, _moon_problem)
        return MoonAnswer(id=request.id, choice=typing.cast(MoonChoice, choice))

    def decide(
        self,
        what: str,
        method: Callable[[_R], typing.Any],
        default: Callable[[Bot, _R], typing.Any],
        request: _R,
        problem_of: Callable[[_R, object], str | None],
    ) -> typing.Any:
        """The bot's choice, or the default when the method raises or its choice is not one the request allows."""
        where = f"{self.label}.{what}"
        try:
            choice = method(request)
        except Exception:
            fallback = default(self.bot, request)
            self.log(f"{where} raised; answered the default {fallback!r}:\n{traceback.format_exc().rstrip()}")
            return fallback
        problem = problem_of(request, choice)
        if problem is None:
            return choice
        fallback = default(self.bot, request)
        self.log(f"{where} returned {choice!r}, {problem}; answered the default {fallback!r}")
        return fallback


def _play_problem(request: PlayRequest, card: object) -> str | None:
    if not isinstance(card, str):
        return f"not a card name: return one of request.legal, such as {request.legal[0]!r}"
    if card not in request.legal:
        return f"not in request.legal ({' '.join(request.legal)})"
    return None


def _pass_problem(request: PassRequest, cards: object) -> str | None:
    if not isinstance(cards, list | tuple) or not all(isinstance(card, str) for card in cards):
        return f"not a list of card names: return {request.count} cards of request.hand"
    if len(cards) != request.count:
        return f"{len(cards)} cards, not {request.count}"
    missing = Counter(cards) - Counter(request.hand)
    if missing:
        return f"not in request.hand: {' '.join(sorted(missing.elements()))}"
    return None


def _trump_problem(request: TrumpRequest, suit: object) -> str | None:
    offered = " ".join(request.choices)
    if suit is None:
        return None if "NT" in request.choices else f"None (no trump) is not offered: choose one of {offered}"
    if not isinstance(suit, str) or suit not in request.choices:
        return f"not one of request.choices ({offered}; None for no trump when NT is offered)"
    return None


def _moon_problem(request: MoonRequest, choice: object) -> str | None:
    return None if choice in ("self", "others") else 'neither "self" nor "others"'
