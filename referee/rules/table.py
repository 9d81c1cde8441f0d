"""A game's data apart from its steps: what a game never changes (`GameFlags`) and the deal on the table (`Table`).

A `GameState` owns one `Table` per deal and replaces it when the next deal is dealt. The steps of the game are
functions of a table in their own modules (``legality``, ``tricks``, ``lottery``, ``exchange``, ``observation``),
called by the state, which is the only way to change a game (``GameState.apply``). Everything here is plain
data: a table is read and changed field by field by those functions, and copied whole by ``Table.copy``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Final

from referee.rules import kierki_scoring
from referee.rules.cards import Card, Suit, card_list, mask_of
from referee.rules.dealing import hand_size
from referee.rules.records import DealKind, DealStarted, MoonShot, Phase, TrickEnded
from referee.rules.ruleset import Game, Ruleset


class GameFlags:
    """What a game never changes: its ruleset, and what the steps read of it on every card, worked out once."""

    __slots__ = ("double_deck", "hand_size", "hearts_game", "higher_is_better", "kierki", "kinds", "players", "ruleset")

    def __init__(self, ruleset: Ruleset) -> None:
        self.ruleset = ruleset
        self.players = ruleset.players
        self.kierki = ruleset.game in (Game.KIERKI, Game.KIERKI3)  # the deal kinds of a Kierki match
        self.double_deck = ruleset.game is Game.CANCELLATION  # two decks: a card may be held twice
        self.hearts_game = ruleset.game is Game.HEARTS  # the 2♣ leads the first trick
        self.kinds = kierki_scoring.deal_kinds(ruleset) if self.kierki else ()
        self.hand_size = hand_size(ruleset)  # cards per hand, and tricks per deal
        self.higher_is_better = ruleset.game.higher_is_better  # which total wins


@functools.lru_cache(maxsize=32)
def flags_of(ruleset: Ruleset) -> GameFlags:
    """The one `GameFlags` of a ruleset (a ruleset is a frozen value): a Monte Carlo bot samples a world, and so
    works these out, per playout (bench sampled_playouts)."""
    return GameFlags(ruleset)


@dataclass(frozen=True, slots=True)
class TrickView:
    """A finished trick as every seat sees it: who played what and who won, not what the winner collected."""

    number: int
    leader: int
    plays: tuple[tuple[int, Card], ...]
    winner: int | None
    deal: int = 0


TABLE_FIELDS: Final = (
    "columns",
    "dealer",
    "dealt",
    "doubles",
    "event",
    "exchanged",
    "finished",
    "flags",
    "hands",
    "hearts_broken",
    "kind",
    "kitty",
    "leader",
    "legal",
    "lottery",
    "moon",
    "number",
    "pass_offset",
    "passes",
    "penalty",
    "pending",
    "phase",
    "playable",
    "plays",
    "scores",
    "shooter",
    "start_rank",
    "taken",
    "to_act",
    "trick_number",
    "trick_views",
    "trump",
    "unviewed",
)
"""Every field of a `Table` (its ``__slots__``; the compiled build keeps no ``__slots__`` attribute to read)."""


class Table:
    """One deal in progress: the hands, the trick, the scores so far, and whose turn it is.

    ``Table.deal`` makes a deal's table as dealt, before its first decision; the steps change it from there.
    Cards are masks where the rules test them (``hands``, ``legal``), tuples where their order is shown.
    """

    __slots__ = TABLE_FIELDS

    def __init__(
        self,
        flags: GameFlags,
        event: DealStarted,
        hands: list[int],
        doubles: list[int],
        kitty: list[Card],
        phase: Phase,
        to_act: int,
        trump: Suit | None,
        trick_number: int,
        leader: int,
        plays: list[tuple[int, Card]],
        trick_views: list[TrickView],
        unviewed: list[TrickEnded],
        scores: list[int],
        taken: int,
        hearts_broken: bool,
        pending: list[Card],
        passes: list[tuple[Card, ...] | None],
        exchanged: tuple[tuple[Card, ...], ...] | None,
        columns: list[tuple[int, int] | None],
        start_rank: int | None,
        playable: int,
        finished: list[int],
        shooter: int,
        moon: MoonShot | None,
        legal: int,
    ) -> None:
        """Every field as given (``deal`` and ``copy`` make tables; this is their one constructor)."""
        self.flags = flags
        self.event = event  # the deal as dealt: every hand, the kitty, the dealer
        self.number = event.deal  # the deal's number in its game, from 1
        self.kind = event.kind
        self.dealer = event.dealer
        self.dealt = event.hands  # each hand as dealt, in dealing order
        self.pass_offset = event.pass_offset  # receiver = (seat + pass_offset) % players; 0: no passing this deal
        self.lottery = event.kind is DealKind.LOTTERY
        self.penalty = event.kind in kierki_scoring.PENALTY_KINDS  # Kierki deals 2-5 may end before the last trick
        # Each hand as masks: ``hands`` the cards held at least once, ``doubles`` those held twice (two decks).
        self.hands = hands
        self.doubles = doubles
        self.kitty = kitty  # until the first trick with a winner takes it
        self.phase = phase
        self.to_act = to_act  # -1 once the game is over
        self.trump = trump
        self.trick_number = trick_number
        self.leader = leader  # of the trick being played
        self.plays = plays  # the trick being played: (seat, card) in playing order
        self.trick_views = trick_views  # the public part of each finished trick, made once
        self.unviewed = unviewed  # finished tricks whose view no observation has asked for yet
        self.scores = scores  # each seat's score in this deal so far
        self.taken = taken  # the cards of finished tricks, for the early end of Kierki deals 2-5
        self.hearts_broken = hearts_broken
        self.pending = pending  # Cancellation Hearts: the cards of tricks nobody won, for the next winner
        self.passes = passes  # what each seat chose to pass (None: not yet)
        self.exchanged = exchanged  # what each seat passed, once the cards changed hands
        self.columns = columns  # the loteryjka: per suit, the lowest and highest rank laid
        self.start_rank = start_rank  # the loteryjka: the rank that opened the suits
        self.playable = playable  # the loteryjka: the cards that fit a column, as a mask
        self.finished = finished  # the loteryjka: the seats out, first out first
        self.shooter = shooter  # Hearts games: the seat that took every point, while it chooses how that scores
        self.moon = moon
        self.legal = legal  # the legal cards of the seat to act as a mask, once worked out; -1: not yet

    @staticmethod
    def deal(flags: GameFlags, event: DealStarted) -> Table:
        """The table of a deal as dealt, before its first decision (its phase and first seat are the state's)."""
        n = flags.players
        if flags.double_deck:
            hands = [0] * n
            doubles = [0] * n
            for seat, cards in enumerate(event.hands):
                for card in cards:
                    bit = 1 << card
                    if hands[seat] & bit:
                        doubles[seat] |= bit
                    else:
                        hands[seat] |= bit
        else:
            hands = [mask_of(cards) for cards in event.hands]
            doubles = [0] * n
        leader = (event.dealer + 1) % n
        return Table(
            flags,
            event,
            hands=hands,
            doubles=doubles,
            kitty=list(event.kitty),
            phase=Phase.PLAY,
            to_act=leader,
            trump=None,
            trick_number=1,
            leader=leader,
            plays=[],
            trick_views=[],
            unviewed=[],
            scores=[0] * n,
            taken=0,
            hearts_broken=False,
            pending=[],
            passes=[None] * n,
            exchanged=None,
            columns=[None, None, None, None],
            start_rank=None,
            playable=0,
            finished=[],
            shooter=-1,
            moon=None,
            legal=-1,
        )

    def copy(self) -> Table:
        """An independent copy: every element held is immutable, so copying the lists themselves is enough."""
        return Table(
            self.flags,
            self.event,
            hands=list(self.hands),
            doubles=list(self.doubles),
            kitty=list(self.kitty),
            phase=self.phase,
            to_act=self.to_act,
            trump=self.trump,
            trick_number=self.trick_number,
            leader=self.leader,
            plays=list(self.plays),
            trick_views=list(self.trick_views),
            unviewed=list(self.unviewed),
            scores=list(self.scores),
            taken=self.taken,
            hearts_broken=self.hearts_broken,
            pending=list(self.pending),
            passes=list(self.passes),
            exchanged=self.exchanged,
            columns=list(self.columns),
            start_rank=self.start_rank,
            playable=self.playable,
            finished=list(self.finished),
            shooter=self.shooter,
            moon=self.moon,
            legal=self.legal,
        )

    # --- hands -------------------------------------------------------------------------------------------------

    def hand(self, seat: int) -> list[Card]:
        """The seat's cards, lowest id first; a card held twice (two decks) appears twice."""
        doubles = self.doubles[seat]
        if not doubles:
            return card_list(self.hands[seat])
        return sorted(card_list(self.hands[seat]) + card_list(doubles))

    def cards_held(self, seat: int) -> int:
        """How many cards the seat holds (a card held twice counts twice)."""
        return self.hands[seat].bit_count() + self.doubles[seat].bit_count()

    def add(self, seat: int, card: Card) -> None:
        bit = 1 << card
        if self.hands[seat] & bit:
            self.doubles[seat] |= bit
        else:
            self.hands[seat] |= bit

    def remove(self, seat: int, card: Card) -> None:
        bit = 1 << card
        if self.doubles[seat] & bit:
            self.doubles[seat] ^= bit
        else:
            self.hands[seat] ^= bit
