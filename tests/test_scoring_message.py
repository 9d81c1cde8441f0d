"""``game_start.scoring``: the point values bots are told are the ones the rules apply, and PROTOCOL.md's table
shows them; with the other protocol additions of issue 15 (``scores.totals``, ``moon.seat``, ``error.id``)."""

from __future__ import annotations

import random
import re
import typing
from pathlib import Path

import pytest
from rules_helpers import random_action

from protocol import codec
from protocol import messages as m
from referee import wire, wire_requests
from referee.rules import DealEnded, DealKind, GameState, Ruleset

PROTOCOL_MD = Path(__file__).resolve().parents[1] / "PROTOCOL.md"


def _scoring(game: str, **options: object) -> m.Scoring:
    return wire.game_start(GameState(Ruleset.create(game, None, options), seed=1), 0, 1).scoring


def _deal_ends(game: str, seed: int) -> list[DealEnded]:
    state = GameState(Ruleset.create(game), seed=seed)
    rng = random.Random(seed)
    ended: list[DealEnded] = [e for e in state.events if isinstance(e, DealEnded)]
    while not state.is_over:
        ended += [e for e in state.apply(random_action(state, rng)) if isinstance(e, DealEnded)]
    return ended


@pytest.mark.parametrize("game", ["kierki", "kierki3"])
def test_every_kierki_deal_distributes_what_scoring_announces(game: str) -> None:
    s = _scoring(game)
    tricks = 13 if game == "kierki" else 17
    whole = {  # what a deal played to its end distributes, from the announced values alone
        DealKind.NO_TRICKS: tricks * s.trick,
        DealKind.NO_HEARTS: 13 * s.heart,
        DealKind.NO_QUEENS: 4 * s.queen,
        DealKind.NO_KINGS_JACKS: 8 * s.king_or_jack,
        DealKind.NO_KING_OF_HEARTS: s.king_of_hearts,
        DealKind.NO_SEVENTH_LAST: len(s.seventh_or_last_tricks) * s.seventh_or_last,
        DealKind.TRUMP: tricks * s.trump_trick,
        DealKind.LOTTERY: sum(s.lottery),
    }
    whole[DealKind.ROBBER] = sum(whole[k] for k in list(whole)[:6])
    for seed in range(3):
        for deal in _deal_ends(game, seed):
            assert sum(deal.scores) == whole[deal.kind], (seed, deal)


@pytest.mark.parametrize("game", ["hearts", "cancellation"])
def test_hearts_deals_distribute_what_scoring_announces(game: str) -> None:
    s = _scoring(game)
    decks = 2 if game == "cancellation" else 1
    most = decks * (13 * s.heart + s.queen_of_spades)
    assert (s.heart, s.queen_of_spades, s.moon) == (1, 13, 26) and s.trick == s.trump_trick == 0
    for seed in range(3):
        for deal in _deal_ends(game, seed):
            if deal.moon is None:
                assert sum(deal.scores) <= most and (game == "cancellation" or sum(deal.scores) == most)
            else:
                assert sorted(abs(x) for x in deal.scores).count(s.moon) >= 1
    assert _scoring("hearts", moon_value=52).moon == 52


def test_protocol_md_table_matches_the_values_sent() -> None:
    text = PROTOCOL_MD.read_text(encoding="utf-8")
    rows = re.findall(r"^\| `(\w+)` \| ([^|]+) \| ([^|]+) \| `", text, flags=re.MULTILINE)
    table = {name: (kierki.strip(), kierki3.strip()) for name, kierki, kierki3 in rows}
    assert set(table) >= {"trick", "heart", "queen", "king_or_jack", "king_of_hearts", "seventh_or_last", "lottery"}

    def shown(value: int | tuple[int, ...]) -> str:
        if isinstance(value, tuple):
            return "[" + ", ".join(f"+{v}" for v in value) + "]"
        return f"{value:+d}".replace("-", "−")

    for column, game in enumerate(("kierki", "kierki3")):
        values = _scoring(game)
        for name, cells in table.items():
            assert cells[column] == shown(getattr(values, name)), (game, name)


def test_game_start_scoring_has_defaults_for_older_decoders() -> None:
    old = b'{"type":"game_start","game_number":1,"players":4,"seat":0,"dealer":3}\n'
    decoded = codec.decode_referee_line(old)
    assert isinstance(decoded, m.GameStartEvent) and decoded.scoring == m.Scoring()


def test_play_scores_carry_totals_under_both_names_and_moon_names_its_seat() -> None:
    state = GameState(Ruleset.create("hearts"), seed=2)
    rng = random.Random(2)
    seen_play = seen_moon = False
    while not state.is_over and not (seen_play and seen_moon):
        request = wire_requests.request_for(state, 1, 1, 1000) if state.to_act >= 0 else None
        if isinstance(request, m.PlayRequest):
            assert request.scores.totals == request.scores.total
            seen_play = True
        if isinstance(request, m.MoonRequest):
            assert request.seat == state.to_act
            seen_moon = True
        state.apply(random_action(state, rng))
    assert seen_play
    # never null: text and code agree
    assert typing.get_type_hints(m.ErrorEvent, include_extras=True)["request_id"] == m.RequestId
