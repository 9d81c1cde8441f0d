"""Helpers for the rules-core tests: hands written as text, given deals, scripted play and state snapshots.

Cards are written as in the deal files ("QS", "TH", "10H", "2c"), or suit by suit with the ranks run together:
``"C:AKQ D:T98"`` is A♣ K♣ Q♣ T♦ 9♦ 8♦, and in the two-deck game ``"C:JJ"`` is both copies of J♣. Order is
kept, because the Kierki trump chooser sees the first 5 (3 players: 6) cards of their hand in dealing order.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import fields
from typing import Any

import msgspec
import pytest

from referee import dealfile
from referee.rules import (
    Action,
    CardPlayed,
    ChooseMoon,
    ChooseTrump,
    DealEnded,
    DealSpec,
    DealStarted,
    Event,
    GameEnded,
    GameState,
    IllegalActionError,
    LotteryPassed,
    MoonOption,
    PassCards,
    Phase,
    PlayCard,
    PlayerOut,
    Ruleset,
    TrickEnded,
    TrickView,
    card_name,
    parse_card,
)
from referee.rules.cards import Card
from referee.rules.dealing import deal_cards, deck_for, hand_size
from referee.rules.projection import CardsPassed, HandDealt, SeatEvent

SUITS = "CDHS"


def _canonical(token: str) -> str:
    """The tests' shorthand ("10H", "2c") in the one form the referee reads ("TH", "2C")."""
    token = token.upper()
    return "T" + token[2:] if token.startswith("10") else token


def cards(text: str) -> tuple[int, ...]:
    """``cards("QS 10H C:AK")`` -> (Q♠, 10♥, A♣, K♣) as card ids, in the order written."""
    result: list[int] = []
    for token in text.split():
        if ":" in token:
            suit, ranks = token.split(":")
            result.extend(parse_card(_canonical(rank + suit)) for rank in ranks if rank != "-")
        else:
            result.append(parse_card(_canonical(token)))
    return tuple(result)


def card(text: str) -> int:
    (only,) = cards(text)
    return only


def names(ids: Sequence[int]) -> str:
    """The inverse of `cards` for plain lists: ``"QS TH"``."""
    return " ".join(card_name(c) for c in ids)


def name_set(ids: Sequence[int]) -> list[str]:
    """Card names sorted by id, for comparing legal sets whatever their order."""
    return [card_name(c) for c in sorted(ids)]


def deal(hands: Sequence[str], dealer: int | None = 0, kitty: str = "") -> DealSpec:
    return DealSpec(tuple(cards(h) for h in hands), cards(kitty), dealer)


def rotate(hands: Sequence[str], by: int) -> list[str]:
    """The same layout turned ``by`` seats clockwise: seat ``s`` gets what seat ``s - by`` had."""
    n = len(hands)
    return [hands[(seat - by) % n] for seat in range(n)]


def build_deal(
    ruleset: Ruleset,
    fixed: Mapping[int, str],
    *,
    dealer: int = 0,
    kitty: str | None = None,
    voids: Mapping[int, str] | None = None,
) -> DealSpec:
    """A deal in which seat ``s`` holds the cards ``fixed[s]`` (dealt first) and no filler of suits ``voids[s]``.

    The rest of the deck is shared out deterministically (lowest card ids first, most constrained seat first),
    so a test scripts only the tricks it is about and states only the voids its legality depends on. The
    kitty is given explicitly when its points matter, otherwise it is what is left over.
    """
    voids = voids or {}
    size = hand_size(ruleset)
    hands = {seat: list(cards(fixed.get(seat, ""))) for seat in range(ruleset.players)}
    rest = Counter(deck_for(ruleset)) - Counter(c for h in hands.values() for c in h)
    kitty_cards: list[int] = []
    if kitty is not None:
        kitty_cards = list(cards(kitty))
        rest -= Counter(kitty_cards)
    remaining = sorted(rest.elements())
    for seat in sorted(hands, key=lambda s: -len(voids.get(s, ""))):
        need = size - len(hands[seat])
        assert need >= 0, f"seat {seat} is given {len(hands[seat])} cards, more than {size}"
        void = voids.get(seat, "")
        take = [c for c in remaining if SUITS[c & 3] not in void][:need]
        assert len(take) == need, f"not enough cards outside {void} to fill seat {seat}"
        for c in take:
            remaining.remove(c)
        hands[seat].extend(take)
    if kitty is None:
        kitty_cards = remaining
    else:
        assert not remaining, f"cards left over: {names(remaining)}"
    return DealSpec(tuple(tuple(hands[s]) for s in range(ruleset.players)), tuple(kitty_cards), dealer)


def new_state(
    game: str,
    hands: Sequence[str] | DealSpec | Sequence[DealSpec],
    *,
    dealer: int = 0,
    kitty: str = "",
    players: int | None = None,
    options: Mapping[str, object] | None = None,
    seed: int = 0,
) -> GameState:
    """A game whose first deal (or first deals) is given."""
    ruleset = Ruleset.create(game, players, options)
    if isinstance(hands, DealSpec):
        specs: list[DealSpec] = [hands]
    elif hands and isinstance(hands[0], DealSpec):
        specs = list(hands)  # type: ignore[arg-type]
    else:
        specs = [deal(hands, dealer, kitty)]  # type: ignore[arg-type]
    return GameState(ruleset, seed=seed, deals=specs)


def kierki_at(
    number: int,
    spec: DealSpec | Sequence[str],
    *,
    dealer: int = 0,
    game: str = "kierki",
    options: Mapping[str, object] | None = None,
) -> GameState:
    """A Kierki match positioned at the start of deal ``number``, whose cards are ``spec``.

    The earlier deals are dealt from fixed seeds (with the dealer rotating so that deal ``number`` is dealt by
    ``dealer``) and played out with the referee's fallback choices.
    """
    ruleset = Ruleset.create(game, None, options)
    if not isinstance(spec, DealSpec):
        spec = deal(spec, dealer)
    n = ruleset.players
    dealer = spec.dealer if spec.dealer is not None else dealer
    earlier = [deal_cards(ruleset, (dealer - number + 1 + i) % n, random.Random(1000 + i)) for i in range(number - 1)]
    state = GameState(ruleset, seed=7, deals=[*earlier, DealSpec(spec.hands, spec.kitty, dealer)])
    while state.deal_number < number:
        state.apply(state.fallback_action())
    assert state.dealer == dealer
    return state


def play(state: GameState, text: str) -> list[Event]:
    """Play the given cards one after another, each by the seat whose turn it is."""
    events: list[Event] = []
    for c in cards(text):
        events.extend(state.apply(PlayCard(c), state.to_act))
    return events


def play_fallback(state: GameState, count: int) -> list[Event]:
    """Let the referee's fallback choose ``count`` times (the lowest legal card when playing)."""
    events: list[Event] = []
    for _ in range(count):
        events.extend(state.apply(state.fallback_action()))
    return events


def random_action(state: GameState, rng: random.Random) -> Action:
    """A legal decision for the seat to act, drawn with ``rng``: the random-play driver of the tests."""
    if state.phase is Phase.PLAY:
        return PlayCard(rng.choice(state.legal_plays()))
    if state.phase is Phase.PASS:
        return PassCards(tuple(rng.sample(state.hand(state.to_act), 3)))
    if state.phase is Phase.TRUMP:
        return ChooseTrump(rng.choice(state.trump_choices()))
    return ChooseMoon(rng.choice(list(MoonOption)))


def play_until(state: GameState, done: Callable[[GameState], bool], limit: int = 5000) -> None:
    for _ in range(limit):
        if done(state):
            return
        state.apply(state.fallback_action())
    raise AssertionError("play_until: the condition never came true")


def lead_and_follow(state: GameState, lead: str) -> TrickEnded:
    """The seat on lead plays ``lead``; everyone else plays the fallback (lowest legal) card."""
    play(state, lead)
    events: list[Event] = []
    while not any(isinstance(e, TrickEnded) for e in events):
        events.extend(state.apply(state.fallback_action()))
    return next(e for e in events if isinstance(e, TrickEnded))


def tricks_of(events: Sequence[Event]) -> list[TrickEnded]:
    return [e for e in events if isinstance(e, TrickEnded)]


def last_trick(state: GameState) -> TrickEnded:
    return tricks_of(state.events)[-1]


def deal_result(state: GameState, number: int) -> DealEnded:
    return next(r for r in state.deal_results if r.deal == number)


def deal_events(state: GameState, number: int) -> list[Event]:
    """The events of deal ``number``, from its DealStarted to just before the next DealStarted."""
    start = next(i for i, e in enumerate(state.events) if isinstance(e, DealStarted) and e.deal == number)
    end = next(
        (i for i, e in enumerate(state.events) if i > start and isinstance(e, DealStarted)),
        len(state.events),
    )
    return state.events[start:end]


def points(collected: Sequence[int]) -> int:
    """Hearts points: 1 a heart, 13 the Q♠."""
    return sum(1 if c & 3 == 2 else 13 if c == 43 else 0 for c in collected)


def snapshot(state: GameState) -> tuple[Any, ...]:
    """Everything observable about a state, to show that a refused action changed nothing."""
    return (
        tuple(state.observation(s) for s in range(state.players)),
        tuple(tuple(state.hand(s)) for s in range(state.players)),
        len(state.events),
        tuple(state.totals),
        state.phase,
        state.to_act,
        state.deal_number,
        state.trick_number,
        tuple(state.legal_plays()),
    )


def assert_illegal(state: GameState, action: object, rule: str, seat: int | None = None) -> IllegalActionError:
    """The action is refused naming ``rule``, and the state is exactly as it was."""
    before = snapshot(state)
    with pytest.raises(IllegalActionError) as caught:
        state.apply(action, seat)  # type: ignore[arg-type]
    assert caught.value.rule == rule, caught.value.message
    assert snapshot(state) == before
    return caught.value


def dump_deal_file(ruleset: Ruleset, deals: Sequence[DealSpec]) -> bytes:
    """A deal file (referee/dealfile.py, README 'Deal files') that gives these deals."""
    entries = [
        {
            "dealer": spec.dealer,
            "hands": [[card_name(c) for c in hand] for hand in spec.hands],
            "kitty": [card_name(c) for c in spec.kitty],
        }
        for spec in deals
    ]
    document = {
        "format": dealfile.FORMAT,
        "version": dealfile.VERSION,
        "game": ruleset.game.value,
        "players": ruleset.players,
        "deals": entries,
    }
    return msgspec.json.format(msgspec.json.encode(document), indent=1) + b"\n"


# Every field of each seat view (what ``project`` returns); a * marks those that hold cards. A view that gains a
# field fails ``view_cards`` until it is listed here, so a new field cannot carry cards past the visibility tests.
VIEW_FIELDS: dict[type, str] = {
    HandDealt: "deal kind dealer *hand trump pass_offset kitty_size",
    CardsPassed: "deal pass_offset *sent *received giver *hand",
    CardPlayed: "seat *card deal",
    LotteryPassed: "seat deal",
    TrickView: "number leader *plays winner deal",
    PlayerOut: "seat place bonus deal",
    DealEnded: "deal kind scores totals early moon",  # moon: a seat and its option
    GameEnded: "totals places",
}


def view_cards(view: SeatEvent) -> list[Card]:
    """Every card a seat view shows (a card shown twice counts twice)."""
    listed = VIEW_FIELDS[type(view)].split()
    known = [f.name for f in fields(view)]
    assert [n.lstrip("*") for n in listed] == known, f"{type(view).__name__} has fields {known}: list them here"
    shown: list[Card] = []
    for name in (n[1:] for n in listed if n.startswith("*")):
        value = getattr(view, name)
        if name == "card":
            shown.append(value)
        elif name == "plays":
            shown.extend(card for _, card in value)
        else:
            shown.extend(value)
    return shown
