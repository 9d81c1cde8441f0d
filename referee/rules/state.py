"""The game state: who must decide what, the legal choices, and ``apply``.

One class plays all four games, because they share the trick: deal, (pass or name trump), play tricks clockwise
following suit, score, next deal. What differs is a handful of rules, each in its own small method, dispatched
on the deal kind. ``apply`` is the only way to change a state and it validates first: an illegal choice raises
`IllegalActionError` naming the rule, and the state is left exactly as it was.

A state is a whole game: the 12 (3 players: 11) deals of a Kierki match, or hands of Hearts until a total
reaches the target. It never touches a clock, a file or a process.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

from referee.rules import exchange, fallback, kierki_scoring, legality, lottery, tricks
from referee.rules.cards import (
    HEARTS,
    HEARTS_MASK,
    QUEEN_OF_SPADES,
    Card,
    Suit,
    card_list,
    mask_of,
)
from referee.rules.dealing import DealSpec, first_dealer, seeded_deal, validate_deals
from referee.rules.observation import Observation, PlayView, TrickView, observe, play_view
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
    TrickEnded,
    TrumpChosen,
)
from referee.rules.results import places
from referee.rules.ruleset import Game, Passing, Ruleset

# Constants are Final so that the compiled build reads them as C constants, not module attributes; the hot
# paths compare phases against these rather than look ``Phase.PLAY`` up.
_QS_BIT: Final = 1 << QUEEN_OF_SPADES
_NOT_HEARTS: Final = ((1 << 52) - 1) ^ HEARTS_MASK
_KIERKI_GAMES: Final = (Game.KIERKI, Game.KIERKI3)
_PLAY: Final = Phase.PLAY
_PASS: Final = Phase.PASS
_TRUMP: Final = Phase.TRUMP
_MOON: Final = Phase.MOON
_OVER: Final = Phase.OVER
_TRUMP_DEAL: Final = DealKind.TRUMP
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
        _blank: bool = False,
    ) -> None:
        if _blank:  # internal: an empty shell that `_clone` and `playout.from_world` fill in (the compiled build has
            return  # no other way to make an instance without running this constructor)
        validate_deals(ruleset, deals)
        self.ruleset = ruleset
        self.players = ruleset.players
        self.seed = str(seed)
        self.game = game
        self.events: list[Event] = []
        self.totals = [0] * self.players
        self.deal_results: list[DealEnded] = []
        self.final_places: tuple[int, ...] | None = None
        self.deal_number = 0
        # The table as the latest deal ended (its last card played, its scores counted), before the next deal was
        # dealt: a replay viewer shows a deal's end from it. Read it; do not change it.
        self.ended_deal: GameState | None = None
        self._given = list(deals)
        self._kierki = ruleset.game in _KIERKI_GAMES
        self._double_deck = ruleset.game is Game.CANCELLATION
        self._hearts_game = ruleset.game is Game.HEARTS
        self._record = True  # False in random playouts: no events, no trick views
        self._kinds = kierki_scoring.deal_kinds(ruleset) if self._kierki else ()
        first = deals[0].dealer if deals and deals[0].dealer is not None else None
        self._first_dealer = first_dealer(self.seed, game, self.players) if first is None else first
        self._stop_after_deal = False  # set in playouts: the state ends with the current deal
        self._start_deal()

    # --- public queries ------------------------------------------------------------------------------------

    @property
    def is_over(self) -> bool:
        return self.phase is _OVER

    def hand(self, seat: int) -> list[Card]:
        """The seat's cards, lowest id first; a card held twice (two decks) appears twice."""
        doubles = self.doubles[seat]
        if not doubles:
            return card_list(self.hands[seat])
        return sorted(card_list(self.hands[seat]) + card_list(doubles))

    def legal_plays(self) -> list[Card]:
        """The cards the seat to act may play (empty outside the play phase)."""
        if self.phase is not _PLAY:
            return []
        return card_list(self._legal_mask())

    def trump_choices(self) -> list[Suit | None]:
        suits: list[Suit | None] = [0, 1, 2, 3]
        return [*suits, None] if self.ruleset.allow_no_trump else suits

    def trump_cards_seen(self) -> tuple[Card, ...]:
        """The dealer's first 5 (3 players: 6) cards in dealing order: all they see before naming trump."""
        return self.dealt[self.dealer][: 5 if self.players == 4 else 6]

    def moon_projection(self) -> dict[MoonOption, tuple[int, ...]]:
        """The totals each moon option would leave, for the shooter to choose from."""
        shooter = self._shooter
        value = self.ruleset.moon_value
        own = list(self.totals)
        own[shooter] -= value
        others = [t + (0 if s == shooter else value) for s, t in enumerate(self.totals)]
        return {MoonOption.SELF: tuple(own), MoonOption.OTHERS: tuple(others)}

    def fallback_action(self) -> Action:
        """A deterministic choice for the seat to act, played by the referee for a misbehaving bot."""
        return fallback.fallback_action(self)

    def places_by_totals(self) -> tuple[int, ...]:
        """Each seat's place (1 = first, ties share) by the totals so far: the final places once the game is over,
        a stopped game's places before that."""
        return places(self.totals, highest_wins=self._kierki)

    def copy(self) -> GameState:
        """An independent copy. Every element held is immutable, so copying the lists themselves is enough."""
        return self._clone(list(self.events), list(self.deal_results))

    def _clone(self, events: list[Event], deal_results: list[DealEnded]) -> GameState:
        """A copy with the given history lists. Every attribute is named here (the compiled build has no
        ``__dict__`` to copy); tests/test_playout.py checks that none is forgotten."""
        twin = GameState(self.ruleset, _blank=True)
        twin.ruleset = self.ruleset
        twin.players = self.players
        twin.seed = self.seed
        twin.events = events
        twin.totals = list(self.totals)
        twin.deal_results = deal_results
        twin.final_places = self.final_places
        twin.deal_number = self.deal_number
        twin.game = self.game
        twin.ended_deal = self.ended_deal
        twin._given = list(self._given)
        twin._kierki = self._kierki
        twin._double_deck = self._double_deck
        twin._hearts_game = self._hearts_game
        twin._record = self._record
        twin._kinds = self._kinds
        twin._first_dealer = self._first_dealer
        twin._stop_after_deal = self._stop_after_deal
        twin.dealer = self.dealer
        twin.kind = self.kind
        twin.dealt = self.dealt
        twin.doubles = list(self.doubles)
        twin.hands = list(self.hands)
        twin._tricks_per_deal = self._tricks_per_deal
        twin._lottery = self._lottery
        twin._penalty_deal = self._penalty_deal
        twin._breaks_with_queen = self._breaks_with_queen
        twin._kitty = list(self._kitty)
        twin.trump = self.trump
        twin.trick_number = self.trick_number
        twin._leader = self._leader
        twin._plays = list(self._plays)
        twin._trick_views = list(self._trick_views)
        twin._unviewed = list(self._unviewed)
        twin._deal_scores = list(self._deal_scores)
        twin._taken = self._taken
        twin._hearts_broken = self._hearts_broken
        twin._pending = list(self._pending)
        twin._passes = list(self._passes)
        twin._exchanged = self._exchanged
        twin._pass_offset = self._pass_offset
        twin._columns = list(self._columns)
        twin._start_rank = self._start_rank
        twin._playable = self._playable
        twin._finished = list(self._finished)
        twin._shooter = self._shooter
        twin._legal = self._legal
        twin.phase = self.phase
        twin.to_act = self.to_act
        twin._moon = self._moon
        twin._dealt_event = self._dealt_event
        return twin

    def _tricks_seen(self) -> tuple[TrickView, ...]:
        """The views of this deal's finished tricks, made when first asked for."""
        if self._unviewed:
            views = self._trick_views
            for t in self._unviewed:
                views.append(TrickView(t.number, t.leader, t.plays, t.winner, t.deal))
            self._unviewed.clear()
        return tuple(self._trick_views)

    def observation(self, seat: int) -> Observation:
        """Everything ``seat`` may know now, and nothing more (``observation.observe``)."""
        return observe(self, seat)

    def play_view(self) -> PlayView:
        """What the seat to play may know when asked for a card (``observation.play_view``)."""
        return play_view(self)

    # --- the one way to change the state -------------------------------------------------------------------

    def apply(self, action: Action, seat: int | None = None) -> list[Event]:
        """Validate and apply the choice of the seat to act; return the events it caused."""
        if self.phase is _OVER:
            raise IllegalActionError("game-over", "the game is over: no more choices are taken")
        if seat is not None and seat != self.to_act:
            raise IllegalActionError(
                "turn", f"it is seat {self.to_act}'s turn to {self.phase.value}, not seat {seat}'s"
            )
        start = len(self.events)
        kind = type(action)
        phase = self.phase
        if kind is _PLAY_CARD and phase is _PLAY:
            self._play(action.card)  # type: ignore[union-attr]
        elif kind is PassCards and phase is _PASS:
            exchange.pass_cards(self, action.cards)  # type: ignore[union-attr]
        elif kind is ChooseTrump and phase is _TRUMP:
            self._choose_trump(action.suit)  # type: ignore[union-attr]
        elif kind is ChooseMoon and phase is _MOON:
            self._choose_moon(action.option)  # type: ignore[union-attr]
        else:
            raise IllegalActionError(
                "decision",
                f"seat {self.to_act} must make a {self.phase.value} decision now, not {type(action).__name__}",
            )
        return self.events[start:]

    # --- playouts (the public functions are in playout.py) ---------------------------------------------------

    def _fork(self) -> GameState:
        """A copy for a playout: it ends with the current deal and keeps no earlier history."""
        twin = self._clone([], [])
        twin._stop_after_deal = True
        return twin

    # --- deals ---------------------------------------------------------------------------------------------

    def _start_deal(self) -> None:
        self.deal_number += 1
        n = self.players
        index = self.deal_number - 1
        given = self._given[index] if index < len(self._given) else None
        if given is not None and given.dealer is not None:
            self.dealer = given.dealer
        else:
            self.dealer = (self._first_dealer + index) % n
        if self._kierki:
            self.kind = self._kinds[index]
        else:
            self.kind = DealKind.CANCELLATION if self._double_deck else DealKind.HEARTS
        if given is None:
            given = seeded_deal(self.ruleset, self.seed, self.game, self.deal_number, self.dealer)
        spec = given
        self.dealt = spec.hands
        self.doubles = [0] * n
        if self._double_deck:
            self.hands = [0] * n
            for seat, cards in enumerate(spec.hands):
                for card in cards:
                    self._add(seat, card)
        else:
            self.hands = [mask_of(cards) for cards in spec.hands]
        self._tricks_per_deal = len(spec.hands[0])
        self._lottery = self.kind is DealKind.LOTTERY
        self._penalty_deal = self.kind in kierki_scoring.PENALTY_KINDS
        self._breaks_with_queen = self.ruleset.qs_breaks_hearts
        self._kitty = list(spec.kitty)
        self.trump: Suit | None = None
        self.trick_number = 1
        self._leader = (self.dealer + 1) % n
        self._plays: list[tuple[int, Card]] = []
        self._trick_views: list[TrickView] = []  # the public part of each finished trick, made once
        self._unviewed: list[TrickEnded] = []  # finished tricks whose view no observation has asked for yet
        self._deal_scores = [0] * n
        self._taken = 0  # the cards of finished tricks, for the early end of Kierki deals 2-5
        self._hearts_broken = False
        self._pending: list[Card] = []
        self._passes: list[tuple[Card, ...] | None] = [None] * n
        self._exchanged: tuple[tuple[Card, ...], ...] | None = None
        self._pass_offset = self._pass_offset_for(self.deal_number)
        self._columns: list[tuple[int, int] | None] = [None, None, None, None]
        self._start_rank: int | None = None
        self._playable = 0
        self._finished: list[int] = []
        self._shooter = -1
        self._legal = -1
        self.phase = Phase.PLAY
        self.to_act = self._leader
        self._moon: MoonShot | None = None
        self._dealt_event = DealStarted(
            self.deal_number, self.kind, self.dealer, spec.hands, spec.kitty, self._pass_offset
        )
        self.events.append(self._dealt_event)
        if self.kind is DealKind.TRUMP:
            self.phase = Phase.TRUMP
            self.to_act = self.dealer
        elif self.kind is DealKind.LOTTERY:
            lottery.start(self)
        elif self._pass_offset:
            self.phase = Phase.PASS
            self.to_act = (self.dealer + 1) % n
        else:
            self._start_play()

    def _pass_offset_for(self, deal: int) -> int:
        if self._kierki:
            return 0
        n = self.players
        passing = self.ruleset.passing
        if passing is Passing.CYCLE:
            return (1, n - 1, 2, 0)[(deal - 1) % 4]
        if passing is Passing.ALTERNATE:
            return 1 if deal % 2 else n - 1
        return {Passing.LEFT: 1, Passing.RIGHT: n - 1, Passing.NONE: 0}[passing]

    def _start_play(self) -> None:
        self.phase = Phase.PLAY
        if self._hearts_game:
            self._leader = next(s for s in range(self.players) if self.hands[s] & 1)
        self.to_act = self._leader
        self._legal = -1

    def _finish_deal(self, scores: list[int], *, early: bool) -> None:
        for seat, points in enumerate(scores):
            self.totals[seat] += points
        ended = DealEnded(self.deal_number, self.kind, tuple(scores), tuple(self.totals), early, self._moon)
        self.deal_results.append(ended)
        self.events.append(ended)
        self.ended_deal = None  # not carried into its own copy: one deal's end is kept, not a chain of them
        if not self._stop_after_deal:  # a playout ends here: nobody will look back at its table
            self.ended_deal = self.copy()
        if self._kierki:
            over = self.deal_number == len(self._kinds)
        else:
            over = max(self.totals) >= self.ruleset.target
        if self._stop_after_deal and not over:
            self.phase = Phase.OVER
            self.to_act = -1
            return
        if over:
            self.final_places = self.places_by_totals()
            self.events.append(GameEnded(tuple(self.totals), self.final_places))
            self.phase = Phase.OVER
            self.to_act = -1
        else:
            self._start_deal()

    # --- hands ---------------------------------------------------------------------------------------------

    def _add(self, seat: int, card: Card) -> None:
        bit = 1 << card
        if self.hands[seat] & bit:
            self.doubles[seat] |= bit
        else:
            self.hands[seat] |= bit

    def _remove(self, seat: int, card: Card) -> None:
        bit = 1 << card
        if self.doubles[seat] & bit:
            self.doubles[seat] ^= bit
        else:
            self.hands[seat] ^= bit

    # --- passing and trump ---------------------------------------------------------------------------------

    def _choose_trump(self, suit: object) -> None:
        if suit not in self.trump_choices():
            allowed = "C, D, H, S" + (" or no trump" if self.ruleset.allow_no_trump else "")
            raise IllegalActionError("trump-suit", f"name a trump suit: {allowed}")
        self.trump = suit
        self.events.append(TrumpChosen(self.dealer, suit, self._dealt_event))
        self._start_play()

    # --- legal plays ---------------------------------------------------------------------------------------

    def _legal_mask(self) -> int:
        if self._legal < 0:
            if self._lottery:
                self._legal = legality.lottery_legal(self, self.to_act)
            elif self._kierki:
                self._legal = legality.kierki_legal(self)
            else:
                self._legal = legality.hearts_legal(self)
        return self._legal

    # --- playing -------------------------------------------------------------------------------------------

    def _play(self, card: object) -> None:
        legal = self._legal
        if legal < 0:
            legal = self._legal_mask()
        # A legal mask has no bit at 52 or above, so the shift also rejects cards out of range.
        if type(card) is not int or card < 0 or not legal >> card & 1:
            raise IllegalActionError(*legality.explain_illegal(self, card))
        self._place(card)

    def _place(self, card: Card) -> None:
        """Play a card already known to be legal (the hot path of `apply` and of playouts)."""
        seat = self.to_act
        if self._double_deck:
            self._remove(seat, card)
        else:
            self.hands[seat] ^= 1 << card
        self._legal = -1
        if self._record:
            self.events.append(tricks.card_played(seat, card, self.deal_number))
        if self._lottery:
            lottery.play(self, seat, card)
            return
        if card & 3 == HEARTS or (card == QUEEN_OF_SPADES and self._breaks_with_queen):
            self._hearts_broken = True
        plays = self._plays
        plays.append((seat, card))
        if len(plays) < self.players:
            self.to_act = seat + 1 if seat + 1 < self.players else 0
        else:
            self._end_trick()

    def _end_trick(self) -> None:
        plays = tuple(self._plays)
        leader = self._leader
        number = self.trick_number
        winner = tricks.double_deck_winner(self) if self._double_deck else tricks.single_deck_winner(self)
        cards = [card for _, card in plays]
        last = number == self._tricks_per_deal
        if winner is None and last:
            winner = tricks.last_cancelled_winner(self)
        collected: list[Card] = []
        if winner is None:
            self._pending.extend(cards)
            if number == 1:
                self._pending.extend(self._kitty)
                self._kitty = []
            next_leader = leader
        else:
            collected = cards + self._pending
            self._pending = []
            if number == 1:
                collected.extend(self._kitty)
                self._kitty = []
            next_leader = winner
            tricks.score_trick(self, winner, collected, number)
        if self._record:
            ended = tricks.trick_ended(number, leader, plays, winner, tuple(collected), self.deal_number)
            self._unviewed.append(ended)
            self.events.append(ended)
        self._plays = []
        self._leader = next_leader
        self.to_act = next_leader
        self.trick_number += 1
        if last:
            self._end_of_tricks(early=False)
        elif self._penalty_deal:
            self._taken |= mask_of(cards)
            if kierki_scoring.ends_early(self.kind, self._taken, self.ruleset):
                self._end_of_tricks(early=True)

    def _end_of_tricks(self, *, early: bool) -> None:
        if not self._kierki:
            full = 52 if self._double_deck else 26
            shooters = [s for s, points in enumerate(self._deal_scores) if points == full]
            if shooters:
                self._shooter = shooters[0]
                self.phase = Phase.MOON
                self.to_act = self._shooter
                return
        self._finish_deal(list(self._deal_scores), early=early)

    def _choose_moon(self, option: object) -> None:
        if not isinstance(option, MoonOption):
            raise IllegalActionError("moon-option", "choose 'self' or 'others'")
        value = self.ruleset.moon_value
        shooter = self._shooter
        if option is MoonOption.SELF:
            scores = [-value if s == shooter else 0 for s in range(self.players)]
        else:
            scores = [0 if s == shooter else value for s in range(self.players)]
        self._moon = MoonShot(shooter, option, self.deal_number)
        self.events.append(self._moon)
        self._deal_scores = scores
        self._finish_deal(scores, early=False)
