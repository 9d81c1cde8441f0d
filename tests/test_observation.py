"""The lean play view agrees with the full observation, and the play request built from it is the one the
observation gives: the referee's hottest path may not show a seat more, or less, than its observation."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples
from rules_helpers import random_action

from protocol import messages as m
from referee import wire
from referee.rules import DealKind, GameState, Observation, Phase, Ruleset
from referee.rules.cards import RANK_LETTERS, card_list, card_name, make_card, sort_for_display

GAMES: list[tuple[str, int, dict[str, object]]] = [
    ("kierki", 4, {}),
    ("kierki3", 3, {}),
    ("hearts", 4, {}),
    ("cancellation", 6, {}),
    ("cancellation", 9, {}),
]


def expected_request(
    obs: Observation, request_id: int, game_number: int, time_ms: int, state: GameState
) -> m.PlayRequest:
    """The play request written out from the seat's whole observation, independently of ``wire`` (but for the
    loteryjka's moves, which the observation does not hold: ``check_lottery_moves`` checks those against it)."""

    def names(cards: tuple[int, ...]) -> tuple[str, ...]:
        return tuple(card_name(c) for c in sort_for_display(cards))

    lottery = obs.kind is DealKind.LOTTERY
    deal_pass = None
    if obs.pass_offset:
        deal_pass = m.DealPass(
            direction={1: "left", obs.players - 1: "right"}.get(obs.pass_offset, "across"),  # type: ignore[arg-type]
            to=(obs.seat + obs.pass_offset) % obs.players,
            from_=(obs.seat - obs.pass_offset) % obs.players,
            sent=names(obs.passed),
            received=names(obs.received),
        )
    moves = wire.lottery_history(state, obs.seat)[0] if lottery else ()
    spans = [
        None if column is None else (card_name(make_card(column[0], suit)), card_name(make_card(column[1], suit)))
        for suit, column in enumerate(obs.lottery_columns)
    ]
    return m.PlayRequest(
        id=request_id,
        game_number=game_number,
        deal=obs.deal,
        kind=obs.kind.value,
        hand=names(obs.hand),
        legal=names(obs.legal),
        trump=None if obs.trump is None else "CDHS"[obs.trump],  # type: ignore[arg-type]
        trick=None
        if lottery
        else m.CurrentTrick(
            leader=obs.trick_leader, cards=tuple(m.TrickCard(seat=s, card=card_name(c)) for s, c in obs.trick)
        ),
        tricks=tuple(
            m.CompletedTrick(
                number=t.number,
                leader=t.leader,
                cards=tuple(m.TrickCard(seat=s, card=card_name(c)) for s, c in t.plays),
                winner=t.winner,
            )
            for t in obs.tricks
        ),
        lottery=m.LotteryState(
            start_rank=None if obs.lottery_start_rank is None else RANK_LETTERS[obs.lottery_start_rank],  # type: ignore[arg-type]
            columns=m.LotteryColumns(C=spans[0], D=spans[1], H=spans[2], S=spans[3]),
            moves=moves,
            out=obs.lottery_finished,
        )
        if lottery
        else None,
        scores=m.Scores(deal=obs.deal_scores, total=obs.totals, totals=obs.totals),
        time_ms=time_ms,
        seat=obs.seat,
        game=obs.game.value,
        rules=state.ruleset.options(),
        dealer=obs.dealer,
        pass_=deal_pass,
    )


def check_lottery_moves(obs: Observation, moves: tuple[m.LotteryMove, ...], state: GameState) -> None:
    """The loteryjka's moves agree with the observation: their cards are the columns' (but a virtual 2♣), each seat
    has laid as many as its hand lost, and a pass is only ever in a seat's own turn order."""
    laid = [move.card for move in moves if move.card is not None]
    assert len(laid) == len(set(laid))
    on_table = {
        card_name(make_card(rank, suit))
        for suit, column in enumerate(obs.lottery_columns)
        if column is not None
        for rank in range(column[0], column[1] + 1)
    }
    if state.ruleset.game.value == "kierki3":
        on_table.discard("2C")
    assert set(laid) == on_table
    size = 13 if obs.players == 4 else 17
    for seat in range(obs.players):
        assert sum(move.seat == seat and move.card is not None for move in moves) == size - obs.hand_sizes[seat]
    turns = [move.seat for move in moves]
    for before, after in itertools.pairwise(turns):
        skipped = [(before + k) % obs.players for k in range(1, (after - before) % obs.players or obs.players)]
        assert all(s in obs.lottery_finished for s in skipped), "a seat with cards was skipped without a pass"


def check_every_play(game: str, players: int, options: dict[str, object], seed: int) -> int:
    state = GameState(Ruleset.create(game, players, options), seed=seed)
    rng = random.Random(seed)
    checked = 0
    while not state.is_over:
        if state.phase is Phase.PLAY:
            obs = state.observation(state.to_act)
            view = state.play_view()
            assert view.seat == obs.seat == state.to_act
            assert sorted(card_list(view.hand) + card_list(view.hand_doubles)) == sorted(obs.hand)
            assert tuple(card_list(view.legal)) == obs.legal
            assert (view.deal, view.kind, view.trump, view.trick_leader, view.trick, view.tricks) == (
                obs.deal,
                obs.kind,
                obs.trump,
                obs.trick_leader,
                obs.trick,
                obs.tricks,
            )
            assert (view.deal_scores, view.totals) == (obs.deal_scores, obs.totals)
            assert (view.lottery_start_rank, view.lottery_columns) == (obs.lottery_start_rank, obs.lottery_columns)
            request = wire.request_for(state, 7, 2, 900)
            assert isinstance(request, m.PlayRequest)
            assert request == expected_request(obs, 7, 2, 900, state)
            if request.lottery is not None:
                check_lottery_moves(obs, request.lottery.moves, state)
            checked += 1
        state.apply(random_action(state, rng))
    return checked


@pytest.mark.parametrize(("game", "players", "options"), GAMES, ids=lambda v: str(v))
def test_every_play_request_of_a_game_is_the_observations(game: str, players: int, options: dict[str, object]) -> None:
    assert check_every_play(game, players, options, seed=11) > 100


@settings(max_examples=examples(10), deadline=None)
@given(index=st.integers(0, len(GAMES) - 1), seed=st.integers(0, 2**32 - 1))
def test_play_requests_match_the_observation_in_random_games(index: int, seed: int) -> None:
    game, players, options = GAMES[index]
    check_every_play(game, players, options, seed)


def test_mask_names_are_the_display_order_of_any_mask() -> None:
    rng = random.Random(5)
    for _ in range(2000):
        mask = rng.getrandbits(52) & rng.getrandbits(52)
        assert wire.mask_names(mask) == tuple(card_name(c) for c in sort_for_display(card_list(mask)))
    assert wire.mask_names(0) == ()
