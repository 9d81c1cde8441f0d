"""``protocol.bot``, the Python bot library: its loop, its defaults (the referee's own fallbacks), what it does with
a decision method that raises or returns what the request does not allow, and its example bot as a real process
(check-bot, a match)."""

from __future__ import annotations

import io
import random
import re
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from rules_helpers import cards, names, new_state, random_action

from kierki_cli.main import cli
from protocol import codec
from protocol import messages as m
from protocol.bot import Bot, card_order, run
from referee import wire, wire_requests
from referee.bots.time_control import TimeControl
from referee.match import run_match
from referee.match_config import BotSpec, MatchConfig, MatchSpec, RulesetSpec, sample_bot_command
from referee.rules import GameState, Phase, Ruleset

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "library_bot.py"


def answers(bot: Bot, lines: list[bytes]) -> list[m.Answer]:
    """What ``run`` writes for ``lines``, decoded (one answer per line, each flushed as written)."""
    out = io.BytesIO()
    run(bot, stdin=io.BytesIO(b"".join(lines)), stdout=out)
    return [codec.decode_bot_line(line) for line in out.getvalue().splitlines()]


def hello_line(game: m.GameName = "hearts") -> bytes:
    ruleset = Ruleset.create(game)
    time = m.TimeControl(move_ms=1000, startup_ms=1000, bank_ms=0, increment_ms=0)
    hello = m.HelloRequest(
        id=1,
        protocol=codec.PROTOCOL_VERSION,
        game=game,
        players=4,
        seat=0,
        options=ruleset.options(),
        time=time,
        games=1,
    )
    return codec.encode(hello)


def first_play_line(game: str = "hearts") -> tuple[GameState, bytes]:
    state = GameState(Ruleset.create(game, None, {"passing": "none"} if game == "hearts" else None), seed=3)
    while state.phase is not Phase.PLAY:
        state.apply(state.fallback_action())
    return state, wire_requests.request_line_for(state, 7, 1, 1000)[1]


# --- the defaults are the referee's fallbacks, in every situation of every game ---------------------------------


@pytest.mark.parametrize(
    ("game", "players", "options"),
    [
        ("kierki", None, {}),
        ("kierki3", None, {"allow_no_trump": True}),
        ("hearts", None, {"target": 40}),
        ("cancellation", 7, {"target": 30}),
    ],
)
def test_the_default_answer_of_every_request_is_the_referees_fallback(
    game: str, players: int | None, options: dict[str, object]
) -> None:
    state = GameState(Ruleset.create(game, players, options), seed=5)
    rng = random.Random(5)
    asked = 0
    while not state.is_over:
        request, line = wire_requests.request_line_for(state, asked + 2, 1, 1000)
        (answer,) = answers(Bot(), [line])
        assert answer == wire.to_answer(state.fallback_action(), request.id)
        asked += 1
        state.apply(random_action(state, rng))
    assert asked > 200


def moon_state(options: dict[str, object]) -> GameState:
    """A Hearts game at seat 0's moon request, the totals before it 40, 20, 10, 5."""
    top = cards("S:AKQ C:AKQJT D:AKQJT")  # seat 0 takes every trick when the fallback plays
    rest = [c for c in range(52) if c not in top]
    hands = [names(top), *(names(rest[i : i + 13]) for i in (0, 13, 26))]
    state = new_state("hearts", hands, options={"passing": "none", **options})
    state.totals = [40, 20, 10, 5]  # "others" then ends a game to 45 with seat 0, the shooter, not lowest
    while state.phase is not Phase.MOON:
        state.apply(state.fallback_action())
    return state


@pytest.mark.parametrize(
    ("moon_default", "target", "choice"),
    [("others", 45, "others"), ("self", 45, "self"), ("safety", 45, "self"), ("safety", 100, "others")],
)
def test_the_default_moon_choice_follows_the_moon_default_option(
    moon_default: str, target: int, choice: m.MoonChoice
) -> None:
    state = moon_state({"moon_default": moon_default, "target": target})
    (answer,) = answers(Bot(), [wire_requests.request_line_for(state, 9, 1, 1000)[1]])
    assert answer == wire.to_answer(state.fallback_action(), 9) == m.MoonAnswer(id=9, choice=choice)


def test_card_order_is_the_referees_card_ids() -> None:
    every = [names([card]) for card in range(52)]
    assert sorted(every, key=card_order) == every


# --- the loop ------------------------------------------------------------------------------------------------


class Recorder(Bot):
    name = "recorder"
    version = "2.5"

    def __init__(self) -> None:
        self.seen: list[str] = []

    def on_hello(self, request: m.HelloRequest) -> None:
        self.seen.append(f"hello:{request.game}")

    def on_event(self, message: m.Event) -> None:
        self.seen.append(type(message).__name__)


def test_hello_is_answered_with_the_bots_name_and_hooks_see_every_known_message() -> None:
    bot = Recorder()
    _, play = first_play_line()
    lines = [
        hello_line(),
        b"\n",
        b'{"type": "x_future_event", "data": [1]}\n',  # a later protocol's type: ignored
        b'{"type": "game_start", "game_number": 1, "players": 4, "seat": 0, "dealer": 3, "x_new": true}\n',
        play,
        b'{"type": "bye", "reason": "match_over"}\n',
        play,  # after bye: never read
    ]
    got = answers(bot, lines)
    assert got[0] == m.HelloAnswer(id=1, name="recorder", version="2.5", protocol=codec.PROTOCOL_VERSION)
    assert isinstance(got[1], m.PlayAnswer) and got[1].id == 7
    assert len(got) == 2
    assert bot.seen == ["hello:hearts", "GameStartEvent", "ByeEvent"]


def test_text_streams_work_and_end_of_input_ends_the_loop() -> None:
    _, play = first_play_line("kierki")
    out = io.StringIO()
    run(Bot(), stdin=io.StringIO(play.decode()), stdout=out)
    (answer,) = [codec.decode_bot_line(line.encode()) for line in out.getvalue().splitlines()]
    assert isinstance(answer, m.PlayAnswer) and answer.id == 7


def test_a_referee_error_and_an_unreadable_line_are_reported_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    error = m.ErrorEvent(
        request_id=4, code="timeout", message="no answer within 1000 ms", fallback=None, strikes=1, forfeited=False
    )
    old_form = codec.encode(error.in_protocol(1))  # as a protocol-1 referee writes it: answered no more than the other
    lines = [codec.encode(error), old_form, b'{"type": "play", "id": "x"}\n', b"not json\n"]
    assert answers(Bot(), lines) == []
    err = capsys.readouterr().err
    assert err.count("python-bot: the referee reports timeout on request 4: no answer within 1000 ms") == 2
    assert err.count("cannot read a line from the referee") == 2


def test_the_library_answers_hello_with_the_newest_version_the_referee_speaks() -> None:
    newest = m.HelloAnswer(id=1, name="python-bot", version="0", protocol=codec.PROTOCOL_VERSION)
    assert answers(Bot(), [hello_line()]) == [newest]
    older = hello_line().replace(f'"protocol":{codec.PROTOCOL_VERSION}'.encode(), b'"protocol":1')
    assert older != hello_line()
    assert answers(Bot(), [older]) == [m.HelloAnswer(id=1, name="python-bot", version="0", protocol=1)]


class Raising(Bot):
    name = "raising"

    def play(self, request: m.PlayRequest) -> str:
        raise ZeroDivisionError("a bug in play")

    def on_event(self, message: m.Event) -> None:
        raise KeyError("a bug in on_event")


def test_a_decision_that_raises_is_logged_with_its_traceback_and_answered_by_the_default(
    capsys: pytest.CaptureFixture[str],
) -> None:
    state, play = first_play_line()
    got = answers(
        Raising(),
        [b'{"type": "trick", "game_number": 1, "deal": 1, "number": 1, "leader": 0, "cards": [], "winner": 0}\n', play],
    )
    assert got == [wire.to_answer(state.fallback_action(), 7)]
    err = capsys.readouterr().err
    assert "raising: Raising.play on request 7 (game 1, deal 1) raised; answered the default '2C':" in err
    assert "Traceback" in err and "ZeroDivisionError: a bug in play" in err
    assert "Raising.on_event raised, ignored" in err and "KeyError: 'a bug in on_event'" in err


class Wrong(Bot):
    """Every decision returns something the request does not allow."""

    name = "wrong"

    def __init__(self, play: object, passed: object = None, trump: object = "X", moon: object = "me") -> None:
        self.values = {"play": play, "pass": passed, "trump": trump, "moon": moon}

    def play(self, request: m.PlayRequest) -> str:
        return self.values["play"]  # type: ignore[return-value]

    def pass_cards(self, request: m.PassRequest) -> list[str]:
        return self.values["pass"]  # type: ignore[return-value]

    def trump(self, request: m.TrumpRequest) -> str | None:
        return self.values["trump"]  # type: ignore[return-value]

    def moon(self, request: m.MoonRequest) -> str:
        return self.values["moon"]  # type: ignore[return-value]


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("QH", r"returned 'QH', not in request\.legal \(2C\); answered the default '2C'"),
        (43, r"returned 43, not a card name: return one of request\.legal, such as '2C'"),
        (None, r"returned None, not a card name"),
    ],
)
def test_an_illegal_card_gets_a_clear_line_and_the_default(
    value: object, says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    state, play = first_play_line()
    assert answers(Wrong(value), [play]) == [wire.to_answer(state.fallback_action(), 7)]
    assert re.search(r"^wrong: Wrong\.play on request 7 \(game 1, deal 1\) " + says, capsys.readouterr().err, re.M)


def test_illegal_passes_trumps_and_moon_choices_get_a_clear_line_and_the_default(
    capsys: pytest.CaptureFixture[str],
) -> None:
    hearts = GameState(Ruleset.create("hearts"), seed=3)
    pass_line = wire_requests.request_line_for(hearts, 3, 1, 1000)[1]
    kierki = GameState(Ruleset.create("kierki"), seed=3)
    while kierki.phase is not Phase.TRUMP:
        kierki.apply(kierki.fallback_action())
    trump_line = wire_requests.request_line_for(kierki, 4, 1, 1000)[1]
    moon = moon_state({"target": 45})
    moon_line = wire_requests.request_line_for(moon, 5, 1, 1000)[1]
    for bot, line, says in [
        (Wrong("2C", moon="me"), moon_line, 'returned \'me\', neither "self" nor "others"; answered the default'),
        (Wrong("2C", passed=["2C"]), pass_line, "1 cards, not 3"),
        (Wrong("2C", passed=("ZZ", "YY", "XX")), pass_line, "not in request.hand: XX YY ZZ"),
        (Wrong("2C", passed="QS KS AS"), pass_line, "not a list of card names: return 3 cards of request.hand"),
        (Wrong("2C", trump=None), trump_line, "None (no trump) is not offered: choose one of C D H S"),
        (Wrong("2C", trump="spades"), trump_line, "not one of request.choices (C D H S; None for no trump"),
    ]:
        (answer,) = answers(bot, [line])
        state = {pass_line: hearts, trump_line: kierki, moon_line: moon}[line]
        assert answer == wire.to_answer(state.fallback_action(), answer.id)
        assert says in capsys.readouterr().err


# --- the example bot, as a real process ----------------------------------------------------------------------


def test_the_example_bot_is_the_one_protocol_md_shows() -> None:
    text = (ROOT / "PROTOCOL.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```python\n(.*?)^```$", text, flags=re.S | re.M)
    assert EXAMPLE.read_text(encoding="utf-8") in blocks


def test_the_example_bot_passes_check_bot() -> None:
    result = CliRunner().invoke(cli, ["check-bot", "--", sys.executable, str(EXAMPLE)])
    assert result.exit_code == 0, result.output
    assert re.search(r"OK: \d+ passed, 0 failed", result.output)


RAISING_BOT = """
from protocol.bot import Bot, run


class Buggy(Bot):
    name = "buggy"

    def play(self, request):
        if len(request.hand) % 2:
            raise RuntimeError("odd hands confuse me")
        return request.legal[-1]


run(Buggy())
"""


def test_the_example_and_a_raising_bot_play_a_match_without_a_fault(tmp_path: Path) -> None:
    buggy = tmp_path / "buggy.py"
    buggy.write_text(RAISING_BOT, encoding="utf-8")
    ruleset = Ruleset.create("hearts", None, {"target": 30})
    config = MatchConfig.from_spec(
        MatchSpec(
            rules=RulesetSpec.of(ruleset),
            bots=(
                BotSpec((sys.executable, str(EXAMPLE))),
                BotSpec((sys.executable, str(buggy))),
                sample_bot_command("heuristic_bot"),
                sample_bot_command("random_bot"),
            ),
            seed="12",
            time=TimeControl(move_ms=5000, startup_ms=20_000),
        ),
        tmp_path / "out",
    )
    result = run_match(config)
    assert result.status == "complete"
    assert [seat.name for seat in result.seats[:2]] == ["discarder", "buggy"]
    for seat in result.seats:
        assert seat.faults == {} and seat.strikes == 0, (seat.seat, seat.faults)
    log = (tmp_path / "out" / "seat1.stderr.log").read_text()
    assert "buggy: Buggy.play on request" in log and "RuntimeError: odd hands confuse me" in log
    assert "Traceback" not in (tmp_path / "out" / "seat0.stderr.log").read_text()
