"""Sampled worlds: whole tables dealt consistently with what this seat has seen, ready to play out.

- **One deck, a card to play** (Kierki, Kierki for 3, Hearts): ``rules.sample_state`` deals the unseen cards,
  keeping every void shown, the cards this seat passed with their receiver, and each hand's size.
- **Two decks, a card to play** (Cancellation Hearts): the rules core samples only one-deck games yet, so the deal
  is rebuilt from its start with the public API: unseen cards are dealt to the other hands and the kitty within
  what the tricks showed (voids; a heart led before hearts were broken, or a point card led or thrown to the
  first trick, shows a hand of nothing else), every other seat is given a pass consistent with it, and
  ``GameState(ruleset, deals=...)`` replays the passes and every card played. A world the replay refuses is
  drawn again.
- **A pass** (Hearts, Cancellation) and **a trump** (Kierki): the deal as it would start after the decision,
  with the cards not yet seen dealt at random and the other seats passing by the rule of thumb in ``passing``.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from typing import Final

import referee.rules as rules
from sample_bots.montecarlo.knowledge import HEARTS, QUEEN_OF_SPADES
from sample_bots.montecarlo.passing import rule_of_thumb_pass

TWO_OF_CLUBS: Final = 0
SUIT_MASKS: Final = tuple(sum(1 << (rank * 4 + suit) for rank in range(13)) for suit in range(4))
ALL_CARDS: Final = (1 << 52) - 1
POINT_CARDS: Final = SUIT_MASKS[HEARTS] | 1 << QUEEN_OF_SPADES
_DEAL_TRIES: Final = 30
_KITTY_TRIES: Final = 200


class NoWorld(Exception):
    """No world consistent with what was seen was found this time (the caller draws again or falls back)."""


def deck(game: rules.Game) -> list[int]:
    if game is rules.Game.CANCELLATION:
        return [c for c in range(52) for _ in range(2)]
    if game is rules.Game.KIERKI3:
        return list(range(1, 52))  # no 2♣
    return list(range(52))


def one_deck_play(ruleset: rules.Ruleset, seen: rules.Observation, rng: random.Random) -> rules.GameState:
    return rules.sample_state(ruleset, seen, rng)


# --- Cancellation Hearts: the deal rebuilt from its start -----------------------------------------------------


def _allowed_cards(ruleset: rules.Ruleset, seen: rules.Observation) -> list[int]:
    """Per seat, the cards it may still hold, from how it played (the inferences a replay needs to be legal)."""
    allowed = [ALL_CARDS] * seen.players
    broken = False
    all_plays = [(t.number, t.plays) for t in seen.tricks] + [(len(seen.tricks) + 1, seen.trick)]
    for number, plays in all_plays:
        if not plays:
            continue
        leader, lead = plays[0]
        led = lead & 3
        if number == 1 and 1 << lead & POINT_CARDS:
            allowed[leader] &= POINT_CARDS  # the first lead is a point card only from a hand of nothing else
        elif lead & 3 == HEARTS and not broken:
            allowed[leader] &= POINT_CARDS  # a heart led before hearts broke: a hand of hearts (and Q♠) only
        for seat, played in plays:
            if played & 3 != led:
                allowed[seat] &= ~SUIT_MASKS[led]
                if number == 1 and ruleset.first_trick_no_points and 1 << played & POINT_CARDS:
                    allowed[seat] &= POINT_CARDS
            if played & 3 == HEARTS or (played == QUEEN_OF_SPADES and ruleset.qs_breaks_hearts):
                broken = True
    return allowed


def _deal_within(pool: list[int], room: list[int], allowed: list[int], rng: random.Random) -> list[list[int]]:
    """Give each target ``room[i]`` cards of ``pool`` it is ``allowed``, at random; most constrained cards first."""
    for _ in range(_DEAL_TRIES):
        order = list(pool)
        rng.shuffle(order)
        order.sort(key=lambda c: sum(1 for a in allowed if a >> c & 1))
        left = list(room)
        dealt: list[list[int]] = [[] for _ in room]
        for c in order:
            targets = [i for i, a in enumerate(allowed) if left[i] and a >> c & 1]
            if not targets:
                break
            pick = rng.random() * sum(left[i] for i in targets)
            chosen = targets[-1]
            for i in targets:
                pick -= left[i]
                if pick < 0:
                    chosen = i
                    break
            left[chosen] -= 1
            dealt[chosen].append(c)
        else:
            return dealt
    raise NoWorld("the unseen cards would not fit the voids seen")


def _points(cards: Sequence[int]) -> int:
    return sum(1 if c & 3 == HEARTS else 13 if c == QUEEN_OF_SPADES else 0 for c in cards)


def _kitty(unseen: list[int], seen: rules.Observation, rng: random.Random) -> list[int]:
    """The kitty's cards, drawn from ``unseen``. Once collected its points are known: the deal's scores less the
    points of the tricks collected with it (every trick up to the last one that had a winner)."""
    size = 104 % seen.players  # as dealt (the observation's kitty_size is what is still uncollected)
    if not size:
        return []
    won = [i for i, t in enumerate(seen.tricks) if t.winner is not None]
    if not won:
        return rng.sample(unseen, size)
    collected = [c for t in seen.tricks[: won[-1] + 1] for _, c in t.plays]
    wanted = sum(seen.deal_scores) - _points(collected)
    for _ in range(_KITTY_TRIES):
        kitty = rng.sample(unseen, size)
        if _points(kitty) == wanted:
            return kitty
    raise NoWorld(f"no kitty of {size} unseen cards worth {wanted} points was drawn")


def _replay_ruleset(ruleset: rules.Ruleset, offset: int) -> rules.Ruleset:
    """The ruleset whose first deal passes by ``offset`` (a replayed deal is always deal 1 of its game)."""
    passing = "none" if not offset else "left" if offset == 1 else "right"
    return rules.Ruleset.create(ruleset.game, ruleset.players, {**ruleset.options(), "passing": passing})


def cancellation_play(ruleset: rules.Ruleset, seen: rules.Observation, rng: random.Random) -> rules.GameState:
    """A Cancellation Hearts position like ``seen``, with the unseen cards dealt anew (see the module's doc)."""
    n, me, offset = seen.players, seen.seat, seen.pass_offset
    played_by: list[list[int]] = [[] for _ in range(n)]
    for plays in [t.plays for t in seen.tricks] + [seen.trick]:
        for seat, c in plays:
            played_by[seat].append(c)
    pool = Counter(deck(rules.Game.CANCELLATION))
    pool.subtract(seen.hand)
    for own in played_by:
        pool.subtract(own)
    receiver = (me + offset) % n
    pinned: Counter[int] = Counter()
    if offset:
        pinned = Counter(seen.passed) - Counter(played_by[receiver])  # what I passed and it has not played yet
        pool.subtract(pinned)
    if any(count < 0 for count in pool.values()):
        raise NoWorld("the cards seen are more than two decks hold")
    others = [s for s in range(n) if s != me]
    room = [seen.hand_sizes[s] - (pinned.total() if s == receiver and offset else 0) for s in others]
    unseen = list(pool.elements())
    kitty = _kitty(unseen, seen, rng)
    for c in kitty:
        unseen.remove(c)
    allowed = _allowed_cards(ruleset, seen)
    dealt = _deal_within(unseen, room, [allowed[s] for s in others], rng)
    post = [list(seen.hand) + played_by[me]] * n
    for i, s in enumerate(others):
        post[s] = dealt[i] + played_by[s] + (list(pinned.elements()) if s == receiver and offset else [])
    sent: list[list[int]] = [[] for _ in range(n)]
    if offset:
        passer = (me - offset) % n
        sent[me] = list(seen.passed)
        sent[passer] = list(seen.received)
        for target in range(n):
            sender = (target - offset) % n
            if sender not in (me, passer):
                sent[sender] = rng.sample(post[target], len(seen.passed) or 3)
    received = [sent[(s - offset) % n] for s in range(n)]
    hands = []
    for s in range(n):
        hand = Counter(post[s])
        hand.subtract(received[s])
        hand.update(sent[s])
        hands.append(tuple(hand.elements()))
    spec = rules.DealSpec(tuple(hands), tuple(kitty), seen.dealer)
    return replay(_replay_ruleset(ruleset, offset), spec, sent, [t.plays for t in seen.tricks] + [seen.trick], me)


def replay(
    ruleset: rules.Ruleset,
    spec: rules.DealSpec,
    sent: Sequence[Sequence[int]],
    tricks: Sequence[Sequence[tuple[int, int]]],
    to_act: int,
) -> rules.GameState:
    """The deal of ``spec``, its passes made and the cards of ``tricks`` played, through the rules' ``apply``;
    ``to_act`` is the seat whose turn it must then be."""
    try:
        state = rules.GameState(ruleset, deals=(spec,))
        while state.phase is rules.Phase.PASS:
            state.apply(rules.PassCards(tuple(sent[state.to_act])))
        for plays in tricks:
            for seat, c in plays:
                state.apply(rules.PlayCard(c), seat)
    except rules.RulesError as error:
        raise NoWorld(f"the replay refused the sampled deal: {error}") from None
    if state.to_act != to_act or state.phase is not rules.Phase.PLAY:
        raise NoWorld("the replay did not reach the seat whose turn it is")
    return state


# --- before the play: a pass or a trump ------------------------------------------------------------------------


def hearts_after_pass(
    ruleset: rules.Ruleset,
    table_seat: int,
    deal: int,
    dealer: int,
    offset: int,
    hand: Sequence[int],
    mine: Sequence[int],
    received: Sequence[int],
    rng: random.Random,
) -> rules.GameState:
    """Hearts after this seat passed ``mine`` and received ``received``: the others' cards dealt at random (what this
    seat passed stays with its receiver), the 2♣ led by whoever holds it."""
    n = ruleset.players
    after = [c for c in hand if c not in mine] + list(received)
    receiver = (table_seat + offset) % n
    if TWO_OF_CLUBS in after:
        holder = table_seat
    elif TWO_OF_CLUBS in mine:
        holder = receiver
    else:
        holder = rng.choice([s for s in range(n) if s != table_seat])
    sizes = [len(after)] * n
    trick: tuple[tuple[int, int], ...] = ()
    to_act = holder
    if holder != table_seat:
        trick = ((holder, TWO_OF_CLUBS),)
        sizes[holder] -= 1
        to_act = (holder + 1) % n
    seen = start_of_play(ruleset, table_seat, deal, dealer, rules.DealKind.HEARTS, after, None)
    seen = _with(
        seen,
        hand_sizes=tuple(sizes),
        to_act=to_act,
        trick_leader=holder,
        trick=trick,
        pass_offset=offset,
        passed=tuple(mine),
        received=tuple(received),
    )
    return rules.sample_state(ruleset, seen, rng)


def cancellation_after_pass(
    ruleset: rules.Ruleset,
    seat: int,
    dealer: int,
    offset: int,
    hand: Sequence[int],
    kitty_size: int,
    mine: Sequence[int],
    rng: random.Random,
) -> rules.GameState:
    """Cancellation Hearts after every seat passed: the others' hands and the kitty dealt at random from the unseen
    cards, each other seat passing by the rule of thumb, this seat passing ``mine``."""
    n = ruleset.players
    pool = Counter(deck(rules.Game.CANCELLATION))
    pool.subtract(hand)
    unseen = list(pool.elements())
    rng.shuffle(unseen)
    size = len(hand)
    hands: list[tuple[int, ...]] = []
    sent: list[list[int]] = []
    at = 0
    for s in range(n):
        if s == seat:
            hands.append(tuple(hand))
            sent.append(list(mine))
            continue
        dealt = tuple(unseen[at : at + size])
        at += size
        hands.append(dealt)
        sent.append(rule_of_thumb_pass(list(dealt), 3) if offset else [])
    kitty = tuple(unseen[at : at + kitty_size])
    spec = rules.DealSpec(tuple(hands), kitty, dealer)
    return replay(_replay_ruleset(ruleset, offset), spec, sent, (), (dealer + 1) % n)


def trump_deal(
    ruleset: rules.Ruleset,
    seat: int,
    deal: int,
    seen_cards: Sequence[int],
    suit: int | None,
    rng: random.Random,
) -> rules.GameState:
    """A trump deal whose dealer (this seat) saw ``seen_cards`` and named ``suit``: the rest dealt at random."""
    size = 13 if ruleset.game is rules.Game.KIERKI else 17
    unseen = [c for c in deck(ruleset.game) if c not in seen_cards]
    hand = list(seen_cards) + rng.sample(unseen, size - len(seen_cards))
    seen = start_of_play(ruleset, seat, deal, seat, rules.DealKind.TRUMP, hand, suit)
    return rules.sample_state(ruleset, seen, rng)


def start_of_play(
    ruleset: rules.Ruleset,
    seat: int,
    deal: int,
    dealer: int,
    kind: rules.DealKind,
    hand: Sequence[int],
    trump: int | None,
) -> rules.Observation:
    """What ``seat`` would see at the first card of a deal it holds ``hand`` in (the others to be sampled)."""
    n = ruleset.players
    leader = (dealer + 1) % n
    return rules.Observation(
        game=ruleset.game,
        players=n,
        seat=seat,
        deal=deal,
        kind=kind,
        dealer=dealer,
        phase=rules.Phase.PLAY,
        to_act=leader,
        hand=tuple(hand),
        hand_sizes=(len(hand),) * n,
        trump=trump,
        trump_named=kind is rules.DealKind.TRUMP,
        pass_offset=0,
        passed=(),
        received=(),
        trick_leader=leader,
        trick=(),
        tricks=(),
        deal_scores=(0,) * n,
        totals=(0,) * n,
        legal=(),
        lottery_start_rank=None,
        lottery_columns=(None, None, None, None),
        lottery_finished=(),
        kitty_size=0,
        pending_cards=0,
        moon_options=None,
        hearts_broken=False,
    )


def _with(seen: rules.Observation, **changes: object) -> rules.Observation:
    return replace(seen, **changes)  # type: ignore[arg-type]
