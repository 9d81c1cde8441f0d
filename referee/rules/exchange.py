"""Passing: each seat chooses its cards, and the exchange happens only once every seat has chosen.

A function of the deal's table (``GameState.apply`` calls it for a pass): checked like every choice, so an illegal
pass raises `IllegalActionError` and changes nothing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Final

from referee.rules.cards import card_name, mask_of
from referee.rules.records import Event, IllegalActionError, PassesExchanged
from referee.rules.table import Table
from referee.rules.tricks import start_play

PASS_COUNT: Final = 3


def pass_cards(table: Table, offered: Sequence[object], events: list[Event] | None) -> None:
    """The seat to act passes ``offered``; once every seat has passed, the cards change hands at once and the
    play begins."""
    # Typed `object`: a bot's choice is checked here, and the compiled build would refuse a non-card sooner.
    seat = table.to_act
    if len(offered) != PASS_COUNT:
        raise IllegalActionError("pass-count", f"pass exactly {PASS_COUNT} cards, not {len(offered)}")
    cards = tuple([c for c in offered if type(c) is int and 0 <= c < 52])
    if len(cards) != PASS_COUNT:
        raise IllegalActionError("card", f"{offered!r} are not {PASS_COUNT} cards")
    if table.flags.double_deck:
        held = Counter(table.hand(seat))
        wanted = Counter(cards)
        owned = wanted <= held
    else:
        wanted_mask = mask_of(cards)
        owned = wanted_mask.bit_count() == PASS_COUNT and not wanted_mask & ~table.hands[seat]
    if not owned:
        held, wanted = Counter(table.hand(seat)), Counter(cards)
        missing = " ".join(card_name(c) for c in sorted((wanted - held).elements()))
        if set(wanted) <= set(held):
            raise IllegalActionError("pass-own-cards", f"you hold only one {missing}: pass different cards")
        raise IllegalActionError("pass-own-cards", f"you cannot pass {missing}: not in your hand")
    table.passes[seat] = tuple(cards)
    n = table.flags.players
    for step in range(1, n):
        if table.passes[(seat + step) % n] is None:
            table.to_act = (seat + step) % n
            return
    passed = tuple([p or () for p in table.passes])
    offset = table.pass_offset
    if table.flags.double_deck:
        for giver, given in enumerate(passed):
            for card in given:
                table.remove(giver, card)
        for giver, given in enumerate(passed):
            for card in given:
                table.add((giver + offset) % n, card)
    else:
        hands = table.hands
        masks = [mask_of(given) for given in passed]
        for giver in range(n):
            hands[giver] ^= masks[giver]
        for giver in range(n):
            hands[(giver + offset) % n] |= masks[giver]
    table.exchanged = passed
    if events is not None:
        events.append(
            PassesExchanged(table.pass_offset, passed, table.number, tuple([tuple(table.hand(s)) for s in range(n)]))
        )
    start_play(table)
