"""Policies for the seats a learner does not play: uniformly random, and the heuristic sample bot's logic.

A *policy* is any callable from the observation ``dict`` of `encoding` (``"observation"`` and ``"action_mask"``)
to an action; that is all a trained model needs to be. `random_policy` is one. The heuristic needs more than the
encoding (the order of the cards in a trick, say), so `heuristic_action` works from the seat's rules-core
`Observation` instead: it builds the request that seat would be sent (the fields ``sample_bots/heuristic_bot.py``
reads, in the wire's order) and asks `heuristic`, that bot's rules restated in this layer, so the heuristic met in
training is the one met on the ladder as ``sample:heuristic`` (tests/test_learning_heuristic.py asks both).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from referee.learning import heuristic
from referee.learning.encoding import Encoded
from referee.rules import Card, DealKind, Observation, Phase, Ruleset, card_name, parse_card
from referee.rules.features import MOON_OTHERS_ACTION, MOON_SELF_ACTION, NO_TRUMP_ACTION, TRUMP_ACTION

Policy = Callable[[Encoded], int]

_SUITS = "CDHS"
_RANKS = "23456789TJQKA"


def random_policy(rng: np.random.Generator) -> Policy:
    """A legal action drawn uniformly from the mask with ``rng``."""

    def choose(observation: Encoded) -> int:
        return int(rng.choice(np.flatnonzero(observation["action_mask"])))

    return choose


def heuristic_action(ruleset: Ruleset, seen: Observation, selected: Sequence[Card] = ()) -> int:
    """The heuristic sample bot's choice for ``seen``'s seat (which must be to act), as an action of `encoding`;
    ``selected`` are the cards it has already chosen in the pass it is making."""
    phase = seen.phase
    if phase is Phase.PLAY:
        return parse_card(heuristic.choose_play(_play_request(seen)))
    if phase is Phase.PASS:
        chosen = [parse_card(c) for c in heuristic.choose_pass(_names(seen.hand), 3)]
        for card in selected:  # the same three every step: the next one not yet chosen
            chosen.remove(card)
        return chosen[0]
    if phase is Phase.TRUMP:
        choices = [*_SUITS, "NT"] if ruleset.allow_no_trump else list(_SUITS)
        suit = heuristic.choose_trump([card_name(c) for c in seen.hand], choices)
        return NO_TRUMP_ACTION if suit == "NT" else TRUMP_ACTION + _SUITS.index(suit)
    assert phase is Phase.MOON and seen.moon_options is not None, f"no decision in the {phase.value} phase"
    options = {option.value: list(totals) for option, totals in seen.moon_options.items()}
    choice = heuristic.choose_moon(options, seen.seat, ruleset.target)
    return MOON_SELF_ACTION if choice == "self" else MOON_OTHERS_ACTION


def _names(cards: Sequence[Card]) -> list[str]:
    """Card names in the wire's order for a hand: by suit, low to high."""
    return [card_name(c) for c in sorted(cards, key=lambda c: (c & 3, c >> 2))]


def _play_request(seen: Observation) -> dict[str, Any]:
    """The parts of a play request (PROTOCOL.md §8) that the heuristic bot reads."""
    lottery = None
    if seen.kind is DealKind.LOTTERY:
        columns = {
            _SUITS[suit]: None
            if column is None
            else [_RANKS[column[0]] + _SUITS[suit], _RANKS[column[1]] + _SUITS[suit]]
            for suit, column in enumerate(seen.lottery_columns)
        }
        start = seen.lottery_start_rank
        lottery = {"start_rank": None if start is None else _RANKS[start], "columns": columns}
    return {
        "kind": seen.kind.value,
        "hand": _names(seen.hand),
        "legal": _names(seen.legal),
        "trump": None if seen.trump is None else _SUITS[seen.trump],
        "trick": None if lottery else {"leader": seen.trick_leader, "cards": _plays(seen.trick)},
        "tricks": [{"cards": _plays(trick.plays)} for trick in seen.tricks],
        "lottery": lottery,
        "scores": {"deal": list(seen.deal_scores), "total": list(seen.totals), "totals": list(seen.totals)},
    }


def _plays(plays: Sequence[tuple[int, Card]]) -> list[dict[str, Any]]:
    return [{"seat": seat, "card": card_name(card)} for seat, card in plays]
