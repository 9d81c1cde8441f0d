"""check-bot driven through scripted fake bots: no process, no clock, the same seat and loop as a match.

Each test scripts one mistake and checks that the check names it, with its hint; `tests/test_checkbot.py` runs the
same checks against real processes (the starter bots and the broken ones in tests/bots/).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from fake_transport import Script, ScriptedBot, answer_line, first_legal

from kierki_cli.checkbot_cmd import format_result
from protocol import messages as m
from referee.bots.time_control import TimeControl
from referee.checkbot import (
    ALL_GAMES,
    HINT_CRASH,
    HINT_DEBUG,
    HINT_FLUSH,
    HINT_ID,
    HINT_MULTILINE,
    HINT_SLOW,
    HINT_TYPE,
    CheckOptions,
    CheckReport,
    CheckResult,
    check_bot,
    scenario,
)
from referee.checkbot.judge import Judged, Run
from referee.checkbot.report import EVENTS_CHECK
from referee.checkbot.scenarios import UNKNOWN_MESSAGE


def run_scripted(
    script: Script = first_legal, games: tuple[str, ...] = ALL_GAMES, move_ms: int = 1000, **knobs: Any
) -> tuple[CheckReport, list[ScriptedBot]]:
    """Run the whole check on a fresh scripted bot per start (one per game, one for end of input)."""
    bots: list[ScriptedBot] = []

    def start(label: str) -> ScriptedBot:
        bots.append(ScriptedBot(script, tolerant=True, **knobs))
        return bots[-1]

    options = CheckOptions(("scripted-bot",), games, TimeControl(move_ms=move_ms))
    return check_bot(options, start=start), bots


def failed(report: CheckReport) -> list[CheckResult]:
    return [r for r in report.results if r.status == "FAIL"]


def on_play(change: Callable[[m.PlayRequest], list[bytes]]) -> Script:
    """A bot that answers everything well except play requests."""

    def script(request: m.Request) -> list[bytes]:
        return change(request) if isinstance(request, m.PlayRequest) else first_legal(request)

    return script


def test_a_correct_bot_passes_every_check_of_every_game() -> None:
    report, bots = run_scripted()
    assert report.ok and not failed(report), "\n".join(format_result(r) for r in failed(report))
    assert {r.status for r in report.results} == {"PASS"}
    for game in ALL_GAMES:
        names = [r.name for r in report.results if r.name.startswith(f"{game}:")]
        assert f"{game}: handshake (hello)" in names
        assert f"{game}: unknown message type and fields ignored" in names
        assert f"{game}: events (error included) need no answer" in names
        assert f"{game}: exits on bye" in names
        checkpoints = len(scenario(game).checkpoints)
        asked = [n for n in names if n.split(": ", 1)[1].startswith(("play", "pass", "trump", "moon"))]
        assert len(asked) == checkpoints
    assert report.results[-1].name == "end of input: exits when stdin closes"
    assert len(bots) == len(ALL_GAMES) + 1  # one start per game, one for end of input
    for bot in bots[:-1]:  # every game: the unknown message arrived (and was ignored), the game ended, then bye
        assert [line for line in bot.undecodable if str(UNKNOWN_MESSAGE["type"]).encode() in line]
        assert bot.of_type(m.GameEndEvent) and isinstance(bot.received[-1], m.ByeEvent)
        assert bot.returncode == 0 and not bot.input_closed
    assert bots[-1].input_closed and [type(r) for r in bots[-1].received] == [m.HelloRequest]


def test_an_answer_with_a_wrong_id_fails_with_the_ids_named() -> None:
    report, _ = run_scripted(
        on_play(lambda r: [answer_line(m.PlayAnswer(id=r.id + 100, card=r.legal[0]))]), ("hearts",)
    )
    plays = [r for r in failed(report) if r.name.startswith("hearts: play")]
    assert plays
    first = plays[0]
    assert re.fullmatch(
        r"your bot answered with id (\d+); the request's id is (\d+) \(and 1 more problem: no valid answer within "
        r"1000 ms\)",
        first.detail,
    ), first.detail
    assert first.hint == HINT_ID
    assert first.exchange[-1].startswith('<- {"type":"play","id":')
    assert 'hint: copy the request\'s "id" into your answer' in format_result(first)
    for again in plays[1:]:  # the same cause: named once in full, then counted
        assert "(the cause reported at " in again.detail and not again.exchange and not again.hint
    # three timeouts and the bot is no longer asked, as a match forfeits it: the rest is skipped, not waited for
    assert any(r.status == "SKIP" and "timed out 3 times" in r.detail for r in report.results)


def test_a_repeated_cause_is_reported_once_with_a_count() -> None:
    """One debug print before every play answer: one full FAIL block, then one short line per named situation,
    and the other decisions in one line with their count."""
    report, _ = run_scripted(
        on_play(lambda r: [b"thinking about " + r.legal[0].encode(), *first_legal(r)]), ("kierki",)
    )
    plays = [r for r in report.results if r.name.startswith("kierki: play")]
    assert len(plays) == 4 and all(r.status == "FAIL" for r in plays)
    assert plays[0].hint == HINT_DEBUG and plays[0].exchange
    assert "not valid JSON" in plays[0].detail and "thinking about" in plays[0].detail
    for again in plays[1:]:
        assert re.search(r'\(the cause reported at "play, [^"]*", \d+ times in this game so far\)$', again.detail)
        assert not again.hint and not again.exchange and not again.stderr
    (others,) = [r for r in report.results if "more decision(s)" in r.name]
    assert others.status == "FAIL"
    count = int(others.name.split(": ", 1)[1].split()[0])
    assert count > 100  # every turn of the game is asked
    assert re.fullmatch(rf'{count} of them failed: {count} with the cause reported at "play, .*"', others.detail)
    printed = "\n".join(format_result(r) for r in report.results)
    assert printed.count("hint: ") == 1  # the cause is explained once
    assert len(printed.splitlines()) < 40


def test_a_debug_line_before_the_answer_fails_but_the_answer_still_counts() -> None:
    report, _ = run_scripted(
        on_play(lambda r: [b"thinking about " + r.legal[0].encode(), *first_legal(r)]), ("kierki",)
    )
    plays = [r for r in report.results if r.name.startswith("kierki: play")]
    assert plays and all(r.status == "FAIL" for r in plays)
    assert "not valid JSON" in plays[0].detail and "thinking about" in plays[0].detail
    assert plays[0].hint == HINT_DEBUG
    assert any(line.startswith("<- thinking about") for line in plays[0].exchange)
    by_name = {r.name: r for r in report.results}
    assert by_name["kierki: handshake (hello)"].status == "PASS"
    assert by_name["kierki: unknown message type and fields ignored"].status == "PASS"  # its answer came after all
    assert by_name["kierki: exits on bye"].status == "PASS"


def test_a_pretty_printed_answer_is_named_as_spread_over_lines() -> None:
    """jq without -c (or json.dumps with indent) writes one answer over several lines: not a debug print."""

    def pretty(request: m.Request) -> list[bytes]:
        (line,) = first_legal(request)
        return json.dumps(json.loads(line), indent=2).encode().splitlines()

    report, _ = run_scripted(pretty, ("hearts",))
    (handshake,) = [r for r in report.results if r.name == "hearts: handshake (hello)"]
    assert handshake.status == "FAIL" and handshake.hint == HINT_MULTILINE, format_result(handshake)
    report, _ = run_scripted(on_play(lambda r: [b"{debug}", *first_legal(r)]), ("hearts",))
    assert next(r for r in report.results if r.name.startswith("hearts: play")).hint == HINT_DEBUG


def test_an_illegal_card_fails_with_the_rule_named() -> None:
    def outside_legal(request: m.PlayRequest) -> list[bytes]:
        outside = sorted(set(request.hand) - set(request.legal))
        card = outside[0] if outside else request.legal[0]
        return [answer_line(m.PlayAnswer(id=request.id, card=card))]

    report, _ = run_scripted(on_play(outside_legal), ("kierki",))
    following = next(r for r in report.results if r.name.startswith("kierki: play") and "following" in r.name)
    assert following.status == "FAIL"
    assert following.detail.startswith('illegal answer {"type":"play"') and "[rule: follow-suit]" in following.detail
    assert "legal" in following.hint


def test_a_wrong_answer_type_is_named() -> None:
    report, _ = run_scripted(on_play(lambda r: [answer_line(m.MoonAnswer(id=r.id, choice="self"))]), ("cancellation",))
    play = next(r for r in failed(report) if r.name.startswith("cancellation: play"))
    assert re.fullmatch(r'request \d+ asked for a "play" answer, your bot sent "moon"', play.detail)
    assert play.hint == HINT_TYPE


def test_an_unflushed_bot_is_told_to_flush() -> None:
    report, bots = run_scripted(games=("hearts",), flushes=False)
    handshake = report.results[0]
    assert handshake.name == "hearts: handshake (hello)" and handshake.status == "FAIL"
    assert handshake.detail.endswith(
        "your answer arrived only when input closed: you are not flushing stdout after each line"
    )
    assert handshake.hint == HINT_FLUSH
    assert handshake.exchange[-2:][0] == "-> (end of input: the check closed the bot's stdin)"
    assert handshake.exchange[-1].startswith('<- {"type":"hello"')
    assert bots[0].input_closed
    assert [r.status for r in report.results[1:]] == ["SKIP"] * (len(report.results) - 1)


def test_a_slow_answer_is_reported_as_slow() -> None:
    report, bots = run_scripted(games=("kierki",), answers_late=True)
    handshake = report.results[0]
    assert handshake.status == "FAIL"
    assert re.fullmatch(r"the answer came after \d+ ms; the limit is 5000 ms", handshake.detail)
    assert handshake.hint == HINT_SLOW
    assert not bots[0].input_closed  # a slow bot is not taken for one that never flushes


def test_a_bot_that_exits_mid_game_is_a_crash_and_the_rest_is_skipped() -> None:
    def exits_at_the_moon(request: m.Request) -> list[bytes]:
        if isinstance(request, m.MoonRequest):
            raise SystemExit
        return first_legal(request)

    report, _ = run_scripted(exits_at_the_moon, ("hearts",))
    (crash,) = failed(report)
    assert crash.name.startswith("hearts: moon")
    assert crash.detail == "the bot exited (exit status 0) instead of answering"
    assert crash.hint == HINT_CRASH
    skipped = {r.name for r in report.results if r.status == "SKIP"}
    assert {"hearts: exits on bye", "hearts: events (error included) need no answer"} <= skipped


def test_a_bot_that_ignores_bye_fails_that_check_only() -> None:
    report, _ = run_scripted(games=("kierki3",), ignores_bye=True)
    assert [(r.name, r.detail) for r in failed(report)] == [
        ("kierki3: exits on bye", "still running 1000 ms after bye")
    ]
    assert failed(report)[0].exchange[-1].startswith('-> {"type":"bye"')


def test_bot_text_is_printed_with_control_characters_escaped() -> None:
    def hostile_name(request: m.Request) -> list[bytes]:
        if isinstance(request, m.HelloRequest):
            return [answer_line(m.HelloAnswer(id=request.id, name="\x1b[2J\x1b]0;owned\x07", version="1", protocol=1))]
        return [b"\x1b[31mred\x1b[0m \xe2\x80\xae debug"]  # a debug line with ANSI codes and a bidi override

    report, _ = run_scripted(hostile_name, ("hearts",), stderr=b"trace \x1b[5m blink\n")
    printed = "\n".join(format_result(r) for r in report.results)
    assert "\x1b" not in printed and "\x07" not in printed and "\u202e" not in printed
    assert '"\\x1b[2J\\x1b]0;owned\\x07" version "1"' in printed
    assert "<- \\x1b[31mred\\x1b[0m \\u202e debug" in printed
    assert "trace \\x1b[5m blink" in printed


def test_a_bot_that_takes_27_ms_per_message_passes_with_the_default_time() -> None:
    """It is asked on every turn, as in a match, so it never gets whole deals of events before one request: at
    27 ms a message (a bot that starts a process per line) it reads what comes with each request in time."""
    report, bots = run_scripted(ms_per_message=27)
    assert report.ok and not failed(report), "\n".join(format_result(r) for r in failed(report))
    for bot in bots[:-1]:
        assert 0 < bot.longest_burst * 27 < 1000  # the most lines in one write, each read at 27 ms


def test_messages_still_unread_at_the_deadline_are_counted() -> None:
    report, _ = run_scripted(games=("hearts",), move_ms=60, ms_per_message=27)
    pattern = re.compile(r"your bot had (\d+) earlier messages? still to read when the deadline passed")
    slow = [r for r in failed(report) if pattern.search(r.detail)]
    assert slow, "\n".join(format_result(r) for r in failed(report))
    assert any(r.hint == HINT_SLOW for r in failed(report))


def test_players_and_options_set_the_checked_game_as_in_a_match() -> None:
    bots: list[ScriptedBot] = []

    def start(label: str) -> ScriptedBot:
        bots.append(ScriptedBot(first_legal, tolerant=True))
        return bots[-1]

    options = CheckOptions(("scripted-bot",), ("cancellation",), players=7, rule_options={"target": "60"})
    report = check_bot(options, start=start)
    assert report.ok, "\n".join(format_result(r) for r in failed(report))
    (hello,) = bots[0].of_type(m.HelloRequest)
    assert hello.players == 7 and hello.options["target"] == 60
    assert len(bots[0].of_type(m.PassRequest)[0].hand) == 14  # 104 cards among 7
    named = [r.name for r in report.results if r.name.startswith("cancellation: play")]
    assert any("kitty trick" in name for name in named)
    # With 7 players no trick goes without a winner in this game: the report names what it could not check.
    (skipped,) = [r.name for r in report.results if r.status == "SKIP"]
    assert skipped == "cancellation: 1 situation(s) not reached (the turn after a trick nobody won)"


# --- one rule for requests and events; the clock; a malformed answer --------------------------------------------


def speaking(protocol: int, script: Script = first_legal) -> Script:
    """``script``, answering hello with ``protocol``."""

    def speaks(request: m.Request) -> list[bytes]:
        if isinstance(request, m.HelloRequest):
            return [answer_line(m.HelloAnswer(id=request.id, name="scripted", version="1", protocol=protocol))]
        return script(request)

    return speaks


def sent_errors(bot: ScriptedBot) -> list[dict[str, Any]]:
    """The error events the check wrote to ``bot``, as on the wire."""
    lines = [json.loads(line) for write in bot.writes for line in write.splitlines()]
    return [line for line in lines if line["type"] == "error"]


@pytest.mark.parametrize(("protocol", "named_by", "absent"), [(1, "id", "request_id"), (2, "request_id", "id")])
def test_each_game_sends_an_error_event_in_the_bots_protocol_which_a_correct_bot_leaves_unanswered(
    protocol: int, named_by: str, absent: str
) -> None:
    report, bots = run_scripted(speaking(protocol), ("kierki", "hearts"))
    assert report.ok and {r.status for r in report.results} == {"PASS"}
    for game, bot in zip(("kierki", "hearts"), bots, strict=False):
        (error,) = sent_errors(bot)
        assert absent not in error and error[named_by] > 1  # it names a decision request
        (events,) = [r for r in report.results if r.name == f"{game}: {EVENTS_CHECK}"]
        assert events.detail == "none answered, the error event included"
    handshake = next(r for r in report.results if r.name == "kierki: handshake (hello)")
    assert ("served as protocol 1" in handshake.detail) == (protocol == 1)


def answering_events(protocol: int) -> type[ScriptedBot]:
    """A bot that answers every message with an "id" (as protocol 1's rule said: a play naming the error event's id),
    or, speaking protocol 2, every error event with a line of its type: the lines go out before its next answer."""

    class AnswersEvents(ScriptedBot):
        def send(self, data: bytes) -> None:
            for line in data.splitlines():
                message = json.loads(line)
                if message["type"] == "error":
                    echo = (
                        {"type": "error", "ok": 1}
                        if protocol == 2
                        else {"type": "play", "id": message["id"], "card": "2C"}
                    )
                    self._answers.append(json.dumps(echo).encode())
            super().send(data)

    return AnswersEvents


@pytest.mark.parametrize("protocol", [1, 2])
def test_a_bot_that_answers_the_error_event_is_told_no_answer_is_wanted_and_nothing_counts(protocol: int) -> None:
    bots: list[ScriptedBot] = []

    def start(label: str) -> ScriptedBot:
        bots.append(answering_events(protocol)(speaking(protocol), tolerant=True))
        return bots[-1]

    report = check_bot(CheckOptions(("scripted-bot",), ("hearts",), TimeControl()), start=start)
    assert report.ok and not failed(report), "\n".join(format_result(r) for r in failed(report))
    (note,) = [r for r in report.results if r.status == "NOTE"]
    assert note.name == f"hearts: {EVENTS_CHECK}"
    assert note.detail.startswith("your bot answered 1 event(s), first: {")
    assert "no answer is wanted" in note.detail and "nothing counts against your bot" in note.detail
    assert format_result(note).startswith(f"NOTE  hearts: {EVENTS_CHECK}: your bot answered 1 event(s)")


@pytest.mark.parametrize(
    ("bad", "hint"),
    [
        (lambda r: {"type": "play", "id": r.id, "card": r.legal[0], "note": "x"}, 'A "play" answer has exactly'),
        (lambda r: {"type": "play", "id": r.id, "card": r.legal[0].lower()}, "Write cards in capital letters"),
    ],
    ids=["extra field", "small letters"],
)
def test_a_malformed_answer_is_reported_once_at_its_own_check_with_its_hint(
    bad: Callable[[m.PlayRequest], dict[str, Any]], hint: str
) -> None:
    """Hearts: the pass answers well, then every play is malformed: the first play's check says so with the hint that
    fits; the check of the unknown message (sent before that play) does not blame it; no request waits its deadline."""
    report, _ = run_scripted(on_play(lambda r: [json.dumps(bad(r)).encode()]), ("hearts",))
    unknown = next(r for r in report.results if r.name == "hearts: unknown message type and fields ignored")
    assert unknown.status == "PASS"
    failures = failed(report)
    assert [r.hint for r in failures if r.hint] == [failures[0].hint] and failures[0].hint.startswith(hint)
    assert "more problem" not in failures[0].detail  # no "no valid answer within 1000 ms" after it
    assert not [r for r in report.results if r.status == "SKIP"]  # never taken for a bot that times out
    assert "more decision(s)" in failures[-1].name


def test_a_decision_in_time_on_cpu_but_not_on_the_wall_clock_is_noted_with_what_the_wall_clock_would_judge(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Under fair play the clock is the bot's CPU time; every play here takes 1500 ms of wall time and 2 ms of CPU."""
    ask = Run.ask

    def slow_on_the_wall(self: Run, request: m.Request, **kwargs: Any) -> Judged:
        judged = ask(self, request, **kwargs)
        if isinstance(request, m.PlayRequest):
            judged.elapsed_ms, judged.cpu_ms = 1500.0, 2.0
        elif not kwargs.get("startup"):
            judged.cpu_ms = judged.elapsed_ms
        return judged

    monkeypatch.setattr(Run, "ask", slow_on_the_wall)
    report, _ = run_scripted(games=("hearts",))
    assert report.ok
    (note,) = [r for r in report.results if r.status == "NOTE"]
    plays = len([r for r in report.results if r.name.startswith("hearts: play")])
    others = next(r for r in report.results if "more decision(s)" in r.name)
    count = int(re.search(r"(\d+) decision\(s\) were in time", note.detail).group(1))  # type: ignore[union-attr]
    assert count > plays  # the named plays and the others
    assert note.name == "hearts: the clock: CPU time, not wall time"
    assert "longer than 1000 ms on the wall clock (slowest 2.0 ms CPU, 1500.0 ms wall)" in note.detail
    assert "with --fair-play none, timed on the wall clock, they would have timed out" in note.detail
    assert others.detail.startswith("well-formed, legal, in time on its CPU time (slowest ")
