"""Sampled worlds: whole tables dealt consistently with what this seat has seen, ready to play out.

``rules.sample_state`` deals the cards this seat has not seen to the others (and to Cancellation Hearts' kitty),
keeping every void shown, the cards this seat passed with their receiver, each hand's size and the kitty's points
once the scores show them, in the play, pass and trump phases alike. Before the play a world waits for a decision:
``after_pass`` and ``after_trump`` make it, on a copy, for each choice the search weighs, so every choice meets the
same deals (the other seats pass by the rule of thumb of ``passing``).
"""

from __future__ import annotations

import random

import referee.rules as rules
from referee.search import rule_of_thumb_pass


class NoWorld(Exception):
    """No world consistent with what was seen was found this time (the caller draws again or falls back)."""


def sample(ruleset: rules.Ruleset, seen: rules.Observation, rng: random.Random) -> rules.GameState:
    try:
        return rules.sample_state(ruleset, seen, rng)
    except rules.SampleError as error:
        raise NoWorld(str(error)) from None


def after_pass(world: rules.GameState, seat: int, mine: tuple[int, ...]) -> rules.GameState:
    """A copy of a world sampled in the pass phase, once ``seat`` passed ``mine`` and every other seat still to
    pass did so by the rule of thumb (those before it in the passing order have passed already)."""
    state = world.copy()
    while state.phase is rules.Phase.PASS:
        acting = state.to_act
        cards = mine if acting == seat else tuple(rule_of_thumb_pass(state.hand(acting), len(mine)))
        state.apply(rules.PassCards(cards))
    return state


def after_trump(world: rules.GameState, suit: int | None) -> rules.GameState:
    """A copy of a world sampled while its dealer names trump, once it named ``suit`` (None: no trump)."""
    state = world.copy()
    state.apply(rules.ChooseTrump(suit))
    return state
