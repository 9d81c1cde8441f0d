"""Playouts for Monte Carlo bots: play a deal to its end, fast, from a state or from what one seat knows.

``playout(state, rng)`` plays a copy of ``state``'s current deal to its end and returns the deal's scores; the
state itself is left as it was. ``sample_state(ruleset, observation, rng)`` deals the cards a seat has not seen,
consistently with everything that seat knows, and returns a state to play out (or to play yourself: a world
sampled in the pass phase waits for the passes, one in the trump phase for the dealer's trump, so a bot can try
each of its choices there by ``apply`` and then play out). The loop runs inside the rules core (``state.playout``):
no observation or action object is built per card.

Worlds are sampled in the play, pass and trump phases of every game. A sampled world respects:

- the seat's own hand (in a Kierki trump deal, the dealer's first cards in dealing order; a seat that sees none
  of its cards yet gets them dealt at random like everyone's), every card played so far, each hand's size;
- the cards the seat passed, held by their receiver unless it played them; the voids a seat revealed by not
  following suit;
- in the pass phase, that the seats before the one to act have passed (three of their own cards, at random);
- Cancellation Hearts' kitty (two decks): its size, and where it is: still on the table, in the pile of cancelled
  tricks that the next trick with a winner takes, or taken, and then holding the points the deal's scores say;
- in the loteryjka, that the seat to act holds a card it can play.

Other inferences (a heart led while hearts were unbroken, which cards a seat lacked when it passed in the
loteryjka) are not used.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from referee.rules import lottery
from referee.rules.cards import FULL_DECK, HEARTS, QUEEN_OF_SPADES, SUIT_MASKS, Card, make_card, mask_of
from referee.rules.dealing import deck_for
from referee.rules.exchange import PASS_COUNT
from referee.rules.observation import Observation
from referee.rules.points import HEART_POINTS, QUEEN_OF_SPADES_POINTS
from referee.rules.records import DealKind, DealStarted, Phase, RulesError
from referee.rules.ruleset import Ruleset
from referee.rules.state import GameState, PlayPolicy, playout
from referee.rules.table import Table, flags_of

__all__ = ["PlayPolicy", "SampleError", "playout", "sample_state"]

_TRIES = 1000  # worlds tried for one sample: a loteryjka turn, or a taken kitty that leaves the rest undealable

# Where Cancellation Hearts' kitty is, as far as every seat knows.
_NO_KITTY = 0
_ON_TABLE = 1  # no trick has ended yet
_PENDING = 2  # every trick so far was cancelled: it waits, with their cards, for the next trick with a winner
_TAKEN = 3  # a trick with a winner took it


class SampleError(RulesError):
    """An observation a world cannot be sampled for (wrong phase or game), or that no deal can match."""


def sample_state(ruleset: Ruleset, seen: Observation, rng: random.Random) -> GameState:
    """A state consistent with ``seen``: the seat's own cards, the cards it has not seen dealt at random.

    ``ruleset`` must be the game's ruleset (an observation does not carry the options). The state ends with the
    current deal; pass it to `playout` (which leaves it unchanged) or play it yourself.
    """
    if seen.game is not ruleset.game or seen.players != ruleset.players:
        raise SampleError(f"cannot sample a {seen.game.value} observation for {ruleset.describe()}")
    if seen.phase is not Phase.PLAY and seen.phase is not Phase.PASS and seen.phase is not Phase.TRUMP:
        raise SampleError(f"worlds are sampled in the play, pass and trump phases, not the {seen.phase.value} phase")
    known = _Known(ruleset, seen)
    for _ in range(_TRIES):
        table = known.deal(rng)
        if table is None:
            continue
        world = GameState.from_table(table, seen.totals)
        # In the loteryjka the seat to act is one that can play (the others passed): keep only such worlds.
        if seen.phase is not Phase.PLAY or world.legal_plays():
            return world
    raise SampleError(f"no world sampled in {_TRIES} tries fits seat {seen.seat}'s observation")


def _points(cards: Sequence[Card]) -> int:
    """The Hearts games' points of some cards."""
    return sum(
        HEART_POINTS if card & 3 == HEARTS else QUEEN_OF_SPADES_POINTS if card == QUEEN_OF_SPADES else 0
        for card in cards
    )


class _Known:
    """What one seat's observation fixes of the deal, worked out once for every world sampled from it."""

    def __init__(self, ruleset: Ruleset, seen: Observation) -> None:
        self.flags = flags_of(ruleset)
        self.seen = seen
        n = seen.players
        me = seen.seat
        size = self.flags.hand_size
        trump_phase = seen.phase is Phase.TRUMP
        deck = deck_for(ruleset)
        counts: list[int] = [0] * 52  # the deck's cards not accounted for yet, per card
        for card in deck:
            counts[card] += 1
        self.played = [card for trick in seen.tricks for _, card in trick.plays] + [card for _, card in seen.trick]
        for suit, column in enumerate(seen.lottery_columns):  # the loteryjka: every card of a column is on the table
            if column is not None:
                laid = [make_card(rank, suit) for rank in range(column[0], column[1] + 1)]
                # Kierki for 3 opens clubs at a virtual 2♣ that is not in its deck.
                self.played += [card for card in laid if counts[card]]
        self.holding: list[list[Card]] = [[] for _ in range(n)]  # the cards known to be in each hand
        self.holding[me] = list(seen.hand)
        if seen.pass_offset and seen.passed and seen.phase is Phase.PLAY:
            # Cards the seat passed stay with their receiver until it plays them.
            receiver = (me + seen.pass_offset) % n
            kept = list(seen.passed)
            for seat, card in [play for trick in seen.tricks for play in trick.plays] + list(seen.trick):
                if seat == receiver and card in kept:
                    kept.remove(card)
            self.holding[receiver] += kept
        for cards in (self.played, *self.holding):
            for card in cards:
                counts[card] -= 1
                if counts[card] < 0:
                    raise SampleError(f"seat {me}'s observation holds more copies of a card than the deck")
        self.unseen: list[Card] = []
        for card in range(52):  # loops, not a comprehension over 52 ranges: a world is sampled per playout
            left = counts[card]
            while left > 0:
                self.unseen.append(card)
                left -= 1
        if trump_phase:  # no hand is shown yet, but the dealer's first cards to the dealer
            self.need = [size - len(self.holding[s]) for s in range(n)]
        else:
            self.need = [seen.hand_sizes[s] - len(self.holding[s]) for s in range(n)]
            self.need[me] = 0
        # allowed[s]: the suits seat s may still hold, as a mask of cards.
        self.allowed = [FULL_DECK] * n
        if seen.kind is not DealKind.LOTTERY:  # the loteryjka has no suit to follow
            for plays in [trick.plays for trick in seen.tricks] + [seen.trick]:
                if plays:
                    led = plays[0][1] & 3
                    for seat, card in plays[1:]:
                        if card & 3 != led:
                            self.allowed[seat] &= ~SUIT_MASKS[led]
        self._kitty(len(deck) - n * size, seen)
        dealt = sum(self.need) + (self.kitty_size if self.kitty != _NO_KITTY else 0)
        if min(self.need) < 0 or dealt != len(self.unseen):
            raise SampleError(f"the hand sizes {seen.hand_sizes} do not match the {len(self.unseen)} unseen cards")

    def _kitty(self, size: int, seen: Observation) -> None:
        """Where the kitty is, the cancelled tricks' cards waiting for a winner, and the points of a taken kitty."""
        self.kitty_size = size
        won = [index for index, trick in enumerate(seen.tricks) if trick.winner is not None]
        waiting = seen.tricks[won[-1] + 1 :] if won else seen.tricks
        self.pending = [card for trick in waiting for _, card in trick.plays]  # every seat saw them played
        self.kitty_points = 0
        if not size:
            self.kitty = _NO_KITTY
        elif not seen.tricks:
            self.kitty = _ON_TABLE
        elif not won:
            self.kitty = _PENDING
        else:
            self.kitty = _TAKEN
            # The deal's points so far are the cards its winners took: the tricks' and the kitty's.
            taken = [card for trick in seen.tricks for _, card in trick.plays]
            self.kitty_points = sum(seen.deal_scores) - _points(taken) + _points(self.pending)
        in_kitty = size if self.kitty == _ON_TABLE else 0
        waiting_cards = len(self.pending) + (size if self.kitty == _PENDING else 0)
        if seen.kitty_size != in_kitty or seen.pending_cards != waiting_cards:
            raise SampleError(
                f"a kitty of {seen.kitty_size} and {seen.pending_cards} cancelled cards do not fit the tricks seen"
            )

    def deal(self, rng: random.Random) -> Table | None:
        """One world's table; None when its taken kitty left cards that no seat can hold."""
        seen = self.seen
        n = seen.players
        unseen = self.unseen
        kitty: list[Card] = []
        if self.kitty == _TAKEN:
            taken = self._taken_kitty(rng)
            if taken is None:
                return None
            kitty = taken
            rest = list(unseen)
            for card in kitty:
                rest.remove(card)
            unseen = rest
        hands = [list(held) for held in self.holding]
        room = list(self.need)
        allowed = list(self.allowed)
        if self.kitty == _ON_TABLE or self.kitty == _PENDING:  # the kitty is dealt like one more hand
            hands.append([])
            room.append(self.kitty_size)
            allowed.append(FULL_DECK)
        if not _deal_unseen(unseen, room, allowed, hands, rng):
            if self.kitty == _TAKEN:
                return None
            raise SampleError("no deal of the unseen cards fits the hand sizes and the voids seen")
        if len(hands) > n:
            kitty = hands.pop()
        return self._table(hands, sorted(kitty), rng)

    def _taken_kitty(self, rng: random.Random) -> list[Card] | None:
        """A taken kitty of the right points (hearts 1, Q♠ 13: under 13 cards, its queens and hearts are fixed)."""
        queens, hearts = divmod(self.kitty_points, QUEEN_OF_SPADES_POINTS)
        pools: list[list[Card]] = [[], [], []]  # Q♠, hearts, the rest
        for card in self.unseen:
            pools[0 if card == QUEEN_OF_SPADES else 1 if card & 3 == HEARTS else 2].append(card)
        wanted = [queens, hearts, self.kitty_size - queens - hearts]
        if any(want < 0 or want > len(pool) for want, pool in zip(wanted, pools, strict=True)):
            return None
        chosen: list[Card] = []
        for want, pool in zip(wanted, pools, strict=True):
            for _ in range(want):
                chosen.append(pool.pop(int(rng.random() * len(pool))))
        return chosen

    def _table(self, hands: list[list[Card]], kitty: list[Card], rng: random.Random) -> Table:
        seen = self.seen
        n = seen.players
        if seen.phase is Phase.TRUMP:  # the dealer's first cards are the ones seen, in dealing order
            dealt = tuple(tuple(hand) for hand in hands)
        else:
            dealt = tuple(tuple(sorted(hand)) for hand in hands)
        event = DealStarted(seen.deal, seen.kind, seen.dealer, dealt, tuple(kitty), seen.pass_offset)
        table = Table.deal(self.flags, event)
        if self.kitty != _ON_TABLE:
            table.kitty = []
        table.pending = self.pending + (kitty if self.kitty == _PENDING else [])
        table.trump = seen.trump
        table.trick_number = len(seen.tricks) + 1
        table.leader = seen.trick_leader
        table.plays = list(seen.trick)
        table.trick_views = list(seen.tricks)
        table.scores = list(seen.deal_scores)
        table.taken = mask_of(card for trick in seen.tricks for _, card in trick.plays)
        table.hearts_broken = seen.hearts_broken
        if seen.phase is Phase.PASS:
            # The seats from the dealer's left up to the one to act have passed: the seat itself what it saw.
            for step in range((seen.to_act - seen.dealer - 1) % n):
                seat = (seen.dealer + 1 + step) % n
                if seat == seen.seat:
                    table.passes[seat] = seen.passed
                else:
                    hand = list(dealt[seat])
                    table.passes[seat] = tuple(hand.pop(int(rng.random() * len(hand))) for _ in range(PASS_COUNT))
        elif seen.pass_offset and seen.phase is Phase.PLAY:
            table.passes = [()] * n
            table.passes[seen.seat] = seen.passed
            given: list[tuple[Card, ...]] = [()] * n  # only what the seat sent and received is known
            given[seen.seat] = seen.passed
            given[(seen.seat - seen.pass_offset) % n] = seen.received
            table.exchanged = tuple(given)
        if seen.lottery_start_rank is not None:
            table.start_rank = seen.lottery_start_rank
            table.playable = mask_of(make_card(seen.lottery_start_rank, s) for s in range(4))
            for suit, column in enumerate(seen.lottery_columns):
                if column is not None:
                    lottery.extend_column(table, suit, column[0])
                    lottery.extend_column(table, suit, column[1])
        table.finished = list(seen.lottery_finished)
        table.phase = seen.phase
        table.to_act = seen.to_act
        return table


def _deal_unseen(
    unseen: list[Card], need: list[int], allowed: list[int], hands: list[list[Card]], rng: random.Random
) -> bool:
    """Give each hand ``need[s]`` of ``unseen`` within its allowed suits, at random, in place; False (and nothing
    dealt) when no deal fits.

    Each card goes to a seat chosen with probability proportional to the room it has left (uniform over all
    deals when no seat is void), among the seats that may hold it and that leave the rest still dealable:
    a suit-level Hall check, so a possible deal is always found without retrying.
    """
    rand = rng.random
    cards = list(unseen)
    for i in range(len(cards) - 1, 0, -1):  # Fisher-Yates on random() alone (reproducible across versions)
        j = int(rand() * (i + 1))
        cards[i], cards[j] = cards[j], cards[i]
    room = list(need)
    n = len(room)
    constrained = any(room[s] and allowed[s] != FULL_DECK for s in range(n))
    left = [0, 0, 0, 0]  # cards still to deal, per suit
    for card in cards:
        left[card & 3] += 1
    if constrained and not _dealable(left, room, allowed):
        return False
    for card in cards:
        bit = 1 << card
        suit = card & 3
        left[suit] -= 1
        candidates = [s for s in range(n) if room[s] and allowed[s] & bit]
        while True:
            total = sum(room[s] for s in candidates)
            pick = rand() * total
            chosen = candidates[-1]
            for s in candidates:
                pick -= room[s]
                if pick < 0:
                    chosen = s
                    break
            room[chosen] -= 1
            if not constrained or _dealable(left, room, allowed):
                break
            room[chosen] += 1
            candidates.remove(chosen)
        hands[chosen].append(card)
    return True


def _dealable(left: list[int], room: list[int], allowed: list[int]) -> bool:
    """Hall's condition by suit: every set of suits has no more cards left than the seats that may take them."""
    for subset in range(1, 16):
        cards = 0
        suits = 0
        for suit in range(4):
            if subset >> suit & 1:
                cards += left[suit]
                suits |= SUIT_MASKS[suit]
        if cards:
            space = 0  # the room of the seats that may take a card of these suits (a loop: no generator to make)
            for seat in range(len(room)):
                if allowed[seat] & suits:
                    space += room[seat]
            if cards > space:
                return False
    return True
