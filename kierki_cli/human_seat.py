"""The person's seat of ``kierki play``: `HumanSeat`, a ``Transport`` that lives in the referee process.

It receives the very protocol lines a bot would (PROTOCOL.md), shows them (the hand sorted by suit and numbered, the
legal cards marked, the trick, the last trick and the scores with every request; passes, trump and the moon asked in
plain words) and turns what the person types (a card's name or number) into the answer line. A choice outside the
request's legal cards is refused at once with the reason, before anything is answered; an error the referee still
sends back is shown as it is. So the game runs through the ordinary ``Match`` loop and its replay log is like any
other (``kierki replay --verify``).

The person's deadline is their own (``--time-per-move``, 10 minutes by default): the transport waits that long
for a line whatever the bots' deadline is, and when it passes the referee plays its fallback as for any seat.
"""

from __future__ import annotations

import select
import time
from collections.abc import Callable, Sequence
from typing import IO

from kierki_cli.styled import Style, card_span, to_text
from protocol import codec
from protocol import messages as m
from referee.api import Closed, Flushed, FlushResult, Line, LineResult, Timeout, printable
from referee.rules import SUIT_LETTERS, SUIT_SYMBOLS, parse_card

__all__ = ["HumanSeat", "ReadLine", "read_line_within"]

_PASS_WORDS = {"left": "to your left", "right": "to your right", "across": "across the table"}
ReadLine = Callable[[float], str | None]  # seconds allowed -> the typed line, None when the time ran out


def read_line_within(stream: IO[str]) -> ReadLine:
    """Reading the person's line from ``stream`` (a terminal), waiting at most the seconds given."""

    def read(seconds: float) -> str | None:
        ready, _, _ = select.select([stream], [], [], max(seconds, 0.0))
        if not ready:
            return None
        line = stream.readline()
        if not line:
            raise EOFError
        return line

    return read


def _card_id(name: str) -> int:
    return parse_card(name)


def _text(card: str, style: Style) -> str:
    return to_text([card_span(_card_id(card), style)], style)


def _sorted(cards: Sequence[str]) -> list[str]:
    """Grouped by suit (♣ ♦ ♥ ♠), low to high: the hand as the printout shows it."""
    by_id = sorted(range(len(cards)), key=lambda i: (_card_id(cards[i]) & 3, _card_id(cards[i]) >> 2))
    return [cards[i] for i in by_id]


def _typed_card(token: str) -> str | None:
    """A card as typed: 'TH', 'th', '10h', '10♥', 'q♠'; None if it is no card."""
    text = token.strip().upper()
    for letter, symbol in zip(SUIT_LETTERS, SUIT_SYMBOLS, strict=True):
        text = text.replace(symbol, letter)
    if text.startswith("10"):
        text = "T" + text[2:]
    if len(text) == 2 and text[0] in "23456789TJQKA" and text[1] in SUIT_LETTERS:
        return text
    return None


class HumanSeat:
    """A person at one seat, speaking the protocol through the terminal."""

    def __init__(
        self,
        read: ReadLine,
        write: Callable[[str], None],
        style: Style,
        move_s: float,
        name: str = "you",
    ) -> None:
        self.read = read
        self.write = write
        self.style = style
        self.move_s = move_s
        self.name = name
        self.seat = 0
        self.players = 0
        self.pending: m.Request | None = None
        self.answers: list[bytes] = []
        self.closed = False
        self.deal: m.DealEvent | None = None
        self.trick: list[tuple[int, str]] = []
        self.last_trick: m.TrickEvent | None = None
        self.totals: tuple[int, ...] = ()

    # --- Transport ---------------------------------------------------------------------------------------------

    @property
    def returncode(self) -> int | None:
        return 0 if self.closed else None

    @property
    def alive(self) -> bool:
        return not self.closed

    def send(self, data: bytes) -> None:
        for line in data.splitlines():
            self._take(codec.decode_referee_line(line))

    def flush(self, deadline: float) -> FlushResult:
        return Flushed()

    def read_line(self, deadline: float) -> LineResult:
        """The answer to the pending request, typed by the person within their own deadline (not the bots')."""
        if self.closed:
            return Closed()
        if self.answers:
            return Line(self.answers.pop(0), 0.0)
        request, self.pending = self.pending, None
        if request is None:
            return Timeout()
        started = time.monotonic()
        try:
            answer = self._answer(request)
        except EOFError:
            self.write("the input ended: the referee plays for you from here")
            self.closed = True
            return Closed()
        if answer is None:
            self.write(f"no answer within {self.move_s:.0f} s: the referee plays its fallback for you")
            return Timeout()
        return Line(codec.encode_answer(answer).rstrip(b"\n"), time.monotonic() - started)

    def close_input(self) -> None:
        self.closed = True

    def wait_exit(self, deadline: float) -> int | None:
        return self.returncode

    def stderr_tail(self) -> bytes:
        return b""

    def unread_input_bytes(self) -> int:
        return 0  # a person reads the table on the screen: nothing waits unread

    def terminate(self, grace_s: float = 0.5) -> None:
        self.closed = True

    # --- what arrives ------------------------------------------------------------------------------------------

    def _who(self, seat: int) -> str:
        return "you" if seat == self.seat else f"seat {seat}"

    def _take(self, message: m.RefereeMessage) -> None:
        style = self.style
        if isinstance(message, m.HelloRequest):
            self.seat, self.players = message.seat, message.players
            self.answers.append(codec.encode_answer(self._hello(message.id)).rstrip(b"\n"))
            self.write(f"{message.game}, {message.players} players: you are seat {message.seat}")
        elif isinstance(message, m.HelloRequest | m.PassRequest | m.TrumpRequest | m.PlayRequest | m.MoonRequest):
            self.pending = message
        elif isinstance(message, m.GameStartEvent):
            self.seat = message.seat
            self.write(f"game {message.game_number} begins: you are seat {message.seat}, dealer seat {message.dealer}")
        elif isinstance(message, m.DealEvent):
            self.deal, self.trick, self.last_trick = message, [], None
            extra = f", passing {message.pass_direction}" if message.pass_direction != "none" else ""
            self.write("")
            self.write(f"== deal {message.deal}: {message.kind.replace('_', ' ')}, dealer seat {message.dealer}{extra}")
        elif isinstance(message, m.PassedEvent):
            sent = " ".join(_text(c, style) for c in message.sent)
            got = " ".join(_text(c, style) for c in message.received)
            self.write(f"you passed {sent}; you received {got} from seat {message.from_}")
        elif isinstance(message, m.PlayedEvent):
            self.trick.append((message.seat, message.card))
            self.write(f"  {self._who(message.seat)} played {_text(message.card, style)}")
        elif isinstance(message, m.LotteryPassEvent):
            self.write(f"  {self._who(message.seat)}: no card fits, passed")
        elif isinstance(message, m.TrickEvent):
            self.trick, self.last_trick = [], message
            taker = "nobody (cancelled)" if message.winner is None else self._who(message.winner)
            self.write(f"  trick {message.number} -> {taker}")
        elif isinstance(message, m.DealEndEvent):
            self.totals = message.totals
            self.write(f"deal {message.deal} over: {self._scores(message.scores)}")
            self.write(f"totals: {self._scores(message.totals)}")
        elif isinstance(message, m.GameEndEvent):
            place = message.places[self.seat]
            self.write(
                f"game over: you are placed {place} of {len(message.places)}; totals {self._scores(message.totals)}"
            )
        elif isinstance(message, m.ErrorEvent):
            self.write(f"the referee: {printable(message.message)} (strike {message.strikes})")
        elif isinstance(message, m.ByeEvent):
            self.closed = True

    def _scores(self, values: Sequence[int]) -> str:
        return "  ".join(f"{self._who(s)}: {v:+d}" if v else f"{self._who(s)}: 0" for s, v in enumerate(values))

    # --- asking ------------------------------------------------------------------------------------------------

    def _cards(self, cards: Sequence[str]) -> str:
        """Cards sorted by suit and written as the hand is (symbols or the log's names: ``self.style``)."""
        return " ".join(_text(c, self.style) for c in _sorted(cards))

    def _hand_line(self, hand: Sequence[str], legal: Sequence[str] = ()) -> tuple[str, list[str]]:
        """The hand sorted by suit, each card numbered; legal cards marked with *. Returns the text and the order."""
        order = _sorted(hand)
        text = ""
        for number, card in enumerate(order, 1):
            if number > 1:
                text += "   " if card[1] != order[number - 2][1] else " "  # suits apart
            text += f"{number}:{_text(card, self.style)}{'*' if card in legal else ''}"
        return text, order

    def _ask(self, prompt: str, deadline: float) -> str | None:
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        self.write(prompt)
        return self.read(left)

    def _answer(self, request: m.Request) -> m.BotMessage | None:
        deadline = time.monotonic() + self.move_s
        if isinstance(request, m.PlayRequest):
            return self._play(request, deadline)
        if isinstance(request, m.PassRequest):
            return self._pass(request, deadline)
        if isinstance(request, m.TrumpRequest):
            return self._trump(request, deadline)
        if isinstance(request, m.MoonRequest):
            return self._moon(request, deadline)
        return self._hello(request.id)

    def _hello(self, request_id: int) -> m.HelloAnswer:
        """The answer to hello: the person speaks the protocol version of this referee, whatever it is."""
        return m.HelloAnswer(id=request_id, name=self.name, version="", protocol=codec.PROTOCOL_VERSION)

    def _table(self, request: m.PlayRequest) -> None:
        style = self.style
        write = self.write
        trump = "" if request.trump is None else f", trump {_suit_text(request.trump, style)}"
        write("")
        write(f"-- deal {request.deal}: {request.kind.replace('_', ' ')}{trump} --")
        write(f"scores this deal: {self._scores(request.scores.deal)}")
        write(f"totals:           {self._scores(request.scores.total)}")
        if request.tricks:
            last = request.tricks[-1]
            plays = "  ".join(f"{c.seat}:{_text(c.card, style)}" for c in last.cards)
            taker = "nobody" if last.winner is None else self._who(last.winner)
            write(f"last trick {last.number}: {plays}  -> {taker}")
        if request.lottery is not None:
            columns = request.lottery.columns
            shown = []
            for suit in SUIT_LETTERS:
                column = getattr(columns, suit)
                low_high = "-" if column is None else f"{_text(column[0], style)}..{_text(column[1], style)}"
                shown.append(f"{_suit_text(suit, style)}: {low_high}")
            write("columns: " + "  ".join(shown))
        elif request.trick is not None and request.trick.cards:
            plays = "  ".join(f"{c.seat}:{_text(c.card, style)}" for c in request.trick.cards)
            write(f"on the table: {plays}")
        else:
            write("you lead")

    def _play(self, request: m.PlayRequest, deadline: float) -> m.BotMessage | None:
        self._table(request)
        hand_text, order = self._hand_line(request.hand, request.legal)
        self.write(f"your hand: {hand_text}")
        self.write(f"legal: {self._cards(request.legal)}")  # in the hand's style, in the hand's order
        while True:
            typed = self._ask("your card (a name like QS or 10H, or its number): ", deadline)
            if typed is None:
                return None
            card = self._card_of(typed.strip(), order)
            if card is None:
                self.write(f"{typed.strip()!r} is not a card: type a name like QS, 10H, 2C or a number 1-{len(order)}")
                continue
            reason = _why_not(card, request, self.style)
            if reason is None:
                return m.PlayAnswer(id=request.id, card=card)
            self.write(f"not allowed: {reason}")

    def _card_of(self, token: str, order: Sequence[str]) -> str | None:
        if token.isdigit():
            number = int(token)
            return order[number - 1] if 1 <= number <= len(order) else None
        return _typed_card(token)

    def _pass(self, request: m.PassRequest, deadline: float) -> m.BotMessage | None:
        hand_text, order = self._hand_line(request.hand)
        self.write("")
        self.write(
            f"-- deal {request.deal}: pass {request.count} cards {_PASS_WORDS[request.direction]} "
            f"(to seat {request.to}) --"
        )
        self.write(f"your hand: {hand_text}")
        while True:
            typed = self._ask(f"the {request.count} cards to pass (names or numbers, e.g. 1 5 9): ", deadline)
            if typed is None:
                return None
            tokens = typed.replace(",", " ").split()
            cards = [self._card_of(t, order) for t in tokens]
            if len(tokens) != request.count or None in cards:
                self.write(
                    f"type exactly {request.count} cards of your hand, by name (QS, 10H) or number (1-{len(order)})"
                )
                continue
            numbers = [t for t in tokens if t.isdigit()]
            if len(set(numbers)) != len(numbers):  # a number is one card; a name may be given twice for a pair
                self.write("not allowed: the same card number twice (each number is one card of your hand)")
                continue
            chosen = [c for c in cards if c is not None]
            missing = _not_in(chosen, request.hand)
            if missing:
                self.write(f"not allowed: {_pass_problem(missing, chosen, request.hand, self.style)}")
                continue
            return m.PassAnswer(id=request.id, cards=tuple(chosen))

    def _trump(self, request: m.TrumpRequest, deadline: float) -> m.BotMessage | None:
        seen = self._cards(request.cards)
        choices = " ".join(request.choices)
        self.write("")
        self.write(f"-- deal {request.deal}: you name trump; your first cards: {seen} --")
        while True:
            typed = self._ask(f"trump ({choices}{'; NT = no trump' if 'NT' in request.choices else ''}): ", deadline)
            if typed is None:
                return None
            text = typed.strip().upper()
            for letter, symbol in zip(SUIT_LETTERS, SUIT_SYMBOLS, strict=True):
                text = text.replace(symbol, letter)
            text = {"NO TRUMP": "NT", "NOTRUMP": "NT", "N": "NT"}.get(text, text)
            if text in request.choices:
                return m.TrumpAnswer(id=request.id, suit=text)
            self.write(f"not allowed: {typed.strip()!r} is not one of {choices}")

    def _moon(self, request: m.MoonRequest, deadline: float) -> m.BotMessage | None:
        self.write("")
        self.write("-- you shot the moon: you took every penalty card --")
        self.write(f"'self':   the points come off your total; totals then {self._scores(request.options.self_)}")
        self.write(f"'others': every other seat gets them; totals then {self._scores(request.options.others)}")
        while True:
            typed = self._ask("self or others: ", deadline)
            if typed is None:
                return None
            text = typed.strip().lower()
            if text in ("self", "others"):
                return m.MoonAnswer(id=request.id, choice=text)  # type: ignore[arg-type]
            self.write("not allowed: type self or others")


def _suit_text(suit: str, style: Style) -> str:
    return SUIT_SYMBOLS[SUIT_LETTERS.index(suit)] if style.symbols else suit


def _not_in(cards: Sequence[str], hand: Sequence[str]) -> list[str]:
    left = list(hand)
    missing = []
    for card in cards:
        if card in left:
            left.remove(card)
        else:
            missing.append(card)
    return missing


def _pass_problem(missing: Sequence[str], chosen: Sequence[str], hand: Sequence[str], style: Style) -> str:
    """Why the chosen cards cannot be passed: a card not held at all, or one chosen more often than it is held
    (Cancellation Hearts deals a card twice, and both copies may be passed); cards written in the hand's ``style``."""
    times = {1: "once", 2: "twice"}
    problems = []
    for card in dict.fromkeys(missing):
        held = hand.count(card)
        if held == 0:
            problems.append(f"{_text(card, style)} is not in your hand")
        else:
            chosen_times = times.get(chosen.count(card), f"{chosen.count(card)} times")
            held_times = times.get(held, f"{held} times")
            problems.append(f"{_text(card, style)} is chosen {chosen_times} but you hold it {held_times}")
    return "; ".join(problems)


def _why_not(card: str, request: m.PlayRequest, style: Style) -> str | None:
    """Why ``card`` may not be played now, from the request alone (None: it may). The request's legal list is the
    referee's own answer; the reason names the rule the choice breaks as far as the request shows it, its cards
    written in the hand's ``style``."""
    if card in request.legal:
        return None
    legal = " ".join(_text(c, style) for c in _sorted(request.legal))
    shown = _text(card, style)
    if card not in request.hand:
        return f"{shown} is not in your hand; legal: {legal}"
    if request.lottery is not None:
        return f"{shown} does not fit a column on the table; legal: {legal}"
    trick = request.trick.cards if request.trick is not None else ()
    if trick:
        led = trick[0].card[1]
        if card[1] != led and any(c[1] == led for c in request.hand):
            return f"{shown}: you must follow suit ({_suit_text(led, style)}) when you can; legal: {legal}"
        if not request.tricks:
            queen = _text("QS", style)
            return f"{shown}: no heart or {queen} on the first trick while you hold another card; legal: {legal}"
        return f"{shown}: this deal's rules do not allow it on this trick; legal: {legal}"
    if not request.tricks:
        return f"{shown}: not an allowed first lead; legal: {legal}"
    if card[1] == "H":
        return f"{shown}: hearts may not be led now; legal: {legal}"
    return f"{shown}: not an allowed lead now; legal: {legal}"
