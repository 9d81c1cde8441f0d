"""Rebuilding a game from its replay log: the walk that re-applies every decision, the `Timeline` it yields, and
``verify`` (the walk run strictly). Resuming a game cut after N decisions (``kierki match --from``) is
`referee.replay.resume`; how the walk's messages name records and differences is `referee.replay.mismatch`.

Reading a log back never trusts a derived record: the decisions are re-applied to a fresh ``GameState`` built from
the header's ruleset and seed (and the deal records, for deals that came from a deal file), and every derived
record must equal the record the writer makes of the rules core's own events, compared Struct to Struct. So the
states a viewer shows, and the observations a seat view is built from, are the rules core's own. Faults are
checked against the header's fault policy (``referee.vocabulary.faults``), the same policy the match applies.

A `Timeline` is the walk's result: the decisions, the frames a viewer steps through, the rules event each derived
record was written from (``event_of``, which a seat's view of a record is projected from), and ``state_at(n)``,
the state after the first ``n`` decisions.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from referee.replay.mismatch import (
    at_line,
    describe_action,
    describe_decision,
    first_difference,
    record_label,
    record_name,
)
from referee.replay.reader import Entry, Replay, ReplayError, action_of, deal_spec
from referee.replay.records import (
    END_STATUSES,
    DealRecord,
    Decision,
    Derived,
    EndRecord,
    FaultRecord,
    Header,
    MoonDecision,
    PassDecision,
    PlayDecision,
    TrumpDecision,
)
from referee.replay.writer import event_record
from referee.rules import (
    Action,
    DealSpec,
    Event,
    GameState,
    IllegalActionError,
    RulesError,
    TrumpChosen,
)
from referee.rules.dealing import validate_deal
from referee.vocabulary.faults import FaultPolicy
from referee.vocabulary.match_result import GameStatus

_R = TypeVar("_R")


# --- the walk ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DecisionStep:
    index: int  # 0-based; ``kierki match --from FILE --at INDEX`` asks for this decision again
    entry: Entry
    seat: int
    action: Action
    fault: Entry | None  # the fault this decision was the fallback for

    @property
    def record(self) -> Decision:
        record = self.entry.record
        assert isinstance(record, PlayDecision | PassDecision | TrumpDecision | MoonDecision)
        return record


@dataclass
class Frame:
    """What a viewer shows at one step: the game after ``position`` decisions and the records that step added.

    A decision that ends a deal gives two frames: a closing one (the deal's last trick and scores, shown on
    the state before that decision plus its records) and the next deal's first frame.
    """

    position: int
    deal: int
    closing: bool = False
    entries: list[Entry] = field(default_factory=list)
    decision: DecisionStep | None = None

    def records(self, kind: type[_R]) -> list[_R]:
        """This step's records of one type."""
        return [e.record for e in self.entries if isinstance(e.record, kind)]


class Timeline:
    """The decisions, the frames and the states of a replay, rebuilt through the rules core."""

    def __init__(self, replay: Replay) -> None:
        self.replay = replay
        self.ruleset = replay.ruleset
        self.given: tuple[DealSpec, ...] = ()
        self.decisions: list[DecisionStep] = []
        self.frames: list[Frame] = []
        self.problem: ReplayError | None = None
        self.checked = 0  # records found consistent, the header included
        self.events: dict[int, Event] = {}  # by line: the rules event each derived record matched in the walk
        self.trump_named: dict[int, TrumpChosen] = {}  # by deal: a trump deal's naming, which shows its hands
        self._cursor: GameState | None = None
        self._cursor_at = 0

    def new_state(self) -> GameState:
        header = self.replay.header
        return GameState(self.ruleset, seed=str(header.seed), game=header.game_number, deals=self.given)

    def state_at(self, position: int) -> GameState:
        """The state after the first ``position`` decisions. Shared and reused: read it, do not keep or change it."""
        if not 0 <= position <= len(self.decisions):
            raise IndexError(f"position {position} is outside 0..{len(self.decisions)}")
        if self._cursor is None or position < self._cursor_at:
            self._cursor, self._cursor_at = self.new_state(), 0
        while self._cursor_at < position:
            step = self.decisions[self._cursor_at]
            self._cursor.apply(step.action, step.seat)
            self._cursor_at += 1
        return self._cursor

    def event_of(self, entry: Entry) -> Event | None:
        """The rules event a derived record was written from (None for the header, decisions, faults, the end)."""
        return self.events.get(entry.line)

    def deal_numbers(self) -> list[int]:
        return sorted({f.deal for f in self.frames})

    def deal_frame(self, deal: int) -> int | None:
        """The index of the first frame of ``deal``."""
        for index, frame in enumerate(self.frames):
            if frame.deal == deal and not frame.closing:
                return index
        return None

    def verified_deal_specs(self) -> tuple[DealSpec, ...]:
        """Every deal of the log that the walk reached, as given deals (hands in dealing order, dealer)."""
        limit = self.problem.line if self.problem is not None and self.problem.line is not None else None
        return tuple(deal_spec(e) for e in self.replay.deal_entries() if limit is None or e.line < limit)


def build_timeline(replay: Replay, *, strict: bool = True) -> Timeline:
    """Re-apply the log. Strict: raise ReplayError at the first disagreement; else keep it in ``problem``."""
    timeline = Timeline(replay)
    try:
        _Walk(timeline).run()
    except ReplayError as error:
        if strict:
            raise
        timeline.problem = error
    return timeline


@dataclass(frozen=True)
class Verified:
    decisions: int
    records: int


def verify(replay: Replay) -> Verified:
    """Check the whole log against the rules core; raise ReplayError naming the first line that disagrees."""
    timeline = build_timeline(replay, strict=True)
    return Verified(len(timeline.decisions), timeline.checked)


class _Walk:
    def __init__(self, timeline: Timeline) -> None:
        self.timeline = timeline
        self.replay = timeline.replay
        players = timeline.ruleset.players
        self.expected: deque[tuple[Derived, Event]] = deque()  # the records the rules' events derive, to come
        # Strikes and forfeits count over a match's games: a later game may start with a seat's strikes above 0
        # (its first fault then says how many) or with the seat already forfeited (all its decisions fallbacks).
        self.strikes: list[int | None] = [None] * players
        self.forfeited: list[int | None] = [None] * players  # the line of the forfeiting fault; 0: an earlier game
        self.asked = [False] * players  # the seat made a decision of its own in this game
        self.pending: list[Entry] = []  # a fault waiting for its fallback decision
        self.live = False  # a decision not marked "replayed" was seen
        self.ended = False
        self.policy: FaultPolicy | None = None  # None: the header predates the fault policy, forfeits go unchecked

    def run(self) -> None:
        timeline = self.timeline
        self._check_header()
        timeline.given = self._given_deals()
        try:
            self.state = timeline.new_state()
        except RulesError as error:
            raise ReplayError(f"the deals cannot start a game: {error}", 1) from None
        self._queue(self.state.events)
        timeline.frames.append(Frame(position=0, deal=1))
        timeline.checked = 1
        for entry in self.replay.entries:
            self._entry(entry)
            timeline.checked += 1
        if not self.ended:
            last = self.replay.line_count
            where = " (a .part file: the match was stopped before the game ended)" if self.replay.partial else ""
            raise ReplayError(f"the log has no end record: it was cut off after this line{where}", last)

    def _check_header(self) -> None:
        header = self.replay.header
        players = self.timeline.ruleset.players
        seats = [b.seat for b in header.bots]
        if seats != list(range(players)):
            raise ReplayError(f"header: bots must list seats 0 to {players - 1} in order, not {seats}", 1)
        if header.given_deals < 0:
            raise ReplayError("header: given_deals cannot be negative", 1)
        if header.max_strikes is not None and header.consequences is not None:
            try:
                self.policy = FaultPolicy(header.max_strikes, header.consequences)
            except ValueError as error:
                raise ReplayError(f"header: {error}", 1) from None

    def _given_deals(self) -> tuple[DealSpec, ...]:
        """The deals that did not come from the seed: the first ``given_deals`` deal records of the log.

        A format-1 log was dealt by the retired Mersenne Twister dealer, so all its deal records are taken as given
        (its decisions and scores are still verified; its deals are not checked against the seed).
        """
        header = self.replay.header
        entries = self.replay.deal_entries()
        given = entries if header.version == 1 else entries[: header.given_deals]
        specs = []
        for entry in given:
            spec = deal_spec(entry)
            try:
                validate_deal(self.timeline.ruleset, spec)
            except RulesError as error:
                raise ReplayError(f"deal record: {error}", entry.line) from None
            specs.append(spec)
        return tuple(specs)

    def _queue(self, events: Sequence[Event]) -> None:
        for event in events:
            record = event_record(event)
            if record is not None:
                self.expected.append((record, event))
            elif isinstance(event, TrumpChosen):
                self.timeline.trump_named[event.dealt.deal if event.dealt is not None else 0] = event

    def _due(self) -> str:
        state = self.state
        if state.is_over:
            return "the game is over"
        return f"a {state.phase.value} decision by seat {state.to_act} is due"

    def _missing(self) -> str:
        return f"{record_name(self.expected[0][0])} must come first (a record is missing or out of order)"

    def _entry(self, entry: Entry) -> None:
        if self.ended:
            raise ReplayError(f"a {entry.type} record after the end record", entry.line)
        if isinstance(entry.record, PlayDecision | PassDecision | TrumpDecision | MoonDecision):
            self._decision(entry, entry.record)
        elif isinstance(entry.record, FaultRecord):
            self._fault(entry, entry.record)
        elif isinstance(entry.record, EndRecord):
            self._end(entry, entry.record)
        elif isinstance(entry.record, Header):  # parse() already refuses a second header
            raise ReplayError("a second header: a log holds one game and starts with its only header", entry.line)
        else:
            self._derived(entry, entry.record)

    def _derived(self, entry: Entry, record: Derived) -> None:
        frames = self.timeline.frames
        if not self.expected:
            raise ReplayError(f"a {entry.type} record, but the rules produce no record here: {self._due()}", entry.line)
        if self.pending:
            raise ReplayError(
                f"a {entry.type} record between a fault (line {self.pending[0].line}) and its fallback decision",
                entry.line,
            )
        want, event = self.expected[0]
        if type(want) is not type(record):
            raise ReplayError(f"a {entry.type} record, but {self._missing()}", entry.line)
        difference = first_difference(want, record)
        if difference is not None:
            raise ReplayError(f"{record_label(want)}: {difference}", entry.line)
        self.expected.popleft()
        self.timeline.events[entry.line] = event
        if isinstance(record, DealRecord) and frames[-1].entries:
            frames[-1].closing = True
            frames.append(Frame(position=frames[-1].position, deal=record.deal))
        frames[-1].entries.append(entry)

    def _decision(self, entry: Entry, record: Decision) -> None:
        state = self.state
        seat = record.seat
        what = f"{describe_decision(record)} by seat {seat}"
        if self.expected:
            raise ReplayError(f"{what}, but {self._missing()}", entry.line)
        if state.is_over:
            raise ReplayError(f"{what} after the game is over", entry.line)
        if seat != state.to_act:
            raise ReplayError(f"{what}, but it is seat {state.to_act}'s turn to {state.phase.value}", entry.line)
        if record.replayed and self.live:
            raise ReplayError(f"{what} is marked replayed, but replayed decisions only open a resumed game", entry.line)
        self.live = self.live or not record.replayed
        action = action_of(entry)
        fault = self.pending[0] if self.pending else None
        forfeited_at = self.forfeited[seat]
        if fault is not None and not record.fallback:
            raise ReplayError(
                f"{what} follows a fault (line {fault.line}) but is not marked as the fallback", entry.line
            )
        if fault is None and forfeited_at is not None and not record.fallback:
            raise ReplayError(
                f"{what}: the seat was forfeited {at_line(forfeited_at)}, so only the referee's fallback plays for it",
                entry.line,
            )
        if record.fallback and fault is None and forfeited_at is None:
            if self.replay.header.game_number == 1 or self.asked[seat] or self.strikes[seat] is not None:
                raise ReplayError(
                    f"{what} is marked as a fallback, but no fault precedes it and the seat is not forfeited",
                    entry.line,
                )
            self.forfeited[seat] = 0  # forfeited in an earlier game of the match
        self.asked[seat] = self.asked[seat] or not record.fallback
        if record.fallback:
            fallback = state.fallback_action()
            if fallback != action:
                raise ReplayError(
                    f"{what} is marked as the referee's fallback, but the fallback here is {describe_action(fallback)}",
                    entry.line,
                )
        deal = state.deal_number
        try:
            events = state.apply(action, seat)
        except IllegalActionError as error:
            message = error.message
            shown = describe_decision(record).split(" ", 1)[-1] + ": "
            if message.startswith(shown):
                message = message[len(shown) :]
            raise ReplayError(f"{what} is illegal: {message} [rule {error.rule}]", entry.line) from None
        step = DecisionStep(len(self.timeline.decisions), entry, seat, action, fault)
        self.timeline.decisions.append(step)
        self.timeline.frames.append(
            Frame(position=step.index + 1, deal=deal, entries=[*self.pending, entry], decision=step)
        )
        self.pending = []
        self._queue(events)

    def _fault(self, entry: Entry, record: FaultRecord) -> None:
        state = self.state
        seat = record.seat
        what = f"fault ({record.code}) of seat {seat}"
        if self.expected:
            raise ReplayError(f"a {what}, but {self._missing()}", entry.line)
        if self.pending:
            raise ReplayError(
                f"a second fault before the fallback decision of the fault at line {self.pending[0].line}", entry.line
            )
        if state.is_over:
            raise ReplayError(f"a {what} after the game is over", entry.line)
        if seat != state.to_act:
            raise ReplayError(f"a {what}, but it is seat {state.to_act}'s turn to {state.phase.value}", entry.line)
        if self.forfeited[seat] is not None:
            raise ReplayError(
                f"a {what}, but the seat was forfeited {at_line(self.forfeited[seat])}: the fallback plays for it "
                "without faults",
                entry.line,
            )
        before = self.strikes[seat]
        if before is None and (record.strikes < 1 or (record.strikes > 1 and self.replay.header.game_number == 1)):
            raise ReplayError(f"the {what} counts {record.strikes} strikes, but it is the seat's first", entry.line)
        if before is not None and record.strikes != before + 1:
            raise ReplayError(
                f"the {what} counts {record.strikes} strikes, but it is the seat's strike {before + 1}", entry.line
            )
        self.strikes[seat] = record.strikes
        policy = self.policy
        if policy is not None:
            should = policy.forfeits(record.code, record.strikes)
            if record.forfeited != should:
                raise ReplayError(
                    f"the {what} says forfeited={str(record.forfeited).lower()}, but with max_strikes "
                    f"{policy.max_strikes} and {record.code}={policy.consequences[record.code]} it is "
                    f"{str(should).lower()}",
                    entry.line,
                )
        if record.forfeited:
            self.forfeited[seat] = entry.line
        self.pending.append(entry)

    def _end(self, entry: Entry, record: EndRecord) -> None:
        self.ended = True
        self.timeline.frames[-1].entries.append(entry)
        if record.status not in END_STATUSES:
            raise ReplayError(f"end status '{record.status}' is not one of {', '.join(END_STATUSES)}", entry.line)
        entries = self.timeline.frames[-1].entries
        if (
            record.status == GameStatus.STOPPED
            and not self.pending
            and len(entries) > 1
            and entries[-2].type == "deal_end"
        ):
            return  # stopped on purpose after a deal's end (MatchConfig.deals_per_game): every record is verified
        if record.status != GameStatus.COMPLETE:
            detail = f" ({record.detail})" if record.detail else ""
            raise ReplayError(
                f"the game did not finish: the log ends with status '{record.status}'{detail}", entry.line
            )
        if self.pending:
            raise ReplayError(
                f"the log ends after the fault at line {self.pending[0].line} without its fallback", entry.line
            )
        if self.expected:
            raise ReplayError(f"the end record, but {self._missing()}", entry.line)
        if not self.state.is_over:
            raise ReplayError(f"the end record says complete, but the game is not over: {self._due()}", entry.line)
