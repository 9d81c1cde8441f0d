"""One seat's view of the game: all that seat may know at this moment, nothing more.

Built fresh from the state for each request (never a shared mutable object), so no seat can ever be handed
another seat's hand by accident: the only cards in it are the seat's own, the cards played to tricks, and what
the seat itself passed and received.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from referee.rules.cards import Card, Suit, card_list
from referee.rules.records import DealKind, MoonOption, Phase
from referee.rules.ruleset import Game

if TYPE_CHECKING:
    from referee.rules.state import GameState

_PLAY: Final = Phase.PLAY  # Final: in the compiled build a C constant, not looked up on its enum class


@dataclass(frozen=True, slots=True)
class TrickView:
    """A finished trick as every seat sees it: who played what and who won, not what the winner collected."""

    number: int
    leader: int
    plays: tuple[tuple[int, Card], ...]
    winner: int | None
    deal: int = 0


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


# The functions below are the rules core's statement of what a seat may know. They read the state's own fields
# (they are the state's, split out of state.py only for its length; ``GameState.observation`` and
# ``GameState.play_view`` call the first two, and the wire calls ``exchange_seen`` for each play request).


def observe(state: GameState, seat: int) -> Observation:
    """Everything ``seat`` may know now, and nothing more."""
    trump_phase = state.phase is Phase.TRUMP
    if trump_phase:
        hand: tuple[Card, ...] = state.trump_cards_seen() if seat == state.dealer else ()
    else:
        hand = tuple(state.hand(seat))
    acting = seat == state.to_act and state.phase is not Phase.OVER
    _, sent, received = exchange_seen(state, seat)
    return Observation(
        game=state.ruleset.game,
        players=state.players,
        seat=seat,
        deal=state.deal_number,
        kind=state.kind,
        dealer=state.dealer,
        phase=state.phase,
        to_act=state.to_act,
        hand=hand,
        hand_sizes=tuple(
            0 if trump_phase else (state.hands[s].bit_count() + state.doubles[s].bit_count())
            for s in range(state.players)
        ),
        trump=state.trump,
        trump_named=not trump_phase and state.kind is DealKind.TRUMP,
        pass_offset=state._pass_offset,
        passed=sent,
        received=received,
        trick_leader=state._leader,
        trick=tuple(state._plays),
        tricks=state._tricks_seen(),
        deal_scores=tuple(state._deal_scores),
        totals=tuple(state.totals),
        legal=tuple(card_list(state._legal_mask())) if acting and state.phase is Phase.PLAY else (),
        lottery_start_rank=state._start_rank,
        lottery_columns=tuple(state._columns),
        lottery_finished=tuple(state._finished),
        kitty_size=len(state._kitty),
        pending_cards=len(state._pending),
        moon_options=state.moon_projection() if acting and state.phase is Phase.MOON else None,
        hearts_broken=state._hearts_broken,
    )


def exchange_seen(state: GameState, seat: int) -> tuple[int, tuple[Card, ...], tuple[Card, ...]]:
    """This deal's pass as ``seat`` knows it: the pass offset (0: no passing; the receiver is ``seat + offset``), the
    cards it passed (empty until it has) and the cards it received (empty until every seat has passed). The part of
    ``observe`` a play request also carries, without the cost of a whole observation."""
    sent = state._passes[seat]
    exchanged = state._exchanged
    offset = state._pass_offset
    received: tuple[Card, ...] = ()
    if exchanged is not None and offset:
        received = exchanged[(seat - offset) % state.players]
    return offset, () if sent is None else sent, received


def play_view(state: GameState) -> PlayView:
    """What the seat to play may know now (the play phase only)."""
    assert state.phase is _PLAY, "a play view is only made while a card is awaited"
    seat = state.to_act
    return PlayView(
        seat,
        state.deal_number,
        state.kind,
        state.hands[seat],
        state.doubles[seat],
        state._legal_mask(),
        state.trump,
        state._leader,
        tuple(state._plays),
        state._tricks_seen(),
        tuple(state._deal_scores),
        tuple(state.totals),
        state._start_rank,
        tuple(state._columns),
    )
