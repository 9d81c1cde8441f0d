"""GameState.copy is independent of the original, however far either goes."""

from __future__ import annotations

import pytest

from referee.rules import GameState, Ruleset


@pytest.mark.parametrize(("game", "players"), [("kierki", 4), ("kierki3", 3), ("hearts", 4), ("cancellation", 7)])
def test_copy_is_independent(game: str, players: int) -> None:
    state = GameState(Ruleset.create(game, players), seed=9)
    for _ in range(40):
        state.apply(state.fallback_action())
    before = [state.observation(s) for s in range(players)]
    events = len(state.events)
    twin = state.copy()
    while not twin.is_over:
        twin.apply(twin.fallback_action())
    assert [state.observation(s) for s in range(players)] == before
    assert len(state.events) == events
    # and the original, played on, reaches the same end as the copy did (same seed, same choices)
    while not state.is_over:
        state.apply(state.fallback_action())
    assert state.totals == twin.totals
    assert state.events == twin.events
