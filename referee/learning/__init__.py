"""Learn to play: the four games as PettingZoo and Gymnasium environments over the rules core, and a trained
policy run as a protocol bot (``pip install 'kierki[rl]'``).

This package imports the rules core (``referee.rules``) and, for the bot of `bot`, the protocol (``protocol``),
and nothing else of ours (an import-linter contract in pyproject.toml): a policy trains on the referee's own rules
and sees only what the rules core's observation of its seat holds.

Importing it registers the Gymnasium ids ``kierki/Kierki-v0``, ``kierki/Kierki3-v0``, ``kierki/Hearts-v0`` and
``kierki/Cancellation-v0`` (`SingleSeatEnv`; its keyword arguments as ``gymnasium.make``'s), so that
``gymnasium.make("referee.learning:kierki/Hearts-v0")`` works in a fresh interpreter. docs/bots/learning.md is the
guide. With ``KIERKI_COMPILED=DIR`` in the environment the rules core comes from the compiled build in DIR
(`compiled`).
"""

import referee.learning.compiled  # noqa: F401, I001  (first: KIERKI_COMPILED, before anything imports the rules core)

import gymnasium

from referee.learning.actions import IllegalAction
from referee.learning.encoding import Layout, encode, legal_mask
from referee.rules.features import N_ACTIONS
from referee.learning.env import KierkiEnv, agent_name
from referee.learning.gym_env import SingleSeatEnv, SnapshotPool
from referee.learning.policies import Policy, heuristic_action, random_policy

__all__ = [
    "N_ACTIONS",
    "IllegalAction",
    "KierkiEnv",
    "Layout",
    "Policy",
    "SingleSeatEnv",
    "SnapshotPool",
    "agent_name",
    "encode",
    "heuristic_action",
    "legal_mask",
    "random_policy",
]

GYMNASIUM_IDS = {
    "kierki/Kierki-v0": "kierki",
    "kierki/Kierki3-v0": "kierki3",
    "kierki/Hearts-v0": "hearts",
    "kierki/Cancellation-v0": "cancellation",
}
for _id, _game in GYMNASIUM_IDS.items():
    if _id not in gymnasium.registry:  # (a reload must not warn that the id is registered again)
        gymnasium.register(_id, entry_point="referee.learning.gym_env:SingleSeatEnv", kwargs={"game": _game})
