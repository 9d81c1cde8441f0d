"""A replay as a story: the whole game (or a deal, or a trick) printed deal by deal and trick by trick.

Built from the same view model and the same wording as the table (``replay_view``); this module only orders it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kierki_cli.replay_view import (
    _card,
    _hand_spans,
    _plays,
    _received,
    _signed,
    kind_name,
    pass_direction,
    record_event,
    render_table,
)
from kierki_cli.styled import Line, Span, Style, card_span
from referee.api import (
    DealRecord,
    ShownRecord,
    TableView,
    Timeline,
    TrickSpan,
    deal_count,
    printable,
    shown_records,
    step_view,
)
from referee.rules import Card, DealKind


def header_lines(timeline: Timeline) -> list[Line]:
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
        source = printable(header.deals_file or "the match")
        lines.append([(f"deals: the first {header.given_deals} from {source}", "")])
    options = " ".join(f"{k}={_option(v)}" for k, v in sorted(header.options.items()))
    lines.append([(printable(f"options: {options}"), "dim")])
    made = f"kierki {printable(header.referee)}, " if header.referee else ""
    started = f", started {printable(header.started)}" if header.started else ""
    lines.append([(f"{made}replay format {header.version}, protocol {header.protocol}{started}", "dim")])
    for bot in header.bots:
        calls = f"{bot.name} {bot.version}".rstrip()
        # The organiser's name first (a tournament's NAME, a ladder's NAME@version), then what the bot calls itself.
        named = printable(
            f"seat {bot.seat}: {bot.label} (calls itself {calls})" if bot.label else f"seat {bot.seat}: {calls}"
        )
        lines.append([(named, ""), (f"  ({printable(bot.command)})", "dim")])
    return lines


def _option(value: object) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, list):
        return ",".join(str(v) for v in value)
    return str(value)


def _scores_line(label: str, values: Sequence[int]) -> Line:
    return [(f"  {label:<7}" + "  ".join(f"{s}: {_signed(v):>5}" for s, v in enumerate(values)), "")]


def _deal_title(record: Mapping[str, Any], deals: int | None, players: int) -> Line:
    of = f" of {deals}" if deals else ""
    line: Line = [
        (f"== deal {record['deal']}{of}: {kind_name(record['kind'])}, dealer seat {record['dealer']}", "bold")
    ]
    if record.get("pass_offset"):
        line.append((f", {pass_direction(record['pass_offset'], players)}", ""))
    return line


class _Story:
    """Turns steps into story lines: tricks on one line each, passes, trump, faults, scores."""

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

    def table(self, index: int) -> TableView:
        return step_view(self.timeline, index, self.viewer)

    def event(self, shown: ShownRecord, received: Sequence[tuple[int, Card]] = ()) -> Line:
        return record_event(shown, self.viewer, self.style, self.players, self.pass_offset, received)

    def start_deal(self, record: Mapping[str, Any]) -> None:
        self.pass_offset = record.get("pass_offset", 0)
        self.lottery = record["kind"] == DealKind.LOTTERY.value
        self.plays, self.first, self.notes = [], None, []

    def frame(self, index: int, *, until_trick: bool = False) -> None:
        frame = self.timeline.frames[index]
        shown = shown_records(self.timeline, frame, self.viewer)
        style = self.style
        lines = self.lines
        for item in shown:
            record, kind = item.record, item.type
            number: Span = (f"#{item.decision} " if item.decision is not None else "", "dim")
            if kind == "deal":
                self.start_deal(record)
                lines += [[], _deal_title(record, self.deals, self.players)]
                lines += _hand_lines(self.table(index), style)
            elif kind == "fault":
                note = self._fault_note(shown, item)
                (lines if self.lottery else self.notes).append(note)
            elif kind == "play" and self.lottery:
                lines.append([("  ", ""), number, *self.event(item)])
            elif kind == "play":
                self.first = item.decision if self.first is None else self.first
                card = _card(record["card"])
                if card is not None:
                    self.plays.append((record["seat"], card))
            elif kind == "trick":
                lines += self.notes
                lines.append(self._trick_line(index, record))
                self.plays, self.first, self.notes = [], None, []
                if until_trick:
                    return
            elif kind == "pass":
                if record["cards"] is not None:
                    lines.append([("  ", ""), number, *self.event(item)])
            elif kind == "exchange":
                table = self.table(index)
                if self.viewer is not None:
                    lines.append([("  ", ""), *self.event(item, _received(table))])
                lines.append([("  after passing:", "dim")])
                lines += _hand_lines(table, style)
            elif kind == "trump":
                lines.append([("  ", ""), number, *self.event(item)])
                if self.viewer is not None:
                    lines += _hand_lines(self.table(index), style)
            elif kind == "moon":
                lines += self.notes
                self.notes = []
                lines.append([("  ", ""), number, *self.event(item)])
            elif kind in ("lottery_pass", "out"):
                lines.append([("    ", ""), *self.event(item)])
            elif kind == "deal_end":
                lines += self.notes
                self.notes = []
                early = " (ended early)" if record.get("early") else ""
                lines.append([(f"  deal {record['deal']} over{early}", "bold")])
                lines.append(_scores_line("scores", record["scores"]))
                lines.append(_scores_line("totals", record["totals"]))
            elif kind in ("game_end", "end"):
                event = self.event(item)
                if event:
                    lines += [[], event]

    def _fault_note(self, shown: Sequence[ShownRecord], fault: ShownRecord) -> Line:
        decision = next((r for r in shown if r.decision is not None), None)
        number = f"#{decision.decision} " if decision is not None else ""
        note: Line = [("  ! ", "bold"), (number, "dim"), *self.event(fault)]
        card = _card(decision.record["card"]) if decision is not None and decision.type == "play" else None
        if card is not None:
            note += [(f" {self.style.arrow} fallback ", ""), card_span(card, self.style)]
        elif decision is not None:
            note.append((f" {self.style.arrow} the referee's fallback is played", ""))
        return note

    def _trick_line(self, index: int, record: Mapping[str, Any]) -> Line:
        winner = "nobody (cancelled)" if record["winner"] is None else f"seat {record['winner']}"
        line: Line = [
            (f"  trick {record['number']:>2}  ", ""),
            (f"#{self.first if self.first is not None else '?'}".ljust(5), "dim"),
        ]
        line += _plays(self.plays, self.style)
        line.append((f"   {self.style.arrow} {winner}", ""))
        if record["winner"] is not None:
            score = self.table(index).seats[record["winner"]].deal_score
            line.append((f"  (deal {_signed(score)})", "dim"))
        return line


def story(timeline: Timeline, style: Style, viewer: int | None = None, deal: int | None = None) -> list[Line]:
    """The whole game (or one deal) deal by deal and trick by trick, as ``viewer`` knew it."""
    teller = _Story(timeline, style, viewer)
    if deal is None:
        teller.lines += header_lines(timeline)
    for index, frame in enumerate(timeline.frames):
        if deal is None or frame.deal == deal:
            teller.frame(index)
    return teller.lines


def trick_story(timeline: Timeline, style: Style, viewer: int | None, deal: int, span: TrickSpan) -> list[Line]:
    """One trick: the table as it began (as ``viewer`` saw it), its cards and faults, and who took it."""
    teller = _Story(timeline, style, viewer)
    dealt = next(
        e.raw for e in timeline.replay.deal_entries() if isinstance(e.record, DealRecord) and e.record.deal == deal
    )
    teller.start_deal(dealt)
    teller.lines.append([*_deal_title(dealt, teller.deals, teller.players), (f": trick {span.number}", "bold")])
    before = step_view(timeline, span.first - 1, viewer)
    teller.lines += render_table(before, style, events=False)[1:]
    teller.lines.append([])
    for index in range(span.first, span.last + 1):
        teller.frame(index, until_trick=index == span.last)
    return teller.lines


def _hand_lines(table: TableView, style: Style) -> list[Line]:
    lines: list[Line] = []
    for row in table.seats:
        if row.hand is None:
            continue
        label = "your hand" if row.seat == table.viewer else f"seat {row.seat}"
        lines.append([(f"  {label:<9} ", "dim"), *_hand_spans(table, row.seat, style)])
    return lines
