"""One seat's rules-core `Observation` as fixed-shape arrays, and the actions as one `Discrete` space.

Everything here is a function of an `Observation` (and of the seat's own pass choices not yet sent), never of a
`GameState`: the environment and the protocol bot of ``referee.learning.bot`` both call `encode` on an
`Observation`, one made by the rules core and one rebuilt from the messages the seat received, so a policy sees
the same arrays in training and on the ladder, and it can only ever see what the rules core lets that seat see.

The observation is a ``dict`` of two arrays, PettingZoo's convention for games with illegal moves:

- ``"observation"``: a ``float32`` vector whose layout `Layout` names, section by section (``layout.slices``).
  Seats are **relative** to the observer: index 0 is the seat itself, 1 the seat on its left (the next to play),
  and so on, so one policy serves every seat. Cards are indexed by the rules core's card id (``rank * 4 + suit``,
  2♣ = 0, A♠ = 51); card sections hold how many copies (0, 1, or in Cancellation Hearts 2).
- ``"action_mask"``: an ``int8`` vector over the actions, 1 where the action is legal now (all 0 for a seat that
  is not to act).

The actions (``N_ACTIONS`` = 59, the same for every game):

- ``0``-``51``: a card, by its id: the card to play, or one card of a pass. **A pass is three steps**: the seat
  passing chooses one card per step (the ``pass_selected`` section shows those chosen so far, and the mask leaves
  them out), and the three go to the rules core together after the third.
- ``52``-``55``: name trump ♣ ♦ ♥ ♠ (Kierki trump deals, the dealer only); ``56``: no trump (option
  ``allow_no_trump``).
- ``57``: the moon's ``self`` (take the moon value off your own total), ``58``: ``others`` (add it to every other).
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from referee.rules import Card, DealKind, Game, GameState, MoonOption, Observation, Phase, Ruleset
from referee.rules.features import (
    KINDS,
    MOON_OTHERS_ACTION,
    MOON_SELF_ACTION,
    N_ACTIONS,
    N_CARDS,
    NO_TRUMP_ACTION,
    PHASES,
    SCORE_CLIP,
    TRUMP_ACTION,
    VectorLayout,
)

# The actions (the trump actions are TRUMP_ACTION + suit, 0 clubs ... 3 spades), the phases' and the kinds' order,
# and the clip of scaled scores to [-8, 8] (far beyond any real game: see `score_scale`) are the rules core's,
# whose `features` writes this module's vector straight from the table.
PASS_COUNT: Final = 3  # cards in a pass (PROTOCOL.md: a pass request's ``count``)

__all__ = [
    "KINDS",
    "MOON_OTHERS_ACTION",
    "MOON_SELF_ACTION",
    "NO_TRUMP_ACTION",
    "N_ACTIONS",
    "N_CARDS",
    "PASS_COUNT",
    "PHASES",
    "SCORE_CLIP",
    "TRUMP_ACTION",
    "Encoded",
    "FloatArray",
    "Layout",
    "MaskArray",
    "encode",
    "legal_bytes",
    "legal_mask",
    "score_scale",
]

FloatArray = npt.NDArray[np.float32]
MaskArray = npt.NDArray[np.int8]
Encoded = dict[str, npt.NDArray[np.generic]]


def score_scale(ruleset: Ruleset) -> float:
    """Points are multiplied by this in the observation: 1/1000 in Kierki (a whole match stays within about
    ±2.6), 1/target (at least 1/26) in the Hearts games (a total ends the game near 1)."""
    if ruleset.game in (Game.KIERKI, Game.KIERKI3):
        return 1 / 1000
    return 1 / max(ruleset.target, 26)


@dataclass(frozen=True)
class Layout:
    """Where each section of the observation vector lies, for one game and player count.

    The sections, in order (``n`` is the number of players; "relative" seats start at the observer):

    ====================  ========  =============================================================================
    ``hand``              52        the cards held (while trump is being named: the dealer's first 5 or 6)
    ``pass_selected``     52        the cards this seat has chosen so far in the pass it is making
    ``passed``            52        the cards this seat passed in this deal
    ``received``          52        the cards passed to this seat in this deal
    ``trick``             n × 52    the trick in progress, one 52-block per relative seat: the card it played
    ``played``            n × 52    this deal's finished tricks: the cards each relative seat played
    ``table``             52        the loteryjka: the cards laid in its columns
    ``phase``             5         pass, trump, play, moon, over
    ``kind``              11        the deal's kind (``DealKind`` in declaration order)
    ``trump``             4         the trump suit (none: no trump, or not a trump deal)
    ``dealer``            n         the dealer, relative
    ``to_act``            n         the seat to act, relative (none once the game is over)
    ``leader``            n         who led the trick in progress, relative (play phase, not the loteryjka)
    ``pass_direction``    n         where this deal passes: index 0 none, 1 left, ``n - 1`` right, 2 across
    ``lottery_start``     13        the loteryjka's start rank, once set
    ``hand_sizes``        n         each relative seat's cards, / hand size
    ``deal_scores``       n         each relative seat's points in this deal, × `score_scale`
    ``totals``            n         each relative seat's game total before this deal's end, × `score_scale`
    ``moon``              2n        the moon's outcomes (totals after ``self``, then after ``others``), × scale
    ``progress``          3         tricks finished / tricks per deal, kitty cards / 8, cards pending / deck
    ====================  ========  =============================================================================
    """

    ruleset: Ruleset
    players: int
    hand_size: int
    deck_size: int
    slices: dict[str, slice]
    size: int
    counts_end: int  # sections before this offset hold small whole numbers (counts and flags)
    max_count: int  # copies of a card: 2 in Cancellation Hearts, else 1
    zeros: bytes  # the observation of nothing, as float32 bytes (a new observation starts as a copy)
    scale: float  # `score_scale`
    relative: tuple[tuple[int, ...], ...]  # relative[me][k]: the seat k places to the left of seat me
    features: VectorLayout  # the same layout for the rules core's `features`, which writes it from the table

    @classmethod
    def of(cls, ruleset: Ruleset) -> Layout:
        n = ruleset.players
        hand_size = GameState(ruleset, seed="layout").table.flags.hand_size  # cards per hand, tricks per deal
        widths = [
            ("hand", N_CARDS),
            ("pass_selected", N_CARDS),
            ("passed", N_CARDS),
            ("received", N_CARDS),
            ("trick", n * N_CARDS),
            ("played", n * N_CARDS),
            ("table", N_CARDS),
            ("phase", len(PHASES)),
            ("kind", len(KINDS)),
            ("trump", 4),
            ("dealer", n),
            ("to_act", n),
            ("leader", n),
            ("pass_direction", n),
            ("lottery_start", 13),
            ("hand_sizes", n),
            ("deal_scores", n),
            ("totals", n),
            ("moon", 2 * n),
            ("progress", 3),
        ]
        slices: dict[str, slice] = {}
        at = 0
        for name, width in widths:
            slices[name] = slice(at, at + width)
            at += width
        deck_size = hand_size * n + (104 % n if ruleset.game is Game.CANCELLATION else 0)
        scale = score_scale(ruleset)
        starts = [slices[name].start for name, _ in widths[: widths.index(("hand_sizes", n)) + 1]]
        return cls(
            ruleset=ruleset,
            players=n,
            hand_size=hand_size,
            deck_size=deck_size,
            slices=slices,
            size=at,
            counts_end=slices["hand_sizes"].start,
            max_count=2 if ruleset.game is Game.CANCELLATION else 1,
            zeros=bytes(4 * at),
            scale=scale,
            relative=tuple(tuple((me + k) % n for k in range(n)) for me in range(n)),
            features=VectorLayout(starts, at, hand_size, deck_size, scale, ruleset.allow_no_trump),
        )

    def bounds(self) -> tuple[FloatArray, FloatArray]:
        """The lowest and highest value of each element (the observation space's ``low`` and ``high``)."""
        low = np.zeros(self.size, dtype=np.float32)
        high = np.ones(self.size, dtype=np.float32)
        for name in ("hand", "pass_selected", "passed", "received", "played", "table"):
            high[self.slices[name]] = self.max_count
        for name in ("deal_scores", "totals", "moon"):
            low[self.slices[name]] = -SCORE_CLIP
            high[self.slices[name]] = SCORE_CLIP
        return low, high


def encode(layout: Layout, seen: Observation, selected: Sequence[Card] = ()) -> Encoded:
    """The observation arrays of ``seen`` (one seat's rules-core observation), with ``selected`` the cards that
    seat has chosen so far in a pass it is making (empty otherwise)."""
    n = layout.players
    me = seen.seat
    at = layout.slices
    # One float array written in place and handed to numpy without a copy (numpy's own per-element stores and
    # conversions cost several times more at this size).
    counts = array("f", layout.zeros)
    for card in seen.hand:
        counts[card] += 1
    base = at["pass_selected"].start
    for card in selected:
        counts[base + card] += 1
    base = at["passed"].start
    for card in seen.passed:
        counts[base + card] += 1
    base = at["received"].start
    for card in seen.received:
        counts[base + card] += 1
    base = at["trick"].start
    for seat, card in seen.trick:
        counts[base + (seat - me) % n * N_CARDS + card] = 1
    base = at["played"].start
    for trick in seen.tricks:
        for seat, card in trick.plays:
            counts[base + (seat - me) % n * N_CARDS + card] += 1
    base = at["table"].start
    for suit, column in enumerate(seen.lottery_columns):
        if column is not None:
            for rank in range(column[0], column[1] + 1):
                counts[base + rank * 4 + suit] = 1
    phase = seen.phase
    counts[at["phase"].start + PHASES.index(phase)] = 1
    counts[at["kind"].start + KINDS.index(seen.kind)] = 1
    if seen.trump is not None:
        counts[at["trump"].start + seen.trump] = 1
    counts[at["dealer"].start + (seen.dealer - me) % n] = 1
    if seen.to_act >= 0:
        counts[at["to_act"].start + (seen.to_act - me) % n] = 1
    if phase is Phase.PLAY and seen.kind is not DealKind.LOTTERY:
        counts[at["leader"].start + (seen.trick_leader - me) % n] = 1
    counts[at["pass_direction"].start + seen.pass_offset] = 1
    if seen.lottery_start_rank is not None:
        counts[at["lottery_start"].start + seen.lottery_start_rank] = 1
    # The rest are real numbers: hand sizes, then points (clipped), then the progress of the deal.
    order = layout.relative[me]
    inverse_hand = 1 / layout.hand_size
    scale = layout.scale
    sizes, deal_scores, totals = seen.hand_sizes, seen.deal_scores, seen.totals
    numbers = [sizes[s] * inverse_hand for s in order]
    numbers += [deal_scores[s] * scale for s in order]
    numbers += [totals[s] * scale for s in order]
    moon = seen.moon_options
    if moon:
        own, others = moon[MoonOption.SELF], moon[MoonOption.OTHERS]
        numbers += [own[s] * scale for s in order]
        numbers += [others[s] * scale for s in order]
    else:
        numbers += [0.0] * (2 * n)
    numbers += [len(seen.tricks) * inverse_hand, seen.kitty_size / 8, seen.pending_cards / layout.deck_size]
    if min(numbers) < -SCORE_CLIP or max(numbers) > SCORE_CLIP:  # (only hand sizes and points can be large)
        numbers = [-SCORE_CLIP if x < -SCORE_CLIP else SCORE_CLIP if x > SCORE_CLIP else x for x in numbers]
    counts[layout.counts_end :] = array("f", numbers)
    return {
        "observation": np.frombuffer(counts, dtype=np.float32),
        "action_mask": np.frombuffer(legal_bytes(layout, seen, selected), dtype=np.int8),
    }


def legal_mask(layout: Layout, seen: Observation, selected: Sequence[Card] = ()) -> MaskArray:
    """1 for each action ``seen``'s seat may take now; all 0 when it is not that seat's turn."""
    return np.frombuffer(legal_bytes(layout, seen, selected), dtype=np.int8)


def legal_bytes(layout: Layout, seen: Observation, selected: Sequence[Card] = ()) -> bytearray:
    """`legal_mask` as bytes."""
    mask = bytearray(N_ACTIONS)
    if seen.to_act == seen.seat:
        phase = seen.phase
        if phase is Phase.PLAY:
            for card in seen.legal:
                mask[card] = 1
        elif phase is Phase.PASS:
            left = list(seen.hand)
            for card in selected:
                left.remove(card)
            for card in left:
                mask[card] = 1
        elif phase is Phase.TRUMP:
            mask[TRUMP_ACTION : TRUMP_ACTION + 4] = b"\1\1\1\1"
            if layout.ruleset.allow_no_trump:
                mask[NO_TRUMP_ACTION] = 1
        elif phase is Phase.MOON:
            mask[MOON_SELF_ACTION] = mask[MOON_OTHERS_ACTION] = 1
    return mask
