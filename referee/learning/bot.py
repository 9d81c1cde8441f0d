"""From training to the ladder: any policy over `encoding`'s observation, run as a protocol bot.

    # my_bot.py, started by the referee as `python3 my_bot.py`
    from referee.learning.bot import run_policy
    run_policy(my_trained_policy, name="my-rl-bot", version="3")

`PolicyBot` is a bot of the Python bot library (``protocol/bot.py``'s `Bot`). At each request it rebuilds its
seat's rules-core `Observation` from the messages the seat received (`seat_view.SeatView`), encodes it exactly as
the environment does, and asks the policy: the policy that was trained is the one that plays, on the same
arrays. A pass is three calls, one card each, as in the environment; a trump choice and a moon choice one each.
An action the mask does not allow (a policy's bug) is replaced by the lowest legal one, as the environment's
``illegal="fallback"`` does, and named on stderr: the referee would count it as a strike.
"""

from __future__ import annotations

import sys

import numpy as np

from protocol import messages as m
from protocol.bot import Bot, run
from referee.learning.actions import describe
from referee.learning.encoding import Layout, encode
from referee.learning.policies import Policy
from referee.learning.seat_view import SeatView
from referee.rules import Card, Observation, card_name
from referee.rules.features import MOON_SELF_ACTION, NO_TRUMP_ACTION, TRUMP_ACTION

__all__ = ["PolicyBot", "run_policy"]

_SUITS = "CDHS"


class PolicyBot(Bot):
    """A protocol bot whose every decision is ``policy(observation)``."""

    def __init__(self, policy: Policy, *, name: str = "policy", version: str = "1") -> None:
        self.policy = policy
        self.name = name
        self.version = version
        self.view = SeatView()
        self._layout: Layout | None = None

    def on_hello(self, request: m.HelloRequest) -> None:
        self.view.hello(request)
        assert self.view.ruleset is not None
        self._layout = Layout.of(self.view.ruleset)

    def on_event(self, message: m.Event) -> None:
        self.view.event(message)

    def play(self, request: m.PlayRequest) -> str:
        return card_name(self._decide(self.view.observation(request)))

    def pass_cards(self, request: m.PassRequest) -> list[str]:
        seen = self.view.observation(request)
        chosen: list[Card] = []
        for _ in range(3):
            chosen.append(self._decide(seen, chosen))
        return [card_name(card) for card in chosen]

    def trump(self, request: m.TrumpRequest) -> str | None:
        action = self._decide(self.view.observation(request))
        return None if action == NO_TRUMP_ACTION else _SUITS[action - TRUMP_ACTION]

    def moon(self, request: m.MoonRequest) -> str:
        return "self" if self._decide(self.view.observation(request)) == MOON_SELF_ACTION else "others"

    def _decide(self, seen: Observation, selected: list[Card] | None = None) -> int:
        layout = self._layout
        if layout is None:
            raise RuntimeError("a request before hello")
        observation = encode(layout, seen, selected or ())
        action = self.policy(observation)
        mask = observation["action_mask"]
        legal = np.flatnonzero(mask)
        if not (isinstance(action, int | np.integer) and 0 <= action < len(mask) and mask[action]):
            print(
                f"{self.name}: the policy chose {action!r}, not a legal action: playing {describe(int(legal[0]))}",
                file=sys.stderr,
            )
            return int(legal[0])
        return int(action)


def run_policy(policy: Policy, *, name: str = "policy", version: str = "1") -> None:
    """Play as a protocol bot on stdin and stdout until ``bye``: ``policy`` makes every decision."""
    run(PolicyBot(policy, name=name, version=version))
