"""One seat's bot as the referee sees it: a process, a request counter, a clock, strikes.

``ask`` is the whole request cycle: queue the request behind any pending events, flush them together (one write),
wait for the answer under the decision's deadline, ignore answers to older requests, decode strictly. It never
raises for anything the bot does; it returns a `Fault` instead, and the match decides the consequence.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, Protocol

from protocol import codec
from protocol import messages as m
from referee.bots.process import Closed, FlushResult, Line, LineResult, LineTooLong, Overflow, Timeout
from referee.bots.sandbox import describe_exit

FaultCode = Literal["timeout", "illegal", "malformed", "wrong_type", "crash"]


@dataclass(frozen=True)
class TimeControl:
    """Milliseconds: a deadline per decision, a start-up deadline, an optional bank with an increment.

    With a bank, a decision may run over ``move_ms`` by what is left in the bank (the overrun is taken from it),
    and every decision then adds ``increment_ms`` to the bank.
    """

    move_ms: int = 1000
    startup_ms: int = 5000
    bank_ms: int = 0
    increment_ms: int = 0

    def to_wire(self) -> m.TimeControl:
        return m.TimeControl(
            move_ms=self.move_ms,
            startup_ms=self.startup_ms,
            bank_ms=self.bank_ms,
            increment_ms=self.increment_ms,
        )


@dataclass(frozen=True)
class Fault:
    code: FaultCode
    message: str  # what the bot did wrong and what to do about it


@dataclass
class SeatStats:
    decisions: int = 0
    thinking_s: float = 0.0
    slowest_s: float = 0.0
    faults: dict[str, int] = field(default_factory=dict)
    ignored_lines: int = 0


Transcript = Callable[[int, str, bytes], None]  # seat, "->" or "<-", the raw line


class Transport(Protocol):
    """What a seat needs of its bot: `referee.bots.process.BotProcess`, or a scripted fake in protocol-level tests."""

    @property
    def returncode(self) -> int | None: ...

    @property
    def alive(self) -> bool: ...

    def send(self, data: bytes) -> None: ...

    def flush(self, deadline: float) -> FlushResult: ...

    def read_line(self, deadline: float) -> LineResult: ...

    def terminate(self, grace_s: float = 0.5) -> None: ...


_EXIT_WAIT_S = 0.2  # stdout's end usually comes a moment before the exit itself; wait that long for its status


def _crash_message(process: Transport, result: Closed | Overflow) -> str:
    """Why the bot can no longer answer, with how it ended when it did (a limit it hit, a signal, a status)."""
    if isinstance(result, Overflow):
        return (
            f"the bot stopped reading its input ({result.pending_bytes} bytes waiting); "
            "read every line the referee sends"
        )
    deadline = time.monotonic() + _EXIT_WAIT_S
    while process.returncode is None and time.monotonic() < deadline:
        time.sleep(0.005)
    code = process.returncode
    if code is None:
        return "the bot closed its output but kept running; it is stopped now"
    return f"the bot exited ({describe_exit(code)}); see its stderr log"


class BotSeat:
    def __init__(
        self,
        seat: int,
        process: Transport | None,
        time_control: TimeControl,
        transcript: Transcript | None = None,
    ) -> None:
        self.seat = seat
        self.process = process
        self.time = time_control
        self.bank_s = time_control.bank_ms / 1000
        self.name = f"seat{seat}"
        self.version = ""
        self.strikes = 0
        self.forfeited = process is None
        self.stats = SeatStats()
        self._next_id = 0
        self._queue: list[bytes] = []
        self._transcript = transcript

    def queue(self, message: m.RefereeMessage) -> None:
        if not self.forfeited:
            self._queue.append(codec.encode(message))

    def queue_encoded(self, line: bytes) -> None:
        """Queue an already encoded line (an event shared by every seat is encoded once)."""
        if not self.forfeited:
            self._queue.append(line)

    def deadline_s(self) -> float:
        return self.time.move_ms / 1000 + self.bank_s

    def new_id(self) -> int:
        self._next_id += 1
        return self._next_id

    def ask(
        self, request: m.Request, expected: type[m.BotMessage], *, timeout_s: float | None = None
    ) -> tuple[m.BotMessage | Fault, float]:
        """Send queued events and ``request``; return the decoded answer (or a Fault) and the time taken."""
        process = self.process
        assert process is not None and not self.forfeited
        self.queue(request)
        allowed = self.deadline_s() if timeout_s is None else timeout_s
        started = time.monotonic()
        deadline = started + allowed
        self._send_queue(process)
        while True:
            result = process.read_line(deadline)
            if isinstance(result, Line):
                if self._transcript:
                    self._transcript(self.seat, "<-", result.data)
                answer = self._read_answer(result.data, request.id, expected)
                if answer is None:
                    self.stats.ignored_lines += 1
                    continue
                return answer, self._charge(time.monotonic() - started, timeout_s is None)
            spent = self._charge(time.monotonic() - started, timeout_s is None)
            if isinstance(result, Timeout):
                return Fault("timeout", self._timeout_message(allowed)), spent
            if isinstance(result, LineTooLong):
                return Fault(
                    "malformed",
                    f"your answer line is longer than {codec.MAX_BOT_LINE_BYTES} bytes "
                    f"(it starts {result.prefix[:60]!r}); answer with one short JSON object per line",
                ), spent
            if isinstance(result, Closed | Overflow):
                return Fault("crash", _crash_message(process, result)), spent

    def _read_answer(self, data: bytes, request_id: int, expected: type[m.BotMessage]) -> m.BotMessage | Fault | None:
        """The answer to this request, a Fault, or None for a line to ignore (an answer to an old request)."""
        try:
            answer = codec.decode_bot_line(data)
        except codec.ProtocolError as error:
            return Fault("malformed", str(error))
        if answer.id != request_id:
            return None
        if not isinstance(answer, expected):
            tag = expected.__struct_config__.tag
            got = type(answer).__struct_config__.tag
            return Fault(
                "wrong_type",
                f'request {request_id} asked for a "{tag}" answer, you sent "{got}"',
            )
        return answer

    def _charge(self, elapsed: float, counts: bool) -> float:
        if counts:
            self.stats.decisions += 1
            self.stats.thinking_s += elapsed
            self.stats.slowest_s = max(self.stats.slowest_s, elapsed)
            if self.time.bank_ms:
                overrun = max(0.0, elapsed - self.time.move_ms / 1000)
                self.bank_s = max(0.0, self.bank_s - overrun) + self.time.increment_ms / 1000
        return elapsed

    def _timeout_message(self, allowed: float) -> str:
        return (
            f"no answer within {allowed * 1000:.0f} ms; answer every request at once and flush stdout "
            "after each line (print(..., flush=True) in Python)"
        )

    def record_fault(self, fault: Fault) -> None:
        self.strikes += 1
        self.stats.faults[fault.code] = self.stats.faults.get(fault.code, 0) + 1

    def flush(self, timeout_s: float = 1.0) -> None:
        """Write queued events now (end of game/match); a bot that does not read them only loses them."""
        if self.forfeited or self.process is None or not self._queue:
            self._queue.clear()
            return
        self._send_queue(self.process)
        self.process.flush(time.monotonic() + timeout_s)

    def close(self, reason: m.ByeReason, grace_s: float = 0.5) -> None:
        """Say bye, give the bot a moment to exit by itself, then make sure every process of it is gone."""
        if self.process is None:
            return
        if self.process.alive:
            self._queue.append(codec.encode(m.ByeEvent(reason=reason)))
            self._send_queue(self.process)
            self.process.flush(time.monotonic() + grace_s)
        self.process.terminate(grace_s)

    def _send_queue(self, process: Transport) -> None:
        """One write for all queued lines: events cost almost nothing when they ride with the next request."""
        payload = b"".join(self._queue)
        self._queue.clear()
        if self._transcript:
            for line in payload.splitlines():
                self._transcript(self.seat, "->", line)
        process.send(payload)
