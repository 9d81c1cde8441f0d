"""Showing a replay as text: the table at one step, the whole game as a story, the records as JSON, the stepper.

What a seat view shows is built from the rules core's ``GameState.observation(seat)`` of the re-applied game
and from public records only (plays, tricks, scores), so it can only show what that seat knew at that moment:
its own hand, the cards played, what it passed and received. Records that hold private information (the deal's
hands, other seats' passes, the exchange, a fault message that lists another seat's legal cards, a trick's
collected pile with the kitty) are never read for a seat view's text, and are redacted in its JSON.

Text is built as lines of styled spans, so the same table is printed plain, with ANSI colours, or drawn by
curses. Cards are written as the log writes them (``TH``, ``QS``) unless the output is a terminal, where they
get suit symbols (``10♥``, ``Q♠``), red for hearts and diamonds unless ``NO_COLOR`` is set.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import IO, Any

from referee.replay.reader import Entry
from referee.replay.records import (
    DealEndRecord,
    DealRecord,
    EndRecord,
    ExchangeRecord,
    FaultRecord,
    GameEndRecord,
    LotteryPassRecord,
    MoonDecision,
    OutRecord,
    PassDecision,
    PlayDecision,
    TrickRecord,
    TrumpDecision,
)
from referee.replay.timeline import Frame, Timeline
from referee.rules import Card, DealKind, GameState, Observation, Phase, PlayCard, parse_card
from referee.rules.cards import RANK_LETTERS, SUIT_LETTERS, SUIT_SYMBOLS, CardParseError, sort_for_display
from referee.rules.dealing import hand_size
from referee.rules.kierki_scoring import deal_kinds
from referee.rules.ruleset import Game

# --- styled text -------------------------------------------------------------------------------------------

Span = tuple[str, str]  # text, tag: "" plain, "red", "bold", "dim"
Line = list[Span]

_ANSI = {"red": "\x1b[31m", "bold": "\x1b[1m", "dim": "\x1b[2m"}
_RESET = "\x1b[0m"


@dataclass(frozen=True)
class Style:
    symbols: bool = False  # suit symbols and "10"; otherwise the log's card names (TH, QS)
    colour: bool = False  # red hearts and diamonds, bold titles (ANSI escapes or curses attributes)

    @classmethod
    def for_stream(cls, stream: IO[str], env: Mapping[str, str] | None = None) -> Style:
        """Symbols on a terminal; colour on a terminal unless NO_COLOR is set (no-color.org)."""
        env = os.environ if env is None else env
        try:
            tty = stream.isatty()
        except (AttributeError, ValueError):
            tty = False
        return cls(symbols=tty, colour=tty and not env.get("NO_COLOR"))

    @property
    def arrow(self) -> str:
        return "→" if self.symbols else "->"

    @property
    def pointer(self) -> str:
        return "▶" if self.symbols else ">"

    @property
    def dot(self) -> str:
        return "·" if self.symbols else "-"


def to_text(line: Line, style: Style) -> str:
    if not style.colour:
        return "".join(text for text, _ in line)
    return "".join(f"{_ANSI[tag]}{text}{_RESET}" if tag in _ANSI and text else text for text, tag in line)


def line_width(line: Line) -> int:
    return sum(len(text) for text, _ in line)


def card_text(card: Card, style: Style) -> str:
    rank = RANK_LETTERS[card >> 2]
    if style.symbols:
        return ("10" if rank == "T" else rank) + SUIT_SYMBOLS[card & 3]
    return rank + SUIT_LETTERS[card & 3]


def _red(card: Card) -> bool:
    return card & 3 in (1, 2)


def card_span(card: Card, style: Style) -> Span:
    return card_text(card, style), "red" if _red(card) else ""


def cards_spans(cards: Iterable[Card], style: Style, *, group: bool = True) -> Line:
    """Cards separated by spaces; grouped by suit (two spaces between suits) when ``group``."""
    ordered = sort_for_display(cards) if group else list(cards)
    line: Line = []
    previous: int | None = None
    for card in ordered:
        if line:
            line.append(("  " if group and card & 3 != previous else " ", ""))
        line.append(card_span(card, style))
        previous = card & 3
    return line


def suit_text(suit: int | None, style: Style) -> Span:
    if suit is None:
        return "no trump", ""
    return (SUIT_SYMBOLS[suit] if style.symbols else SUIT_LETTERS[suit]), "red" if suit in (1, 2) else ""


def _card(name: str) -> Card | None:
    try:
        return parse_card(name)
    except CardParseError:
        return None


def _named_cards(names: Iterable[str], style: Style, *, group: bool = False) -> Line:
    cards = [c for c in (_card(n) for n in names) if c is not None]
    return cards_spans(cards, style, group=group)


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


def kind_name(kind: str) -> str:
    try:
        return KIND_NAMES[DealKind(kind)]
    except ValueError:
        return kind


def pass_direction(offset: int, players: int) -> str:
    if offset == 0:
        return "no passing"
    if offset == 1:
        return "pass left"
    if offset == players - 1:
        return "pass right"
    return "pass across"


def _signed(value: int) -> str:
    return f"{value:+d}" if value else "0"


def _ordinal(place: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(place, f"{place}th")


def deal_count(timeline: Timeline) -> int | None:
    ruleset = timeline.ruleset
    if ruleset.game in (Game.KIERKI, Game.KIERKI3):
        return len(deal_kinds(ruleset))
    return None


# --- the table at one step ---------------------------------------------------------------------------------


@dataclass
class SeatRow:
    seat: int
    name: str
    hand: list[Card] | None  # None: hidden from this view
    count: int
    deal_score: int
    total: int
    notes: list[str] = field(default_factory=list)


@dataclass
class Table:
    """One frame of a replay as one viewer may see it (``viewer`` None: every hand)."""

    viewer: int | None
    game: str
    deal: int
    deals: int | None
    kind: str
    dealer: int
    phase: Phase
    to_act: int
    trump: int | None
    trump_named: bool
    pass_offset: int
    rows: list[SeatRow]
    trick_number: int
    trick_leader: int
    trick: list[tuple[int, Card]]
    last_trick: tuple[int, list[tuple[int, Card]], int | None] | None  # number, plays, winner
    lottery: bool
    lottery_columns: list[tuple[int, int] | None]
    passed: dict[int, tuple[Card, ...]]  # what each visible seat passed
    received: dict[int, tuple[tuple[int, Card], ...]]  # what each visible seat received, and from whom
    trump_seen: tuple[Card, ...]  # while trump is named: the dealer's first cards, when visible
    kitty_size: int
    pending_cards: int
    position: int
    decisions: int
    closing: bool
    events: list[Line]
    hand_width: int = 4  # room for the largest hand, so the columns stay put while stepping


def build_table(timeline: Timeline, index: int, viewer: int | None, style: Style) -> Table:
    """The table at frame ``index``; with a ``viewer`` seat, built from that seat's observation only."""
    frame = timeline.frames[index]
    players = timeline.ruleset.players
    closing = frame.closing and frame.decision is not None
    state = timeline.state_at(frame.position - 1 if closing else frame.position)
    seats = list(range(players)) if viewer is None else [viewer]
    obs = {s: state.observation(s) for s in seats}
    base = obs[seats[0]]
    trump_phase = base.phase is Phase.TRUMP
    rows = []
    for seat in range(players):
        hand: list[Card] | None = None
        if viewer is None:
            hand = state.hand(seat)
        elif seat == viewer:
            hand = [] if trump_phase else list(base.hand)
        count = len(hand) if hand is not None and viewer is None else base.hand_sizes[seat]
        rows.append(
            SeatRow(seat, timeline.replay.bot_name(seat), hand, count, base.deal_scores[seat], base.totals[seat])
        )
    table = Table(
        viewer=viewer,
        game=timeline.ruleset.game.value,
        deal=base.deal,
        deals=deal_count(timeline),
        kind=base.kind.value,
        dealer=base.dealer,
        phase=base.phase,
        to_act=base.to_act,
        trump=base.trump,
        trump_named=base.trump_named,
        pass_offset=base.pass_offset,
        rows=rows,
        trick_number=len(base.tricks) + 1,
        trick_leader=base.trick_leader,
        trick=list(base.trick),
        last_trick=(base.tricks[-1].number, list(base.tricks[-1].plays), base.tricks[-1].winner)
        if base.tricks
        else None,
        lottery=base.kind is DealKind.LOTTERY,
        lottery_columns=list(base.lottery_columns),
        passed={s: o.passed for s, o in obs.items() if o.passed},
        received=_received(obs, players),
        trump_seen=_trump_seen(state, base, viewer),
        kitty_size=base.kitty_size,
        pending_cards=base.pending_cards,
        position=frame.position,
        decisions=len(timeline.decisions),
        closing=closing,
        events=[],
    )
    table.hand_width = hand_size(timeline.ruleset) * (4 if style.symbols else 3) + 2
    if closing:
        _close_deal(table, frame)
    for row in table.rows:
        if row.seat == table.dealer:
            row.notes.append("dealer")
        if row.seat == table.to_act and table.phase is not Phase.OVER and not closing:
            row.notes.append(f"to {table.phase.value}")
    table.events = frame_events(frame, viewer, style, players, table)
    return table


def _received(obs: Mapping[int, Observation], players: int) -> dict[int, tuple[tuple[int, Card], ...]]:
    out = {}
    for seat, o in obs.items():
        if o.received:
            giver = (seat - o.pass_offset) % players
            out[seat] = tuple((giver, c) for c in o.received)
    return out


def _trump_seen(state: GameState, base: Observation, viewer: int | None) -> tuple[Card, ...]:
    if base.phase is not Phase.TRUMP:
        return ()
    if viewer is None:
        return state.trump_cards_seen()
    return base.hand if viewer == base.dealer else ()


def _close_deal(table: Table, frame: Frame) -> None:
    """The last decision of a deal, shown on the state before it: add its card and the deal's scores."""
    step = frame.decision
    assert step is not None
    if isinstance(step.action, PlayCard):
        card = step.action.card
        row = table.rows[step.seat]
        if row.hand is not None and card in row.hand:
            row.hand.remove(card)
        row.count = max(0, row.count - 1)
        if table.lottery:
            suit, rank = card & 3, card >> 2
            column = table.lottery_columns[suit]
            table.lottery_columns[suit] = (
                (rank, rank) if column is None else (min(column[0], rank), max(column[1], rank))
            )
        else:
            table.trick.append((step.seat, card))
    for trick in frame.records(TrickRecord):
        players = len(table.rows)
        plays = [((trick.leader + i) % players, parse_card(c)) for i, c in enumerate(trick.cards)]
        table.last_trick = (trick.number, plays, trick.winner)
        table.trick_number = trick.number
    for end in frame.records(DealEndRecord):
        for row in table.rows:
            row.deal_score = end.scores[row.seat]
            row.total = end.totals[row.seat]
    table.phase = Phase.OVER if frame.records(GameEndRecord) else table.phase


def _who(seat: int, viewer: int | None) -> str:
    return "you" if seat == viewer else f"seat {seat}"


def frame_events(frame: Frame, viewer: int | None, style: Style, players: int, table: Table) -> list[Line]:
    """What happened at this step, in words, as ``viewer`` may know it."""
    lines: list[Line] = []
    for entry in frame.entries:
        received = table.received.get(viewer, ()) if viewer is not None else ()
        line = entry_event(entry, viewer, style, players, table.pass_offset, received)
        if line:
            lines.append(line)
    return lines


def entry_event(
    entry: Entry,
    viewer: int | None,
    style: Style,
    players: int,
    pass_offset: int = 0,
    received: Sequence[tuple[int, Card]] = (),
) -> Line:
    """One record in words. Private parts (passes, fault messages) only for their own seat or the all-hands view;
    ``received`` (what the viewer got in the exchange) comes from the viewer's observation, not from the record."""
    record = entry.record
    arrow = style.arrow
    line: Line
    if isinstance(record, DealRecord):
        line = [(f"deal {record.deal}: {kind_name(record.kind)}, dealer seat {record.dealer}", "bold")]
        if record.pass_offset:
            line.append((f", {pass_direction(record.pass_offset, players)}", ""))
        return line
    if isinstance(record, FaultRecord):
        line = [(f"{_who(record.seat, viewer)}: fault ({record.code}), strike {record.strikes}", "bold")]
        if record.forfeited:
            line.append((", the seat is forfeited", "bold"))
        if viewer is None or viewer == record.seat:
            line.append((f": {record.message}", ""))
        return line
    if isinstance(record, ExchangeRecord):
        if viewer is None or not received:
            return [("the passed cards are exchanged", "")]
        return [(f"you receive from seat {received[0][0]}: ", ""), *cards_spans([c for _, c in received], style)]
    if isinstance(record, LotteryPassRecord):
        return [(f"{_who(record.seat, viewer)}: no card fits, pass", "dim")]
    if isinstance(record, TrickRecord):
        if record.winner is None:
            return [(f"trick {record.number}: every led-suit card cancelled {arrow} nobody takes it", "bold")]
        return [(f"trick {record.number} {arrow} {_who(record.winner, viewer)}", "bold")]
    if isinstance(record, OutRecord):
        return [(f"{_who(record.seat, viewer)}: out, {_ordinal(record.place)}, {_signed(record.bonus)}", "bold")]
    if isinstance(record, DealEndRecord):
        early = " (ended early)" if record.early else ""
        scores = "  ".join(f"{s}: {_signed(v)}" for s, v in enumerate(record.scores))
        return [(f"deal {record.deal} over{early}: {scores}", "bold")]
    if isinstance(record, GameEndRecord):
        order = sorted(range(len(record.places)), key=lambda s: (record.places[s], s))
        shown = ", ".join(f"{_ordinal(record.places[s])} seat {s} ({_signed(record.totals[s])})" for s in order)
        return [(f"game over: {shown}", "bold")]
    if isinstance(record, EndRecord):
        if record.status == "complete":
            return []
        detail = f": {record.detail}" if record.detail else ""
        return [(f"the log ends here: the game was {record.status}{detail}", "bold")]
    if isinstance(record, PlayDecision):
        card = _card(record.card)
        shown_card: Span = card_span(card, style) if card is not None else (record.card, "")
        line = [(f"{_who(record.seat, viewer)} {'play' if record.seat == viewer else 'plays'} ", ""), shown_card]
    elif isinstance(record, PassDecision):
        if viewer is None or viewer == record.seat:
            verb = "pass" if record.seat == viewer else "passes"
            line = [(f"{_who(record.seat, viewer)} {verb} ", ""), *_named_cards(record.cards, style)]
            if pass_offset:
                line.append((f" to seat {(record.seat + pass_offset) % players}", ""))
        else:
            line = [(f"seat {record.seat} passes {len(record.cards)} cards", "")]
    elif isinstance(record, TrumpDecision):
        suit = SUIT_LETTERS.find(record.suit) if len(record.suit) == 1 else -1
        verb = "name" if record.seat == viewer else "names"
        line = [(f"{_who(record.seat, viewer)} {verb} trump: ", ""), suit_text(None if suit < 0 else suit, style)]
    elif isinstance(record, MoonDecision):
        what = "points off the shooter's total" if record.choice == "self" else "points to every other seat"
        line = [(f"{_who(record.seat, viewer)} shot the moon and chose {record.choice.value!r} ({what})", "bold")]
    else:
        return []
    if record.fallback:
        line.append((" (referee's fallback)", "dim"))
    if record.replayed:
        line.append((" (replayed)", "dim"))
    return line


def render_table(table: Table, style: Style) -> list[Line]:
    dot = style.dot
    of = f" of {table.deals}" if table.deals else ""
    title: Line = [
        (table.game, "bold"),
        (f" {dot} deal {table.deal}{of}: {kind_name(table.kind)} {dot} dealer seat {table.dealer}", ""),
    ]
    if table.trump_named:
        title += [(f" {dot} trump ", ""), suit_text(table.trump, style)]
    if table.pass_offset:
        title.append((f" {dot} {pass_direction(table.pass_offset, len(table.rows))}", ""))
    view = "all hands" if table.viewer is None else f"seat {table.viewer}'s view"
    title.append((f"   [{view} {dot} {table.position} of {table.decisions} decisions made]", "dim"))
    lines: list[Line] = [title, []]
    name_width = max(len(r.name) for r in table.rows)
    hands = [_hand_spans(r, table, style) for r in table.rows]
    hand_width = max([line_width(h) for h in hands] + [table.hand_width])
    lines.append(
        [(f"   seat  {'bot'.ljust(name_width)}  {'hand'.ljust(hand_width)}  {'deal':>6}  {'total':>6}", "dim")]
    )
    for row, hand in zip(table.rows, hands, strict=True):
        marker = style.pointer if any(n.startswith("to ") for n in row.notes) else " "
        line: Line = [(f" {marker} {row.seat:>4}  {row.name.ljust(name_width)}  ", "bold" if marker != " " else "")]
        line += hand
        line.append((" " * (hand_width - line_width(hand)), ""))
        line.append((f"  {row.deal_score:>6}  {row.total:>6}", ""))
        if row.notes:
            line.append(("  " + ", ".join(row.notes), "dim"))
        lines.append(line)
    lines.append([])
    lines += _table_middle(table, style)
    if table.events:
        lines.append([])
        lines += [[(f"{style.pointer} ", "bold"), *event] for event in table.events]
    return lines


def _hand_spans(row: SeatRow, table: Table, style: Style) -> Line:
    if table.phase is Phase.TRUMP and (table.viewer is not None or row.hand is None):
        if row.seat == table.dealer and table.trump_seen:
            return [("sees ", "dim"), *cards_spans(table.trump_seen, style, group=False)]
        return [("(dealt; shown once trump is named)", "dim")]
    if row.hand is None:
        return [(f"({row.count} card{'' if row.count == 1 else 's'})", "dim")]
    if not row.hand:
        return [("-", "dim")]
    return cards_spans(row.hand, style)


def _plays(plays: Sequence[tuple[int, Card]], style: Style) -> Line:
    line: Line = []
    for seat, card in plays:
        line += [(f"  {seat}:", "dim"), card_span(card, style)]
    return line


def _table_middle(table: Table, style: Style) -> list[Line]:
    lines: list[Line] = []
    if table.phase is Phase.TRUMP:
        line: Line = [(f"seat {table.dealer} (dealer) is naming trump", "")]
        if table.viewer is None:
            line += [(", having seen ", ""), *cards_spans(table.trump_seen, style, group=False)]
        lines.append(line)
    if table.passed or table.received:
        for seat in sorted(set(table.passed) | set(table.received)):
            who = _who(seat, table.viewer)
            line = [(f"{who}: passed", "")]
            line += (
                [(" ", ""), *cards_spans(table.passed.get(seat, ()), style)] if seat in table.passed else [(" -", "")]
            )
            got = table.received.get(seat, ())
            if got:
                line += [(f", received from seat {got[0][0]} ", ""), *cards_spans([c for _, c in got], style)]
            lines.append(line)
    if table.lottery:
        line = [("columns:", "")]
        for suit, column in enumerate(table.lottery_columns):
            line += [("  ", ""), suit_text(suit, style), (" ", "")]
            if column is None:
                line.append(("-", "dim"))
            else:
                low, high = (suit + 4 * column[0]), (suit + 4 * column[1])
                line += (
                    [card_span(low, style), ("..", ""), card_span(high, style)]
                    if low != high
                    else [card_span(low, style)]
                )
        lines.append(line)
        return lines
    if table.kitty_size or table.pending_cards:
        extra = []
        if table.kitty_size:
            extra.append(f"kitty: {table.kitty_size} cards (to the first trick with a winner)")
        if table.pending_cards:
            extra.append(f"carried over from cancelled tricks: {table.pending_cards} cards")
        lines.append([("; ".join(extra), "dim")])
    if table.phase not in (Phase.TRUMP, Phase.PASS):
        number = table.trick_number
        if table.trick:
            leader = table.trick[0][0]
            lines.append([(f"trick {number}, seat {leader} led:", "bold"), *_plays(table.trick, style)])
        elif table.phase is Phase.PLAY:
            lines.append([(f"trick {number}: seat {table.trick_leader} to lead", "")])
    if table.last_trick is not None:
        number, plays, winner = table.last_trick
        taker = "nobody (cancelled)" if winner is None else _who(winner, table.viewer)
        if not (table.closing and table.trick and number == table.trick_number and plays == table.trick):
            lines.append([(f"last trick {number}:", "dim"), *_plays(plays, style), (f"  {style.arrow} {taker}", "")])
        else:
            lines.append([(f"  {style.arrow} {taker}", "")])
    return lines


# --- the whole game as a story -----------------------------------------------------------------------------


def header_lines(timeline: Timeline, style: Style) -> list[Line]:
    replay = timeline.replay
    header = replay.header
    ruleset = timeline.ruleset
    lines: list[Line] = [
        [
            (f"{ruleset.game.value} ({ruleset.players} players)", "bold"),
            (f", game {header.game_number}, seed {header.seed}", ""),
        ]
    ]
    if header.deals_file or header.given_deals:
        lines.append([(f"deals: the first {header.given_deals} from {header.deals_file or 'the match'}", "")])
    options = " ".join(f"{k}={_option(v)}" for k, v in sorted(header.options.items()))
    lines.append([(f"options: {options}", "dim")])
    made = f"kierki {header.referee}, " if header.referee else ""
    started = f", started {header.started}" if header.started else ""
    lines.append([(f"{made}replay format {header.version}, protocol {header.protocol}{started}", "dim")])
    for bot in header.bots:
        lines.append([(f"seat {bot.seat}: {bot.name} {bot.version}".rstrip(), ""), (f"  ({bot.command})", "dim")])
    return lines


def _option(value: object) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, list):
        return ",".join(str(v) for v in value)
    return str(value)


def _scores_line(label: str, values: Sequence[int]) -> Line:
    return [(f"  {label:<7}" + "  ".join(f"{s}: {_signed(v):>5}" for s, v in enumerate(values)), "")]


def _deal_title(record: DealRecord, deals: int | None, players: int) -> Line:
    of = f" of {deals}" if deals else ""
    line: Line = [(f"== deal {record.deal}{of}: {kind_name(record.kind)}, dealer seat {record.dealer}", "bold")]
    if record.pass_offset:
        line.append((f", {pass_direction(record.pass_offset, players)}", ""))
    return line


class _Story:
    """Turns frames into story lines: tricks on one line each, passes, trump, faults, scores."""

    def __init__(self, timeline: Timeline, style: Style, viewer: int | None) -> None:
        self.timeline = timeline
        self.style = style
        self.viewer = viewer
        self.players = timeline.ruleset.players
        self.deals = deal_count(timeline)
        self.lines: list[Line] = []
        self.plays: list[tuple[int, Card]] = []
        self.first: int | None = None
        self.notes: list[Line] = []
        self.pass_offset = 0
        self.lottery = False

    def table(self, index: int) -> Table:
        return build_table(self.timeline, index, self.viewer, self.style)

    def event(self, entry: Entry, received: Sequence[tuple[int, Card]] = ()) -> Line:
        return entry_event(entry, self.viewer, self.style, self.players, self.pass_offset, received)

    def start_deal(self, record: DealRecord) -> None:
        self.pass_offset = record.pass_offset
        self.lottery = record.kind == DealKind.LOTTERY.value
        self.plays, self.first, self.notes = [], None, []

    def frame(self, index: int, *, until_trick: bool = False) -> None:
        frame = self.timeline.frames[index]
        style = self.style
        lines = self.lines
        for entry in frame.entries:
            record = entry.record
            step = frame.decision if frame.decision is not None and frame.decision.entry is entry else None
            number: Span = (f"#{step.index} " if step is not None else "", "dim")
            if isinstance(record, DealRecord):
                self.start_deal(record)
                lines += [[], _deal_title(record, self.deals, self.players)]
                lines += _hand_lines(self.table(index), style)
            elif isinstance(record, FaultRecord):
                note = self._fault_note(frame, entry)
                (lines if self.lottery else self.notes).append(note)
            elif isinstance(record, PlayDecision) and self.lottery:
                lines.append([("  ", ""), number, *self.event(entry)])
            elif isinstance(record, PlayDecision):
                assert step is not None
                self.first = step.index if self.first is None else self.first
                card = _card(record.card)
                if card is not None:
                    self.plays.append((record.seat, card))
            elif isinstance(record, TrickRecord):
                lines += self.notes
                lines.append(self._trick_line(index, record))
                self.plays, self.first, self.notes = [], None, []
                if until_trick:
                    return
            elif isinstance(record, PassDecision):
                if self.viewer is None or self.viewer == record.seat:
                    lines.append([("  ", ""), number, *self.event(entry)])
            elif isinstance(record, ExchangeRecord):
                table = self.table(index)
                if self.viewer is not None:
                    lines.append([("  ", ""), *self.event(entry, table.received.get(self.viewer, ()))])
                lines.append([("  after passing:", "dim")])
                lines += _hand_lines(table, style)
            elif isinstance(record, TrumpDecision):
                lines.append([("  ", ""), number, *self.event(entry)])
                if self.viewer is not None:
                    lines += _hand_lines(self.table(index), style)
            elif isinstance(record, MoonDecision):
                lines += self.notes
                self.notes = []
                lines.append([("  ", ""), number, *self.event(entry)])
            elif isinstance(record, LotteryPassRecord | OutRecord):
                lines.append([("    ", ""), *self.event(entry)])
            elif isinstance(record, DealEndRecord):
                lines += self.notes
                self.notes = []
                early = " (ended early)" if record.early else ""
                lines.append([(f"  deal {record.deal} over{early}", "bold")])
                lines.append(_scores_line("scores", record.scores))
                lines.append(_scores_line("totals", record.totals))
            elif isinstance(record, GameEndRecord | EndRecord):
                event = self.event(entry)
                if event:
                    lines += [[], event]

    def _fault_note(self, frame: Frame, entry: Entry) -> Line:
        step = frame.decision
        note: Line = [("  ! ", "bold"), (f"#{step.index} " if step else "", "dim"), *self.event(entry)]
        if step is not None and isinstance(step.action, PlayCard):
            note += [(f" {self.style.arrow} fallback ", ""), card_span(step.action.card, self.style)]
        elif step is not None:
            note.append((f" {self.style.arrow} the referee's fallback is played", ""))
        return note

    def _trick_line(self, index: int, record: TrickRecord) -> Line:
        winner = "nobody (cancelled)" if record.winner is None else f"seat {record.winner}"
        line: Line = [
            (f"  trick {record.number:>2}  ", ""),
            (f"#{self.first if self.first is not None else '?'}".ljust(5), "dim"),
        ]
        line += _plays(self.plays, self.style)
        line.append((f"   {self.style.arrow} {winner}", ""))
        if record.winner is not None:
            score = self.table(index).rows[record.winner].deal_score
            line.append((f"  (deal {_signed(score)})", "dim"))
        return line


def story(timeline: Timeline, style: Style, viewer: int | None = None, deal: int | None = None) -> list[Line]:
    """The whole game (or one deal) deal by deal and trick by trick, as ``viewer`` knew it."""
    teller = _Story(timeline, style, viewer)
    if deal is None:
        teller.lines += header_lines(timeline, style)
    for index, frame in enumerate(timeline.frames):
        if deal is None or frame.deal == deal:
            teller.frame(index)
    return teller.lines


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


def trick_story(timeline: Timeline, style: Style, viewer: int | None, deal: int, span: TrickSpan) -> list[Line]:
    """One trick: the table as it began (as ``viewer`` saw it), its cards and faults, and who took it."""
    teller = _Story(timeline, style, viewer)
    deal_record = next(e.record for e in timeline.replay.deal_entries() if getattr(e.record, "deal", 0) == deal)
    assert isinstance(deal_record, DealRecord)
    teller.start_deal(deal_record)
    teller.lines.append([*_deal_title(deal_record, teller.deals, teller.players), (f": trick {span.number}", "bold")])
    before = build_table(timeline, span.first - 1, viewer, style)
    before.events = []
    teller.lines += render_table(before, style)[1:]
    teller.lines.append([])
    for index in range(span.first, span.last + 1):
        teller.frame(index, until_trick=index == span.last)
    return teller.lines


def _hand_lines(table: Table, style: Style) -> list[Line]:
    lines: list[Line] = []
    for row in table.rows:
        if row.hand is None:
            continue
        label = "your hand" if row.seat == table.viewer else f"seat {row.seat}"
        lines.append([(f"  {label:<9} ", "dim"), *_hand_spans(row, table, style)])
    return lines


# --- JSON --------------------------------------------------------------------------------------------------


def redact(raw: dict[str, Any], viewer: int, players: int) -> dict[str, Any]:
    """A record as ``viewer`` may see it: what it could not know is null."""
    record = dict(raw)
    kind = record.get("type")
    if kind == "deal":
        record["hands"] = [h if s == viewer else None for s, h in enumerate(record["hands"])]
        record["kitty"] = None
    elif kind == "pass" and record.get("seat") != viewer:
        record["cards"] = None
    elif kind == "exchange":
        offset = int(record["pass_offset"])
        record["passed"] = [
            p if s == viewer or (s + offset) % players == viewer else None for s, p in enumerate(record["passed"])
        ]
    elif kind == "trick":
        record["collected"] = None
    elif kind == "fault" and record.get("seat") != viewer:
        record["message"] = None
    return record


def json_records(
    timeline: Timeline, viewer: int | None = None, deal: int | None = None, span: TrickSpan | None = None
) -> list[dict[str, Any]]:
    """The records (the header first, unless one deal or trick is asked for), each with its ``line`` and, for a
    decision, its ``decision`` number; with a ``viewer``, redacted to what that seat could see."""
    players = timeline.ruleset.players
    out: list[dict[str, Any]] = []
    if deal is None:
        out.append({**timeline.replay.header_raw, "line": 1})
    frames = range(len(timeline.frames)) if span is None else range(span.first, span.last + 1)
    for index in frames:
        frame = timeline.frames[index]
        if deal is not None and frame.deal != deal:
            continue
        for entry in frame.entries:
            record = entry.raw if viewer is None else redact(entry.raw, viewer, players)
            record = {**record, "line": entry.line}
            if frame.decision is not None and frame.decision.entry is entry:
                record["decision"] = frame.decision.index
            out.append(record)
            if span is not None and index == span.last and entry.type == "trick":
                break
    return out


def dumps(record: Mapping[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


# --- the interactive stepper -------------------------------------------------------------------------------

HELP = "n/→ next  p/← back  ]/N next trick  [/P back  d/g deal  0-9 or s seat view  a all hands  q quit"


class Stepper:
    """The viewer's position and its keys, apart from the screen (so a test can drive it without a terminal)."""

    def __init__(self, timeline: Timeline, viewer: int | None = None, index: int = 0) -> None:
        self.timeline = timeline
        self.viewer = viewer
        self.index = index
        self.prompt: str | None = None  # the digits typed after d/g (a deal) or s (a seat)
        self.asking = "deal"
        self.message = ""
        frames = timeline.frames
        # Where ]/[ stop: each finished trick, each deal's start and end.
        self.stops = [
            i
            for i, f in enumerate(frames)
            if i == 0 or f.closing or any(isinstance(e.record, TrickRecord | DealRecord) for e in f.entries)
        ]
        if self.stops[-1] != len(frames) - 1:
            self.stops.append(len(frames) - 1)

    @property
    def last(self) -> int:
        return len(self.timeline.frames) - 1

    def key(self, key: str) -> bool:
        """Handle one key (a character, or a name: left, right, home, end, enter, backspace, esc). False: quit."""
        self.message = ""
        if self.prompt is not None:
            return self._prompt_key(key)
        if key in ("q", "Q"):
            return False
        if key in ("n", "right", " ", "j", "down"):
            self._go(self.index + 1)
        elif key in ("p", "left", "k", "up", "backspace"):
            self._go(self.index - 1)
        elif key in ("]", "N"):
            self._go(next((i for i in self.stops if i > self.index), self.last))
        elif key in ("[", "P"):
            self._go(next((i for i in reversed(self.stops) if i < self.index), 0))
        elif key == "home":
            self._go(0)
        elif key == "end":
            self._go(self.last)
        elif key in ("d", "g", "s"):
            self.prompt, self.asking = "", "seat" if key == "s" else "deal"
        elif key.isdigit() and len(key) == 1:
            self._seat(int(key))
        elif key == "a":
            self.viewer = None
        else:
            self.message = f"keys: {HELP}"
        return True

    def _seat(self, seat: int) -> None:
        players = self.timeline.ruleset.players
        if 0 <= seat < players:
            self.viewer = seat
        else:
            self.message = f"there is no seat {seat}: seats are 0 to {players - 1}"

    def _where(self) -> str:
        frame = self.timeline.frames[self.index]
        if frame.closing:
            return f"deal {frame.deal} is over"
        if frame.position >= len(self.timeline.decisions):
            return "the end of the log"
        name = self.timeline.replay.name
        return f"next: decision #{frame.position} (kierki match --from {name} --at {frame.position} resumes here)"

    def _go(self, index: int) -> None:
        if index < 0:
            self.message = "this is the start of the game"
        elif index > self.last:
            self.message = "this is the end of the log"
        self.index = max(0, min(self.last, index))

    def _prompt_key(self, key: str) -> bool:
        assert self.prompt is not None
        if key.isdigit() and len(key) == 1:
            self.prompt += key
        elif key == "backspace":
            self.prompt = self.prompt[:-1]
        elif key == "esc":
            self.prompt = None
        elif key == "enter":
            typed, self.prompt = self.prompt, None
            if self.asking == "seat":
                self._seat(int(typed) if typed else -1)
                return True
            deal = int(typed) if typed else 0
            index = self.timeline.deal_frame(deal)
            if index is None:
                deals = self.timeline.deal_numbers()
                self.message = f"no deal {typed or '?'}: this log has deals {deals[0]} to {deals[-1]}"
            else:
                self.index = index
        return True

    def screen(self, style: Style) -> list[Line]:
        table = build_table(self.timeline, self.index, self.viewer, style)
        lines = render_table(table, style)
        lines.append([])
        if self.prompt is not None:
            asked = "view of seat" if self.asking == "seat" else "go to deal"
            lines.append([(f"{asked}: ", "bold"), (self.prompt, ""), ("_  (Enter to go, Esc to cancel)", "dim")])
        elif self.message:
            lines.append([(self.message, "bold")])
        else:
            lines.append([(self._where(), "dim")])
        lines.append([(HELP if style.symbols else HELP.replace("→", "right").replace("←", "left"), "dim")])
        return lines


_CURSES_KEYS = {
    "KEY_LEFT": "left",
    "KEY_RIGHT": "right",
    "KEY_UP": "up",
    "KEY_DOWN": "down",
    "KEY_HOME": "home",
    "KEY_END": "end",
    "KEY_BACKSPACE": "backspace",
    "KEY_ENTER": "enter",
    "KEY_NPAGE": "]",
    "KEY_PPAGE": "[",
    "\n": "enter",
    "\r": "enter",
    "\x7f": "backspace",
    "\x08": "backspace",
    "\x1b": "esc",
}


def run_interactive(stepper: Stepper, style: Style) -> None:
    """Step through the replay in the terminal with curses until q."""
    import curses
    import locale

    locale.setlocale(locale.LC_ALL, "")
    os.environ.setdefault("ESCDELAY", "25")

    def main(screen: Any) -> None:
        attrs = {"": curses.A_NORMAL, "bold": curses.A_BOLD, "dim": curses.A_DIM, "red": curses.A_NORMAL}
        if style.colour and curses.has_colors():
            curses.start_color()
            curses.use_default_colors()
            curses.init_pair(1, curses.COLOR_RED, -1)
            attrs["red"] = curses.color_pair(1)
        curses.curs_set(0)
        while True:
            _draw(screen, stepper.screen(style), attrs)
            try:
                pressed = screen.get_wch()
            except KeyboardInterrupt:
                return
            name = curses.keyname(pressed).decode() if isinstance(pressed, int) else pressed
            if not stepper.key(_CURSES_KEYS.get(name, name)):
                return

    curses.wrapper(main)


def _draw(screen: Any, lines: list[Line], attrs: dict[str, int]) -> None:
    import curses

    screen.erase()
    height, width = screen.getmaxyx()
    for y, line in enumerate(lines[: height - 1]):
        x = 0
        for text, tag in line:
            if x >= width - 1:
                break
            shown = text[: width - 1 - x]
            try:
                screen.addstr(y, x, shown, attrs.get(tag, curses.A_NORMAL))
            except curses.error:
                break
            x += len(shown)
    screen.refresh()
