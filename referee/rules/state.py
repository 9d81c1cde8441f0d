"""The game state: who must decide what, the legal choices, and ``apply``.

One class plays all four games, because they share the trick: deal, (pass or name trump), play tricks clockwise
following suit, score, next deal. What differs is a handful of rules, each in its own small method, dispatched
on the deal kind. ``apply`` is the only way to change a state and it validates first: an illegal choice raises
`IllegalActionError` naming the rule, and the state is left exactly as it was.

A state is a whole game: the 12 (3 players: 11) deals of a Kierki match, or hands of Hearts until a total
reaches the target. It never touches a clock, a file or a process.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from referee.rules import kierki_scoring
from referee.rules.cards import (
    CLUBS,
    HEARTS,
    HEARTS_MASK,
    POINT_CARDS_MASK,
    QUEEN_OF_SPADES,
    SUIT_LETTERS,
    SUIT_MASKS,
    TWO,
    TWO_OF_CLUBS,
    Card,
    Suit,
    card_list,
    card_name,
    lowest_in,
    make_card,
    mask_of,
)
from referee.rules.dealing import DealSpec, first_dealer, seeded_deal, validate_deals
from referee.rules.observation import Observation, TrickView
from referee.rules.records import (
    Action,
    CardPlayed,
    ChooseMoon,
    ChooseTrump,
    DealEnded,
    DealKind,
    DealStarted,
    Event,
    GameEnded,
    IllegalActionError,
    LotteryPassed,
    MoonOption,
    MoonShot,
    PassCards,
    PassesExchanged,
    Phase,
    PlayCard,
    PlayerOut,
    TrickEnded,
    TrumpChosen,
)
from referee.rules.results import places
from referee.rules.ruleset import Game, LastCancelled, LotteryMissing2C, LotteryStart, MoonDefault, Passing, Ruleset

PASS_COUNT = 3
_QS_BIT = 1 << QUEEN_OF_SPADES
_NOT_HEARTS = ((1 << 52) - 1) ^ HEARTS_MASK
_KIERKI_GAMES = (Game.KIERKI, Game.KIERKI3)


class GameState:
    """A whole game in progress. Create with a ruleset, a seed, the game's number in its match, and optionally
    given deals (the rest are dealt from the seed and the game's number, see ``dealing``)."""

    def __init__(
        self, ruleset: Ruleset, *, seed: str | int = "0", game: int = 1, deals: Sequence[DealSpec] = ()
    ) -> None:
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
        self._kinds = kierki_scoring.deal_kinds(ruleset) if self._kierki else ()
        first = deals[0].dealer if deals and deals[0].dealer is not None else None
        self._first_dealer = first_dealer(self.seed, game, self.players) if first is None else first
        self._start_deal()

    # --- public queries ------------------------------------------------------------------------------------

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    def hand(self, seat: int) -> list[Card]:
        """The seat's cards, lowest id first; a card held twice (two decks) appears twice."""
        doubles = self.doubles[seat]
        return sorted(card_list(self.hands[seat]) + card_list(doubles))

    def legal_plays(self) -> list[Card]:
        """The cards the seat to act may play (empty outside the play phase)."""
        if self.phase is not Phase.PLAY:
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
        if self.phase is Phase.PLAY:
            return PlayCard(lowest_in(self._legal_mask()))
        if self.phase is Phase.PASS:
            return PassCards(tuple(self.hand(self.to_act)[-PASS_COUNT:][::-1]))
        if self.phase is Phase.TRUMP:
            return ChooseTrump(_default_trump(self.trump_cards_seen()))
        if self.phase is Phase.MOON:
            return ChooseMoon(self._default_moon())
        raise IllegalActionError("game-over", "the game is over: nobody is to act")

    def copy(self) -> GameState:
        """An independent copy. Every element held is immutable, so copying the lists themselves is enough."""
        twin = object.__new__(GameState)
        twin.__dict__ = self.__dict__.copy()
        for name, value in self.__dict__.items():
            if isinstance(value, list):
                twin.__dict__[name] = list(value)
        return twin

    def observation(self, seat: int) -> Observation:
        """Everything ``seat`` may know now, and nothing more."""
        trump_phase = self.phase is Phase.TRUMP
        if trump_phase:
            hand: tuple[Card, ...] = self.trump_cards_seen() if seat == self.dealer else ()
        else:
            hand = tuple(self.hand(seat))
        acting = seat == self.to_act and self.phase is not Phase.OVER
        sent = self._passes[seat] if self._passes[seat] is not None else ()
        exchanged = self._exchanged
        received: tuple[Card, ...] = ()
        if exchanged is not None and self._pass_offset:
            received = exchanged[(seat - self._pass_offset) % self.players]
        return Observation(
            game=self.ruleset.game,
            players=self.players,
            seat=seat,
            deal=self.deal_number,
            kind=self.kind,
            dealer=self.dealer,
            phase=self.phase,
            to_act=self.to_act,
            hand=hand,
            hand_sizes=tuple(
                0 if trump_phase else (self.hands[s].bit_count() + self.doubles[s].bit_count())
                for s in range(self.players)
            ),
            trump=self.trump,
            trump_named=not trump_phase and self.kind is DealKind.TRUMP,
            pass_offset=self._pass_offset,
            passed=tuple(sent or ()),
            received=received,
            trick_leader=self._leader,
            trick=tuple(self._plays),
            tricks=tuple(self._trick_views),
            deal_scores=tuple(self._deal_scores),
            totals=tuple(self.totals),
            legal=tuple(card_list(self._legal_mask())) if acting and self.phase is Phase.PLAY else (),
            lottery_start_rank=self._start_rank,
            lottery_columns=tuple(self._columns),
            lottery_finished=tuple(self._finished),
            kitty_size=len(self._kitty),
            pending_cards=len(self._pending),
            moon_options=self.moon_projection() if acting and self.phase is Phase.MOON else None,
            hearts_broken=self._hearts_broken,
        )

    # --- the one way to change the state -------------------------------------------------------------------

    def apply(self, action: Action, seat: int | None = None) -> list[Event]:
        """Validate and apply the choice of the seat to act; return the events it caused."""
        if self.phase is Phase.OVER:
            raise IllegalActionError("game-over", "the game is over: no more choices are taken")
        if seat is not None and seat != self.to_act:
            raise IllegalActionError(
                "turn", f"it is seat {self.to_act}'s turn to {self.phase.value}, not seat {seat}'s"
            )
        start = len(self.events)
        kind = type(action)
        phase = self.phase
        if kind is PlayCard and phase is Phase.PLAY:
            self._play(action.card)  # type: ignore[union-attr]
        elif kind is PassCards and phase is Phase.PASS:
            self._pass(action.cards)  # type: ignore[union-attr]
        elif kind is ChooseTrump and phase is Phase.TRUMP:
            self._choose_trump(action.suit)  # type: ignore[union-attr]
        elif kind is ChooseMoon and phase is Phase.MOON:
            self._choose_moon(action.option)  # type: ignore[union-attr]
        else:
            raise IllegalActionError(
                "decision",
                f"seat {self.to_act} must make a {self.phase.value} decision now, not {type(action).__name__}",
            )
        return self.events[start:]

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
        self._breaks_with_queen = self.ruleset.qs_breaks_hearts
        self._kitty = list(spec.kitty)
        self.trump: Suit | None = None
        self.trick_number = 1
        self._leader = (self.dealer + 1) % n
        self._plays: list[tuple[int, Card]] = []
        self._tricks: list[TrickEnded] = []
        self._trick_views: list[TrickView] = []  # the public part of each finished trick, made once
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
            self._start_lottery()
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
        if self.ruleset.game is Game.HEARTS:
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
        self.ended_deal = self.copy()
        if self._kierki:
            over = self.deal_number == len(self._kinds)
        else:
            over = max(self.totals) >= self.ruleset.target
        if over:
            self.final_places = places(self.totals, highest_wins=self._kierki)
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

    def _pass(self, cards: tuple[Card, ...]) -> None:
        seat = self.to_act
        if len(cards) != PASS_COUNT:
            raise IllegalActionError("pass-count", f"pass exactly {PASS_COUNT} cards, not {len(cards)}")
        if not all(type(c) is int and 0 <= c < 52 for c in cards):
            raise IllegalActionError("card", f"{cards!r} are not {PASS_COUNT} cards")
        if self._double_deck:
            held = Counter(self.hand(seat))
            wanted = Counter(cards)
            owned = wanted <= held
        else:
            wanted_mask = mask_of(cards)
            owned = wanted_mask.bit_count() == PASS_COUNT and not wanted_mask & ~self.hands[seat]
        if not owned:
            held, wanted = Counter(self.hand(seat)), Counter(cards)
            missing = " ".join(card_name(c) for c in sorted((wanted - held).elements()))
            if set(wanted) <= set(held):
                raise IllegalActionError("pass-own-cards", f"you hold only one {missing}: pass different cards")
            raise IllegalActionError("pass-own-cards", f"you cannot pass {missing}: not in your hand")
        self._passes[seat] = tuple(cards)
        n = self.players
        for step in range(1, n):
            if self._passes[(seat + step) % n] is None:
                self.to_act = (seat + step) % n
                return
        passed = tuple(p or () for p in self._passes)
        offset = self._pass_offset
        if self._double_deck:
            for giver, given in enumerate(passed):
                for card in given:
                    self._remove(giver, card)
            for giver, given in enumerate(passed):
                for card in given:
                    self._add((giver + offset) % n, card)
        else:
            hands = self.hands
            masks = [mask_of(given) for given in passed]
            for giver in range(n):
                hands[giver] ^= masks[giver]
            for giver in range(n):
                hands[(giver + offset) % n] |= masks[giver]
        self._exchanged = passed
        self.events.append(
            PassesExchanged(self._pass_offset, passed, self.deal_number, tuple(tuple(self.hand(s)) for s in range(n)))
        )
        self._start_play()

    def _choose_trump(self, suit: Suit | None) -> None:
        if suit not in self.trump_choices():
            allowed = "C, D, H, S" + (" or no trump" if self.ruleset.allow_no_trump else "")
            raise IllegalActionError("trump-suit", f"name a trump suit: {allowed}")
        self.trump = suit
        self.events.append(TrumpChosen(self.dealer, suit, self._dealt_event))
        self._start_play()

    # --- legal plays ---------------------------------------------------------------------------------------

    def _legal_mask(self) -> int:
        if self._legal < 0:
            if self.kind is DealKind.LOTTERY:
                self._legal = self._lottery_legal(self.to_act)
            elif self._kierki:
                self._legal = self._kierki_legal()
            else:
                self._legal = self._hearts_legal()
        return self._legal

    def _kierki_legal(self) -> int:
        hand = self.hands[self.to_act]
        if not self._plays:
            if self.kind in kierki_scoring.HEART_LEAD_BAN and hand & _NOT_HEARTS:
                return hand & _NOT_HEARTS
            return hand
        follow = hand & SUIT_MASKS[self._plays[0][1] & 3]
        legal = follow or hand
        kh = 1 << make_card(11, HEARTS)
        if self.ruleset.kh_must_discard and self.kind is DealKind.NO_KING_OF_HEARTS and legal & kh:
            return kh
        return legal

    def _hearts_legal(self) -> int:
        hand = self.hands[self.to_act]
        first_trick = self.trick_number == 1
        if not self._plays:
            if first_trick:
                if self.ruleset.game is Game.HEARTS:
                    return 1 << TWO_OF_CLUBS
                return (hand & ~POINT_CARDS_MASK) or hand
            if self._hearts_broken:
                return hand
            # Hearts unbroken: no heart lead, unless the hand is only hearts, or hearts and Q♠ [A-H5].
            return hand if not (hand & _NOT_HEARTS & ~_QS_BIT) else hand & _NOT_HEARTS or hand
        follow = hand & SUIT_MASKS[self._plays[0][1] & 3]
        if follow:
            return follow
        if first_trick and self.ruleset.first_trick_no_points:
            safe = hand & ~POINT_CARDS_MASK
            if safe:
                return safe
            if self.ruleset.first_trick_prefer_heart_over_qs and hand & HEARTS_MASK:
                return hand & HEARTS_MASK
        return hand

    def _lottery_legal(self, seat: int) -> int:
        hand = self.hands[seat]
        if self._start_rank is None:
            if self.ruleset.lottery_missing_2c is LotteryMissing2C.FORBID_TWO and self.ruleset.game is Game.KIERKI3:
                twos = mask_of(make_card(TWO, s) for s in range(4))
                return (hand & ~twos) or hand
            return hand
        return hand & self._playable

    # --- playing -------------------------------------------------------------------------------------------

    def _play(self, card: Card) -> None:
        legal = self._legal if self._legal >= 0 else self._legal_mask()
        if type(card) is not int or not 0 <= card < 52 or not legal >> card & 1:
            raise IllegalActionError(*self._explain_illegal(card))
        seat = self.to_act
        if self._double_deck:
            self._remove(seat, card)
        else:
            self.hands[seat] ^= 1 << card
        self._legal = -1
        self.events.append(CardPlayed(seat, card, self.deal_number))
        if self.kind is DealKind.LOTTERY:
            self._lottery_play(seat, card)
            return
        if card & 3 == HEARTS or (card == QUEEN_OF_SPADES and self._breaks_with_queen):
            self._hearts_broken = True
        plays = self._plays
        plays.append((seat, card))
        if len(plays) < self.players:
            self.to_act = (seat + 1) % self.players
        else:
            self._end_trick()

    def _explain_illegal(self, card: object) -> tuple[str, str]:
        if type(card) is not int or not 0 <= card < 52:
            return "card", f"{card!r} is not a card"
        name = card_name(card)
        hand = self.hands[self.to_act]
        if not hand >> card & 1:
            return "own-card", f"{name} is not in your hand"
        legal = " ".join(card_name(c) for c in card_list(self._legal_mask()))
        if self.kind is DealKind.LOTTERY:
            if self._start_rank is None:
                return (
                    "lottery-no-two-start",
                    f"{name}: the loteryjka may not open with a 2 (lottery_missing_2c=forbid_two)",
                )
            return "lottery-column", f"{name} does not fit a column on the table; legal: {legal}"
        if self._plays:
            led = self._plays[0][1] & 3
            if hand & SUIT_MASKS[led] and card & 3 != led:
                return "follow-suit", (
                    f"{name}: you must follow suit ({SUIT_LETTERS[led]}) when you can; legal: {legal}"
                )
            if self._kierki:
                return "kh-must-discard", f"{name}: you must play K♥ now (kh_must_discard)"
            if self.trick_number == 1:
                return "first-trick-points", (
                    f"{name}: no heart or Q♠ on the first trick while you hold another card; legal: {legal}"
                )
        if self._kierki:
            return "heart-lead-ban", (
                f"{name}: in this deal you may not lead a heart while you hold another suit; legal: {legal}"
            )
        if self.trick_number == 1 and self.ruleset.game is Game.HEARTS:
            return "two-of-clubs-leads", "the 2♣ must open the first trick"
        if self.trick_number == 1:
            return "first-lead", f"{name}: the first lead may not be a heart or Q♠; legal: {legal}"
        return "hearts-not-broken", (f"{name}: hearts may not be led until a heart has been played; legal: {legal}")

    def _end_trick(self) -> None:
        plays = self._plays
        leader = self._leader
        number = self.trick_number
        winner = self._double_deck_winner() if self._double_deck else self._single_deck_winner()
        cards = [card for _, card in plays]
        last = number == self._tricks_per_deal
        if winner is None and last:
            winner = self._last_cancelled_winner()
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
            self._score_trick(winner, collected, number)
        self._tricks.append(TrickEnded(number, leader, tuple(plays), winner, tuple(collected), self.deal_number))
        self._trick_views.append(TrickView(number, leader, tuple(plays), winner, self.deal_number))
        self.events.append(self._tricks[-1])
        self._plays = []
        self._leader = next_leader
        self.to_act = next_leader
        self.trick_number += 1
        if last:
            self._end_of_tricks(early=False)
        elif self.kind in kierki_scoring.PENALTY_KINDS:
            self._taken |= mask_of(cards)
            if kierki_scoring.ends_early(self.kind, self._taken, self.ruleset):
                self._end_of_tricks(early=True)

    def _single_deck_winner(self) -> int:
        best_seat, best = self._plays[0]
        trump = self.trump
        for seat, card in self._plays[1:]:
            suit = card & 3
            if (suit == best & 3 and card > best) or (suit == trump and best & 3 != trump):
                best_seat, best = seat, card
        return best_seat

    def _double_deck_winner(self) -> int | None:
        led = self._plays[0][1] & 3
        cancelled = cancelled_cards(card for _, card in self._plays)
        live = [(card, seat) for seat, card in self._plays if card & 3 == led and card not in cancelled]
        return max(live)[1] if live else None

    def _last_cancelled_winner(self) -> int | None:
        rule = self.ruleset.last_cancelled
        if rule is LastCancelled.LEADER:
            return self._leader
        if rule is LastCancelled.SECOND_HIGHEST:
            led = self._plays[0][1] & 3
            top = max(card for _, card in self._plays if card & 3 == led)
            return [seat for seat, card in self._plays if card == top][-1]
        return None

    def _score_trick(self, winner: int, collected: list[Card], number: int) -> None:
        if self.kind is DealKind.TRUMP:
            self._deal_scores[winner] += self.ruleset.trump_trick_value
        elif self._kierki:
            self._deal_scores[winner] += kierki_scoring.trick_penalty(
                self.kind, mask_of(collected), number, self.ruleset
            )
        elif self._double_deck:
            self._deal_scores[winner] += sum(
                1 if card & 3 == HEARTS else 13 if card == QUEEN_OF_SPADES else 0 for card in collected
            )
        else:
            taken = mask_of(collected)
            self._deal_scores[winner] += (taken & HEARTS_MASK).bit_count() + 13 * (taken >> QUEEN_OF_SPADES & 1)

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

    def _default_moon(self) -> MoonOption:
        rule = self.ruleset.moon_default
        if rule is MoonDefault.SELF:
            return MoonOption.SELF
        if rule is MoonDefault.SAFETY:
            others = self.moon_projection()[MoonOption.OTHERS]
            ends = max(others) >= self.ruleset.target
            if ends and others[self._shooter] > min(others):
                return MoonOption.SELF
        return MoonOption.OTHERS

    # --- the loteryjka -------------------------------------------------------------------------------------

    def _start_lottery(self) -> None:
        self.phase = Phase.PLAY
        if self.ruleset.lottery_start is LotteryStart.DEALER:
            self.to_act = self.dealer
            return
        self._open_lottery(int(self.ruleset.lottery_start) - 2)
        self.to_act = self.dealer
        self._next_lottery_turn()

    def _open_lottery(self, rank: int) -> None:
        self._start_rank = rank
        self._playable = mask_of(make_card(rank, s) for s in range(4))
        virtual_two = self.ruleset.lottery_missing_2c is LotteryMissing2C.VIRTUAL
        if rank == TWO and self.ruleset.game is Game.KIERKI3 and virtual_two:
            self._extend_column(CLUBS, TWO)

    def _extend_column(self, suit: Suit, rank: int) -> None:
        column = self._columns[suit]
        lo, hi = (rank, rank) if column is None else (min(column[0], rank), max(column[1], rank))
        self._columns[suit] = (lo, hi)
        playable = self._playable & ~SUIT_MASKS[suit]
        if lo > 0:
            playable |= 1 << make_card(lo - 1, suit)
        if hi < 12:
            playable |= 1 << make_card(hi + 1, suit)
        self._playable = playable

    def _lottery_play(self, seat: int, card: Card) -> None:
        if self._start_rank is None:
            self._open_lottery(card >> 2)
        self._extend_column(card & 3, card >> 2)
        if not self.hands[seat]:
            self._finished.append(seat)
            bonus = kierki_scoring.VALUES[self.ruleset.game].lottery_bonuses[len(self._finished) - 1]
            self._deal_scores[seat] += bonus
            self.events.append(PlayerOut(seat, len(self._finished), bonus, self.deal_number))
            if len(self._finished) == 2:
                self._finish_deal(list(self._deal_scores), early=True)
                return
        self._next_lottery_turn()

    def _next_lottery_turn(self) -> None:
        """Move to the next seat that can play, passing automatically for those that cannot."""
        seat = self.to_act
        for _ in range(self.players):
            seat = (seat + 1) % self.players
            if not self.hands[seat]:
                continue
            if self._lottery_legal(seat):
                self.to_act = seat
                self._legal = -1
                return
            self.events.append(LotteryPassed(seat, self.deal_number))
        raise AssertionError("loteryjka deadlock: a full lap of passes (a rules-core bug)")


def cancelled_cards(cards: Iterable[Card]) -> tuple[Card, ...]:
    """Cancellation Hearts: the cards played twice to one trick (one from each deck), which cancel each other."""
    counts = Counter(cards)
    return tuple(sorted(card for card, count in counts.items() if count > 1))


def _default_trump(seen: Sequence[Card]) -> Suit:
    """Most cards among those seen; ties by the higher sum of ranks, then ♠ > ♥ > ♦ > ♣ [A-K8]."""
    return max(
        range(4),
        key=lambda s: (
            sum(1 for c in seen if c & 3 == s),
            sum(c >> 2 for c in seen if c & 3 == s),
            s,
        ),
    )
