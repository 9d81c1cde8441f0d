"""Which cards the seat to act may play, and why a card it named may not be played.

Functions of the deal's table: ``legal_mask`` picks the rule of the deal's family and caches its mask in the table;
``explain_illegal`` names the rule a refused card breaks, for the error a bot is sent.
"""

from __future__ import annotations

from typing import Final

from referee.rules import kierki_scoring
from referee.rules.cards import (
    HEARTS,
    HEARTS_MASK,
    POINT_CARDS_MASK,
    QUEEN_OF_SPADES,
    SUIT_LETTERS,
    SUIT_MASKS,
    TWO,
    TWO_OF_CLUBS,
    card_list,
    card_name,
    make_card,
    mask_of,
)
from referee.rules.records import DealKind
from referee.rules.ruleset import Game, LotteryMissing2C
from referee.rules.table import Table

_QS_BIT: Final = 1 << QUEEN_OF_SPADES
_NOT_HEARTS: Final = ((1 << 52) - 1) ^ HEARTS_MASK


def legal_mask(table: Table) -> int:
    """The cards the seat to act may play, as a mask (the play phase only), worked out once per turn."""
    if table.legal < 0:
        if table.lottery:
            table.legal = lottery_legal(table, table.to_act)
        elif table.flags.kierki:
            table.legal = kierki_legal(table)
        else:
            table.legal = hearts_legal(table)
    return table.legal


def kierki_legal(table: Table) -> int:
    hand = table.hands[table.to_act]
    if not table.plays:
        if table.kind in kierki_scoring.HEART_LEAD_BAN and hand & _NOT_HEARTS:
            return hand & _NOT_HEARTS
        return hand
    follow = hand & SUIT_MASKS[table.plays[0][1] & 3]
    legal = follow or hand
    kh = 1 << make_card(11, HEARTS)
    if table.flags.ruleset.kh_must_discard and table.kind is DealKind.NO_KING_OF_HEARTS and legal & kh:
        return kh
    return legal


def hearts_legal(table: Table) -> int:
    hand = table.hands[table.to_act]
    first_trick = table.trick_number == 1
    if not table.plays:
        if first_trick:
            if table.flags.hearts_game:
                return 1 << TWO_OF_CLUBS
            return (hand & ~POINT_CARDS_MASK) or hand
        if table.hearts_broken:
            return hand
        # Hearts unbroken: no heart lead, unless the hand is only hearts, or hearts and Q♠ [A-H5].
        return hand if not (hand & _NOT_HEARTS & ~_QS_BIT) else hand & _NOT_HEARTS or hand
    follow = hand & SUIT_MASKS[table.plays[0][1] & 3]
    if follow:
        return follow
    if first_trick and table.flags.ruleset.first_trick_no_points:
        safe = hand & ~POINT_CARDS_MASK
        if safe:
            return safe
        if table.flags.ruleset.first_trick_prefer_heart_over_qs and hand & HEARTS_MASK:
            return hand & HEARTS_MASK
    return hand


def lottery_legal(table: Table, seat: int) -> int:
    hand = table.hands[seat]
    if table.start_rank is None:
        ruleset = table.flags.ruleset
        if ruleset.lottery_missing_2c is LotteryMissing2C.FORBID_TWO and ruleset.game is Game.KIERKI3:
            twos = mask_of(make_card(TWO, s) for s in range(4))
            return (hand & ~twos) or hand
        return hand
    return hand & table.playable


def explain_illegal(table: Table, card: object) -> tuple[str, str]:
    if type(card) is not int or not 0 <= card < 52:
        return "card", f"{card!r} is not a card"
    name = card_name(card)
    hand = table.hands[table.to_act]
    if not hand >> card & 1:
        return "own-card", f"{name} is not in your hand"
    legal = " ".join(card_name(c) for c in card_list(legal_mask(table)))
    if table.lottery:
        if table.start_rank is None:
            return (
                "lottery-no-two-start",
                f"{name}: the loteryjka may not open with a 2 (lottery_missing_2c=forbid_two)",
            )
        return "lottery-column", f"{name} does not fit a column on the table; legal: {legal}"
    if table.plays:
        led = table.plays[0][1] & 3
        if hand & SUIT_MASKS[led] and card & 3 != led:
            return "follow-suit", (f"{name}: you must follow suit ({SUIT_LETTERS[led]}) when you can; legal: {legal}")
        if table.flags.kierki:
            return "kh-must-discard", f"{name}: you must play K♥ now (kh_must_discard)"
        if table.trick_number == 1:
            return "first-trick-points", (
                f"{name}: no heart or Q♠ on the first trick while you hold another card; legal: {legal}"
            )
    if table.flags.kierki:
        return "heart-lead-ban", (
            f"{name}: in this deal you may not lead a heart while you hold another suit; legal: {legal}"
        )
    if table.trick_number == 1 and table.flags.ruleset.game is Game.HEARTS:
        return "two-of-clubs-leads", "the 2♣ must open the first trick"
    if table.trick_number == 1:
        return "first-lead", f"{name}: the first lead may not be a heart or Q♠; legal: {legal}"
    return "hearts-not-broken", (f"{name}: hearts may not be led until a heart has been played; legal: {legal}")
