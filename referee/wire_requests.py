"""The requests the referee sends: each built from what the seat to act may know (its ``PlayView`` for a card, its
``Observation`` otherwise) and what every decision repeats of the game and the deal, and a game's `RequestLines`,
which makes each request's line once per decision (the referee's hottest path).

It never decides visibility itself: every part comes from the rules core's view of one seat (``observation``,
``play_view``, ``exchange_seen``, ``project``); the names of cards and the message parts are ``wire``'s.
"""

from __future__ import annotations

from typing import Final, cast

import msgspec

from protocol import codec
from protocol import messages as m
from referee.rules import (
    CardPlayed,
    DealKind,
    DealStarted,
    Event,
    GameState,
    LotteryPassed,
    MoonOption,
    Observation,
    Phase,
    PlayerOut,
    Ruleset,
    TrickView,
    card_name,
)
from referee.rules.cards import RANK_LETTERS, Card, card_list
from referee.rules.observation import PlayView, exchange_seen
from referee.rules.projection import project
from referee.wire import (
    KIND_NAMES,
    cards,
    completed_trick,
    lottery_columns,
    mask_names,
    pass_direction,
    suit_letter,
    trick_cards,
    trump_choice,
)

# Names read on every decision are Final: in the compiled build each is a C static, not a lookup in a module's dict.
_ENCODER: Final = msgspec.json.Encoder()  # parts of messages, encoded once (``codec.encode`` encodes whole lines)
_ENCODE_LINE: Final = codec.encode
_REPLACE: Final = msgspec.structs.replace
_RAW: Final = msgspec.Raw
_PLAY_REQUEST: Final = m.PlayRequest
_CURRENT_TRICK: Final = m.CurrentTrick
_SCORES: Final = m.Scores
_LOTTERY: Final = DealKind.LOTTERY  # (enum members too: not looked up on their class)
_PLAY: Final = Phase.PLAY


def play_request(state: GameState, view: PlayView, request_id: int, game_number: int, time_ms: int) -> m.PlayRequest:
    """The play request of the seat to act, from its ``PlayView`` (no observation needed) and what ``state`` tells
    every decision (``game_part``, ``deal_pass``, ``lottery_history``)."""
    tricks = tuple([completed_trick(trick) for trick in view.tricks])
    part = game_part(state.ruleset)
    return _play_request(state, view, request_id, game_number, time_ms, tricks, part, deal_pass(state, view.seat))


def _play_request(
    state: GameState,
    view: PlayView,
    request_id: int,
    game_number: int,
    time_ms: int,
    tricks: tuple[m.CompletedTrick, ...],
    part: GamePart,
    pass_: m.DealPass | None,
    scan: LotteryScan | None = None,
) -> m.PlayRequest:
    lottery = view.kind is _LOTTERY
    start = view.lottery_start_rank
    # two decks: a card held twice is named twice
    hand = cards(card_list(view.hand) + card_list(view.hand_doubles)) if view.hand_doubles else mask_names(view.hand)
    deal_scores, totals = view.deal_scores, view.totals
    seat = view.seat
    table: m.LotteryState | None = None
    if lottery:
        moves, out = lottery_history(state, seat, scan)
        table = m.LotteryState(
            start_rank=None if start is None else cast(m.Rank, RANK_LETTERS[start]),
            columns=lottery_columns(view.lottery_columns),
            moves=moves,
            out=out,
        )
    return _PLAY_REQUEST(
        id=request_id,
        game_number=game_number,
        deal=view.deal,
        kind=KIND_NAMES[view.kind],
        hand=hand,
        legal=mask_names(view.legal),
        trump=suit_letter(view.trump),
        trick=None if lottery else _CURRENT_TRICK(leader=view.trick_leader, cards=trick_cards(view.trick)),
        tricks=tricks,
        lottery=table,
        scores=_SCORES(deal=deal_scores, total=totals, totals=totals),
        time_ms=time_ms,
        seat=seat,
        game=part[0],
        rules=part[1],
        dealer=state.dealer,
        pass_=pass_,
    )


# --- what every decision request repeats of the game, and a play request of the deal: separate from the view ---

# A game's name, its ``rules`` (hello's ``options``) and their JSON.
GamePart = tuple[m.GameName, dict[str, m.OptionValue], bytes]


def game_part(ruleset: Ruleset) -> GamePart:
    """What every decision request repeats of the game: its name, its ``rules`` (hello's ``options``) and their
    JSON (a game's `RequestLines` makes it once)."""
    options = ruleset.options()
    return ruleset.game.value, options, _ENCODER.encode(options)


def deal_pass(state: GameState, seat: int) -> m.DealPass | None:
    """This deal's pass as ``seat`` saw it (what its ``passed`` event said), for its play requests; None when the
    deal has no passing (or its cards have not all been passed yet)."""
    offset, sent, received = exchange_seen(state.table, seat)
    if not offset or not received:
        return None
    players = state.players
    return m.DealPass(
        direction=cast(m.PassDirection, pass_direction(offset, players)),  # not None: the deal passes
        to=(seat + offset) % players,
        from_=(seat - offset) % players,
        sent=cards(sent),
        received=cards(received),
    )


_LOTTERY_MOVES: Final[dict[tuple[int, Card | None], m.LotteryMove]] = {}  # (seat, card or None): made once


def _lottery_move(seat: int, card: Card | None) -> m.LotteryMove:
    move = _LOTTERY_MOVES.get((seat, card))
    if move is None:
        name = None if card is None else card_name(card)
        move = _LOTTERY_MOVES[(seat, card)] = m.LotteryMove(seat=seat, card=name)
    return move


class LotteryScan:
    """How far ``lottery_history`` read the events of a game's latest loteryjka, and what it found, so that the
    next request of the deal reads only the events since (a game's `RequestLines` keeps one)."""

    __slots__ = ("deal", "events", "moves", "out", "read")

    def __init__(self) -> None:
        self.events: list[Event] | None = None
        self.deal = 0
        self.read = 0
        self.moves: list[m.LotteryMove] = []
        self.out: list[int] = []


def lottery_history(
    state: GameState, seat: int, scan: LotteryScan | None = None
) -> tuple[tuple[m.LotteryMove, ...], tuple[int, ...]]:
    """This loteryjka's turns so far (each card laid, each pass as a null card) and the seats out of cards, first out
    first: the events since the deal began, each as ``project`` shows it to ``seat`` (every one of them is public).
    With ``scan``, only the events it has not read yet are read."""
    events = state.events
    if scan is None:
        scan = LotteryScan()
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
        choices=tuple(trump_choice(s) for s in choices),
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
    if state.phase is _PLAY:
        return play_request(state, state.play_view(), request_id, game_number, time_ms)
    return _other_request(state, request_id, game_number, time_ms, state.ruleset.options())


def request_line_for(state: GameState, request_id: int, game_number: int, time_ms: int) -> tuple[m.Request, bytes]:
    """``request_for`` and its line, ``codec.encode`` of it (a game's `RequestLines` makes the same lines)."""
    request = request_for(state, request_id, game_number, time_ms)
    return request, _ENCODE_LINE(request)


class RequestLines:
    """One game's requests with their lines, ``codec.encode`` of each byte for byte: the referee's hottest path.

    Every request of a deal repeats the deal's finished tricks, most of a late request's bytes. This keeps, for the
    deal being played, each finished trick's message and JSON (made once), and puts the JSON into each play
    request's line as ``msgspec.Raw`` instead of encoding the tricks anew; so too the game's rule options (made
    once per game), each seat's pass of the deal (once per deal), and how far the loteryjka's moves were read. One
    per game (a match makes it); it checks the tricks by identity against each request's views, so a view it did
    not make them from (a new deal) starts them afresh.
    """

    __slots__ = ("_array", "_game_number", "_messages", "_part", "_pass_deal", "_passes", "_scan", "_views")

    def __init__(self, game_number: int) -> None:
        self._game_number = game_number
        self._views: list[TrickView] = []  # the deal's finished tricks that the messages below were made from
        self._messages: tuple[m.CompletedTrick, ...] = ()
        self._array = b"[]"  # the messages as the JSON array a request carries
        self._part: GamePart | None = None
        self._pass_deal = 0  # the deal whose passes are in _passes
        self._passes: dict[int, m.DealPass | None] = {}
        self._scan = LotteryScan()

    def line_for(self, state: GameState, request_id: int, time_ms: int) -> tuple[m.Request, bytes]:
        """``request_for`` of the decision ``state`` waits for, and its line."""
        part = self._part
        if part is None:
            part = self._part = game_part(state.ruleset)
        if state.phase is not _PLAY:
            request = _other_request(state, request_id, self._game_number, time_ms, part[1])
            return request, _ENCODE_LINE(request)
        view = state.play_view()
        tricks = self._finished(view.tricks)
        request = _play_request(
            state,
            view,
            request_id,
            self._game_number,
            time_ms,
            tricks,
            part,
            self._deal_pass(state, view.seat),
            self._scan,
        )
        if not tricks:
            return request, _ENCODE_LINE(request)
        return request, _ENCODE_LINE(_REPLACE(request, tricks=_RAW(self._array), rules=_RAW(part[2])))

    def _deal_pass(self, state: GameState, seat: int) -> m.DealPass | None:
        """``deal_pass``, made once per seat and deal (a deal's pass is settled before its first card)."""
        if state.deal_number != self._pass_deal:
            self._passes.clear()
            self._pass_deal = state.deal_number
        passes = self._passes
        if seat not in passes:
            passes[seat] = deal_pass(state, seat)
        return passes[seat]

    def _finished(self, tricks: tuple[TrickView, ...]) -> tuple[m.CompletedTrick, ...]:
        """The messages of ``tricks``, a deal's finished tricks in order, made for those not seen before."""
        views = self._views
        known = len(views)
        # A deal's views only grow, so the last one known, at its place, vouches for those before it.
        if known > len(tricks) or (known and views[-1] is not tricks[known - 1]):
            views.clear()
            self._messages, self._array, known = (), b"[]", 0
        if known < len(tricks):
            new = tricks[known:]
            views.extend(new)
            made = [completed_trick(trick) for trick in new]
            self._messages = (*self._messages, *made)
            parts = b",".join([_ENCODER.encode(message) for message in made])
            self._array = self._array[:-1] + (b"," if known else b"") + parts + b"]"
        return self._messages


def _other_request(
    state: GameState, request_id: int, game_number: int, time_ms: int, rules: dict[str, m.OptionValue]
) -> m.Request:
    phase = state.phase
    obs = state.observation(state.to_act)
    if phase is Phase.PASS:
        return pass_request(obs, request_id, game_number, time_ms, rules)
    if phase is Phase.TRUMP:
        return trump_request(obs, state.trump_choices(), request_id, game_number, time_ms, rules)
    return moon_request(obs, request_id, game_number, time_ms, rules)


def pass_request_for(state: GameState, seat: int, request_id: int, game_number: int, time_ms: int) -> m.PassRequest:
    """The pass request of ``seat`` while the deal's passes are collected, whether or not it is its turn yet
    (what a seat passes depends on its own hand alone, so the request is the one its turn would bring)."""
    assert state.phase is Phase.PASS
    return pass_request(state.observation(seat), request_id, game_number, time_ms, state.ruleset.options())
