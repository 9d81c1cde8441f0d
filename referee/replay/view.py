"""What a replay's table looks like at one step, for one viewer: plain data, no styling, no text.

A viewer is ``None`` (every hand: the referee's view) or a seat. What a seat may see comes from the rules core
only: the table from ``GameState.observation(seat)`` of the timeline's state, and each record of the step from
``projection.redactions(event, seat)`` of the rules event the walk matched it to (``Timeline.event_of``). The one
thing the rules core cannot decide is the referee's own records: a fault's message (it may list the seat's legal
cards) and a pass decision (before the exchange only the passer's observation holds it) belong to their own seat.

`step_view` gives the table at one step of a `Timeline`; `visible_record` one log record as a viewer may see it
(what it may not is null), the same redaction ``kierki replay --json --seat N`` prints. Both are frozen
dataclasses of ints, strings, enums, tuples and JSON-ready dicts: ``msgspec.json.encode`` takes them as they are
(`to_json`), so the terminal printout, the stepper and a web page draw the same model.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgspec

from referee.replay.reader import Entry
from referee.replay.records import DERIVED_TYPES, PlayDecision, TrickRecord
from referee.replay.timeline import Frame, Timeline
from referee.rules import (
    DealKind,
    DealStarted,
    Game,
    GameState,
    Observation,
    Phase,
    TrickEnded,
    card_name,
)
from referee.rules.cards import Card, Suit
from referee.rules.dealing import hand_size
from referee.rules.kierki_scoring import deal_kinds
from referee.rules.projection import redactions
from referee.rules.tricks import cancelled_cards

__all__ = [
    "FaultView",
    "PassView",
    "ShownRecord",
    "TableSeat",
    "TableView",
    "TrickShown",
    "TrickSpan",
    "deal_count",
    "json_records",
    "shown_records",
    "step_view",
    "to_json",
    "tricks_of",
    "visible_record",
]

# How each kind of deal is named to people (the printout, the stepper, the web page).
KIND_NAMES = {
    DealKind.NO_TRICKS: "no tricks",
    DealKind.NO_HEARTS: "no hearts",
    DealKind.NO_QUEENS: "no queens",
    DealKind.NO_KINGS_JACKS: "no kings or jacks",
    DealKind.NO_KING_OF_HEARTS: "no king of hearts",
    DealKind.NO_SEVENTH_LAST: "no 7th and last trick",
    DealKind.ROBBER: "the robber",
    DealKind.TRUMP: "trumps",
    DealKind.LOTTERY: "the loteryjka",
    DealKind.HEARTS: "hearts",
    DealKind.CANCELLATION: "cancellation hearts",
}


@dataclass(frozen=True, slots=True)
class TableSeat:
    """One seat at the table. ``name`` is the bot's name as the log holds it: a presenter escapes it."""

    seat: int
    name: str
    hand: tuple[Card, ...] | None  # lowest id first; None: hidden from this viewer (only its size is known)
    hand_size: int
    deal_score: int
    total: int


@dataclass(frozen=True, slots=True)
class TrickShown:
    """A trick on the table (``finished`` False: the cards played so far) or a finished one."""

    number: int
    leader: int
    plays: tuple[tuple[int, Card], ...]  # seat, card, in playing order
    finished: bool
    winner: int | None  # None while unfinished, or when every led-suit card cancelled (Cancellation Hearts)
    cancelled: tuple[Card, ...]  # Cancellation Hearts: cards played twice to this trick, cancelling each other
    collected: tuple[Card, ...] | None  # what the winner took (with any kitty or carried pile); None: not shown


@dataclass(frozen=True, slots=True)
class PassView:
    """One seat's side of this deal's passing, as far as the viewer may know it."""

    seat: int
    sent: tuple[Card, ...] | None  # None: not yet passed (or not known)
    giver: int | None  # who it received from, once the cards are exchanged
    received: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class ShownRecord:
    """One log record of the step, as the viewer may see it: ``record`` is the log's JSON object, with what the
    viewer could not know set to null."""

    line: int
    decision: int | None  # the decision's number (for ``kierki match --from FILE --at N``); None: not a decision
    record: dict[str, Any]

    @property
    def type(self) -> str:
        return str(self.record["type"])


@dataclass(frozen=True, slots=True)
class FaultView:
    """A fault at this step; the referee played a fallback decision for the seat."""

    seat: int
    code: str
    strikes: int
    forfeited: bool
    message: str | None  # the referee's words to the seat (bot text may be quoted in it); None: not shown


@dataclass(frozen=True, slots=True)
class TableView:
    """The table after ``position`` decisions, as ``viewer`` (None: every hand) may see it."""

    viewer: int | None
    game: Game
    players: int
    deal: int
    deals: int | None  # deals in the game (Kierki); None when a target score ends it
    kind: DealKind
    dealer: int
    phase: Phase
    to_act: int | None  # None when nobody is to act here (the game is over, or the step closes a deal)
    trump: Suit | None
    trump_named: bool
    trump_cards_seen: tuple[Card, ...]  # while trump is being named: the dealer's first cards, when visible
    pass_offset: int  # receiver = (seat + pass_offset) % players; 0 = no passing
    seats: tuple[TableSeat, ...]
    trick: TrickShown  # on the table; at a deal's closing step, the deal's last trick with its cards
    last_trick: TrickShown | None
    passes: tuple[PassView, ...]  # only seats whose passing the viewer may know, and only once it began
    lottery_columns: tuple[tuple[int, int] | None, ...]  # per suit: lowest and highest rank laid (the loteryjka)
    lottery_out: tuple[int, ...]  # the loteryjka: seats that have played their last card, first out first
    hearts_broken: bool
    legal: tuple[Card, ...]  # the cards the seat to play may play, when this viewer may know them
    kitty_size: int  # cards still in the kitty
    kitty: tuple[Card, ...] | None  # the deal's kitty; None: not shown to this viewer (a seat sees only its size)
    pending_cards: int  # cards of cancelled tricks waiting for the next trick with a winner
    cards_per_hand: int  # a full hand of this game
    position: int  # decisions made before this table (at a closing step: including the deal's last one)
    decisions: int  # decisions in the log
    decision: int | None  # the number of this step's decision, if it has one
    fallback: bool  # that decision was the referee's fallback for the seat (after a fault, or a forfeited seat)
    faults: tuple[FaultView, ...]
    closing: bool  # the step that ends a deal: its last card, its last trick and scores, before the next deal
    records: tuple[ShownRecord, ...]  # what happened at this step: its faults, its decision, the records derived

    @property
    def lottery(self) -> bool:
        return self.kind is DealKind.LOTTERY


def to_json(value: TableView | ShownRecord) -> bytes:
    return msgspec.json.encode(value)


def deal_count(timeline: Timeline) -> int | None:
    """The number of deals of a Kierki game; None for games that a target score ends."""
    ruleset = timeline.ruleset
    if ruleset.game in (Game.KIERKI, Game.KIERKI3):
        return len(deal_kinds(ruleset))
    return None


# --- one record as a viewer may see it ----------------------------------------------------------------------


def _names(cards: tuple[Card, ...]) -> list[str]:
    return [card_name(c) for c in cards]


def visible_record(timeline: Timeline, entry: Entry, viewer: int | None) -> dict[str, Any]:
    """The record of ``entry`` as ``viewer`` may see it (None: as written); what it could not know is null."""
    raw = entry.raw
    if viewer is None:
        return dict(raw)
    record = dict(raw)
    kind = entry.type
    if kind in DERIVED_TYPES:
        event = timeline.event_of(entry)
        assert event is not None, "every derived record of a frame was matched to its event by the walk"
        named = timeline.trump_named.get(event.deal) if isinstance(event, DealStarted) else None
        for field, seen in redactions(event, viewer, named).items():
            record[field] = _written(seen)
    elif kind == "pass" and raw.get("seat") != viewer:
        record["cards"] = None  # a pass is its seat's own until the exchange, which the projection then shows
    elif kind == "fault" and raw.get("seat") != viewer:
        record["message"] = None  # the referee's words to the seat at fault may list its legal cards
    return record


def _written(seen: object) -> Any:
    """What a seat sees of a record's field (``projection.redactions``), as the log writes it: cards by name."""
    if isinstance(seen, tuple):
        if all(type(part) is int for part in seen):
            return _names(seen)
        return [_written(part) for part in seen]
    return seen


def shown_records(timeline: Timeline, frame: Frame, viewer: int | None) -> tuple[ShownRecord, ...]:
    step = frame.decision
    return tuple(
        ShownRecord(
            entry.line,
            step.index if step is not None and step.entry is entry else None,
            visible_record(timeline, entry, viewer),
        )
        for entry in frame.entries
    )


# --- the table at one step ----------------------------------------------------------------------------------


def step_view(timeline: Timeline, index: int, viewer: int | None) -> TableView:
    """The table at frame ``index`` of ``timeline``, as ``viewer`` may see it."""
    frame = timeline.frames[index]
    players = timeline.ruleset.players
    if viewer is not None and not 0 <= viewer < players:
        raise ValueError(f"there is no seat {viewer}: seats are 0 to {players - 1}")
    closing = frame.closing and frame.decision is not None
    state = timeline.state_at(frame.position)
    if closing:
        assert state.ended_deal is not None, "a closing step follows a deal's end"
        state = state.ended_deal
    seats = list(range(players)) if viewer is None else [viewer]
    obs = {s: state.observation(s) for s in seats}
    base = obs[seats[0]]
    trump_phase = base.phase is Phase.TRUMP
    rows = []
    for seat in range(players):
        hand: tuple[Card, ...] | None = None
        if viewer is None:
            hand = tuple(state.hand(seat))
        elif seat == viewer:
            hand = () if trump_phase else base.hand
        size = len(hand) if hand is not None and viewer is None else base.hand_sizes[seat]
        rows.append(
            TableSeat(seat, timeline.replay.bot_name(seat), hand, size, base.deal_scores[seat], base.totals[seat])
        )
    records = shown_records(timeline, frame, viewer)
    last = _finished(base, state, viewer, -1) if base.tricks else None
    trick = TrickShown(
        len(base.tricks) + 1, base.trick_leader, base.trick, False, None, _cancelled(state, base.trick), None
    )
    if closing and any(r.type == "trick" for r in records) and last is not None:
        trick = last  # the deal's last trick, shown with its cards as it was taken
    phase = Phase.OVER if any(r.type == "game_end" for r in records) else base.phase
    return TableView(
        viewer=viewer,
        game=timeline.ruleset.game,
        players=players,
        deal=base.deal,
        deals=deal_count(timeline),
        kind=base.kind,
        dealer=base.dealer,
        phase=phase,
        to_act=None if closing or phase is Phase.OVER else base.to_act,
        trump=base.trump,
        trump_named=base.trump_named,
        trump_cards_seen=obs[base.dealer].hand if trump_phase and base.dealer in obs else (),
        pass_offset=base.pass_offset,
        seats=tuple(rows),
        trick=trick,
        last_trick=last,
        passes=_passes(obs, players),
        lottery_columns=base.lottery_columns,
        lottery_out=base.lottery_finished,
        hearts_broken=base.hearts_broken,
        legal=() if closing else obs[base.to_act].legal if base.to_act in obs else (),
        kitty_size=base.kitty_size,
        kitty=_kitty(state) if viewer is None else None,
        pending_cards=base.pending_cards,
        cards_per_hand=hand_size(timeline.ruleset),
        position=frame.position,
        decisions=len(timeline.decisions),
        decision=frame.decision.index if frame.decision is not None else None,
        fallback=any(r.decision is not None and r.record.get("fallback") is True for r in records),
        faults=tuple(
            FaultView(
                r.record["seat"], r.record["code"], r.record["strikes"], r.record["forfeited"], r.record["message"]
            )
            for r in records
            if r.type == "fault"
        ),
        closing=closing,
        records=records,
    )


def _cancelled(state: GameState, plays: tuple[tuple[int, Card], ...]) -> tuple[Card, ...]:
    if state.ruleset.game is not Game.CANCELLATION:
        return ()
    return cancelled_cards(card for _, card in plays)


def _finished(base: Observation, state: GameState, viewer: int | None, which: int) -> TrickShown:
    view = base.tricks[which]
    collected: tuple[Card, ...] | None = None
    if viewer is None:  # every seat's view: what the winner collected, the kitty included, from the rules event
        ended = [e for e in state.events if isinstance(e, TrickEnded)]
        collected = ended[-len(base.tricks) :][which].collected if ended else None
    return TrickShown(view.number, view.leader, view.plays, True, view.winner, _cancelled(state, view.plays), collected)


def _kitty(state: GameState) -> tuple[Card, ...]:
    dealt = next(e for e in reversed(state.events) if isinstance(e, DealStarted))
    return dealt.kitty


def _passes(obs: dict[int, Observation], players: int) -> tuple[PassView, ...]:
    views = []
    for seat, o in sorted(obs.items()):
        if not o.passed and not o.received:
            continue
        giver = (seat - o.pass_offset) % players if o.received else None
        views.append(PassView(seat, o.passed or None, giver, o.received))
    return tuple(views)


# --- the records of a whole game, a deal or a trick ----------------------------------------------------------


@dataclass(frozen=True)
class TrickSpan:
    number: int
    first: int  # index of the frame of the trick's first card
    last: int  # index of the frame holding the trick record


def tricks_of(timeline: Timeline, deal: int) -> list[TrickSpan]:
    spans = []
    first: int | None = None
    for index, frame in enumerate(timeline.frames):
        if frame.deal != deal:
            continue
        if frame.decision is not None and isinstance(frame.decision.entry.record, PlayDecision) and first is None:
            first = index
        for trick in frame.records(TrickRecord):
            if first is not None:
                spans.append(TrickSpan(trick.number, first, index))
            first = None
    return spans


def json_records(
    timeline: Timeline, viewer: int | None = None, deal: int | None = None, span: TrickSpan | None = None
) -> list[dict[str, Any]]:
    """The records (the header first, unless one deal or trick is asked for), each with its ``line`` and, for a
    decision, its ``decision`` number; with a ``viewer``, as that seat may see them (`visible_record`)."""
    out: list[dict[str, Any]] = []
    if deal is None:
        out.append({**timeline.replay.header_raw, "line": 1})
    frames = range(len(timeline.frames)) if span is None else range(span.first, span.last + 1)
    for index in frames:
        frame = timeline.frames[index]
        if deal is not None and frame.deal != deal:
            continue
        for shown in shown_records(timeline, frame, viewer):
            record = {**shown.record, "line": shown.line}
            if shown.decision is not None:
                record["decision"] = shown.decision
            out.append(record)
            if span is not None and index == span.last and shown.type == "trick":
                break
    return out
