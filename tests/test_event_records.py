"""The events made slot by slot on the hot path (tricks.card_played, tricks.trick_ended) are the constructor's.

They skip the dataclass ``__init__`` for speed; this checks every field, those left out of equality included, and
that the fast path is in use (it falls back to the constructor when the event classes change shape).
"""

from __future__ import annotations

import dataclasses

from referee.rules import CardPlayed, TrickEnded, tricks


def all_fields(event: object) -> dict[str, object]:
    return {field.name: getattr(event, field.name) for field in dataclasses.fields(event)}  # type: ignore[arg-type]


def test_card_played_is_built_as_its_constructor_builds_it() -> None:
    fast = tricks.card_played(2, 43, 7)
    assert type(fast) is CardPlayed
    assert all_fields(fast) == all_fields(CardPlayed(2, 43, 7))
    assert fast == CardPlayed(2, 43, 7) and hash(fast) == hash(CardPlayed(2, 43, 7))


def test_trick_ended_is_built_as_its_constructor_builds_it() -> None:
    args = (3, 1, ((1, 5), (2, 9), (3, 13), (0, 1)), 3, (5, 9, 13, 1), 4)
    fast = tricks.trick_ended(*args)
    assert type(fast) is TrickEnded
    assert all_fields(fast) == all_fields(TrickEnded(*args))
    assert fast == TrickEnded(*args) and repr(fast) == repr(TrickEnded(*args))


def test_the_fast_path_is_in_use() -> None:
    """Fails when CardPlayed or TrickEnded change their fields: update the names in tricks.py's _slot_setters calls."""
    assert tricks._CARD_PLAYED_SETTERS is not None
    assert tricks._TRICK_ENDED_SETTERS is not None
