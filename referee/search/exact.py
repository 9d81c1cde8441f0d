"""Exact play of a deal's end with every card known: max^n over the rest of the deal.

Each seat, at its turn, plays the card that leaves it the best margin at the deal's end (its points less the mean
of the others', in the game's direction), every seat assuming the others do the same; ties go to the lowest card.
A transposition table keyed by the position (hands, trick, scores, loteryjka) makes each position searched once.
Only for few cards: the search visits every line, at most about ``(c!)^players`` of them with ``c`` cards a hand;
`solve` refuses positions with more than `SOLVE_MAX_CARDS` cards still to play.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import referee.rules as rules

__all__ = ["SOLVE_MAX_CARDS", "SolveError", "cards_left", "margin", "solve", "solve_scores"]

SOLVE_MAX_CARDS: Final = 16
_OVER: Final = rules.Phase.OVER
_MOON: Final = rules.Phase.MOON


class SolveError(ValueError):
    """A position `solve` does not take: not a card to play or a moon to choose, or too many cards left."""


def margin(scores: Sequence[int], seat: int, higher_is_better: bool) -> float:
    """``seat``'s points less the mean of the others', positive when it did better (Hearts: fewer points)."""
    mine = scores[seat]
    others = (sum(scores) - mine) / (len(scores) - 1)
    return mine - others if higher_is_better else others - mine


def cards_left(state: rules.GameState) -> int:
    """The cards still held in every hand."""
    return sum(len(state.hand(seat)) for seat in range(state.players))


def solve(state: rules.GameState) -> dict[rules.Action, float]:
    """The exact value of each legal action of the seat to act over the rest of the current deal, every card known:
    the seat's margin at the deal's end under max^n play (module docstring). A card to play (at most
    `SOLVE_MAX_CARDS` cards left in all hands) or a moon to choose."""
    if state.is_over:
        raise SolveError("the game is over: there is nothing to solve")
    seat = state.to_act
    higher = state.ruleset.game.higher_is_better
    if state.phase is _MOON:
        deal_scores = {
            option: tuple(after - before for after, before in zip(totals, state.totals, strict=True))
            for option, totals in state.moon_projection().items()
        }
        return {rules.ChooseMoon(o): margin(s, seat, higher) for o, s in deal_scores.items()}
    if state.phase is not rules.Phase.PLAY:
        raise SolveError(f"solve takes a card to play or a moon to choose, not a {state.phase.value} decision")
    left = cards_left(state)
    if left > SOLVE_MAX_CARDS:
        raise SolveError(f"{left} cards are still to play; solve takes at most {SOLVE_MAX_CARDS}")
    return {rules.PlayCard(card): margin(scores, seat, higher) for card, scores in solve_scores(state).items()}


def solve_scores(state: rules.GameState) -> dict[int, tuple[int, ...]]:
    """Each legal card of the seat to act and the deal's scores max^n play then reaches (no card limit)."""
    deal = rules.GameState.from_table(state.table.copy(), state.totals)  # ends with this deal
    return _MaxN(deal.ruleset.game.higher_is_better, deal.players).children(deal)


class _MaxN:
    def __init__(self, higher: bool, players: int) -> None:
        self.higher = higher
        self.players = players
        self.memo: dict[tuple[object, ...], tuple[int, ...]] = {}

    def children(self, state: rules.GameState) -> dict[int, tuple[int, ...]]:
        found: dict[int, tuple[int, ...]] = {}
        for card in state.legal_plays():
            if card in found:
                continue
            child = state.copy()
            child.apply(rules.PlayCard(card))
            found[card] = self.value(child)
        return found

    def value(self, state: rules.GameState) -> tuple[int, ...]:
        phase = state.phase
        if phase is _OVER:
            return state.deal_results[-1].scores
        if phase is _MOON:
            seat = state.to_act
            best: tuple[int, ...] | None = None
            for option in (rules.MoonOption.SELF, rules.MoonOption.OTHERS):
                child = state.copy()
                child.apply(rules.ChooseMoon(option))
                scores = child.deal_results[-1].scores
                if best is None or margin(scores, seat, self.higher) > margin(best, seat, self.higher):
                    best = scores
            assert best is not None
            return best
        table = state.table
        key = (
            tuple(table.hands),
            tuple(table.doubles),
            tuple(table.plays),
            table.to_act,
            tuple(table.scores),
            table.hearts_broken,
            len(table.pending),
            len(table.kitty),
            tuple(table.columns),
            tuple(table.finished),
            table.start_rank,
        )
        known = self.memo.get(key)
        if known is not None:
            return known
        seat = table.to_act
        result: tuple[int, ...] | None = None
        best_margin = 0.0
        for scores in self.children(state).values():
            value = margin(scores, seat, self.higher)
            if result is None or value > best_margin:
                result, best_margin = scores, value
        assert result is not None, "a position in the play phase has a legal card"
        self.memo[key] = result
        return result
