"""One seat's bot as the referee sees it: a process, a request counter, a clock, strikes.

This is the one conversation with a bot; a match and check-bot both talk through it. ``converse`` is the whole
request cycle: queue the request behind any pending events, flush them together (one write), wait for the answer
under the decision's deadline, ignore answers to older requests, decode strictly. It never raises for anything the
bot does; it returns a `Reply` whose outcome is the answer or a `referee.vocabulary.faults.Fault`, with every line it
read on the way, and the caller decides the consequence. The seat also keeps the last lines exchanged and hands out
the end of the bot's stderr, for reports. Its clock (the deadlines, the bank, CPU time under fair play) is a
`referee.bots.seat_clock.SeatClock`.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Final, Literal, Protocol

from protocol import codec
from protocol import messages as m
from referee.bots.pipe_results import Closed, FlushResult, Line, LineResult, LineTooLong, Overflow, Timeout
from referee.bots.process import BotProcess, wait_any
from referee.bots.replies import Asked, Heard, Reply, backlog_note
from referee.bots.sandbox import describe_exit
from referee.bots.seat_clock import SeatClock
from referee.bots.time_control import TimeControl
from referee.vocabulary.faults import Fault, FaultCode

__all__ = [
    "INPUT_CLOSED",
    "RECEIVED",
    "SEE_STDERR_LOG",
    "SENT",
    "Asked",
    "BotSeat",
    "Direction",
    "Heard",
    "Reply",
    "SeatStats",
    "TimeControl",
    "Transcript",
    "Transport",
    "backlog_note",
    "converse_all",
]

# The end of a crash's reason: where to look. Where the log is removed (the ladder's validation game), the caller
# replaces it with what it shows instead.
SEE_STDERR_LOG = "see its stderr log"


@dataclass
class SeatStats:
    """One seat's counts over a match: decisions, time spent thinking, faults by code, lines ignored."""

    decisions: int = 0
    thinking_s: float = 0.0
    slowest_s: float = 0.0
    cpu_s: float = 0.0  # CPU time of its control group over its decisions (0 without one)
    faults: dict[FaultCode, int] = field(default_factory=dict)
    ignored_lines: int = 0


Direction = Literal["->", "<-", "-|"]  # sent to the bot, received from it, its stdin closed
SENT: Direction = "->"
RECEIVED: Direction = "<-"
INPUT_CLOSED: Direction = "-|"
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

    def close_input(self) -> None:
        """Close the bot's stdin; its stdout stays readable (``terminate`` would discard what it still writes)."""

    def wait_exit(self, deadline: float) -> int | None:
        """Wait for the bot to exit by itself until ``deadline``; its exit status, or None while it runs."""

    def stderr_tail(self) -> bytes:
        """The last few KiB the bot wrote to stderr."""

    def unread_input_bytes(self) -> int:
        """How many of the bytes sent to the bot it has not read yet (0 when that cannot be known)."""

    def terminate(self, grace_s: float = 0.5) -> None: ...


_SENT_TAIL_BYTES: Final = 1 << 18  # the end of what was sent, to count the lines a bot has not read (a pipe holds less)


_EXIT_WAIT_S: Final = 0.2  # stdout's end usually comes a moment before the exit itself; wait that long for its status
# What every request and answer uses, as Final names: in the compiled build C constants, not attributes looked up
# on their modules each time.
_CLOCK: Final = time.monotonic
_DECODE_ANSWER: Final = codec.decode_bot_line
_ANSWER_TYPES: Final = m.ANSWER_TYPES
_EVENT_TYPES: Final = m.EVENT_TYPES


def _reads_on(heard: Heard, request: m.Request) -> bool:
    """Whether a check reads on past the broken line ``heard`` (a debug print, a line of pretty-printed JSON) to the
    answer: not when the line is the answer itself, malformed (it names the request's id), as a match would not."""
    return heard.message is None and (heard.error is None or heard.error.message_id != request.id)


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
    limit = process.limit_hit() if isinstance(process, BotProcess) else None
    if limit is not None:
        return f"the bot was killed: {limit}; see its stderr log"
    if code is None:
        return "the bot closed its output but kept running; it is stopped now"
    return f"the bot exited ({describe_exit(code)}); {SEE_STDERR_LOG}"


def _timeout_message(within: str, backlog: int, request_id: int, wrong_ids: list[int]) -> str:
    """Why no answer came within ``within``, and what to fix: the id, the messages left unread, or the flush."""
    if wrong_ids:  # the bot did answer: with the wrong id, which is what to fix
        return (
            f"no answer with id {request_id} within {within}: answered with id {wrong_ids[-1]}; "
            f"the request's id is {request_id}: copy the request's \"id\" into your answer"
        )
    if backlog:
        return f"no answer within {within}; {backlog_note(backlog)}"
    return (
        f"no answer within {within}; answer every request at once and flush stdout "
        "after each line (print(..., flush=True) in Python, stdbuf -oL for a program that has no switch)"
    )


class BotSeat:
    """One seat's conversation with its bot; ``keep_lines`` is how many lines exchanged ``recent`` remembers."""

    def __init__(
        self,
        seat: int,
        process: Transport | None,
        time_control: TimeControl,
        transcript: Transcript | None = None,
        *,
        keep_lines: int = 0,
    ) -> None:
        self.seat = seat
        self.process = process
        # Fair play (referee/bots/fairplay.py) needs a real process in a control group; other transports (scripted
        # fakes, a human at the terminal) are timed on the wall clock and never frozen.
        self._bot: BotProcess | None = process if isinstance(process, BotProcess) else None
        self.clock = SeatClock(time_control, self._bot)
        self.name = f"seat{seat}"
        self.version = ""
        self.protocol = codec.PROTOCOL_VERSION  # the version the bot answered hello with
        self.strikes = 0
        self.forfeited = process is None
        self.freeze = False  # freeze the bot from its answer to its next request (fair play; needs a cgroup)
        self.stats = SeatStats()
        self._ignored_mark = 0  # stats.ignored_lines when the latest request went out
        self.recent: deque[tuple[Direction, bytes]] = deque(maxlen=keep_lines)
        self._next_id = 0
        self._queue = bytearray()  # encoded lines waiting to ride with the next request
        self._transcript = transcript
        self._recording = bool(transcript or keep_lines)  # lines exchanged go to the transcript or ``recent``
        # The last payloads sent (at least _SENT_TAIL_BYTES of them), to tell how many lines are still unread. Kept
        # as they were sent, not copied into one buffer: growing a buffer of a few hundred KiB copies it now and then.
        self._sent: deque[bytes] = deque()
        self._sent_bytes = 0

    def queue(self, message: m.RefereeMessage | m.ErrorEventV1) -> None:
        if not self.forfeited:
            self._queue += codec.encode(message)

    def queue_encoded(self, line: bytes) -> None:
        """Queue an already encoded line, newline included (an event shared by every seat is encoded once)."""
        if not self.forfeited:
            self._queue += line

    def new_id(self) -> int:
        self._next_id += 1
        return self._next_id

    def converse(
        self,
        request: m.Request,
        *,
        timeout_s: float | None = None,
        line: bytes | None = None,
        read_on: bool = False,
        grace_s: float = 0.0,
        startup: bool = False,
        together: int = 1,
    ) -> Reply:
        """Send queued events and ``request``, and wait for its answer.

        ``timeout_s`` replaces the decision's deadline (the handshake's start-up time; such a wait is not charged
        to the clock). ``line`` is the request as sent, when the caller has it already (``wire_requests.RequestLines``)
        or when it is not ``codec.encode(request)`` (check-bot adds an unknown field). A match stops at the first
        broken line (a fault); ``read_on`` reads on past broken lines to the answer or the deadline, so that a
        check can report each one and still judge the answer. After a deadline passed with no line at all,
        ``grace_s`` more is given for one: a slow bot's answer (``late``). ``startup``: the time counts from the
        start of the bot's process, not from the request (the handshake, timed on CPU time).
        """
        asked = self.send_request(request, timeout_s=timeout_s, line=line, startup=startup, together=together)
        reply = self.await_reply(asked, read_on, grace_s)
        assert reply is not None
        return reply

    def send_request(
        self,
        request: m.Request,
        *,
        timeout_s: float | None = None,
        line: bytes | None = None,
        together: int = 1,
        startup: bool = False,
    ) -> Asked:
        """The first half of ``converse``: thaw the bot, send queued events and ``request``; its time starts now.

        ``together`` is how many bots run at once from now on (every seat's pass): the wall-clock cap of a request
        timed on CPU time grows with it (``fairplay.wall_cap_s``).
        """
        process = self.process
        assert process is not None and not self.forfeited
        self._queue += codec.encode(request) if line is None else line
        clock = self.clock
        allowed = clock.deadline_s() if timeout_s is None else timeout_s
        cpu = clock.start()
        started = _CLOCK()
        self._ignored_mark = self.stats.ignored_lines
        self._send_queue(process)
        return clock.asked(request, started, allowed, timeout_s is None, cpu, together, startup)

    @property
    def ignored_since_request(self) -> int:
        """Lines ignored (answers to other requests) since the latest request went out."""
        return self.stats.ignored_lines - self._ignored_mark

    def await_reply(self, asked: Asked, read_on: bool = False, grace_s: float = 0.0, wait: bool = True) -> Reply | None:
        """The second half of ``converse``: the reply to ``asked``, after which the bot is frozen (``freeze``).
        Without ``wait``, only what has arrived is read and None means no reply yet (its time is not up either)."""
        reply = self._reply(asked, read_on, grace_s, wait)
        if reply is not None and self.freeze and self._bot is not None:
            self._bot.freeze()
        return reply

    def _reply(self, asked: Asked, read_on: bool, grace_s: float, wait: bool) -> Reply | None:
        process = self.process
        assert process is not None
        started = asked.started
        result = self._read_now(process, started + asked.wall_s if wait else 0.0, self.clock.cpu_until(asked))
        if self._recording:
            self._record_read(result)
        at_s = _CLOCK() - started
        if type(result) is Line and not asked.heard:
            # The usual reply, kept short: the first line read is the answer. Anything else: the general path.
            request = asked.request
            try:
                answer = _DECODE_ANSWER(result.data)
            except codec.ProtocolError:
                pass
            else:
                if answer.id == request.id and isinstance(answer, _ANSWER_TYPES[type(request)]):
                    heard = Heard(result.data, at_s, answer)
                    asked.heard.append(heard)
                    return Reply(answer, self._charge(at_s, asked), (heard,), cpu_s=asked.cpu_s)
        return self._await_reply(asked, result, at_s, read_on, grace_s, wait)

    def _await_reply(
        self, asked: Asked, result: LineResult, at_s: float, read_on: bool, grace_s: float, wait: bool
    ) -> Reply | None:
        """``await_reply`` from ``result``, read ``at_s`` after the request: every case (answers to other requests,
        broken lines, timeouts, crashes)."""
        process = self.process
        assert process is not None
        request, started = asked.request, asked.started
        expected = m.ANSWER_TYPES[type(request)]
        deadline = started + asked.wall_s if wait else 0.0
        cpu_until = self.clock.cpu_until(asked)
        heard = asked.heard
        while True:
            if not wait and isinstance(result, Timeout) and not self.clock.expired(asked, at_s):
                return None
            if isinstance(result, Line):
                outcome = self._read_answer(result.data, request.id, expected, heard, at_s)
                reads_on = read_on and isinstance(outcome, Fault) and _reads_on(heard[-1], request)
                if outcome is not None and not reads_on:
                    return Reply(outcome, self._charge(at_s, asked), tuple(heard), cpu_s=asked.cpu_s)
            elif isinstance(result, LineTooLong):
                heard.append(Heard(result.prefix, at_s))
                if not read_on:
                    fault = Fault(
                        FaultCode.MALFORMED,
                        f"your answer line is longer than {codec.MAX_BOT_LINE_BYTES} bytes "
                        f"(it starts {result.prefix[:60]!r}); answer with one short JSON object per line",
                    )
                    return Reply(fault, self._charge(at_s, asked), tuple(heard), cpu_s=asked.cpu_s)
            else:
                return self._no_answer(asked, result, self._charge(at_s, asked), grace_s)
            result = self._read(process, deadline, cpu_until)
            at_s = time.monotonic() - started

    def _no_answer(self, asked: Asked, result: Timeout | Closed | Overflow, spent: float, grace_s: float) -> Reply:
        """The reply when the wait ended without an answer: a timeout (with a late line in the grace), or a crash."""
        process = self.process
        assert process is not None
        request, started, heard, cpu = asked.request, asked.started, asked.heard, asked.cpu_s
        if isinstance(result, Timeout):
            backlog = self._unread_lines(process)
            wrong_ids = [h.message.id for h in heard if h.message is not None and h.message.id != request.id]
            within = self.clock.within(asked)
            timeout = Fault(FaultCode.TIMEOUT, _timeout_message(within, backlog, request.id, wrong_ids))
            if heard or grace_s <= 0:
                return Reply(timeout, spent, tuple(heard), result, backlog=backlog, cpu_s=cpu)
            late = self._read(process, time.monotonic() + grace_s)
            if isinstance(late, Line | LineTooLong):
                data = late.data if isinstance(late, Line) else late.prefix
                return Reply(timeout, spent, (), result, Heard(data, time.monotonic() - started), backlog, cpu)
            if isinstance(late, Timeout):
                return Reply(timeout, spent, (), result, backlog=backlog, cpu_s=cpu)
            result = late
        return Reply(Fault(FaultCode.CRASH, _crash_message(process, result)), spent, tuple(heard), result, cpu_s=cpu)

    def _read_answer(
        self, data: bytes, request_id: int, expected: type[m.BotMessage], heard: list[Heard], at_s: float
    ) -> m.BotMessage | Fault | None:
        """The answer to this request, a Fault, or None for a line to ignore (an answer with another id: the late
        answer to an older request, or a wrong id, which the timeout's message then names)."""
        try:
            answer = codec.decode_bot_line(data)
        except codec.ProtocolError as error:
            heard.append(Heard(data, at_s, error=error))
            if (error.message_id is not None and error.message_id != request_id) or error.message_type in _EVENT_TYPES:
                # A broken line that names another id answers another request, and a line of an event's type
                # answers an event: ignored like any such answer (PROTOCOL.md §5), whatever else is wrong with it.
                self.stats.ignored_lines += 1
                return None
            return Fault(FaultCode.MALFORMED, str(error))
        heard.append(Heard(data, at_s, message=answer))
        if answer.id != request_id:
            self.stats.ignored_lines += 1
            return None
        if not isinstance(answer, expected):
            tag = expected.__struct_config__.tag
            got = type(answer).__struct_config__.tag
            return Fault(
                FaultCode.WRONG_TYPE,
                f'request {request_id} asked for a "{tag}" answer, you sent "{got}"',
            )
        return answer

    def _charge(self, elapsed: float, asked: Asked) -> float:
        """Count the decision in the seat's statistics and on its clock; the wall time it took."""
        self.clock.charge(elapsed, asked)
        if asked.charged:
            stats = self.stats
            stats.decisions += 1
            stats.thinking_s += elapsed
            stats.slowest_s = max(stats.slowest_s, elapsed)
            if asked.cpu_s is not None:
                stats.cpu_s += asked.cpu_s
        return elapsed

    def _unread_lines(self, process: Transport) -> int:
        """Lines sent before the last one (the request) that the bot had not read: 0 once it reads the request."""
        unread = min(process.unread_input_bytes(), self._sent_bytes)
        if unread <= 0:
            return 0
        return max(0, b"".join(self._sent)[-unread:].count(b"\n") - 1)

    def record_fault(self, fault: Fault) -> None:
        self.strikes += 1
        self.stats.faults[fault.code] = self.stats.faults.get(fault.code, 0) + 1

    # --- below the request cycle: what check-bot needs besides it -----------------------------------------------

    def read_line(self, deadline: float) -> LineResult:
        """The bot's next line outside a request (one it writes after the game, or at end of input), recorded."""
        assert self.process is not None
        return self._read(self.process, deadline)

    def close_input(self, timeout_s: float) -> None:
        """Send what is queued (for up to ``timeout_s``), then close the bot's stdin: it reads end of input."""
        assert self.process is not None
        self.thaw()  # it must run to read its end of input
        if self._queue:
            self._send_queue(self.process)
            self.process.flush(time.monotonic() + timeout_s)
        self.process.close_input()
        self._record(INPUT_CLOSED, b"")

    def wait_exit(self, deadline: float) -> int | None:
        """Wait for the bot to exit by itself until ``deadline``: its exit status, or None while it still runs."""
        assert self.process is not None
        return self.process.wait_exit(deadline)

    @property
    def exit_status(self) -> int | None:
        return None if self.process is None else self.process.returncode

    def stderr_tail(self) -> bytes:
        return b"" if self.process is None else self.process.stderr_tail()

    # --- end of game and match -----------------------------------------------------------------------------------

    def flush(self, timeout_s: float = 1.0) -> None:
        """Write queued events now (end of game/match); a bot that does not read them only loses them.

        A frozen bot's events are handed to its transport without waiting: they go into its pipe as far as it has
        room, and the rest goes out with its next request (or its ``bye``), so a frozen bot never holds up the
        referee.
        """
        if self.forfeited or self.process is None or not self._queue:
            self._queue.clear()
            return
        self._send_queue(self.process)
        if self._bot is None or not self._bot.frozen:
            self.process.flush(time.monotonic() + timeout_s)

    def thaw(self) -> None:
        """Let the bot run again outside a request (check-bot's end of game)."""
        if self._bot is not None:
            self._bot.thaw()

    def close(self, reason: m.ByeReason, grace_s: float = 0.5) -> None:
        """Say bye, give the bot a moment to exit by itself, then make sure every process of it is gone."""
        if self.process is None:
            return
        self.thaw()  # it must run to read bye and exit
        if self.process.alive:
            self._queue += codec.encode(m.ByeEvent(reason=reason))
            self._send_queue(self.process)
            self.process.flush(time.monotonic() + grace_s)
        self.process.terminate(grace_s)

    def _send_queue(self, process: Transport) -> None:
        """One write for all queued lines: events cost almost nothing when they ride with the next request."""
        payload = bytes(self._queue)
        self._queue.clear()
        if payload:
            sent = self._sent
            sent.append(payload)
            self._sent_bytes += len(payload)
            if self._sent_bytes > 2 * _SENT_TAIL_BYTES:  # trimmed now and then, not on every send
                while self._sent_bytes - len(sent[0]) >= _SENT_TAIL_BYTES:
                    self._sent_bytes -= len(sent.popleft())
        if self._recording:
            for line in payload.splitlines():
                self._record(SENT, line)
        process.send(payload)

    def _read_now(self, process: Transport, deadline: float, cpu_until: int) -> LineResult:
        """One read, on a CPU-time budget where there is one (the caller records it)."""
        bot = self._bot
        if cpu_until > 0 and bot is not None:
            return bot.read_line(deadline, cpu_until)
        return process.read_line(deadline)

    def _read(self, process: Transport, deadline: float, cpu_until: int = 0) -> LineResult:
        result = self._read_now(process, deadline, cpu_until)
        if self._recording:
            self._record_read(result)
        return result

    def _record_read(self, result: LineResult) -> None:
        if isinstance(result, Line):
            self._record(RECEIVED, result.data)
        elif isinstance(result, LineTooLong) and self.recent.maxlen:
            self.recent.append((RECEIVED, result.prefix + b"..."))

    def _record(self, direction: Direction, line: bytes) -> None:
        if self.recent.maxlen:
            self.recent.append((direction, line))
        if self._transcript and direction != INPUT_CLOSED:
            self._transcript(self.seat, direction, line)


def converse_all(asks: Sequence[tuple[BotSeat, m.Request]]) -> list[Reply]:
    """Send every request at once and collect each reply under its own seat's deadline (every seat's pass).

    Each answer is read as it arrives, so each seat's time is its own: a slow or silent seat costs the others
    nothing beyond their own answers. With transports that are not processes (scripted fakes, which answer at
    once), the replies are collected one seat after the other.
    """
    at_once = len(asks)
    sent = [(seat, seat.send_request(request, together=at_once)) for seat, request in asks]
    replies: list[Reply | None] = [None] * len(sent)
    processes = [seat.process for seat, _ in sent]
    together = all(isinstance(p, BotProcess) for p in processes)
    while True:
        waiting: list[int] = []
        for i, (seat, asked) in enumerate(sent):
            if replies[i] is None:
                replies[i] = seat.await_reply(asked, wait=not together)
                if replies[i] is None:
                    waiting.append(i)
        if not waiting:
            return [reply for reply in replies if reply is not None]
        deadline = min(sent[i][0].clock.wake_at(sent[i][1]) for i in waiting)
        wait_any([p for i, p in enumerate(processes) if i in waiting and isinstance(p, BotProcess)], deadline)
