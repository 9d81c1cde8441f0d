"""How a check of a replay log words what it finds: a decision as text, a derived record by name, and the first
field in which a record of the log differs from the one the rules give. `referee.replay.timeline` raises its
``ReplayError`` messages with these, so every message names records the same way.
"""

from __future__ import annotations

import json

import msgspec

from referee.replay.records import (
    DealEndRecord,
    DealRecord,
    Decision,
    Derived,
    LotteryPassRecord,
    OutRecord,
    PassDecision,
    PlayDecision,
    TrickRecord,
    TrumpDecision,
    record_type,
)
from referee.rules import Action, ChooseTrump, PassCards, PlayCard, card_name
from referee.rules.cards import trump_name

__all__ = ["at_line", "describe_action", "describe_decision", "first_difference", "record_label", "record_name"]


def describe_action(action: Action) -> str:
    """Short text of a decision as the log writes it: 'play 7H', 'pass AH KH QH', 'trump S', 'moon others'."""
    if isinstance(action, PlayCard):
        return f"play {card_name(action.card)}"
    if isinstance(action, PassCards):
        return "pass " + " ".join(card_name(c) for c in action.cards)
    if isinstance(action, ChooseTrump):
        return "trump " + trump_name(action.suit)
    return f"moon {action.option.value}"


def describe_decision(record: Decision) -> str:
    """The same text, read from a decision record."""
    if isinstance(record, PlayDecision):
        return f"play {record.card}"
    if isinstance(record, PassDecision):
        return "pass " + " ".join(record.cards)
    if isinstance(record, TrumpDecision):
        return f"trump {record.suit}"
    return f"moon {record.choice}"


def _json_text(value: object) -> str:
    return json.dumps(msgspec.to_builtins(value))


def record_label(record: Derived) -> str:
    """What a record is about, to prefix a difference: 'trick 3', 'deal 2', 'out of seat 1'."""
    if isinstance(record, TrickRecord):
        return f"trick {record.number}"
    if isinstance(record, DealRecord):
        return f"deal {record.deal}"
    if isinstance(record, DealEndRecord):
        return f"deal_end of deal {record.deal}"
    if isinstance(record, OutRecord | LotteryPassRecord):
        return f"{record_type(record)} of seat {record.seat}"
    return record_type(record)


def record_name(record: Derived) -> str:
    """The record in a sentence: 'the trick record of trick 3'."""
    kind = record_type(record)
    if isinstance(record, TrickRecord):
        return f"the trick record of trick {record.number}"
    if isinstance(record, DealRecord | DealEndRecord):
        return f"the {kind} record of deal {record.deal}"
    if isinstance(record, OutRecord | LotteryPassRecord):
        return f"the {kind} record of seat {record.seat}"
    return f"the {kind} record"


def first_difference(expected: Derived, actual: Derived) -> str | None:
    """The first field, in the record's order, where the log differs from what the rules give."""
    if expected == actual:
        return None
    for key in expected.__struct_fields__:
        want, got = getattr(expected, key), getattr(actual, key)
        if got == want:
            continue
        if isinstance(want, list) and isinstance(got, list) and len(want) == len(got):
            for index, (w, g) in enumerate(zip(want, got, strict=True)):
                if isinstance(w, list) and w != g:
                    return f"{key}[{index}] {_json_text(g)} but the rules give {_json_text(w)}"
        return f"{key} {_json_text(got)} but the rules give {_json_text(want)}"
    return None


def at_line(line: int | None) -> str:
    """Where a seat was forfeited: the line of the forfeiting fault, or 0 for an earlier game of the match."""
    return "in an earlier game of the match" if line == 0 else f"at line {line}"
