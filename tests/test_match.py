"""Full matches with real subprocess bots, and one test per kind of misbehaviour."""

from __future__ import annotations

import json
import sys
import typing
from pathlib import Path
from typing import Any

import msgspec
import pytest

from referee.bots.process import BotProcess
from referee.bots.procfs import session_members
from referee.bots.time_control import TimeControl
from referee.match import Match
from referee.match_config import BotSpec, MatchConfig, MatchSetupError, MatchSpec, RulesetSpec, default_bots
from referee.rules import Ruleset
from referee.rules.results import places

BOTS = Path(__file__).parent / "bots"
MISBEHAVE = BOTS / "misbehave.py"


def misbehaving(mode: str, after: int = 3) -> BotSpec:
    return BotSpec((sys.executable, str(MISBEHAVE), mode, str(after)))


def run(
    tmp_path: Path,
    game: str = "kierki",
    players: int | None = None,
    bots: tuple[BotSpec, ...] | None = None,
    *,
    move_ms: int = 2000,
    seed: int = 1,
    games: int = 1,
    options: dict[str, object] | None = None,
) -> tuple[Match, dict[str, Any]]:
    ruleset = Ruleset.create(game, players, options)
    config = MatchConfig.from_spec(
        MatchSpec(
            rules=RulesetSpec.of(ruleset),
            bots=bots or default_bots(ruleset.players),
            seed=str(seed),
            games=games,
            time=TimeControl(move_ms=move_ms, startup_ms=10_000),
        ),
        tmp_path / "out",
    )
    match = Match(config)
    result = match.run()
    for seat in match.seats:
        assert isinstance(seat.process, BotProcess)
        assert session_members(seat.process.pid) == [], f"seat {seat.seat} left processes behind"
    return match, msgspec.to_builtins(result.summary())


def replay_records(path: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in Path(path).read_text().splitlines()]


@pytest.mark.parametrize(
    ("game", "players"),
    [("kierki", 4), ("kierki3", 3), ("hearts", 4)] + [("cancellation", n) for n in range(6, 12)],
)
def test_full_match_every_game(tmp_path: Path, game: str, players: int) -> None:
    _, result = run(tmp_path, game, players)
    seats = result["seats"]
    assert isinstance(seats, list) and len(seats) == players
    totals = [s["total"] for s in seats]
    if game == "kierki":
        assert sum(totals) == 0
    if game == "kierki3":
        assert sum(totals) == -255
    if game in ("hearts", "cancellation"):
        target = 100 if game == "hearts" else 150
        assert max(totals) >= target
    for s in seats:
        assert s["strikes"] == 0 and s["faults"] == {} and s["forfeited_in_game"] is None
        assert s["decisions"] > 0
    replays = result["replays"]
    assert isinstance(replays, list) and len(replays) == 1
    records = replay_records(replays[0])
    assert records[0]["type"] == "header" and records[0]["format"] == "kierki-replay"
    end = records[-1]
    assert {k: v for k, v in end.items() if k != "cpu_ms"} == {"type": "end", "status": "complete"}
    if result["isolation"]["cgroups"] is not None:  # each bot's CPU time in the game, per seat
        per_seat = typing.cast(list[float], end["cpu_ms"])
        assert len(per_seat) == len(seats) and all(ms > 0 for ms in per_seat)
        assert [s["cpu_ms"] for s in seats] == [[ms] for ms in per_seat]
    else:
        assert "cpu_ms" not in end
    game_end = records[-2]
    assert game_end["type"] == "game_end" and game_end["totals"] == totals
    assert not list((tmp_path / "out").glob("*.part"))


def test_several_games_keep_the_bots_and_add_up(tmp_path: Path) -> None:
    _, result = run(tmp_path, "hearts", games=3, seed=11)
    seats = result["seats"]
    assert isinstance(seats, list)
    for s in seats:
        assert len(s["totals"]) == 3 and s["total"] == sum(s["totals"])
    assert result["games"] == 3 and len(result["replays"]) == 3


def test_same_seed_same_game(tmp_path: Path) -> None:
    _, first = run(tmp_path / "a", "kierki", seed=42)
    _, second = run(tmp_path / "b", "kierki", seed=42)
    assert [s["totals"] for s in first["seats"]] == [s["totals"] for s in second["seats"]]


def _with_bad_seat(mode: str, after: int = 3, move_ms: int = 2000) -> tuple[BotSpec, ...]:
    return (misbehaving(mode, after), *default_bots(4)[1:])


def _fault_records(result: dict[str, object]) -> list[dict[str, object]]:
    replays = result["replays"]
    assert isinstance(replays, list)
    return [r for r in replay_records(replays[0]) if r["type"] == "fault"]


@pytest.mark.parametrize(
    ("mode", "code"),
    [("illegal", "illegal"), ("garbage", "malformed"), ("wrong_type", "wrong_type")],
)
def test_bad_answers_get_fallbacks_then_forfeit(tmp_path: Path, mode: str, code: str) -> None:
    _, result = run(tmp_path, "kierki", bots=_with_bad_seat(mode), seed=3)
    bad = result["seats"][0]
    assert bad["faults"] == {code: 3}
    assert bad["strikes"] == 3 and bad["forfeited_in_game"] == 1
    faults = _fault_records(result)
    assert bad["forfeit_reason"] == f"{code} (strike 3): {faults[-1]['message']}"  # the summary says why
    assert [f["code"] for f in faults] == [code] * 3
    assert [f["forfeited"] for f in faults] == [False, False, True]
    assert all(f["seat"] == 0 for f in faults)
    for other in result["seats"][1:]:
        assert other["faults"] == {} and other["forfeited_in_game"] is None and other["forfeit_reason"] is None
    totals = [s["total"] for s in result["seats"]]
    assert sum(totals) == 0  # the match was played to the end


def test_timeout_strikes_and_other_seats_unaffected(tmp_path: Path) -> None:
    _, result = run(tmp_path, "hearts", bots=_with_bad_seat("timeout", 2), move_ms=150, seed=5)
    bad = result["seats"][0]
    assert bad["faults"] == {"timeout": 3} and bad["forfeited_in_game"] == 1
    for other in result["seats"][1:]:
        assert other["faults"] == {}


def test_late_answer_is_never_taken_for_the_next_request(tmp_path: Path) -> None:
    match, result = run(tmp_path, "hearts", bots=_with_bad_seat("late", 2), move_ms=150, seed=5)
    bad = result["seats"][0]
    assert bad["faults"] == {"timeout": 3}
    assert match.seats[0].stats.ignored_lines >= 1  # the late answers arrived and were ignored


def test_answer_with_wrong_id_is_ignored_until_the_deadline(tmp_path: Path) -> None:
    match, result = run(tmp_path, "hearts", bots=_with_bad_seat("wrong_id", 2), move_ms=150, seed=5)
    assert result["seats"][0]["faults"] == {"timeout": 3}
    assert match.seats[0].stats.ignored_lines == 3


@pytest.mark.parametrize("mode", ["crash", "stuck_child"])
def test_crash_forfeits_at_once(tmp_path: Path, mode: str) -> None:
    _, result = run(tmp_path, "kierki", bots=_with_bad_seat(mode, 4), move_ms=500)
    bad = result["seats"][0]
    assert bad["faults"] == {"crash": 1} and bad["forfeited_in_game"] == 1
    totals = [s["total"] for s in result["seats"]]
    assert sum(totals) == 0


def test_busy_loop_bot_is_timed_out_and_killed(tmp_path: Path) -> None:
    _, result = run(tmp_path, "hearts", bots=_with_bad_seat("hang_forever", 2), move_ms=150, seed=2)
    assert result["seats"][0]["faults"] == {"timeout": 3}


def test_protocol_version_mismatch_stops_the_match(tmp_path: Path) -> None:
    with pytest.raises(MatchSetupError, match="speaks protocol 3"):
        run(tmp_path, "hearts", bots=_with_bad_seat("bad_version"))


def test_bot_that_cannot_start_stops_the_match(tmp_path: Path) -> None:
    bots = (BotSpec(("/nonexistent/bot",)), *default_bots(4)[1:])
    with pytest.raises(MatchSetupError, match="seat 0"):
        run(tmp_path, "hearts", bots=bots)


def test_slow_start_fails_the_handshake(tmp_path: Path) -> None:
    ruleset = Ruleset.create("hearts")
    config = MatchConfig.from_spec(
        MatchSpec(
            rules=RulesetSpec.of(ruleset),
            bots=_with_bad_seat("slow_start"),
            time=TimeControl(move_ms=100, startup_ms=200),
        ),
        tmp_path,
    )
    match = Match(config)
    with pytest.raises(MatchSetupError, match="handshake"):
        match.run()
    for seat in match.seats:
        assert isinstance(seat.process, BotProcess) and session_members(seat.process.pid) == []


def barrier_bots(folder: Path, silent_seat: int | None = None) -> tuple[BotSpec, ...]:
    folder.mkdir()
    count = 4 if silent_seat is None else 3
    script = str(BOTS / "pass_barrier.py")
    return tuple(
        BotSpec((sys.executable, script, str(folder), str(count), *(["silent"] if s == silent_seat else [])))
        for s in range(4)
    )


def test_every_seat_is_asked_to_pass_at_once(tmp_path: Path) -> None:
    # Each bot answers its pass only when all four hold their pass request: asked in turn, every pass would time out.
    _, result = run(tmp_path, "hearts", bots=barrier_bots(tmp_path / "barrier"), options={"target": 30})
    deals = len(list((tmp_path / "barrier").glob("*"))) // 4
    assert deals >= 1, "no pass was asked"
    assert [s["faults"] for s in result["seats"]] == [{}] * 4
    replay = replay_records(result["replays"][0])
    passes = [int(str(r["seat"])) for r in replay if r.get("type") == "pass"]
    assert len(passes) == deals * 4
    for deal in range(deals):  # applied in the rules' order: round the table from the first passer
        first = passes[4 * deal]
        assert passes[4 * deal : 4 * deal + 4] == [(first + k) % 4 for k in range(4)]


def test_a_silent_passer_times_out_alone(tmp_path: Path) -> None:
    bots = barrier_bots(tmp_path / "barrier", silent_seat=2)
    _, result = run(tmp_path, "hearts", bots=bots, move_ms=1000, options={"target": 30})
    faults = [s["faults"] for s in result["seats"]]
    assert faults[2].get("timeout", 0) >= 1
    assert faults[:2] + faults[3:] == [{}] * 3


def test_a_game_stopped_after_its_deals_is_the_start_of_the_whole_game(tmp_path: Path) -> None:
    """``deals_per_game`` (the ladder's short validation game) stops the game after that deal's end: the rules are
    unchanged (the records are the whole game's up to that deal_end), the log ends "stopped" without a game_end,
    and no bot hears of the next deal, dealt already by the rules: its last message is bye "aborted"."""
    ruleset = Ruleset.create("hearts", None)

    def play(name: str, deals: int | None) -> tuple[Any, list[dict[str, Any]]]:
        config = MatchConfig.from_spec(
            MatchSpec(
                rules=RulesetSpec.of(ruleset), bots=default_bots(4), seed="7", transcript=True, deals_per_game=deals
            ),
            tmp_path / name,
        )
        result = Match(config).run()
        timing = ("ms", "cpu_ms")
        return result, [{k: v for k, v in r.items() if k not in timing} for r in replay_records(result.replays[0])]

    whole, whole_records = play("whole", None)
    stopped, records = play("stopped", 2)
    ends = [i for i, r in enumerate(whole_records) if r["type"] == "deal_end"]
    assert len(ends) > 2  # hearts to 100 takes more than two deals
    assert records[0] | {"started": None} == whole_records[0] | {"started": None}
    assert records[1:-1] == whole_records[1 : ends[1] + 1]
    assert records[-1] == {
        "type": "end",
        "status": "stopped",
        "detail": "the referee stopped the game after deal 2, as asked",
    }
    assert stopped.status == "stopped" and whole.status == "complete"
    totals = whole_records[ends[1]]["totals"]
    assert [s.totals for s in stopped.seats] == [[t] for t in totals]
    assert [s.places for s in stopped.seats] == [[p] for p in places(totals, highest_wins=False)]
    for seat in range(4):
        sent = [
            json.loads(raw.split(b" ", 2)[2])
            for raw in (tmp_path / "stopped" / f"seat{seat}.transcript.log").read_bytes().splitlines()
            if raw.split(b" ", 2)[1] == b"->"
        ]
        assert [m["deal"] for m in sent if m["type"] == "deal"] == [1, 2]
        assert not any(m["type"] == "game_end" for m in sent)
        assert sent[-1] == {"type": "bye", "reason": "aborted"}
    with pytest.raises(MatchSetupError, match="deals_per_game is 0"):
        Match(
            MatchConfig.from_spec(
                MatchSpec(rules=RulesetSpec.of(ruleset), bots=default_bots(4), deals_per_game=0), tmp_path / "none"
            )
        )


def test_a_game_asked_for_more_deals_than_it_lasts_is_complete(tmp_path: Path) -> None:
    ruleset = Ruleset.create("hearts", None, {"target": "10"})
    config = MatchConfig.from_spec(
        MatchSpec(rules=RulesetSpec.of(ruleset), bots=default_bots(4), seed="7", deals_per_game=50), tmp_path / "out"
    )
    result = Match(config).run()
    assert result.status == "complete" and replay_records(result.replays[0])[-1]["status"] == "complete"
