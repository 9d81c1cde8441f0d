"""One seating (issue 31 item 3): a match, check-bot and the person's seat of ``kierki play`` check the protocol
version a bot answers hello with in one place, `referee.seating.version_problem`, and say the same thing when it is
wrong; the person's seat answers with the version ``protocol.codec`` states."""

from __future__ import annotations

from pathlib import Path

import pytest
from fake_transport import ScriptedBot, answer_line, first_legal

from kierki_cli.human_seat import HumanSeat
from kierki_cli.styled import Style
from protocol import codec
from protocol import messages as m
from referee.bots.seat import Transport
from referee.bots.time_control import TimeControl
from referee.checkbot.check import check_bot
from referee.checkbot.report import CheckOptions
from referee.match import Match
from referee.match_config import BotSpec, MatchConfig, MatchSetupError, MatchSpec, RulesetSpec
from referee.rules import Ruleset
from referee.seating import version_problem

_FUTURE = max(codec.PROTOCOL_VERSIONS) + 1


def _future(request: m.Request) -> list[bytes]:
    """A bot of a protocol version this referee does not speak (well-formed in every other way)."""
    if isinstance(request, m.HelloRequest):
        return [answer_line(m.HelloAnswer(id=request.id, name="future", version="9", protocol=_FUTURE))]
    return first_legal(request)


def _match(tmp_path: Path, seat0: Transport) -> Match:
    spec = MatchSpec(rules=RulesetSpec.of(Ruleset.create("hearts")), bots=(BotSpec(("x",)),) * 4, seed="1")
    config = MatchConfig.from_spec(spec, tmp_path)
    return Match(config, transport_factory=lambda seat, spec: seat0 if seat == 0 else ScriptedBot())


def test_the_version_check_passes_each_version_this_referee_speaks_and_fails_another() -> None:
    assert [version_problem(version) for version in codec.PROTOCOL_VERSIONS] == [None] * len(codec.PROTOCOL_VERSIONS)
    assert version_problem(3) == "speaks protocol 3; this referee speaks 1 and 2"


def test_a_bot_of_another_version_hears_the_same_from_a_match_and_from_check_bot(tmp_path: Path) -> None:
    problem = version_problem(_FUTURE)
    assert problem is not None
    with pytest.raises(MatchSetupError) as refused:
        _match(tmp_path, ScriptedBot(_future)).run()
    assert str(refused.value) == f"seat 0 (x) {problem}: update the bot (see PROTOCOL.md)"

    options = CheckOptions(("scripted-bot",), ("hearts",), TimeControl())
    report = check_bot(options, start=lambda label: ScriptedBot(_future, tolerant=True))
    (handshake,) = [result for result in report.results if result.name == "hearts: handshake (hello)"]
    assert (handshake.status, handshake.detail) == ("FAIL", f"your bot {problem}")


def _person() -> HumanSeat:
    def read(seconds: float) -> str | None:
        raise EOFError  # nobody types: the referee plays for the person

    return HumanSeat(read, lambda text: None, Style(), 1.0, "person")


def test_the_person_answers_hello_in_the_referees_version_and_passes_the_same_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = _match(tmp_path / "now", _person()).run()
    assert result.seats[0].name == "person" and result.seats[0].start_failure is None
    # Another version stated in the one place: the person's seat speaks it, and the one check judges it.
    monkeypatch.setattr(codec, "PROTOCOL_VERSION", _FUTURE)
    with pytest.raises(MatchSetupError, match=f"seat 0 \\(x\\) {version_problem(_FUTURE)}"):
        _match(tmp_path / "future", _person()).run()
