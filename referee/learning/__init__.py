"""Learn to play: the four games as PettingZoo and Gymnasium environments over the rules core, and a trained
policy run as a protocol bot (``pip install 'kierki[rl]'``).

This package imports the rules core (``referee.rules``) and, for the bot of `bot`, the protocol (``protocol``),
and nothing else of ours (an import-linter contract in pyproject.toml): a policy trains on the referee's own rules
and sees only what the rules core's observation of its seat holds.
"""

from referee.learning.actions import IllegalAction
from referee.learning.encoding import N_ACTIONS, Layout, encode, legal_mask
from referee.learning.env import KierkiEnv, agent_name
from referee.learning.gym_env import SingleSeatEnv
from referee.learning.policies import Policy, heuristic_action, random_policy

__all__ = [
    "N_ACTIONS",
    "IllegalAction",
    "KierkiEnv",
    "Layout",
    "Policy",
    "SingleSeatEnv",
    "agent_name",
    "encode",
    "heuristic_action",
    "legal_mask",
    "random_policy",
]
