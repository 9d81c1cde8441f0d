"""A scripted stand-in for a bot process, so protocol-level tests need no subprocess and no clock.

`ScriptedBot` decodes every line the referee sends, records it, and answers requests through a Python function
(the "script"). ``read_line`` never waits: it returns a queued answer, or `Timeout` at once when the script gave
none, which makes timeouts deterministic. Like a well-behaved bot it exits on ``bye`` and at end of input.
Knobs for check-bot's tests: ``flushes=False`` holds every answer back until end of input (a bot that never
flushes stdout), ``answers_late`` lets each request's deadline pass before its answer can be read (a slow bot),
``ignores_bye`` keeps it running after ``bye``, ``tolerant`` makes it ignore lines it cannot
decode (an unknown message type) instead of failing the test, and ``stderr`` is what its stderr says.
``ms_per_message`` simulates a bot that spends that long on every line it reads: when the lines sent with a
request (and the request itself) take longer to read than the request's ``time_ms``, its answer is late, and
until then it reports as unread the lines it had not reached at the deadline (no clock: the cost is counted).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from protocol import codec
from protocol import messages as m
from referee.bots.pipe_results import Closed, Flushed, Line, LineResult, Timeout

# request -> the raw lines to answer with (b"" entries are skipped); raising SystemExit closes the bot
Script = Callable[[m.Request], list[bytes]]
_Message = TypeVar("_Message", bound=m.RefereeMessage)


def answer_line(message: m.BotMessage) -> bytes:
    return codec.encode_answer(message).rstrip(b"\n")


def first_legal(request: m.Request) -> list[bytes]:
    """A well-behaved bot: the first legal card, the first 3 cards, the first trump choice, 'others'."""
    if isinstance(request, m.HelloRequest):
        return [answer_line(m.HelloAnswer(id=request.id, name="scripted", version="1", protocol=1))]
    if isinstance(request, m.PlayRequest):
        return [answer_line(m.PlayAnswer(id=request.id, card=request.legal[0]))]
    if isinstance(request, m.PassRequest):
        return [answer_line(m.PassAnswer(id=request.id, cards=request.hand[:3]))]
    if isinstance(request, m.TrumpRequest):
        return [answer_line(m.TrumpAnswer(id=request.id, suit=request.choices[0]))]
    assert isinstance(request, m.MoonRequest)
    return [answer_line(m.MoonAnswer(id=request.id, choice="others"))]


@dataclass
class ScriptedBot:
    script: Script = first_legal
    flushes: bool = True
    answers_late: bool = False
    ignores_bye: bool = False
    tolerant: bool = False
    stderr: bytes = b""
    ms_per_message: float = 0.0
    received: list[m.RefereeMessage] = field(default_factory=list)
    writes: list[bytes] = field(default_factory=list)  # one entry per send(): what arrived in one write
    undecodable: list[bytes] = field(default_factory=list)  # lines ignored by a tolerant bot
    input_closed: bool = False
    _answers: list[bytes] = field(default_factory=list)
    _held: list[bytes] = field(default_factory=list)  # answers "in the stdout buffer" of a bot that never flushes
    _closed: bool = False
    _on_time: bool = True  # answers_late: the first read after a request has not timed out yet
    _late_once: bool = False  # ms_per_message: this request's answer comes after its deadline
    _unread: int = 0  # ms_per_message: bytes not yet read when the deadline passed
    longest_burst: int = 0  # the most lines that came in one write
    terminated: bool = False

    @property
    def returncode(self) -> int | None:
        return 0 if self._closed or self.terminated else None

    @property
    def alive(self) -> bool:
        return self.returncode is None

    def send(self, data: bytes) -> None:
        if self._closed:
            return
        self.writes.append(data)
        lines = data.splitlines()
        self.longest_burst = max(self.longest_burst, len(lines))
        for index, line in enumerate(lines):
            try:
                message = codec.decode_referee_line(line)
            except codec.ProtocolError:
                if not self.tolerant:
                    raise
                self.undecodable.append(line)
                continue
            self.received.append(message)
            if isinstance(message, m.HelloRequest | m.PassRequest | m.TrumpRequest | m.PlayRequest | m.MoonRequest):
                try:
                    answers = [a for a in self.script(message) if a]
                except SystemExit:
                    self._closed = True
                    return
                (self._answers if self.flushes else self._held).extend(answers)
                self._on_time = True
                self._simulate_reading(message, lines[: index + 1])
            elif isinstance(message, m.ByeEvent) and not self.ignores_bye:
                self._exit()
                return

    def _simulate_reading(self, request: m.Request, read: list[bytes]) -> None:
        """ms_per_message: whether reading ``read`` (the request last) overran its time, and what was left unread."""
        self._late_once = False
        self._unread = 0
        if not self.ms_per_message or isinstance(request, m.HelloRequest):
            return
        assert not isinstance(request, m.HelloRequest)
        in_time = int(request.time_ms // self.ms_per_message)  # lines it can read before the deadline
        if len(read) > in_time:
            self._late_once = True
            self._unread = sum(len(line) + 1 for line in read[in_time:])

    def unread_input_bytes(self) -> int:
        return self._unread if self._late_once else 0

    def flush(self, deadline: float) -> Flushed:
        return Flushed()

    def read_line(self, deadline: float) -> LineResult:
        if (self.answers_late or self._late_once) and self._on_time:
            self._on_time = False
            return Timeout()
        self._late_once = False
        if self._answers:
            return Line(self._answers.pop(0), 0.0)
        return Closed() if self._closed else Timeout()

    def close_input(self) -> None:
        self.input_closed = True
        self._exit()

    def wait_exit(self, deadline: float) -> int | None:
        return self.returncode

    def stderr_tail(self) -> bytes:
        return self.stderr

    def terminate(self, grace_s: float = 0.5) -> None:
        self.terminated = True

    def _exit(self) -> None:
        """Exit as a bot does at end of its main loop: what it held in its stdout buffer comes out first."""
        self._answers.extend(self._held)
        self._held.clear()
        self._closed = True

    def of_type(self, kind: type[_Message]) -> list[_Message]:
        return [message for message in self.received if isinstance(message, kind)]
