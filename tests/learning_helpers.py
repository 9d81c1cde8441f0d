"""A policy that depends on every element of the observation, for the tests that compare a policy's decisions
in the environment and through the protocol (tests/test_learning_bot.py, tests/bots/linear_policy_bot.py)."""

from __future__ import annotations

import hashlib

import numpy as np

from referee.learning import N_ACTIONS, Policy
from referee.learning.encoding import Encoded


def linear_policy(size: int, seed: int = 0) -> Policy:
    """The legal action of highest score under fixed random weights: any element that differs between two
    observations is likely to change some decision over a game."""
    weights = np.random.default_rng(seed).standard_normal((size, N_ACTIONS)).astype(np.float32)

    def choose(observation: Encoded) -> int:
        scores = np.asarray(observation["observation"], dtype=np.float32) @ weights
        scores[observation["action_mask"] == 0] = -np.inf
        return int(np.argmax(scores))

    return choose


def digest(observation: Encoded) -> str:
    """A short fingerprint of both arrays of an observation."""
    data = observation["observation"].tobytes() + observation["action_mask"].tobytes()
    return hashlib.sha256(data).hexdigest()[:16]
