"""Judging what came back for one request: every line before an answer (a debug print, a wrong id) is a problem
even when a good answer follows; no answer at all is told apart as too slow, stuck in a buffer, not answering, or gone.

The bot is talked to through a `BotSeat`, the match's own conversation (ids, deadlines, stale answers), over the
same transport. When an answer does not come in time, the check waits a little longer (``grace_ms``: a slow bot
answers anyway), then closes the bot's stdin: an answer that arrives only then was stuck in the bot's output
buffer, the commonest mistake of all. Everything here waits under a deadline: no bot can hang the check.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Final

from protocol import codec
from protocol import messages as m
from referee.bots.pipe_results import Line, LineTooLong, Overflow
from referee.bots.replies import Heard, Reply, backlog_note
from referee.bots.runtimes import RUNTIME_HINT, runtime_failure
from referee.bots.seat import INPUT_CLOSED, RECEIVED, BotSeat, Direction, Transport
from referee.bots.stderr_log import last_lines
from referee.checkbot.report import (
    HINT_CRASH,
    HINT_DEBUG,
    HINT_EVENTS,
    HINT_FLUSH,
    HINT_ID,
    HINT_MULTILINE,
    HINT_SLOW,
    HINT_STUCK,
    HINT_TYPE,
    CheckOptions,
)
from referee.checkbot.scenarios import UNKNOWN_MESSAGE
from referee.vocabulary.faults import Fault, FaultCode

__all__ = ["Judged", "Problem", "Run", "clip"]

_LAST_LINES: Final = 8  # lines exchanged shown with a failure
_CLIP: Final = 160  # characters of one shown line
_REFEREE_TYPES: Final = m.EVENT_TYPES | {str(UNKNOWN_MESSAGE["type"])}

Problem = tuple[str, str]  # what was wrong, the hint


def clip(text: str) -> str:
    text = text.rstrip("\r\n")
    return text if len(text) <= _CLIP else text[: _CLIP - 3] + "..."


def _shown(direction: Direction, line: bytes) -> str:
    """One line of a failure's "last lines exchanged", as text (escaping control characters is the printer's)."""
    if direction == INPUT_CLOSED:
        return "-> (end of input: the check closed the bot's stdin)"
    if direction == RECEIVED:
        return "<- " + clip(line.decode("utf-8", "backslashreplace"))
    return "-> " + clip(line.decode("utf-8", "replace"))


# A line of pretty-printed JSON: a lone bracket, or a `"key": value` member (jq without -c, json.dumps(indent=2)).
_JSON_FRAGMENT: Final = re.compile(rb'^\s*(?:[{}\[\]],?|"[^"]*"\s*:.*)\s*$')


def _explain_bad_line(error: codec.ProtocolError, line: bytes) -> Problem:
    runtime = runtime_failure(line)
    if runtime is not None:
        shown = clip(line.decode("utf-8", "replace").strip())
        return f"{runtime} could not start; it printed on stdout: {shown}", RUNTIME_HINT
    problem = f"your bot wrote a line that is not a valid answer: {error.problem}"
    if error.message_type is not None and error.message_type in _REFEREE_TYPES:
        return problem, HINT_EVENTS
    if error.problem.startswith(("not valid JSON", "expected a JSON object", "empty line", "the line is not valid")):
        return problem, HINT_MULTILINE if _JSON_FRAGMENT.match(line) else HINT_DEBUG
    return problem, error.hint


@dataclass
class Judged:
    """One request judged: the answer (None if none usable) and every problem on the way, in order."""

    answer: m.BotMessage | None
    elapsed_ms: float
    problems: list[Problem]
    exchange: list[str]
    stray: list[bytes]  # lines received before the answer that were not it
    timed_out: bool = False  # no usable answer came before the deadline
    cpu_ms: float | None = None  # the bot's CPU time for it, where the clock is CPU time (fair play)
    answered_malformed: bool = False  # a line named the request's id but was not a valid answer
    event_answers: list[bytes] = field(default_factory=list)  # lines that answered an event: ignored, as in a match


class Run:
    """One start of the bot: its transport, the seat that talks to it, and whether it can still be asked."""

    def __init__(self, transport: Transport, options: CheckOptions, freeze: bool = False) -> None:
        self.transport = transport
        self.options = options
        self.seat = BotSeat(0, transport, options.time, keep_lines=_LAST_LINES)
        self.seat.freeze = freeze
        self.dead = False  # the bot cannot be asked anything more in this run
        self.error_ids: set[int] = set()  # the requests named by the error events sent: a line with one answers it

    def exchange(self) -> list[str]:
        return [_shown(direction, line) for direction, line in self.seat.recent]

    def stderr_tail(self) -> list[str]:
        return last_lines(self.seat.stderr_tail())

    def ask(self, request: m.Request, *, line: bytes | None = None, startup: bool = False) -> Judged:
        """Send the queued events and ``request`` (as ``line`` when given) and judge what comes back."""
        options = self.options
        timeout_ms = options.time.startup_ms if startup else options.time.move_ms
        reply = self.seat.converse(
            request,
            startup=startup,
            timeout_s=timeout_ms / 1000,
            line=line,
            read_on=True,
            grace_s=options.grace_ms / 1000,
        )
        problems: list[Problem] = []
        stray: list[bytes] = []
        event_answers: list[bytes] = []
        for heard in reply.heard:
            if self._answers_event(heard, request.id):  # ignored by a match: no problem, but said (PROTOCOL.md §5)
                event_answers.append(heard.line)
                continue
            if heard.error is not None:
                problems.append(_explain_bad_line(heard.error, heard.line))
            elif heard.message is None:
                problems.append(
                    (
                        f"your bot wrote a line longer than {codec.MAX_BOT_LINE_BYTES} bytes",
                        "answer with one short JSON object per line; " + HINT_DEBUG,
                    )
                )
            elif heard.message.id != request.id:
                problems.append(
                    (f"your bot answered with id {heard.message.id}; the request's id is {request.id}", HINT_ID)
                )
            elif reply.answer is None:  # the answer to this request, of the wrong type
                want = m.ANSWER_TYPES[type(request)].__struct_config__.tag
                got = type(heard.message).__struct_config__.tag
                problems.append((f'request {request.id} asked for a "{want}" answer, your bot sent "{got}"', HINT_TYPE))
                continue
            else:
                continue
            stray.append(heard.line)
        if reply.answer is None:
            problems += self._no_answer(reply, timeout_ms, bool(problems))
        timed_out = isinstance(reply.outcome, Fault) and reply.outcome.code is FaultCode.TIMEOUT
        cpu_ms = None if reply.cpu_s is None else reply.cpu_s * 1000
        malformed = any(
            h.error is not None and h.error.message_id == request.id and h.error.message_type not in m.EVENT_TYPES
            for h in reply.heard
        )
        return Judged(
            reply.answer,
            reply.elapsed_s * 1000,
            problems,
            self.exchange(),
            stray,
            timed_out,
            cpu_ms,
            malformed,
            event_answers,
        )

    def _answers_event(self, heard: Heard, request_id: int) -> bool:
        """Whether a line answers an event: it has an event's type, or names the request of an error event sent."""
        if heard.error is not None:
            claimed = heard.error.message_id
            return heard.error.message_type in m.EVENT_TYPES or (claimed != request_id and claimed in self.error_ids)
        return heard.message is not None and heard.message.id != request_id and heard.message.id in self.error_ids

    def _no_answer(self, reply: Reply, time_ms: int, wrote: bool) -> list[Problem]:
        """Why no answer came: wrong type (already said), too slow, stuck in a buffer, not answering, gone."""
        fault = reply.outcome
        assert not isinstance(fault, m.BotMessage)
        if fault.code in (FaultCode.WRONG_TYPE, FaultCode.MALFORMED):  # its answer, wrong: already said
            return []
        if fault.code is FaultCode.CRASH:
            self.dead = True
            return [(self._ended(reply), HINT_CRASH)]
        assert fault.code is FaultCode.TIMEOUT
        backlog = f"; {backlog_note(reply.backlog)}" if reply.backlog else ""
        if wrote:  # it did write something: its real answer is what is wrong, not the clock
            return [(f"no valid answer within {time_ms} ms{backlog}", HINT_STUCK)]
        if reply.late is not None:
            late_ms = reply.late.at_s * 1000
            return [(f"the answer came after {late_ms:.0f} ms; the limit is {time_ms} ms{backlog}", HINT_SLOW)]
        # Close its stdin: a bot that exits at end of input flushes its buffer on the way out.
        self.dead = True
        exit_s = self.options.exit_ms / 1000
        self.seat.close_input(exit_s)
        if isinstance(self.seat.read_line(time.monotonic() + exit_s), Line):
            problem = (
                f"no answer within {time_ms} ms; your answer arrived only when input closed: "
                "you are not flushing stdout after each line"
            )
            return [(problem, HINT_FLUSH)]
        problem = f"no answer within {time_ms} ms (nor after another {self.options.grace_ms} ms, nor at end of input)"
        return [(problem + backlog, HINT_SLOW if reply.backlog else HINT_STUCK)]

    def _ended(self, reply: Reply) -> str:
        """Why the bot can answer no more, with its exit status once it has one (the seat waited for it)."""
        if isinstance(reply.ended, Overflow):
            return f"the bot stopped reading its input ({reply.ended.pending_bytes} bytes waiting) instead of answering"
        status = self.seat.exit_status
        if status is None:
            return "the bot closed its stdout instead of answering"
        how = f"exit status {status}" if status >= 0 else f"killed by signal {-status}"
        return f"the bot exited ({how}) instead of answering"

    def finish(self) -> tuple[list[str], int | None]:
        """Send what is queued, then wait for the bot to exit: (lines it still wrote, exit status or None)."""
        exit_s = self.options.exit_ms / 1000
        deadline = time.monotonic() + exit_s
        self.seat.thaw()  # it must run to read the last events and bye, and exit
        self.seat.flush(exit_s)
        extra: list[str] = []
        while True:
            result = self.seat.read_line(deadline)
            if isinstance(result, Line):
                extra.append(result.data.decode("utf-8", "backslashreplace"))
            elif isinstance(result, LineTooLong):
                extra.append(result.prefix.decode("utf-8", "backslashreplace") + "...")
            else:
                break
        return extra, self.seat.wait_exit(deadline)

    def stop(self) -> None:
        self.transport.terminate(0)
