"""``referee.wire``'s event side: each seat's projection of a core event, encoded; nothing decided here."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from rules_helpers import cards, names, new_state

from protocol import codec
from protocol import messages as m
from referee import wire, wire_requests
from referee.game_loop import SeatMessages
from referee.rules import (
    CardPlayed,
    DealStarted,
    Event,
    GameState,
    LotteryPassed,
    MoonOption,
    MoonShot,
    PassCards,
    PlayCard,
    PlayerOut,
    Ruleset,
    TrickEnded,
    TrumpChosen,
    card_name,
)
from referee.rules.projection import project
from referee.rules.table import TrickView

TOP = cards("S:AKQ C:AKQJT D:AKQJT")
REST = [c for c in range(52) if c not in TOP]
HANDS = [names(TOP), *(names(REST[i : i + 13]) for i in (0, 13, 26))]  # seat 0 takes every trick: a moon


def lines(per_seat: list[list[m.Event]]) -> list[list[bytes]]:
    return [[codec.encode(message) for message in messages] for messages in per_seat]


def whole_game(game: str, seed: int) -> tuple[GameState, list[Event]]:
    state = GameState(Ruleset.create(game, None, None), seed=seed)
    events = list(state.events)
    while not state.is_over:
        events += state.apply(state.fallback_action())
    return state, events


def test_a_public_event_is_one_message_object_for_every_seat() -> None:
    state, events = whole_game("kierki", 3)
    public = (CardPlayed, LotteryPassed, TrickEnded)
    assert {type(e) for e in events} >= {*public, PlayerOut, TrumpChosen}
    for event in events:
        per_seat = wire.messages_for([event], state.players, 1)
        if isinstance(event, public):
            first = per_seat[0][0]
            assert all(messages == [first] and messages[0] is first for messages in per_seat)
        elif isinstance(event, PlayerOut):
            assert per_seat == [[]] * state.players  # the deal_end scores say it
        elif isinstance(event, TrumpChosen | DealStarted) and per_seat[0]:
            assert len({id(messages[0]) for messages in per_seat}) == state.players  # each seat its own hand


def test_messages_for_is_the_encoding_of_each_seats_projection() -> None:
    _, events = whole_game("hearts", 5)
    expected = [
        [message for event in events if (view := project(event, seat)) and (message := wire.event_message(view, 4, 2))]
        for seat in range(4)
    ]
    assert wire.messages_for(events, 4, 2) == expected


def test_the_exchange_and_the_moon_as_bots_receive_them() -> None:
    state = new_state("hearts", HANDS, dealer=3, options={"passing": "left"})
    sent: list[list[bytes]] = lines(wire.messages_for(state.events, 4, 1))
    assert sent[1] == [
        b'{"type":"deal","game_number":1,"deal":1,"kind":"hearts","dealer":3,"hand":["2C","3C","4C","5C","2D","3D",'
        b'"4D","2H","3H","4H","2S","3S","4S"],"trump":null,"pass_direction":"left","kitty_size":0}\n'
    ]
    events: list[Event] = []
    for seat in range(4):  # each passes its three highest cards
        events += state.apply(PassCards(tuple(state.hand(seat)[-3:])), seat)
    sent = lines(wire.messages_for(events, 4, 1))
    assert sent[1] == [
        b'{"type":"passed","game_number":1,"deal":1,"sent":["5C","4H","4S"],"received":["AC","AD","AS"],"from":0,'
        b'"hand":["2C","3C","4C","AC","2D","3D","4D","AD","2H","3H","2S","3S","AS"]}\n'
    ]
    moon = new_state("hearts", HANDS, dealer=3, options={"passing": "none"})
    events = []
    while not any(isinstance(e, MoonShot) for e in events):
        events += moon.apply(moon.fallback_action())
    at = next(i for i, e in enumerate(events) if isinstance(e, MoonShot))
    shot = events[at]
    assert isinstance(shot, MoonShot) and shot.option is MoonOption.OTHERS  # the default
    sent = lines(wire.messages_for(events[at : at + 2], 4, 1))  # the moon shot, then the deal's end
    assert sent[2] == [
        b'{"type":"deal_end","game_number":1,"deal":1,"scores":[0,26,26,26],"totals":[0,26,26,26],"early":false,'
        b'"moon":{"seat":0,"choice":"others"}}\n'
    ]


# --- the lines the match sends, parts encoded once: byte for byte the encoding of their messages ---------------


def test_a_played_line_is_the_encoding_of_its_message_for_every_seat_and_card() -> None:
    for game_number in (1, 7, 1234):
        for deal in (1, 9, 10, 250):
            for seat in range(11):
                for card in range(52):
                    event = CardPlayed(seat, card, deal)
                    view = project(event, 0)
                    assert view is not None
                    message = wire.event_message(view, 11, game_number)
                    assert message is not None
                    assert wire.public_line(event, 11, game_number) == codec.encode(message)


def _check_seat_lines(seat_messages: SeatMessages, events: Sequence[Event]) -> None:
    players, game_number = seat_messages.players, seat_messages.game_number
    for event in events:
        messages = wire.seat_messages(event, players, game_number)
        assert seat_messages.lines(event) == [None if mm is None else codec.encode(mm) for mm in messages]


def _completed(trick: TrickView) -> m.CompletedTrick:
    cards = tuple(m.TrickCard(seat=seat, card=card_name(card)) for seat, card in trick.plays)
    return m.CompletedTrick(number=trick.number, leader=trick.leader, cards=cards, winner=trick.winner)


def test_request_lines_and_seat_lines_are_the_encodings_of_their_messages() -> None:
    """Every request and every event line of whole games of each game, its two-deck variant included: the finished
    tricks pre-encoded per deal and the public lines encoded once must equal codec.encode of the messages."""
    requests = 0
    for game, players, seed in (("kierki", None, 3), ("kierki3", None, 4), ("hearts", None, 5), ("cancellation", 7, 6)):
        state = GameState(Ruleset.create(game, players, None), seed=seed)
        seat_messages = SeatMessages(state.players, 3)
        request_lines = wire_requests.RequestLines(3)
        _check_seat_lines(seat_messages, state.events)
        while not state.is_over:
            request, line = request_lines.line_for(state, requests + 1, 900)
            assert request == wire_requests.request_for(state, requests + 1, 3, 900)
            assert line == codec.encode(request)
            if isinstance(request, m.PlayRequest):  # the cached finished tricks, against ones made from scratch
                assert request.tricks == tuple(_completed(t) for t in state.observation(state.to_act).tricks)
            requests += 1
            _check_seat_lines(seat_messages, state.apply(state.fallback_action()))
    assert requests > 1000


def test_an_answer_becomes_the_play_it_names_and_a_card_that_is_none_an_answer_error() -> None:
    for card in range(52):
        assert wire.to_action(m.PlayAnswer(id=1, card=card_name(card))) == PlayCard(card)
    for text in ("ZZ", "10H", "qs"):  # the decoder refuses these first; to_action does not rely on it
        with pytest.raises(wire.AnswerError, match="is not a card"):
            wire.to_action(m.PlayAnswer(id=1, card=text))
