"""Playouts for Monte Carlo bots: play a deal to its end, fast, from a state or from what one seat knows.

``playout(state, rng)`` plays a copy of ``state``'s current deal to its end and returns the deal's scores; the
state itself is left as it was. ``sample_state(ruleset, observation, rng)`` deals the cards a seat has not seen
to the other seats, consistently with everything that seat knows, and returns a state to play out. The loop
runs inside the rules core (``play_out_forked`` below): no observation or action object is built per card.

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
from typing import Final

from referee.rules import exchange, kierki_scoring, lottery
from referee.rules.cards import FULL_DECK, SUIT_MASKS, Card, card_list, make_card, mask_of
from referee.rules.dealing import deck_for, hand_size
from referee.rules.exchange import PASS_COUNT
from referee.rules.observation import Observation
from referee.rules.records import DealKind, DealStarted, MoonOption, Phase, RulesError
from referee.rules.ruleset import Game, Ruleset
from referee.rules.state import GameState, PlayPolicy

_PLAY: Final = Phase.PLAY
_PASS: Final = Phase.PASS
_TRUMP: Final = Phase.TRUMP
_MOON: Final = Phase.MOON
_KIERKI_GAMES: Final = (Game.KIERKI, Game.KIERKI3)

__all__ = ["PlayPolicy", "SampleError", "playout", "sample_state"]

_LOTTERY_TRIES = 1000


class SampleError(RulesError):
    """An observation a world cannot be sampled for (wrong phase or game), or that no deal can match."""


def playout(
    state: GameState,
    rng: random.Random,
    policy: PlayPolicy | None = None,
    *,
    moon: MoonOption = MoonOption.OTHERS,
) -> tuple[int, ...]:
    """Play a copy of ``state``'s current deal to its end; return that deal's scores, one per seat.

    Without ``policy`` every card is drawn uniformly from the legal cards with ``rng.random()``. A policy is
    called as ``policy(state, legal)`` with the playout's own state (the seat to act is ``state.to_act``) and
    the legal cards, and returns one of them. Passes and trump choices are random; a Hearts moon shooter takes
    ``moon``. The same state, seed and policy always give the same scores.
    """
    if state.is_over:
        raise RulesError("the game is over: there is no deal left to play out")
    return play_out_forked(state._fork(), rng, policy, moon)


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
        world = from_world(ruleset, seen, dealt)
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


# --- inside the core: a forked state played to the end of its deal, a state built from a sampled world ----


def play_out_forked(
    state: GameState, rng: random.Random, policy: PlayPolicy | None, moon: MoonOption
) -> tuple[int, ...]:
    """Play this (forked) state to the end of its deal and return the deal's scores.

    Cards come from ``policy`` (validated like any choice) or, without one, uniformly from the legal cards
    by ``rng.random()``; passes and trump are random, and a moon shooter takes ``moon``.
    """
    rand = rng.random
    state._record = policy is not None  # a policy may look at the state's observation; random play does not
    while True:
        phase = state.phase
        if phase is _PLAY:
            legal = state._legal
            if legal < 0:
                legal = state._legal_mask()
            if policy is not None:
                state._play(policy(state, card_list(legal)))
            else:
                if legal & (legal - 1):  # more than one card: drop a random number of the lowest ones
                    for _ in range(int(rand() * legal.bit_count())):
                        legal &= legal - 1
                state._place((legal & -legal).bit_length() - 1)
        elif phase is _PASS:
            hand = state.hand(state.to_act)
            chosen: list[Card] = []
            for _ in range(PASS_COUNT):
                chosen.append(hand.pop(int(rand() * len(hand))))
            exchange.pass_cards(state, tuple(chosen))
        elif phase is _TRUMP:
            choices = state.trump_choices()
            state._choose_trump(choices[int(rand() * len(choices))])
        elif phase is _MOON:
            state._choose_moon(moon)
        else:
            return state.deal_results[-1].scores


def from_world(ruleset: Ruleset, seen: Observation, hands: Sequence[int]) -> GameState:
    """The play phase that ``seen`` describes, with every seat holding the cards of ``hands`` (masks).

    For playouts from a sampled world: it ends with the deal, and holds no history before it.
    """
    n = ruleset.players
    state = GameState(ruleset, _blank=True)
    state.ruleset = ruleset
    state.players = n
    state.seed = "0"
    state.game = 1
    state.ended_deal = None
    state.events = []
    state.totals = list(seen.totals)
    state.deal_results = []
    state.final_places = None
    state.deal_number = seen.deal
    state._given = []
    state._kierki = ruleset.game in _KIERKI_GAMES
    state._double_deck = ruleset.game is Game.CANCELLATION
    state._hearts_game = ruleset.game is Game.HEARTS
    state._record = True
    state._kinds = kierki_scoring.deal_kinds(ruleset) if state._kierki else ()
    state._first_dealer = (seen.dealer - seen.deal + 1) % n
    state._stop_after_deal = True
    state.dealer = seen.dealer
    state.kind = seen.kind
    state.dealt = tuple(tuple(card_list(mask)) for mask in hands)
    state.doubles = [0] * n
    state.hands = list(hands)
    state._tricks_per_deal = hand_size(ruleset)
    state._lottery = seen.kind is DealKind.LOTTERY
    state._penalty_deal = seen.kind in kierki_scoring.PENALTY_KINDS
    state._breaks_with_queen = ruleset.qs_breaks_hearts
    state._kitty = []
    state.trump = seen.trump
    state.trick_number = len(seen.tricks) + 1
    state._leader = seen.trick_leader
    state._plays = list(seen.trick)
    state._trick_views = list(seen.tricks)
    state._unviewed = []
    state._deal_scores = list(seen.deal_scores)
    state._taken = mask_of(card for trick in seen.tricks for _, card in trick.plays)
    state._hearts_broken = seen.hearts_broken
    state._pending = []
    passes: list[tuple[Card, ...] | None] = [None] * n
    exchanged: tuple[tuple[Card, ...], ...] | None = None
    if seen.pass_offset:
        passes = [()] * n
        passes[seen.seat] = seen.passed
        given: list[tuple[Card, ...]] = [()] * n  # only what the seat sent and received is known
        given[seen.seat] = seen.passed
        given[(seen.seat - seen.pass_offset) % n] = seen.received
        exchanged = tuple(given)
    state._passes = passes
    state._exchanged = exchanged
    state._pass_offset = seen.pass_offset
    state._columns = [None, None, None, None]
    state._start_rank = None
    state._playable = 0
    if seen.lottery_start_rank is not None:
        state._start_rank = seen.lottery_start_rank
        state._playable = mask_of(make_card(seen.lottery_start_rank, s) for s in range(4))
        for suit, column in enumerate(seen.lottery_columns):
            if column is not None:
                lottery.extend_column(state, suit, column[0])
                lottery.extend_column(state, suit, column[1])
    state._finished = list(seen.lottery_finished)
    state._shooter = -1
    state._legal = -1
    state.phase = Phase.PLAY
    state.to_act = seen.to_act
    state._moon = None
    state._dealt_event = DealStarted(seen.deal, seen.kind, seen.dealer, state.dealt, (), seen.pass_offset)
    return state
