"""Inference from the opponents' plays: a sampled world is weighted by how likely the others' cards of this deal were
in it, under a model of their play (the rollout policy, ``rollout``).

``rules.sample_state`` already keeps every hard fact (the cards seen, the voids shown, the cards passed). What it
cannot keep is what a play suggests: a seat that ducked under the Q♠ probably had no higher spade it wanted to shed;
a seat that led a low diamond probably held no master. Here each of the last ``LOOKBACK`` plays of the other seats in
this deal is played again in the world, at its moment (each hand then: its cards now and those it played from
then on), by the model; a play the model would not have made multiplies the world's weight by ``MISMATCH``. Worlds in
which the others played as a sensible player would count more.

Not for the loteryjka (its columns would have to be rebuilt) nor Cancellation Hearts (its kitty and twin cards):
there every world weighs 1.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import referee.rules as rules
from referee.search.rollout import Rollout

__all__ = ["LOOKBACK", "MISMATCH", "PlayModel"]

LOOKBACK: Final = 12  # the others' latest plays replayed per world
MISMATCH: Final = 0.6  # a world's weight is multiplied by this for each play the model would not have made
_HEARTS: Final = 2
_QUEEN_OF_SPADES: Final = 43


@dataclass(frozen=True)
class _Moment:
    seat: int
    card: int
    trick: int
    leader: int
    before: tuple[tuple[int, int], ...]  # the trick's cards before this one
    later: tuple[int, ...]  # per seat, a mask of the cards it played from this moment on (back into its hand)
    broken: bool  # hearts broken before this card


class PlayModel:
    """The others' plays of the deal ``seen`` shows, to weigh worlds by (``weight``)."""

    def __init__(self, ruleset: rules.Ruleset, seen: rules.Observation, model: Rollout) -> None:
        self.model = model
        self.moments: list[_Moment] = []
        if (
            seen.phase is not rules.Phase.PLAY
            or seen.kind is rules.DealKind.LOTTERY
            or ruleset.game is rules.Game.CANCELLATION
        ):
            return
        queen_breaks = ruleset.qs_breaks_hearts
        tricks = [(t.number, t.leader, t.plays) for t in seen.tricks] + [
            (len(seen.tricks) + 1, seen.trick_leader, seen.trick)
        ]
        played_after = [0] * seen.players  # filled from the latest play backwards
        found: list[_Moment] = []
        for number, leader, plays in reversed(tricks):
            for index in range(len(plays) - 1, -1, -1):
                seat, card = plays[index]
                played_after[seat] |= 1 << card  # this card too: it was in the hand it was played from
                if seat != seen.seat and len(found) < LOOKBACK:
                    found.append(_Moment(seat, card, number, leader, tuple(plays[:index]), tuple(played_after), False))
        broken = False  # hearts broken before each moment, worked out forwards
        moments = list(reversed(found))
        flow = [(n, i, card) for n, _, plays in tricks for i, (_, card) in enumerate(plays)]
        broken_at: dict[tuple[int, int], bool] = {}
        for number, index, card in flow:
            broken_at[number, index] = broken
            broken = broken or card & 3 == _HEARTS or (queen_breaks and card == _QUEEN_OF_SPADES)
        self.moments = [
            _Moment(m.seat, m.card, m.trick, m.leader, m.before, m.later, broken_at[m.trick, len(m.before)])
            for m in moments
        ]

    def weight(self, world: rules.GameState) -> float:
        """1 for a world in which the model makes every play the others made, ``MISMATCH`` less per other play."""
        if not self.moments:
            return 1.0
        base = world.table
        weight = 1.0
        for moment in self.moments:
            table = base.copy()
            table.hands = [hand | later for hand, later in zip(base.hands, moment.later, strict=True)]
            table.plays = list(moment.before)
            table.trick_number = moment.trick
            table.leader = moment.leader
            table.to_act = moment.seat
            table.hearts_broken = moment.broken
            table.phase = rules.Phase.PLAY
            table.legal = -1
            then = rules.GameState.from_table(table, world.totals)
            legal = then.legal_plays()
            if len(legal) > 1 and self.model(then, legal) != moment.card:
                weight *= MISMATCH
        return weight
