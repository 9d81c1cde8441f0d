"""The loteryjka (Kierki's last deal): opening the suits at a rank and building columns up and down from it.

Functions of the game state (``state.py`` dispatches to them for a lottery deal): the column rule is stated here
once, and a replay viewer reads the columns from the state rather than computing them again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from referee.rules import kierki_scoring, legality
from referee.rules.cards import CLUBS, SUIT_MASKS, TWO, Card, Suit, make_card, mask_of
from referee.rules.records import LotteryPassed, Phase, PlayerOut
from referee.rules.ruleset import Game, LotteryMissing2C, LotteryStart

if TYPE_CHECKING:
    from referee.rules.state import GameState


def start(state: GameState) -> None:
    state.phase = Phase.PLAY
    if state.ruleset.lottery_start is LotteryStart.DEALER:
        state.to_act = state.dealer
        return
    open_at(state, int(state.ruleset.lottery_start) - 2)
    state.to_act = state.dealer
    next_turn(state)


def open_at(state: GameState, rank: int) -> None:
    state._start_rank = rank
    state._playable = mask_of(make_card(rank, s) for s in range(4))
    virtual_two = state.ruleset.lottery_missing_2c is LotteryMissing2C.VIRTUAL
    if rank == TWO and state.ruleset.game is Game.KIERKI3 and virtual_two:
        extend_column(state, CLUBS, TWO)


def extend_column(state: GameState, suit: Suit, rank: int) -> None:
    column = state._columns[suit]
    lo, hi = (rank, rank) if column is None else (min(column[0], rank), max(column[1], rank))
    state._columns[suit] = (lo, hi)
    playable = state._playable & ~SUIT_MASKS[suit]
    if lo > 0:
        playable |= 1 << make_card(lo - 1, suit)
    if hi < 12:
        playable |= 1 << make_card(hi + 1, suit)
    state._playable = playable


def play(state: GameState, seat: int, card: Card) -> None:
    if state._start_rank is None:
        open_at(state, card >> 2)
    extend_column(state, card & 3, card >> 2)
    if not state.hands[seat]:
        state._finished.append(seat)
        bonus = kierki_scoring.VALUES[state.ruleset.game].lottery_bonuses[len(state._finished) - 1]
        state._deal_scores[seat] += bonus
        state.events.append(PlayerOut(seat, len(state._finished), bonus, state.deal_number))
        if len(state._finished) == 2:
            state._finish_deal(list(state._deal_scores), early=True)
            return
    next_turn(state)


def next_turn(state: GameState) -> None:
    """Move to the next seat that can play, passing automatically for those that cannot."""
    seat = state.to_act
    for _ in range(state.players):
        seat = (seat + 1) % state.players
        if not state.hands[seat]:
            continue
        if legality.lottery_legal(state, seat):
            state.to_act = seat
            state._legal = -1
            return
        state.events.append(LotteryPassed(seat, state.deal_number))
    raise AssertionError("loteryjka deadlock: a full lap of passes (a rules-core bug)")
