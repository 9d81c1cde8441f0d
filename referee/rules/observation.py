"""One seat's view of the game: all that seat may know at this moment, nothing more.

Built fresh from the state for each request (never a shared mutable object), so no seat can ever be handed
another seat's hand by accident: the only cards in it are the seat's own, the cards played to tricks, and what
the seat itself passed and received.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from referee.rules.cards import Card, Suit, card_list
from referee.rules.legality import legal_mask
from referee.rules.records import DealKind, MoonOption, Phase
from referee.rules.ruleset import Game
from referee.rules.table import Table, TrickView

__all__ = [
    "Observation",
    "PlayView",
    "TrickView",
    "exchange_seen",
    "moon_projection",
    "observe",
    "play_view",
    "trump_cards_seen",
]

# Read once per play request: a constant, not looked up on its enum class (see state.py)
_PLAY: Final = Phase.PLAY


@dataclass(frozen=True, slots=True)
class Observation:
    """Everything one seat may know of the game at this moment, and nothing it may not (``observe``)."""

    game: Game
    players: int
    seat: int
    deal: int
    kind: DealKind
    dealer: int
    phase: Phase
    to_act: int  # -1 once the game is over
    hand: tuple[Card, ...]  # while trump is being named: the dealer's first cards only, others see none
    hand_sizes: tuple[int, ...]
    trump: Suit | None
    trump_named: bool
    pass_offset: int  # 0: no passing this deal
    passed: tuple[Card, ...]
    received: tuple[Card, ...]
    trick_leader: int
    trick: tuple[tuple[int, Card], ...]
    tricks: tuple[TrickView, ...]
    deal_scores: tuple[int, ...]
    totals: tuple[int, ...]
    legal: tuple[Card, ...]  # only for the seat to play
    lottery_start_rank: int | None
    lottery_columns: tuple[tuple[int, int] | None, ...]
    lottery_finished: tuple[int, ...]
    kitty_size: int
    pending_cards: int
    moon_options: dict[MoonOption, tuple[int, ...]] | None
    hearts_broken: bool


class PlayView:
    """What the seat to play may know when it is asked for a card: the part of its ``Observation`` a play request
    carries, as the state holds it (cards as masks), so the referee's hottest path builds no full observation.
    ``tests/test_observation.py`` checks it against ``observe`` field by field.

    A plain class with slots, made once per decision and only read: in the compiled build it is a native class
    (built and read without Python calls), and in the pure build it is still quicker to make and to read than the
    ``NamedTuple`` it was (whose ``__new__`` is Python code) or a dataclass."""

    __slots__ = (
        "deal",
        "deal_scores",
        "hand",
        "hand_doubles",
        "kind",
        "legal",
        "lottery_columns",
        "lottery_start_rank",
        "seat",
        "totals",
        "trick",
        "trick_leader",
        "tricks",
        "trump",
    )

    def __init__(
        self,
        seat: int,
        deal: int,
        kind: DealKind,
        hand: int,
        hand_doubles: int,
        legal: int,
        trump: Suit | None,
        trick_leader: int,
        trick: tuple[tuple[int, Card], ...],
        tricks: tuple[TrickView, ...],
        deal_scores: tuple[int, ...],
        totals: tuple[int, ...],
        lottery_start_rank: int | None,
        lottery_columns: tuple[tuple[int, int] | None, ...],
    ) -> None:
        self.seat = seat
        self.deal = deal
        self.kind = kind
        self.hand = hand  # mask of the cards held (at least one copy)
        self.hand_doubles = hand_doubles  # mask of the cards held twice (two decks); 0 in every other game
        self.legal = legal  # mask of the cards the seat may play
        self.trump = trump
        self.trick_leader = trick_leader
        self.trick = trick
        self.tricks = tricks
        self.deal_scores = deal_scores
        self.totals = totals
        self.lottery_start_rank = lottery_start_rank
        self.lottery_columns = lottery_columns


# The functions below are the rules core's statement of what a seat may know, read from the deal's table and the
# game's totals (``GameState.observation`` and ``GameState.play_view`` call them; the wire calls ``exchange_seen``
# for each play request).


def trump_cards_seen(table: Table) -> tuple[Card, ...]:
    """The dealer's first 5 (3 players: 6) cards in dealing order: all they see before naming trump."""
    return table.dealt[table.dealer][: 5 if table.flags.players == 4 else 6]


def moon_projection(table: Table, totals: Sequence[int]) -> dict[MoonOption, tuple[int, ...]]:
    """The totals each moon option would leave, for the shooter to choose from."""
    shooter = table.shooter
    value = table.flags.ruleset.moon_value
    own = list(totals)
    own[shooter] -= value
    others = [t + (0 if s == shooter else value) for s, t in enumerate(totals)]
    return {MoonOption.SELF: tuple(own), MoonOption.OTHERS: tuple(others)}


def tricks_seen(table: Table) -> tuple[TrickView, ...]:
    """The views of this deal's finished tricks, made when first asked for."""
    if table.unviewed:
        views = table.trick_views
        for t in table.unviewed:
            views.append(TrickView(t.number, t.leader, t.plays, t.winner, t.deal))
        table.unviewed.clear()
    return tuple(table.trick_views)


def exchange_seen(table: Table, seat: int) -> tuple[int, tuple[Card, ...], tuple[Card, ...]]:
    """This deal's pass as ``seat`` knows it: the pass offset (0: no passing; the receiver is ``seat + offset``), the
    cards it passed (empty until it has) and the cards it received (empty until every seat has passed). The part of
    ``observe`` a play request also carries, without the cost of a whole observation."""
    sent = table.passes[seat]
    exchanged = table.exchanged
    offset = table.pass_offset
    received: tuple[Card, ...] = ()
    if exchanged is not None and offset:
        received = exchanged[(seat - offset) % table.flags.players]
    return offset, () if sent is None else sent, received


def observe(table: Table, totals: Sequence[int], seat: int) -> Observation:
    """Everything ``seat`` may know now, and nothing more."""
    players = table.flags.players
    phase = table.phase
    trump_phase = phase is Phase.TRUMP
    if trump_phase:
        hand: tuple[Card, ...] = trump_cards_seen(table) if seat == table.dealer else ()
    else:
        hand = tuple(table.hand(seat))
    acting = seat == table.to_act and phase is not Phase.OVER
    _, sent, received = exchange_seen(table, seat)
    return Observation(
        game=table.flags.ruleset.game,
        players=players,
        seat=seat,
        deal=table.number,
        kind=table.kind,
        dealer=table.dealer,
        phase=phase,
        to_act=table.to_act,
        hand=hand,
        hand_sizes=tuple(0 if trump_phase else table.cards_held(s) for s in range(players)),
        trump=table.trump,
        trump_named=not trump_phase and table.kind is DealKind.TRUMP,
        pass_offset=table.pass_offset,
        passed=sent,
        received=received,
        trick_leader=table.leader,
        trick=tuple(table.plays),
        tricks=tricks_seen(table),
        deal_scores=tuple(table.scores),
        totals=tuple(totals),
        legal=tuple(card_list(legal_mask(table))) if acting and phase is Phase.PLAY else (),
        lottery_start_rank=table.start_rank,
        lottery_columns=tuple(table.columns),
        lottery_finished=tuple(table.finished),
        kitty_size=len(table.kitty),
        pending_cards=len(table.pending),
        moon_options=moon_projection(table, totals) if acting and phase is Phase.MOON else None,
        hearts_broken=table.hearts_broken,
    )


def play_view(table: Table, totals: Sequence[int]) -> PlayView:
    """What the seat to play may know now (the play phase only)."""
    assert table.phase is _PLAY, "a play view is only made while a card is awaited"
    seat = table.to_act
    return PlayView(
        seat,
        table.number,
        table.kind,
        table.hands[seat],
        table.doubles[seat],
        legal_mask(table),
        table.trump,
        table.leader,
        tuple(table.plays),
        tricks_seen(table),
        tuple(table.scores),
        tuple(totals),
        table.start_rank,
        tuple(table.columns),
    )
