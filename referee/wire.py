"""Between the rules core and the wire: observations and events become protocol messages, answers become actions.

With ``wire_requests`` (the requests, built from the parts named here) it is the only module that knows both
sides, and it keeps no state of any game: its tables are memos of immutable message parts (each card's play, a
trick's (seat, card) parts, the names of a suit's cards in a mask). Each event message is built from one seat's view
of a core event (``projection.project``), so a message can only ever carry what that seat may know; this module
never decides visibility itself.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, cast

from protocol import codec
from protocol import messages as m
from referee.rules import (
    Action,
    CardPlayed,
    ChooseMoon,
    ChooseTrump,
    DealEnded,
    DealKind,
    Event,
    GameEnded,
    GameState,
    LotteryPassed,
    MoonOption,
    PassCards,
    PlayCard,
    PlayerOut,
    TrickView,
    card_name,
    parse_card,
)
from referee.rules.cards import (
    CLUBS,
    DIAMONDS,
    HEARTS,
    SPADES,
    SUIT_LETTERS,
    SUIT_MASKS,
    Card,
    CardParseError,
    card_list,
    make_card,
    mask_of,
    parse_trump,
    sort_for_display,
    trump_name,
)
from referee.rules.points import point_values
from referee.rules.projection import CardsPassed, HandDealt, SeatEvent, is_public, project

# A deal kind's name on the wire, for every request: ``kind.value`` is a property of ``enum`` that runs as Python
# code even in the compiled build (about 0.15 µs against 0.02 for this lookup).
KIND_NAMES: Final[dict[DealKind, m.DealKind]] = {kind: kind.value for kind in DealKind}


def suit_letter(suit: int | None) -> m.Suit | None:
    return None if suit is None else cast(m.Suit, SUIT_LETTERS[suit])


def trump_choice(suit: int | None) -> m.TrumpChoice:
    return cast(m.TrumpChoice, trump_name(suit))


def pass_direction(offset: int, players: int) -> m.PassDirection | None:
    if offset == 0:
        return None
    if offset == 1:
        return "left"
    if offset == players - 1:
        return "right"
    return "across"


_TRICK_CARDS: Final[dict[tuple[int, Card], m.TrickCard]] = {}  # (seat, card): its message part, made once


def trick_cards(plays: tuple[tuple[int, Card], ...]) -> tuple[m.TrickCard, ...]:
    parts = _TRICK_CARDS
    try:
        return tuple([parts[play] for play in plays])
    except KeyError:
        for s, c in plays:
            parts.setdefault((s, c), m.TrickCard(seat=s, card=card_name(c)))
        return tuple([parts[play] for play in plays])


def completed_trick(trick: TrickView) -> m.CompletedTrick:
    cards = trick_cards(trick.plays)
    return m.CompletedTrick(number=trick.number, leader=trick.leader, cards=cards, winner=trick.winner)


def lottery_columns(columns: tuple[tuple[int, int] | None, ...]) -> m.LotteryColumns:
    spans: list[tuple[str, str] | None] = []
    for suit, column in enumerate(columns):
        if column is None:
            spans.append(None)
        else:
            spans.append((card_name(make_card(column[0], suit)), card_name(make_card(column[1], suit))))
    return m.LotteryColumns(C=spans[0], D=spans[1], H=spans[2], S=spans[3])


class _SuitNames(dict[int, tuple[str, ...]]):
    """The names of the cards of one suit held in a mask, low to high, keyed by the mask's part in that suit
    (at most 4 x 8192 entries, each made when first needed): a hand in display order is four lookups."""

    def __missing__(self, part: int) -> tuple[str, ...]:
        names = self[part] = tuple(card_name(c) for c in card_list(part))
        return names


_SUIT_NAMES: Final = _SuitNames()
_CLUBS: Final = SUIT_MASKS[CLUBS]
_DIAMONDS: Final = SUIT_MASKS[DIAMONDS]
_HEARTS: Final = SUIT_MASKS[HEARTS]
_SPADES: Final = SUIT_MASKS[SPADES]


def mask_names(mask: int) -> tuple[str, ...]:
    """The names of a mask's cards in display order (by suit, low to high): what ``cards`` gives for them."""
    names = _SUIT_NAMES
    return names[mask & _CLUBS] + names[mask & _DIAMONDS] + names[mask & _HEARTS] + names[mask & _SPADES]


def cards(values: tuple[Card, ...] | list[Card]) -> tuple[str, ...]:
    """The names of ``values`` in display order (by suit, low to high); a card held twice (two decks) twice."""
    mask = mask_of(values)
    if mask.bit_count() == len(values):
        return mask_names(mask)
    return tuple(card_name(c) for c in sort_for_display(values))


class AnswerError(ValueError):
    """An answer of the right type whose content is not a choice (a card name that cannot be parsed)."""


# A play of each card, made once (actions are frozen): the answer of almost every decision is one of these.
_PLAYS: Final[dict[str, PlayCard]] = {card_name(card): PlayCard(card) for card in range(52)}


def to_action(answer: m.BotMessage) -> Action:
    """The rules-core action an answer names; raise AnswerError when its content cannot be read."""
    try:
        if isinstance(answer, m.PlayAnswer):
            play = _PLAYS.get(answer.card)
            return PlayCard(parse_card(answer.card)) if play is None else play  # (parse_card: the error's words)
        if isinstance(answer, m.PassAnswer):
            return PassCards(tuple(parse_card(c) for c in answer.cards))
    except CardParseError as error:
        raise AnswerError(str(error)) from None
    if isinstance(answer, m.TrumpAnswer):
        return ChooseTrump(parse_trump(answer.suit))
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
        return m.TrumpAnswer(id=request_id, suit=trump_choice(action.suit))
    return m.MoonAnswer(id=request_id, choice=action.option.value)


def game_start(state: GameState, seat: int, game_number: int) -> m.GameStartEvent:
    """The first message of a game to ``seat``: its seat, the first dealer and the game's point values."""
    points = point_values(state.ruleset)
    return m.GameStartEvent(
        game_number=game_number,
        players=state.players,
        seat=seat,
        dealer=state.dealer,
        scoring=m.Scoring(
            trick=points.trick,
            heart=points.heart,
            queen=points.queen,
            king_or_jack=points.king_or_jack,
            king_of_hearts=points.king_of_hearts,
            seventh_or_last=points.seventh_or_last,
            seventh_or_last_tricks=points.seventh_or_last_tricks,
            trump_trick=points.trump_trick,
            lottery=points.lottery,
            queen_of_spades=points.queen_of_spades,
            moon=points.moon,
        ),
    )


def event_message(view: SeatEvent, players: int, game_number: int) -> m.Event | None:
    """The message that tells a seat ``view`` (what ``project`` gave it of an event); None when none is sent.

    A public view (the same object for every seat) gives equal messages; a player going out gets none, the
    deal_end scores say it.
    """
    if isinstance(view, CardPlayed):
        return m.PlayedEvent(game_number=game_number, deal=view.deal, seat=view.seat, card=card_name(view.card))
    if isinstance(view, TrickView):
        return m.TrickEvent(
            game_number=game_number,
            deal=view.deal,
            number=view.number,
            leader=view.leader,
            cards=trick_cards(view.plays),
            winner=view.winner,
        )
    if isinstance(view, HandDealt):
        return m.DealEvent(
            game_number=game_number,
            deal=view.deal,
            kind=KIND_NAMES[view.kind],
            dealer=view.dealer,
            hand=cards(view.hand),
            trump=suit_letter(view.trump),
            pass_direction=pass_direction(view.pass_offset, players) or "none",
            kitty_size=view.kitty_size,
        )
    if isinstance(view, CardsPassed):
        return m.PassedEvent(
            game_number=game_number,
            deal=view.deal,
            sent=cards(view.sent),
            received=cards(view.received),
            from_=view.giver,
            hand=cards(view.hand),
        )
    if isinstance(view, LotteryPassed):
        return m.LotteryPassEvent(game_number=game_number, deal=view.deal, seat=view.seat)
    if isinstance(view, DealEnded):
        moon = view.moon
        return m.DealEndEvent(
            game_number=game_number,
            deal=view.deal,
            scores=view.scores,
            totals=view.totals,
            early=view.early,
            moon=None if moon is None else m.MoonRecord(seat=moon.seat, choice=moon.option.value),
        )
    if isinstance(view, GameEnded):
        return m.GameEndEvent(game_number=game_number, totals=view.totals, places=view.places)
    assert isinstance(view, PlayerOut), view
    return None


def public_line(event: Event, players: int, game_number: int) -> bytes | None:
    """The line a public event (``projection.is_public``) sends every seat alike (None: none), encoded once."""
    view = project(event, 0)
    message = None if view is None else event_message(view, players, game_number)
    return None if message is None else codec.encode(message)


def seat_messages(event: Event, players: int, game_number: int) -> list[m.Event | None]:
    """Per seat, the message ``event`` sends it (None: none). Each seat's view comes from ``project`` (the only
    statement of who may see what); a public event's message (``projection.is_public``) is one object shared by
    every seat, so a caller encodes it once."""
    if is_public(event):
        view = project(event, 0)
        return [None if view is None else event_message(view, players, game_number)] * players
    messages: list[m.Event | None] = []
    for seat in range(players):
        view = project(event, seat)
        messages.append(None if view is None else event_message(view, players, game_number))
    return messages


def messages_for(events: Iterable[Event], players: int, game_number: int) -> list[list[m.Event]]:
    """Per seat, the event messages ``events`` send it, in order: the one step from core events to the wire."""
    per_seat: list[list[m.Event]] = [[] for _ in range(players)]
    for event in events:
        for messages, message in zip(per_seat, seat_messages(event, players, game_number), strict=True):
            if message is not None:
                messages.append(message)
    return per_seat
