"""A seat's rules-core `Observation`, rebuilt from the protocol messages that seat received.

A bot knows only what the referee told it, so this is the only honest way for a bot to give a trained policy the
observation the environment gave it in training: the rules core's `Observation` of its seat, built here from the
``hello``, the events (``game_start``, ``deal``, ``passed``, ``played``, ``trick``, ``deal_end``) and each request,
then encoded by the same `encoding.encode`. tests/test_learning_bot.py checks, at every request of whole games of
every game, that the rebuilt observation is the rules core's own, field for field (``passed`` and ``received``
come in the wire's order, by suit, not in the order they were chosen) and that the encodings are identical.

What the messages do not say outright is derived from them, once, here: each seat's hand size (the deal's size less
the cards it played), the kitty until the first trick is over, the cards of unwon tricks waiting for a winner,
hearts broken (a heart played, or Q♠ where ``qs_breaks_hearts``), the order the loteryjka's seats ran out, and in a
moon request the shooter's points (all of them: 26 in Hearts, 52 in Cancellation Hearts).
"""

from __future__ import annotations

from protocol import messages as m
from referee.rules import (
    Card,
    DealKind,
    Game,
    MoonOption,
    Observation,
    Phase,
    Ruleset,
    TrickView,
    parse_card,
)

_SUITS = "CDHS"
_RANKS = "23456789TJQKA"
_QUEEN_OF_SPADES = parse_card("QS")


def _ids(names: tuple[str, ...] | list[str]) -> tuple[Card, ...]:
    return tuple(parse_card(name) for name in names)


def _sorted_ids(names: tuple[str, ...] | list[str]) -> tuple[Card, ...]:
    return tuple(sorted(parse_card(name) for name in names))


def _plays(cards: tuple[m.TrickCard, ...]) -> tuple[tuple[int, Card], ...]:
    return tuple((part.seat, parse_card(part.card)) for part in cards)


class SeatView:
    """What one seat has been told so far; `observation` turns it and a request into that seat's `Observation`."""

    trump: int | None
    passed: tuple[Card, ...]
    received: tuple[Card, ...]
    trick: list[tuple[int, Card]]
    tricks: list[TrickView]

    def __init__(self) -> None:
        self.ruleset: Ruleset | None = None
        self.seat = 0
        self.totals: tuple[int, ...] = ()
        self._new_deal(0, DealKind.HEARTS, 0, 0, 0)

    # --- what the seat was told ---------------------------------------------------------------------------------

    def hello(self, request: m.HelloRequest) -> None:
        self.ruleset = Ruleset.create(request.game, request.players, dict(request.options))
        self.seat = request.seat
        self.totals = (0,) * request.players

    def event(self, message: object) -> None:
        """Take in one event message (any other message is ignored)."""
        if isinstance(message, m.GameStartEvent):
            self.seat = message.seat
            self.totals = (0,) * message.players
        elif isinstance(message, m.DealEvent):
            n = self._rules().players
            offset = {"none": 0, "left": 1, "right": n - 1, "across": 2}[message.pass_direction]
            self._new_deal(message.deal, DealKind(message.kind), message.dealer, len(message.hand), offset)
            self.kitty_size = message.kitty_size
            self.trump = None if message.trump is None else _SUITS.index(message.trump)
        elif isinstance(message, m.PassedEvent):
            self.passed = _ids(message.sent)
            self.received = _ids(message.received)
        elif isinstance(message, m.PlayedEvent):
            self._played(message.seat, parse_card(message.card))
        elif isinstance(message, m.TrickEvent):
            self._trick_ended(message)
        elif isinstance(message, m.DealEndEvent):
            self.totals = tuple(message.totals)

    # --- the observation at a request -------------------------------------------------------------------------------

    def observation(self, request: m.PassRequest | m.TrumpRequest | m.PlayRequest | m.MoonRequest) -> Observation:
        """The seat's `Observation` when ``request`` came: what ``GameState.observation(seat)`` held then."""
        n = self._rules().players
        me = self.seat
        zeros = (0,) * n
        if isinstance(request, m.TrumpRequest):  # it comes before the deal's message: a deal of its own
            self._new_deal(request.deal, DealKind.TRUMP, me, 0, 0)
        fields: dict[str, object] = {
            "game": self._rules().game,
            "players": n,
            "seat": me,
            "deal": self.deal,
            "kind": self.kind,
            "dealer": self.dealer,
            "to_act": me,
            "hand": (),
            "hand_sizes": tuple(self.hand_sizes),
            "trump": self.trump,
            "trump_named": self.kind is DealKind.TRUMP,
            "pass_offset": self.pass_offset,
            "passed": self.passed,
            "received": self.received,
            "trick_leader": self.leader,
            "trick": tuple(self.trick),
            "tricks": tuple(self.tricks),
            "deal_scores": zeros,
            "totals": self.totals,
            "legal": (),
            "lottery_start_rank": None,
            "lottery_columns": (None, None, None, None),
            "lottery_finished": tuple(self.finished),
            "kitty_size": self.kitty_size,
            "pending_cards": self.pending,
            "moon_options": None,
            "hearts_broken": self.hearts_broken,
        }
        if isinstance(request, m.TrumpRequest):  # the dealer's first cards only, in dealing order
            fields.update(phase=Phase.TRUMP, hand=_ids(request.cards), trump_named=False)
        elif isinstance(request, m.PassRequest):
            fields.update(phase=Phase.PASS, hand=_sorted_ids(request.hand))
        elif isinstance(request, m.PlayRequest):
            fields.update(
                phase=Phase.PLAY,
                hand=_sorted_ids(request.hand),
                legal=_sorted_ids(request.legal),
                deal_scores=tuple(request.scores.deal),
                totals=tuple(request.scores.totals or request.scores.total),
            )
            if request.trick is not None:
                fields.update(trick_leader=request.trick.leader, trick=_plays(request.trick.cards))
            if request.lottery is not None:
                columns = request.lottery.columns
                start = request.lottery.start_rank
                fields.update(
                    lottery_start_rank=None if start is None else _RANKS.index(start),
                    lottery_columns=tuple(
                        None if column is None else (_RANKS.index(column[0][0]), _RANKS.index(column[1][0]))
                        for column in (columns.C, columns.D, columns.H, columns.S)
                    ),
                )
        else:
            full = 52 if self._rules().game is Game.CANCELLATION else 26  # the shooter took every point
            fields.update(
                phase=Phase.MOON,
                deal_scores=tuple(full if s == me else 0 for s in range(n)),
                moon_options={MoonOption.SELF: request.options.self_, MoonOption.OTHERS: request.options.others},
            )
        return Observation(**fields)  # type: ignore[arg-type]

    # --- bookkeeping ------------------------------------------------------------------------------------------------

    def _rules(self) -> Ruleset:
        if self.ruleset is None:
            raise RuntimeError("no hello yet: the ruleset comes with it")
        return self.ruleset

    def _new_deal(self, deal: int, kind: DealKind, dealer: int, hand_size: int, pass_offset: int) -> None:
        n = self.ruleset.players if self.ruleset is not None else 0
        self.deal = deal
        self.kind = kind
        self.dealer = dealer
        self.pass_offset = pass_offset
        self.hand_sizes = [hand_size] * n
        self.trump = None
        self.passed = ()
        self.received = ()
        self.leader = (dealer + 1) % n if n else 0
        self.trick = []
        self.tricks = []
        self.finished: list[int] = []
        self.kitty_size = 0
        self.pending = 0
        self.hearts_broken = False

    def _played(self, seat: int, card: Card) -> None:
        self.hand_sizes[seat] -= 1
        if self.kind is DealKind.LOTTERY:
            if not self.hand_sizes[seat]:
                self.finished.append(seat)
            return
        if card & 3 == _SUITS.index("H") or (card == _QUEEN_OF_SPADES and self._rules().qs_breaks_hearts):
            self.hearts_broken = True
        self.trick.append((seat, card))

    def _trick_ended(self, message: m.TrickEvent) -> None:
        plays = _plays(message.cards)
        self.tricks.append(TrickView(message.number, message.leader, plays, message.winner, message.deal))
        self.trick = []
        if message.winner is None:
            self.pending += len(plays) + (self.kitty_size if message.number == 1 else 0)
            self.leader = message.leader
        else:
            self.pending = 0
            self.leader = message.winner
        if message.number == 1:
            self.kitty_size = 0
