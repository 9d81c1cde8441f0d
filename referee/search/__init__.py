"""The search library: what a seat's choices are worth, from what it knows (``evaluate``) or with every card known
(``solve``); shared by the expert bot (``sample_bots/expert``), ``kierki analyse`` and anyone's Python bot.

It imports only the rules core (``referee.rules``) and the protocol's messages and bot library, so a sample bot
may use it. ``SeatKnowledge`` turns the protocol's requests into the rules core's ``Observation``, the one place
that does (issue 31 item 5). See docs/bots/expert.md.
"""

from referee.search.budget import Budget
from referee.search.exact import SOLVE_MAX_CARDS, SolveError, margin, solve
from referee.search.passing import candidate_passes, rule_of_thumb_pass
from referee.search.pimc import (
    DEFAULT_EXACT_TRICKS,
    ChoiceValue,
    Evaluation,
    Objective,
    choices_of,
    evaluate,
    match_value,
)
from referee.search.requests import SeatKnowledge, cards, trump_suit
from referee.search.rollout import Rollout, forced_first

__all__ = [
    "DEFAULT_EXACT_TRICKS",
    "SOLVE_MAX_CARDS",
    "Budget",
    "ChoiceValue",
    "Evaluation",
    "Objective",
    "Rollout",
    "SeatKnowledge",
    "SolveError",
    "candidate_passes",
    "cards",
    "choices_of",
    "evaluate",
    "forced_first",
    "margin",
    "match_value",
    "rule_of_thumb_pass",
    "solve",
    "trump_suit",
]
