"""The loteryjka (Kierki's last deal): opening the suits at a rank and building columns up and down from it.

Functions of the deal's table (``GameState`` calls them for a lottery deal): the column rule is stated here once,
and a replay viewer reads the columns from the table rather than computing them again.
"""

from __future__ import annotations

from referee.rules import kierki_scoring, legality
from referee.rules.cards import CLUBS, SUIT_MASKS, TWO, Card, Suit, make_card, mask_of
from referee.rules.records import Event, LotteryPassed, Phase, PlayerOut
from referee.rules.ruleset import Game, LotteryMissing2C, LotteryStart
from referee.rules.table import Table
from referee.rules.tricks import ENDED_EARLY, GOES_ON


def start(table: Table, events: list[Event] | None) -> None:
    table.phase = Phase.PLAY
    table.to_act = table.dealer
    if table.flags.ruleset.lottery_start is not LotteryStart.DEALER:
        open_at(table, int(table.flags.ruleset.lottery_start) - 2)
        next_turn(table, events)


def open_at(table: Table, rank: int) -> None:
    ruleset = table.flags.ruleset
    table.start_rank = rank
    table.playable = mask_of(make_card(rank, s) for s in range(4))
    virtual_two = ruleset.lottery_missing_2c is LotteryMissing2C.VIRTUAL
    if rank == TWO and ruleset.game is Game.KIERKI3 and virtual_two:
        extend_column(table, CLUBS, TWO)


def extend_column(table: Table, suit: Suit, rank: int) -> None:
    column = table.columns[suit]
    lo, hi = (rank, rank) if column is None else (min(column[0], rank), max(column[1], rank))
    table.columns[suit] = (lo, hi)
    playable = table.playable & ~SUIT_MASKS[suit]
    if lo > 0:
        playable |= 1 << make_card(lo - 1, suit)
    if hi < 12:
        playable |= 1 << make_card(hi + 1, suit)
    table.playable = playable


def play(table: Table, seat: int, card: Card, events: list[Event] | None) -> int:
    """Lay ``seat``'s card (already out of its hand) on its column; the second seat out ends the deal. Returns
    ``tricks.GOES_ON`` or ``tricks.ENDED_EARLY``."""
    if table.start_rank is None:
        open_at(table, card >> 2)
    extend_column(table, card & 3, card >> 2)
    if not table.hands[seat]:
        table.finished.append(seat)
        bonus = kierki_scoring.VALUES[table.flags.ruleset.game].lottery_bonuses[len(table.finished) - 1]
        table.scores[seat] += bonus
        if events is not None:
            events.append(PlayerOut(seat, len(table.finished), bonus, table.number))
        if len(table.finished) == 2:
            return ENDED_EARLY
    next_turn(table, events)
    return GOES_ON


def next_turn(table: Table, events: list[Event] | None) -> None:
    """Move to the next seat that can play, passing automatically for those that cannot."""
    seat = table.to_act
    players = table.flags.players
    for _ in range(players):
        seat = (seat + 1) % players
        if not table.hands[seat]:
            continue
        if legality.lottery_legal(table, seat):
            table.to_act = seat
            table.legal = -1
            return
        if events is not None:
            events.append(LotteryPassed(seat, table.number))
    raise AssertionError("loteryjka deadlock: a full lap of passes (a rules-core bug)")
