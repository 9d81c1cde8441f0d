"""The dealing algorithm of docs/rules/dealing.md, implemented here again from the text, must give the same deals."""

from __future__ import annotations

import hashlib
import hmac
from collections import Counter

import pytest

from referee.rules import GameState, Ruleset
from referee.rules.dealing import KeyedStream, first_dealer, seeded_deal


def stream_bytes(seed: str, label: bytes, game: int, deal: int):  # type: ignore[no-untyped-def]
    counter = 0
    while True:
        message = label + game.to_bytes(8, "big") + deal.to_bytes(8, "big") + counter.to_bytes(8, "big")
        yield from hmac.new(seed.encode(), message, hashlib.sha256).digest()
        counter += 1


def below(stream, n: int) -> int:  # type: ignore[no-untyped-def]
    while True:
        x = int.from_bytes(bytes(next(stream) for _ in range(8)), "big")
        if x < 2**64 - 2**64 % n:
            return x % n


def readme_deal(
    game_name: str, players: int, seed: str, game: int, deal: int
) -> tuple[int, list[list[int]], list[int]]:
    dealer = (below(stream_bytes(seed, b"dealer", game, 0), players) + deal - 1) % players
    if game_name == "cancellation":
        deck = [card for card in range(52) for _ in range(2)]
    elif game_name == "kierki3":
        deck = list(range(1, 52))
    else:
        deck = list(range(52))
    stream = stream_bytes(seed, b"deal", game, deal)
    for i in range(len(deck) - 1, 0, -1):
        j = below(stream, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    size = len(deck) // players
    hands: list[list[int]] = [[] for _ in range(players)]
    for i in range(size * players):
        hands[(dealer + 1 + i) % players].append(deck[i])
    return dealer, hands, deck[size * players :]


@pytest.mark.parametrize(
    ("game_name", "players", "seed", "game"),
    [("kierki", 4, "7", 1), ("kierki3", 3, "a seed", 2), ("hearts", 4, "3f9c" * 8, 1), ("cancellation", 9, "é", 3)],
)
def test_the_engine_deals_what_the_readme_describes(game_name: str, players: int, seed: str, game: int) -> None:
    state = GameState(Ruleset.create(game_name, players), seed=seed, game=game)
    for deal in (1, 2):
        dealer, hands, kitty = readme_deal(game_name, players, seed, game, deal)
        spec = seeded_deal(state.ruleset, seed, game, deal, dealer)
        assert [list(h) for h in spec.hands] == hands and list(spec.kitty) == kitty
    started = state.events[0]
    assert started.dealer == readme_deal(game_name, players, seed, game, 1)[0]  # type: ignore[union-attr]
    assert [list(h) for h in started.hands] == readme_deal(game_name, players, seed, game, 1)[1]  # type: ignore[union-attr]


def test_the_same_seed_and_game_give_the_same_deals_and_any_change_gives_others() -> None:
    ruleset = Ruleset.create("hearts")
    base = seeded_deal(ruleset, "x", 1, 1, 0)
    assert seeded_deal(ruleset, "x", 1, 1, 0) == base
    assert seeded_deal(ruleset, "y", 1, 1, 0) != base
    assert seeded_deal(ruleset, "x", 2, 1, 0) != base
    assert seeded_deal(ruleset, "x", 1, 2, 0) != base
    assert first_dealer("x", 1, 4) in range(4)


def test_below_is_uniform_and_in_range() -> None:
    stream = KeyedStream("uniform", b"test", 1, 1)
    counts = Counter(stream.below(6) for _ in range(60_000))
    assert set(counts) == set(range(6))
    assert all(abs(count - 10_000) < 500 for count in counts.values())  # about 5 standard deviations
    assert {KeyedStream("s", b"t", 1, 1).below(1) for _ in range(10)} == {0}
