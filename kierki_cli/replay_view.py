"""Showing a replay as text: the table at one step and each record of a step (the story of a whole game is in
``replay_story``).

Everything shown is drawn from the view model (``referee.replay.view``): the table a viewer may see at a step
and each record as that viewer may see it, both decided by the rules core's observation and projection. This
module only words and styles them; the stepper (``replay_stepper``) draws the same lines with curses.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from kierki_cli.styled import Line, Span, Style, card_span, cards_spans, line_width, suit_text
from referee.api import KIND_NAMES, GameStatus, ShownRecord, TableView, printable
from referee.rules import PASS_COUNT, SUIT_LETTERS, Card, CardParseError, DealKind, Phase, parse_card


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


def _card(name: str) -> Card | None:
    try:
        return parse_card(name)
    except CardParseError:
        return None


def _named_cards(names: Sequence[str], style: Style) -> Line:
    cards = [c for c in (_card(n) for n in names) if c is not None]
    return cards_spans(cards, style, group=False)


def _who(seat: int, viewer: int | None) -> str:
    return "you" if seat == viewer else f"seat {seat}"


def _received(table: TableView) -> tuple[tuple[int, Card], ...]:
    """What the viewer received in this deal's exchange, and from whom (from its observation)."""
    for side in table.passes:
        if side.seat == table.viewer and side.received and side.giver is not None:
            return tuple((side.giver, card) for card in side.received)
    return ()


# --- one record in words -----------------------------------------------------------------------------------


def record_event(
    shown: ShownRecord,
    viewer: int | None,
    style: Style,
    players: int,
    pass_offset: int = 0,
    received: Sequence[tuple[int, Card]] = (),
) -> Line:
    """One record in words, from the record as ``viewer`` may see it (what it may not see is null in it);
    ``received`` (what the viewer got in the exchange) comes from the viewer's observation."""
    record = shown.record
    kind = shown.type
    arrow = style.arrow
    line: Line
    if kind == "deal":
        line = [(f"deal {record['deal']}: {kind_name(record['kind'])}, dealer seat {record['dealer']}", "bold")]
        if record.get("pass_offset"):
            line.append((f", {pass_direction(record['pass_offset'], players)}", ""))
        return line
    if kind == "fault":
        line = [
            (f"{_who(record['seat'], viewer)}: fault ({printable(record['code'])}), strike {record['strikes']}", "bold")
        ]
        if record["forfeited"]:
            line.append((", the seat is forfeited", "bold"))
        if record.get("message") is not None:
            line.append((f": {printable(record['message'])}", ""))
        return line
    if kind == "exchange":
        if viewer is None or not received:
            return [("the passed cards are exchanged", "")]
        return [(f"you receive from seat {received[0][0]}: ", ""), *cards_spans([c for _, c in received], style)]
    if kind == "lottery_pass":
        return [(f"{_who(record['seat'], viewer)}: no card fits, pass", "dim")]
    if kind == "trick":
        if record["winner"] is None:
            return [(f"trick {record['number']}: every led-suit card cancelled {arrow} nobody takes it", "bold")]
        return [(f"trick {record['number']} {arrow} {_who(record['winner'], viewer)}", "bold")]
    if kind == "out":
        who = _who(record["seat"], viewer)
        return [(f"{who}: out, {_ordinal(record['place'])}, {_signed(record['bonus'])}", "bold")]
    if kind == "deal_end":
        early = " (ended early)" if record.get("early") else ""
        scores = "  ".join(f"{s}: {_signed(v)}" for s, v in enumerate(record["scores"]))
        return [(f"deal {record['deal']} over{early}: {scores}", "bold")]
    if kind == "game_end":
        places = record["places"]
        order = sorted(range(len(places)), key=lambda s: (places[s], s))
        shown_places = ", ".join(f"{_ordinal(places[s])} seat {s} ({_signed(record['totals'][s])})" for s in order)
        return [(f"game over: {shown_places}", "bold")]
    if kind == "end":
        if record["status"] == GameStatus.COMPLETE:
            return []
        detail = f": {printable(record['detail'])}" if record.get("detail") else ""
        return [(f"the log ends here: the game was {printable(record['status'])}{detail}", "bold")]
    seat = record.get("seat", -1)
    if kind == "play":
        card = _card(record["card"])
        shown_card: Span = card_span(card, style) if card is not None else (printable(record["card"]), "")
        line = [(f"{_who(seat, viewer)} {'play' if seat == viewer else 'plays'} ", ""), shown_card]
    elif kind == "pass":
        if record["cards"] is not None:
            verb = "pass" if seat == viewer else "passes"
            line = [(f"{_who(seat, viewer)} {verb} ", ""), *_named_cards(record["cards"], style)]
            if pass_offset:
                line.append((f" to seat {(seat + pass_offset) % players}", ""))
        else:
            line = [(f"seat {seat} passes {PASS_COUNT} cards", "")]
    elif kind == "trump":
        suit = SUIT_LETTERS.find(record["suit"]) if len(record["suit"]) == 1 else -1
        verb = "name" if seat == viewer else "names"
        line = [(f"{_who(seat, viewer)} {verb} trump: ", ""), suit_text(None if suit < 0 else suit, style)]
    elif kind == "moon":
        choice = record["choice"]
        what = "points off the shooter's total" if choice == "self" else "points to every other seat"
        line = [(f"{_who(seat, viewer)} shot the moon and chose {choice!r} ({what})", "bold")]
    else:
        return []
    if record.get("fallback"):
        line.append((" (referee's fallback)", "dim"))
    if record.get("replayed"):
        line.append((" (replayed)", "dim"))
    return line


# --- the table at one step ---------------------------------------------------------------------------------


def _title(table: TableView, style: Style, dealer: str) -> Line:
    """The game, the deal and its kind, the dealer, trump and the pass direction (``dealer``: how the dealer is
    named, shorter in the compact table)."""
    dot = style.dot
    of = f" of {table.deals}" if table.deals else ""
    title: Line = [
        (table.game.value, "bold"),
        (f" {dot} deal {table.deal}{of}: {kind_name(table.kind)} {dot} {dealer} {table.dealer}", ""),
    ]
    if table.trump_named:
        title += [(f" {dot} trump ", ""), suit_text(table.trump, style)]
    if table.pass_offset:
        title.append((f" {dot} {pass_direction(table.pass_offset, table.players)}", ""))
    return title


def render_table(table: TableView, style: Style, *, events: bool = True, width: int | None = None) -> list[Line]:
    """The table as lines: a title, one row per seat, the trick, the last trick, and (``events``) what happened.

    With ``width`` (the stepper's screen), the compact form that fits it: no blank lines, names shortened, the
    passes in a block only while they are made (then only the viewer's own), tricks on as few lines as fit."""
    if width is not None:
        return _compact_table(table, style, events, width)
    dot = style.dot
    title = _title(table, style, "dealer seat")
    view = "all hands" if table.viewer is None else f"seat {table.viewer}'s view"
    title.append((f"   [{view} {dot} {table.position} of {table.decisions} decisions made]", "dim"))
    lines: list[Line] = [title, []]
    names = [printable(row.name) for row in table.seats]
    name_width = max(len(name) for name in names)
    hands = [_hand_spans(table, row.seat, style) for row in table.seats]
    room = table.cards_per_hand * (4 if style.symbols else 3) + 2  # so the columns stay put while stepping
    hand_width = max([line_width(h) for h in hands] + [room])
    lines.append(
        [(f"   seat  {'bot'.ljust(name_width)}  {'hand'.ljust(hand_width)}  {'deal':>6}  {'total':>6}", "dim")]
    )
    for row, name, hand in zip(table.seats, names, hands, strict=True):
        acting = row.seat == table.to_act
        notes = (["dealer"] if row.seat == table.dealer else []) + ([f"to {table.phase.value}"] if acting else [])
        marker = style.pointer if acting else " "
        line: Line = [(f" {marker} {row.seat:>4}  {name.ljust(name_width)}  ", "bold" if acting else "")]
        line += hand
        line.append((" " * (hand_width - line_width(hand)), ""))
        line.append((f"  {row.deal_score:>6}  {row.total:>6}", ""))
        if notes:
            line.append(("  " + ", ".join(notes), "dim"))
        lines.append(line)
    lines.append([])
    lines += _table_middle(table, style)
    said = [line for line in _step_events(table, style) if line] if events else []
    if said:
        lines.append([])
        lines += [[(f"{style.pointer} ", "bold"), *event] for event in said]
    return lines


def _step_events(table: TableView, style: Style) -> list[Line]:
    received = _received(table) if table.viewer is not None else ()
    return [record_event(r, table.viewer, style, table.players, table.pass_offset, received) for r in table.records]


def _hand_spans(table: TableView, seat: int, style: Style) -> Line:
    row = table.seats[seat]
    if table.phase is Phase.TRUMP and (table.viewer is not None or row.hand is None):
        if row.seat == table.dealer and table.trump_cards_seen:
            return [("sees ", "dim"), *cards_spans(table.trump_cards_seen, style, group=False)]
        return [("(dealt; shown once trump is named)", "dim")]
    if row.hand is None:
        return [(f"({row.hand_size} card{'' if row.hand_size == 1 else 's'})", "dim")]
    if not row.hand:
        return [("-", "dim")]
    return cards_spans(row.hand, style)


def _plays(plays: Sequence[tuple[int, Card]], style: Style, cancelled: Sequence[Card] = (), gap: str = "  ") -> Line:
    """Each play as ``seat:card``; a card cancelled by its twin (Cancellation Hearts) in brackets: ``[5C]``."""
    left = Counter({card: 2 for card in cancelled})  # both copies of a cancelled card
    line: Line = []
    for seat, card in plays:
        line.append((f"{gap}{seat}:", "dim"))
        if left[card] > 0:
            left[card] -= 1
            line += [("[", "dim"), card_span(card, style), ("]", "dim")]
        else:
            line.append(card_span(card, style))
    return line


def _kitty_lines(table: TableView, style: Style) -> list[Line]:
    """The kitty: its size while it waits; its cards in the all-hands view, also once a trick has taken it."""
    parts: Line = []
    if table.kitty:
        state = "to the first trick with a winner" if table.kitty_size else "taken"
        parts += [("kitty: ", "dim"), *cards_spans(table.kitty, style, group=False), (f" ({state})", "dim")]
    elif table.kitty_size:
        parts.append((f"kitty: {table.kitty_size} cards (to the first trick with a winner)", "dim"))
    if table.pending_cards:
        parts.append((f"{'; ' if parts else ''}carried over from cancelled tricks: {table.pending_cards} cards", "dim"))
    return [parts] if parts else []


def _wrap(line: Line, width: int, indent: str = "    ") -> list[Line]:
    """A line cut between spans into lines of at most ``width`` (a span longer than that is cut by the screen)."""
    out: list[Line] = [[]]
    used = 0
    words = [(word, tag) for text, tag in line for word in re.split(r"(?<= )(?=\S)", text) if word]
    for text, tag in words:
        if used + len(text) > width and out[-1]:
            piece = text.lstrip()
            out.append([(indent, ""), (piece, tag)])
            used = len(indent) + len(piece)
        else:
            out[-1].append((text, tag))
            used += len(text)
    return out


def _short(name: str, room: int) -> str:
    return name if len(name) <= room else name[: max(room - 1, 1)] + "…"


def _compact_table(table: TableView, style: Style, events: bool, width: int) -> list[Line]:
    dot = style.dot
    players = table.players
    title = _title(table, style, "dealer")
    view = "all hands" if table.viewer is None else f"seat {table.viewer}'s view"
    where: Span = (f"[{view} {dot} {table.position}/{table.decisions} decisions]", "dim")
    lines: list[Line] = []
    if line_width(title) + 2 + len(where[0]) <= width:
        lines.append([*title, ("  ", ""), where])
    else:
        lines += [title, [where]]
    names = [printable(row.name) for row in table.seats]
    hands = [_hand_spans(table, row.seat, style) for row in table.seats]
    per_card = 3 if style.symbols else 2
    room = table.cards_per_hand * per_card + 3 + (4 if style.symbols else 0)  # suits apart; the tens' extra digit
    hand_width = max([line_width(h) for h in hands] + [room])
    seat_width = len(str(players - 1))
    fixed = 2 + seat_width + 1 + 1 + 1 + 6 + 6  # marker, seat, dealer mark, spaces, deal and total columns
    name_width = max(4, min(max(len(n) for n in names), width - fixed - hand_width - 1))
    lines.append(
        [
            (f"  {'#'.rjust(seat_width)}  {'bot'.ljust(name_width)} {'hand'.ljust(hand_width)}", "dim"),
            (f" {'deal':>5} {'total':>5}", "dim"),
        ]
    )
    for row, name, hand in zip(table.seats, names, hands, strict=True):
        acting = row.seat == table.to_act
        marker = style.pointer if acting else " "
        dealer = "d" if row.seat == table.dealer else " "
        line: Line = [
            (
                f"{marker} {row.seat:>{seat_width}}{dealer} {_short(name, name_width).ljust(name_width)} ",
                "bold" if acting else "",
            )
        ]
        line += hand
        line.append((" " * (hand_width - line_width(hand)), ""))
        line.append((f" {row.deal_score:>5} {row.total:>5}", ""))
        lines.append(line)
    lines += [piece for line in _compact_middle(table, style) for piece in _wrap(line, width)]
    if events:
        for event in _step_events(table, style):
            if event:
                lines += _wrap([(f"{style.pointer} ", "bold"), *event], width)
    return lines


def _naming_trump(table: TableView, style: Style) -> Line:
    """The dealer is naming trump; the full view (no seat's) also shows the cards they have seen."""
    line: Line = [(f"seat {table.dealer} (dealer) is naming trump", "")]
    if table.viewer is None:
        line += [(", having seen ", ""), *cards_spans(table.trump_cards_seen, style, group=False)]
    return line


def _compact_middle(table: TableView, style: Style) -> list[Line]:
    lines: list[Line] = []
    if table.phase is Phase.TRUMP:
        lines.append(_naming_trump(table, style))
    if table.phase is Phase.PASS and table.passes:
        block: Line = [("passed:", "dim")]
        for side in table.passes:
            block += [(f"  {side.seat}:", "dim"), *cards_spans(side.sent or (), style, group=False)]
        lines.append(block)
    elif table.viewer is not None:
        for side in table.passes:  # after the exchange, only the viewer's own side
            line = [("you passed ", ""), *cards_spans(side.sent or (), style, group=False)]
            if side.received:
                line += [(f", got from seat {side.giver} ", ""), *cards_spans(side.received, style, group=False)]
            lines.append(line)
    if table.lottery:
        return lines + _table_middle(table, style)[-1:]  # the columns line
    lines += _kitty_lines(table, style)
    trick = table.trick
    last = table.last_trick
    if table.phase not in (Phase.TRUMP, Phase.PASS):
        if trick.plays:
            lines.append([(f"trick {trick.number}:", "bold"), *_plays(trick.plays, style, trick.cancelled, " ")])
        elif table.phase is Phase.PLAY:
            lines.append([(f"trick {trick.number}: seat {trick.leader} to lead", "")])
    if last is not None:
        taker = "nobody (cancelled)" if last.winner is None else _who(last.winner, table.viewer)
        if table.closing and trick.plays and last.number == trick.number and last.plays == trick.plays:
            lines.append([(f"  {style.arrow} {taker}", "")])
        else:
            lines.append(
                [
                    (f"last {last.number} {style.arrow} {taker}:", "dim"),
                    *_plays(last.plays, style, last.cancelled, " "),
                ]
            )
    return lines


def _table_middle(table: TableView, style: Style) -> list[Line]:
    lines: list[Line] = []
    if table.phase is Phase.TRUMP:
        lines.append(_naming_trump(table, style))
    for side in table.passes:
        line = [(f"{_who(side.seat, table.viewer)}: passed", "")]
        line += [(" ", ""), *cards_spans(side.sent, style)] if side.sent is not None else [(" -", "")]
        if side.received:
            line += [(f", received from seat {side.giver} ", ""), *cards_spans(side.received, style)]
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
    lines += _kitty_lines(table, style)
    trick = table.trick
    if table.phase not in (Phase.TRUMP, Phase.PASS):
        if trick.plays:
            leader = trick.plays[0][0]
            lines.append(
                [(f"trick {trick.number}, seat {leader} led:", "bold"), *_plays(trick.plays, style, trick.cancelled)]
            )
        elif table.phase is Phase.PLAY:
            lines.append([(f"trick {trick.number}: seat {trick.leader} to lead", "")])
    last = table.last_trick
    if last is not None:
        taker = "nobody (cancelled)" if last.winner is None else _who(last.winner, table.viewer)
        if not (table.closing and trick.plays and last.number == trick.number and last.plays == trick.plays):
            lines.append(
                [
                    (f"last trick {last.number}:", "dim"),
                    *_plays(last.plays, style, last.cancelled),
                    (f"  {style.arrow} {taker}", ""),
                ]
            )
        else:
            lines.append([(f"  {style.arrow} {taker}", "")])
    return lines


# --- the whole game as a story -----------------------------------------------------------------------------
