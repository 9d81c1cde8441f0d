"""The referee's own choices: what it decides for a seat whose bot did not (a fault, a forfeit, a silent
dealer), and the moon option when the shooter is not asked. Deterministic, so a replay re-derives them."""

from __future__ import annotations

from collections.abc import Sequence

from referee.rules.cards import Card, Suit, lowest_in
from referee.rules.exchange import PASS_COUNT
from referee.rules.legality import legal_mask
from referee.rules.observation import moon_projection, trump_cards_seen
from referee.rules.records import (
    Action,
    ChooseMoon,
    ChooseTrump,
    IllegalActionError,
    MoonOption,
    PassCards,
    Phase,
    PlayCard,
)
from referee.rules.ruleset import MoonDefault
from referee.rules.table import Table


def fallback_action(table: Table, totals: Sequence[int]) -> Action:
    """A deterministic choice for the seat to act, played by the referee for a misbehaving bot."""
    phase = table.phase
    if phase is Phase.PLAY:
        return PlayCard(lowest_in(legal_mask(table)))
    if phase is Phase.PASS:
        return PassCards(tuple(table.hand(table.to_act)[-PASS_COUNT:][::-1]))
    if phase is Phase.TRUMP:
        return ChooseTrump(default_trump(trump_cards_seen(table)))
    if phase is Phase.MOON:
        return ChooseMoon(default_moon(table, totals))
    raise IllegalActionError("game-over", "the game is over: nobody is to act")


def default_moon(table: Table, totals: Sequence[int]) -> MoonOption:
    """The moon option the ruleset's ``moon_default`` gives, for a shooter not answering [A-CH14, A-H6]."""
    ruleset = table.flags.ruleset
    rule = ruleset.moon_default
    if rule is MoonDefault.SELF:
        return MoonOption.SELF
    if rule is MoonDefault.SAFETY:
        others = moon_projection(table, totals)[MoonOption.OTHERS]
        ends = max(others) >= ruleset.target
        if ends and others[table.shooter] > min(others):
            return MoonOption.SELF
    return MoonOption.OTHERS


def default_trump(seen: Sequence[Card]) -> Suit:
    """Most cards among those seen; ties by the higher sum of ranks, then ♠ > ♥ > ♦ > ♣ [A-K8]."""
    return max(
        range(4),
        key=lambda s: (
            sum(1 for c in seen if c & 3 == s),
            sum(c >> 2 for c in seen if c & 3 == s),
            s,
        ),
    )
