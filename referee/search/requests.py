"""What one seat knows, in the rules core's terms: a protocol request turned into a ``rules.Observation``.

The one place that reads the wire's requests into the rules core's view (issue 31 item 5): every request carries
what the seat has seen of the game (PROTOCOL.md section 8): its seat, the deal's dealer, the pass as the seat saw
it, this deal's tricks and loteryjka moves, the scores; ``hello`` gives the game and its rule options once
(``SeatKnowledge.from_hello``). Nothing is remembered between requests. The hand sizes, the kitty's size and the
pass direction come from the ruleset and the rules core (``Ruleset``, ``DealKind``), not restated here; cards become
the rules core's integers (``rules.parse_card``), so a sampled world and the request speak of the same cards.
"""

from __future__ import annotations

import dataclasses

import referee.rules as rules
from protocol import messages as m

__all__ = ["SeatKnowledge", "cards", "trump_suit"]

_SUITS = "CDHS"


def cards(names: tuple[str, ...] | list[str]) -> tuple[int, ...]:
    return tuple(rules.parse_card(name) for name in names)


def trump_suit(letter: str | None) -> int | None:
    """A wire trump ("C", "D", "H", "S"; "NT" or null: no trump) as the rules core's suit."""
    return None if letter is None or letter == "NT" else _SUITS.index(letter)


def _rank(name: str) -> int:
    return rules.parse_card(name + "C") >> 2


class SeatKnowledge:
    """One seat's game and rules, from ``hello``; each request says the rest (``observation``)."""

    def __init__(self, ruleset: rules.Ruleset, seat: int) -> None:
        self.ruleset = ruleset
        self.players = ruleset.players
        self.seat = seat
        # The rules core's own answers to "how many cards a hand, how big the kitty": a table dealt from a seed.
        state = rules.GameState(ruleset, seed="search")
        dealt = state.table.dealt
        self.hand_size = len(dealt[0])
        self.kitty_size = len(state.table.event.kitty)

    @classmethod
    def from_hello(cls, request: m.HelloRequest) -> SeatKnowledge:
        return cls(rules.Ruleset.create(request.game, request.players, dict(request.options)), request.seat)

    @property
    def higher_is_better(self) -> bool:
        return self.ruleset.game.higher_is_better

    def seat_of(self, seat: int | None) -> int:
        """A request's seat (every request carries it; an older referee's did not: then hello's)."""
        return self.seat if seat is None else seat

    def pass_offset(self, direction: str) -> int:
        n = self.players
        return {"left": 1, "right": n - 1, "across": 2}.get(direction, 0)

    def observation(self, request: m.PassRequest | m.TrumpRequest | m.PlayRequest | m.MoonRequest) -> rules.Observation:
        """The rules core's view of this seat at ``request``."""
        if isinstance(request, m.PlayRequest):
            return self._play(request)
        if isinstance(request, m.PassRequest):
            return self._pass(request)
        if isinstance(request, m.TrumpRequest):
            return self._trump(request)
        return self._moon(request)

    def _pass(self, request: m.PassRequest) -> rules.Observation:
        """Asked to pass (the others pass at the same time)."""
        n = self.players
        kind = rules.DealKind.CANCELLATION if self.ruleset.game is rules.Game.CANCELLATION else rules.DealKind.HEARTS
        return self._before_play(
            self.seat_of(request.seat),
            request.deal,
            kind,
            request.dealer if request.dealer is not None else 0,
            rules.Phase.PASS,
            tuple(sorted(cards(request.hand))),
            (self.hand_size,) * n,
            self.pass_offset(request.direction),
            self.kitty_size,
            request.totals,
        )

    def _trump(self, request: m.TrumpRequest) -> rules.Observation:
        """The dealer naming trump: its first cards, in dealing order, and no hand else."""
        seat = self.seat_of(request.seat)
        return self._before_play(
            seat,
            request.deal,
            rules.DealKind.TRUMP,
            seat,
            rules.Phase.TRUMP,
            cards(request.cards),
            (0,) * self.players,
            0,
            0,
            request.totals,
        )

    def _moon(self, request: m.MoonRequest) -> rules.Observation:
        """The shooter choosing how its moon scores: only the two outcomes matter (the deal's cards are all out)."""
        seat = self.seat_of(request.seat)
        n = self.players
        own, others = request.options.self_, request.options.others
        totals = tuple(t + self.ruleset.moon_value * (s == seat) for s, t in enumerate(own))  # before the moon
        kind = rules.DealKind.CANCELLATION if self.ruleset.game is rules.Game.CANCELLATION else rules.DealKind.HEARTS
        seen = self._before_play(seat, request.deal, kind, 0, rules.Phase.MOON, (), (0,) * n, 0, 0, totals)
        options = {rules.MoonOption.SELF: tuple(own), rules.MoonOption.OTHERS: tuple(others)}
        return dataclasses.replace(seen, moon_options=options)

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

    def _play(self, request: m.PlayRequest) -> rules.Observation:
        n = self.players
        seat = self.seat_of(request.seat)
        tricks = tuple(
            rules.TrickView(t.number, t.leader, tuple((c.seat, rules.parse_card(c.card)) for c in t.cards), t.winner)
            for t in request.tricks
        )
        trick: tuple[tuple[int, int], ...] = ()
        leader = seat
        if request.trick is not None:
            leader = request.trick.leader
            trick = tuple((c.seat, rules.parse_card(c.card)) for c in request.trick.cards)
        played = [0] * n
        broken = False
        queen_breaks = self.ruleset.qs_breaks_hearts
        queen = rules.parse_card("QS")
        for plays in [t.plays for t in tricks] + [trick]:
            for s, c in plays:
                played[s] += 1
                broken = broken or c & 3 == 2 or (queen_breaks and c == queen)
        start_rank: int | None = None
        columns: tuple[tuple[int, int] | None, ...] = (None, None, None, None)
        finished: tuple[int, ...] = ()
        if request.lottery is not None:
            lottery = request.lottery
            for move in lottery.moves:
                played[move.seat] += move.card is not None
            finished = tuple(lottery.out)
            start_rank = None if lottery.start_rank is None else _rank(lottery.start_rank)
            columns = tuple(
                None if column is None else (rules.parse_card(column[0]) >> 2, rules.parse_card(column[1]) >> 2)
                for column in (lottery.columns.C, lottery.columns.D, lottery.columns.H, lottery.columns.S)
            )
        # The kitty as the rules core counts it: uncollected until the first trick ends, then taken by its winner
        # or set aside with it; the pending cards are those of the tricks nobody has won yet.
        kitty = self.kitty_size if not tricks else 0
        pending = 0
        for t in reversed(tricks):
            if t.winner is not None:
                break
            pending += len(t.plays)
        if tricks and all(t.winner is None for t in tricks):
            pending += self.kitty_size
        offset = 0
        sent: tuple[int, ...] = ()
        received: tuple[int, ...] = ()
        if request.pass_ is not None:
            offset = self.pass_offset(request.pass_.direction)
            sent, received = cards(request.pass_.sent), cards(request.pass_.received)
        hand = cards(request.hand)
        sizes = [self.hand_size - played[s] for s in range(n)]
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
            trump=trump_suit(request.trump),
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
