"""Helpers for the replay page tests: logs written in-process (no bots, so an 11-player game takes no time), the
page's embedded data read back, and what a seat may know at a step, from the rules core alone."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from referee.replay.records import FORMAT, VERSION, BotRecord, ClockRecord, FaultRecord, Header
from referee.replay.timeline import Timeline
from referee.replay.writer import ReplayWriter, decision_record, event_record
from referee.rules import GameState, Phase, PlayCard, Ruleset
from referee.vocabulary.faults import FaultCode
from referee.vocabulary.match_result import GameStatus

HOSTILE_NAME = '</script><script>alert("x")</script><b>bold</b> & \x1b[2J \u202eevil'
_EMBEDDED = re.compile(r'<script type="application/json" id="replay-data">(.*?)</script>', re.S)


GOLDEN = Path(__file__).parent / "golden"


def viewer_logs(folder: Path) -> dict[str, Path]:
    """One log of each game for the viewers' tests, by name: the three goldens, and a Kierki for three and an
    eleven-player Cancellation (with a fault) written into ``folder``."""
    return {
        "kierki": GOLDEN / "kierki-seed3.replay.jsonl",
        "hearts": GOLDEN / "hearts-target30-seed5.replay.jsonl",
        "cancellation6": GOLDEN / "cancellation6-target30-seed7.replay.jsonl",
        "kierki3": write_game(folder / "k3.replay.jsonl", "kierki3", None, 2),
        "cancellation11": write_game(folder / "c11.replay.jsonl", "cancellation", 11, 3, fault_seat=4),
    }


def in_process_header(ruleset: Ruleset, seed: str | int, names: Sequence[str], given_deals: int = 0) -> Header:
    """The header of a log written here, its decisions made in this process: no bot, no clock."""
    return Header(
        format=FORMAT,
        version=VERSION,
        protocol=1,
        game=ruleset.game.value,
        players=ruleset.players,
        options=ruleset.options(),
        seed=seed,
        game_number=1,
        deals_file=None,
        given_deals=given_deals,
        bots=[BotRecord(seat=s, name=name, version="", command="in-process") for s, name in enumerate(names)],
        time=ClockRecord(move_ms=0, startup_ms=0, bank_ms=0, increment_ms=0),
    )


def write_game(
    path: Path,
    game: str,
    players: int | None,
    seed: int,
    options: dict[str, object] | None = None,
    *,
    names: list[str] | None = None,
    fault_seat: int | None = None,
) -> Path:
    """A whole game played by the referee's fallback for every seat; with ``fault_seat``, that seat's first card
    is written as a fault (its message quotes hostile bot text) followed by the fallback."""
    ruleset = Ruleset.create(game, players, options or {})
    names = names or [f"fallback{s}" for s in range(ruleset.players)]
    state = GameState(ruleset, seed=seed)
    writer = ReplayWriter(path, in_process_header(ruleset, seed, names))
    for event in state.events:
        record = event_record(event)
        if record:
            writer.write(record)
    faulted = False
    while not state.is_over:
        seat = state.to_act
        action = state.fallback_action()
        fallback = False
        if seat == fault_seat and not faulted and state.phase is Phase.PLAY:
            message = f"'{HOSTILE_NAME}' is not a card in your hand"
            writer.write(FaultRecord(seat=seat, code=FaultCode.ILLEGAL, message=message, strikes=1, forfeited=False))
            faulted = fallback = True
        events = state.apply(action, seat)
        writer.write(decision_record(seat, action, None if fallback else 0.5, fallback))
        for event in events:
            record = event_record(event)
            if record:
                writer.write(record)
    return writer.finish(GameStatus.COMPLETE)


def embedded(page: str) -> dict[str, Any]:
    found = _EMBEDDED.search(page)
    assert found is not None, "the page embeds its data"
    data: dict[str, Any] = json.loads(found.group(1))
    return data


def card_id(name: str) -> int:
    return "23456789TJQKA".index(name[0]) * 4 + "CDHS".index(name[1])


def hidden_and_known(timeline: Timeline, index: int, viewer: int) -> tuple[set[int], set[int]]:
    """From the rules core alone: the cards in other seats' hands at frame ``index``, and those ``viewer`` may
    know anyway (its own hand, what it passed and got, cards on the table and played this deal, laid columns)."""
    frame = timeline.frames[index]
    state = timeline.state_at(frame.position - 1 if frame.closing else frame.position)
    hands = [Counter(state.hand(s)) for s in range(timeline.ruleset.players)]
    obs = state.observation(viewer)
    known = set(obs.hand) | set(obs.passed) | set(obs.received) | {c for _, c in obs.trick}
    known |= {c for trick in obs.tricks for _, c in trick.plays}
    for suit, column in enumerate(obs.lottery_columns):
        if column is not None:
            known |= {rank * 4 + suit for rank in range(column[0], column[1] + 1)}
    if frame.closing and frame.decision is not None and isinstance(frame.decision.action, PlayCard):
        hands[frame.decision.seat][frame.decision.action.card] -= 1
        known.add(frame.decision.action.card)
    if obs.phase is Phase.TRUMP:
        known = set(obs.hand)
    others = {c for s, hand in enumerate(hands) if s != viewer for c, n in hand.items() if n > 0}
    return others, known
