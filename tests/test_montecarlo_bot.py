"""The Monte Carlo sample bot (sample_bots/montecarlo): its worlds agree with what its seat saw, it answers every
decision of every game legally within a playout count, and it is a sample bot like the others (check-bot, the
``sample:montecarlo`` name). Games are driven in process through the referee's own wire messages (``referee.wire``),
so the bot sees exactly what a referee would send it.
"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from bot_helpers import python_bot
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples
from rules_helpers import random_action
from test_checkbot import assert_all_pass, run_check

from protocol import messages as m
from referee import wire, wire_requests
from referee.match_config import BotSpec
from referee.rules import DealStarted, GameState, Observation, Phase, Ruleset
from referee.search import SeatKnowledge, candidate_passes
from sample_bots.montecarlo import worlds
from sample_bots.montecarlo.bot import MonteCarloBot, choose_moon

ROOT = Path(__file__).resolve().parent.parent
MAIN = ROOT / "sample_bots" / "montecarlo" / "__main__.py"
GAMES = [("kierki", 4, {}), ("kierki3", 3, {}), ("hearts", 4, {"target": 40}), ("cancellation", 6, {"target": 30})]
SUIT_MASKS = tuple(sum(1 << (rank * 4 + suit) for rank in range(13)) for suit in range(4))


class SeatView:
    """One seat's view kept from the referee's wire messages: the search library's reading of its requests."""

    def __init__(self) -> None:
        self.knowledge: SeatKnowledge | None = None

    def on_hello(self, request: m.HelloRequest) -> None:
        self.knowledge = SeatKnowledge.from_hello(request)

    def observation(self, request: m.PassRequest | m.TrumpRequest | m.PlayRequest | m.MoonRequest) -> Observation:
        assert self.knowledge is not None
        return self.knowledge.observation(request)


class Driver:
    """A game in process, every seat's view kept by a ``SeatView`` (or a bot) from the referee's wire messages."""

    def __init__(self, game: str, players: int, options: dict[str, object], seed: str, seats: list[object]) -> None:
        self.ruleset = Ruleset.create(game, players, options)
        self.state = GameState(self.ruleset, seed=seed)
        self.seats = seats
        self.fed = 0
        time = m.TimeControl(move_ms=1000, startup_ms=10000, bank_ms=0, increment_ms=0)
        for seat, view in enumerate(seats):
            hello = m.HelloRequest(
                id=1,
                protocol=1,
                game=game,  # type: ignore[arg-type]
                players=players,
                seat=seat,
                options=dict(self.ruleset.options()),
                time=time,
                games=1,
            )
            view.on_hello(hello)  # type: ignore[attr-defined]
            self._tell(view, wire.game_start(self.state, seat, 1))
        self.sync()

    def sync(self) -> None:
        events = self.state.events[self.fed :]
        self.fed = len(self.state.events)
        for view, messages in zip(self.seats, wire.messages_for(events, self.state.players, 1), strict=True):
            for message in messages:
                self._tell(view, message)

    @staticmethod
    def _tell(view: object, message: m.Event) -> None:
        """An event to a bot (a ``SeatView`` needs none: every request carries what the seat saw)."""
        on_event = getattr(view, "on_event", None)
        if on_event is not None:
            on_event(message)

    def apply(self, action: object) -> None:
        self.state.apply(action)  # type: ignore[arg-type]
        self.sync()

    def request(self) -> m.Request:
        return wire_requests.request_for(self.state, 7, 1, 1000)


def _multiset(state: GameState, seats: range) -> Counter[int]:
    held: Counter[int] = Counter()
    for seat in seats:
        held.update(state.hand(seat))
    return held


def _kitty_dealt(state: GameState) -> tuple[int, ...]:
    """The kitty this deal was dealt (empty in the one-deck games), from the deal's own event."""
    deals = [event for event in state.events if isinstance(event, DealStarted)]
    return deals[-1].kitty


def _voids(seen: Observation) -> dict[int, int]:
    """Per seat, the suits (as a card mask) it showed it no longer held by not following them."""
    void: dict[int, int] = {}
    for plays in [t.plays for t in seen.tricks] + [seen.trick]:
        if plays:
            led = plays[0][1] & 3
            for seat, card in plays[1:]:
                if card & 3 != led:
                    void[seat] = void.get(seat, 0) | SUIT_MASKS[led]
    return void


def assert_consistent(world: GameState, real: GameState, seat: int) -> None:
    """The sampled world is one the seat cannot tell from the real game: same view, unseen cards only moved."""
    mine, theirs = world.observation(seat), real.observation(seat)
    for name in (
        "hand",
        "hand_sizes",
        "trick",
        "legal",
        "deal_scores",
        "pass_offset",
        "trump",
        "hearts_broken",
        "lottery_start_rank",
        "lottery_columns",
        "lottery_finished",
        "to_act",
    ):
        assert getattr(mine, name) == getattr(theirs, name), name
    assert sorted(mine.passed) == sorted(theirs.passed) and sorted(mine.received) == sorted(theirs.received)
    assert [(t.leader, t.plays, t.winner) for t in mine.tricks] == [
        (t.leader, t.plays, t.winner) for t in theirs.tricks
    ]
    # The world's hands hold the real hands' cards and the real kitty's, in other places (the kitty is unseen).
    everyone = range(real.players)
    assert not _multiset(world, everyone) - _multiset(real, everyone) - Counter(_kitty_dealt(real))
    for other, suits in _voids(theirs).items():
        assert not any(1 << card & suits for card in world.hand(other)), f"seat {other} holds a suit it showed void"
    if theirs.pass_offset and theirs.passed:
        receiver = (seat + theirs.pass_offset) % real.players
        played = Counter(card for t in theirs.tricks for s, card in t.plays if s == receiver)
        played.update(card for s, card in theirs.trick if s == receiver)
        kept = Counter(theirs.passed) - played
        assert not kept - Counter(world.hand(receiver)), "the cards this seat passed left their receiver"


@pytest.mark.parametrize(("game", "players", "options"), GAMES, ids=[g for g, _, _ in GAMES])
@settings(max_examples=examples(12), suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), steps=st.integers(0, 400))
def test_sampled_worlds_agree_with_everything_the_seat_saw(
    game: str, players: int, options: dict[str, object], seed: int, steps: int
) -> None:
    rng = random.Random(seed)
    driver = Driver(game, players, options, str(seed), [SeatView() for _ in range(players)])
    state = driver.state
    for _ in range(steps):
        if state.is_over:
            break
        driver.apply(random_action(state, rng))
    while not state.is_over and (state.phase is not Phase.PLAY or len(state.legal_plays()) < 2):
        driver.apply(random_action(state, rng))
    if state.is_over:
        return
    seat = state.to_act
    request = driver.request()
    assert isinstance(request, m.PlayRequest)
    seen = driver.seats[seat].observation(request)  # type: ignore[attr-defined]
    made = 0
    for _ in range(3):
        try:
            world = worlds.sample(driver.ruleset, seen, rng)
        except worlds.NoWorld:
            continue  # allowed now and then (the bot draws again), but not every time
        assert_consistent(world, state, seat)
        made += 1
    assert made


@pytest.mark.parametrize(("game", "players", "options"), GAMES, ids=[g for g, _, _ in GAMES])
def test_before_the_play_the_seat_sees_what_the_rules_core_says(
    game: str, players: int, options: dict[str, object]
) -> None:
    """The observations a pass and a trump request make are the rules core's own for that seat, field by field."""
    rng = random.Random(5)
    driver = Driver(game, players, options, "before-play", [SeatView() for _ in range(players)])
    state = driver.state
    checked = 0
    while not state.is_over and checked < 2:
        if state.phase is Phase.PASS:
            seat = state.to_act
            seen = driver.seats[seat].observation(wire_requests.pass_request_for(state, seat, 7, 1, 1000))  # type: ignore[attr-defined]
        elif state.phase is Phase.TRUMP:
            seat = state.to_act
            request = driver.request()
            assert isinstance(request, m.TrumpRequest)
            seen = driver.seats[seat].observation(request)  # type: ignore[attr-defined]
        else:
            driver.apply(random_action(state, rng))
            continue
        assert seen == state.observation(seat)
        checked += 1
        _play_on_to_the_cards(driver, rng)
    assert checked == 2


def _play_on_to_the_cards(driver: Driver, rng: random.Random) -> None:
    while driver.state.phase is Phase.PASS or driver.state.phase is Phase.TRUMP:
        driver.apply(random_action(driver.state, rng))


def play_search_game(
    bots: list[Any], game: str, options: dict[str, object], seed: str, playouts: int
) -> list[tuple[str, str]]:
    """A whole game of search bots (Monte Carlo or expert: the sample bots are not type-checked), one a seat, each
    capped at ``playouts`` a decision; every answer goes through the referee's own decoding (``wire.to_action``) and
    the rules' ``apply``, which refuse anything illegal. Returns the decisions made, as (kind, answer)."""
    driver = Driver(game, len(bots), options, seed, list(bots))
    state = driver.state
    made: list[tuple[str, str]] = []
    while not state.is_over:
        if state.phase is Phase.PASS:
            while state.phase is Phase.PASS:  # the passes are exchanged once all are in, as the referee does
                seat = state.to_act
                cards = bots[seat].pass_cards(wire_requests.pass_request_for(state, seat, 7, 1, 1000))
                made.append(("pass", " ".join(cards)))
                driver.apply(wire.to_action(m.PassAnswer(id=7, cards=tuple(cards))))
            continue
        request = driver.request()
        bot = bots[state.to_act]
        answer: m.Answer
        if isinstance(request, m.PlayRequest):
            answer = m.PlayAnswer(id=7, card=bot.play(request))
            made.append((f"play {request.kind}", answer.card))
        elif isinstance(request, m.TrumpRequest):
            suit = bot.trump(request)
            answer = m.TrumpAnswer(id=7, suit="NT" if suit is None else suit)
            made.append(("trump", answer.suit))
        else:
            assert isinstance(request, m.MoonRequest)
            answer = m.MoonAnswer(id=7, choice=bot.moon(request))
            made.append(("moon", answer.choice))
        driver.apply(wire.to_action(answer))
        assert bot.last is None or bot.last.playouts <= playouts
    assert [bot.failures for bot in bots] == [0] * len(bots), "a search failed: its fallback answered"
    return made


def _play_game(game: str, players: int, options: dict[str, object], seed: str, playouts: int) -> list[tuple[str, str]]:
    bots = [MonteCarloBot(playouts=playouts, seed=seat) for seat in range(players)]
    return play_search_game(bots, game, options, seed, playouts)


@pytest.mark.parametrize(("game", "players", "options"), GAMES, ids=[g for g, _, _ in GAMES])
def test_it_answers_every_decision_legally_within_its_playouts(
    game: str, players: int, options: dict[str, object]
) -> None:
    kinds = Counter(kind for kind, _ in _play_game(game, players, options, "montecarlo-1", playouts=3))
    assert any(kind.startswith("play") for kind in kinds)
    if game.startswith("kierki"):
        assert kinds["trump"] == players  # every seat names trump once
    else:
        assert kinds["pass"] > 0


def test_the_same_seed_and_playouts_make_the_same_game() -> None:
    first = _play_game("hearts", 4, {"target": 20}, "repeat", playouts=4)
    assert first == _play_game("hearts", 4, {"target": 20}, "repeat", playouts=4)


def test_the_moon_choice_ends_the_game_only_when_leading() -> None:
    assert choose_moon((54, 70, 80, 80), (80, 96, 106, 106), 0, 100) == "others"  # it ends the game, seat 0 first
    assert choose_moon((64, 60, 80, 80), (90, 86, 106, 106), 0, 100) == "self"  # it would end it, seat 1 first
    assert choose_moon((30, 20, 20, 20), (56, 46, 46, 46), 0, 100) == "self"  # behind: keep the game going
    assert choose_moon((-16, 20, 30, 30), (10, 46, 56, 56), 0, 100) == "others"  # ahead: bring the end nearer


def test_the_pass_candidates_start_with_the_rule_of_thumb_and_are_distinct() -> None:
    hand = [43, 47, 51, 50, 46, 42, 3, 7, 11, 0, 4, 8, 12]  # Q♠ K♠ A♠ A♥ K♥ Q♥ and low cards
    passes = candidate_passes(hand, 3)
    assert sorted(passes[0]) == [43, 47, 51]
    assert len({tuple(sorted(p)) for p in passes}) == len(passes) == 10
    doubled = candidate_passes([43, 43, 51, 51, *range(13)], 3)  # two decks: a card held twice may go twice
    assert all(Counter(p) <= Counter([43, 43, 51, 51, *range(13)]) for p in doubled)


def test_sample_montecarlo_names_the_package() -> None:
    argv = BotSpec.parse("sample:montecarlo").argv
    assert Path(argv[-1]) == MAIN and MAIN.is_file()


def test_check_bot_passes_it() -> None:
    assert_all_pass(run_check(python_bot(MAIN, "--playouts", "8", "--seed", "1")))
