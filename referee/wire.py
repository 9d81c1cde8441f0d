"""Between the rules core and the wire: observations and events become protocol messages, answers become actions.

This is the only module that knows both sides, and it keeps no state. Each request is built from one seat's
``Observation`` and each event message from one seat's view of a core event (``projection.project``), so a
message can only ever carry what that seat may know; this module never decides visibility itself.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, cast

import msgspec

from protocol import codec
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
    Observation,
    PassCards,
    Phase,
    PlayCard,
    PlayerOut,
    Ruleset,
    TrickView,
    card_name,
    parse_card,
)
from referee.rules.cards import (
    CLUBS,
    DIAMONDS,
    HEARTS,
    RANK_LETTERS,
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
from referee.rules.observation import PlayView, exchange_seen
from referee.rules.points import point_values
from referee.rules.projection import CardsPassed, HandDealt, SeatEvent, is_public, project

# The module's names read on every decision are Final: in the compiled build each is then a C static, not a lookup
# in the module's dict (nor, for another module's name, a getattr on that module).
_ENCODER: Final = msgspec.json.Encoder()  # parts of messages, encoded once (``codec.encode`` encodes whole lines)
_ENCODE_LINE: Final = codec.encode
_REPLACE: Final = msgspec.structs.replace
_RAW: Final = msgspec.Raw
_PLAY_REQUEST: Final = m.PlayRequest
_CURRENT_TRICK: Final = m.CurrentTrick
_SCORES: Final = m.Scores
_LOTTERY: Final = DealKind.LOTTERY  # (enum members too: not looked up on their class)
_PLAY: Final = Phase.PLAY


# A deal kind's name on the wire, for every request: ``kind.value`` is a property of ``enum`` that runs as Python
# code even in the compiled build (about 0.15 µs against 0.02 for this lookup).
_KIND_NAMES: Final[dict[DealKind, m.DealKind]] = {kind: kind.value for kind in DealKind}


def suit_letter(suit: int | None) -> m.Suit | None:
    return None if suit is None else cast(m.Suit, SUIT_LETTERS[suit])


def _trump_choice(suit: int | None) -> m.TrumpChoice:
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


def _trick_cards(plays: tuple[tuple[int, Card], ...]) -> tuple[m.TrickCard, ...]:
    parts = _TRICK_CARDS
    try:
        return tuple([parts[play] for play in plays])
    except KeyError:
        for s, c in plays:
            parts.setdefault((s, c), m.TrickCard(seat=s, card=card_name(c)))
        return tuple([parts[play] for play in plays])


_CACHE_ENTRIES: Final = 4096
# Finished tricks never change, and every later request of the deal repeats them: each trick's message and its
# JSON, and the tuple of a deal's finished tricks so far with its JSON array, are built once. Keyed by the identity
# of the (last) TrickView, which the entry holds, so the id cannot be reused while it is cached; a view's tricks
# before it are fixed by the game that made it.
_COMPLETED: Final[dict[int, tuple[TrickView, m.CompletedTrick, bytes]]] = {}
_COMPLETED_SO_FAR: Final[dict[int, tuple[TrickView, int, tuple[m.CompletedTrick, ...], bytes]]] = {}
_NO_TRICKS: Final[tuple[tuple[m.CompletedTrick, ...], bytes]] = ((), b"[]")


def _completed_trick(trick: TrickView) -> tuple[m.CompletedTrick, bytes]:
    """The message of a finished trick and its JSON (msgspec's own encoding of it, made once)."""
    hit = _COMPLETED.get(id(trick))
    if hit is not None and hit[0] is trick:
        return hit[1], hit[2]
    if len(_COMPLETED) >= _CACHE_ENTRIES:
        _COMPLETED.clear()
    message = m.CompletedTrick(
        number=trick.number, leader=trick.leader, cards=_trick_cards(trick.plays), winner=trick.winner
    )
    encoded = _ENCODER.encode(message)
    _COMPLETED[id(trick)] = (trick, message, encoded)
    return message, encoded


def _completed_tricks(tricks: tuple[TrickView, ...]) -> tuple[tuple[m.CompletedTrick, ...], bytes]:
    """A deal's finished tricks as messages, and as the JSON array a request carries."""
    if not tricks:
        return _NO_TRICKS
    last = tricks[-1]
    hit = _COMPLETED_SO_FAR.get(id(last))
    if hit is not None and hit[0] is last and hit[1] == len(tricks):
        return hit[2], hit[3]
    before = _COMPLETED_SO_FAR.get(id(tricks[-2])) if len(tricks) > 1 else None
    if before is not None and before[0] is tricks[-2] and before[1] == len(tricks) - 1:
        message, part = _completed_trick(last)  # the usual miss: one trick more than the previous request's
        messages = (*before[2], message)
        encoded = before[3][:-1] + b"," + part + b"]"
    else:
        done = [_completed_trick(t) for t in tricks]
        messages = tuple([message for message, _ in done])
        encoded = b"[" + b",".join([part for _, part in done]) + b"]"
    if len(_COMPLETED_SO_FAR) >= _CACHE_ENTRIES:
        _COMPLETED_SO_FAR.clear()
    _COMPLETED_SO_FAR[id(last)] = (last, len(tricks), messages, encoded)
    return messages, encoded


def _columns(columns: tuple[tuple[int, int] | None, ...]) -> m.LotteryColumns:
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


def play_request(state: GameState, view: PlayView, request_id: int, game_number: int, time_ms: int) -> m.PlayRequest:
    """The play request of the seat to act, from its ``PlayView`` (no observation needed) and what ``state`` tells
    every decision (``game_part``, ``deal_pass``, ``lottery_history``)."""
    return _play_request(state, view, request_id, game_number, time_ms, _completed_tricks(view.tricks)[0])


def play_request_line(
    state: GameState, view: PlayView, request_id: int, game_number: int, time_ms: int
) -> tuple[m.PlayRequest, bytes]:
    """``play_request`` and its line, ``codec.encode`` of it byte for byte (the referee's hottest path).

    The finished tricks, most of a late request's bytes, go into the line as the JSON encoded once per trick and
    per deal (``msgspec.Raw`` in a copy of the request), not encoded anew for every request; so do the rule options,
    encoded once per ruleset.
    """
    tricks, encoded = _completed_tricks(view.tricks)
    part = game_part(state.ruleset)
    request = _play_request(state, view, request_id, game_number, time_ms, tricks, part)
    if not tricks:
        return request, _ENCODE_LINE(request)
    return request, _ENCODE_LINE(_REPLACE(request, tricks=_RAW(encoded), rules=_RAW(part[2])))


def _play_request(
    state: GameState,
    view: PlayView,
    request_id: int,
    game_number: int,
    time_ms: int,
    tricks: tuple[m.CompletedTrick, ...],
    part: tuple[m.GameName, dict[str, m.OptionValue], bytes] | None = None,
) -> m.PlayRequest:
    game, rules, _ = game_part(state.ruleset) if part is None else part
    lottery = view.kind is _LOTTERY
    start = view.lottery_start_rank
    # two decks: a card held twice is named twice
    hand = cards(card_list(view.hand) + card_list(view.hand_doubles)) if view.hand_doubles else mask_names(view.hand)
    deal_scores, totals = view.deal_scores, view.totals
    seat = view.seat
    table: m.LotteryState | None = None
    if lottery:
        moves, out = lottery_history(state, seat)
        table = m.LotteryState(
            start_rank=None if start is None else cast(m.Rank, RANK_LETTERS[start]),
            columns=_columns(view.lottery_columns),
            moves=moves,
            out=out,
        )
    return _PLAY_REQUEST(
        id=request_id,
        game_number=game_number,
        deal=view.deal,
        kind=_KIND_NAMES[view.kind],
        hand=hand,
        legal=mask_names(view.legal),
        trump=suit_letter(view.trump),
        trick=None if lottery else _CURRENT_TRICK(leader=view.trick_leader, cards=_trick_cards(view.trick)),
        tricks=tricks,
        lottery=table,
        scores=_SCORES(deal=deal_scores, total=totals, totals=totals),
        time_ms=time_ms,
        seat=seat,
        game=game,
        rules=rules,
        dealer=state.dealer,
        pass_=deal_pass(state, seat),
    )


# --- what every decision request repeats of the game, and a play request of the deal: separate from the view ---

_GAME_PARTS: Final[dict[int, tuple[Ruleset, tuple[m.GameName, dict[str, m.OptionValue], bytes]]]] = {}


def game_part(ruleset: Ruleset) -> tuple[m.GameName, dict[str, m.OptionValue], bytes]:
    """What every decision request repeats of the game: its name, the rule options it carries as ``rules`` (hello's
    ``options``) and their JSON, made once per ruleset. Keyed by the ruleset's identity; the entry holds the
    ruleset, so the id is not reused meanwhile."""
    hit = _GAME_PARTS.get(id(ruleset))
    if hit is not None and hit[0] is ruleset:
        return hit[1]
    if len(_GAME_PARTS) >= 64:
        _GAME_PARTS.clear()
    options = ruleset.options()
    part: tuple[m.GameName, dict[str, m.OptionValue], bytes] = (ruleset.game.value, options, _ENCODER.encode(options))
    _GAME_PARTS[id(ruleset)] = (ruleset, part)
    return part


def rules_of(ruleset: Ruleset) -> dict[str, m.OptionValue]:
    """The rule options every decision request carries as ``rules``: the same as hello's ``options``."""
    return game_part(ruleset)[1]


# Per deal and seat, the pass of its play requests, keyed by the identity of the cards the seat received (the state
# keeps that tuple for the whole deal; the entry holds it, and the cards sent, so the id is not reused meanwhile).
_DEAL_PASSES: Final[dict[int, tuple[tuple[Card, ...], tuple[Card, ...], int, int, m.DealPass]]] = {}


def deal_pass(state: GameState, seat: int) -> m.DealPass | None:
    """This deal's pass as ``seat`` saw it (what its ``passed`` event said), for its play requests; None when the
    deal has no passing. The same pass is asked for on every turn of the deal, so its message is made once."""
    offset, sent, received = exchange_seen(state.table, seat)
    if not offset or not received:
        return None
    hit = _DEAL_PASSES.get(id(received))
    if hit is not None and hit[0] is received and hit[1] is sent and hit[2] == seat and hit[3] == offset:
        return hit[4]
    players = state.players
    direction = pass_direction(offset, players)
    assert direction is not None
    made = m.DealPass(
        direction=direction,
        to=(seat + offset) % players,
        from_=(seat - offset) % players,
        sent=cards(sent),
        received=cards(received),
    )
    if len(_DEAL_PASSES) >= _CACHE_ENTRIES:
        _DEAL_PASSES.clear()
    _DEAL_PASSES[id(received)] = (received, sent, seat, offset, made)
    return made


_LOTTERY_MOVES: Final[dict[tuple[int, Card | None], m.LotteryMove]] = {}  # (seat, card or None): made once


def _lottery_move(seat: int, card: Card | None) -> m.LotteryMove:
    move = _LOTTERY_MOVES.get((seat, card))
    if move is None:
        name = None if card is None else card_name(card)
        move = _LOTTERY_MOVES[(seat, card)] = m.LotteryMove(seat=seat, card=name)
    return move


class _LotteryScan:
    """How far ``lottery_history`` read the events of the latest loteryjka asked about, and what it found: the next
    request of the deal reads only the events since (the entry holds the game's event list, so its id stays put)."""

    __slots__ = ("deal", "events", "moves", "out", "read")

    def __init__(self) -> None:
        self.events: list[Event] | None = None
        self.deal = 0
        self.read = 0
        self.moves: list[m.LotteryMove] = []
        self.out: list[int] = []


_SCAN: Final = _LotteryScan()


def lottery_history(state: GameState, seat: int) -> tuple[tuple[m.LotteryMove, ...], tuple[int, ...]]:
    """This loteryjka's turns so far (each card laid, each pass as a null card) and the seats out of cards, first out
    first: the events since the deal began, each as ``project`` shows it to ``seat`` (every one of them is public)."""
    events = state.events
    scan = _SCAN
    if scan.events is not events or scan.deal != state.deal_number or scan.read > len(events):
        start = len(events)
        while start and type(events[start - 1]) is not DealStarted:  # back to this deal's first event
            start -= 1
        scan.events, scan.deal, scan.read, scan.moves, scan.out = events, state.deal_number, start, [], []
    moves, out = scan.moves, scan.out
    for index in range(scan.read, len(events)):
        view = project(events[index], seat)
        if isinstance(view, CardPlayed):
            moves.append(_lottery_move(view.seat, view.card))
        elif isinstance(view, LotteryPassed):
            moves.append(_lottery_move(view.seat, None))
        elif isinstance(view, PlayerOut):
            out.append(view.seat)
    scan.read = len(events)
    return tuple(moves), tuple(out)


def pass_request(
    obs: Observation, request_id: int, game_number: int, time_ms: int, rules: dict[str, m.OptionValue]
) -> m.PassRequest:
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
        seat=obs.seat,
        game=obs.game.value,
        rules=rules,
        dealer=obs.dealer,
        totals=obs.totals,
    )


def trump_request(
    obs: Observation,
    choices: list[int | None],
    request_id: int,
    game_number: int,
    time_ms: int,
    rules: dict[str, m.OptionValue],
) -> m.TrumpRequest:
    return m.TrumpRequest(
        id=request_id,
        game_number=game_number,
        deal=obs.deal,
        cards=tuple(card_name(c) for c in obs.hand),  # dealing order: it is what the dealer saw
        choices=tuple(_trump_choice(s) for s in choices),
        time_ms=time_ms,
        seat=obs.seat,
        game=obs.game.value,
        rules=rules,
        totals=obs.totals,
    )


def moon_request(
    obs: Observation, request_id: int, game_number: int, time_ms: int, rules: dict[str, m.OptionValue]
) -> m.MoonRequest:
    assert obs.moon_options is not None
    return m.MoonRequest(
        id=request_id,
        game_number=game_number,
        deal=obs.deal,
        options=m.MoonOptions(self_=obs.moon_options[MoonOption.SELF], others=obs.moon_options[MoonOption.OTHERS]),
        time_ms=time_ms,
        seat=obs.seat,
        game=obs.game.value,
        rules=rules,
    )


def request_for(state: GameState, request_id: int, game_number: int, time_ms: int) -> m.Request:
    """The request for the decision ``state`` waits for, built from what the seat to act may know (its
    ``PlayView`` for a card, its ``Observation`` otherwise)."""
    phase = state.phase
    if phase is _PLAY:
        return play_request(state, state.play_view(), request_id, game_number, time_ms)
    return _other_request(state, request_id, game_number, time_ms)


def request_line_for(state: GameState, request_id: int, game_number: int, time_ms: int) -> tuple[m.Request, bytes]:
    """``request_for`` and its line (``codec.encode`` of it, byte for byte; see ``play_request_line``)."""
    if state.phase is _PLAY:
        return play_request_line(state, state.play_view(), request_id, game_number, time_ms)
    request = _other_request(state, request_id, game_number, time_ms)
    return request, codec.encode(request)


def _other_request(state: GameState, request_id: int, game_number: int, time_ms: int) -> m.Request:
    phase = state.phase
    obs = state.observation(state.to_act)
    rules = rules_of(state.ruleset)
    if phase is Phase.PASS:
        return pass_request(obs, request_id, game_number, time_ms, rules)
    if phase is Phase.TRUMP:
        return trump_request(obs, state.trump_choices(), request_id, game_number, time_ms, rules)
    return moon_request(obs, request_id, game_number, time_ms, rules)


def pass_request_for(state: GameState, seat: int, request_id: int, game_number: int, time_ms: int) -> m.PassRequest:
    """The pass request of ``seat`` while the deal's passes are collected, whether or not it is its turn yet
    (what a seat passes depends on its own hand alone, so the request is the one its turn would bring)."""
    assert state.phase is Phase.PASS
    return pass_request(state.observation(seat), request_id, game_number, time_ms, rules_of(state.ruleset))


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
        return m.TrumpAnswer(id=request_id, suit=_trump_choice(action.suit))
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
            cards=_trick_cards(view.plays),
            winner=view.winner,
        )
    if isinstance(view, HandDealt):
        return m.DealEvent(
            game_number=game_number,
            deal=view.deal,
            kind=_KIND_NAMES[view.kind],
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
