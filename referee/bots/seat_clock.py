"""One seat's clock: its time control and bank, and the time of each request to its bot.

A request is timed on the bot's CPU time where its control group measures it (fair play, referee/bots/fairplay.py),
under a wall-clock cap that grows with the bots running at once, or else on the wall clock. The clock says when a
request's time is up, when a wait on several bots should look again, what a decision costs the bank, and in words
what the bot did not answer within. `referee.bots.seat.BotSeat` holds one and asks it; the conversation itself
(what is sent and read) is the seat's.
"""

from __future__ import annotations

import os
import time
from typing import Final

from protocol import messages as m
from referee.bots.fairplay import wall_cap_s
from referee.bots.process import BotProcess
from referee.bots.replies import Asked
from referee.bots.time_control import TimeControl

__all__ = ["SeatClock"]

_CLOCK: Final = time.monotonic  # a C constant in the compiled build, not an attribute looked up each time
_NS: Final = 1e-9
_CPUS: Final = os.cpu_count() or 1
_CPU_CHECK_S: Final = 0.002


class SeatClock:
    """The time a seat's bot has: ``time`` (its time control) and ``bank_s`` (what is left of its bank), each
    request timed on ``bot``'s CPU time when it is a process in a control group, else on the wall clock."""

    def __init__(self, time_control: TimeControl, bot: BotProcess | None) -> None:
        self.time = time_control
        self.bank_s = time_control.bank_ms / 1000
        self._bot = bot
        self._cpu_seen = -1  # the bot's CPU time (ns) when its last reply was read; still its time while frozen

    def deadline_s(self) -> float:
        """The time the next decision may take: the move time and what is left of the bank."""
        return self.time.move_ms / 1000 + self.bank_s

    def cpu_ns(self) -> int:
        """The bot's CPU time so far (its control group's), in ns; -1 where not measured."""
        return -1 if self._bot is None else self._bot.cpu_ns()

    def start(self) -> int:
        """Let the bot run for a request about to be sent: the CPU time (ns) its time counts from, -1 when it is
        timed on the wall clock."""
        bot = self._bot
        if bot is None:
            return -1
        if bot.frozen and self._cpu_seen >= 0:
            bot.thaw_after_write()  # its time starts with the request, in the pipe before it runs
            return self._cpu_seen  # frozen since its last reply was read: it has used nothing since
        bot.thaw()
        return bot.cpu_ns()

    def asked(
        self,
        request: m.Request,
        started: float,
        allowed_s: float,
        charged: bool,
        cpu: int,
        together: int,
        startup: bool,
    ) -> Asked:
        """``request``, sent at ``started`` with ``allowed_s`` to answer: from CPU time ``cpu`` (``start``), or from
        the bot's start (``startup``: the handshake); ``together`` bots run at once meanwhile."""
        if cpu < 0:
            return Asked(request, started, allowed_s, charged, wall_s=allowed_s)
        cap = wall_cap_s(allowed_s, together)
        return Asked(request, started, allowed_s, charged, cpu_from=0 if startup else cpu, wall_s=cap)

    def cpu_until(self, asked: Asked) -> int:
        """The bot's CPU time (ns) at which ``asked`` times out; 0 when timed on the wall clock."""
        return 0 if asked.cpu_from < 0 else asked.cpu_from + int(asked.allowed_s * 1e9)

    def expired(self, asked: Asked, at_s: float) -> bool:
        """Whether ``asked``'s time is up ``at_s`` after it went out: its CPU time, or the wall clock."""
        if at_s >= asked.wall_s:
            return True
        if asked.cpu_from < 0 or self._bot is None:
            return False
        return self._bot.cpu_ns() >= self.cpu_until(asked)

    def wake_at(self, asked: Asked) -> float:
        """The earliest moment ``asked`` could time out (for a wait on several bots at once)."""
        wall = asked.started + asked.wall_s
        if asked.cpu_from < 0 or self._bot is None:
            return wall
        left = (self.cpu_until(asked) - self._bot.cpu_ns()) * _NS
        return min(wall, _CLOCK() + max(_CPU_CHECK_S, left / _CPUS))

    def charge(self, elapsed: float, asked: Asked) -> None:
        """Note the CPU time ``asked`` used (``asked.cpu_s``, where measured) and, for a decision (``charged``),
        take what it took beyond the move time from the bank and add the increment."""
        used = elapsed
        if asked.cpu_from >= 0 and self._bot is not None:
            self._cpu_seen = self._bot.cpu_ns()
            used = asked.cpu_s = max(0.0, (self._cpu_seen - asked.cpu_from) * _NS)
        clock = self.time
        if asked.charged and clock.bank_ms:
            overrun = max(0.0, used - clock.move_ms / 1000)
            self.bank_s = max(0.0, self.bank_s - overrun) + clock.increment_ms / 1000

    def within(self, asked: Asked) -> str:
        """What the bot had and did not answer within: "1000 ms", or its CPU time or wall-clock cap."""
        allowed_ms = asked.allowed_s * 1000
        if asked.cpu_from < 0:
            return f"{allowed_ms:.0f} ms"
        cpu_ms = (asked.cpu_s or 0.0) * 1000
        if cpu_ms >= allowed_ms:
            return f"{allowed_ms:.0f} ms of CPU time (your processes used {cpu_ms:.0f} ms)"
        return (
            f"the wall-clock cap of {asked.wall_s * 1000:.0f} ms (your processes used {cpu_ms:.0f} ms of their "
            f"{allowed_ms:.0f} ms of CPU time: waiting for something that does not come?)"
        )
