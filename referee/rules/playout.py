"""Playouts for Monte Carlo bots: play a deal to its end, fast, from a state or from what one seat knows.

``playout(state, rng)`` plays a copy of ``state``'s current deal to its end and returns the deal's scores; the
state itself is left as it was. ``sample_state(ruleset, observation, rng)`` deals the cards a seat has not seen
to the other seats, consistently with everything that seat knows, and returns a state to play out. The loop
runs inside the rules core (``state.playout``): no observation or action object is built per card.

What a sampled world respects: the seat's own hand, every card played so far, the cards the seat passed (still
held by their receiver unless played), each seat's hand size, and the voids a seat revealed by not following
suit; in the loteryjka, that the seat to act holds a card it can play. Other inferences (a heart led while
hearts were unbroken, which cards a seat lacked when it passed in the loteryjka) are not used. Samples come
from the play phase of the one-deck games (Hearts, Kierki, Kierki for 3); a state of any game can be played
out directly.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from referee.rules import lottery
from referee.rules.cards import FULL_DECK, SUIT_MASKS, Card, card_list, make_card, mask_of
from referee.rules.dealing import deck_for
from referee.rules.observation import Observation
from referee.rules.records import DealKind, DealStarted, Phase, RulesError
from referee.rules.ruleset import Game, Ruleset
from referee.rules.state import GameState, PlayPolicy, playout
from referee.rules.table import GameFlags, Table

__all__ = ["PlayPolicy", "SampleError", "playout", "sample_state"]

_LOTTERY_TRIES = 1000


class SampleError(RulesError):
    """An observation a world cannot be sampled for (wrong phase or game), or that no deal can match."""


def sample_state(ruleset: Ruleset, seen: Observation, rng: random.Random) -> GameState:
    """A state consistent with ``seen``: the seat's own cards, the unseen ones dealt at random to the others.

    ``ruleset`` must be the game's ruleset (an observation does not carry the options). The state ends with the
    current deal; pass it to `playout` (which leaves it unchanged) or play it yourself.
    """
    if seen.game is Game.CANCELLATION or seen.game is not ruleset.game or seen.players != ruleset.players:
        raise SampleError(f"cannot sample a {seen.game.value} observation for {ruleset.describe()}")
    if seen.phase is not Phase.PLAY:
        raise SampleError(f"worlds are sampled in the play phase, not the {seen.phase.value} phase")
    n = seen.players
    me = seen.seat
    played = mask_of(card for trick in seen.tricks for _, card in trick.plays) | mask_of(c for _, c in seen.trick)
    for suit, column in enumerate(seen.lottery_columns):  # the loteryjka: every card of a column is on the table
        if column is not None:
            played |= mask_of(make_card(rank, suit) for rank in range(column[0], column[1] + 1))
    played &= mask_of(deck_for(ruleset))  # Kierki for 3 opens clubs at a virtual 2♣ that is not in its deck
    mine = mask_of(seen.hand)
    hands = [0] * n
    hands[me] = mine
    # Cards the seat passed stay with their receiver until played.
    known = mine | played
    if seen.pass_offset and seen.passed:
        receiver = (me + seen.pass_offset) % n
        kept = mask_of(seen.passed) & ~played
        hands[receiver] |= kept
        known |= kept
    unseen = card_list(mask_of(deck_for(ruleset)) & ~known)
    need = [seen.hand_sizes[s] - hands[s].bit_count() for s in range(n)]
    need[me] = 0
    if sum(need) != len(unseen) or min(need) < 0:
        raise SampleError(f"the hand sizes {seen.hand_sizes} do not match the {len(unseen)} unseen cards")
    # allowed[s]: the suits seat s may still hold, as a mask of cards.
    allowed = [FULL_DECK] * n
    if seen.kind is not DealKind.LOTTERY:  # the loteryjka has no suit to follow
        for plays in [trick.plays for trick in seen.tricks] + [seen.trick]:
            if plays:
                led = plays[0][1] & 3
                for seat, card in plays[1:]:
                    if card & 3 != led:
                        allowed[seat] &= ~SUIT_MASKS[led]
    for _ in range(_LOTTERY_TRIES):
        dealt = list(hands)
        _deal_unseen(unseen, need, allowed, dealt, rng)
        world = GameState.from_table(world_table(ruleset, seen, dealt), seen.totals)
        # In the loteryjka the seat to act is one that can play (the others passed): keep only such worlds.
        if world.legal_plays():
            return world
    raise SampleError(f"no sampled loteryjka world in {_LOTTERY_TRIES} gave seat {seen.to_act} a card to play")


def _deal_unseen(unseen: list[Card], need: list[int], allowed: list[int], hands: list[int], rng: random.Random) -> None:
    """Give each seat ``need[s]`` of ``unseen`` within its allowed suits, at random; fill ``hands`` in place.

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
        raise SampleError("no deal of the unseen cards fits the hand sizes and the voids seen")
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
        hands[chosen] |= bit


def _dealable(left: list[int], room: list[int], allowed: list[int]) -> bool:
    """Hall's condition by suit: every set of suits has no more cards left than the seats that may take them."""
    for subset in range(1, 16):
        cards = 0
        suits = 0
        for suit in range(4):
            if subset >> suit & 1:
                cards += left[suit]
                suits |= SUIT_MASKS[suit]
        if cards and cards > sum(room[s] for s in range(len(room)) if allowed[s] & suits):
            return False
    return True


def world_table(ruleset: Ruleset, seen: Observation, hands: Sequence[int]) -> Table:
    """The table of the play phase that ``seen`` describes, with every seat holding the cards of ``hands``
    (masks): what a sampled world plays from."""
    n = ruleset.players
    dealt = tuple(tuple(card_list(mask)) for mask in hands)
    table = Table.deal(GameFlags(ruleset), DealStarted(seen.deal, seen.kind, seen.dealer, dealt, (), seen.pass_offset))
    table.trump = seen.trump
    table.trick_number = len(seen.tricks) + 1
    table.leader = seen.trick_leader
    table.plays = list(seen.trick)
    table.trick_views = list(seen.tricks)
    table.scores = list(seen.deal_scores)
    table.taken = mask_of(card for trick in seen.tricks for _, card in trick.plays)
    table.hearts_broken = seen.hearts_broken
    if seen.pass_offset:
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
    table.phase = Phase.PLAY
    table.to_act = seen.to_act
    return table
