"""The actions of `encoding` turned into the rules core's choices, one seat's pass built up step by step.

Shared by the environment and the protocol bot, so a trained policy's action means the same thing in both.
"""

from __future__ import annotations

from typing import cast

from referee.rules import Action, Card, ChooseMoon, ChooseTrump, MoonOption, Phase, PlayCard, card_name
from referee.rules.features import MOON_OTHERS_ACTION, MOON_SELF_ACTION, N_CARDS, NO_TRUMP_ACTION, TRUMP_ACTION

_SUIT_LETTERS = "CDHS"


class IllegalAction(ValueError):
    """An action the mask does not allow now; the message names the legal ones."""


def choice_for(phase: Phase, action: int) -> Action | Card:
    """The rules-core choice an action stands for in ``phase``: a card for one step of a pass."""
    if phase is Phase.PLAY:
        return PlayCard(action)
    if phase is Phase.PASS:
        return action
    if phase is Phase.TRUMP:
        return ChooseTrump(None if action == NO_TRUMP_ACTION else action - TRUMP_ACTION)
    return ChooseMoon(MoonOption.SELF if action == MOON_SELF_ACTION else MoonOption.OTHERS)


def describe(action: int) -> str:
    """An action as a person reads it: ``QS``, ``trump H``, ``no trump``, ``moon self``."""
    if 0 <= action < N_CARDS:
        return card_name(action)
    if TRUMP_ACTION <= action < NO_TRUMP_ACTION:
        return f"trump {_SUIT_LETTERS[action - TRUMP_ACTION]}"
    if action == NO_TRUMP_ACTION:
        return "no trump"
    if action == MOON_SELF_ACTION:
        return "moon self"
    if action == MOON_OTHERS_ACTION:
        return "moon others"
    return f"{action} (not an action)"


def check_action(action: object, mask: bytes | bytearray | memoryview, seat: int, phase: Phase) -> int:
    """``action`` as an int if the mask allows it, else `IllegalAction` naming the legal actions."""
    try:
        index = int(cast(int, action))
    except (TypeError, ValueError):
        raise IllegalAction(f"{action!r} is not an action: give an int from 0 to {len(mask) - 1}") from None
    if index != action or not 0 <= index < len(mask) or not mask[index]:
        legal = ", ".join(f"{i} ({describe(i)})" for i in range(len(mask)) if mask[i])
        raise IllegalAction(
            f"seat {seat} may not take action {describe(index)} in the {phase.value} phase; legal: {legal}"
        )
    return index
