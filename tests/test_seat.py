"""The referee's side of the protocol, driven through scripted fake bots (no processes, no clock)."""

from __future__ import annotations

import json
import typing
from pathlib import Path

import pytest
from fake_transport import Script, ScriptedBot, answer_line, first_legal

from protocol import codec
from protocol import messages as m
from referee.bots.pipe_results import Flushed, LineResult, Timeout
from referee.bots.replies import Asked
from referee.bots.seat import BotSeat
from referee.bots.time_control import TimeControl
from referee.match import Match
from referee.match_config import BotSpec, MatchConfig, MatchSetupError, MatchSpec, RulesetSpec
from referee.rules import Ruleset


def play(
    tmp_path: Path, scripts: list[Script], game: str = "hearts", **options: object
) -> tuple[Match, list[ScriptedBot]]:
    ruleset = Ruleset.create(game, len(scripts), options or {"target": 30})
    bots = [ScriptedBot(script) for script in scripts]
    config = MatchConfig.from_spec(
        MatchSpec(rules=RulesetSpec.of(ruleset), bots=tuple(BotSpec(("scripted",)) for _ in scripts), seed=str(4)),
        tmp_path,
    )
    match = Match(config, transport_factory=lambda seat, spec: bots[seat])
    match.run()
    return match, bots


def test_handshake_hello_carries_game_seat_options_and_time(tmp_path: Path) -> None:
    _, bots = play(tmp_path, [first_legal] * 4)
    for seat, bot in enumerate(bots):
        hello = bot.received[0]
        assert isinstance(hello, m.HelloRequest)
        assert (hello.game, hello.players, hello.seat, hello.protocol) == ("hearts", 4, seat, codec.PROTOCOL_VERSION)
        assert hello.options["target"] == 30 and hello.options["qs_breaks_hearts"] is False
        assert hello.time.move_ms == 1000
        assert isinstance(bot.received[-1], m.ByeEvent) and bot.received[-1].reason == "match_over"
        assert bot.terminated


def test_request_ids_increase_and_events_ride_with_the_next_request(tmp_path: Path) -> None:
    _, bots = play(tmp_path, [first_legal] * 4)
    bot = bots[0]
    ids = [msg.id for msg in bot.received if isinstance(msg, m.PlayRequest | m.PassRequest)]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    # Every write that holds a request ends with it (the events before it were queued and flushed together with
    # it), and apart from the hello, the end-of-game flush and the bye, every write holds a request.
    with_request = [w for w in bot.writes if b'"id":' in w]
    for write in with_request:
        lines = write.splitlines()
        assert b'"id":' in lines[-1] and all(b'"id":' not in line for line in lines[:-1])
    assert len(with_request) == len(ids) + 1  # + hello
    assert len(bot.writes) == len(with_request) + 2  # + game_end flush, bye


def test_each_play_request_carries_what_a_stateless_bot_needs(tmp_path: Path) -> None:
    _, bots = play(tmp_path, [first_legal] * 4)
    for bot in bots:
        for request in bot.of_type(m.PlayRequest):
            assert isinstance(request, m.PlayRequest)
            assert set(request.legal) <= set(request.hand)
            assert request.trick is not None
            assert [t.number for t in request.tricks] == list(range(1, len(request.tricks) + 1))
            assert len(request.hand) == 13 - len(request.tricks) - 0  # one card per finished trick
            assert request.time_ms == 1000


def test_answer_to_an_older_request_is_ignored(tmp_path: Path) -> None:
    """Every answer is preceded by an answer to the previous id: those must never be taken."""
    previous: dict[str, int] = {"id": 0}

    def echo_old_then_answer(request: m.Request) -> list[bytes]:
        stale = b""
        if previous["id"] and not isinstance(request, m.HelloRequest):
            stale = answer_line(m.MoonAnswer(id=previous["id"], choice="self"))
        previous["id"] = request.id
        return [stale, *first_legal(request)]

    match, _ = play(tmp_path, [echo_old_then_answer, first_legal, first_legal, first_legal])
    assert match.results[0].faults == {}
    assert match.seats[0].stats.ignored_lines == match.seats[0].stats.decisions  # one stale line each


def test_an_answer_after_the_deadline_is_a_timeout_without_grace(tmp_path: Path) -> None:
    late = ScriptedBot(first_legal, answers_late=True)
    bots = [late, *(ScriptedBot() for _ in range(3))]
    config = MatchConfig.from_spec(
        MatchSpec(rules=RulesetSpec.of(Ruleset.create("hearts")), bots=(BotSpec(("x",)),) * 4, seed=str(4)), tmp_path
    )
    with pytest.raises(MatchSetupError, match="failed the handshake: no answer within 5000 ms"):
        Match(config, transport_factory=lambda seat, spec: bots[seat]).run()


def test_silence_is_a_timeout_with_a_fallback_an_error_notice_and_a_strike(tmp_path: Path) -> None:
    def silent_after_hello(request: m.Request) -> list[bytes]:
        return first_legal(request) if isinstance(request, m.HelloRequest) else []

    match, bots = play(tmp_path, [silent_after_hello, first_legal, first_legal, first_legal])
    result = match.results[0]
    assert result.faults == {"timeout": 3} and result.forfeited_in_game == 1
    errors = bots[0].of_type(m.ErrorEvent)
    assert [e.strikes for e in errors] == [1, 2, 3]
    assert [e.forfeited for e in errors] == [False, False, True]
    assert all(e.code == "timeout" and e.fallback is not None for e in errors)
    forfeited_bye = [msg for msg in bots[0].received if isinstance(msg, m.ByeEvent)]
    assert [b.reason for b in forfeited_bye] == ["forfeited"]
    for other in bots[1:]:
        assert other.of_type(m.ErrorEvent) == []
        assert other.of_type(m.GameEndEvent)


def speaking(protocol: int, script: Script) -> Script:
    """``script``, answering hello with ``protocol``."""

    def speaks(request: m.Request) -> list[bytes]:
        if isinstance(request, m.HelloRequest):
            return [answer_line(m.HelloAnswer(id=request.id, name="scripted", version="1", protocol=protocol))]
        return script(request)

    return speaks


def bad_cards(request: m.Request) -> list[bytes]:
    """A bot whose plays are all malformed: every one brings an error event."""
    if isinstance(request, m.PlayRequest):
        return [answer_line(m.PlayAnswer(id=request.id, card="ZZ"))]
    return first_legal(request)


@pytest.mark.parametrize(("protocol", "named_by", "absent"), [(1, "id", "request_id"), (2, "request_id", "id")])
def test_the_error_event_names_its_request_as_the_bots_protocol_says(
    tmp_path: Path, protocol: int, named_by: str, absent: str
) -> None:
    """Protocol 2: only requests carry "id", the error event says "request_id"; a protocol-1 bot keeps its "id"."""
    scripts = [speaking(protocol, bad_cards), first_legal, first_legal, first_legal]
    match, bots = play(tmp_path, scripts)
    lines = [json.loads(line) for write in bots[0].writes for line in write.splitlines()]
    errors = [line for line in lines if line["type"] == "error"]
    requests = {line["id"] for line in lines if "id" in line and line["type"] != "error"}
    assert len(errors) == 3 and match.results[0].forfeited_in_game == 1
    for error in errors:
        assert error[named_by] in requests and absent not in error
        assert error["fallback"]["id"] == error[named_by]
    assert [e.request_id for e in bots[0].of_type(m.ErrorEvent)] == [e[named_by] for e in errors]


@pytest.mark.parametrize("protocol", [1, 2])
def test_a_line_that_answers_an_event_is_ignored_and_counts_nothing(tmp_path: Path, protocol: int) -> None:
    """A bot that answers events (the error event included) loses nothing but time: the lines are ignored."""
    answered: list[int] = []

    def answers_events(request: m.Request) -> list[bytes]:
        if isinstance(request, m.HelloRequest):
            return first_legal(request)
        answered.append(request.id)
        echo = json.dumps({"type": "deal", "id": request.id}) if len(answered) % 2 else '{"type": "error"}'
        return [echo.encode(), *first_legal(request)]

    match, _ = play(tmp_path, [speaking(protocol, answers_events), first_legal, first_legal, first_legal])
    assert match.results[0].faults == {} and match.results[0].strikes == 0
    assert match.seats[0].stats.ignored_lines == len(answered) > 0


def test_illegal_card_gets_the_rule_named_and_the_lowest_legal_card_played(tmp_path: Path) -> None:
    def plays_last_legal_then_illegal(request: m.Request) -> list[bytes]:
        if isinstance(request, m.PlayRequest):
            outside = sorted(set(request.hand) - set(request.legal))
            card = outside[0] if outside else "ZZ"
            if card == "ZZ":
                return first_legal(request)
            return [answer_line(m.PlayAnswer(id=request.id, card=card))]
        return first_legal(request)

    _, bots = play(tmp_path, [plays_last_legal_then_illegal, first_legal, first_legal, first_legal])
    errors = bots[0].of_type(m.ErrorEvent)
    assert errors, "the bot made illegal plays"
    first = errors[0]
    assert isinstance(first, m.ErrorEvent) and first.code == "illegal" and "[rule:" in first.message
    assert isinstance(first.fallback, m.PlayAnswer)


@pytest.mark.parametrize(
    ("line", "code"),
    [
        (b"hello there", "malformed"),
        (b'{"type":"play","id":2,"card":"XX"}', "malformed"),
        (b'{"type":"play","id":2,"crad":"2C"}', "malformed"),
    ],
)
def test_garbage_is_malformed(tmp_path: Path, line: bytes, code: str) -> None:
    def garbage(request: m.Request) -> list[bytes]:
        # Broken, but naming the request's own id: a broken line with another id answers another request and is
        # ignored (tests/test_hostile.py, stale_broken).
        return (
            first_legal(request)
            if isinstance(request, m.HelloRequest)
            else [line.replace(b'"id":2', b'"id":%d' % request.id)]
        )

    match, bots = play(tmp_path, [garbage, first_legal, first_legal, first_legal])
    assert match.results[0].faults == {code: 3}
    errors = bots[0].of_type(m.ErrorEvent)
    assert errors and all(e.code == code for e in errors)


def test_wrong_answer_type_is_named(tmp_path: Path) -> None:
    def moon_for_everything(request: m.Request) -> list[bytes]:
        if isinstance(request, m.HelloRequest):
            return first_legal(request)
        return [answer_line(m.MoonAnswer(id=request.id, choice="self"))]

    _, bots = play(tmp_path, [moon_for_everything, first_legal, first_legal, first_legal])
    error = bots[0].of_type(m.ErrorEvent)[0]
    assert isinstance(error, m.ErrorEvent) and error.code == "wrong_type"
    assert '"pass" answer, you sent "moon"' in error.message


def test_a_bot_that_closes_forfeits_at_once(tmp_path: Path) -> None:
    def exits_on_first_play(request: m.Request) -> list[bytes]:
        if isinstance(request, m.PlayRequest):
            raise SystemExit
        return first_legal(request)

    match, _ = play(tmp_path, [exits_on_first_play, first_legal, first_legal, first_legal])
    assert match.results[0].faults == {"crash": 1}


def test_version_mismatch_is_refused_with_a_bye(tmp_path: Path) -> None:
    def future_bot(request: m.Request) -> list[bytes]:
        assert isinstance(request, m.HelloRequest)
        return [answer_line(m.HelloAnswer(id=request.id, name="future", version="9", protocol=3))]

    bots = [ScriptedBot(future_bot), *(ScriptedBot() for _ in range(3))]
    config = MatchConfig.from_spec(
        MatchSpec(rules=RulesetSpec.of(Ruleset.create("hearts")), bots=(BotSpec(("x",)),) * 4), tmp_path
    )
    match = Match(config, transport_factory=lambda seat, spec: bots[seat])
    with pytest.raises(MatchSetupError, match="speaks protocol 3; this referee speaks 1 and 2"):
        match.run()
    byes = bots[0].of_type(m.ByeEvent)
    assert [b.reason for b in byes] == ["protocol_mismatch"]


def _asked(charged: bool) -> Asked:
    """A request sent, timed on the wall clock; ``charged``: on the seat's clock (not the handshake)."""
    return Asked(typing.cast(m.Request, None), 0.0, 1.0, charged, wall_s=1.0)


def test_time_bank_overrun_is_taken_from_the_bank_and_increment_added() -> None:
    seat = BotSeat(0, ScriptedBot(), TimeControl(move_ms=100, bank_ms=1000, increment_ms=50))
    assert seat.clock.deadline_s() == pytest.approx(1.1)
    seat._charge(0.4, _asked(True))  # 300 ms over the move time
    assert seat.clock.bank_s == pytest.approx(1.0 - 0.3 + 0.05)
    seat._charge(0.05, _asked(True))  # within the move time: the bank only grows
    assert seat.clock.bank_s == pytest.approx(0.75 + 0.05)
    seat._charge(5.0, _asked(True))  # far over: the bank is empty, then the increment
    assert seat.clock.bank_s == pytest.approx(0.05)
    assert seat.clock.deadline_s() == pytest.approx(0.15)
    seat._charge(5.0, _asked(False))  # the handshake does not count
    assert seat.clock.bank_s == pytest.approx(0.05)


def test_without_a_bank_the_deadline_is_the_move_time() -> None:
    seat = BotSeat(0, ScriptedBot(), TimeControl(move_ms=250))
    seat._charge(3.0, _asked(True))
    assert seat.clock.deadline_s() == pytest.approx(0.25)


def test_every_request_states_the_time_allowed(tmp_path: Path) -> None:
    ruleset = Ruleset.create("hearts", 4, {"target": 30})
    bots = [ScriptedBot() for _ in range(4)]
    config = MatchConfig.from_spec(
        MatchSpec(
            rules=RulesetSpec.of(ruleset),
            bots=(BotSpec(("x",)),) * 4,
            time=TimeControl(move_ms=200, bank_ms=3000, increment_ms=10),
        ),
        tmp_path,
    )
    Match(config, transport_factory=lambda seat, spec: bots[seat]).run()
    times = [r.time_ms for r in bots[0].of_type(m.PlayRequest)]
    # The scripted bot answers at once, so every decision adds the increment to the bank.
    assert times[0] >= 3200 and times == sorted(times)


def test_a_wrong_id_is_named_at_the_handshake_and_in_the_error_event(tmp_path: Path) -> None:
    def hello_with_wrong_id(request: m.Request) -> list[bytes]:
        if isinstance(request, m.HelloRequest):
            return [answer_line(m.HelloAnswer(id=request.id + 2, name="x", version="1", protocol=1))]
        return first_legal(request)

    bots = [ScriptedBot(hello_with_wrong_id), *(ScriptedBot() for _ in range(3))]
    config = MatchConfig.from_spec(
        MatchSpec(rules=RulesetSpec.of(Ruleset.create("hearts")), bots=(BotSpec(("x",)),) * 4, seed="4"), tmp_path
    )
    with pytest.raises(
        MatchSetupError,
        match=r"failed the handshake: no answer with id 1 within 5000 ms: answered "
        r"with id 3; the request's id is 1",
    ):
        Match(config, transport_factory=lambda seat, spec: bots[seat]).run()

    def off_by_one(request: m.Request) -> list[bytes]:
        if isinstance(request, m.PlayRequest):
            return [answer_line(m.PlayAnswer(id=request.id - 1, card=request.legal[0]))]
        return first_legal(request)

    _match, played = play(tmp_path / "game", [off_by_one, first_legal, first_legal, first_legal])
    errors = played[0].of_type(m.ErrorEvent)
    assert errors and errors[0].code == "timeout"
    asked = errors[0].request_id
    assert f"answered with id {asked - 1}; the request's id is {asked}" in errors[0].message


class _ReadsNothing:
    """A bot that never answers; ``unread`` is how many of the bytes sent to it it has not read."""

    returncode = None
    alive = True

    def __init__(self) -> None:
        self.unread = 0

    def send(self, data: bytes) -> None:
        pass

    def flush(self, deadline: float) -> Flushed:
        return Flushed()

    def read_line(self, deadline: float) -> LineResult:
        return Timeout()

    def close_input(self) -> None:
        pass

    def wait_exit(self, deadline: float) -> int | None:
        return None

    def stderr_tail(self) -> bytes:
        return b""

    def unread_input_bytes(self) -> int:
        return self.unread

    def terminate(self, grace_s: float = 0.5) -> None:
        pass


def test_the_backlog_is_counted_from_a_bounded_tail_of_megabytes_sent() -> None:
    """A seat keeps the end of what it sent (at least 256 KiB, never all of it) to name the lines left unread."""
    bot = _ReadsNothing()
    seat = BotSeat(0, bot, TimeControl(move_ms=1))
    event = codec.encode(m.LotteryPassEvent(game_number=1, deal=12, seat=1))
    request = m.MoonRequest(id=1, game_number=1, deal=1, options=m.MoonOptions(self_=(0,), others=(0,)), time_ms=1)
    for _ in range(60):  # about 3 MB of events, each batch ahead of a request
        for _ in range(1000):
            seat.queue_encoded(event)
        assert seat.converse(request).backlog == 0
    assert seat._sent_bytes < 1_000_000
    per_batch = 50_000 // len(event)
    for _ in range(5):  # 250 kB over 5 requests, none of it read: the bot reads nothing any more
        for _ in range(per_batch):
            seat.queue_encoded(event)
        bot.unread += per_batch * len(event) + len(codec.encode(request))
        reply = seat.converse(request)
    assert reply.backlog == 5 * per_batch + 4  # every line but the last request, the 4 earlier requests included


def test_every_request_names_the_seat_its_bot_holds_in_that_game(tmp_path: Path) -> None:
    """With seats rotated between games, each request's seat is the one its game_start gave that bot."""
    ruleset = Ruleset.create("hearts", None, {"target": 20})
    bots = [ScriptedBot(first_legal) for _ in range(4)]
    config = MatchConfig.from_spec(
        MatchSpec(
            rules=RulesetSpec.of(ruleset),
            bots=tuple(BotSpec(("scripted",)) for _ in bots),
            seed="4",
            games=2,
            rotate=True,
        ),
        tmp_path,
    )
    Match(config, transport_factory=lambda seat, spec: bots[seat]).run()
    for bot in bots:
        seats: list[int] = []
        for message in bot.received:
            if isinstance(message, m.GameStartEvent):
                seats.append(message.seat)
            elif isinstance(message, m.PassRequest | m.PlayRequest):
                assert message.seat == seats[-1] and message.game == "hearts" and message.rules == ruleset.options()
        assert len(seats) == 2 and seats[0] != seats[1]
