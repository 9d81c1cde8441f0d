"""The rollout policy: how every seat plays in a simulated world, fast and reasonably well.

A playout policy is called by ``referee.rules.playout`` as ``policy(state, legal)`` for every card of the
playout, so it is the bot's hottest code. It reads only the state's public, read-only view of the deal
(``state.table``: the hands as masks, the trick being played, whose turn, the trick's number) and sees a *sampled*
world, where every hand is known: a rollout may peek at the other hands (perfect-information play), which makes
simple rules play much better than they would from one seat's view.

The rules of thumb, per kind of deal:

- penalty deals and Hearts: duck under the winning card, dump the costliest card when void, lead low from a
  short suit; win a trick that costs nothing (Kierki's 7th-and-last deal) with a high card to shed it.
- trump deals: lead a card no other hand can beat, win as cheaply as possible, otherwise throw the least useful.
- the loteryjka: lay the card that opens least for the others.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

import referee.rules as rules

CLUBS: Final = 0
HEARTS: Final = 2
SPADES: Final = 3
QUEEN_OF_SPADES: Final = 43  # rank 10 * 4 + spades
KING_OF_HEARTS: Final = 46
SUIT_MASKS: Final = tuple(sum(1 << (rank * 4 + suit) for rank in range(13)) for suit in range(4))
HEARTS_MASK: Final = SUIT_MASKS[HEARTS]
HIGH_SPADES: Final = (47, 51)  # K♠, A♠: dangerous to hold while Q♠ is out
RANK_NINE: Final = 7

_KIND = rules.DealKind
_PENALTY_BY_KIND: Final[dict[rules.DealKind, Callable[[int], int]]] = {
    _KIND.HEARTS: lambda c: (c & 3 == HEARTS) + 13 * (c == QUEEN_OF_SPADES),
    _KIND.CANCELLATION: lambda c: (c & 3 == HEARTS) + 13 * (c == QUEEN_OF_SPADES),
    _KIND.NO_HEARTS: lambda c: 20 * (c & 3 == HEARTS),
    _KIND.NO_QUEENS: lambda c: 60 * (c >> 2 == 10),
    _KIND.NO_KINGS_JACKS: lambda c: 30 * (c >> 2 in (9, 11)),
    _KIND.NO_KING_OF_HEARTS: lambda c: 150 * (c == KING_OF_HEARTS),
    _KIND.ROBBER: lambda c: (
        20 * (c & 3 == HEARTS) + 60 * (c >> 2 == 10) + 30 * (c >> 2 in (9, 11)) + 150 * (c == KING_OF_HEARTS)
    ),
}


def penalties(kind: rules.DealKind) -> tuple[int, ...]:
    """What taking each card costs in this kind of deal (0 for every card where only tricks cost)."""
    rule = _PENALTY_BY_KIND.get(kind)
    return tuple(int(rule(card)) if rule else 0 for card in range(52))


class Rollout:
    """The playout policy for one deal kind of one game (``__call__`` is ``rules.PlayPolicy``)."""

    def __init__(
        self,
        ruleset: rules.Ruleset,
        kind: rules.DealKind,
        trump: int | None,
    ) -> None:
        self.players = ruleset.players
        self.kind = kind
        self.trump = trump
        self.penalty = penalties(kind)
        self.hearts_game = kind in (_KIND.HEARTS, _KIND.CANCELLATION)
        self.double_deck = kind is _KIND.CANCELLATION
        self.duck_tricks: tuple[int, ...] = ()  # the 7th-and-last deal: the only tricks that cost
        if kind is _KIND.NO_SEVENTH_LAST:
            self.duck_tricks = ruleset.deal6_tricks
        choose: Callable[[rules.GameState, list[int]], int]
        if kind is _KIND.TRUMP:
            choose = self._trump_deal
        elif kind is _KIND.LOTTERY:
            choose = self._lottery
        else:
            choose = self._avoiding
        self._choose = choose

    def __call__(self, state: rules.GameState, legal: list[int]) -> int:
        if len(legal) == 1:
            return legal[0]
        return self._choose(state, legal)

    # --- tricks that cost: penalty deals, Hearts, Cancellation -------------------------------------------------

    def _winning(self, plays: list[tuple[int, int]]) -> int:
        """The card winning the trick so far (-1 when none does: every led-suit card cancelled)."""
        led = plays[0][1] & 3
        if self.double_deck:
            cards = [card for _, card in plays]
            live = [c for c in cards if c & 3 == led and cards.count(c) == 1]
            return max(live) if live else -1
        best = plays[0][1]
        for _, card in plays:
            if card & 3 == led and card > best:
                best = card
        return best

    def _avoiding(self, state: rules.GameState, legal: list[int]) -> int:
        table = state.table
        plays = table.plays
        penalty = self.penalty
        hand = table.hands[table.to_act]
        if not plays:
            if self.duck_tricks and table.trick_number not in self.duck_tricks:
                return max(legal, key=lambda c: (-penalty[c], c >> 2))  # a free trick: shed a high card
            return min(
                legal,
                key=lambda c: (
                    penalty[c],
                    c & 3 == HEARTS,
                    c >> 2 > RANK_NINE,
                    (hand & SUIT_MASKS[c & 3]).bit_count(),
                    c >> 2,
                ),
            )
        led = plays[0][1] & 3
        if legal[0] & 3 == led:  # following suit (every legal card is of the led suit)
            if self.duck_tricks and table.trick_number not in self.duck_tricks:
                return max(legal)
            best = self._winning(plays)
            if self.double_deck:
                played = {card for _, card in plays}
                ducks = [c for c in legal if c < best or c in played]  # a copy of a played card cancels it
            else:
                ducks = [c for c in legal if c < best]
            if ducks:
                return max(ducks, key=lambda c: (-penalty[c], c))
            if len(plays) == self.players - 1:  # last to play and the trick is ours: shed the highest safe card
                return min(legal, key=lambda c: (penalty[c], -c))
            return min(legal, key=lambda c: (penalty[c], c))
        # Void in the led suit: dump the costliest card; in Hearts a high spade while Q♠ is still held.
        if self.hearts_game:
            queen_out = any(h >> QUEEN_OF_SPADES & 1 for h in table.hands)
            return max(
                legal, key=lambda c: penalty[c] * 100 + (150 if queen_out and c in HIGH_SPADES else 0) + (c >> 2)
            )
        return max(legal, key=lambda c: penalty[c] * 100 + (c >> 2))

    # --- trump deals: every trick is worth points --------------------------------------------------------------

    def _trump_deal(self, state: rules.GameState, legal: list[int]) -> int:
        table = state.table
        plays = table.plays
        trump = self.trump
        me = table.to_act
        hands = table.hands
        if not plays:
            others = 0
            for seat, held in enumerate(hands):
                if seat != me:
                    others |= held
            # A master: no other hand holds a higher card of its suit (nor, off trump, any trump to ruff... a
            # void is not checked: a rollout errs on the bold side).
            masters = [c for c in legal if not others & SUIT_MASKS[c & 3] & ~((2 << c) - 1)]
            if masters:
                return max(masters, key=lambda c: (c & 3 == trump, c >> 2))
            hand = hands[me]
            side = [c for c in legal if c & 3 != trump] or legal
            return min(side, key=lambda c: ((hand & SUIT_MASKS[c & 3]).bit_count(), c >> 2))
        best = plays[0][1]
        for _, card in plays:
            suit = card & 3
            if (suit == best & 3 and card > best) or (suit == trump and best & 3 != trump):
                best = card
        best_suit = best & 3
        winners = [c for c in legal if (c & 3 == best_suit and c > best) or (c & 3 == trump and best_suit != trump)]
        if winners:
            return min(winners, key=lambda c: (c & 3 == trump, c >> 2))
        return min(legal, key=lambda c: (c & 3 == trump, c >> 2))

    # --- the loteryjka: shed cards, open little ----------------------------------------------------------------

    def _lottery(self, state: rules.GameState, legal: list[int]) -> int:
        view = state.play_view()
        columns = view.lottery_columns
        hand = view.hand
        started = view.lottery_start_rank is not None

        def cost(card: int) -> tuple[int, int, int]:
            suit, rank = card & 3, card >> 2
            column = columns[suit]
            steps = (-1, 1) if column is None else ((-1,) if rank < column[0] else (1,))
            opened = 0
            beyond = 0
            for step in steps:
                nxt = rank + step
                if 0 <= nxt < 13 and not hand >> (nxt * 4 + suit) & 1:
                    opened += 1
                beyond += (hand & SUIT_MASKS[suit] & (~((2 << card) - 1) if step > 0 else (1 << card) - 1)).bit_count()
            if not started:  # the first card also lets the others open every suit at its rank
                opened += sum(not hand >> (rank * 4 + s) & 1 for s in range(4) if s != suit)
            return (opened, -beyond, rank)

        return min(legal, key=cost)


def forced_first(card: int, then: rules.PlayPolicy) -> rules.PlayPolicy:
    """A policy that plays ``card`` on its first call (the move under evaluation) and ``then`` after it."""
    pending = [card]

    def policy(state: rules.GameState, legal: list[int]) -> int:
        if pending:
            return pending.pop()
        return then(state, legal)

    return policy
