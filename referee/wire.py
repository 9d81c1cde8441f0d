"""Between the rules core and the wire: observations and events become protocol messages, answers become actions.

This is the only module that knows both sides. Each request is built from one seat's ``Observation`` (so it can
only ever carry what that seat may know) and each event message from the core's event records, filtered per seat.
"""

from __future__ import annotations

import functools
from typing import cast

from protocol import messages as m
from referee.rules import (
    Action,
    CardPlayed,
    ChooseMoon,
    ChooseTrump,
    DealEnded,
    DealKind,
    DealStarted,
    Event,
    GameEnded,
    GameState,
    LotteryPassed,
    MoonOption,
    MoonShot,
    Observation,
    PassCards,
    PassesExchanged,
    Phase,
    PlayCard,
    TrickEnded,
    TrickView,
    TrumpChosen,
    card_name,
    parse_card,
)
from referee.rules.cards import RANK_LETTERS, SUIT_LETTERS, Card, CardParseError, make_card, sort_for_display


def cards(values: tuple[Card, ...] | list[Card]) -> tuple[str, ...]:
    return _cards(tuple(values))


@functools.lru_cache(maxsize=8192)
def _cards(values: tuple[Card, ...]) -> tuple[str, ...]:
    return tuple(card_name(c) for c in sort_for_display(values))


def suit_letter(suit: int | None) -> m.Suit | None:
    return None if suit is None else cast(m.Suit, SUIT_LETTERS[suit])


def pass_direction(offset: int, players: int) -> m.PassDirection | None:
    if offset == 0:
        return None
    if offset == 1:
        return "left"
    if offset == players - 1:
        return "right"
    return "across"


def _trick_cards(plays: tuple[tuple[int, Card], ...]) -> tuple[m.TrickCard, ...]:
    return tuple(m.TrickCard(seat=s, card=card_name(c)) for s, c in plays)


@functools.lru_cache(maxsize=4096)
def _completed_trick(trick: TrickView) -> m.CompletedTrick:
    """Finished tricks never change, and every later request of the deal repeats them: build each once."""
    return m.CompletedTrick(
        number=trick.number, leader=trick.leader, cards=_trick_cards(trick.plays), winner=trick.winner
    )


def _columns(obs: Observation) -> m.LotteryColumns:
    spans: list[tuple[str, str] | None] = []
    for suit, column in enumerate(obs.lottery_columns):
        if column is None:
            spans.append(None)
        else:
            spans.append((card_name(make_card(column[0], suit)), card_name(make_card(column[1], suit))))
    return m.LotteryColumns(C=spans[0], D=spans[1], H=spans[2], S=spans[3])


def play_request(obs: Observation, request_id: int, game_number: int, time_ms: int) -> m.PlayRequest:
    lottery = obs.kind is DealKind.LOTTERY
    start = obs.lottery_start_rank
    return m.PlayRequest(
        id=request_id,
        game_number=game_number,
        deal=obs.deal,
        kind=obs.kind.value,
        hand=cards(obs.hand),
        legal=cards(obs.legal),
        trump=suit_letter(obs.trump),
        trick=None if lottery else m.CurrentTrick(leader=obs.trick_leader, cards=_trick_cards(obs.trick)),
        tricks=tuple(_completed_trick(t) for t in obs.tricks),
        lottery=m.LotteryState(
            start_rank=None if start is None else cast(m.Rank, RANK_LETTERS[start]),
            columns=_columns(obs),
        )
        if lottery
        else None,
        scores=m.Scores(deal=obs.deal_scores, total=obs.totals),
        time_ms=time_ms,
    )


def pass_request(obs: Observation, request_id: int, game_number: int, time_ms: int) -> m.PassRequest:
    direction = pass_direction(obs.pass_offset, obs.players)
    assert direction is not None, "a pass is only requested in a deal with passing"
    return m.PassRequest(
        id=request_id,
        game_number=game_number,
        deal=obs.deal,
        direction=direction,
        to=(obs.seat + obs.pass_offset) % obs.players,
        count=3,
        hand=cards(obs.hand),
        time_ms=time_ms,
    )


def trump_request(
    obs: Observation, choices: list[int | None], request_id: int, game_number: int, time_ms: int
) -> m.TrumpRequest:
    return m.TrumpRequest(
        id=request_id,
        game_number=game_number,
        deal=obs.deal,
        cards=tuple(card_name(c) for c in obs.hand),  # dealing order: it is what the dealer saw
        choices=tuple(suit_letter(s) or "NT" for s in choices),
        time_ms=time_ms,
    )


def moon_request(obs: Observation, request_id: int, game_number: int, time_ms: int) -> m.MoonRequest:
    assert obs.moon_options is not None
    return m.MoonRequest(
        id=request_id,
        game_number=game_number,
        deal=obs.deal,
        options=m.MoonOptions(self_=obs.moon_options[MoonOption.SELF], others=obs.moon_options[MoonOption.OTHERS]),
        time_ms=time_ms,
    )


def request_for(state: GameState, request_id: int, game_number: int, time_ms: int) -> m.Request:
    """The request for the decision ``state`` waits for, built from the observation of the seat to act."""
    obs = state.observation(state.to_act)
    phase = state.phase
    if phase is Phase.PLAY:
        return play_request(obs, request_id, game_number, time_ms)
    if phase is Phase.PASS:
        return pass_request(obs, request_id, game_number, time_ms)
    if phase is Phase.TRUMP:
        return trump_request(obs, state.trump_choices(), request_id, game_number, time_ms)
    return moon_request(obs, request_id, game_number, time_ms)


class AnswerError(ValueError):
    """An answer of the right type whose content is not a choice (a card name that cannot be parsed)."""


def to_action(answer: m.BotMessage) -> Action:
    """The rules-core action an answer names; raise AnswerError when its content cannot be read."""
    try:
        if isinstance(answer, m.PlayAnswer):
            return PlayCard(parse_card(answer.card))
        if isinstance(answer, m.PassAnswer):
            return PassCards(tuple(parse_card(c) for c in answer.cards))
    except CardParseError as error:
        raise AnswerError(str(error)) from None
    if isinstance(answer, m.TrumpAnswer):
        return ChooseTrump(None if answer.suit == "NT" else SUIT_LETTERS.index(answer.suit))
    if isinstance(answer, m.MoonAnswer):
        return ChooseMoon(MoonOption(answer.choice))
    raise AnswerError(f"a {answer.__class__.__name__} is not a decision")


def to_answer(action: Action, request_id: int) -> m.BotMessage:
    """The answer a bot would have sent for ``action`` (shown in error notices as the fallback played)."""
    if isinstance(action, PlayCard):
        return m.PlayAnswer(id=request_id, card=card_name(action.card))
    if isinstance(action, PassCards):
        return m.PassAnswer(id=request_id, cards=tuple(card_name(c) for c in action.cards))
    if isinstance(action, ChooseTrump):
        return m.TrumpAnswer(id=request_id, suit=suit_letter(action.suit) or "NT")
    return m.MoonAnswer(id=request_id, choice=action.option.value)


class EventTranslator:
    """Turns core events into the event messages each seat may see, remembering what a deal dealt."""

    def __init__(self, players: int, game_number: int) -> None:
        self.players = players
        self.game_number = game_number
        self._deal: DealStarted | None = None
        self._moon: m.MoonRecord | None = None

    def messages(self, event: Event) -> list[list[m.RefereeMessage]]:
        """Per seat, the messages this event produces (often the same object for every seat)."""
        n = self.players
        g = self.game_number
        if isinstance(event, DealStarted):
            self._deal = event
            self._moon = None
            if event.kind is DealKind.TRUMP:
                return [[] for _ in range(n)]  # everyone learns their hand once trump is named
            return [[self._deal_message(seat, None)] for seat in range(n)]
        if isinstance(event, TrumpChosen):
            return [[self._deal_message(seat, event.suit)] for seat in range(n)]
        if isinstance(event, PassesExchanged):
            return [[self._passed_message(seat, event)] for seat in range(n)]
        deal = self._deal.deal if self._deal else 0
        shared: m.RefereeMessage
        if isinstance(event, CardPlayed):
            shared = m.PlayedEvent(game_number=g, deal=deal, seat=event.seat, card=card_name(event.card))
        elif isinstance(event, LotteryPassed):
            shared = m.LotteryPassEvent(game_number=g, deal=deal, seat=event.seat)
        elif isinstance(event, TrickEnded):
            shared = m.TrickEvent(
                game_number=g,
                deal=deal,
                number=event.number,
                leader=event.leader,
                cards=_trick_cards(event.plays),
                winner=event.winner,
            )
        elif isinstance(event, MoonShot):
            self._moon = m.MoonRecord(seat=event.seat, choice=event.option.value)
            return [[] for _ in range(n)]
        elif isinstance(event, DealEnded):
            shared = m.DealEndEvent(
                game_number=g,
                deal=event.deal,
                scores=event.scores,
                totals=event.totals,
                early=event.early,
                moon=self._moon,
            )
        elif isinstance(event, GameEnded):
            shared = m.GameEndEvent(game_number=g, totals=event.totals, places=event.places)
        else:
            return [[] for _ in range(n)]  # PlayerOut: the deal_end scores say it
        return [[shared] for _ in range(n)]

    def _deal_message(self, seat: int, trump: int | None) -> m.DealEvent:
        deal = self._deal
        assert deal is not None
        return m.DealEvent(
            game_number=self.game_number,
            deal=deal.deal,
            kind=deal.kind.value,
            dealer=deal.dealer,
            hand=cards(deal.hands[seat]),
            trump=suit_letter(trump),
            pass_direction=pass_direction(deal.pass_offset, self.players) or "none",
            kitty_size=len(deal.kitty),
        )

    def _passed_message(self, seat: int, event: PassesExchanged) -> m.PassedEvent:
        deal = self._deal
        assert deal is not None
        giver = (seat - event.pass_offset) % self.players
        sent = list(event.passed[seat])
        received = event.passed[giver]
        hand = list(deal.hands[seat])
        for card in sent:
            hand.remove(card)
        hand.extend(received)
        return m.PassedEvent(
            game_number=self.game_number,
            deal=deal.deal,
            sent=cards(sent),
            received=cards(received),
            from_=giver,
            hand=cards(hand),
        )
