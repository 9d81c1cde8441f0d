"""The match's part in tournaments: a seat whose bot cannot start or shake hands is forfeited, not fatal."""

from __future__ import annotations

import json
import pickle
import sys
from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner

from competition.plan import Entrant
from competition.tournament import run_tournament
from competition.tournament_config import StopRule, TournamentConfig
from kierki_cli.main import cli
from referee.bots.time_control import TimeControl
from referee.match import Match
from referee.match_config import BotSpec, MatchConfig, MatchSetupError, MatchSpec, RulesetSpec, sample_bot_command
from referee.replay.reader import load
from referee.replay.records import GameEndRecord
from referee.rules import Ruleset
from referee.vocabulary.faults import Consequence, FaultCode, FaultPolicy

HOSTILE = Path(__file__).parent / "hostile"
SHORT = Ruleset.create("hearts", None, {"target": "10"})
RULES = RulesetSpec.of(SHORT)


def _config(tmp_path: Path, third: BotSpec, spec: MatchSpec | None = None) -> MatchConfig:
    """A match of SHORT with ``third`` at seat 2 among sample bots; ``spec`` gives its other settings."""
    bots = (
        sample_bot_command("heuristic_bot"),
        sample_bot_command("random_bot"),
        third,
        sample_bot_command("random_bot"),
    )
    spec = spec or MatchSpec(rules=RULES)
    return MatchConfig.from_spec(msgspec.structs.replace(spec, bots=bots, seed="3"), tmp_path)


@pytest.mark.parametrize(
    ("command", "reason"),
    [
        (("/nonexistent/bot",), "cannot start"),
        ((sys.executable, str(HOSTILE / "crash_at_start.py")), "failed the handshake"),
    ],
)
def test_a_seat_that_cannot_start_is_forfeited_from_the_start(
    tmp_path: Path, command: tuple[str, ...], reason: str
) -> None:
    with pytest.raises(MatchSetupError):
        Match(_config(tmp_path / "strict", BotSpec(command))).run()
    result = Match(
        _config(tmp_path / "lenient", BotSpec(command), MatchSpec(rules=RULES, forfeit_unstartable=True))
    ).run()
    assert result.status == "complete" and result.games == 1
    seat = result.seats[2]
    assert seat.start_failure is not None and reason in seat.start_failure
    assert all(s.start_failure is None for i, s in enumerate(result.seats) if i != 2)
    assert result.summary().seats[2].start_failure == seat.start_failure


def test_an_absent_seat_is_never_started(tmp_path: Path) -> None:
    never = BotSpec(("/nonexistent/bot",))
    result = Match(_config(tmp_path, never, MatchSpec(rules=RULES, absent=((2, "dropped: no"),)))).run()
    assert result.seats[2].start_failure == "dropped: no"
    assert not (tmp_path / "seat2.stderr.log").exists()


def test_a_bot_dropped_before_a_resume_stays_dropped(tmp_path: Path) -> None:
    crash = Entrant("crash", f"{sys.executable} {HOSTILE / 'crash_at_start.py'}")
    entrants = (Entrant("h", "sample:heuristic"), crash)
    config = TournamentConfig.of(entrants=entrants, ruleset=SHORT, seed="1", drop_after=2)
    first = run_tournament(config, tmp_path, StopRule(sets=1), jobs=1)
    assert "crash" in first.dropped
    again = run_tournament(config, tmp_path, StopRule(sets=2), jobs=1, resume=True)
    # One bot left for a table of two bots: nothing more is played, and the result says why.
    assert "crash" in again.dropped and len(again.records) == 1
    assert again.stopped_short == "stopped early: 1 bot left after dropping crash, too few to fill 2 seats"


def test_a_bot_gets_its_own_time_control(tmp_path: Path) -> None:
    own = BotSpec(sample_bot_command("random_bot").argv, time=TimeControl(move_ms=777))
    Match(_config(tmp_path, own, MatchSpec(rules=RULES, transcript=True))).run()
    assert b'"move_ms":777' in (tmp_path / "seat2.transcript.log").read_bytes()
    assert b'"move_ms":777' not in (tmp_path / "seat1.transcript.log").read_bytes()


def test_a_match_config_can_be_shipped_to_a_worker(tmp_path: Path) -> None:
    policy = FaultPolicy(max_strikes=2, consequences={FaultCode.TIMEOUT: Consequence.FORFEIT})
    config = _config(tmp_path, sample_bot_command("random_bot"), MatchSpec(rules=RULES, faults=policy))
    copy = pickle.loads(pickle.dumps(config))
    assert copy == config and copy.spec.faults.forfeits("timeout", 1) and not copy.spec.faults.forfeits("illegal", 1)


def _distinct_bots() -> tuple[BotSpec, ...]:
    """Four bots that tell themselves apart in the replay headers (the random bot's --seed is in its command)."""
    random_bot = sample_bot_command("random_bot").argv
    return (sample_bot_command("heuristic_bot"), *(BotSpec((*random_bot, "--seed", str(i))) for i in (1, 2, 3)))


@pytest.mark.parametrize("rotate", [True, False])
def test_match_rotates_seats_between_games_and_keeps_results_per_bot(tmp_path: Path, rotate: bool) -> None:
    bots = _distinct_bots()
    config = MatchConfig.from_spec(
        MatchSpec(rules=RULES, bots=bots, seed="4", games=5, rotate=rotate, transcript=True), tmp_path
    )
    result = Match(config).run()
    assert result.rotated == rotate and result.games == 5
    for game in range(5):
        replay = load(Path(result.replays[game]))
        seat_of = {record.command: record.seat for record in replay.header.bots}
        end = replay.entries[-2].record
        assert isinstance(end, GameEndRecord)
        for bot, (spec, seat_result) in enumerate(zip(bots, result.seats, strict=True)):
            seat = (bot + game) % 4 if rotate else bot
            assert seat_of[spec.command] == seat
            assert seat_result.totals[game] == end.totals[seat] and seat_result.places[game] == end.places[seat]
    # Each bot's conversation stays in its own transcript, whatever its seat: it heard game_start for every seat.
    seats = {
        line.split(b'"seat":')[1][:1]
        for line in (tmp_path / "seat1.transcript.log").read_bytes().splitlines()
        if b'"game_start"' in line
    }
    assert seats == ({b"1", b"2", b"3", b"0"} if rotate else {b"1"})


def test_kierki_match_rotates_by_default(tmp_path: Path) -> None:
    args = ["match", "--game", "hearts", "--option", "target=10", "--games", "2", "--seed", "1", "--json"]
    rotated = CliRunner().invoke(cli, [*args, "--out", str(tmp_path / "a")])
    fixed = CliRunner().invoke(cli, [*args, "--no-rotate", "--out", str(tmp_path / "b")])
    assert json.loads(rotated.stdout)["rotated"] is True and json.loads(fixed.stdout)["rotated"] is False
