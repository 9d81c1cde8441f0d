"""The play loop a match and check-bot share: a game played decision by decision, its events delivered as
``GameState.apply`` returns them.

Who decides (a bot through its seat, the fallback, a replayed decision) and what happens to the events (replay
records, messages to the bots) is the caller's; the order is this loop's: the first deal's events before any
decision, then each decision's events right after it, until the game is over.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from protocol import messages as m
from referee import wire
from referee.rules import Event, GameState

__all__ = ["Decide", "Deliver", "SeatMessages", "play_out"]

Decide = Callable[[GameState], Sequence[Event]]  # make the decision of the seat to act; return the events it caused
Deliver = Callable[[Sequence[Event]], None]


def play_out(state: GameState, decide: Decide, deliver: Deliver) -> None:
    """Play ``state`` to its end: deliver the events so far, then each decision's events as it is made."""
    deliver(state.events)
    while not state.is_over:
        deliver(decide(state))


class SeatMessages:
    """Per seat, the protocol messages of each event of one game, in the order the events happen.

    The seam for the wire's per-seat event messages: ``referee.wire`` still translates with a stateful
    ``EventTranslator`` (it remembers the deal), so one is kept per game here; when the wire offers a stateless
    function of an event and a seat, only this class changes, not the match or check-bot.
    """

    def __init__(self, players: int, game_number: int) -> None:
        self._translator = wire.EventTranslator(players, game_number)

    def of(self, event: Event) -> list[list[m.RefereeMessage]]:
        """Per seat, the messages ``event`` produces (often the same object for every seat)."""
        return self._translator.messages(event)
