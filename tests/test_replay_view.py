"""The replay view model (``referee.replay.view``) against the rules core, on the golden logs of every game:
the table at a step is the rules core's state at that decision, and a seat's view holds no card of another
seat's hand (or of the kitty) that the seat could not know."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest

from kierki_cli.replay_story import story
from kierki_cli.replay_view import record_event, render_table
from kierki_cli.styled import Style, to_text
from referee.replay.reader import load, parse
from referee.replay.timeline import Timeline, build_timeline
from referee.replay.view import ShownRecord, TableView, json_records, step_view, to_json, visible_record
from referee.rules import CardPlayed, DealEnded, DealKind, DealStarted, GameState, Phase, PlayCard, Ruleset, parse_card
from referee.vocabulary.text import printable

GOLDEN = sorted((Path(__file__).parent / "golden").glob("*.replay.jsonl"))
CARD = re.compile(r"\b([2-9TJQKA][CDHS])\b")


@pytest.fixture(scope="module", params=GOLDEN, ids=lambda p: p.name.split(".")[0])
def timeline(request: pytest.FixtureRequest) -> Timeline:
    return build_timeline(load(request.param))


def _states(timeline: Timeline) -> Iterator[tuple[int, GameState]]:
    """Each frame with the rules core's state at it, from a fresh game of our own (not the timeline's cursor)."""
    state = GameState(timeline.ruleset, seed=timeline.replay.header.seed, deals=timeline.given)
    done = 0
    for index, frame in enumerate(timeline.frames):
        while done < frame.position:
            step = timeline.decisions[done]
            state.apply(step.action, step.seat)
            done += 1
        yield index, state


def _sampled(timeline: Timeline) -> set[int]:
    closing = {i for i, f in enumerate(timeline.frames) if f.closing}
    return {0, len(timeline.frames) - 1, *range(0, len(timeline.frames), 13), *closing}


def test_the_table_is_the_rules_cores_state_at_that_decision(timeline: Timeline) -> None:
    players = timeline.ruleset.players
    sampled = _sampled(timeline)
    checked = closing = 0
    for index, state in _states(timeline):
        if index not in sampled:
            continue
        frame = timeline.frames[index]
        view = step_view(timeline, index, None)
        assert view.position == frame.position and view.decisions == len(timeline.decisions)
        assert view.decision == (frame.decision.index if frame.decision else None)
        if view.closing:  # the deal's end: its last card laid, its last trick and scores, from the log's records
            closing += 1
            step = frame.decision
            assert step is not None
            end = next(e.raw for e in frame.entries if e.type == "deal_end")
            assert [s.deal_score for s in view.seats] == end["scores"]
            assert [s.total for s in view.seats] == end["totals"]
            tricks = [e.raw for e in frame.entries if e.type == "trick"]
            if tricks:
                assert view.trick == view.last_trick and view.trick.finished
                assert [parse_card(c) for c in tricks[-1]["cards"]] == [c for _, c in view.trick.plays]
                assert view.trick.winner == tricks[-1]["winner"]
            if isinstance(step.action, PlayCard):
                assert step.action.card not in (view.seats[step.seat].hand or ())
                if view.lottery:
                    column = view.lottery_columns[step.action.card & 3]
                    assert column is not None and column[0] <= step.action.card >> 2 <= column[1]
            assert view.to_act is None
            continue
        obs = state.observation(0)
        assert [list(s.hand or ()) for s in view.seats] == [state.hand(s) for s in range(players)]
        assert [s.hand_size for s in view.seats] == [len(state.hand(s)) for s in range(players)]
        assert [s.deal_score for s in view.seats] == list(obs.deal_scores)
        assert [s.total for s in view.seats] == state.totals
        assert view.trick.plays == obs.trick and view.trick.number == len(obs.tricks) + 1
        assert (view.last_trick.plays if view.last_trick else None) == (obs.tricks[-1].plays if obs.tricks else None)
        assert view.lottery_columns == obs.lottery_columns
        assert view.phase is state.phase and view.deal == state.deal_number and view.kind is state.kind
        assert view.to_act == (None if state.is_over else state.to_act)
        assert view.legal == tuple(state.legal_plays()) and view.hearts_broken is obs.hearts_broken
        assert view.lottery_out == obs.lottery_finished
        assert view.kitty_size == obs.kitty_size and view.pending_cards == obs.pending_cards
        dealt = next(e for e in reversed(state.events) if isinstance(e, DealStarted))
        assert view.kitty == dealt.kitty
        for seat in range(players):
            seen = step_view(timeline, index, seat)
            own = state.observation(seat)
            assert seen.seats[seat].hand == (() if own.phase is Phase.TRUMP else own.hand)
            assert all(s.hand is None for s in seen.seats if s.seat != seat)
            assert [s.hand_size for s in seen.seats] == list(own.hand_sizes)
            assert seen.kitty is None
            assert seen.legal == (view.legal if seat == state.to_act else ())
        checked += 1
    assert checked >= 10 and closing == sum(f.closing for f in timeline.frames)


def _model_cards(view: TableView) -> Counter[int]:
    """Every card the model shows, wherever it is (hands, tricks, passes, the kitty, the records' fields)."""
    cards: Counter[int] = Counter()
    for seat in view.seats:
        cards.update(seat.hand or ())
    for trick in (view.trick, view.last_trick):
        if trick is not None:
            cards.update(c for _, c in trick.plays)
            cards.update(trick.collected or ())
    for side in view.passes:
        cards.update(side.sent or ())
        cards.update(side.received)
    cards.update(view.trump_cards_seen)
    cards.update(view.kitty or ())
    for fault in view.faults:
        cards.update(parse_card(c) for c in CARD.findall(fault.message or ""))
    for shown in view.records:
        cards.update(parse_card(c) for c in CARD.findall(msgspec.json.encode(shown.record).decode()))
    return cards


def test_a_seat_view_holds_no_other_seats_hidden_card(timeline: Timeline) -> None:
    players = timeline.ruleset.players
    shown_somewhere = 0
    for index, state in _states(timeline):
        frame = timeline.frames[index]
        table = state.ended_deal if frame.closing and frame.decision is not None else state
        assert table is not None
        dealt = next(e for e in reversed(table.events) if isinstance(e, DealStarted))
        for viewer in range(players):
            obs = table.observation(viewer)
            known = set(obs.hand) | set(obs.passed) | set(obs.received) | set(dealt.hands[viewer])
            known |= {c for _, c in obs.trick} | {c for t in obs.tricks for _, c in t.plays}
            for suit, column in enumerate(obs.lottery_columns):
                if column is not None:
                    known |= {rank * 4 + suit for rank in range(column[0], column[1] + 1)}
            if frame.decision is not None and isinstance(frame.decision.action, PlayCard):
                known.add(frame.decision.action.card)
            hidden = {c for s in range(players) if s != viewer for c in table.hand(s)} | set(dealt.kitty)
            view = step_view(timeline, index, viewer)
            shown = set(_model_cards(view))
            leaked = (shown & hidden) - known
            assert not leaked, f"seat {viewer}, frame {index}: {sorted(leaked)} shown"
            decoded = msgspec.json.decode(to_json(view))
            assert [s["hand"] is None for s in decoded["seats"]] == [s != viewer for s in range(players)]
            shown_somewhere += bool(shown)
    assert shown_somewhere


def test_the_model_is_plain_json(timeline: Timeline) -> None:
    for index in sorted(_sampled(timeline))[:12]:
        for viewer in (None, 0):
            view = step_view(timeline, index, viewer)
            data = msgspec.json.decode(to_json(view))
            assert data["viewer"] == viewer and data["game"] == timeline.ruleset.game.value
            assert len(data["seats"]) == timeline.ruleset.players and "\x1b" not in to_json(view).decode()
            assert [r["line"] for r in data["records"]] == [e.line for e in timeline.frames[index].entries]


def test_json_redaction_is_the_projection(timeline: Timeline) -> None:
    players = timeline.ruleset.players
    for viewer in range(players):
        rows = json_records(timeline, viewer)
        for row in rows:
            if row["type"] == "deal":
                assert [h is not None for h in row["hands"]] == [s == viewer for s in range(players)]
                assert row["kitty"] is None
            elif row["type"] == "trick":
                assert row["collected"] is None
            elif row["type"] == "exchange":
                giver = (viewer - row["pass_offset"]) % players
                assert [p is not None for p in row["passed"]] == [s in (viewer, giver) for s in range(players)]
            elif row["type"] == "pass":
                assert (row["cards"] is None) == (row["seat"] != viewer)
    entries = [e for f in timeline.frames for e in f.entries]
    assert all(visible_record(timeline, e, None) == e.raw for e in entries)


def test_the_stepper_and_the_printout_draw_the_model(timeline: Timeline) -> None:
    index = len(timeline.frames) // 2
    view = step_view(timeline, index, 1)
    text = "\n".join(to_text(line, Style()) for line in render_table(view, Style()))
    assert f"{view.position} of {view.decisions} decisions made" in text and "seat 1's view" in text
    with pytest.raises(ValueError, match="there is no seat"):
        step_view(timeline, index, timeline.ruleset.players)


def test_bot_text_is_escaped_before_it_reaches_a_terminal() -> None:
    path = GOLDEN[0]
    lines = path.read_bytes().split(b"\n")
    header: dict[str, Any] = msgspec.json.decode(lines[0])
    header["bots"][0]["name"] = "evil\x1b[2J\x1b]0;owned\x07bot"
    header["bots"][1]["version"] = "1.0\u202e"
    timeline = build_timeline(parse(b"\n".join([msgspec.json.encode(header), *lines[1:]])))
    text = "\n".join(to_text(line, Style()) for line in story(timeline, Style()))
    screen = "\n".join(to_text(line, Style()) for line in render_table(step_view(timeline, 0, None), Style()))
    for shown in (text, screen):
        assert "\x1b" not in shown and "\x07" not in shown and "\u202e" not in shown
        assert "evil\\x1b[2J\\x1b]0;owned\\x07bot" in shown
    fault = ShownRecord(
        5,
        None,
        {"type": "fault", "seat": 0, "code": "illegal", "message": "no\x1b[31m\r\n", "strikes": 1, "forfeited": False},
    )
    said = to_text(record_event(fault, None, Style(), 4), Style(True, True))
    assert said.count("\x1b") == 2 and "no\\x1b[31m\\x0d\\x0a" in said  # only our own bold on and off
    assert printable("plain ♥ text") == "plain ♥ text"


def test_cancelled_cards_and_the_kitty_in_cancellation_hearts() -> None:
    path = next(p for p in GOLDEN if p.name.startswith("cancellation"))
    timeline = build_timeline(load(path))
    cancelled = kitty_taken = 0
    for index, frame in enumerate(timeline.frames):
        if frame.closing or not any(e.type == "trick" for e in frame.entries):
            continue
        view = step_view(timeline, index, None)
        last = view.last_trick
        assert last is not None and last.finished
        cards = Counter(c for _, c in last.plays)
        assert last.cancelled == tuple(sorted(c for c, n in cards.items() if n == 2))
        cancelled += bool(last.cancelled)
        if last.winner is None:
            assert last.collected == ()
        if last.number == 1 and last.winner is not None and view.kitty:
            assert Counter(view.kitty) <= Counter(last.collected)  # the first trick with a winner takes the kitty
            kitty_taken += 1
        seat_view = step_view(timeline, index, 0)
        assert seat_view.last_trick is not None and seat_view.last_trick.collected is None
        assert seat_view.last_trick.cancelled == last.cancelled
    assert cancelled and kitty_taken


@pytest.mark.parametrize(("game", "players"), [("kierki", 4), ("kierki3", 3), ("hearts", 4), ("cancellation", 7)])
def test_the_state_keeps_the_table_as_each_deal_ended(game: str, players: int) -> None:
    """``GameState.ended_deal``: the last card laid, the scores counted, before the next deal is dealt."""
    state = GameState(Ruleset.create(game, players), seed=11)
    ended = 0
    while not state.is_over:
        events = state.apply(state.fallback_action())
        for event in events:
            if isinstance(event, DealEnded):
                table = state.ended_deal
                assert table is not None and table.ended_deal is None  # one deal's end, not a chain
                obs = table.observation(0)
                assert obs.deal == event.deal and obs.deal_scores == event.scores and obs.totals == event.totals
                ended += 1
                last = next((e for e in reversed(events) if isinstance(e, CardPlayed)), None)
                if last is None:  # a moon choice ended it
                    continue
                assert last.card not in table.hand(last.seat) or game == "cancellation"
                column = obs.lottery_columns[last.card & 3]
                if obs.kind is DealKind.LOTTERY:  # the loteryjka's last card is laid in its column
                    assert column is not None and column[0] <= last.card >> 2 <= column[1]
    assert ended == len(state.deal_results)
