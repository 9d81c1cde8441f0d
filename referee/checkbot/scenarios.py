"""The game check-bot's bot plays in each check: ruleset, seat, deals, and the situations worth asking it about.

The game is a real ``GameState`` (a fixed seed, and for Hearts fixed deals that force a moon), played with the
loop a match uses (``referee.game_loop``), and every message the bot gets is built by ``referee.wire`` exactly as
in a match, so the situations can never drift from the protocol. The bot is asked in the situations worth checking
(the *checkpoints*: a lead and a follow in a penalty deal, naming trump from the first 5 cards, a trump deal, a
loteryjka turn, passing, a first trick, a moon, a void, a trick nobody won) and on every other turn of its seat, as
in a match: it is never played by the fallback between two requests, so it never gets whole deals of events at
once and is judged on the same message rhythm a match has.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from protocol import messages as m
from referee import wire
from referee.game_loop import SeatMessages, drive_game
from referee.rules import (
    Action,
    Card,
    DealKind,
    DealSpec,
    Event,
    Game,
    GameState,
    Phase,
    Ruleset,
    kierki_scoring,
)
from referee.rules.cards import CLUBS, DIAMONDS, HEARTS, KING, SPADES, SUIT_LETTERS, make_card
from referee.rules.dealing import deal_cards, shuffle
from referee.rules.kierki_scoring import deal_kinds

__all__ = [
    "ALL_GAMES",
    "GAME_NUMBER",
    "UNKNOWN_FIELD",
    "UNKNOWN_MESSAGE",
    "Checkpoint",
    "Scenario",
    "describe",
    "scenario",
    "walk",
]

ALL_GAMES: Final = ("kierki", "kierki3", "hearts", "cancellation")
GAME_NUMBER: Final = 1  # the check plays one game
_SEED: Final = 2  # the deals of every check; the tests pin that every checkpoint is reached with it
# Sent before the bot's second request, which carries the unknown field: a bot must ignore both.
UNKNOWN_MESSAGE: Final = {
    "type": "x_check_future_event",
    "note": "a message type from a later protocol version: bots must ignore it",
    "data": {"list": [1, "two", None, True], "nested": {"deep": []}},
}
UNKNOWN_FIELD: Final = {"x_check_future_field": {"added": "in a later protocol version", "values": [1, 2]}}


@dataclass(frozen=True)
class Checkpoint:
    """A situation to ask the bot about: ``deal`` says in which deals it is looked for, ``matches`` recognises
    the situation itself (the bot is asked on every turn anyway; a checkpoint is a turn judged by name)."""

    deal: Callable[[GameState, int], bool]
    matches: Callable[[GameState], bool]
    name: str  # how a report names the situation when it never came up


@dataclass(frozen=True)
class Scenario:
    game: str
    ruleset: Ruleset
    seat: int
    deals: tuple[DealSpec, ...]
    checkpoints: tuple[Checkpoint, ...]

    def new_state(self) -> GameState:
        return GameState(self.ruleset, seed=_SEED, deals=self.deals)


_PENALTY_KINDS: Final = frozenset((*kierki_scoring.PENALTY_KINDS, DealKind.ROBBER))


def _penalty_deal(state: GameState, seat: int) -> bool:
    return state.kind in _PENALTY_KINDS


def _own_trump_deal(state: GameState, seat: int) -> bool:
    return state.kind is DealKind.TRUMP and state.dealer == seat


def _lottery_deal(state: GameState, seat: int) -> bool:
    return state.kind is DealKind.LOTTERY


def _first_deal(state: GameState, seat: int) -> bool:
    return state.deal_number == 1


def _playing(state: GameState) -> bool:
    return state.phase is Phase.PLAY


def _leading(state: GameState) -> bool:
    return _playing(state) and not state.observation(state.to_act).trick


def _following(state: GameState) -> bool:
    return _playing(state) and bool(state.observation(state.to_act).trick)


def _lottery_opened(state: GameState) -> bool:
    return _playing(state) and state.observation(state.to_act).lottery_start_rank is not None


def _first_trick(state: GameState) -> bool:
    return _playing(state) and not state.observation(state.to_act).tricks


def _led_suit_held(state: GameState) -> bool | None:
    """Whether the seat to play holds the led suit (None when it leads)."""
    obs = state.observation(state.to_act)
    if not _playing(state) or not obs.trick:
        return None
    led = obs.trick[0][1] & 3
    return any(card & 3 == led for card in obs.hand)


def _following_suit(state: GameState) -> bool:
    return _led_suit_held(state) is True


def _void(state: GameState) -> bool:
    return _led_suit_held(state) is False


def _after_no_winner(state: GameState) -> bool:
    """The turn right after a trick nobody won (its cards wait in the pending pile for the next winner)."""
    obs = state.observation(state.to_act)
    return _playing(state) and bool(obs.tricks) and obs.tricks[-1].winner is None and obs.pending_cards > 0


def _any_deal(state: GameState, seat: int) -> bool:
    return True


def _phase(phase: Phase) -> Callable[[GameState], bool]:
    return lambda state: state.phase is phase


_MOON_DEAL: Final = 4  # Hearts: the first deal without passing, so the moon hand below stays intact


def scenario(game: str, players: int | None = None, options: Mapping[str, str] | None = None) -> Scenario:
    """The game the bot plays in the check of ``game``: ruleset, seat, deals and checkpoints.

    ``players`` and ``options`` are a match's ``--players`` and ``--option`` (a `RulesError` when invalid);
    the pinned deals that force a situation are used only where they fit the table (Cancellation's needs 6).
    """
    ruleset = Ruleset.create(game, players, options)
    players = ruleset.players
    if ruleset.game in (Game.KIERKI, Game.KIERKI3):
        first_dealer = GameState(ruleset, seed=_SEED).dealer
        lottery_dealer = (first_dealer + len(deal_kinds(ruleset)) - 1) % players
        # The first seat to lead, unless it deals the loteryjka: its first turn there must come after the opening
        # card, so that everything before it is the fallback's and the turn is sure to come with the pinned seed.
        seat = (first_dealer + 1) % players
        if seat == lottery_dealer:
            seat = (seat + 1) % players
        checkpoints = (
            Checkpoint(_penalty_deal, _leading, "leading in a penalty deal"),
            Checkpoint(_penalty_deal, _following, "following in a penalty deal"),
            Checkpoint(_own_trump_deal, _phase(Phase.TRUMP), "naming trump"),
            Checkpoint(_own_trump_deal, _playing, "playing in a trump deal"),
            Checkpoint(_lottery_deal, _lottery_opened, "a loteryjka turn"),
        )
        return Scenario(game, ruleset, seat, (), checkpoints)
    if ruleset.game is Game.HEARTS:
        seat = 1
        return Scenario(
            game,
            ruleset,
            seat,
            _moon_deals(ruleset, seat),
            (
                Checkpoint(_first_deal, _phase(Phase.PASS), "passing"),
                Checkpoint(_first_deal, _first_trick, "the first trick"),
                Checkpoint(lambda state, s: state.deal_number == _MOON_DEAL, _phase(Phase.MOON), "the moon"),
            ),
        )
    seat = _CANCELLATION_SEAT
    pinned = (_cancelled_trick_deal(ruleset, seat),) if players == _PINNED_PLAYERS else ()
    return Scenario(
        game,
        ruleset,
        seat,
        pinned,
        (
            Checkpoint(_first_deal, _phase(Phase.PASS), "passing"),
            Checkpoint(
                _first_deal, _first_trick, "the kitty trick"
            ),  # the kitty trick, which nobody wins: the kitty waits
            Checkpoint(_first_deal if pinned else _any_deal, _after_no_winner, "the turn after a trick nobody won"),
            Checkpoint(_any_deal, _void, "a void in the led suit"),
            Checkpoint(_any_deal, _following_suit, "following suit"),
        ),
    )


def _moon_deals(ruleset: Ruleset, seat: int) -> tuple[DealSpec, ...]:
    """Hearts deals 1-3 shuffled from the seed, then a deal in which ``seat`` holds all 13 clubs.

    Holding every club, the seat leads the 2♣ and wins every trick (nobody else can follow clubs), so it takes
    every heart and the Q♠ whatever anyone plays: it is asked the moon question. Deal 4 has no passing, so the
    hand reaches the play intact.
    """
    rng = random.Random(_SEED)
    players = ruleset.players
    deals = [deal_cards(ruleset, dealer % players, rng) for dealer in range(_MOON_DEAL - 1)]
    clubs = [make_card(rank, CLUBS) for rank in range(13)]
    rest = [card for card in range(52) if card not in clubs]
    shuffle(rest, rng)
    hands: list[tuple[Card, ...]] = []
    for s in range(players):
        if s == seat:
            hands.append(tuple(clubs))
        else:
            hands.append(tuple(rest[:13]))
            rest = rest[13:]
    deals.append(DealSpec(tuple(hands), (), (_MOON_DEAL - 1) % players))
    return tuple(deals)


_CANCELLATION_SEAT: Final = 2
_PINNED_PLAYERS: Final = 6  # the deal below is built for 17 cards a hand
_PAIR_SEATS: Final = (1, 4)  # the first leader and a seat further on: they alone hold clubs in the first deal


def _cancelled_trick_deal(ruleset: Ruleset, seat: int) -> DealSpec:
    """A first Cancellation deal whose first tricks nobody wins, whatever the bot does.

    Dealer 0, so seat 1 leads. Seats 1 and 4 hold one copy each of the clubs 2 to K, and the kitty both aces of
    clubs: nobody else has a club, the bot (seat 2) included. The fallback passes a seat's three highest cards
    (seats 1 and 4 hold three aces above their clubs, so no club moves) and plays the lowest legal card, so seat 1
    leads the 2 of clubs, seat 4 plays the other 2 of clubs, the pair cancels and no live club is left: the trick,
    and the kitty with it, has no winner, and seat 1 leads again. The bot, void in clubs, is asked in the kitty
    trick, in the trick after it (with cards pending) and while void; the other seats' hands are shuffled.
    """
    ace = 12
    clubs = [make_card(rank, CLUBS) for rank in range(ace)]
    high = [make_card(ace, DIAMONDS), make_card(ace, HEARTS), make_card(ace, SPADES)]
    high += [make_card(KING, DIAMONDS), make_card(KING, SPADES)]
    pair_hand = tuple(clubs + high)
    rest = [c for c in range(52) if c & 3 != CLUBS for _ in range(2)]
    for card in pair_hand:
        if card & 3 != CLUBS:
            rest.remove(card)
            rest.remove(card)
    rng = random.Random(_SEED)
    shuffle(rest, rng)
    size = len(pair_hand)
    hands: list[tuple[Card, ...]] = []
    for s in range(ruleset.players):
        if s in _PAIR_SEATS:
            hands.append(pair_hand)
        else:
            hands.append(tuple(rest[:size]))
            rest = rest[size:]
    assert not rest and seat not in _PAIR_SEATS
    kitty = (make_card(ace, CLUBS), make_card(ace, CLUBS))
    return DealSpec(tuple(hands), kitty, 0)


def describe(state: GameState) -> str:
    """A check's name for the decision ``state`` asks of its seat to act, e.g. "play, deal 1 (no_tricks), ..."."""
    obs = state.observation(state.to_act)
    where = f"deal {state.deal_number} ({'loteryjka' if state.kind is DealKind.LOTTERY else state.kind.value})"
    if state.phase is Phase.TRUMP:
        return f"trump, deal {state.deal_number}, named from the first {len(obs.hand)} cards"
    if state.phase is Phase.PASS:
        direction = wire.pass_direction(obs.pass_offset, obs.players)
        return f"pass, {where}, 3 cards {direction}"
    if state.phase is Phase.MOON:
        return f"moon, {where}, after taking every point"
    if state.kind is DealKind.LOTTERY:
        laid = sum(1 for column in obs.lottery_columns if column is not None)
        return f"play, {where}, {laid} suit(s) open, trick null"
    trick = len(obs.tricks) + 1
    if state.ruleset.game is Game.CANCELLATION:
        parts = [f"play, deal {state.deal_number}, trick {trick}"]
        if not obs.tricks:
            parts[0] = f"play, deal {state.deal_number}, the kitty trick ({obs.kitty_size} kitty cards to its winner)"
        if obs.trick:
            parts.append("following suit" if _led_suit_held(state) else "void in the led suit")
        else:
            parts.append("leading")
        if obs.tricks and obs.tricks[-1].winner is None:
            parts.append(f"after a trick nobody won ({obs.pending_cards} cards pending)")
        return ", ".join(parts)
    if state.kind is DealKind.TRUMP:
        trump = "no trump" if obs.trump is None else f"{SUIT_LETTERS[obs.trump]} trumps"
        where = f"deal {state.deal_number} (trump, {trump})"
    if obs.trick:
        return f"play, {where}, trick {trick}, following {len(obs.trick)} card(s)"
    return f"play, {where}, leading trick {trick}"


def walk(
    scn: Scenario,
    decide: Callable[[GameState, bool], Action | None],
    send: Callable[[m.RefereeMessage], None],
) -> list[Checkpoint]:
    """Play the scenario's game to its end; return the checkpoints never reached (none, with the pinned deals).

    ``send`` gets every message for the bot's seat (game_start and every event, as a match would send them).
    ``decide(state, named)`` is called on every turn of the bot's seat, ``named`` when the turn is a checkpoint,
    and returns the bot's action (legal) or None for the fallback (after a bad answer, as in a match); the
    fallback plays every other seat.
    """
    seat = scn.seat
    state = scn.new_state()
    messages = SeatMessages(state.players, GAME_NUMBER)
    send(wire.game_start(state, seat, GAME_NUMBER))
    pending = list(scn.checkpoints)

    def deliver(events: Sequence[Event]) -> None:
        for event in events:
            for message in messages.of(event)[seat]:
                send(message)

    def choose(state: GameState) -> Sequence[Event]:
        action: Action | None = None
        if state.to_act == seat:
            hit = next((c for c in pending if c.deal(state, seat) and c.matches(state)), None)
            if hit is not None:
                pending.remove(hit)
            action = decide(state, hit is not None)
        return state.apply(state.fallback_action() if action is None else action)

    drive_game(state, choose, deliver)
    return pending
