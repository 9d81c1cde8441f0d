"""The play loop a match and check-bot share (``drive_game``): a game driven decision by decision, its events
delivered as ``GameState.apply`` returns them. (Not ``rules.playout``, a Monte Carlo bot's random play of one
deal inside the rules core.)

Who decides (a bot through its seat, the fallback, a replayed decision) and what happens to the events (replay
records, messages to the bots) is the caller's; the order is this loop's: the first deal's events before any
decision, then each decision's events right after it, until the game is over.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from protocol import codec
from protocol import messages as m
from referee import wire
from referee.rules import DealEnded, Event, GameState
from referee.rules.projection import is_public

__all__ = ["Decide", "Deliver", "SeatMessages", "drive_game"]

Decide = Callable[[GameState], Sequence[Event]]  # make the decision of the seat to act; return the events it caused
Deliver = Callable[[Sequence[Event]], None]


def drive_game(state: GameState, decide: Decide, deliver: Deliver, deals: int | None = None) -> bool:
    """Play ``state`` to its end: deliver the events so far, then each decision's events as it is made. True when
    the game is over.

    ``deals``: stop once that many deals have ended, and return False if the game is not over then (a ladder's
    short validation game). The rules play on as always; only what follows that deal's ``DealEnded`` (the next
    deal, dealt at once by the rules) is never delivered, so nobody sees a deal that is not played.
    """
    deliver(state.events)
    while not state.is_over:
        events = decide(state)
        if deals is not None and len(state.deal_results) >= deals and not state.is_over:
            cut = next(i for i, event in enumerate(events) if isinstance(event, DealEnded) and event.deal == deals)
            deliver(events[: cut + 1])
            return False
        deliver(events)
    return True


class SeatMessages:
    """Per seat, the protocol messages of each event of one game: ``wire.messages_for`` with the game's numbers.

    It keeps no state of the game: each seat's view of an event comes from ``projection.project`` alone.
    """

    def __init__(self, players: int, game_number: int) -> None:
        self.players = players
        self.game_number = game_number

    def of(self, event: Event) -> list[list[m.Event]]:
        """Per seat, the messages ``event`` produces (the same object for every seat when it is public)."""
        return wire.messages_for((event,), self.players, self.game_number)

    def lines(self, event: Event) -> list[bytes | None]:
        """Per seat, the encoded line ``event`` sends it (None: nothing); a message shared by every seat (a public
        event's) is encoded once, and its line is the same object for every seat."""
        if is_public(event):
            return [wire.public_line(event, self.players, self.game_number)] * self.players
        lines: list[bytes | None] = []
        last: m.Event | None = None
        line: bytes | None = None
        for message in wire.seat_messages(event, self.players, self.game_number):
            if message is not last:
                last = message
                line = None if message is None else codec.encode(message)
            lines.append(line)
        return lines
