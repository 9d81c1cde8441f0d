"""Replay logs read back: ``kierki replay --verify`` on real matches of every game and on tampered logs, the views
(whole game, --deal, --trick, --json, --seat), the stepper's keys, and ``kierki match --from FILE --at N``."""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from html_helpers import hidden_and_known, in_process_header

from kierki_cli.main import cli
from kierki_cli.replay_stepper import Stepper
from kierki_cli.replay_story import story
from kierki_cli.replay_view import render_table
from kierki_cli.styled import Style, to_text
from referee.bots.time_control import TimeControl
from referee.match import Match
from referee.match_config import BotSpec, MatchConfig, MatchSpec, RulesetSpec, default_bots
from referee.replay.reader import ReplayError, load, parse
from referee.replay.records import DECISION_TYPES, VERSION, DealRecord, Header
from referee.replay.resume import resume_point
from referee.replay.timeline import Timeline, build_timeline, verify
from referee.replay.view import json_records, step_view
from referee.replay.writer import ReplayWriter, decision_record, event_record
from referee.rules import Action, DealKind, GameState, Phase, PlayCard, Ruleset, card_name
from referee.vocabulary.match_result import GameStatus

MISBEHAVE = Path(__file__).parent / "bots" / "misbehave.py"
CARD = re.compile(r"\b([2-9TJQKA][CDHS])\b")

# name: game, players, options, seed
REAL_GAMES: dict[str, tuple[str, int | None, dict[str, object], int]] = {
    "kierki": ("kierki", None, {}, 3),
    "kierki3": ("kierki3", None, {}, 4),
    "hearts": ("hearts", None, {}, 5),
    "cancellation6": ("cancellation", 6, {}, 6),
    "cancellation9": ("cancellation", 9, {}, 2),
}


def _match(out: Path, game: str, players: int | None, options: dict[str, object], seed: int, **kw: Any) -> list[str]:
    ruleset = Ruleset.create(game, players, options)
    config = MatchConfig.from_spec(
        MatchSpec(
            rules=RulesetSpec.of(ruleset),
            bots=kw.pop("bots", None) or default_bots(ruleset.players),
            seed=str(seed),
            time=TimeControl(move_ms=kw.pop("move_ms", 10_000), startup_ms=10_000),
            **kw,
        ),
        out,
    )
    return Match(config).run().replays


def _header(ruleset: Ruleset, seed: str) -> Header:
    return in_process_header(ruleset, seed, ["policy"] * ruleset.players)


def _moon_log(path: Path) -> Path:
    """A Hearts game written in-process (seat 0 plays high, the others low) in which seat 3 shoots the moon."""
    ruleset = Ruleset.create("hearts", None, {"target": 30})
    state = GameState(ruleset, seed=50)
    header = _header(ruleset, seed="50")
    writer = ReplayWriter(path, header)
    for event in state.events:
        record = event_record(event)
        if record:
            writer.write(record)
    while not state.is_over:
        seat = state.to_act
        legal = state.legal_plays()
        action: Action = state.fallback_action()
        if state.phase is Phase.PLAY:
            action = PlayCard(max(legal) if seat == 0 else min(legal))
        events = state.apply(action, seat)
        writer.write(decision_record(seat, action, 0.5, False))
        for event in events:
            record = event_record(event)
            if record:
                writer.write(record)
    return writer.finish(GameStatus.COMPLETE)


@pytest.fixture(scope="session")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("replays")
    found = {name: Path(_match(base / name, *spec)[0]) for name, spec in REAL_GAMES.items()}
    bad = (
        BotSpec((sys.executable, str(MISBEHAVE), "illegal", "3")),
        BotSpec((sys.executable, str(MISBEHAVE), "crash", "5")),
        *default_bots(4)[2:],
    )
    faults = _match(base / "faults", "kierki", None, {}, 2, bots=bad, move_ms=2000, games=2)
    found["faults"], found["faults_game2"] = Path(faults[0]), Path(faults[1])
    found["moon"] = _moon_log(base / "moon.replay.jsonl")
    return found


def run(*args: str | Path) -> tuple[int, str]:
    result = CliRunner().invoke(cli, [str(a) for a in args])
    return result.exit_code, result.stdout


def raw_lines(path: Path) -> list[str]:
    return path.read_text().splitlines()


def records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in raw_lines(path)]


def write(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines))
    return path


def failure(path: Path) -> str:
    code, out = run("replay", "--verify", path)
    assert code == 1, out
    assert out.startswith("FAIL: "), out
    return out


# --- verify on real logs -----------------------------------------------------------------------------------


def test_verify_refuses_the_viewing_options(logs: dict[str, Path], tmp_path: Path) -> None:
    """They were ignored: `--verify --html page.html` printed OK and wrote no page."""
    page = tmp_path / "page.html"
    for extra in (["--deal", "1"], ["--seat", "0"], ["--json"], ["--html", str(page)]):
        result = CliRunner().invoke(cli, ["replay", "--verify", str(logs["moon"]), *extra])
        assert result.exit_code == 2, (extra, result.output)
        assert "--verify checks the whole log: leave out --deal" in result.output
    assert not page.exists()


@pytest.mark.parametrize("name", [*REAL_GAMES, "faults", "faults_game2", "moon"])
def test_verify_passes_on_real_logs(logs: dict[str, Path], name: str) -> None:
    path = logs[name]
    decisions = sum(1 for r in records(path) if r["type"] in DECISION_TYPES)
    code, out = run("replay", "--verify", path)
    assert (code, out) == (0, f"OK: {decisions} decisions, {len(raw_lines(path))} records verified\n")


def test_a_damaged_gzip_log_is_named_once_in_the_reason(logs: dict[str, Path], tmp_path: Path) -> None:
    import gzip

    damaged = tmp_path / "cut.replay.jsonl.gz"
    damaged.write_bytes(gzip.compress(logs["hearts"].read_bytes())[:100])
    for args in (["replay", "--verify", str(damaged)], ["replay", str(damaged)]):
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 1 and "a damaged gzip file" in result.output, result.output
        assert result.output.count(str(damaged)) == 1, result.output


def test_the_real_logs_cover_what_they_should(logs: dict[str, Path]) -> None:
    types = {name: Counter(r["type"] for r in records(path)) for name, path in logs.items()}
    assert types["kierki"]["trump"] == 4 and types["kierki"]["lottery_pass"] > 0 and types["kierki"]["out"] == 2
    assert types["hearts"]["exchange"] > 0
    assert types["moon"]["moon"] == 1
    faults = [r for r in records(logs["faults"]) if r["type"] == "fault"]
    assert {f["code"] for f in faults} == {"illegal", "crash"}
    assert [f["forfeited"] for f in faults if f["seat"] == 0] == [False, False, True]
    assert types["faults_game2"]["fault"] == 0  # both bad seats were forfeited in game 1: fallbacks only
    assert any(r["type"] == "trick" and r["winner"] is None for r in records(logs["cancellation9"]))


# --- tampered logs -----------------------------------------------------------------------------------------


def _find(timeline: Timeline, want: Any) -> tuple[int, Any]:
    for step in timeline.decisions:
        found = want(timeline.state_at(step.index), step)
        if found is not None:
            return step.entry.line, found
    raise AssertionError("no decision fits")


def test_a_card_changed_to_an_illegal_one(logs: dict[str, Path], tmp_path: Path) -> None:
    path = logs["kierki"]
    timeline = build_timeline(load(path))

    def off_suit(state: GameState, step: Any) -> int | None:
        if state.phase is not Phase.PLAY or not state.observation(step.seat).trick:
            return None
        led = state.observation(step.seat).trick[0][1] & 3
        hand = state.hand(step.seat)
        if not any(c & 3 == led for c in hand):
            return None
        return next((c for c in hand if c & 3 != led), None)

    line, card = _find(timeline, off_suit)
    lines = raw_lines(path)
    record = json.loads(lines[line - 1])
    lines[line - 1] = json.dumps({**record, "card": card_name(card)})
    out = failure(write(tmp_path / "t.jsonl", lines))
    assert f"line {line}: play {card_name(card)} by seat {record['seat']} is illegal: you must follow suit" in out
    assert out.rstrip().endswith("[rule follow-suit]")


def test_a_card_not_in_the_hand(logs: dict[str, Path], tmp_path: Path) -> None:
    lines = raw_lines(logs["kierki"])
    first = json.loads(lines[2])  # line 3: the first play
    deal = json.loads(lines[1])
    foreign = deal["hands"][(first["seat"] + 1) % 4][0]
    lines[2] = json.dumps({**first, "card": foreign})
    out = failure(write(tmp_path / "t.jsonl", lines))
    assert f"line 3: play {foreign} by seat {first['seat']} is illegal: {foreign} is not in your hand" in out
    assert "[rule own-card]" in out


def test_a_card_changed_to_another_legal_one_fails_at_the_trick(logs: dict[str, Path], tmp_path: Path) -> None:
    path = logs["kierki"]
    timeline = build_timeline(load(path))

    def other_legal(state: GameState, step: Any) -> int | None:
        if state.phase is not Phase.PLAY or len(state.observation(step.seat).trick) != 3:
            return None
        assert isinstance(step.action, PlayCard)
        return next((c for c in state.legal_plays() if c != step.action.card), None)

    line, card = _find(timeline, other_legal)
    lines = raw_lines(path)
    record = json.loads(lines[line - 1])
    lines[line - 1] = json.dumps({**record, "card": card_name(card)})
    trick = json.loads(lines[line])
    assert trick["type"] == "trick"
    wanted = [*trick["cards"][:3], card_name(card)]
    out = failure(write(tmp_path / "t.jsonl", lines))
    assert f"line {line + 1}: trick {trick['number']}: cards {json.dumps(trick['cards'])} but the rules give" in out
    assert json.dumps(wanted) in out


@pytest.mark.parametrize("field", ["scores", "totals"])
def test_a_deal_score_changed(logs: dict[str, Path], tmp_path: Path, field: str) -> None:
    lines = raw_lines(logs["hearts"])
    index = next(i for i, line in enumerate(lines) if '"deal_end"' in line)
    record = json.loads(lines[index])
    changed = [v + (5 if s == 1 else 0) for s, v in enumerate(record[field])]
    lines[index] = json.dumps({**record, field: changed})
    out = failure(write(tmp_path / "t.jsonl", lines))
    assert out == (
        f"FAIL: {tmp_path / 't.jsonl'}: line {index + 1}: deal_end of deal 1: {field} {json.dumps(changed)} "
        f"but the rules give {json.dumps(record[field])}\n"
    )


def test_the_result_changed(logs: dict[str, Path], tmp_path: Path) -> None:
    lines = raw_lines(logs["kierki3"])
    record = json.loads(lines[-2])
    assert record["type"] == "game_end"
    lines[-2] = json.dumps({**record, "places": list(reversed(record["places"]))})
    out = failure(write(tmp_path / "t.jsonl", lines))
    assert f"line {len(lines) - 1}: game_end: places" in out


def test_a_trick_winner_or_a_deal_changed(logs: dict[str, Path], tmp_path: Path) -> None:
    lines = raw_lines(logs["kierki"])
    index = next(i for i, line in enumerate(lines) if '"trick"' in line)
    trick = json.loads(lines[index])
    lines[index] = json.dumps({**trick, "winner": (trick["winner"] + 1) % 4})
    assert f"line {index + 1}: trick 1: winner" in failure(write(tmp_path / "t.jsonl", lines))
    lines = raw_lines(logs["kierki"])
    deal = json.loads(lines[1])
    hands = deal["hands"]
    hands[0][0], hands[1][0] = hands[1][0], hands[0][0]  # a swap keeps the deck whole: only the seed can tell
    lines[1] = json.dumps(deal)
    assert "line 2: deal 1: hands[0]" in failure(write(tmp_path / "t.jsonl", lines))


def test_events_removed(logs: dict[str, Path], tmp_path: Path) -> None:
    lines = raw_lines(logs["kierki"])
    trick = next(i for i, line in enumerate(lines) if '"trick"' in line)
    out = failure(write(tmp_path / "a.jsonl", lines[:trick] + lines[trick + 1 :]))
    assert f"line {trick + 1}: play" in out and "but the trick record of trick 1 must come first" in out
    play = json.loads(lines[3])
    out = failure(write(tmp_path / "b.jsonl", lines[:3] + lines[4:]))
    nxt = json.loads(lines[4])
    assert f"line 4: play {nxt['card']} by seat {nxt['seat']}, but it is seat {play['seat']}'s turn to play" in out
    out = failure(write(tmp_path / "c.jsonl", lines[:1] + lines[2:]))
    assert "line 2: play" in out and "the deal record of deal 1 must come first" in out
    out = failure(write(tmp_path / "d.jsonl", lines[:-1]))
    assert f"line {len(lines) - 1}: the log has no end record" in out


def test_truncated_and_corrupt_files(logs: dict[str, Path], tmp_path: Path) -> None:
    data = logs["kierki"].read_bytes()
    cut = data.index(b"\n", len(data) // 2) + 20  # 20 bytes into a line
    number = data[:cut].count(b"\n") + 1
    (tmp_path / "cut.jsonl").write_bytes(data[:cut])
    assert f"line {number}: the line is cut off" in failure(tmp_path / "cut.jsonl")
    part = tmp_path / "game001.replay.jsonl.part"
    part.write_bytes(data[: data.index(b"\n", len(data) // 2) + 1])
    out = failure(part)
    assert "the log has no end record" in out and ".part" in out
    lines = raw_lines(logs["kierki"])
    lines[49] = "{not json"
    assert "line 50: not valid JSON" in failure(write(tmp_path / "bad.jsonl", lines))
    (tmp_path / "text.txt").write_text("hello\n")
    assert "line 1: not valid JSON" in failure(tmp_path / "text.txt")
    (tmp_path / "empty.jsonl").write_text("")
    assert "empty" in failure(tmp_path / "empty.jsonl")
    (tmp_path / "other.jsonl").write_text('{"type": "something"}\n')
    assert "not a kierki replay log" in failure(tmp_path / "other.jsonl")
    lines = raw_lines(logs["kierki"])
    header = json.loads(lines[0])
    lines[0] = json.dumps({**header, "version": 99})
    assert "newer than this kierki reads" in failure(write(tmp_path / "new.jsonl", lines))
    lines = raw_lines(logs["kierki"])
    lines[5] = json.dumps({"type": "unheard_of"})
    assert "line 6: unknown record type 'unheard_of'" in failure(write(tmp_path / "type.jsonl", lines))
    lines = raw_lines(logs["kierki"])
    lines[4] = json.dumps({**json.loads(lines[4]), "card": 7})
    assert "line 5: play record: Expected `str`, got `int`" in failure(write(tmp_path / "field.jsonl", lines))


def test_the_viewer_shows_what_a_partial_log_holds(logs: dict[str, Path], tmp_path: Path) -> None:
    data = logs["kierki"].read_bytes()
    part = tmp_path / "game001.replay.jsonl.part"
    part.write_bytes(data[: len(data) // 2])
    result = CliRunner().invoke(cli, ["replay", str(part)])
    assert result.exit_code == 0
    assert "partial log (.part)" in result.stderr and "cut off" in result.stderr
    assert "== deal 1 of 12" in result.stdout


def test_an_interrupted_game(logs: dict[str, Path], tmp_path: Path) -> None:
    lines = raw_lines(logs["kierki"])
    stop = next(i for i, line in enumerate(lines) if '"deal_end"' in line) + 1
    end = {"type": "end", "status": "interrupted", "detail": "KeyboardInterrupt: "}
    path = write(tmp_path / "t.jsonl", [*lines[:stop], json.dumps(end)])
    assert f"line {stop + 1}: the game did not finish: the log ends with status 'interrupted'" in failure(path)
    code, out = run("replay", path)
    assert code == 0 and "the log ends here: the game was interrupted: KeyboardInterrupt" in out
    lines[-1] = json.dumps({"type": "end", "status": "complete"})
    lines.insert(-1, json.dumps({"type": "end", "status": "complete"}))
    assert f"line {len(lines)}: a end record after the end record" in failure(write(tmp_path / "u.jsonl", lines))


def test_faults_must_be_consistent(logs: dict[str, Path], tmp_path: Path) -> None:
    lines = raw_lines(logs["faults"])
    index = next(i for i, line in enumerate(lines) if '"fault"' in line)
    fallback = json.loads(lines[index + 1])
    assert fallback["fallback"] is True
    lines[index + 1] = json.dumps({k: v for k, v in fallback.items() if k != "fallback"})
    out = failure(write(tmp_path / "a.jsonl", lines))
    assert f"line {index + 2}: play {fallback['card']} by seat 0 follows a fault (line {index + 1})" in out

    lines = raw_lines(logs["faults"])
    fault = json.loads(lines[index])
    lines[index] = json.dumps({**fault, "strikes": 2})
    assert f"line {index + 1}: the fault (illegal) of seat 0 counts 2 strikes" in failure(
        write(tmp_path / "b.jsonl", lines)
    )

    lines = raw_lines(logs["faults"])
    timeline = build_timeline(load(logs["faults"]))
    step = next(s for s in timeline.decisions if s.entry.line == index + 2)
    state = timeline.state_at(step.index)
    other = next(c for c in state.legal_plays() if PlayCard(c) != step.action)
    lines[index + 1] = json.dumps({**fallback, "card": card_name(other)})
    out = failure(write(tmp_path / "c.jsonl", lines))
    assert f"is marked as the referee's fallback, but the fallback here is play {fallback['card']}" in out

    lines = raw_lines(logs["kierki"])
    play = json.loads(lines[2])
    lines[2] = json.dumps({**play, "fallback": True})
    assert "no fault precedes it and the seat is not forfeited" in failure(write(tmp_path / "d.jsonl", lines))

    lines = raw_lines(logs["faults"])
    forfeit = next(i for i, line in enumerate(lines) if '"forfeited":true' in line)
    later = next(
        i for i in range(forfeit + 2, len(lines)) if json.loads(lines[i]).get("seat") == 0 and '"play"' in lines[i]
    )
    record = json.loads(lines[later])
    lines[later] = json.dumps({k: v for k, v in record.items() if k != "fallback"})
    assert "so only the referee's fallback plays for it" in failure(write(tmp_path / "e.jsonl", lines))


def test_a_forfeit_must_follow_the_strike_rule(logs: dict[str, Path], tmp_path: Path) -> None:
    lines = raw_lines(logs["faults"])
    index = next(i for i, line in enumerate(lines) if '"fault"' in line)
    fault = json.loads(lines[index])
    assert fault["forfeited"] is False and fault["strikes"] == 1
    lines[index] = json.dumps({**fault, "forfeited": True})
    out = failure(write(tmp_path / "a.jsonl", lines))
    assert f"line {index + 1}: the fault (illegal) of seat 0 says forfeited=true, but with max_strikes 3" in out


def test_faults_are_checked_against_the_headers_policy(logs: dict[str, Path], tmp_path: Path) -> None:
    lines = raw_lines(logs["faults"])
    header = json.loads(lines[0])
    index = next(i for i, line in enumerate(lines) if '"fault"' in line)
    assert json.loads(lines[index])["code"] == "illegal"
    lines[0] = json.dumps({**header, "consequences": {**header["consequences"], "illegal": "forfeit"}})
    out = failure(write(tmp_path / "a.jsonl", lines))
    assert f"line {index + 1}: the fault (illegal) of seat 0 says forfeited=false, but with max_strikes 3 and " in out
    assert "illegal=forfeit it is true" in out
    lines[0] = json.dumps({**header, "max_strikes": 0})
    assert "line 1: header: max_strikes must be at least 1" in failure(write(tmp_path / "b.jsonl", lines))
    lines[0] = json.dumps({k: v for k, v in header.items() if k not in ("max_strikes", "consequences")})
    assert run("replay", "--verify", write(tmp_path / "c.jsonl", lines))[0] == 0  # older logs: not checked


def test_a_header_changed(logs: dict[str, Path], tmp_path: Path) -> None:
    lines = raw_lines(logs["hearts"])
    header = json.loads(lines[0])
    lines[0] = json.dumps({**header, "seed": header["seed"] + "x"})
    assert "line 2: deal 1: " in failure(write(tmp_path / "a.jsonl", lines))
    lines[0] = json.dumps({**header, "options": {**header["options"], "passing": "loopy"}})
    assert "line 1: header: option passing" in failure(write(tmp_path / "b.jsonl", lines))


# --- the views ---------------------------------------------------------------------------------------------


def test_the_whole_game_is_printed_deal_by_deal_and_trick_by_trick(logs: dict[str, Path]) -> None:
    code, out = run("replay", logs["kierki"])
    assert code == 0
    assert "\x1b" not in out  # not a terminal: plain text
    titles = [line for line in out.splitlines() if line.startswith("== deal")]
    assert titles[0].startswith("== deal 1 of 12: no tricks") and len(titles) == 12
    first = records(logs["kierki"])[6]
    assert first["type"] == "trick"
    plays = "  ".join(f"{(first['leader'] + i) % 4}:{c}" for i, c in enumerate(first["cards"]))
    assert re.search(rf"trick  1  #0 +{re.escape(plays)}   -> seat {first['winner']}", out)
    assert "game over: 1st seat" in out
    assert out.count("names trump") == 4


def test_deal_and_trick(logs: dict[str, Path]) -> None:
    code, out = run("replay", logs["hearts"], "--deal", "2")
    assert code == 0
    assert out.lstrip().startswith("== deal 2: hearts") and "== deal 1" not in out and "== deal 3" not in out
    assert "deal 2 over" in out and "pass right" in out
    tricks = [r for r in records(logs["hearts"]) if r["type"] == "trick"]
    third = tricks[13 + 2]  # deal 2, trick 3
    code, out = run("replay", logs["hearts"], "--deal", "2", "--trick", "3")
    assert code == 0
    assert out.startswith("== deal 2: hearts, dealer seat") and ": trick 3" in out.splitlines()[0]
    assert out.count("trick  3  #") == 1 and "trick  4" not in out
    assert "  ".join(f"{(third['leader'] + i) % 4}:{c}" for i, c in enumerate(third["cards"])) in out
    assert "   seat  bot" in out  # the table as the trick began
    assert run("replay", logs["hearts"], "--trick", "3")[0] == 2
    assert run("replay", logs["hearts"], "--deal", "99")[0] == 2
    assert run("replay", logs["hearts"], "--deal", "1", "--trick", "14")[0] == 2
    assert run("replay", logs["kierki"], "--deal", "12", "--trick", "1")[0] == 2  # the loteryjka has no tricks
    assert run("replay", logs["hearts"], "--seat", "4")[0] == 2


def test_json(logs: dict[str, Path]) -> None:
    path = logs["hearts"]
    code, out = run("replay", path, "--json")
    assert code == 0
    rows = [json.loads(line) for line in out.splitlines()]
    originals = records(path)
    assert [{k: v for k, v in r.items() if k not in ("line", "decision")} for r in rows] == originals
    assert [r["line"] for r in rows] == list(range(1, len(originals) + 1))
    assert [r["decision"] for r in rows if "decision" in r] == list(range(sum(1 for r in rows if "decision" in r)))
    code, out = run("replay", path, "--json", "--deal", "2")
    rows = [json.loads(line) for line in out.splitlines()]
    assert rows[0]["type"] == "deal" and rows[0]["deal"] == 2 and rows[-1]["type"] == "deal_end"
    code, out = run("replay", path, "--json", "--deal", "2", "--trick", "3")
    rows = [json.loads(line) for line in out.splitlines()]
    assert [r["type"] for r in rows] == ["play"] * 4 + ["trick"] and rows[-1]["number"] == 3
    code, out = run("replay", path, "--json", "--seat", "2", "--deal", "1")
    rows = [json.loads(line) for line in out.splitlines()]
    deal = rows[0]
    assert deal["hands"][2] is not None and [h for s, h in enumerate(deal["hands"]) if s != 2] == [None] * 3
    assert all(r["cards"] is None for r in rows if r["type"] == "pass" and r["seat"] != 2)
    assert all(r["cards"] is not None for r in rows if r["type"] == "pass" and r["seat"] == 2)
    exchange = next(r for r in rows if r["type"] == "exchange")
    assert [p is not None for p in exchange["passed"]] == [False, True, True, False]  # sent by 1 to 2, by 2 to 3


@pytest.mark.parametrize("name", ["kierki", "kierki3", "hearts", "cancellation6", "moon", "faults"])
def test_a_seat_view_never_shows_another_seats_unplayed_cards(logs: dict[str, Path], name: str) -> None:
    timeline = build_timeline(load(logs[name]))
    players = timeline.ruleset.players
    style = Style()
    checked = 0
    for viewer in range(players):
        for index in range(len(timeline.frames)):
            others, known = hidden_and_known(timeline, index, viewer)
            text = "\n".join(to_text(line, style) for line in render_table(step_view(timeline, index, viewer), style))
            shown = {_card(t) for t in CARD.findall(text)}
            leaked = (shown & others) - known
            assert not leaked, f"seat {viewer}, frame {index}: {sorted(leaked)} shown\n{text}"
            checked += 1
    assert checked == players * len(timeline.frames)


def _card(name: str) -> int:
    return "23456789TJQKA".index(name[0]) * 4 + "CDHS".index(name[1])


@pytest.mark.parametrize("name", ["kierki", "hearts", "cancellation6", "faults"])
def test_a_seat_story_only_holds_its_own_hand_and_played_cards(logs: dict[str, Path], name: str) -> None:
    path = logs[name]
    timeline = build_timeline(load(path))
    players = timeline.ruleset.players
    by_deal: dict[int, list[dict[str, Any]]] = {}
    deal = 0
    for r in records(path)[1:]:
        deal = r["deal"] if r["type"] == "deal" else deal
        by_deal.setdefault(deal, []).append(r)
    for viewer in range(players):
        text = "\n".join(to_text(line, Style()) for line in story(timeline, Style(), viewer))
        sections = re.split(r"^== deal (\d+).*$", text, flags=re.M)
        for number, section in zip(sections[1::2], sections[2::2], strict=True):
            rows = by_deal[int(number)]
            dealt = rows[0]
            allowed = set(dealt["hands"][viewer]) | {r["card"] for r in rows if r["type"] == "play"}
            for r in rows:
                if r["type"] == "exchange":
                    allowed |= set(r["passed"][(viewer - r["pass_offset"]) % players])
            assert set(CARD.findall(section)) <= allowed, f"seat {viewer}, deal {number}"


def test_style_follows_the_terminal_and_no_color() -> None:
    class Stream:
        def __init__(self, tty: bool) -> None:
            self.tty = tty

        def isatty(self) -> bool:
            return self.tty

    assert Style.for_stream(Stream(True), {}) == Style(symbols=True, colour=True)  # type: ignore[arg-type]
    assert Style.for_stream(Stream(True), {"NO_COLOR": "1"}) == Style(symbols=True, colour=False)  # type: ignore[arg-type]
    assert Style.for_stream(Stream(False), {}) == Style(symbols=False, colour=False)  # type: ignore[arg-type]
    hearts = [("10♥", "red")]
    assert to_text(hearts, Style(True, True)) == "\x1b[31m10♥\x1b[0m"
    assert to_text(hearts, Style(True, False)) == "10♥"


def test_the_stepper(logs: dict[str, Path]) -> None:
    path = logs["kierki"]
    timeline = build_timeline(load(path))
    rows = records(path)
    stepper = Stepper(timeline)
    style = Style()

    def screen() -> str:
        return "\n".join(to_text(line, style) for line in stepper.screen(style))

    leader = (rows[1]["dealer"] + 1) % 4
    decisions = sum(1 for r in rows if r["type"] in DECISION_TYPES)
    assert f"trick 1: seat {leader} to lead" in screen() and f"0 of {decisions} decisions made" in screen()
    stepper.key("n")
    assert f"trick 1, seat {leader} led:  {leader}:{rows[2]['card']}" in screen()
    stepper.key("right")
    stepper.key("left")
    assert stepper.index == 1
    stepper.key("]")
    trick = rows[6]
    assert (
        f"last trick 1:  {leader}:{trick['cards'][0]}" in screen() and f"trick 1 -> seat {trick['winner']}" in screen()
    )
    stepper.key("[")
    assert stepper.index == 0
    for key in ("d", "3", "enter"):
        stepper.key(key)
    assert "deal 3 of 12: no queens" in screen()
    stepper.key("2")
    text = screen()
    assert "seat 2's view" in text and text.count("(13 cards)") == 3
    stepper.key("a")
    assert "all hands" in screen()
    for key in ("s", "1", "2", "enter"):
        stepper.key(key)
    assert "there is no seat 12: seats are 0 to 3" in screen()
    for key in ("s", "3", "enter"):
        stepper.key(key)
    assert "seat 3's view" in screen()
    stepper.key("a")
    for key in ("g", "4", "0", "enter"):
        stepper.key(key)
    assert "no deal 40: this log has deals 1 to 12" in screen()
    stepper.key("end")
    assert "game over" in screen()
    stepper.key("n")
    assert "this is the end of the log" in screen()
    assert stepper.key("q") is False


# --- kierki match --from FILE --at N -----------------------------------------------------------------------


def _choices(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {k: v for k, v in r.items() if k not in ("ms", "cpu_ms", "fallback", "replayed")}
        for r in rows
        if r["type"] in DECISION_TYPES
    ]


@pytest.mark.parametrize(("name", "at"), [("faults", -1), ("hearts", 30)])
def test_match_from_a_replay_at_decision_n(logs: dict[str, Path], tmp_path: Path, name: str, at: int) -> None:
    original = logs[name]
    if at < 0:  # the decision of the first fault: the fallback the referee played for it
        steps = build_timeline(load(original)).decisions
        at = next(step.index for step in steps if step.fault is not None)
    out = tmp_path / "resumed"
    result = CliRunner().invoke(cli, ["match", "--from", str(original), "--at", str(at), "--out", str(out)])
    assert result.exit_code == 0, result.output
    resumed = out / "game001.replay.jsonl"
    assert run("replay", "--verify", resumed)[0] == 0
    new, old = records(resumed), records(original)
    assert _choices(new)[:at] == _choices(old)[:at]
    decisions = [r for r in new if r["type"] in DECISION_TYPES]
    assert all(r.get("replayed") for r in decisions[:at]) and not any(r.get("replayed") for r in decisions[at:])
    assert new[0]["seed"] == old[0]["seed"] and new[0]["options"] == old[0]["options"]
    assert new[0]["deals_file"] == str(original)
    deals = [r for r in old if r["type"] == "deal"]
    assert [r for r in new if r["type"] == "deal"][: len(deals)] == deals or name == "hearts"
    if name == "faults":  # the bot that failed at that decision is asked again, and this time plays
        assert decisions[at]["seat"] == 0 and "fallback" not in decisions[at]


def test_match_from_refuses_what_it_cannot_do(logs: dict[str, Path], tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["match", "--from", str(logs["hearts"]), "--at", "100000", "--out", str(tmp_path)])
    assert result.exit_code == 1 and "--at takes 0 to" in result.output
    result = CliRunner().invoke(cli, ["match", "--at", "3", "--out", str(tmp_path)])
    assert result.exit_code == 2 and "--at N needs --from FILE" in result.output
    decisions = sum(1 for r in records(logs["hearts"]) if r["type"] in DECISION_TYPES)
    with pytest.raises(ReplayError, match="is over after"):
        resume_point(logs["hearts"], decisions)
    point = resume_point(logs["hearts"], 5)
    assert len(point.prefix) == 5 and point.seed == "5" and point.ruleset.game.value == "hearts"


def test_match_from_a_log_stopped_after_its_deals_plays_the_game_on(logs: dict[str, Path], tmp_path: Path) -> None:
    """A log that ends "stopped" (the referee played only its first deals: the ladder's validation game) resumes as
    any log does: at its last decision, the game goes on with the next deal, which the rules had already dealt
    from the seed when the referee stopped; every deal is the one the whole game with that seed deals."""
    stopped = Path(_match(tmp_path / "stopped", "hearts", None, {}, 5, deals_per_game=2)[0])
    assert records(stopped)[-1]["status"] == "stopped"
    decisions = sum(1 for r in records(stopped) if r["type"] in DECISION_TYPES)
    out = tmp_path / "resumed"
    result = CliRunner().invoke(cli, ["match", "--from", str(stopped), "--at", str(decisions), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "warning" not in result.output and f"at decision {decisions} of {decisions}" in result.output
    resumed = out / "game001.replay.jsonl"
    assert run("replay", "--verify", resumed)[0] == 0
    new = records(resumed)
    assert new[-1]["status"] == "complete" and any(r["type"] == "game_end" for r in new)
    assert _choices(new)[:decisions] == _choices(records(stopped))
    whole = [r for r in records(logs["hearts"]) if r["type"] == "deal"]  # the same seed, played to its end
    dealt = [r for r in new if r["type"] == "deal"]
    assert len(dealt) > 2 and dealt[:3] == whole[:3]
    assert dealt[: len(whole)] == whole[: len(dealt)]
    assert run("replay", "--verify", stopped)[0] == 0  # the stopped log itself still verifies


# --- the writer and the reader -----------------------------------------------------------------------------


def test_the_writer_keeps_a_part_file_until_the_game_is_over(tmp_path: Path) -> None:
    path = tmp_path / "game001.replay.jsonl"
    writer = ReplayWriter(path, _header(Ruleset.create("hearts", None, {}), seed="1"))
    assert not path.exists() and (tmp_path / "game001.replay.jsonl.part").exists()
    writer.finish(GameStatus.INTERRUPTED, "KeyboardInterrupt")
    rows = records(path)
    assert rows[0]["format"] == "kierki-replay" and rows[0]["version"] == VERSION
    assert rows[0]["referee"] and rows[0]["started"].endswith("Z")
    assert rows[-1] == {"type": "end", "status": "interrupted", "detail": "KeyboardInterrupt"}


def test_parse_keeps_a_cut_last_line_only_when_lenient(logs: dict[str, Path]) -> None:
    data = logs["kierki"].read_bytes()
    cut = data[: data.index(b"\n", 5000) + 10]
    with pytest.raises(ReplayError, match="cut off"):
        parse(cut)
    replay = parse(cut, strict=False)
    assert replay.warnings and "cut off" in replay.warnings[0]
    timeline = build_timeline(replay, strict=False)
    assert timeline.problem is not None and "no end record" in str(timeline.problem)
    assert isinstance(replay.entries[0].record, DealRecord)
    full = load(logs["kierki"])
    assert verify(full).decisions == sum(e.type in DECISION_TYPES for e in full.entries)
    assert verify(full).records == full.line_count


def test_every_frame_renders_in_every_game(logs: dict[str, Path]) -> None:
    for name in ("kierki", "cancellation9", "moon"):
        timeline = build_timeline(load(logs[name]))
        for style in (Style(), Style(True, True)):
            for index in range(0, len(timeline.frames), 7):
                assert render_table(step_view(timeline, index, None), style)
        assert json_records(timeline)


def test_the_moon_choice_is_told_in_words(logs: dict[str, Path]) -> None:
    code, out = run("replay", logs["moon"])
    assert code == 0 and re.search(r"seat 3 shot the moon and chose '(self|others)' \(points ", out), out


def test_a_lottery_deal_and_its_last_frame(logs: dict[str, Path]) -> None:
    timeline = build_timeline(load(logs["kierki"]))
    index = timeline.deal_frame(12)
    assert index is not None
    table = step_view(timeline, index, None)
    assert table.lottery and table.kind is DealKind.LOTTERY
    last = step_view(timeline, len(timeline.frames) - 1, 1)
    text = "\n".join(to_text(line, Style()) for line in render_table(last, Style()))
    assert "columns:" in text and "game over" in text


def test_verify_passes_a_game_stopped_after_a_deal_and_refuses_one_cut_inside_it(tmp_path: Path) -> None:
    """A log whose end says "stopped" (the ladder's short validation game) is verified record by record like any
    other, and passes when it stops right after a deal_end; the same status after a cut inside a deal fails."""
    ruleset = Ruleset.create("hearts", None)
    config = MatchConfig.from_spec(
        MatchSpec(rules=RulesetSpec.of(ruleset), bots=default_bots(4), seed="3", deals_per_game=1), tmp_path / "out"
    )
    path = Path(Match(config).run().replays[0])
    runner = CliRunner()
    verified = runner.invoke(cli, ["replay", "--verify", str(path)])
    assert verified.exit_code == 0 and verified.output.startswith("OK: "), verified.output
    lines = path.read_text().splitlines()
    assert json.loads(lines[-2])["type"] == "deal_end" and json.loads(lines[-1])["status"] == "stopped"
    cut = tmp_path / "cut.replay.jsonl"
    cut.write_text("\n".join([*lines[:-3], lines[-1]]) + "\n")  # the deal's last trick and its end left out
    failed = runner.invoke(cli, ["replay", "--verify", str(cut)])
    assert failed.exit_code == 1 and "the game did not finish: the log ends with status 'stopped'" in failed.output
