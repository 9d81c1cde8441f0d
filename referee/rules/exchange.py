"""Passing: each seat chooses its cards, and the exchange happens only once every seat has chosen.

A function of the game state (``GameState.apply`` calls it for a pass): checked like every choice, so an illegal
pass raises `IllegalActionError` and changes nothing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

from referee.rules.cards import card_name, mask_of
from referee.rules.records import IllegalActionError, PassesExchanged

if TYPE_CHECKING:
    from referee.rules.state import GameState

PASS_COUNT: Final = 3


def pass_cards(state: GameState, offered: Sequence[object]) -> None:
    """The seat to act passes ``offered``; once every seat has passed, the cards change hands at once."""
    # Typed `object`: a bot's choice is checked here, and the compiled build would refuse a non-card sooner.
    seat = state.to_act
    if len(offered) != PASS_COUNT:
        raise IllegalActionError("pass-count", f"pass exactly {PASS_COUNT} cards, not {len(offered)}")
    cards = tuple([c for c in offered if type(c) is int and 0 <= c < 52])
    if len(cards) != PASS_COUNT:
        raise IllegalActionError("card", f"{offered!r} are not {PASS_COUNT} cards")
    if state._double_deck:
        held = Counter(state.hand(seat))
        wanted = Counter(cards)
        owned = wanted <= held
    else:
        wanted_mask = mask_of(cards)
        owned = wanted_mask.bit_count() == PASS_COUNT and not wanted_mask & ~state.hands[seat]
    if not owned:
        held, wanted = Counter(state.hand(seat)), Counter(cards)
        missing = " ".join(card_name(c) for c in sorted((wanted - held).elements()))
        if set(wanted) <= set(held):
            raise IllegalActionError("pass-own-cards", f"you hold only one {missing}: pass different cards")
        raise IllegalActionError("pass-own-cards", f"you cannot pass {missing}: not in your hand")
    state._passes[seat] = tuple(cards)
    n = state.players
    for step in range(1, n):
        if state._passes[(seat + step) % n] is None:
            state.to_act = (seat + step) % n
            return
    passed = tuple([p or () for p in state._passes])
    offset = state._pass_offset
    if state._double_deck:
        for giver, given in enumerate(passed):
            for card in given:
                state._remove(giver, card)
        for giver, given in enumerate(passed):
            for card in given:
                state._add((giver + offset) % n, card)
    else:
        hands = state.hands
        masks = [mask_of(given) for given in passed]
        for giver in range(n):
            hands[giver] ^= masks[giver]
        for giver in range(n):
            hands[(giver + offset) % n] |= masks[giver]
    state._exchanged = passed
    state.events.append(
        PassesExchanged(state._pass_offset, passed, state.deal_number, tuple([tuple(state.hand(s)) for s in range(n)]))
    )
    state._start_play()
