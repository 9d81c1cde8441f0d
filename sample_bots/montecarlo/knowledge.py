"""What this seat knows, in the rules core's terms: the wire's cards and tricks turned into a ``rules.Observation``.

A play request carries the hand, the legal cards, the trick and this deal's tricks; the rest a search needs comes
from the events this seat was sent (``Table.on_event``): its seat, the deal's dealer and original hand, what it
passed and received, and in the loteryjka who laid how many cards. Cards become the rules core's integers
(``rules.parse_card``), so a sampled world and the request speak of the same cards.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

import referee.rules as rules
from protocol import messages as m

SUITS: Final = "CDHS"
RANKS: Final = "23456789TJQKA"
HEARTS: Final = 2
QUEEN_OF_SPADES: Final = 43
HAND_SIZES: Final = {"kierki": 13, "kierki3": 17, "hearts": 13}
OFFSETS: Final = {"left": 1, "across": 2}  # "right" is players - 1


def card(name: str) -> int:
    return rules.parse_card(name)


def cards(names: tuple[str, ...] | list[str]) -> tuple[int, ...]:
    return tuple(rules.parse_card(name) for name in names)


def suit_of(letter: str | None) -> int | None:
    return None if letter is None or letter == "NT" else SUITS.index(letter)


def pass_offset(direction: str, players: int) -> int:
    if direction == "right":
        return players - 1
    return OFFSETS.get(direction, 0)


def hand_size(game: str, players: int) -> int:
    return HAND_SIZES.get(game, 104 // players)


@dataclass
class Deal:
    """One deal as this seat saw it from the events."""

    number: int = 0
    dealer: int = 0
    dealt: tuple[int, ...] = ()  # this seat's hand as dealt, before any pass
    kitty_size: int = 0
    offset: int = 0  # pass offset: the receiver of a seat's pass is seat + offset
    sent: tuple[int, ...] = ()
    received: tuple[int, ...] = ()
    laid: list[int] = field(default_factory=list)  # the loteryjka: cards laid per seat
    finished: list[int] = field(default_factory=list)  # the loteryjka: seats out of cards, in order


class Table:
    """The game, the seat, and the current deal, kept from ``hello`` and the events."""

    def __init__(self) -> None:
        self.game = "hearts"
        self.players = 4
        self.seat = 0
        self.ruleset = rules.Ruleset.create("hearts", 4)
        self.deal = Deal()
        self.totals: tuple[int, ...] = (0,) * 4  # the game's totals after the deals finished so far

    def on_hello(self, request: m.HelloRequest) -> None:
        self.game = request.game
        self.players = request.players
        self.seat = request.seat
        self.ruleset = rules.Ruleset.create(request.game, request.players, dict(request.options))
        self.deal = Deal(laid=[0] * request.players)
        self.totals = (0,) * request.players

    def on_event(self, message: object) -> None:
        if isinstance(message, m.GameStartEvent):
            self.seat = message.seat
            self.totals = (0,) * message.players
        elif isinstance(message, m.DealEndEvent):
            self.totals = tuple(message.totals)
        elif isinstance(message, m.DealEvent):
            offset = 0 if message.pass_direction == "none" else pass_offset(message.pass_direction, self.players)
            self.deal = Deal(
                number=message.deal,
                dealer=message.dealer,
                dealt=cards(message.hand),
                kitty_size=message.kitty_size,
                offset=offset,
                laid=[0] * self.players,
            )
        elif isinstance(message, m.PassedEvent):
            self.deal.sent = cards(message.sent)
            self.deal.received = cards(message.received)
        elif isinstance(message, m.PlayedEvent) and self.deal.laid:
            laid = self.deal.laid
            laid[message.seat] += 1
            if laid[message.seat] == hand_size(self.game, self.players) and message.seat not in self.deal.finished:
                self.deal.finished.append(message.seat)

    def pass_observation(self, request: m.PassRequest) -> rules.Observation:
        """The rules core's view of this seat when it is asked to pass (the others pass at the same time)."""
        n = self.players
        kind = rules.DealKind.CANCELLATION if self.game == "cancellation" else rules.DealKind.HEARTS
        size = hand_size(self.game, n)
        return self._before_play(
            request.deal,
            kind,
            self.deal.dealer,
            rules.Phase.PASS,
            tuple(sorted(cards(request.hand))),
            (size,) * n,
            pass_offset(request.direction, n),
            self.deal.kitty_size,
        )

    def trump_observation(self, request: m.TrumpRequest) -> rules.Observation:
        """The rules core's view of the dealer naming trump: its first cards, in dealing order, and no hand else."""
        n = self.players
        return self._before_play(
            request.deal, rules.DealKind.TRUMP, self.seat, rules.Phase.TRUMP, cards(request.cards), (0,) * n, 0, 0
        )

    def _before_play(
        self,
        deal: int,
        kind: rules.DealKind,
        dealer: int,
        phase: rules.Phase,
        hand: tuple[int, ...],
        sizes: tuple[int, ...],
        offset: int,
        kitty: int,
    ) -> rules.Observation:
        n = self.players
        return rules.Observation(
            game=self.ruleset.game,
            players=n,
            seat=self.seat,
            deal=deal,
            kind=kind,
            dealer=dealer,
            phase=phase,
            to_act=self.seat,
            hand=hand,
            hand_sizes=sizes,
            trump=None,
            trump_named=False,
            pass_offset=offset,
            passed=(),
            received=(),
            trick_leader=(dealer + 1) % n,
            trick=(),
            tricks=(),
            deal_scores=(0,) * n,
            totals=self.totals,
            legal=(),
            lottery_start_rank=None,
            lottery_columns=(None, None, None, None),
            lottery_finished=(),
            kitty_size=kitty,
            pending_cards=0,
            moon_options=None,
            hearts_broken=False,
        )

    def observation(self, request: m.PlayRequest) -> rules.Observation:
        """The rules core's view of this seat at a play request."""
        n = self.players
        seat = self.seat
        deal = self.deal
        size = hand_size(self.game, n)
        tricks = tuple(
            rules.TrickView(t.number, t.leader, tuple((c.seat, card(c.card)) for c in t.cards), t.winner)
            for t in request.tricks
        )
        trick: tuple[tuple[int, int], ...] = ()
        leader = seat
        if request.trick is not None:
            leader = request.trick.leader
            trick = tuple((c.seat, card(c.card)) for c in request.trick.cards)
        played = [0] * n
        broken = False
        breaks_with_queen = self.ruleset.qs_breaks_hearts
        for plays in [t.plays for t in tricks] + [trick]:
            for s, c in plays:
                played[s] += 1
                broken = broken or c & 3 == HEARTS or (breaks_with_queen and c == QUEEN_OF_SPADES)
        start_rank: int | None = None
        columns: tuple[tuple[int, int] | None, ...] = (None, None, None, None)
        finished: tuple[int, ...] = ()
        if request.lottery is not None:
            played = list(deal.laid)
            finished = tuple(deal.finished)
            lottery = request.lottery
            start_rank = None if lottery.start_rank is None else RANKS.index(lottery.start_rank)
            columns = tuple(
                None if column is None else (card(column[0]) >> 2, card(column[1]) >> 2)
                for column in (lottery.columns.C, lottery.columns.D, lottery.columns.H, lottery.columns.S)
            )
        # The kitty as the rules core counts it: uncollected until the first trick ends, then taken by its winner
        # or set aside with it; the pending cards are those of the tricks nobody has won yet.
        kitty = deal.kitty_size if not tricks else 0
        pending = 0
        for t in reversed(tricks):
            if t.winner is not None:
                break
            pending += len(t.plays)
        if tricks and all(t.winner is None for t in tricks):
            pending += deal.kitty_size
        hand = cards(request.hand)
        sizes = [size - played[s] for s in range(n)]
        sizes[seat] = len(hand)
        scores = request.scores
        return rules.Observation(
            game=self.ruleset.game,
            players=n,
            seat=seat,
            deal=request.deal,
            kind=rules.DealKind(request.kind),
            dealer=deal.dealer,
            phase=rules.Phase.PLAY,
            to_act=seat,
            hand=hand,
            hand_sizes=tuple(sizes),
            trump=suit_of(request.trump),
            trump_named=request.kind == "trump",
            pass_offset=deal.offset,
            passed=deal.sent,
            received=deal.received,
            trick_leader=leader,
            trick=trick,
            tricks=tricks,
            deal_scores=tuple(scores.deal),
            totals=tuple(scores.totals or scores.total),  # the request's own, which every referee sends
            legal=cards(request.legal),
            lottery_start_rank=start_rank,
            lottery_columns=columns,
            lottery_finished=finished,
            kitty_size=kitty,
            pending_cards=pending,
            moon_options=None,
            hearts_broken=broken,
        )
