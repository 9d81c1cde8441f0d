"""One seat's observation as the learning environments' flat vector and action mask, read from the deal's table.

``referee.learning.encoding`` defines the vector (its sections, in `VectorLayout`'s order) as a function of the
seat's `Observation`; this module writes the same numbers straight from the table, the totals and the seat, so
that an environment step builds no `Observation` (compiled with the rules core, it is a small part of the cost
of ``observe``; BENCHMARKS.md, "The learning environment"). It reads only what ``observation.observe`` gives that
seat (its own hand, the trick, the finished tricks' views, its own pass, the loteryjka's columns, the public
counts), through the same helpers, and tests/test_learning_features.py checks at every step of many games of every
game that its vector and mask are exactly the encoding of ``observe``'s `Observation`.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from typing import Final

from referee.rules.cards import card_list
from referee.rules.legality import legal_mask
from referee.rules.observation import exchange_seen, moon_projection, tricks_seen, trump_cards_seen
from referee.rules.records import DealKind, MoonOption, Phase
from referee.rules.table import Table

N_CARDS: Final = 52
N_ACTIONS: Final = 59  # 52 cards, 4 trump suits, no trump, the moon's two options
TRUMP_ACTION: Final = 52
NO_TRUMP_ACTION: Final = 56
MOON_SELF_ACTION: Final = 57
MOON_OTHERS_ACTION: Final = 58
SCORE_CLIP: Final = 8.0

PHASES: Final = (Phase.PASS, Phase.TRUMP, Phase.PLAY, Phase.MOON, Phase.OVER)
KINDS: Final = tuple(DealKind)

_PLAY: Final = Phase.PLAY
_PASS: Final = Phase.PASS
_TRUMP: Final = Phase.TRUMP
_MOON: Final = Phase.MOON
_OVER: Final = Phase.OVER
_LOTTERY: Final = DealKind.LOTTERY
_SELF: Final = MoonOption.SELF
_OTHERS: Final = MoonOption.OTHERS
_TRUMP_ACTIONS: Final = b"\1\1\1\1"
_MOON_ACTIONS: Final = b"\1\1"


class VectorLayout:
    """Where each section of the vector starts (``encoding.Layout`` makes one from its slices), and the scales."""

    def __init__(
        self,
        starts: Sequence[int],
        size: int,
        hand_size: int,
        deck_size: int,
        scale: float,
        allow_no_trump: bool,
    ) -> None:
        (
            self.hand,
            self.pass_selected,
            self.passed,
            self.received,
            self.trick,
            self.played,
            self.table,
            self.phase,
            self.kind,
            self.trump,
            self.dealer,
            self.to_act,
            self.leader,
            self.pass_direction,
            self.lottery_start,
            self.numbers,
        ) = starts
        self.size = size
        self.zeros = bytes(4 * size)
        self.inverse_hand = 1 / hand_size
        self.deck_size = deck_size
        self.scale = scale
        self.allow_no_trump = allow_no_trump


def _set_bits(vector: array[float], base: int, mask: int) -> None:
    while mask:
        low = mask & -mask
        vector[base + low.bit_length() - 1] = 1.0
        mask ^= low


def _add_cards(vector: array[float], base: int, cards: Sequence[int]) -> None:
    for card in cards:
        vector[base + card] += 1.0


def seat_vector(
    layout: VectorLayout, table: Table, totals: Sequence[int], seat: int, selected: Sequence[int]
) -> array[float]:
    """The observation vector of ``seat`` (``encoding.encode`` of its `Observation`), with ``selected`` the cards
    it has chosen so far in a pass it is making (empty otherwise)."""
    n = table.flags.players
    vector = array("f", layout.zeros)
    phase = table.phase
    trump_phase = phase is _TRUMP
    double_deck = table.flags.double_deck
    # The cards: the seat's hand (while trump is named, the dealer's first cards only, nobody else's).
    if trump_phase:
        if seat == table.dealer:
            _add_cards(vector, layout.hand, trump_cards_seen(table))
    else:
        _set_bits(vector, layout.hand, table.hands[seat])
        if double_deck:
            _add_cards(vector, layout.hand, card_list(table.doubles[seat]))
    _add_cards(vector, layout.pass_selected, selected)
    offset, sent, received = exchange_seen(table, seat)
    _add_cards(vector, layout.passed, sent)
    _add_cards(vector, layout.received, received)
    base = layout.trick
    for s, card in table.plays:
        vector[base + (s - seat) % n * N_CARDS + card] = 1.0
    views = tricks_seen(table)
    base = layout.played
    if double_deck:
        for view in views:
            for s, card in view.plays:
                vector[base + (s - seat) % n * N_CARDS + card] += 1.0
    else:
        played = [0] * n
        for view in views:
            for s, card in view.plays:
                played[s] |= 1 << card
        for s in range(n):
            _set_bits(vector, base + (s - seat) % n * N_CARDS, played[s])
    base = layout.table
    for suit in range(4):
        column = table.columns[suit]
        if column is not None:
            for rank in range(column[0], column[1] + 1):
                vector[base + rank * 4 + suit] = 1.0
    # The one-hot sections.
    vector[layout.phase + PHASES.index(phase)] = 1.0
    kind = table.kind
    vector[layout.kind + KINDS.index(kind)] = 1.0
    trump = table.trump
    if trump is not None:
        vector[layout.trump + trump] = 1.0
    vector[layout.dealer + (table.dealer - seat) % n] = 1.0
    to_act = table.to_act
    if to_act >= 0:
        vector[layout.to_act + (to_act - seat) % n] = 1.0
    if phase is _PLAY and kind is not _LOTTERY:
        vector[layout.leader + (table.leader - seat) % n] = 1.0
    vector[layout.pass_direction + offset] = 1.0
    if table.start_rank is not None:
        vector[layout.lottery_start + table.start_rank] = 1.0
    # The real numbers, relative seat by relative seat, clipped: as ``encoding.encode`` computes them.
    at = layout.numbers
    inverse_hand = layout.inverse_hand
    scale = layout.scale
    scores = table.scores
    moon = None
    if phase is _MOON and seat == to_act:
        moon = moon_projection(table, totals)
    for k in range(n):
        s = (seat + k) % n
        held = 0 if trump_phase else table.hands[s].bit_count() + table.doubles[s].bit_count()
        vector[at + k] = _clip(held * inverse_hand)
        vector[at + n + k] = _clip(scores[s] * scale)
        vector[at + 2 * n + k] = _clip(totals[s] * scale)
        if moon is not None:
            vector[at + 3 * n + k] = _clip(moon[_SELF][s] * scale)
            vector[at + 4 * n + k] = _clip(moon[_OTHERS][s] * scale)
    at += 5 * n
    vector[at] = len(views) * inverse_hand
    vector[at + 1] = len(table.kitty) / 8
    vector[at + 2] = len(table.pending) / layout.deck_size
    return vector


def _clip(x: float) -> float:
    return -SCORE_CLIP if x < -SCORE_CLIP else SCORE_CLIP if x > SCORE_CLIP else x


def action_mask(layout: VectorLayout, table: Table, seat: int, selected: Sequence[int]) -> bytearray:
    """1 for each action ``seat`` may take now (``encoding.legal_bytes`` of its `Observation`); all 0 when it is
    not that seat's turn."""
    mask = bytearray(N_ACTIONS)
    if seat != table.to_act:
        return mask
    phase = table.phase
    if phase is _PLAY:
        legal = legal_mask(table)
        while legal:
            low = legal & -legal
            mask[low.bit_length() - 1] = 1
            legal ^= low
    elif phase is _PASS:
        left = table.hand(seat)
        for card in selected:
            left.remove(card)
        for card in left:
            mask[card] = 1
    elif phase is _TRUMP:
        mask[TRUMP_ACTION : TRUMP_ACTION + 4] = _TRUMP_ACTIONS
        if layout.allow_no_trump:
            mask[NO_TRUMP_ACTION] = 1
    elif phase is _MOON:
        mask[MOON_SELF_ACTION : MOON_OTHERS_ACTION + 1] = _MOON_ACTIONS
    return mask
