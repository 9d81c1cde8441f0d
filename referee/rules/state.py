"""The game state: who must decide what, the legal choices, and ``apply``.

One class plays all four games, because they share the trick: deal, (pass or name trump), play tricks clockwise
following suit, score, next deal. A state is a whole game (the 12, with 3 players 11, deals of a Kierki match, or
hands of Hearts until a total reaches the target): its history (events, totals, each deal's result) and the deal
being played, a `Table` of plain data (``table.py``), replaced at every deal. What changes a table is stated once,
as functions of it: the legal cards (``legality``), the trick (``tricks``), the loteryjka (``lottery``), passing
(``exchange``); what a seat may know of it is ``observation``. ``apply`` is the only way to change a state and it
validates first: an illegal choice raises `IllegalActionError` naming the rule, and the state is left exactly as
it was. A state never touches a clock, a file or a process.

``playout(state, rng)`` plays a copy of the current deal to its end, inside the rules core (for Monte Carlo bots;
``playout.sample_state`` makes the worlds to play out). ``state.table`` shows the deal's table, read-only, and
``GameState.from_table(table, totals)`` makes a state that plays one such table's deal and ends with it.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Final

from referee.rules import exchange, fallback, legality, lottery, tricks
from referee.rules.cards import Card, Suit, card_list
from referee.rules.dealing import DealSpec, first_dealer, seeded_deal, validate_deals
from referee.rules.exchange import PASS_COUNT
from referee.rules.observation import Observation, PlayView, moon_projection, observe, play_view, trump_cards_seen
from referee.rules.records import (
    Action,
    ChooseMoon,
    ChooseTrump,
    DealEnded,
    DealKind,
    DealStarted,
    Event,
    GameEnded,
    IllegalActionError,
    MoonOption,
    MoonShot,
    PassCards,
    Phase,
    PlayCard,
    RulesError,
    TrumpChosen,
)
from referee.rules.results import places
from referee.rules.ruleset import Passing, Ruleset
from referee.rules.table import Table, flags_of
from referee.rules.tricks import ENDED_EARLY, GOES_ON

# The hot paths compare phases against these constants rather than look ``Phase.PLAY`` up: in Python 3.11 an enum
# member's lookup goes through EnumType's __getattr__ hook, about a microsecond, in either build (BENCHMARKS.md,
# "What each speed trick buys"); Final makes each a C constant in the compiled build.
_PLAY: Final = Phase.PLAY
_PASS: Final = Phase.PASS
_TRUMP: Final = Phase.TRUMP
_MOON: Final = Phase.MOON
_OVER: Final = Phase.OVER
_PLAY_CARD: Final = PlayCard


# A playout policy: given the state (the seat to act is ``state.to_act``) and its legal cards, the card to play.
PlayPolicy = Callable[["GameState", list[Card]], Card]


class GameState:
    """A whole game in progress. Create with a ruleset, a seed, the game's number in its match, and optionally
    given deals (the rest are dealt from the seed and the game's number, see ``dealing``)."""

    def __init__(
        self,
        ruleset: Ruleset,
        *,
        seed: str | int = "0",
        game: int = 1,
        deals: Sequence[DealSpec] = (),
        _table: Table | None = None,
        _first_dealer: int = 0,
    ) -> None:
        # ``_table``: the state starts at that deal, dealt already, with no history (`copy`, `from_table`).
        if _table is None:
            validate_deals(ruleset, deals)
        self.ruleset = ruleset
        self.players = ruleset.players
        self.seed = str(seed)
        self.game = game
        self.events: list[Event] = []
        self.totals = [0] * self.players
        self.deal_results: list[DealEnded] = []
        self.final_places: tuple[int, ...] | None = None
        # The state as the latest deal ended (its last card played, its scores counted), before the next deal was
        # dealt: a replay viewer shows a deal's end from it. Read it; do not change it.
        self.ended_deal: GameState | None = None
        self._given = tuple(deals)
        self._record = True  # False in random playouts: no events, no trick views
        self._stop_after_deal = False  # set in playouts: the state ends with the current deal
        if _table is not None:
            self._flags = _table.flags
            self._first_dealer = _first_dealer
            self._table = _table
            return
        self._flags = flags_of(ruleset)
        first = deals[0].dealer if deals and deals[0].dealer is not None else None
        self._first_dealer = first_dealer(self.seed, game, self.players) if first is None else first
        self._table = self._deal(1)

    @staticmethod
    def from_table(table: Table, totals: Sequence[int]) -> GameState:
        """A state that plays the deal on ``table`` from where it is and ends with it, with no history before it
        and ``totals`` as the game's totals so far: a world sampled for a playout (``playout.sample_state``)."""
        first = (table.dealer - table.number + 1) % table.flags.players
        state = GameState(table.flags.ruleset, _table=table, _first_dealer=first)
        state.totals = list(totals)
        state._stop_after_deal = True
        return state

    def copy(self) -> GameState:
        """An independent copy. Every element held is immutable, so copying the lists themselves is enough."""
        twin = GameState(
            self.ruleset,
            seed=self.seed,
            game=self.game,
            deals=self._given,
            _table=self._table.copy(),
            _first_dealer=self._first_dealer,
        )
        twin.events = list(self.events)
        twin.totals = list(self.totals)
        twin.deal_results = list(self.deal_results)
        twin.final_places = self.final_places
        twin.ended_deal = self.ended_deal
        twin._record = self._record
        twin._stop_after_deal = self._stop_after_deal
        return twin

    # --- public queries ------------------------------------------------------------------------------------

    @property
    def table(self) -> Table:
        """The deal being played, as plain data (``table.Table``): read it, never change it (``apply`` does)."""
        return self._table

    @property
    def deal_number(self) -> int:
        return self._table.number

    @property
    def kind(self) -> DealKind:
        return self._table.kind

    @property
    def dealer(self) -> int:
        return self._table.dealer

    @property
    def phase(self) -> Phase:
        return self._table.phase

    @property
    def to_act(self) -> int:
        """The seat that must decide now; -1 once the game is over."""
        return self._table.to_act

    @property
    def trump(self) -> Suit | None:
        return self._table.trump

    @property
    def trick_number(self) -> int:
        return self._table.trick_number

    @property
    def is_over(self) -> bool:
        return self._table.phase is _OVER

    def hand(self, seat: int) -> list[Card]:
        """The seat's cards, lowest id first; a card held twice (two decks) appears twice."""
        return self._table.hand(seat)

    def legal_plays(self) -> list[Card]:
        """The cards the seat to act may play (empty outside the play phase)."""
        if self._table.phase is not _PLAY:
            return []
        return card_list(legality.legal_mask(self._table))

    def trump_choices(self) -> list[Suit | None]:
        suits: list[Suit | None] = [0, 1, 2, 3]
        return [*suits, None] if self.ruleset.allow_no_trump else suits

    def trump_cards_seen(self) -> tuple[Card, ...]:
        """The dealer's first 5 (3 players: 6) cards in dealing order: all they see before naming trump."""
        return trump_cards_seen(self._table)

    def moon_projection(self) -> dict[MoonOption, tuple[int, ...]]:
        """The totals each moon option would leave, for the shooter to choose from."""
        return moon_projection(self._table, self.totals)

    def fallback_action(self) -> Action:
        """A deterministic choice for the seat to act, played by the referee for a misbehaving bot."""
        return fallback.fallback_action(self._table, self.totals)

    def places_by_totals(self) -> tuple[int, ...]:
        """Each seat's place (1 = first, ties share) by the totals so far: the final places once the game is over,
        a stopped game's places before that."""
        return places(self.totals, highest_wins=self._flags.higher_is_better)

    def observation(self, seat: int) -> Observation:
        """Everything ``seat`` may know now, and nothing more (``observation.observe``)."""
        return observe(self._table, self.totals, seat)

    def play_view(self) -> PlayView:
        """What the seat to play may know when asked for a card (``observation.play_view``)."""
        return play_view(self._table, self.totals)

    # --- the one way to change the state -------------------------------------------------------------------

    def apply(self, action: Action, seat: int | None = None) -> list[Event]:
        """Validate and apply the choice of the seat to act; return the events it caused."""
        table = self._table
        phase = table.phase
        if phase is _OVER:
            raise IllegalActionError("game-over", "the game is over: no more choices are taken")
        if seat is not None and seat != table.to_act:
            raise IllegalActionError("turn", f"it is seat {table.to_act}'s turn to {phase.value}, not seat {seat}'s")
        start = len(self.events)
        kind = type(action)
        if kind is _PLAY_CARD and phase is _PLAY:
            self._play(action.card)  # type: ignore[union-attr]
        elif kind is PassCards and phase is _PASS:
            exchange.pass_cards(table, action.cards, self._log())  # type: ignore[union-attr]
        elif kind is ChooseTrump and phase is _TRUMP:
            self._choose_trump(action.suit)  # type: ignore[union-attr]
        elif kind is ChooseMoon and phase is _MOON:
            self._choose_moon(action.option)  # type: ignore[union-attr]
        else:
            raise IllegalActionError(
                "decision", f"seat {table.to_act} must make a {phase.value} decision now, not {kind.__name__}"
            )
        return self.events[start:]

    def _log(self) -> list[Event] | None:
        """Where the steps put their events (None in a random playout, which keeps none)."""
        return self.events if self._record else None

    # --- deals ---------------------------------------------------------------------------------------------

    def _deal(self, number: int) -> Table:
        """Deal ``number``'s table, its DealStarted recorded, at its first decision."""
        flags = self._flags
        n = self.players
        index = number - 1
        given = self._given[index] if index < len(self._given) else None
        if given is not None and given.dealer is not None:
            dealer = given.dealer
        else:
            dealer = (self._first_dealer + index) % n
        if flags.kierki:
            kind = flags.kinds[index]
        else:
            kind = DealKind.CANCELLATION if flags.double_deck else DealKind.HEARTS
        if given is None:
            given = seeded_deal(self.ruleset, self.seed, self.game, number, dealer)
        offset = self._pass_offset_for(number)
        table = Table.deal(flags, DealStarted(number, kind, dealer, given.hands, given.kitty, offset))
        self.events.append(table.event)
        if kind is DealKind.TRUMP:
            table.phase = _TRUMP
            table.to_act = dealer
        elif kind is DealKind.LOTTERY:
            lottery.start(table, self._log())
        elif offset:
            table.phase = _PASS
            table.to_act = (dealer + 1) % n
        else:
            tricks.start_play(table)
        return table

    def _pass_offset_for(self, deal: int) -> int:
        if self._flags.kierki:
            return 0
        n = self.players
        passing = self.ruleset.passing
        if passing is Passing.CYCLE:
            return (1, n - 1, 2, 0)[(deal - 1) % 4]
        if passing is Passing.ALTERNATE:
            return 1 if deal % 2 else n - 1
        return {Passing.LEFT: 1, Passing.RIGHT: n - 1, Passing.NONE: 0}[passing]

    def _finish_deal(self, scores: list[int], *, early: bool) -> None:
        table = self._table
        for seat, points in enumerate(scores):
            self.totals[seat] += points
        ended = DealEnded(table.number, table.kind, tuple(scores), tuple(self.totals), early, table.moon)
        self.deal_results.append(ended)
        self.events.append(ended)
        self.ended_deal = None  # not carried into its own copy: one deal's end is kept, not a chain of them
        if not self._stop_after_deal:  # a playout ends here: nobody will look back at its table
            self.ended_deal = self.copy()
        if self._flags.kierki:
            over = table.number == len(self._flags.kinds)
        else:
            over = max(self.totals) >= self.ruleset.target
        if self._stop_after_deal and not over:
            table.phase = _OVER
            table.to_act = -1
            return
        if over:
            self.final_places = self.places_by_totals()
            self.events.append(GameEnded(tuple(self.totals), self.final_places))
            table.phase = _OVER
            table.to_act = -1
        else:
            self._table = self._deal(table.number + 1)

    # --- trump and the moon --------------------------------------------------------------------------------

    def _choose_trump(self, suit: object) -> None:
        if suit not in self.trump_choices():
            allowed = "C, D, H, S" + (" or no trump" if self.ruleset.allow_no_trump else "")
            raise IllegalActionError("trump-suit", f"name a trump suit: {allowed}")
        table = self._table
        table.trump = suit
        self.events.append(TrumpChosen(table.dealer, table.trump, table.event))
        tricks.start_play(table)

    def _choose_moon(self, option: object) -> None:
        if not isinstance(option, MoonOption):
            raise IllegalActionError("moon-option", "choose 'self' or 'others'")
        table = self._table
        value = self.ruleset.moon_value
        shooter = table.shooter
        if option is MoonOption.SELF:
            scores = [-value if s == shooter else 0 for s in range(self.players)]
        else:
            scores = [0 if s == shooter else value for s in range(self.players)]
        table.moon = MoonShot(shooter, option, table.number)
        self.events.append(table.moon)
        table.scores = scores
        self._finish_deal(scores, early=False)

    # --- playing -------------------------------------------------------------------------------------------

    def _play(self, card: object) -> None:
        table = self._table
        legal = table.legal
        if legal < 0:
            legal = legality.legal_mask(table)
        # A legal mask has no bit at 52 or above, so the shift also rejects cards out of range.
        if type(card) is not int or card < 0 or not legal >> card & 1:
            raise IllegalActionError(*legality.explain_illegal(table, card))
        self._place(card)

    def _place(self, card: Card) -> None:
        """Play a card already known to be legal (the hot path of `apply` and of playouts)."""
        table = self._table
        seat = table.to_act
        if self._flags.double_deck:
            table.remove(seat, card)
        else:
            table.hands[seat] ^= 1 << card
        table.legal = -1
        log = self.events if self._record else None
        if log is not None:
            log.append(tricks.card_played(seat, card, table.number))
        if table.lottery:
            ended = lottery.play(table, seat, card, log)
        else:
            ended = tricks.play_to_trick(table, seat, card, log)
        if ended != GOES_ON:
            self._end_of_tricks(early=ended == ENDED_EARLY)

    def _end_of_tricks(self, *, early: bool) -> None:
        table = self._table
        shooter = tricks.moon_shooter(table)
        if shooter >= 0:
            table.shooter = shooter
            table.phase = _MOON
            table.to_act = shooter
            return
        self._finish_deal(list(table.scores), early=early)

    # --- playouts ------------------------------------------------------------------------------------------

    def _play_deal_out(self, rng: random.Random, policy: PlayPolicy | None, moon: MoonOption) -> tuple[int, ...]:
        """Play this state (a playout's own copy) to the end of its deal and return the deal's scores."""
        rand = rng.random
        self._record = policy is not None  # a policy may look at the state's observation; random play does not
        while True:
            table = self._table
            phase = table.phase
            if phase is _PLAY:
                legal = table.legal
                if legal < 0:
                    legal = legality.legal_mask(table)
                if policy is not None:
                    self._play(policy(self, card_list(legal)))
                else:
                    if legal & (legal - 1):  # more than one card: drop a random number of the lowest ones
                        for _ in range(int(rand() * legal.bit_count())):
                            legal &= legal - 1
                    self._place((legal & -legal).bit_length() - 1)
            elif phase is _PASS:
                hand = table.hand(table.to_act)
                chosen: list[Card] = []
                for _ in range(PASS_COUNT):
                    chosen.append(hand.pop(int(rand() * len(hand))))
                exchange.pass_cards(table, tuple(chosen), self._log())
            elif phase is _TRUMP:
                choices = self.trump_choices()
                self._choose_trump(choices[int(rand() * len(choices))])
            elif phase is _MOON:
                self._choose_moon(moon)
            else:
                return self.deal_results[-1].scores


def playout(
    state: GameState,
    rng: random.Random,
    policy: PlayPolicy | None = None,
    *,
    moon: MoonOption = MoonOption.OTHERS,
) -> tuple[int, ...]:
    """Play a copy of ``state``'s current deal to its end; return that deal's scores, one per seat.

    Without ``policy`` every card is drawn uniformly from the legal cards with ``rng.random()``. A policy is
    called as ``policy(state, legal)`` with the playout's own state (the seat to act is ``state.to_act``) and
    the legal cards, and returns one of them. Passes and trump choices are random; a Hearts moon shooter takes
    ``moon``. The same state, seed and policy always give the same scores.
    """
    if state.is_over:
        raise RulesError("the game is over: there is no deal left to play out")
    # The playout's own copy ends with the current deal and keeps no history before it.
    twin = GameState.from_table(state._table.copy(), state.totals)
    return twin._play_deal_out(rng, policy, moon)
