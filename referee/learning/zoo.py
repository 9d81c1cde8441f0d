"""PettingZoo's conventions for the environment: ``raw_env``, ``env`` and ``parallel_env``, as its classic games.

    from referee.learning import zoo
    env = zoo.env("hearts", options={"target": 50})     # what PettingZoo's own tests and tools expect
    par = zoo.parallel_env("kierki")                     # the Parallel API, one seat acting at a time

``raw_env`` is `KierkiEnv` itself (an illegal action raises `IllegalAction`). ``env`` wraps it as PettingZoo wraps
its classic games (chess, connect four, texas hold'em): an illegal action ends the game with ``illegal_reward`` for
the seat that took it (``TerminateIllegalWrapper``), an action outside the space is an assertion, and the order
of calls is enforced. ``parallel_env`` is ``env`` through ``turn_based_aec_to_parallel``: each ``step`` takes a
dict of actions of which only the seat to act's is played (``infos[agent]["active_agent"]`` names it).
Every keyword argument is `KierkiEnv`'s.
"""

from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils.conversions import turn_based_aec_to_parallel
from pettingzoo.utils.wrappers import AssertOutOfBoundsWrapper, OrderEnforcingWrapper, TerminateIllegalWrapper

from referee.learning.env import KierkiEnv

__all__ = ["env", "parallel_env", "raw_env"]


def raw_env(*args: Any, **kwargs: Any) -> KierkiEnv:
    """`KierkiEnv` (``game``, ``players``, ``options``, ``reward``, ``render_mode``)."""
    return KierkiEnv(*args, **kwargs)


def env(*args: Any, illegal_reward: float = -1.0, **kwargs: Any) -> AECEnv[str, dict[str, Any], Any]:
    """`raw_env` wrapped as PettingZoo's classic games are: an illegal action ends the game, rewarding its seat
    ``illegal_reward`` (and every other seat 0)."""
    wrapped: AECEnv[str, dict[str, Any], Any] = TerminateIllegalWrapper(raw_env(*args, **kwargs), illegal_reward)
    wrapped = AssertOutOfBoundsWrapper(wrapped)
    return OrderEnforcingWrapper(wrapped)


def parallel_env(*args: Any, **kwargs: Any) -> ParallelEnv[str, dict[str, Any], Any]:
    """`env` in PettingZoo's Parallel API: every seat's observation at once, the seat to act's action played."""
    return turn_based_aec_to_parallel(env(*args, **kwargs))
