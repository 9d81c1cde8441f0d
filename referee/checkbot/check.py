"""Checking one bot: start it once per game, play the scenario with it in its seat, report one result per check.

The bot is started through ``start`` (a real process, or a scripted fake in protocol-level tests) and talked to
through the match's `BotSeat` (``judge.Run``). An unknown message type and an unknown field are sent before its
second request; after the game it gets ``bye`` and must exit, and a second run checks that it exits at end of input.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Final

import msgspec

from protocol import codec
from protocol import messages as m
from referee import wire, wire_requests
from referee.bots.fairplay import FairPlaySetup
from referee.bots.pipe_results import BotStartError
from referee.bots.seat import Transport
from referee.checkbot.judge import Judged, Run, clip
from referee.checkbot.report import (
    EVENTS_CHECK,
    HINT_BYE,
    HINT_EOF,
    HINT_EVENTS,
    HINT_ILLEGAL,
    HINT_PROTOCOL,
    HINT_STATUS,
    HINT_UNKNOWN,
    NOTE_PROTOCOL_1,
    SAMPLE_ERROR_MESSAGE,
    CheckOptions,
    CheckReport,
    CheckResult,
)
from referee.checkbot.scenarios import GAME_NUMBER, UNKNOWN_FIELD, UNKNOWN_MESSAGE, describe, scenario, walk
from referee.rules import Action, GameState, IllegalActionError
from referee.seating import hello_request, start_bot, version_problem

__all__ = ["StartBot", "check_bot"]

_MAX_TIMEOUTS: Final = 3  # requests that time out before the bot is no longer asked (a match's default strikes)
_NOT_STARTED: Final = "not run: the bot did not start or failed the handshake"
StartBot = Callable[[str], Transport]  # the name of a run (for its stderr log) -> the started bot; BotStartError


def _more_problems(more: list[str]) -> str:
    """ " (and 1 more problem: ...)" for the problems after the first, spelled out (clipped), or ""."""
    if not more:
        return ""
    shown = "; ".join(clip(problem) for problem in more[:2])
    if len(more) > 2:
        shown += f"; and {len(more) - 2} more"
    return f" (and {len(more)} more problem{'s' if len(more) > 1 else ''}: {shown})"


def _took(judged: Judged) -> str:
    """How long a decision took, on the clock that judged it: "12.3 ms", or "2.1 ms CPU, 304.6 ms wall"."""
    if judged.cpu_ms is None:
        return f"{judged.elapsed_ms:.1f} ms"
    return f"{judged.cpu_ms:.1f} ms CPU, {judged.elapsed_ms:.1f} ms wall"


def _judged_time(judged: Judged) -> float:
    """The time of a decision on the clock that judged it (ms)."""
    return judged.elapsed_ms if judged.cpu_ms is None else judged.cpu_ms


def _show_answer(answer: m.BotMessage | None) -> str:
    if isinstance(answer, m.PlayAnswer):
        return answer.card
    if isinstance(answer, m.PassAnswer):
        return " ".join(answer.cards)
    if isinstance(answer, m.TrumpAnswer):
        return answer.suit
    if isinstance(answer, m.MoonAnswer):
        return answer.choice
    return ""


class _GameCheck:
    """Play the scenario of one game with the bot in its seat, reporting one result per check."""

    def __init__(
        self,
        options: CheckOptions,
        game: str,
        start: StartBot,
        emit: Callable[[CheckResult], None],
        freeze: bool = False,
    ) -> None:
        self.options = options
        self.freeze = freeze  # between its turns, as in a match (fair play with control groups)
        self.game = game
        self.start = start
        self.emit = emit
        self.scenario = scenario(game, options.players, options.rule_options)
        self.default_rules = options.players is None and not options.rule_options
        self.asked = 0
        self.last_answered = False  # whether the previous request got a usable answer
        self.unknown_sent = False
        self.other_decisions = 0
        self.other_failures: dict[str, int] = {}  # the cause (hint) -> decisions off the checkpoints it failed
        self.slowest: Judged | None = None  # the other decision that took longest on the clock that judged it
        self.timeouts = 0
        self.protocol = codec.PROTOCOL_VERSION  # the version the bot answered hello with
        self.error_sent = False
        self.event_answers: list[bytes] = []  # lines that answered an event (ignored by a match)
        self.cpu_clock = False  # decisions timed on the bot's CPU time (fair play with control groups)
        self.wall_over: list[Judged] = []  # in time on CPU time, but past time_ms on the wall clock
        self.causes: dict[str, tuple[str, int]] = {}  # a cause (hint) reported -> (the check that showed it, times)

    def name(self, what: str) -> str:
        return f"{self.game}: {what}"

    def result(self, what: str, judged: Judged, run: Run, note: str = "") -> bool:
        """Emit PASS, or FAIL with the first problem (and the others named); True when it passed.

        A cause already reported in this game (the same hint) is not shown again in full: its FAIL line says
        which check showed it first and how often it has come back, so one debug print gives one full report.
        """
        if not judged.problems:
            self.emit(CheckResult(self.name(what), "PASS", note))
            return True
        problem, hint = judged.problems[0]
        problem += _more_problems([p for p, _ in judged.problems[1:]])
        first = self.causes.get(hint)
        if first is not None:
            self.causes[hint] = (first[0], first[1] + 1)
            again = f'{problem} (the cause reported at "{first[0]}", {first[1] + 1} times in this game so far)'
            self.emit(CheckResult(self.name(what), "FAIL", again))
            return False
        self.causes[hint] = (what, 1)
        self.emit(CheckResult(self.name(what), "FAIL", problem, hint, judged.exchange, run.stderr_tail()))
        return False

    def hello(self, run: Run) -> m.HelloRequest:
        ruleset = self.scenario.ruleset
        return hello_request(run.seat.new_id(), ruleset, self.scenario.seat, self.options.time, games=1)

    def handshake(self, run: Run) -> bool:
        """hello -> hello; True when the bot can go on."""
        judged = run.ask(self.hello(run), startup=True)
        note = ""
        hello = judged.answer
        if hello is not None:
            assert isinstance(hello, m.HelloAnswer)
            problem = version_problem(hello.protocol)
            if problem is not None:
                judged.problems.append((f"your bot {problem}", HINT_PROTOCOL))
            else:
                self.protocol = hello.protocol
            note = f'"{hello.name}" version "{hello.version}", protocol {hello.protocol} ({judged.elapsed_ms:.0f} ms)'
            if hello.protocol == 1:
                note += f"; {NOTE_PROTOCOL_1}"
        passed = self.result("handshake (hello)", judged, run, note)
        return passed or hello is not None

    def _start(self, label: str, check: str, hint: str = "") -> Run | None:
        try:
            return Run(self.start(label), self.options, self.freeze)
        except BotStartError as error:
            self.emit(CheckResult(check, "FAIL", str(error), hint))
            return None

    def run(self) -> bool:
        """Check this game; False when the bot failed its handshake (no point checking other games then)."""
        run = self._start(self.game, self.name("start the bot"), "check the command after --")
        if run is None:
            return False
        try:
            if not self.handshake(run):
                self.skip_rest(len(self.scenario.checkpoints))
                return False
            self.play(run)
            return True
        finally:
            run.stop()

    def skip_rest(self, situations: int) -> None:
        why = "not run: the bot stopped answering earlier"
        if self.timeouts >= _MAX_TIMEOUTS:
            why = f"not run: the bot timed out {self.timeouts} times (a match forfeits it then)"
        if situations:
            self.emit(CheckResult(self.name(f"{situations} more situation(s)"), "SKIP", why))
        if not self.unknown_sent:
            self.emit(CheckResult(self.name("unknown message type and fields ignored"), "SKIP", why))
        self.clock_result()
        self.emit(CheckResult(self.name(EVENTS_CHECK), "SKIP", why))
        self.emit(CheckResult(self.name("exits on bye"), "SKIP", why))

    def play(self, run: Run) -> None:
        skipped = 0

        def decide(state: GameState, named: bool) -> Action | None:
            nonlocal skipped
            if run.dead:
                skipped += named
                return None
            return self.decide(run, state, named=named)

        pending = walk(self.scenario, decide, run.seat.queue)
        if run.dead:
            self.skip_rest(skipped + len(pending))
            return
        if pending:  # cannot happen with the default rules (the tests prove it); say so rather than pass silently
            why = "a bug in check-bot" if self.default_rules else "they did not come up with these players and options"
            missed = ", ".join(checkpoint.name for checkpoint in pending)
            self.emit(CheckResult(self.name(f"{len(pending)} situation(s) not reached ({missed})"), "SKIP", why))
        if self.other_decisions:
            self.other_result()
        self.clock_result()
        self.finish(run)

    def other_result(self) -> None:
        """One line for every decision off the checkpoints: they are judged as a match would, counted here."""
        name = self.name(f"{self.other_decisions} more decision(s), every other turn of the game")
        failed = sum(self.other_failures.values())
        if not failed:
            clock = " on its CPU time" if self.cpu_clock else ""
            slowest = f" (slowest {_took(self.slowest)})" if self.slowest is not None else ""
            self.emit(CheckResult(name, "PASS", f"well-formed, legal, in time{clock}{slowest}"))
            return
        causes = "; ".join(
            f'{count} with the cause reported at "{self.causes[hint][0]}"'
            for hint, count in self.other_failures.items()
        )
        self.emit(CheckResult(name, "FAIL", f"{failed} of them failed: {causes}"))

    def clock_result(self) -> None:
        """One line when the CPU clock let through decisions that the wall clock (``--fair-play none``) would not."""
        if not self.wall_over:
            return
        move_ms = self.options.time.move_ms
        worst = max(self.wall_over, key=lambda judged: judged.elapsed_ms)
        count = len(self.wall_over)
        detail = (
            f"judged on your bot's CPU time (fair play), {count} decision(s) were in time although they took longer "
            f"than {move_ms} ms on the wall clock (slowest {_took(worst)}); with --fair-play none, timed on the "
            f"wall clock, {'it' if count == 1 else 'they'} would have timed out (each a strike; a match forfeits a "
            f"seat at its strike limit, {_MAX_TIMEOUTS} by default)"
        )
        self.emit(CheckResult(self.name("the clock: CPU time, not wall time"), "NOTE", detail))

    def sample_error(self, run: Run, request_id: int) -> None:
        """Queue an error event (in the bot's protocol version) naming ``request_id``: it must not be answered."""
        self.error_sent = True
        run.error_ids.add(request_id)
        event = m.ErrorEvent(
            request_id=request_id,
            code="illegal",
            message=SAMPLE_ERROR_MESSAGE,
            fallback=None,
            strikes=0,
            forfeited=False,
        )
        run.seat.queue(event.in_protocol(self.protocol))

    def decide(self, run: Run, state: GameState, *, named: bool) -> Action | None:
        """Ask the bot for the decision of ``state``; return its action when legal, else None (the fallback)."""
        request = wire_requests.request_for(state, run.seat.new_id(), GAME_NUMBER, self.options.time.move_ms)
        if self.asked == 2 and not self.error_sent:  # the third request: after an error event about the second
            self.sample_error(run, request.id - 1)
        line: bytes | None = None
        unknown = self.asked == 1 and not self.unknown_sent
        if unknown:  # the second request: after an unknown message type, and with an unknown field
            self.unknown_sent = True
            run.seat.queue_encoded(json.dumps(UNKNOWN_MESSAGE, separators=(",", ":")).encode() + b"\n")
            fields = json.loads(codec.encode(request))
            fields.update(UNKNOWN_FIELD)
            line = json.dumps(fields, separators=(",", ":")).encode() + b"\n"
        what = describe(state)
        self.asked += 1
        judged = run.ask(request, line=line)
        action: Action | None = None
        if judged.answer is not None:
            try:
                chosen = wire.to_action(judged.answer)
                state.copy().apply(chosen, self.scenario.seat)
            except wire.AnswerError as error:
                judged.problems.append((f"your bot's answer cannot be read: {error}", HINT_ILLEGAL[type(request)]))
            except IllegalActionError as error:
                shown = codec.encode_answer(judged.answer).decode().strip()
                judged.problems.append(
                    (f"illegal answer {shown}: {error.message} [rule: {error.rule}]", HINT_ILLEGAL[type(request)])
                )
            else:
                action = chosen
        self.event_answers += judged.event_answers
        if judged.cpu_ms is not None:
            self.cpu_clock = True
            if judged.elapsed_ms > self.options.time.move_ms >= judged.cpu_ms and not judged.timed_out:
                self.wall_over.append(judged)
        if judged.timed_out:
            self.timeouts += 1
            if self.timeouts >= _MAX_TIMEOUTS:  # as a match forfeits it: each more would cost a whole deadline
                run.dead = True
        if unknown:
            self.unknown_result(run, judged)
        self.last_answered = judged.answer is not None
        note = f"{_show_answer(judged.answer)} ({_took(judged)})" if judged.answer is not None else ""
        if named:
            self.result(what, judged, run, note)
        else:
            self.other_decisions += 1
            if self.slowest is None or _judged_time(judged) > _judged_time(self.slowest):
                self.slowest = judged
            if judged.problems:
                hint = judged.problems[0][1]
                self.other_failures[hint] = self.other_failures.get(hint, 0) + 1
                if hint in self.causes:  # counted, not shown again
                    self.causes[hint] = (self.causes[hint][0], self.causes[hint][1] + 1)
                else:
                    self.result(what, judged, run)
        return action

    def unknown_result(self, run: Run, judged: Judged) -> None:
        """Judge the unknown message and field by the answer to the request after them.

        Only what they caused counts: a bot whose answers all come with a debug line fails that request's check,
        not this one. When the request before was not answered either, this check cannot tell anything.
        """
        name = self.name("unknown message type and fields ignored")
        tag = str(UNKNOWN_MESSAGE["type"]).encode()
        answered_it = [line for line in judged.stray if tag in line]
        if answered_it:
            shown = clip(answered_it[0].decode("utf-8", "replace"))
            problem = f"your bot answered a message of a type it does not know: {shown}"
        elif judged.answer is None and judged.answered_malformed:
            # It read past both and answered the request, by its id: what was wrong with that answer is the
            # request's own check's to report (with the hint that fits it), not this one's.
            self.emit(CheckResult(name, "PASS", "the request after them was answered (its own check judges how)"))
            return
        elif judged.answer is None and self.last_answered:
            reason = judged.problems[0][0] if judged.problems else "no answer"
            problem = (
                f"the request right after a message of an unknown type (itself with an unknown field) failed: {reason}"
            )
        elif judged.answer is None:
            self.emit(CheckResult(name, "SKIP", "cannot tell: the request before was not answered either"))
            return
        else:
            self.emit(CheckResult(name, "PASS"))
            return
        self.emit(CheckResult(name, "FAIL", problem, HINT_UNKNOWN, judged.exchange, run.stderr_tail()))

    def finish(self, run: Run) -> None:
        """The game is over: the results are queued; then bye, and the bot must exit."""
        run.seat.queue(m.ByeEvent(reason="match_over"))
        extra, status = run.finish()
        events = self.name(EVENTS_CHECK)
        self.event_answers += [line.encode() for line in extra if _answers_event_after_game(line)]
        other = [line for line in extra if not _answers_event_after_game(line)]
        if other:
            self.emit(
                CheckResult(
                    events,
                    "FAIL",
                    f"after the last events and bye, your bot wrote {len(other)} line(s), first: {clip(other[0])}",
                    HINT_EVENTS,
                    run.exchange(),
                    run.stderr_tail(),
                )
            )
        elif self.event_answers:
            count = len(self.event_answers)
            first = clip(self.event_answers[0].decode("utf-8", "replace"))
            detail = (
                f"your bot answered {count} event(s), first: {first}; no answer is wanted (only a message with an "
                '"id" is a request). A match ignores such a line, so nothing counts against your bot, but writing it '
                "costs time"
            )
            self.emit(CheckResult(events, "NOTE", detail))
        else:
            self.emit(CheckResult(events, "PASS", "none answered, the error event included"))
        self.exit_result(run, self.name("exits on bye"), status, HINT_BYE, "bye")

    def exit_result(self, run: Run, name: str, status: int | None, hint: str, after: str) -> None:
        if status is None:
            problem = f"still running {self.options.exit_ms} ms after {after}"
            self.emit(CheckResult(name, "FAIL", problem, hint, run.exchange(), run.stderr_tail()))
        elif status != 0:
            problem = f"exited with status {status}"
            self.emit(CheckResult(name, "FAIL", problem, HINT_STATUS, run.exchange(), run.stderr_tail()))
        else:
            self.emit(CheckResult(name, "PASS", "exit status 0"))

    def end_of_input(self) -> None:
        """A second run of the bot: hello, then stdin closes; the bot must exit."""
        name = "end of input: exits when stdin closes"
        run = self._start(f"{self.game}.eof", name)
        if run is None:
            return
        try:
            if run.ask(self.hello(run), startup=True).answer is None:
                self.emit(CheckResult(name, "SKIP", "not run: no answer to hello"))
                return
            run.seat.close_input(self.options.exit_ms / 1000)
            _extra, status = run.finish()
            self.exit_result(run, name, status, HINT_EOF, "its stdin was closed")
        finally:
            run.stop()


def _answers_event_after_game(line: str) -> bool:
    """Whether a line written after the last request answers an event: it has an event's type, or an id (every
    request is answered by then, so any id is an old one: a match ignores it)."""
    try:
        codec.decode_bot_line(line.encode("utf-8", "replace"))
    except codec.ProtocolError as error:
        return error.message_type in m.EVENT_TYPES or error.message_id is not None
    return True


def _process_starter(options: CheckOptions, log_dir: Path, fair: FairPlaySetup) -> StartBot:
    """Start the bot as a match does (`referee.seating.start_bot`): in a private working directory, with the
    built environment (PATH, LANG, LC_ALL, its own HOME and TMPDIR), not the user's, under the match's limits
    and sandbox. A bot that passed only because the user's shell set PYTHONUNBUFFERED, because it opened a file
    relative to the user's directory, or because nothing limited its memory, would otherwise pass here and fail
    its first match."""

    limits = fair.resource_limits(games=1)

    def start(label: str) -> Transport:
        return start_bot(
            options.isolation, options.argv, user_cwd=options.cwd, name=label, out_dir=log_dir, fair=fair, limits=limits
        )

    return start


def check_bot(
    options: CheckOptions,
    emit: Callable[[CheckResult], None] | None = None,
    start: StartBot | None = None,
) -> CheckReport:
    """Run every check on the bot ``options.argv``; ``emit`` gets each result as soon as it is known.

    ``start`` replaces starting the bot as a process (protocol-level tests give a scripted fake transport).
    """
    report = CheckReport(options.argv, options.games)

    def record(result: CheckResult) -> None:
        report.results.append(result)
        if emit is not None:
            emit(result)

    if start is None:
        options.isolation.check_here()  # a SandboxError: bubblewrap is missing or forbidden here, said once
    # A scripted transport (start given) has no process to put in a group.
    isolation = options.isolation if start is None else msgspec.structs.replace(options.isolation, fair_play="none")
    fair = FairPlaySetup.open(isolation)
    try:
        with tempfile.TemporaryDirectory(prefix="kierki-check-") as tmp:
            starter = start if start is not None else _process_starter(options, Path(tmp), fair)
            freeze = fair.freezes
            handshake_ok = True
            for index, game in enumerate(options.games):
                if not _GameCheck(options, game, starter, record, freeze).run():
                    handshake_ok = False
                    for rest in options.games[index + 1 :]:
                        record(CheckResult(f"{rest}: all checks", "SKIP", _NOT_STARTED))
                    break
            if handshake_ok:
                _GameCheck(options, options.games[0], starter, record, freeze).end_of_input()
            else:
                record(CheckResult("end of input: exits when stdin closes", "SKIP", _NOT_STARTED))
    finally:
        fair.close()
    return report
