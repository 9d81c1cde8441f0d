"""Differential test: our Hearts engine against OpenSpiel's Hearts, position by position.

OpenSpiel is configured to play the rules RULES.md §4 adopts (§6 lists the two flags that differ from its
defaults: ``qs_breaks_hearts=false`` and ``can_lead_hearts_instead_of_qs=true``). Both engines get the same four
hands, the same passes and the same card at every step; at every decision the legal sets must be equal, as must
the seat to act, whether hearts are broken, and each seat's points so far. At the end of a hand OpenSpiel's
returns (``26 - points``; a moon gives the shooter -26 and everyone else +26) must equal our hand's scores with
the shooter choosing ``others``.

Card ids are the same in both engines (``rank * 4 + suit``, suits C D H S), and so are seats (ours 0-3 clockwise
are OpenSpiel's N E S W). OpenSpiel's pass directions are numbered like our pass offsets (receiver = seat +
offset): kNoPass 0, kLeft 1, kAcross 2, kRight 3. OpenSpiel deals the i-th chance card to player i % 4.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest

from bench.openspiel_hearts import OPENSPIEL_HEARTS_PARAMS
from referee.rules import (
    ChooseMoon,
    DealSpec,
    DealStarted,
    GameState,
    IllegalActionError,
    MoonOption,
    PassCards,
    Phase,
    PlayCard,
    Ruleset,
    card_name,
    parse_card,
)

pyspiel = pytest.importorskip("pyspiel")

OPENSPIEL_GAME = pyspiel.load_game("hearts", OPENSPIEL_HEARTS_PARAMS)
PASS_DIR = {0: 0, 1: 1, 2: 2, 3: 3}  # our pass offset -> OpenSpiel PassDir (kNoPass, kLeft, kAcross, kRight)
TOTAL_POINTS = 26

Hands = tuple[tuple[int, ...], ...]


def names(cards: Sequence[int]) -> str:
    return " ".join(card_name(c) for c in cards)


def cards(text: str) -> tuple[int, ...]:
    return tuple(parse_card(word) for word in text.split())


def random_deal(rng: random.Random) -> Hands:
    """A seeded shuffle read as OpenSpiel's chance actions: the i-th card goes to seat i % 4."""
    order = rng.sample(range(52), 52)
    return tuple(tuple(order[seat::4]) for seat in range(4))


def openspiel_deal_actions(hands: Hands) -> list[int]:
    return [hands[i % 4][i // 4] for i in range(52)]


# --- policies: who picks which pass and which card ---------------------------------------------------------


class Policy:
    """Random passes and random legal cards (random.Random.choice on the sorted legal list)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def pass_cards(self, seat: int, hand: list[int]) -> tuple[int, ...]:
        return tuple(self.rng.sample(hand, 3))

    def play(self, state: GameState, legal: list[int]) -> int:
        return self.rng.choice(legal)


class GreedyPolicy(Policy):
    """One seat grabs tricks (highest legal card), the others duck (lowest): moons become likely."""

    def __init__(self, rng: random.Random, grabber: int, noise: float = 0.15) -> None:
        super().__init__(rng)
        self.grabber = grabber
        self.noise = noise

    def play(self, state: GameState, legal: list[int]) -> int:
        if self.rng.random() < self.noise:
            return self.rng.choice(legal)
        by_rank = sorted(legal, key=lambda c: (c >> 2, c & 3))
        return by_rank[-1] if state.to_act == self.grabber else by_rank[0]


class ScriptedPolicy(Policy):
    """Plays the given cards in order (each must be legal), then falls back to random play."""

    def __init__(self, rng: random.Random, script: Sequence[int], passes: dict[int, tuple[int, ...]]) -> None:
        super().__init__(rng)
        self.script = list(script)
        self.passes = passes

    def pass_cards(self, seat: int, hand: list[int]) -> tuple[int, ...]:
        return self.passes.get(seat) or super().pass_cards(seat, hand)

    def play(self, state: GameState, legal: list[int]) -> int:
        if self.script:
            card = self.script.pop(0)
            assert card in legal, f"scripted {card_name(card)} is not legal: {names(legal)}"
            return card
        return super().play(state, legal)


# --- the twin driver ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    """One play decision as both engines saw it."""

    seat: int
    hand: list[int]
    legal: list[int]
    hearts_broken: bool
    in_trick: int  # cards already played to the trick


@dataclass
class HandReport:
    """What one hand went through, so constructed tests can check they reached the position they aim at."""

    pass_offset: int
    scores: tuple[int, ...] = ()
    moon: bool = False
    steps: list[Step] = field(default_factory=list)


def check_illegal_rejected(ours: GameState, hand: list[int], legal: list[int], rng: random.Random) -> None:
    """An illegal card from the hand is refused and leaves the state as it was."""
    illegal = sorted(set(hand) - set(legal))
    if not illegal:
        return
    card = rng.choice(illegal)
    before = (ours.to_act, len(ours.events), ours.hand(ours.to_act))
    with pytest.raises(IllegalActionError):
        ours.apply(PlayCard(card), seat=ours.to_act)
    assert (ours.to_act, len(ours.events), ours.hand(ours.to_act)) == before


def play_twin_hand(ours: GameState, policy: Policy, rng: random.Random, game: Any = OPENSPIEL_GAME) -> HandReport:
    """Play our state's current hand and a fresh OpenSpiel game side by side, comparing every position."""
    started = next(e for e in reversed(ours.events) if isinstance(e, DealStarted))
    hands = started.hands
    report = HandReport(started.pass_offset)
    deals_before = len(ours.deal_results)

    os_state = game.new_initial_state()
    assert os_state.is_chance_node()
    os_state.apply_action(PASS_DIR[started.pass_offset])
    for action in openspiel_deal_actions(hands):
        assert os_state.is_chance_node()
        os_state.apply_action(action)

    if started.pass_offset:
        assert ours.phase is Phase.PASS
        chosen: dict[int, tuple[int, ...]] = {}
        for seat in range(4):  # OpenSpiel: players 0..3 in turn, one card per action
            hand = ours.hand(seat)
            assert sorted(os_state.legal_actions()) == hand, f"seat {seat} holds different cards"
            chosen[seat] = policy.pass_cards(seat, hand)
            for card in chosen[seat]:
                assert os_state.current_player() == seat
                assert card in os_state.legal_actions()
                os_state.apply_action(card)
        seen = []
        while ours.phase is Phase.PASS:  # ours: clockwise from the dealer's left, all at once per seat
            seat = ours.to_act
            seen.append(seat)
            ours.apply(PassCards(chosen[seat]), seat=seat)
        assert sorted(seen) == [0, 1, 2, 3]
        for seat in range(4):
            received = chosen[(seat - started.pass_offset) % 4]
            expected = (set(hands[seat]) - set(chosen[seat])) | set(received)
            assert set(ours.hand(seat)) == expected
    else:
        assert ours.phase is Phase.PLAY

    while ours.phase is Phase.PLAY and ours.deal_number == started.deal:
        seat = ours.to_act
        assert os_state.current_player() == seat, "different seats to act"
        legal = ours.legal_plays()
        os_legal = sorted(os_state.legal_actions())
        hand = ours.hand(seat)
        view = ours.observation(seat)
        if legal != os_legal:
            pytest.fail(
                f"legal sets differ, deal {started.deal} trick {ours.trick_number} seat {seat}: "
                f"ours {names(legal)} | OpenSpiel {names(os_legal)}; hand {names(hand)}; "
                f"trick so far {names([c for _, c in view.trick])}; hearts broken {view.hearts_broken}"
            )
        assert view.hearts_broken == os_state.hearts_broken()
        assert list(view.deal_scores) == [os_state.points(p) for p in range(4)]
        report.steps.append(Step(seat, hand, legal, view.hearts_broken, len(view.trick)))
        check_illegal_rejected(ours, hand, legal, rng)
        card = policy.play(ours, legal)
        ours.apply(PlayCard(card), seat=seat)
        os_state.apply_action(card)

    assert os_state.is_terminal()
    phase: Phase = ours.phase  # a fresh read: the plays above have moved the state on
    if phase is Phase.MOON:
        report.moon = True
        ours.apply(ChooseMoon(MoonOption.OTHERS), seat=ours.to_act)
    assert len(ours.deal_results) == deals_before + 1
    report.scores = ours.deal_results[-1].scores
    returns = os_state.returns()
    assert [TOTAL_POINTS - round(r) for r in returns] == list(report.scores), (
        f"scores differ: ours {report.scores}, OpenSpiel returns {returns}"
    )
    return report


def play_twin_game(
    ruleset: Ruleset,
    deals: Sequence[DealSpec],
    policy_for: Callable[[int], Policy],
    seed: int,
    game: Any = OPENSPIEL_GAME,
) -> list[HandReport]:
    """A whole game of ours, every hand mirrored by a fresh one-hand OpenSpiel game."""
    ours = GameState(ruleset, seed=seed, deals=deals)
    rng = random.Random(seed)
    reports = []
    while not ours.is_over:
        number = ours.deal_number
        if number <= len(deals):
            started = next(e for e in reversed(ours.events) if isinstance(e, DealStarted))
            assert started.hands == deals[number - 1].hands
        reports.append(play_twin_hand(ours, policy_for(number), rng, game))
    totals = [sum(r.scores[s] for r in reports) for s in range(4)]
    assert list(ours.totals) == totals
    assert max(totals) >= ruleset.target
    return reports


def same_policy(seed: int) -> Callable[[int], Policy]:
    """Every hand of the game played at random from one seeded stream."""
    policy = Policy(random.Random(seed))
    return lambda number: policy


def greedy_by_hand(seed: int, grabber: Callable[[int], int], noise: float = 0.15) -> Callable[[int], Policy]:
    """Hand ``number`` played greedily for seat ``grabber(number)``."""
    return lambda number: GreedyPolicy(random.Random(seed * 100 + number), grabber(number), noise)


# --- random hands ------------------------------------------------------------------------------------------

GAMES = 24  # about 10 hands each: roughly 250 hands passing left/right/across/none, plus the 'none' games


@pytest.mark.parametrize("seed", range(GAMES))
def test_random_games_match_openspiel(seed: int) -> None:
    rng = random.Random(1000 + seed)
    deals = [DealSpec(random_deal(rng), (), 3 if i == 0 else None) for i in range(40)]
    ruleset = Ruleset.create("hearts", 4)  # cycle: left, right, across, none
    policy_for = greedy_by_hand(seed, lambda number: number % 4) if seed % 2 else same_policy(seed)
    reports = play_twin_game(ruleset, deals, policy_for, seed)
    assert len(reports) >= 4
    assert {r.pass_offset for r in reports} == {0, 1, 2, 3}


@pytest.mark.parametrize("seed", range(6))
def test_random_games_without_passing_match_openspiel(seed: int) -> None:
    rng = random.Random(5000 + seed)
    deals = [DealSpec(random_deal(rng), (), 3) for _ in range(40)]
    ruleset = Ruleset.create("hearts", 4, {"passing": "none"})
    reports = play_twin_game(ruleset, deals, same_policy(seed), seed)
    assert {r.pass_offset for r in reports} == {0}


# Our options and the OpenSpiel flags that play the same variant.
VARIANTS = [
    ({"qs_breaks_hearts": True}, {"qs_breaks_hearts": True}),
    ({"first_trick_no_points": False}, {"no_pts_on_first_trick": False}),
    (
        {"qs_breaks_hearts": True, "first_trick_no_points": False},
        {"qs_breaks_hearts": True, "no_pts_on_first_trick": False},
    ),
]


@pytest.mark.parametrize(("ours", "theirs"), VARIANTS, ids=lambda v: ",".join(f"{k}={v[k]}" for k in v))
def test_variants_match_openspiel(ours: dict[str, bool], theirs: dict[str, bool]) -> None:
    game = pyspiel.load_game("hearts", {**OPENSPIEL_HEARTS_PARAMS, **theirs})
    ruleset = Ruleset.create("hearts", 4, ours)
    for seed in range(4):
        rng = random.Random(7000 + seed)
        deals = [DealSpec(random_deal(rng), (), None) for _ in range(40)]
        policy_for = same_policy(seed) if seed % 2 else greedy_by_hand(seed, lambda number: number % 4, 0.3)
        play_twin_game(ruleset, deals, policy_for, seed, game)


def strong_deal(rng: random.Random, grabber: int) -> Hands:
    """A random deal in which ``grabber`` holds every ace, king and queen: with greedy play, moons are common."""
    top = [c for c in range(52) if c >> 2 >= 10]
    rest = rng.sample(range(40), 40)
    strong = [*top, rest.pop()]
    rng.shuffle(strong)
    hands = [rest[13 * i : 13 * i + 13] for i in range(3)]
    hands.insert(grabber, strong)
    return tuple(tuple(h) for h in hands)


@pytest.mark.parametrize("seed", range(4))
def test_moons_match_openspiel(seed: int) -> None:
    """Strong hands and greedy play: many hands end in a moon, scored +26 to the others by both engines."""
    rng = random.Random(9000 + seed)
    grabbers = [rng.randrange(4) for _ in range(40)]
    deals = [DealSpec(strong_deal(rng, g), (), None) for g in grabbers]
    reports = play_twin_game(
        Ruleset.create("hearts", 4),
        deals,
        greedy_by_hand(seed, lambda number: grabbers[number - 1], noise=0.1),
        seed,
    )
    moons = [r for r in reports if r.moon]
    assert moons and len(moons) < len(reports)
    assert all(sorted(r.scores) == [0, 26, 26, 26] for r in moons)


# --- constructed hands that stress trick 1 and the heart lead ----------------------------------------------


def one_hand(hands: Hands, policy: Policy, seed: int = 0, passing: str = "none") -> HandReport:
    ruleset = Ruleset.create("hearts", 4, {"passing": passing})
    ours = GameState(ruleset, seed=seed, deals=[DealSpec(hands, (), 3)])
    return play_twin_hand(ours, policy, random.Random(seed))


def sorted_deck_deal() -> Hands:
    """OpenSpiel's ShootTheMoonTest deal: AC AD AH AS KC KD ... 2S round-robin, so seat s holds all of suit s."""
    order = [rank * 4 + suit for rank in range(12, -1, -1) for suit in range(4)]
    return tuple(tuple(order[seat::4]) for seat in range(4))


def test_shoot_the_moon_like_openspiel() -> None:
    # OpenSpiel's script: trick 1 is 2C AD AH AS, then seat 0 runs the clubs from the top.
    script = cards("2C AD AH AS AC 2D 2H 2S")
    for rank in "KQJT9876543":
        script += cards(f"{rank}C {rank}D {rank}H {rank}S")
    report = one_hand(sorted_deck_deal(), ScriptedPolicy(random.Random(0), script, {}))
    step = report.steps[2]
    assert (step.seat, step.in_trick) == (2, 2)
    assert step.legal == step.hand and len(step.legal) == 13  # only hearts: a heart is legal on trick 1
    assert report.moon
    assert report.scores == (0, 26, 26, 26)  # OpenSpiel returns (26, 0, 0, 0)


def test_trick_one_void_with_only_hearts_and_queen_may_play_anything() -> None:
    """RULES.md H-a: clubs led to trick 1, a seat void in clubs holding 12 hearts + Q♠ has 13 legal cards."""
    hearts_qs = cards("3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH QS")
    rest = sorted(set(range(52)) - set(hearts_qs))
    rest.remove(0)
    seat0 = (0, *rest[:12])
    others = rest[12:]
    hands = (seat0, hearts_qs, tuple(others[:13]), tuple(others[13:]))
    for seed in range(20):
        report = one_hand(hands, Policy(random.Random(seed)), seed)
        step = report.steps[1]
        assert (step.seat, step.in_trick) == (1, 1)
        assert step.legal == step.hand and len(step.legal) == 13


def test_trick_one_void_with_hearts_queen_and_one_safe_card_must_play_the_safe_card() -> None:
    hand1 = cards("4H 5H 6H 7H 8H 9H TH JH QH KH AH QS 2D")
    rest = sorted(set(range(52)) - set(hand1) - {0})
    hands = ((0, *rest[:12]), hand1, tuple(rest[12:25]), tuple(rest[25:]))
    for seed in range(10):
        report = one_hand(hands, Policy(random.Random(seed)), seed)
        assert report.steps[1].legal == list(cards("2D"))


# Seat 0 ends up on lead holding Q♠ and hearts only, hearts unbroken (two tests below).
QUEEN_AND_HEARTS_LEAD: Hands = (
    cards("2C AD QS 2H 3H 4H 5H 6H 7H 8H 9H TH JH"),
    cards("3C 4C 5C 6C 2D 3D 4D 5D 2S 3S 4S 5S QH"),
    cards("7C 8C 9C TC 6D 7D 8D 9D 6S 7S 8S 9S KH"),
    cards("JC QC KC AC TD JD QD KD TS JS KS AS AH"),
)
# Trick 1: 2C 3C 7C AC, seat 3 wins; trick 2: seat 3 leads TD, seat 0 must play AD and wins.
QUEEN_AND_HEARTS_SCRIPT = cards("2C 3C 7C AC TD AD 2D 6D")


def test_lead_with_only_hearts_and_queen_while_hearts_unbroken() -> None:
    """A.-H5: the leader holds Q♠ and hearts only and hearts are unbroken: Q♠ or any heart may be led."""
    hands = QUEEN_AND_HEARTS_LEAD
    script = QUEEN_AND_HEARTS_SCRIPT
    for seed in range(10):
        report = one_hand(hands, ScriptedPolicy(random.Random(seed), script, {}), seed)
        step = report.steps[8]
        assert (step.seat, step.in_trick, step.hearts_broken) == (0, 0, False)
        assert step.legal == step.hand == sorted(cards("QS 2H 3H 4H 5H 6H 7H 8H 9H TH JH"))


def test_openspiel_default_would_force_the_lone_queen_lead() -> None:
    """The harness can tell the variants apart: OpenSpiel's default flag allows only Q♠ in the position above."""
    game = pyspiel.load_game("hearts", {**OPENSPIEL_HEARTS_PARAMS, "can_lead_hearts_instead_of_qs": False})
    state = game.new_initial_state()
    hands = QUEEN_AND_HEARTS_LEAD
    for action in [PASS_DIR[0], *openspiel_deal_actions(hands), *QUEEN_AND_HEARTS_SCRIPT]:
        state.apply_action(action)
    assert state.current_player() == 0
    assert state.legal_actions() == [parse_card("QS")]


def test_queen_of_spades_does_not_break_hearts() -> None:
    """Q♠ played while hearts are unbroken: the next leader, holding hearts and spades, may not lead a heart."""
    hands = (
        cards("2C AD KD 2H 3H 4H 5H 6H 7H 8H 9H TH JH"),
        cards("3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC QS"),
        cards("2D 3D 4D 5D 6D 7D 8D 9D TD JD QD QH KH"),
        cards("2S 3S 4S 5S 6S 7S 8S 9S TS JS KS AS AH"),
    )
    # Trick 1: 2C AC 2D 2S, seat 1 wins; trick 2: seat 1 leads Q♠, seat 3 takes it with A♠ and leads.
    script = cards("2C AC 2D 2S QS 3D AS KD")
    for seed in range(10):
        report = one_hand(hands, ScriptedPolicy(random.Random(seed), script, {}), seed)
        step = report.steps[8]
        assert (step.seat, step.in_trick, step.hearts_broken) == (3, 0, False)
        assert step.legal == [c for c in step.hand if c != parse_card("AH")]
