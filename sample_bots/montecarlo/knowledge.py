"""What this seat knows, in the rules core's terms: a request turned into a ``rules.Observation``.

Every request carries what the seat has seen of the game (PROTOCOL.md section 8): its seat, the deal's dealer, the
pass as the seat saw it, this deal's tricks and loteryjka moves, the scores; ``hello`` gives the game and its rule
options once (``Table.on_hello``). Nothing is remembered between requests. Cards become the rules core's integers
(``rules.parse_card``), so a sampled world and the request speak of the same cards.
"""

from __future__ import annotations

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


class Table:
    """The game and its rules, from ``hello``; each request says the rest."""

    def __init__(self) -> None:
        self.game = "hearts"
        self.players = 4
        self.seat = 0
        self.ruleset = rules.Ruleset.create("hearts", 4)

    def on_hello(self, request: m.HelloRequest) -> None:
        self.game = request.game
        self.players = request.players
        self.seat = request.seat
        self.ruleset = rules.Ruleset.create(request.game, request.players, dict(request.options))

    def seat_of(self, seat: int | None) -> int:
        """A request's seat (every request carries it; an older referee's did not: then hello's)."""
        return self.seat if seat is None else seat

    def _kitty_size(self) -> int:
        return 104 % self.players if self.game == "cancellation" else 0

    def pass_observation(self, request: m.PassRequest) -> rules.Observation:
        """The rules core's view of this seat when it is asked to pass (the others pass at the same time)."""
        n = self.players
        kind = rules.DealKind.CANCELLATION if self.game == "cancellation" else rules.DealKind.HEARTS
        return self._before_play(
            self.seat_of(request.seat),
            request.deal,
            kind,
            request.dealer if request.dealer is not None else 0,
            rules.Phase.PASS,
            tuple(sorted(cards(request.hand))),
            (hand_size(self.game, n),) * n,
            pass_offset(request.direction, n),
            self._kitty_size(),
            request.totals,
        )

    def trump_observation(self, request: m.TrumpRequest) -> rules.Observation:
        """The rules core's view of the dealer naming trump: its first cards, in dealing order, and no hand else."""
        seat = self.seat_of(request.seat)
        n = self.players
        return self._before_play(
            seat,
            request.deal,
            rules.DealKind.TRUMP,
            seat,
            rules.Phase.TRUMP,
            cards(request.cards),
            (0,) * n,
            0,
            0,
            request.totals,
        )

    def _before_play(
        self,
        seat: int,
        deal: int,
        kind: rules.DealKind,
        dealer: int,
        phase: rules.Phase,
        hand: tuple[int, ...],
        sizes: tuple[int, ...],
        offset: int,
        kitty: int,
        totals: tuple[int, ...],
    ) -> rules.Observation:
        n = self.players
        return rules.Observation(
            game=self.ruleset.game,
            players=n,
            seat=seat,
            deal=deal,
            kind=kind,
            dealer=dealer,
            phase=phase,
            to_act=seat,
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
            totals=totals or (0,) * n,
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
        seat = self.seat_of(request.seat)
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
            lottery = request.lottery
            for move in lottery.moves:
                played[move.seat] += move.card is not None
            finished = tuple(lottery.out)
            start_rank = None if lottery.start_rank is None else RANKS.index(lottery.start_rank)
            columns = tuple(
                None if column is None else (card(column[0]) >> 2, card(column[1]) >> 2)
                for column in (lottery.columns.C, lottery.columns.D, lottery.columns.H, lottery.columns.S)
            )
        # The kitty as the rules core counts it: uncollected until the first trick ends, then taken by its winner
        # or set aside with it; the pending cards are those of the tricks nobody has won yet.
        dealt_kitty = self._kitty_size()
        kitty = dealt_kitty if not tricks else 0
        pending = 0
        for t in reversed(tricks):
            if t.winner is not None:
                break
            pending += len(t.plays)
        if tricks and all(t.winner is None for t in tricks):
            pending += dealt_kitty
        offset = 0
        sent: tuple[int, ...] = ()
        received: tuple[int, ...] = ()
        if request.pass_ is not None:
            offset = pass_offset(request.pass_.direction, n)
            sent, received = cards(request.pass_.sent), cards(request.pass_.received)
        hand = cards(request.hand)
        size = hand_size(self.game, n)
        sizes = [size - played[s] for s in range(n)]
        sizes[seat] = len(hand)
        scores = request.scores
        return rules.Observation(
            game=self.ruleset.game,
            players=n,
            seat=seat,
            deal=request.deal,
            kind=rules.DealKind(request.kind),
            dealer=request.dealer if request.dealer is not None else 0,
            phase=rules.Phase.PLAY,
            to_act=seat,
            hand=hand,
            hand_sizes=tuple(sizes),
            trump=suit_of(request.trump),
            trump_named=request.kind == "trump",
            pass_offset=offset,
            passed=sent,
            received=received,
            trick_leader=leader,
            trick=trick,
            tricks=tricks,
            deal_scores=tuple(scores.deal),
            totals=tuple(scores.totals or scores.total),
            legal=cards(request.legal),
            lottery_start_rank=start_rank,
            lottery_columns=columns,
            lottery_finished=finished,
            kitty_size=kitty,
            pending_cards=pending,
            moon_options=None,
            hearts_broken=broken,
        )
