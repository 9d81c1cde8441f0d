"""No seat learns more than it may: every message of recorded matches, checked against the game replayed alongside.

A match of every game is played with real bot processes and ``transcript=True`` (every raw line to and from each
seat). The decisions in its replay log are applied to a fresh ``GameState``, which gives every hand at every
moment. Each seat's transcript is then walked in order next to that truth. Who may see what is stated once, by
``projection.project`` (itself checked against the truth in test_projection.py), and this walk holds the wire to it:

* the referee's event messages to the seat are, one by one, the encoding of the seat's projection of each true
  event (that is also what places each message at its moment);
* every message, requests included, names only cards the seat's projections have shown it in this deal (its
  hand, what it sent and received, the cards played), plus in a trump deal the dealer's first cards (only its
  trump request shows them, and only to the dealer) and, in an error message, cards the seat named itself (the
  referee quotes its answer back).

Anything else is a leak, reported as another seat's unplayed card, a passed card the seat did not receive, or
the kitty before it is taken (a card not in the deal at all, like the "virtual" 2♣ of Kierki for 3, is no
secret). Hands in requests must be the seat's exact hand (as multisets: the Cancellation deck has every card
twice). The checker is tested on doctored transcripts too, so a clean result means something.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples
from rules_helpers import view_cards

from protocol import codec
from protocol import messages as m
from referee import wire
from referee.bots.time_control import TimeControl
from referee.match import Match
from referee.match_config import BotSpec, MatchConfig, MatchSpec, RulesetSpec, default_bots
from referee.rules import (
    Action,
    CardPlayed,
    ChooseMoon,
    ChooseTrump,
    DealKind,
    DealStarted,
    Event,
    GameEnded,
    GameState,
    MoonOption,
    PassCards,
    PassesExchanged,
    PlayCard,
    Ruleset,
    TrickEnded,
    card_name,
    parse_card,
)
from referee.rules.cards import SUIT_LETTERS
from referee.rules.projection import project

HOSTILE = Path(__file__).parent / "hostile"
CARD = re.compile(m.CARD_PATTERN)
CARD_IN_TEXT = re.compile(r"(?<![0-9A-Za-z])[2-9TJQKA][CDHS](?![0-9A-Za-z])")
GAMES = [("kierki", 4), ("kierki3", 3), ("hearts", 4), ("cancellation", 6), ("cancellation", 7), ("cancellation", 11)]
SHORT = {"hearts": {"target": 50}, "cancellation": {"target": 60}}


# --- the truth: the game replayed from its log ------------------------------------------------------------------


def decision(record: dict[str, Any]) -> Action:
    kind = record["type"]
    if kind == "play":
        return PlayCard(parse_card(record["card"]))
    if kind == "pass":
        return PassCards(tuple(parse_card(c) for c in record["cards"]))
    if kind == "trump":
        return ChooseTrump(None if record["suit"] == "NT" else SUIT_LETTERS.index(record["suit"]))
    assert kind == "moon"
    return ChooseMoon(MoonOption(record["choice"]))


def true_events(ruleset: Ruleset, replay: Path) -> list[Event]:
    """Apply the logged decisions to a fresh state; check the log's derived records agree with it."""
    records = [json.loads(line) for line in replay.read_text().splitlines()]
    header = records[0]
    state = GameState(ruleset, seed=header["seed"], game=header["game_number"])
    for record in records:
        if record["type"] in ("play", "pass", "trump", "moon"):
            state.apply(decision(record), record["seat"])
    assert state.is_over
    deals = [e for e in state.events if isinstance(e, DealStarted)]
    logged = [r for r in records if r["type"] == "deal"]
    assert [[[card_name(c) for c in h] for h in d.hands] for d in deals] == [r["hands"] for r in logged]
    assert [[card_name(c) for c in d.kitty] for d in deals] == [r["kitty"] for r in logged]
    end = state.events[-1]
    assert isinstance(end, GameEnded) and list(end.totals) == records[-2]["totals"]
    return state.events


def names(cards: tuple[int, ...] | list[int]) -> Counter[str]:
    return Counter(card_name(c) for c in cards)


@dataclass
class World:
    """The true state of one deal as events arrive (to name a leak), and what one seat has been shown of it."""

    seat: int
    players: int
    deal: DealStarted | None = None
    hands: list[Counter[str]] = field(default_factory=list)
    seen_by_dealer: list[str] = field(default_factory=list)  # a trump deal before trump is named
    shown: set[str] = field(default_factory=set)  # every card the seat's projections showed it in this deal
    passed: tuple[Counter[str], ...] = ()
    kitty: Counter[str] = field(default_factory=Counter)
    kitty_taken: bool = False

    def apply(self, event: Event) -> None:
        if isinstance(event, DealStarted):
            self.deal = event
            self.hands = [names(h) for h in event.hands]
            self.seen_by_dealer, self.shown = [], set()
            if event.kind is DealKind.TRUMP and event.dealer == self.seat:
                self.seen_by_dealer = [card_name(c) for c in event.hands[event.dealer][: 5 if self.players == 4 else 6]]
            self.passed = ()
            self.kitty, self.kitty_taken = names(event.kitty), False
        elif isinstance(event, PassesExchanged):
            self.passed = tuple(names(p) for p in event.passed)
            for giver, given in enumerate(self.passed):
                self.hands[giver] -= given
                self.hands[(giver + event.pass_offset) % self.players] += given
        elif isinstance(event, CardPlayed):
            self.hands[event.seat][card_name(event.card)] -= 1
            self.hands[event.seat] += Counter()  # drop zero counts
        elif isinstance(event, TrickEnded) and self.kitty and not self.kitty_taken:
            self.kitty_taken = not (self.kitty - names(event.collected))
        view = project(event, self.seat)
        if view is not None:
            self.shown |= {card_name(c) for c in view_cards(view)}

    def may_know(self) -> set[str]:
        return self.shown | set(self.seen_by_dealer)

    def why_not(self, card: str) -> str | None:
        """What a card the seat may not know is: the kind of leak; None for a card not in this deal at all.

        A card outside the deal is no secret: Kierki for 3 plays without 2♣, and its loteryjka shows the clubs
        column as opened at that "virtual" 2♣.
        """
        assert self.deal is not None
        if all(card_name(c) != card for hand in self.deal.hands for c in hand) and not self.kitty[card]:
            return None
        if self.kitty[card] and not self.kitty_taken:
            return "the kitty before it is taken"
        giver = (self.seat - self.deal.pass_offset) % self.players
        for sender, sent in enumerate(self.passed):
            if sent[card] and sender not in (self.seat, giver):
                return "a passed card it did not receive"
        if any(hand[card] for other, hand in enumerate(self.hands) if other != self.seat):
            return "another seat's unplayed card"
        return "a card it cannot have seen"


# --- walking one seat's transcript ----------------------------------------------------------------------------

# The messages that tell a seat about a core event; the others (requests, game_start, error, bye) do not.
FROM_EVENTS = (
    m.DealEvent,
    m.PassedEvent,
    m.PlayedEvent,
    m.LotteryPassEvent,
    m.TrickEvent,
    m.DealEndEvent,
    m.GameEndEvent,
)


def expected_message(event: Event, seat: int, players: int, game: int) -> m.Event | None:
    """The message the seat must get for ``event``: its projection, encoded; None when it gets none."""
    view = project(event, seat)
    return None if view is None else wire.event_message(view, players, game)


def card_tokens(value: Any, *, text: bool = False) -> Iterator[str]:
    """Card names in a decoded message: every string that is a card; in free text, card-shaped words."""
    if isinstance(value, str):
        if text:
            yield from CARD_IN_TEXT.findall(value.split("Hint: ")[0])  # the codec's hints show fixed examples
        elif CARD.fullmatch(value):
            yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from card_tokens(item, text=key == "message")
    elif isinstance(value, list | tuple):
        for item in value:
            yield from card_tokens(item)


@dataclass
class SeatWalk:
    seat: int
    players: int
    truths: dict[int, list[Event]]  # game number -> its events
    violations: list[str] = field(default_factory=list)
    world: World | None = None
    pending: list[Event] = field(default_factory=list)
    named_by_seat: set[str] = field(default_factory=set)  # cards the seat itself wrote, quoted back in errors
    game: int = 0
    index: int = 0

    def fail(self, what: str) -> None:
        self.violations.append(f"seat {self.seat}, game {self.game}, message {self.index}: {what}")

    def answer(self, line: bytes) -> None:
        self.named_by_seat |= set(CARD_IN_TEXT.findall(line.decode("utf-8", "replace")))

    def message(self, line: bytes) -> None:
        self.index += 1
        message = codec.decode_referee_line(line)
        if isinstance(message, m.GameStartEvent):
            self.game = message.game_number
            self.pending = list(self.truths[self.game])
            self.world = World(self.seat, self.players)
            return
        if self.world is None:
            return  # hello, or bye before any game: no cards
        if isinstance(message, FROM_EVENTS):
            self._advance_to(message)
        else:
            self._skip_silent()
        self._check(message)

    def _expected(self, event: Event) -> m.Event | None:
        return expected_message(event, self.seat, self.players, self.game)

    def _skip_silent(self) -> None:
        assert self.world is not None
        while self.pending and self._expected(self.pending[0]) is None:
            self.world.apply(self.pending.pop(0))

    def _advance_to(self, message: m.Event) -> None:
        assert self.world is not None
        tag = message.__struct_config__.tag
        self._skip_silent()
        expected = self._expected(self.pending[0]) if self.pending else None
        if expected is None or expected.__struct_config__.tag != tag:
            want = f'"{expected.__struct_config__.tag}"' if expected else "nothing"
            self.fail(f'a "{tag}" message where the game next has {want}')
            return
        event = self.pending.pop(0)
        self.world.apply(event)
        if message != expected:
            got, want = codec.encode(message).decode(), codec.encode(expected).decode()
            self.fail(f'"{tag}" message is not the seat\'s projection of the {type(event).__name__}: {got}, not {want}')

    def _check(self, message: m.RefereeMessage) -> None:
        world = self.world
        assert world is not None
        if world.deal is None:
            return
        allowed = world.may_know()
        if isinstance(message, m.ErrorEvent):
            allowed |= self.named_by_seat
        for card in set(card_tokens(msgspec.to_builtins(message))):
            secret = None if card in allowed else world.why_not(card)
            if secret is not None:
                self.fail(f'"{message.__struct_config__.tag}" message shows {card}: {secret}')
        hand = Counter(getattr(message, "hand", ()))
        if isinstance(message, m.PlayRequest | m.PassRequest) and hand != world.hands[self.seat]:
            self.fail(f'"{message.__struct_config__.tag}" request hand is not the seat\'s hand')
        if isinstance(message, m.PlayRequest) and not Counter(message.legal) <= hand:
            self.fail("legal cards outside the hand")
        if isinstance(message, m.TrumpRequest) and list(message.cards) != world.seen_by_dealer:
            self.fail(f"trump request shows {list(message.cards)}, not the dealer's first cards")


def leaks(out: Path, ruleset: Ruleset, games: int) -> list[str]:
    """Every violation in a recorded match's transcripts (empty: no seat learnt more than it may)."""
    truths = {g: true_events(ruleset, out / f"game{g:03d}.replay.jsonl") for g in range(1, games + 1)}
    violations = []
    for seat in range(ruleset.players):
        walk = SeatWalk(seat, ruleset.players, truths)
        for raw in (out / f"seat{seat}.transcript.log").read_bytes().split(b"\n")[:-1]:
            _time, direction, line = raw.split(b" ", 2)
            if direction == b"->":
                walk.message(line)
            else:
                walk.answer(line)
        violations += walk.violations
    return violations


def record_match(
    out: Path, game: str, players: int, seed: int, games: int = 1, illegal_seat: int | None = None
) -> Ruleset:
    ruleset = Ruleset.create(game, players, SHORT.get(game))
    bots = list(default_bots(players))
    if illegal_seat is not None:  # names cards it does not hold, so the referee's error messages are checked too
        bots[illegal_seat] = BotSpec((sys.executable, str(HOSTILE / "not_held.py"), "3"))
    config = MatchConfig.from_spec(
        MatchSpec(
            rules=RulesetSpec.of(ruleset),
            bots=tuple(bots),
            seed=str(seed),
            games=games,
            time=TimeControl(move_ms=2000, startup_ms=10_000),
            transcript=True,
        ),
        out,
    )
    Match(config).run()
    return ruleset


# --- the property --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("game", "players"), GAMES)
def test_no_seat_learns_more_than_it_may(tmp_path: Path, game: str, players: int) -> None:
    ruleset = record_match(tmp_path, game, players, seed=11, games=2, illegal_seat=1)
    assert leaks(tmp_path, ruleset, games=2) == []


@settings(max_examples=examples(6), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from([*GAMES, ("cancellation", 9), ("cancellation", 10)]),
    st.integers(1, 2**31),
    st.none() | st.integers(0, 2),
)
@example(("kierki3", 3), 42, None)  # the loteryjka's "virtual" 2♣, which is in no hand, shows in a column
def test_no_seat_learns_more_for_any_seed(game: tuple[str, int], seed: int, illegal_seat: int | None) -> None:
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder)
        ruleset = record_match(out, *game, seed=seed, illegal_seat=illegal_seat)
        assert leaks(out, ruleset, games=1) == []


# --- the checker finds leaks ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, Ruleset]]:
    """One clean recorded match of Hearts (passing) and of Cancellation with a kitty, for doctoring."""
    matches = {}
    for game, players in (("hearts", 4), ("cancellation", 7), ("kierki", 4)):
        out = tmp_path_factory.mktemp(game)
        matches[game] = (out, record_match(out, game, players, seed=3))
    return matches


def doctor(out: Path, seat: int, change: Callable[[dict[str, Any]], dict[str, Any] | None], target: Path) -> Path:
    """A copy of a recorded match where ``change`` replaces the first message to ``seat`` it returns a dict for."""
    shutil.copytree(out, target)
    path = target / f"seat{seat}.transcript.log"
    lines = path.read_bytes().split(b"\n")[:-1]
    for i, raw in enumerate(lines):
        stamp, direction, line = raw.split(b" ", 2)
        if direction != b"->":
            continue
        message = json.loads(line)
        changed = change(message)
        if changed is not None:
            lines[i] = b" ".join([stamp, direction, json.dumps(changed).encode()])
            break
    else:
        raise AssertionError("the doctoring found no message to change")
    path.write_bytes(b"\n".join(lines) + b"\n")
    return target


def first_deal(out: Path) -> dict[str, Any]:
    records = [json.loads(line) for line in (out / "game001.replay.jsonl").read_text().splitlines()]
    return next(r for r in records if r["type"] == "deal")


def test_checker_finds_another_seats_unplayed_card(recorded: dict[str, tuple[Path, Ruleset]], tmp_path: Path) -> None:
    out, ruleset = recorded["hearts"]
    other_card = first_deal(out)["hands"][2][-1]

    def leak(message: dict[str, Any]) -> dict[str, Any] | None:
        if message["type"] == "pass":
            return {**message, "hand": [*message["hand"][:-1], other_card]}
        return None

    found = leaks(doctor(out, 0, leak, tmp_path / "x"), ruleset, games=1)
    assert any(f"shows {other_card}: another seat's unplayed card" in v for v in found), found
    assert any("request hand is not the seat's hand" in v for v in found)


def test_checker_finds_a_passed_card_the_seat_did_not_receive(
    recorded: dict[str, tuple[Path, Ruleset]], tmp_path: Path
) -> None:
    out, ruleset = recorded["hearts"]
    records = [json.loads(line) for line in (out / "game001.replay.jsonl").read_text().splitlines()]
    exchange = next(r for r in records if r["type"] == "exchange")
    offset = exchange["pass_offset"]
    own_giver = (0 - offset) % 4
    giver = next(g for g in range(1, 4) if g != own_giver)  # a seat that passes to someone else than seat 0
    card = next(c for c in exchange["passed"][giver] if c not in exchange["passed"][own_giver])

    def leak(message: dict[str, Any]) -> dict[str, Any] | None:
        if message["type"] == "passed":
            return {**message, "received": [*message["received"], card]}
        return None

    found = leaks(doctor(out, 0, leak, tmp_path / "x"), ruleset, games=1)
    assert any(f"shows {card}: a passed card it did not receive" in v for v in found), found


def test_checker_finds_the_kitty_before_it_is_taken(recorded: dict[str, tuple[Path, Ruleset]], tmp_path: Path) -> None:
    out, ruleset = recorded["cancellation"]
    kitty = first_deal(out)["kitty"]
    hands = first_deal(out)["hands"]
    seat, card = next((s, c) for s, hand in enumerate(hands) for c in kitty if c not in hand)  # not its own twin

    def leak(message: dict[str, Any]) -> dict[str, Any] | None:
        if message["type"] == "deal":
            return {**message, "hand": sorted([*message["hand"], card])}
        return None

    found = leaks(doctor(out, seat, leak, tmp_path / "x"), ruleset, games=1)
    assert any(f"shows {card}: the kitty before it is taken" in v for v in found), found


def test_checker_finds_a_trump_choosers_hidden_cards(recorded: dict[str, tuple[Path, Ruleset]], tmp_path: Path) -> None:
    out, ruleset = recorded["kierki"]
    records = [json.loads(line) for line in (out / "game001.replay.jsonl").read_text().splitlines()]
    trump_deal = next(r for r in records if r["type"] == "deal" and r["kind"] == "trump")
    dealer = trump_deal["dealer"]
    hidden = trump_deal["hands"][dealer][7]  # dealt to the chooser, but after the first five

    def leak(message: dict[str, Any]) -> dict[str, Any] | None:
        if message["type"] == "trump":
            return {**message, "cards": [*message["cards"], hidden]}
        return None

    found = leaks(doctor(out, dealer, leak, tmp_path / "x"), ruleset, games=1)
    assert any("trump request shows" in v for v in found), found
    assert any(f"shows {hidden}" in v for v in found), found


def test_checker_finds_an_event_out_of_place(recorded: dict[str, tuple[Path, Ruleset]], tmp_path: Path) -> None:
    out, ruleset = recorded["hearts"]

    def early(message: dict[str, Any]) -> dict[str, Any] | None:
        if message["type"] == "played":
            return {**message, "card": "AS" if message["card"] != "AS" else "KS"}
        return None

    found = leaks(doctor(out, 3, early, tmp_path / "x"), ruleset, games=1)
    assert any("is not the seat's projection of the CardPlayed" in v for v in found), found


def test_checker_finds_an_event_message_that_is_not_the_projection(
    recorded: dict[str, tuple[Path, Ruleset]], tmp_path: Path
) -> None:
    out, ruleset = recorded["hearts"]

    def short_hand(message: dict[str, Any]) -> dict[str, Any] | None:
        if message["type"] == "passed":  # a card of its own dropped: no leak, but not what the seat was shown
            return {**message, "hand": message["hand"][1:]}
        return None

    found = leaks(doctor(out, 2, short_hand, tmp_path / "x"), ruleset, games=1)
    assert any("is not the seat's projection of the PassesExchanged" in v for v in found), found
