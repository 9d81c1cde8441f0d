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

import struct
from collections.abc import Sequence
from typing import Final

from referee.rules.cards import card_list
from referee.rules.legality import legal_mask
from referee.rules.observation import exchange_seen, moon_projection, tricks_seen, trump_cards_seen
from referee.rules.records import DealKind, MoonOption, Phase
from referee.rules.table import Table, TrickView

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

# The vector is float32 little-endian, made by joining ready-made pieces of bytes: a card section (52 elements) from
# its mask, 13 cards at a time, a one-hot section from its index. Joining bytes is an
# order of magnitude cheaper than storing each 1.0 into an array("f") (which parses its argument every time) or
# a byte at a time into a bytearray (callgrind; BENCHMARKS.md, "The learning environment").
_FLOAT_0: Final = bytes(4)
_FLOAT_1: Final = struct.pack("<f", 1.0)
_FLOAT_2_HIGH: Final = struct.pack("<f", 2.0)[3]
_CHUNKS: Final[list[bytes | None]] = [None] * (1 << 13)  # 13 cards' elements by their 13 bits, made when first met
_NO_CARDS: Final = bytes(4 * N_CARDS)
_POPCOUNT: Final = [bin(bits).count("1") for bits in range(1 << 13)]
_SECTIONS: Final = ("hand", "pass_selected", "passed", "received", "trick", "played", "table", "phase", "kind")
_SECTIONS_AFTER: Final = ("trump", "dealer", "to_act", "leader", "pass_direction", "lottery_start", "numbers")


def _one_hot(width: int) -> list[bytes]:
    """The section of ``width`` elements with a 1 at each index, and (at index ``width``) the section of none."""
    return [_FLOAT_0 * i + _FLOAT_1 + _FLOAT_0 * (width - i - 1) for i in range(width)] + [_FLOAT_0 * width]


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
        n = (starts[5] - starts[4]) // N_CARDS  # the trick section: one block per seat
        widths = [N_CARDS] * 4 + [n * N_CARDS] * 2 + [N_CARDS, len(PHASES), len(KINDS), 4] + [n] * 4 + [13]
        if len(starts) != 16 or any(starts[i + 1] - starts[i] != w for i, w in enumerate(widths)):
            raise ValueError(f"the sections must lie in {_SECTIONS + _SECTIONS_AFTER}'s order: {list(starts)}")
        self.players = n
        self.numbers = starts[15]
        self.size = size
        self.numbers_struct = struct.Struct(f"<{size - self.numbers}f")
        self.phases = _one_hot(len(PHASES))
        self.kinds = _one_hot(len(KINDS))
        self.trumps = _one_hot(4)  # index 4: no trump
        self.seats = _one_hot(n)  # index n: no seat
        self.ranks = _one_hot(13)  # index 13: no rank
        self.inverse_hand = 1 / hand_size
        self.deck_size = deck_size
        self.scale = scale
        self.allow_no_trump = allow_no_trump


def _chunk(bits: int) -> bytes:
    piece = _CHUNKS[bits]
    if piece is None:
        piece = b"".join(_FLOAT_1 if bits >> k & 1 else _FLOAT_0 for k in range(13))
        _CHUNKS[bits] = piece
    return piece


def _cards(parts: list[bytes], mask: int) -> None:
    """A card section of the vector from its mask, 13 cards at a time."""
    if not mask:
        parts.append(_NO_CARDS)
        return
    parts.append(_chunk(mask & 8191))
    parts.append(_chunk(mask >> 13 & 8191))
    parts.append(_chunk(mask >> 26 & 8191))
    parts.append(_chunk(mask >> 39))


def _index(values: tuple[object, ...], value: object) -> int:
    for i in range(len(values)):
        if values[i] is value:
            return i
    raise ValueError(f"{value!r} is not one of {values}")


def _mask(cards: Sequence[int], base: int, twos: list[int]) -> int:
    """The mask of ``cards``; a card there twice (two decks) goes to ``twos`` as ``base + card``."""
    mask = 0
    for card in cards:
        bit = 1 << card
        if mask & bit:
            twos.append(base + card)
        else:
            mask |= bit
    return mask


def _played(views: Sequence[TrickView], seat: int, base: int, twos: list[int]) -> int:
    """The cards ``seat`` played to the finished tricks ``views`` (a card played twice goes to ``twos``)."""
    mask = 0
    for view in views:
        plays = view.plays
        n = len(plays)
        for i in range(n):
            s, card = plays[(seat - view.leader + i) % n]  # (its own card comes first, in a trick of every seat)
            if s == seat:
                bit = 1 << card
                if mask & bit:
                    twos.append(base + card)
                else:
                    mask |= bit
                break
    return mask


def seat_vector(
    layout: VectorLayout, table: Table, totals: Sequence[int], seat: int, selected: Sequence[int]
) -> bytearray:
    """The observation vector of ``seat`` (``encoding.encode`` of its `Observation`) as float32 little-endian bytes,
    with ``selected`` the cards it has chosen so far in a pass it is making (empty otherwise)."""
    n = layout.players
    parts: list[bytes] = []
    twos: list[int] = []  # the elements that hold 2 (Cancellation Hearts' second copies)
    phase = table.phase
    trump_phase = phase is _TRUMP
    # The cards: the seat's hand (while trump is named, the dealer's first cards only, nobody else's).
    if trump_phase:
        _cards(parts, _mask(trump_cards_seen(table), 0, twos) if seat == table.dealer else 0)
    else:
        _cards(parts, table.hands[seat])
        if table.doubles[seat]:
            twos.extend(card_list(table.doubles[seat]))
    _cards(parts, _mask(selected, N_CARDS, twos))
    offset, sent, received = exchange_seen(table, seat)
    _cards(parts, _mask(sent, 2 * N_CARDS, twos))
    _cards(parts, _mask(received, 3 * N_CARDS, twos))
    plays = table.plays
    for k in range(n):
        s = (seat + k) % n
        mask = 0
        for who, card in plays:
            if who == s:
                mask |= 1 << card
        _cards(parts, mask)
    views = tricks_seen(table)
    base = (4 + n) * N_CARDS
    for k in range(n):
        _cards(parts, _played(views, (seat + k) % n, base + k * N_CARDS, twos) if views else 0)
    mask = 0
    for suit in range(4):
        column = table.columns[suit]
        if column is not None:
            for rank in range(column[0], column[1] + 1):
                mask |= 1 << (rank * 4 + suit)
    _cards(parts, mask)
    # The one-hot sections.
    parts.append(layout.phases[_index(PHASES, phase)])
    kind = table.kind
    parts.append(layout.kinds[_index(KINDS, kind)])
    trump = table.trump
    parts.append(layout.trumps[4 if trump is None else trump])
    seats = layout.seats
    parts.append(seats[(table.dealer - seat) % n])
    to_act = table.to_act
    parts.append(seats[(to_act - seat) % n if to_act >= 0 else n])
    parts.append(seats[(table.leader - seat) % n if phase is _PLAY and kind is not _LOTTERY else n])
    parts.append(seats[offset])
    start = table.start_rank
    parts.append(layout.ranks[13 if start is None else start])
    # The real numbers, relative seat by relative seat, clipped: as ``encoding.encode`` computes them.
    inverse_hand = layout.inverse_hand
    scale = layout.scale
    scores = table.scores
    order = [(seat + k) % n for k in range(n)]
    if trump_phase:
        numbers = [0.0] * n
    else:
        hands, doubles = table.hands, table.doubles
        numbers = [(_held(hands[s]) + _held(doubles[s])) * inverse_hand for s in order]
    numbers += [scores[s] * scale for s in order]
    numbers += [totals[s] * scale for s in order]
    if phase is _MOON and seat == to_act:
        moon = moon_projection(table, totals)
        own, others = moon[_SELF], moon[_OTHERS]
        numbers += [own[s] * scale for s in order]
        numbers += [others[s] * scale for s in order]
    else:
        numbers += [0.0] * (2 * n)
    numbers += [len(views) * inverse_hand, len(table.kitty) / 8, len(table.pending) / layout.deck_size]
    parts.append(layout.numbers_struct.pack(*[_clip(x) for x in numbers]))
    vector = bytearray(b"").join(parts)
    for index in twos:  # 2.0 is 00 00 00 40 where 1.0 is 00 00 80 3F
        vector[4 * index + 2] = 0
        vector[4 * index + 3] = _FLOAT_2_HIGH
    return vector


def _held(mask: int) -> int:
    """The cards in a mask (``int.bit_count``, which the compiled build calls as a Python method)."""
    if not mask:
        return 0
    count = _POPCOUNT
    return count[mask & 8191] + count[mask >> 13 & 8191] + count[mask >> 26 & 8191] + count[mask >> 39]


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
        return mask
    if phase is _PASS:
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
