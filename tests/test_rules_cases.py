"""Hand-worked cases for every rule and every ambiguity row of RULES.md, by game and section.

Every expected value is worked out by hand in the comments next to it: the layouts are chosen so that the play
can be followed on paper (often one seat holds a whole suit), and where the referee's fallback plays for a
seat, it plays the lowest legal card id (id = rank*4 + suit, suits C D H S), which the comments follow.
"""

from __future__ import annotations

from collections import Counter

import msgspec
import pytest
from rules_helpers import (
    assert_illegal,
    build_deal,
    card,
    cards,
    deal,
    deal_events,
    deal_result,
    dump_deal_file,
    kierki_at,
    last_trick,
    lead_and_follow,
    name_set,
    names,
    new_state,
    play,
    play_fallback,
    play_until,
    rotate,
    snapshot,
    tricks_of,
)

from referee.dealfile import check_deal_file, parse_deal_file
from referee.rules import (
    CardPlayed,
    ChooseMoon,
    ChooseTrump,
    DealEnded,
    DealKind,
    DealSpec,
    DealSpecError,
    DealStarted,
    Event,
    Game,
    GameEnded,
    GameState,
    IllegalActionError,
    LastCancelled,
    LotteryMissing2C,
    LotteryPassed,
    LotteryStart,
    MoonDefault,
    MoonOption,
    MoonShot,
    Observation,
    PassCards,
    PassesExchanged,
    Passing,
    Phase,
    PlayCard,
    PlayerOut,
    Ruleset,
    RulesetError,
    TrumpChosen,
    card_name,
    parse_card,
)
from referee.rules.cards import CLUBS, DIAMONDS, HEARTS, SPADES, CardParseError, parse_trump, trump_name
from referee.rules.fallback import default_trump
from referee.rules.kierki_scoring import trick_penalty
from referee.rules.results import places

# ------------------------------------------------------------------------------------------------------------
# Layouts used in several places (4 players unless said). Seat 0 is listed first.
# ------------------------------------------------------------------------------------------------------------

# Each seat holds one whole suit. With dealer 3, seat 0 leads clubs and wins every trick (nobody can follow).
SUIT_PER_SEAT = ["C:AKQJT98765432", "D:AKQJT98765432", "H:AKQJT98765432", "S:AKQJT98765432"]

# Seat 0 leads its seven high clubs and wins tricks 1-7 (seat 1's clubs are lower; at trick 7 seat 1 is void and
# throws its lowest card, 8♦). Then seat 0 leads 2♦ and seat 1 wins tricks 8-13 with 9♦ T♦ J♦ Q♦ K♦ A♦ over seat
# 0's 3♦..7♦. Seats 2 and 3 throw hearts / spades lowest first: the 2 falls in trick 1, the 3 in trick 2, ...
# the ace in trick 13.
SPLIT = ["C:AKQJT98 D:765432", "C:765432 D:AKQJT98", "H:AKQJT98765432", "S:AKQJT98765432"]
SPLIT_LEADS = "AC KC QC JC TC 9C 8C"

# 3 players (dealer 2, seat 0 leads): seat 0 wins trick 1 with A♦ (seat 1 follows 6♦) and tricks 2-13 with its
# twelve clubs, leading A♣ down to 3♣. Meanwhile seats 1 and 2 throw their lowest cards: seat 1 6♥ 7♦ 7♥ 8♦
# 8♥ 9♦ 9♥ T♦ T♥ J♦ J♥ Q♦ (tricks 2-13), seat 2 2♥ (trick 1) then 2♠ 3♥ 3♠ 4♥ 4♠ 5♥ 5♠ 6♠ 7♠ 8♠ 9♠ T♠.
# Trick 14: seat 0 leads 2♦ and seat 1 wins with K♦ (its only diamond left); seat 1 then leads Q♥ K♥ A♥ and
# wins tricks 15-17, over seat 2's J♠ Q♠ K♠ / A♠ and seat 0's 3♦ 4♦ 5♦.
SPLIT3 = ["AD C:AKQJT9876543 D:2345", "D:6789TJQK H:6789TJQKA", "H:2345 S:AKQJT98765432"]
SPLIT3_LEADS = "AD AC KC QC JC TC 9C 8C 7C 6C 5C 4C 3C"


def play_split_deal(state: GameState, leads: str = SPLIT_LEADS) -> DealEnded:
    """Play a SPLIT layout: seat 0 leads the given cards, the fallback does everything else."""
    number = state.deal_number
    for lead in leads.split():
        if state.deal_number != number:
            break
        lead_and_follow(state, lead)
    play_until(state, lambda s: s.deal_number != number or s.is_over)
    return deal_result(state, number)


def kinds_of_match(state: GameState) -> list[DealKind]:
    return [e.kind for e in state.events if isinstance(e, DealStarted)]


def finish(state: GameState) -> GameState:
    play_until(state, lambda s: s.is_over, limit=20000)
    return state


# ============================================================================================================
# §0 Conventions: cards, ranks, seats, dealing, determinism
# ============================================================================================================


def shuffled_deck(seed: str, size: int) -> list[int]:
    """Deal 1 of game 1's shuffled deck, by the documented algorithm (dealing.py): Fisher-Yates on below()."""
    from referee.rules.dealing import KeyedStream

    stream = KeyedStream(seed, b"deal", 1, 1)
    deck = list(range(52)) if size == 52 else [c for c in range(52) for _ in range(2)]
    for i in range(len(deck) - 1, 0, -1):
        j = stream.below(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


class TestConventions:
    def test_card_ids_are_openspiel_rank_times_four_plus_suit(self) -> None:
        # 2♣ = 0, Q♠ = 10*4+3 = 43, K♥ = 11*4+2 = 46, A♠ = 12*4+3 = 51 (RULES.md §0).
        assert [parse_card(n) for n in ("2C", "QS", "KH", "AS", "2D", "TH")] == [0, 43, 46, 51, 1, 34]
        assert parse_card("TH") == 34
        assert [card_name(c) for c in range(52)] == [r + s for r in "23456789TJQKA" for s in "CDHS"]

    def test_a_trump_is_written_as_its_suit_letter_or_nt(self) -> None:
        # The one written form of a trump choice: the protocol's, the replay logs', the mismatch messages'.
        assert [trump_name(s) for s in (CLUBS, DIAMONDS, HEARTS, SPADES, None)] == ["C", "D", "H", "S", "NT"]
        assert [parse_trump(name) for name in ("C", "D", "H", "S", "NT")] == [CLUBS, DIAMONDS, HEARTS, SPADES, None]
        with pytest.raises(CardParseError, match="not a suit"):
            parse_trump("N")

    @pytest.mark.parametrize("bad", ["1C", "QX", "Q", "QSS", "", "11H", "10H", "th", "qs", " QS", "QS\n"])
    def test_bad_card_names_are_refused(self, bad: str) -> None:
        with pytest.raises(CardParseError, match="not a card"):
            parse_card(bad)

    def test_ranks_run_two_low_to_ace_high(self) -> None:
        # A-K1: 2 < ... < 10 < J < Q < K < A. Deal 1 (no tricks), dealer 3, so seat 0 leads.
        spec = build_deal(Ruleset.create("kierki"), {0: "TC 4D", 1: "JC AD", 2: "9C", 3: "2C"}, dealer=3)
        state = new_state("kierki", spec)
        play(state, "TC JC 9C 2C")  # J beats 10
        assert last_trick(state).winner == 1
        play(state, "AD")  # seat 1 leads; the remaining plays are followed by the fallback
        play_fallback(state, 3)
        assert last_trick(state).winner == 1  # the A♦ cannot be beaten
        assert last_trick(state).plays[0] == (1, card("AD"))

    def test_play_goes_clockwise_and_dealer_left_leads(self) -> None:
        # §0: clockwise = increasing seat index; dealer+1 leads trick 1 (2.1 rule 4).
        state = new_state("kierki", SUIT_PER_SEAT, dealer=1)
        assert state.to_act == 2
        play(state, "2H")
        assert state.to_act == 3
        play(state, "2S")
        assert state.to_act == 0
        play(state, "2C")
        assert state.to_act == 1

    def test_dealing_is_one_card_at_a_time_from_the_dealers_left(self) -> None:
        # §0 dealing: the first card to dealer+1, then clockwise (the shuffle itself: tests/test_dealing.py).
        ruleset = Ruleset.create("kierki")
        for seed in ("1", "2", "3"):
            started = GameState(ruleset, seed=seed).events[0]
            assert isinstance(started, DealStarted)
            deck = shuffled_deck(seed, 52)
            hands: list[list[int]] = [[], [], [], []]
            for i, c in enumerate(deck):
                hands[(started.dealer + 1 + i) % 4].append(c)
            assert [list(h) for h in started.hands] == hands

    def test_golden_first_deals_never_change_silently(self) -> None:
        # Pinned once; a changed shuffle or deal order must show up here. Hands in dealing order.
        golden = {
            1: (
                0,
                [
                    "9D JS 3H JC TH 8S QH 6S 8D KS 6C 6H 4H",
                    "9S JD 7D AS AD AC 5S 9C 6D TC KD 5D 2S",
                    "7C TS 2C 8H 2D AH 4D 3C 7S 9H QS 3S JH",
                    "4C QC 8C 5H 2H 7H 5C KC QD TD 3D KH 4S",
                ],
            ),
            2: (
                3,
                [
                    "2S 9D JC 9S 6H 2C 5D 4C QH 6S AD TH 8D",
                    "AH 5C 6D JH 7C KS 5H 8H 9H 4H QC 7H 3D",
                    "TC 4D 7S JS KD AS 3C QD 6C 8S 9C TD 3H",
                    "JD 7D KC 3S TS 2H 2D KH AC 5S QS 8C 4S",
                ],
            ),
        }
        for seed, (dealer, hands) in golden.items():
            started = GameState(Ruleset.create("kierki"), seed=seed).events[0]
            assert isinstance(started, DealStarted)
            assert started.dealer == dealer
            assert [names(h) for h in started.hands] == hands

    @pytest.mark.parametrize("game", ["kierki", "kierki3", "hearts", "cancellation"])
    def test_same_seed_same_game(self, game: str) -> None:
        def run(seed: int) -> list[Event]:
            ruleset = Ruleset.create(game, None, {"target": 60} if game in ("hearts", "cancellation") else {})
            return finish(GameState(ruleset, seed=seed)).events

        assert run(11) == run(11)
        assert run(11) != run(12)

    def test_copy_is_independent(self) -> None:
        state = GameState(Ruleset.create("hearts"), seed=5)
        before = snapshot(state)
        other = state.copy()
        play_fallback(other, 6)
        assert snapshot(state) == before
        play_fallback(state, 6)
        assert snapshot(state) == snapshot(other)

    def test_observation_fields_are_all_known(self) -> None:
        # The leak checks of test_rules_machine.py inspect these fields; a new one must be reviewed there too.
        assert set(Observation.__dataclass_fields__) == {
            "game", "players", "seat", "deal", "kind", "dealer", "phase", "to_act", "hand", "hand_sizes",
            "trump", "trump_named", "pass_offset", "passed", "received", "trick_leader", "trick", "tricks",
            "deal_scores", "totals", "legal", "lottery_start_rank", "lottery_columns", "lottery_finished",
            "kitty_size", "pending_cards", "moon_options", "hearts_broken",
        }  # fmt: skip

    def test_which_total_wins_is_a_property_of_the_game(self) -> None:
        # A-K16: the highest Kierki total wins; A-H8, A-CH16: the lowest Hearts total.
        assert [game for game in Game if game.higher_is_better] == [Game.KIERKI, Game.KIERKI3]
        for game, players in (("kierki", 4), ("kierki3", 3), ("hearts", 4), ("cancellation", 6)):
            state = GameState(Ruleset.create(game, players), seed=1)
            state.totals = [5, 0, -5, *([3] * (players - 3))]
            first = 0 if Game(game).higher_is_better else 2
            assert state.places_by_totals()[first] == 1

    def test_places_share_equal_totals(self) -> None:
        # A-K16, A-H8, A-CH16: competition ranking, 1 is best.
        assert places([100, 100, -50, -150], highest_wins=True) == (1, 1, 3, 4)
        assert places([10, 10, 30, 5], highest_wins=False) == (2, 2, 4, 1)
        assert places([0, 0, 0], highest_wins=True) == (1, 1, 1)


# ============================================================================================================
# Rule options (ruleset.py)
# ============================================================================================================


class TestOptions:
    def test_defaults_follow_rules_md(self) -> None:
        k4 = Ruleset.create("kierki").options()
        assert k4["deal6_tricks"] == (7, 13)
        assert k4["rozbojnik"] is True
        assert k4["play_out_all_tricks"] is False
        assert k4["kh_must_discard"] is False
        assert k4["allow_no_trump"] is False
        assert k4["lottery_start"] == "dealer"
        assert "trump_trick_value_3p" not in k4 and "lottery_missing_2c" not in k4
        k3 = Ruleset.create("kierki3").options()
        assert k3["deal6_tricks"] == (7, 17)  # A-K3-1
        assert k3["trump_trick_value_3p"] == 20  # A-K3-6
        assert k3["lottery_missing_2c"] == "virtual"  # A-K3-7
        hearts = Ruleset.create("hearts").options()
        assert hearts["qs_breaks_hearts"] is False  # A-H3
        assert hearts["first_trick_no_points"] is True
        assert hearts["target"] == 100
        assert hearts["passing"] == "cycle"
        assert hearts["moon_value"] == 26 and hearts["moon_default"] == "others"
        cancel = Ruleset.create("cancellation", 7).options()
        assert cancel["qs_breaks_hearts"] is True  # A-CH6
        assert cancel["first_trick_no_points"] is False  # A-CH5
        assert cancel["target"] == 150
        assert cancel["passing"] == "alternate"
        assert cancel["last_cancelled"] == "nobody"  # A-CH11

    def test_values_are_parsed_from_text_and_native(self) -> None:
        ruleset = Ruleset.create("kierki", None, {"deal6_tricks": "3,8", "rozbojnik": "false", "lottery_start": 7})
        assert ruleset.deal6_tricks == (3, 8)
        assert ruleset.rozbojnik is False
        assert ruleset.lottery_start is LotteryStart.SEVEN
        hearts = Ruleset.create("hearts", 4, {"moon_value": "52", "qs_breaks_hearts": "yes", "target": 60})
        assert (hearts.moon_value, hearts.qs_breaks_hearts, hearts.target) == (52, True, 60)
        assert Ruleset.create("kierki3", None, {"trump_trick_value_3p": 25}).trump_trick_value == 25
        assert Ruleset.create("kierki").trump_trick_value == 25
        assert Ruleset.create("kierki3").trump_trick_value == 20

    def test_choice_options_are_enums_that_keep_their_text(self) -> None:
        hearts = Ruleset.create("hearts", 4, {"passing": "left", "moon_default": "safety"})
        assert hearts.passing is Passing.LEFT and hearts.moon_default is MoonDefault.SAFETY
        cancel = Ruleset.create("cancellation", 6, {"last_cancelled": "leader"})
        assert cancel.passing is Passing.ALTERNATE and cancel.last_cancelled is LastCancelled.LEADER
        k3 = Ruleset.create("kierki3", None, {"lottery_missing_2c": "forbid_two", "lottery_start": "8"})
        assert k3.lottery_missing_2c is LotteryMissing2C.FORBID_TWO and k3.lottery_start is LotteryStart.EIGHT
        # The replay header and the hello message carry the same text as before the enums.
        assert msgspec.json.encode(hearts.options()).count(b'"passing":"left"') == 1
        assert "moon_default=safety" in hearts.describe()

    @pytest.mark.parametrize(
        ("game", "players", "options", "message"),
        [
            ("whist", None, {}, "unknown game 'whist': choose one of kierki, kierki3, hearts, cancellation"),
            ("hearts", 5, {}, "hearts is played by 4 players, not 5"),
            ("cancellation", 5, {}, "cancellation is played by 6 to 11 players, not 5"),
            ("cancellation", 12, {}, "6 to 11 players, not 12"),
            ("hearts", 4, {"rozbojnik": True}, "hearts has no option rozbojnik; its options are: "),
            ("kierki", 4, {"trump_trick_value_3p": 25}, "kierki has no option trump_trick_value_3p"),
            ("kierki", 4, {"lottery_missing_2c": "virtual"}, "kierki has no option lottery_missing_2c"),
            ("kierki3", 3, {"lottery_rounds": 3}, "kierki3 has no option lottery_rounds"),  # A-K3-9
            ("hearts", 4, {"qs_breaks_hearts": "maybe"}, "option qs_breaks_hearts: 'maybe' is not true or false"),
            ("hearts", 4, {"target": "lots"}, "option target: 'lots' is not a whole number"),
            ("hearts", 4, {"target": True}, "option target: True is not a whole number"),
            ("hearts", 4, {"moon_value": 30}, "option moon_value: 30 is not allowed (choose one of: 26, 52)"),
            ("kierki3", 3, {"trump_trick_value_3p": 30}, "(choose one of: 20, 25)"),
            ("kierki", 4, {"lottery_start": "9"}, "(choose one of: dealer, 7, 8)"),
            (
                "hearts",
                4,
                {"passing": "alternate"},
                "option passing: 'alternate' is not allowed (choose one of: cycle, left, none)",
            ),
            ("cancellation", 6, {"passing": "cycle"}, "(choose one of: alternate, left, right, none)"),
            ("hearts", 4, {"target": 0}, "option target: 0 is too small (the least is 1)"),
            ("cancellation", 6, {"target": "-5"}, "option target: '-5' is too small (the least is 1)"),
            ("cancellation", 6, {"last_cancelled": "first"}, "nobody, leader, second_highest"),
            ("kierki", 4, {"deal6_tricks": "7,7"}, "option deal6_tricks: give two different trick numbers"),
            ("kierki", 4, {"deal6_tricks": "7,14"}, "from 1 to 13"),
            ("kierki3", 3, {"deal6_tricks": "0,17"}, "from 1 to 17"),
            ("kierki", 4, {"deal6_tricks": "7"}, "give two different trick numbers"),
            ("kierki", 4, {"deal6_tricks": "seven"}, "option deal6_tricks: 'seven' is not a list of numbers like 7,13"),
        ],
    )
    def test_bad_rulesets_are_refused_with_a_helpful_message(
        self, game: str, players: int | None, options: dict[str, object], message: str
    ) -> None:
        with pytest.raises(RulesetError) as caught:
            Ruleset.create(game, players, options)
        assert message in str(caught.value)

    def test_unknown_option_lists_the_known_ones(self) -> None:
        with pytest.raises(RulesetError) as caught:
            Ruleset.create("cancellation", 8, {"moon": 52})
        text = str(caught.value)
        for name in ("moon_value", "last_cancelled", "passing", "target", "qs_breaks_hearts"):
            assert name in text

    def test_describe_and_players_default(self) -> None:
        assert Ruleset.create("kierki3").players == 3
        assert Ruleset.create("cancellation").players == 6
        assert Ruleset.create("hearts").describe().startswith("hearts (4 players) first_trick_no_points=true")


# ============================================================================================================
# Deal files (referee/dealfile.py) and given deals
# ============================================================================================================


class TestDealFiles:
    def test_round_trip_kierki(self) -> None:
        ruleset = Ruleset.create("kierki")
        specs = [deal(SPLIT, 3), deal(SUIT_PER_SEAT, None)]
        text = dump_deal_file(ruleset, specs)
        parsed = parse_deal_file(text)
        assert parsed.game == "kierki" and parsed.players == 4
        assert list(parsed.deals) == specs
        check_deal_file(parsed, ruleset)
        # Dealing order is kept, not sorted: the first card of seat 0 is A♣ as written.
        assert msgspec.json.decode(text)["deals"][0]["hands"][0][:2] == ["AC", "KC"]

    def test_round_trip_cancellation_with_kitty(self) -> None:
        ruleset = Ruleset.create("cancellation", 7)
        spec = GameState(ruleset, seed=4).events[0]
        assert isinstance(spec, DealStarted)
        given = DealSpec(spec.hands, spec.kitty, spec.dealer)
        parsed = parse_deal_file(dump_deal_file(ruleset, [given]))
        assert parsed.deals == (given,)
        check_deal_file(parsed, ruleset)
        # A given deal is played exactly as given.
        started = GameState(ruleset, seed=99, deals=parsed.deals).events[0]
        assert isinstance(started, DealStarted)
        assert (started.hands, started.kitty, started.dealer) == (spec.hands, spec.kitty, spec.dealer)

    def test_a_wrong_deck_is_refused(self) -> None:
        hands = list(SPLIT)
        hands[0] = hands[0].replace("D:765432", "D:765433")  # 3♦ twice, 2♦ missing
        bad = dump_deal_file(Ruleset.create("kierki"), [deal(hands, 3)])
        parsed = parse_deal_file(bad)
        with pytest.raises(DealSpecError) as caught:
            check_deal_file(parsed, Ruleset.create("kierki"))
        assert "deal 1: the deal does not hold the kierki deck exactly: missing 2D; extra or repeated 3D" in str(
            caught.value
        )
        with pytest.raises(DealSpecError, match="deal 1: "):
            GameState(Ruleset.create("kierki"), deals=parsed.deals)

    def test_the_three_player_deck_has_no_two_of_clubs(self) -> None:
        # §3.1 rule 1: 51 cards, 17 each. Dealing 2♣ in a kierki3 deal is an error.
        with_two = [SPLIT3[0].replace("C:AKQJT9876543", "C:AKQJT9876542"), SPLIT3[1], SPLIT3[2]]
        with pytest.raises(DealSpecError, match="missing 3C; extra or repeated 2C"):
            GameState(Ruleset.create("kierki3"), deals=[deal(with_two, 2)])
        short = [SPLIT3[0].replace("D:2345", "D:234"), SPLIT3[1], SPLIT3[2]]
        with pytest.raises(DealSpecError, match="hand 0 has 16 cards; each hand must have 17"):
            GameState(Ruleset.create("kierki3"), deals=[deal(short, 2)])
        GameState(Ruleset.create("kierki3"), deals=[deal(SPLIT3, 2)])  # the layout itself is a valid deal

    @pytest.mark.parametrize(
        ("document", "message"),
        [
            ('{"format": "other", "version": 1, "game": "kierki", "deals": []}', "this one has 'other' version 1"),
            ('{"format": "kierki-deals", "version": 2, "game": "kierki", "deals": []}', "version 2"),
            ('{"format": "kierki-deals", "version": 1, "game": "kierki", "deals": [], "x": 1}', "not a valid"),
            ('{"format": "kierki-deals", "version": 1, "game": "kierki", "deals": [{"hands": [["ZZ"]]}]}',
             "deal 1: 'ZZ' is not a card"),
            ("not json", "not a valid deal file"),
        ],
    )  # fmt: skip
    def test_bad_files_are_refused(self, document: str, message: str) -> None:
        with pytest.raises(DealSpecError) as caught:
            parse_deal_file(document)
        assert message in str(caught.value)

    def test_game_players_hands_and_dealer_are_checked(self) -> None:
        ruleset = Ruleset.create("kierki")
        text = dump_deal_file(ruleset, [deal(SPLIT, 3)])
        with pytest.raises(DealSpecError, match="the deal file is for kierki, not hearts"):
            check_deal_file(parse_deal_file(text), Ruleset.create("hearts"))
        cancel = parse_deal_file(dump_deal_file(Ruleset.create("cancellation", 7), []))
        with pytest.raises(DealSpecError, match="for 7 players, not 8"):
            check_deal_file(cancel, Ruleset.create("cancellation", 8))
        with pytest.raises(DealSpecError, match="a kierki deal has 4 hands, not 3"):
            GameState(ruleset, deals=[deal(SPLIT[:3], 3)])
        with pytest.raises(DealSpecError, match="dealer 4 is not a seat"):
            GameState(ruleset, deals=[deal(SPLIT, 4)])
        with pytest.raises(DealSpecError, match="deal 2: "):
            GameState(ruleset, deals=[deal(SPLIT, 3), deal(SPLIT, 9)])
        with pytest.raises(DealSpecError, match="extra or repeated 2C"):
            GameState(ruleset, deals=[deal(SPLIT, 3, kitty="2C")])

    def test_later_deals_come_from_the_seed(self) -> None:
        # One given deal (dealer 3); deal 2 is dealt from the seed by the next dealer, seat 0.
        state = GameState(Ruleset.create("kierki"), seed=3, deals=[deal(SPLIT, 3)])
        play_split_deal(state)
        started = deal_events(state, 2)[0]
        assert isinstance(started, DealStarted)
        assert started.dealer == 0
        assert started.hands != deal(SPLIT, 3).hands
        assert sorted(c for h in started.hands for c in h) == list(range(52))


# ============================================================================================================
# §2 Polish Kierki, 4 players
# ============================================================================================================

PENALTY_ORDER = [
    DealKind.NO_TRICKS,
    DealKind.NO_HEARTS,
    DealKind.NO_QUEENS,
    DealKind.NO_KINGS_JACKS,
    DealKind.NO_KING_OF_HEARTS,
    DealKind.NO_SEVENTH_LAST,
]


class TestKierkiMatch:
    def test_twelve_deals_in_the_fixed_order(self) -> None:
        # 2.1 rule 2; 3.1 rule 2 (A-K3-2, A-K3-3): 3 players play the same order with one trump deal fewer.
        k4 = finish(GameState(Ruleset.create("kierki"), seed=1))
        assert kinds_of_match(k4) == [*PENALTY_ORDER, DealKind.ROBBER, *[DealKind.TRUMP] * 4, DealKind.LOTTERY]
        k3 = finish(GameState(Ruleset.create("kierki3"), seed=1))
        assert kinds_of_match(k3) == [*PENALTY_ORDER, DealKind.ROBBER, *[DealKind.TRUMP] * 3, DealKind.LOTTERY]
        short = finish(GameState(Ruleset.create("kierki", None, {"rozbojnik": False}), seed=1))
        assert kinds_of_match(short) == [*PENALTY_ORDER, *[DealKind.TRUMP] * 4, DealKind.LOTTERY]

    @pytest.mark.parametrize("game", ["kierki", "kierki3"])
    def test_dealer_rotates_and_each_player_names_trump_once(self, game: str) -> None:
        # 2.1 rule 3: dealer(k) = (d0 + k - 1) mod n; every seat deals the same number of times and one trump deal.
        state = finish(GameState(Ruleset.create(game), seed=8))
        started = [e for e in state.events if isinstance(e, DealStarted)]
        n = state.players
        d0 = started[0].dealer
        assert [e.dealer for e in started] == [(d0 + k) % n for k in range(len(started))]
        assert sorted(e.dealer for e in started if e.kind is DealKind.TRUMP) == list(range(n))
        assert sorted(e.seat for e in state.events if isinstance(e, TrumpChosen)) == list(range(n))

    @pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
    def test_a_whole_match_sums_to_zero(self, seed: int) -> None:
        # K4-c, §2.3: -1300 (deals 1-6) - 1300 (robber) + 1300 (trumps) + 1300 (800 + 500) = 0.
        state = finish(GameState(Ruleset.create("kierki"), seed=seed))
        assert sum(state.totals) == 0
        sums = [sum(r.scores) for r in state.deal_results]
        assert sums == [-260, -260, -240, -240, -150, -150, -1300, 325, 325, 325, 325, 1300]
        # 2.1 rule 11: the highest total wins, equal totals share a place.
        assert state.final_places == places(state.totals, highest_wins=True)
        assert state.events[-1] == GameEnded(tuple(state.totals), state.final_places)
        assert state.phase is Phase.OVER and state.to_act == -1

    def test_without_the_robber_the_match_does_not_balance(self) -> None:
        # -1300 + 1300 + 1300 = +1300 (option rozbojnik=false, 11 deals).
        state = finish(GameState(Ruleset.create("kierki", None, {"rozbojnik": False}), seed=2))
        assert len(state.deal_results) == 11
        assert sum(state.totals) == 1300


class TestKierkiPenaltyDeals:
    # SPLIT, worked trick by trick in its comment: seat 0 takes tricks 1-7, seat 1 tricks 8-13.
    @pytest.mark.parametrize(
        ("number", "scores", "tricks", "early"),
        [
            # 1: 7 tricks x -20, 6 tricks x -20.
            (1, (-140, -120, 0, 0), 13, False),
            # 2: hearts 2♥-8♥ fall in tricks 1-7, 9♥-A♥ in 8-13; the 13th heart is in the last trick.
            (2, (-140, -120, 0, 0), 13, False),
            # 3: Q♣ in trick 3 (seat 0); Q♦ Q♥ Q♠ all in trick 11 (seat 1), which ends the deal.
            (3, (-60, -180, 0, 0), 11, True),
            # 4: K♣ J♣ (tricks 2, 4) to seat 0; J♦ J♥ J♠ in trick 10, K♦ K♥ K♠ in trick 12 (the 8th pan).
            (4, (-60, -180, 0, 0), 12, True),
            # 5: K♥ in trick 12, taken by seat 1.
            (5, (0, -150, 0, 0), 12, True),
            # 6: trick 7 to seat 0, trick 13 to seat 1.
            (6, (-75, -75, 0, 0), 13, False),
            # 7: seat 0: 7 tricks -140, hearts 2-8 -140, Q♣ -60, K♣ J♣ -60, 7th trick -75 = -475.
            #    seat 1: 6 tricks -120, hearts 9-A -120, 3 queens -180, 6 panowie -180, K♥ -150, last -75 = -825.
            (7, (-475, -825, 0, 0), 13, False),
        ],
    )
    def test_each_kind_scores_and_ends_when_it_should(
        self, number: int, scores: tuple[int, ...], tricks: int, early: bool
    ) -> None:
        # 2.1 rules 7 and 8 (A-K3, A-K7): values, and the early end at the trick with the last penalty card.
        state = kierki_at(number, SPLIT, dealer=3)
        assert state.kind is [*PENALTY_ORDER, DealKind.ROBBER][number - 1]
        result = play_split_deal(state)
        assert result.scores == scores
        assert sum(scores) == [-260, -260, -240, -240, -150, -150, -1300][number - 1]
        assert result.early is early
        assert len(tricks_of(deal_events(state, number))) == tricks
        # The unplayed cards of an early end are never shown: only the played ones appear as events.
        assert sum(isinstance(e, CardPlayed) for e in deal_events(state, number)) == 4 * tricks
        assert state.deal_number == number + 1

    @pytest.mark.parametrize("number", [2, 3, 4, 5])
    def test_play_out_all_tricks_gives_the_same_scores(self, number: int) -> None:
        # A-K7 option play_out_all_tricks=true: every deal runs 13 tricks, scores unchanged.
        state = kierki_at(number, SPLIT, dealer=3, options={"play_out_all_tricks": True})
        result = play_split_deal(state)
        expected = {2: (-140, -120, 0, 0), 3: (-60, -180, 0, 0), 4: (-60, -180, 0, 0), 5: (0, -150, 0, 0)}
        assert result.scores == expected[number]
        assert result.early is False
        assert len(tricks_of(deal_events(state, number))) == 13

    @pytest.mark.parametrize(
        ("number", "layout", "plays", "tricks", "scores"),
        [
            # No hearts: seats 1-3 throw three hearts a trick; 6♥ in trick 5 is the 13th.
            (2, "fast_hearts", "AC 2H 7H JH KC 3H 8H QH QC 4H 9H KH JC 5H TH AH TC 6H TD 6S", 5, -260),
            (3, "suits", "QC QD QH QS", 1, -240),  # all four queens at once
            (4, "suits", "KC KD KH KS JC JD JH JS", 2, -240),  # the 8th pan in trick 2
            (5, "suits", "2C 2D KH 2S", 1, -150),  # K♥ thrown in trick 1
        ],
    )
    def test_early_end_right_after_the_last_penalty_card(
        self, number: int, layout: str, plays: str, tricks: int, scores: int
    ) -> None:
        hands = SUIT_PER_SEAT
        if layout == "fast_hearts":
            hands = ["C:AKQJT98765432", "H:65432 D:98765432", "H:T987 D:AKQJT S:5432", "H:AKQJ S:AKQJT9876"]
        for play_out in (False, True):
            state = kierki_at(number, hands, dealer=3, options={"play_out_all_tricks": play_out})
            events = play(state, plays)
            if not play_out:
                (ended,) = [e for e in events if isinstance(e, DealEnded)]
                assert (ended.deal, ended.kind) == (number, PENALTY_ORDER[number - 1])
                assert (ended.scores, ended.early) == ((scores, 0, 0, 0), True)
                assert len(tricks_of(deal_events(state, number))) == tricks
                assert state.deal_number == number + 1
            else:
                assert state.deal_number == number
                play_until(state, lambda s: s.deal_number != number)
                assert deal_result(state, number).scores == (scores, 0, 0, 0)
                assert deal_result(state, number).early is False

    @pytest.mark.parametrize(
        ("tricks", "scores"),
        [("7,13", (-75, -75, 0, 0)), ("1,8", (-75, -75, 0, 0)), ("1,7", (-150, 0, 0, 0)), ("8,13", (0, -150, 0, 0))],
    )
    def test_deal6_trick_choice(self, tricks: str, scores: tuple[int, ...]) -> None:
        # A-K6: tricks 7 and 13 by default; a player taking both pays -150. SPLIT: 1-7 seat 0, 8-13 seat 1.
        state = kierki_at(6, SPLIT, dealer=3, options={"deal6_tricks": tricks})
        assert play_split_deal(state).scores == scores


# The robber example (K4-a): seat 0 holds every club and takes every trick; trick 7 is 2♣ K♥ Q♠ 5♥ ... in seat
# order 2♣ (seat 0), 5♥ (seat 1), K♥ (seat 2), Q♠ (seat 3).
ROBBER = ["C:AKQJT98765432", "D:AKQJT9876543 5H", "H:AKQJT9876432 2D", "S:AKQJT98765432"]
ROBBER_TRICKS = [
    "AC 3D 2H 2S",
    "KC 4D 3H 3S",
    "QC 5D 4H 4S",
    "JC 6D 6H 5S",
    "TC 7D 7H 6S",
    "9C 8D 8H 7S",
]


class TestRobber:
    def test_the_seeds_example_costs_375(self) -> None:
        # K4-a / A-K2: trick -20, K♥ and 5♥ -40, Q♠ -60, K♥ as a pan -30, K♥ -150, 7th trick -75 = -375.
        state = kierki_at(7, ROBBER, dealer=3)
        for trick in ROBBER_TRICKS:
            play(state, trick)
        # Before trick 7: 6 tricks -120, hearts 2 3 4 6 7 8 -120, Q♣ -60, K♣ J♣ -60 = -360.
        assert state.observation(0).deal_scores == (-360, 0, 0, 0)
        play(state, "2C 5H KH QS")
        assert last_trick(state).winner == 0
        assert state.observation(0).deal_scores == (-360 - 375, 0, 0, 0)
        play_until(state, lambda s: s.deal_number == 8)
        assert deal_result(state, 7).scores == (-1300, 0, 0, 0)  # one player took everything

    @pytest.mark.parametrize(
        ("trick", "number", "value"),
        [
            ("KH QS 5H 2C", 7, -375),
            ("KH QH QS QD", 7, -495),  # the worst possible robber trick (§2.3)
            ("KH QH QS QC", 13, -495),
            ("KH 2C 3C 4C", 2, -20 - 200),  # K♥ = heart -20 + pan -30 + K♥ -150
            ("QH 2C 3C 4C", 2, -20 - 80),  # Q♥ = heart -20 + queen -60
            ("JH 2C 3C 4C", 2, -20 - 50),  # J♥ = heart -20 + pan -30
            ("QS 2C 3C 4C", 2, -20 - 60),
            ("KS JC 3C 4C", 2, -20 - 60),  # K♠ and J♣ -30 each
            ("2C 3C 4C 5C", 13, -20 - 75),  # the last trick
        ],
    )
    def test_robber_counts_a_card_in_every_category(self, trick: str, number: int, value: int) -> None:
        # A-K2, 2.1 rule 7: the robber is the sum of every category, each card counted in each it belongs to.
        assert trick_penalty(DealKind.ROBBER, _mask(trick), number, Ruleset.create("kierki")) == value

    @pytest.mark.parametrize(
        ("kind", "trick", "number", "value"),
        [
            (DealKind.NO_TRICKS, "KH QS 5H 2C", 7, -20),
            (DealKind.NO_HEARTS, "KH QS 5H 2C", 7, -40),
            (DealKind.NO_QUEENS, "KH QS QH QC", 7, -180),
            (DealKind.NO_KINGS_JACKS, "KH JS QH KC", 7, -90),
            (DealKind.NO_KING_OF_HEARTS, "KH QS 5H 2C", 7, -150),
            (DealKind.NO_KING_OF_HEARTS, "KS QS 5H 2C", 7, 0),
            (DealKind.NO_SEVENTH_LAST, "KH QS 5H 2C", 7, -75),
            (DealKind.NO_SEVENTH_LAST, "KH QS 5H 2C", 13, -75),
            (DealKind.NO_SEVENTH_LAST, "KH QS 5H 2C", 12, 0),
        ],
    )
    def test_each_penalty_deal_counts_only_its_own_category(
        self, kind: DealKind, trick: str, number: int, value: int
    ) -> None:
        # A-K3: the reconstructed points table, 4 players.
        assert trick_penalty(kind, _mask(trick), number, Ruleset.create("kierki")) == value

    @pytest.mark.parametrize(
        ("kind", "trick", "number", "value"),
        [
            (DealKind.NO_TRICKS, "KH QS 5H 3C", 7, -15),
            (DealKind.NO_HEARTS, "KH QS 5H 3C", 7, -40),
            (DealKind.NO_QUEENS, "KH QS QH 3C", 7, -120),
            (DealKind.NO_KINGS_JACKS, "KH JS QH 3C", 7, -60),
            (DealKind.NO_KING_OF_HEARTS, "KH QS 5H 3C", 7, -140),
            (DealKind.NO_SEVENTH_LAST, "KH QS 5H", 17, -70),
            (DealKind.NO_SEVENTH_LAST, "KH QS 5H", 13, 0),  # A-K3-1: not trick 13 with 3 players
            # -15 trick, -40 hearts, -60 queen, -30 pan, -140 K♥, -70 seventh = -355.
            (DealKind.ROBBER, "KH QS 5H", 7, -355),
        ],
    )
    def test_three_player_values(self, kind: DealKind, trick: str, number: int, value: int) -> None:
        # §3.1 rule 3: -15 trick, -20 heart, -60 queen, -30 pan, -140 K♥, -70 for tricks 7 and 17.
        assert trick_penalty(kind, _mask(trick), number, Ruleset.create("kierki3")) == value


def _mask(text: str) -> int:
    return sum(1 << c for c in cards(text))


# Heart-lead ban layout (dealer 3): seat 0 holds seven high clubs and six low hearts, so it is on lead with a
# choice; seat 2 is void in clubs and may throw hearts.
BAN = ["C:AKQJT98 H:765432", "C:765432 D:8765432", "D:AKQJT9 H:AKQJT98", "S:AKQJT98765432"]


class TestHeartLeadBan:
    @pytest.mark.parametrize("number", [1, 2, 3, 4, 5, 6, 7])
    def test_only_deals_2_5_7_ban_the_heart_lead(self, number: int) -> None:
        # 2.1 rule 6, A-K3-4.
        state = kierki_at(number, BAN, dealer=3)
        legal = name_set(state.legal_plays())
        if number in (2, 5, 7):
            assert legal == name_set(cards("C:AKQJT98"))
            error = assert_illegal(state, PlayCard(card("2H")), "heart-lead-ban")
            assert "legal: 8C 9C TC JC QC KC AC" in error.message
        else:
            assert legal == name_set(cards(BAN[0]))

    @pytest.mark.parametrize("number", [2, 5, 7])
    def test_no_breaking_and_a_hearts_only_leader_may_lead_hearts(self, number: int) -> None:
        # A-K4: a heart thrown (allowed when void) does not lift the ban; holding only hearts does.
        state = kierki_at(number, BAN, dealer=3)
        play(state, "AC 2C")
        assert card("8H") in state.legal_plays()  # seat 2 is void in clubs: may throw a heart
        play(state, "8H 2S")
        assert last_trick(state).winner == 0
        assert name_set(state.legal_plays()) == name_set(cards("C:KQJT98"))  # still no heart lead
        for lead in ["KC", "QC", "JC", "TC", "9C", "8C"]:
            lead_and_follow(state, lead)
        assert state.to_act == 0 and state.trick_number == 8
        assert name_set(state.legal_plays()) == name_set(cards("H:765432"))

    def test_trump_deals_and_the_lottery_have_no_lead_restriction(self) -> None:
        state = kierki_at(8, BAN, dealer=3)
        state.apply(ChooseTrump(SPADES))
        assert name_set(state.legal_plays()) == name_set(cards(BAN[0]))
        lottery = kierki_at(12, BAN, dealer=0)
        assert name_set(lottery.legal_plays()) == name_set(cards(BAN[0]))  # the dealer opens with anything

    def test_king_of_hearts_need_not_be_dumped_by_default(self) -> None:
        # A-K5: kh_must_discard=false; with the house rule the K♥ is the only legal card when it can be played.
        state = kierki_at(5, SUIT_PER_SEAT, dealer=3)
        play(state, "2C 2D")
        assert name_set(state.legal_plays()) == name_set(cards(SUIT_PER_SEAT[2]))
        house = kierki_at(5, SUIT_PER_SEAT, dealer=3, options={"kh_must_discard": True})
        play(house, "2C 2D")
        assert name_set(house.legal_plays()) == ["KH"]
        assert_illegal(house, PlayCard(card("2H")), "kh-must-discard")
        play(house, "KH 2S")  # and the deal ends at once: K♥ is taken
        assert deal_result(house, 5).scores == (-150, 0, 0, 0)


# Trump deal layout (dealer 3 names trump). Seat 3's hand is written in dealing order: its first five cards
# are 9♦ A♥ 10♦ K♥ J♦ (three diamonds, two hearts).
TRUMP = [
    "C:AKQJT98765432",
    "D:8765432 S:765432",
    "H:765432 S:AKQJT98",
    "9D AH TD KH JD QH JH TH 9H 8H QD KD AD",
]


class TestTrumpDeals:
    def test_the_dealer_sees_only_the_first_five_cards_and_others_see_nothing(self) -> None:
        # 2.1 rule 9, A-K8.
        state = kierki_at(8, TRUMP, dealer=3)
        assert state.kind is DealKind.TRUMP
        assert state.phase is Phase.TRUMP and state.to_act == 3
        seen = cards("9D AH TD KH JD")
        assert state.trump_cards_seen() == seen
        assert state.observation(3).hand == seen  # in dealing order, not sorted
        for seat in (0, 1, 2):
            assert state.observation(seat).hand == ()
        assert all(state.observation(s).hand_sizes == (0, 0, 0, 0) for s in range(4))
        assert state.observation(3).trump_named is False
        assert state.legal_plays() == []
        assert state.trump_choices() == [CLUBS, DIAMONDS, HEARTS, SPADES]

    def test_naming_trump_reveals_the_hands(self) -> None:
        state = kierki_at(8, TRUMP, dealer=3)
        assert_illegal(state, PlayCard(card("AC")), "decision")
        assert_illegal(state, ChooseTrump(SPADES), "turn", seat=0)
        assert_illegal(state, ChooseTrump(None), "trump-suit")  # A-K9: no "no trump" by default
        assert_illegal(state, ChooseTrump(4), "trump-suit")
        assert state.apply(ChooseTrump(SPADES), 3) == [TrumpChosen(3, SPADES)]
        assert state.phase is Phase.PLAY and state.to_act == 0  # dealer+1 leads
        for seat in range(4):
            observation = state.observation(seat)
            assert name_set(observation.hand) == name_set(cards(TRUMP[seat]))
            assert observation.trump == SPADES and observation.trump_named

    def test_trumps_win_and_nobody_has_to_trump(self) -> None:
        # 2.1 rules 4, 5, 9; A-K10.
        state = kierki_at(8, TRUMP, dealer=3)
        state.apply(ChooseTrump(SPADES))
        play(state, "AC")
        assert name_set(state.legal_plays()) == name_set(cards(TRUMP[1]))  # void: any card, trump or not
        play(state, "2S 8S 8H")  # seat 1 trumps, seat 2 over-trumps
        assert last_trick(state).winner == 2
        play(state, "2H")
        assert name_set(state.legal_plays()) == name_set(cards("AH KH QH JH TH 9H"))  # must follow, not trump
        play(state, "9H 2C 3S")  # seat 1 trumps a heart trick
        assert last_trick(state).winner == 1
        play(state, "2D")
        assert name_set(state.legal_plays()) == name_set(cards("H:76543 S:AKQJT9"))  # void in ♦, may discard
        play(state, "3H 9D 3C")  # no trump played: the highest diamond wins
        assert last_trick(state).winner == 3
        assert state.observation(0).deal_scores == (0, 25, 25, 25)
        # The rest by the fallback (lowest id), worked by hand: seat 3 wins tricks 4-6 (10♦, 10♥, J♦),
        # seat 1 trumps trick 7 with 4♠ (its lowest card), seat 2 takes 8-13 with 9♠ 10♠ J♠ Q♠ K♠ A♠.
        play_until(state, lambda s: s.deal_number == 9)
        assert deal_result(state, 8).scores == (0, 50, 175, 100)

    def test_no_trump_option(self) -> None:
        # A-K9 option allow_no_trump: the highest card of the led suit wins.
        state = kierki_at(8, TRUMP, dealer=3, options={"allow_no_trump": True})
        assert state.trump_choices() == [CLUBS, DIAMONDS, HEARTS, SPADES, None]
        assert state.apply(ChooseTrump(None)) == [TrumpChosen(3, None)]
        play(state, "AC 2S 8S 8H")
        assert last_trick(state).winner == 0

    @pytest.mark.parametrize(
        ("seen", "suit"),
        [
            ("9D AH TD KH JD", DIAMONDS),  # most cards
            ("2C 3C AH KH 5D", HEARTS),  # 2 clubs (ranks 0+1) vs 2 hearts (12+11): higher rank sum
            ("2C 5C 3H 4H 9D", HEARTS),  # 2+2 cards, rank sums 3 = 3: ♥ before ♣
            ("2S 5S 3H 4H 9D", SPADES),  # ... and ♠ before ♥
            ("2C 3D 4H 5S 6C", CLUBS),
        ],
    )
    def test_default_trump_for_a_silent_dealer(self, seen: str, suit: int) -> None:
        # A-K8: most cards among the five seen, then the higher sum of ranks, then ♠ > ♥ > ♦ > ♣.
        assert default_trump(cards(seen)) == suit

    def test_fallback_names_the_default_trump(self) -> None:
        state = kierki_at(8, TRUMP, dealer=3)
        assert state.fallback_action() == ChooseTrump(DIAMONDS)


# K4-b: the dealer (seat 0) opens 8♣; 9♣ 7♣ 10♣ 6♣ follow, so clubs 6-10 are on the table and seat 1 holds
# 4♣ 5♣ J♣ 8♥ 9♥ 8♠ Q♦ and five low diamonds.
LOTTERY_K4B = [
    "8C 6C 2C 3C QC KC AC 7D 8D 9D TD JD KD",
    "9C 4C 5C JC 8H 9H 8S QD 2D 3D 4D 5D 6D",
    "7C AD H:AKQJT765432",
    "TC S:AKQJT9765432",
]

# A whole loteryjka (dealer 0 opens 7♣, then the fallback): seat 0 runs its clubs down 6 5 4 3, then 7♠, then
# 8♣ up to A♣; seats 1 and 2 run diamonds / hearts down from 7 then up; seat 3 can play nothing until seat 0's
# 3♣ lets its 2♣ in (4 automatic passes), then spades. Seats 0 and 1 both play every round, so seat 0 goes out
# first in round 13 (+800) and seat 1 right after it (+500), which ends the deal: seat 2 keeps A♥ and seat 3
# keeps 10♠ J♠ Q♠ K♠ A♠, and they score 0.
LOTTERY_RUN = ["C:AKQJT9876543 7S", "D:AKQJT98765432", "H:AKQJT98765432", "2C S:AKQJT9865432"]


class TestLottery:
    def test_the_dealer_opens_with_any_card(self) -> None:
        # 2.1 rule 10, A-K11.
        state = kierki_at(12, LOTTERY_K4B, dealer=0)
        assert state.kind is DealKind.LOTTERY and state.phase is Phase.PLAY
        assert state.to_act == 0
        assert name_set(state.legal_plays()) == name_set(cards(LOTTERY_K4B[0]))
        assert state.observation(0).lottery_start_rank is None

    def test_k4b_legal_set(self) -> None:
        # K4-b: columns extend at both ends (5♣, J♣) and the start rank opens the other suits (8♥, 8♠).
        state = kierki_at(12, LOTTERY_K4B, dealer=0)
        play(state, "8C")
        assert name_set(state.legal_plays()) == name_set(cards("9C 8H 8S"))
        play(state, "9C 7C TC 6C")
        assert state.to_act == 1
        assert name_set(state.legal_plays()) == name_set(cards("5C JC 8H 8S"))
        observation = state.observation(1)
        assert observation.lottery_start_rank == 6  # rank index of the 8
        assert observation.lottery_columns == ((4, 8), None, None, None)  # clubs 6..10
        for wrong in ("4C", "9H", "QD", "2D"):
            error = assert_illegal(state, PlayCard(card(wrong)), "lottery-column")
            assert "legal: 5C 8H 8S JC" in error.message
        # A-K14: there is no voluntary pass.
        assert_illegal(state, PassCards(cards("4C 9H QD")), "decision")

    def test_a_whole_lottery(self) -> None:
        # 2.1 rule 10, A-K13, A-K14, A-K15 (LOTTERY_RUN's comment has the play worked out).
        state = kierki_at(12, LOTTERY_RUN, dealer=0)
        before = tuple(state.totals)
        play(state, "7C")
        play_fallback(state, 2)  # seats 1 and 2 can only play 7♦ and 7♥; seat 3 then has nothing
        events = deal_events(state, 12)
        assert state.to_act == 0
        assert events[1:5] == [
            CardPlayed(0, card("7C")),
            CardPlayed(1, card("7D")),
            CardPlayed(2, card("7H")),
            LotteryPassed(3),
        ]
        play_until(state, lambda s: s.is_over)
        events = deal_events(state, 12)
        assert [e.seat for e in events if isinstance(e, LotteryPassed)] == [3, 3, 3, 3]
        assert [e for e in events if isinstance(e, PlayerOut)] == [PlayerOut(0, 1, 800), PlayerOut(1, 2, 500)]
        played = Counter(e.seat for e in events if isinstance(e, CardPlayed))
        assert played == {0: 13, 1: 13, 2: 12, 3: 8}
        result = deal_result(state, 12)
        assert result.scores == (800, 500, 0, 0) and result.early is True
        assert state.totals == [b + s for b, s in zip(before, (800, 500, 0, 0), strict=True)]
        assert state.hand(2) == list(cards("AH"))
        assert state.hand(3) == sorted(cards("TS JS QS KS AS"))
        assert sum(state.totals) == 0  # K4-c
        assert state.is_over

    def test_columns_do_not_wrap(self) -> None:
        # 2.1 rule 10: ace is high and 2 is low; no A-2 wrap in either direction.
        state = kierki_at(12, SUIT_PER_SEAT, dealer=3)
        play(state, "AS")
        assert name_set(state.legal_plays()) == ["AC"]
        play(state, "AC AD AH")
        assert name_set(state.legal_plays()) == ["KS"]  # not 2♠
        low = kierki_at(12, SUIT_PER_SEAT, dealer=3)
        play(low, "2S 2C 2D 2H")
        assert name_set(low.legal_plays()) == ["3S"]  # not A♠

    def test_fixed_start_rank_option(self) -> None:
        # A-K11 option lottery_start=7: the 7s open the suits and dealer+1 moves first (here seat 3, which
        # holds no 7 and passes at once).
        state = kierki_at(12, LOTTERY_RUN, dealer=2, options={"lottery_start": "7"})
        assert deal_events(state, 12)[1:] == [LotteryPassed(3)]
        assert state.to_act == 0
        assert state.observation(0).lottery_start_rank == 5
        assert name_set(state.legal_plays()) == name_set(cards("7C 7S"))
        eights = kierki_at(12, SUIT_PER_SEAT, dealer=0, options={"lottery_start": "8"})
        assert eights.to_act == 1 and name_set(eights.legal_plays()) == ["8D"]


# ============================================================================================================
# §3 Kierki, 3 players
# ============================================================================================================


class TestKierki3:
    @pytest.mark.parametrize(
        ("number", "scores", "tricks"),
        [
            (1, (-195, -60, 0), 17),  # 13 and 4 tricks at -15
            (2, (-200, -60, 0), 17),  # hearts 2-5 (seat 2) and 6-J (seat 1's discards) to seat 0; Q K A♥ to 1
            (3, (-120, -120, 0), 15),  # Q♣ (trick 4), Q♦ (discard, trick 13); Q♥ Q♠ in trick 15
            (4, (-120, -120, 0), 16),  # K♣ J♣ J♦ J♥ to seat 0; K♦ J♠ (trick 14), K♥ K♠ (trick 16) to seat 1
            (5, (0, -140, 0), 16),  # K♥ in trick 16
            (6, (-70, -70, 0), 17),  # A-K3-1: tricks 7 and 17
            # Robber: seat 0 -195 tricks, -200 hearts, -120 queens, -120 panowie, -70 7th = -705;
            #         seat 1 -60 tricks, -60 hearts, -120 queens, -120 panowie, -140 K♥, -70 last = -570.
            (7, (-705, -570, 0), 17),
        ],
    )
    def test_each_kind_with_three_players(self, number: int, scores: tuple[int, ...], tricks: int) -> None:
        # §3.1 rules 3 and 4 on the SPLIT3 layout (its comment has the play).
        state = kierki_at(number, SPLIT3, dealer=2, game="kierki3")
        result = play_split_deal(state, SPLIT3_LEADS)
        assert result.scores == scores
        assert sum(scores) == [-255, -260, -240, -240, -140, -140, -1275][number - 1]
        assert len(tricks_of(deal_events(state, number))) == tricks
        assert result.early is (tricks < 17)

    @pytest.mark.parametrize(("tricks", "scores"), [("16,17", (0, -140, 0)), ("7,13", (-140, 0, 0))])
    def test_deal6_alternatives(self, tricks: str, scores: tuple[int, ...]) -> None:
        # A-K3-1: [16, 17] is the named alternative; seat 0 takes tricks 1-13, seat 1 tricks 14-17.
        state = kierki_at(6, SPLIT3, dealer=2, game="kierki3", options={"deal6_tricks": tricks})
        assert play_split_deal(state, SPLIT3_LEADS).scores == scores

    def test_heart_lead_ban_in_deals_2_5_7(self) -> None:
        # A-K3-4: seat 1 of SPLIT3 holds diamonds and hearts; make it the leader (dealer 0).
        for number in range(1, 8):
            state = kierki_at(number, SPLIT3, dealer=0, game="kierki3")
            legal = name_set(state.legal_plays())
            banned = name_set(cards("D:6789TJQK"))
            assert (legal == banned) is (number in (2, 5, 7)), number

    def test_trump_dealer_sees_their_own_first_six_cards(self) -> None:
        # A-K3-5, §3.1 rule 5.
        state = kierki_at(8, SPLIT3, dealer=2, game="kierki3")
        seen = cards("2H 3H 4H 5H AS KS")
        assert state.trump_cards_seen() == seen
        assert state.observation(2).hand == seen
        assert state.observation(0).hand == state.observation(1).hand == ()

    @pytest.mark.parametrize(("options", "per_trick"), [({}, 20), ({"trump_trick_value_3p": 25}, 25)])
    def test_trump_trick_value(self, options: dict[str, object], per_trick: int) -> None:
        # A-K3-6: +20 a trick by default, 17 tricks a deal.
        state = kierki_at(8, SPLIT3, dealer=2, game="kierki3", options=options)
        state.apply(ChooseTrump(CLUBS))
        play_until(state, lambda s: s.deal_number == 9)
        scores = deal_result(state, 8).scores
        assert sum(scores) == 17 * per_trick
        assert all(s % per_trick == 0 for s in scores)

    @pytest.mark.parametrize(
        ("options", "total"),
        [({}, -255), ({"trump_trick_value_3p": 25}, 0), ({"rozbojnik": False}, 1020)],
    )
    def test_whole_match_sums(self, options: dict[str, object], total: int) -> None:
        # K3-a and §3.2: -1275 - 1275 + 3*17*20 + (790 + 485) = -255; with +25 a trick 0; no robber +1020.
        for seed in (1, 2, 3):
            state = finish(GameState(Ruleset.create("kierki3", None, options), seed=seed))
            assert sum(state.totals) == total

    def test_a_whole_three_player_lottery(self) -> None:
        # §3.1 rule 6, A-K3-8. Dealer 0 opens 7♣ and the fallback plays on. Worked by hand: seat 0 runs clubs
        # 6-3, then 7♦ 6♦ .. 3♦, then 8♣ .. A♣ and plays every round; seat 1 plays 7♥ 6♥ 8♥ 9♥ 10♥, then
        # 8♦ 9♦ 10♦ J♦ 2♦ J♥ Q♦ Q♥ K♦ K♥ A♦ A♥, every round too; seat 2 follows with hearts 5-2 and spades.
        # Seat 0 is out first in round 17 (+790), seat 1 right after (+485); seat 2 keeps A♠ and scores 0.
        hands = ["C:AKQJT9876543 D:76543", "2D D:AKQJT98 H:AKQJT9876", "H:5432 S:AKQJT98765432"]
        state = kierki_at(11, hands, dealer=0, game="kierki3")
        assert state.kind is DealKind.LOTTERY
        play(state, "7C")
        play_until(state, lambda s: s.is_over)
        events = deal_events(state, 11)
        assert [e for e in events if isinstance(e, PlayerOut)] == [PlayerOut(0, 1, 790), PlayerOut(1, 2, 485)]
        assert not any(isinstance(e, LotteryPassed) for e in events)
        assert deal_result(state, 11).scores == (790, 485, 0)
        assert state.hand(2) == list(cards("AS"))
        assert sum(state.totals) == -255  # K3-a

    def test_virtual_two_of_clubs(self) -> None:
        # A-K3-7, §3.1 rule 7: opened at rank 2, clubs count as opened at a virtual 2♣, so 3♣ is playable.
        hands = ["C:AKQJT9876543 D:76543", "2D D:AKQJT98 H:AKQJT9876", "H:5432 S:AKQJT98765432"]
        state = kierki_at(11, hands, dealer=1, game="kierki3")
        play(state, "2D")
        assert state.observation(0).lottery_columns == ((0, 0), (0, 0), None, None)
        assert name_set(state.legal_plays()) == name_set(cards("2H 2S"))
        play(state, "2H")
        assert name_set(state.legal_plays()) == name_set(cards("3C 3D"))

    def test_forbid_two_option(self) -> None:
        # A-K3-7 alternative lottery_missing_2c=forbid_two: the dealer may not open with a 2.
        hands = ["C:AKQJT9876543 D:76543", "2D D:AKQJT98 H:AKQJT9876", "H:5432 S:AKQJT98765432"]
        state = kierki_at(11, hands, dealer=1, game="kierki3", options={"lottery_missing_2c": "forbid_two"})
        assert name_set(state.legal_plays()) == name_set(cards("D:AKQJT98 H:AKQJT9876"))
        assert_illegal(state, PlayCard(card("2D")), "lottery-no-two-start")
        play(state, "9H")
        assert state.observation(1).lottery_columns == (None, None, (7, 7), None)


# ============================================================================================================
# §4 Hearts
# ============================================================================================================

NO_PASS = {"passing": "none"}

# Seat 0 must lead 2♣; seat 1 wins trick 1 with its A♣ (taking the 2♥ that seat 2, all hearts, may throw on
# trick 1 since it holds nothing else) and leads 2♦ to trick 2, which seat 0's lone A♦ wins (with 3♥). Seat 0
# then leads clubs and takes everything else: 11 hearts, Q♠ and the 3♥ = 25 for seat 0, 1 for seat 1.
HEARTS_SPLIT = ["C:KQJT98765432 AD", "AC D:KQJT98765432", "H:AKQJT98765432", "S:AKQJT98765432"]


def hearts_hand_to_end(state: GameState) -> None:
    number = state.deal_number
    play_until(state, lambda s: s.deal_number != number or s.is_over or s.phase is Phase.MOON)


class TestHeartsPassing:
    def test_directions_cycle_by_hand(self) -> None:
        # §4.1 rule 3, A-H1: left (+1), right (+3), across (+2), none, and again: per hand, not per trick.
        state = GameState(Ruleset.create("hearts", 4, {"target": 1000}), seed=1)
        offsets = []
        for number in range(1, 9):
            started = deal_events(state, number)[0]
            assert isinstance(started, DealStarted)
            offsets.append(started.pass_offset)
            if started.pass_offset:
                assert state.phase is Phase.PASS
                exchanged = play_fallback(state, 4)[0]
                assert isinstance(exchanged, PassesExchanged)
                for giver, given in enumerate(exchanged.passed):
                    receiver = (giver + started.pass_offset) % 4
                    assert set(given) <= set(state.hand(receiver))
                    assert not set(given) & set(state.hand(giver))
            else:
                assert state.phase is Phase.PLAY  # hold hand: straight to the 2♣ lead
            play_until(state, lambda s, n=number: s.deal_number > n)  # type: ignore[misc]
        assert offsets == [1, 3, 2, 0, 1, 3, 2, 0]

    def test_passing_is_simultaneous(self) -> None:
        # §4.1 rule 3: nobody receives before everyone has passed; the passer sees what it passed.
        state = new_state("hearts", HEARTS_SPLIT, dealer=3)
        assert (state.phase, state.to_act) == (Phase.PASS, 0)  # dealer+1 chooses first
        give = cards("KC QC JC")
        assert state.apply(PassCards(give), 0) == []
        assert set(give) <= set(state.hand(0))  # still held until the exchange
        assert state.observation(0).passed == give
        assert state.observation(1).received == () and not set(give) & set(state.observation(1).hand)
        assert state.to_act == 1
        state.apply(PassCards(cards("KD QD JD")), 1)
        state.apply(PassCards(cards("AH KH QH")), 2)
        assert not any(isinstance(e, PassesExchanged) for e in state.events)
        events = state.apply(PassCards(cards("AS KS QS")), 3)
        assert events[0] == PassesExchanged(1, (give, cards("KD QD JD"), cards("AH KH QH"), cards("AS KS QS")))
        assert set(cards("AS KS QS")) <= set(state.hand(0))  # seat 3 passes left to seat 0
        assert state.observation(0).received == cards("AS KS QS")
        assert state.observation(1).received == give
        # §4.1 rule 4, A-H9: the holder of 2♣ leads it.
        assert state.phase is Phase.PLAY and state.to_act == 0
        assert state.legal_plays() == [card("2C")]
        assert_illegal(state, PlayCard(card("3C")), "two-of-clubs-leads")

    def test_pass_must_be_three_own_cards(self) -> None:
        state = new_state("hearts", HEARTS_SPLIT, dealer=3)
        assert_illegal(state, PassCards(cards("KC QC")), "pass-count")
        assert_illegal(state, PassCards(cards("KC QC JC TC")), "pass-count")
        assert_illegal(state, PassCards(cards("KC QC AH")), "pass-own-cards")
        assert_illegal(state, PassCards(cards("KC KC QC")), "pass-own-cards")  # one K♣, passed twice
        assert_illegal(state, PassCards((99, 0, 1)), "card")
        assert_illegal(state, PassCards(("KC", "QC", "JC")), "card")  # type: ignore[arg-type]
        assert_illegal(state, PassCards(cards("AD KC QC")), "turn", seat=1)
        assert_illegal(state, PlayCard(card("2C")), "decision")

    @pytest.mark.parametrize(("passing", "offsets"), [("left", [1, 1, 1]), ("none", [0, 0, 0])])
    def test_passing_options(self, passing: str, offsets: list[int]) -> None:
        state = GameState(Ruleset.create("hearts", 4, {"passing": passing, "target": 1000}), seed=2)
        if passing == "none":
            assert state.phase is Phase.PLAY
        play_until(state, lambda s: s.deal_number == 4)
        assert [e.pass_offset for e in state.events if isinstance(e, DealStarted)][:3] == offsets


class TestHeartsPlay:
    def test_first_trick_no_points_while_the_hand_holds_anything_else(self) -> None:
        # §4.1 rule 5: seat 1 is void in clubs and holds Q♠, hearts and diamonds.
        spec = build_deal(Ruleset.create("hearts"), {0: "2C", 1: "QS 5H 5D", 2: "3C 9H"}, voids={1: "C"})
        state = new_state("hearts", spec, options=NO_PASS)
        assert state.to_act == 0
        play(state, "2C")
        legal = state.legal_plays()
        assert legal and all(c & 3 != HEARTS and c != card("QS") for c in legal)
        assert set(legal) == {c for c in state.hand(1) if c & 3 != HEARTS and c != card("QS")}
        assert_illegal(state, PlayCard(card("5H")), "first-trick-points")
        assert_illegal(state, PlayCard(card("QS")), "first-trick-points")
        play(state, "5D")
        assert all(c & 3 == CLUBS for c in state.legal_plays())  # seat 2 holds clubs: must follow
        assert_illegal(state, PlayCard(card("9H")), "follow-suit")

    def test_h_a_all_penalty_hand_may_play_anything_on_trick_1(self) -> None:
        # H-a, A-H2: void in clubs with 12 hearts and Q♠: all 13 cards are legal, Q♠ included.
        spec = build_deal(Ruleset.create("hearts"), {0: "2C", 1: "H:AKQJT9876543 QS"})
        state = new_state("hearts", spec, options=NO_PASS)
        play(state, "2C")
        assert name_set(state.legal_plays()) == name_set(cards("H:AKQJT9876543 QS"))
        assert state.observation(1).hearts_broken is False
        play(state, "3H")
        assert state.observation(1).hearts_broken is True  # A-H4: a forced heart breaks hearts too

    def test_prefer_heart_over_queen_option(self) -> None:
        # A-H2 alternative first_trick_prefer_heart_over_qs: the all-penalty hand must play a heart.
        spec = build_deal(Ruleset.create("hearts"), {0: "2C", 1: "H:AKQJT9876543 QS"})
        state = new_state("hearts", spec, options={**NO_PASS, "first_trick_prefer_heart_over_qs": True})
        play(state, "2C")
        assert name_set(state.legal_plays()) == name_set(cards("H:AKQJT9876543"))
        assert_illegal(state, PlayCard(card("QS")), "first-trick-points")

    @pytest.mark.parametrize("qs_breaks", [False, True])
    def test_breaking_hearts(self, qs_breaks: bool) -> None:
        # §4.1 rule 6, A-H3. Trick 1: 2♣ 3♣ 4♣ A♣, seat 3 wins. Trick 2: seat 3 may not lead its 5♥; it leads
        # 2♦ and seat 0 (void in ♦) throws Q♠; seat 2's 4♦ wins. Trick 3: seat 2 may lead its 4♥ only if Q♠
        # breaks hearts; it leads 5♦, seat 0 throws 2♥, seat 1's 7♦ wins. Trick 4: hearts are broken.
        spec = build_deal(
            Ruleset.create("hearts"),
            {0: "2C QS 2H", 1: "3C 3D 7D 3H", 2: "4C 4D 5D 4H", 3: "AC 2D 6D 5H"},
            voids={0: "D"},
        )
        state = new_state("hearts", spec, options={**NO_PASS, "qs_breaks_hearts": qs_breaks})
        play(state, "2C 3C 4C AC")
        assert state.to_act == 3
        assert card("5H") not in state.legal_plays()
        assert_illegal(state, PlayCard(card("5H")), "hearts-not-broken")
        play(state, "2D QS 3D 4D")
        assert last_trick(state).winner == 2
        assert state.observation(2).deal_scores == (0, 0, 13, 0)
        assert (card("4H") in state.legal_plays()) is qs_breaks
        assert state.observation(2).hearts_broken is qs_breaks
        play(state, "5D 6D 2H 7D")
        assert last_trick(state).winner == 1
        assert card("3H") in state.legal_plays()
        assert state.observation(1).hearts_broken is True

    @pytest.mark.parametrize(
        ("hand", "legal"),
        [("AC H:AKQJT9876543", "H:AKQJT9876543"), ("AC QS H:AKQJT987654", "QS H:AKQJT987654")],
    )
    def test_leading_from_only_hearts_or_hearts_and_queen(self, hand: str, legal: str) -> None:
        # §4.1 rule 6, A-H5: with hearts unbroken, a hand of only hearts (and Q♠) may lead a heart (or Q♠).
        spec = build_deal(Ruleset.create("hearts"), {0: "2C", 1: "3C", 2: "4C", 3: hand})
        state = new_state("hearts", spec, options=NO_PASS)
        play(state, "2C 3C 4C AC")
        assert state.to_act == 3 and state.observation(3).hearts_broken is False
        assert name_set(state.legal_plays()) == name_set(cards(legal))
        play(state, "AH")
        assert state.observation(0).hearts_broken is True  # A-H4: any heart played breaks hearts

    def test_a_hand_hands_out_26(self) -> None:
        # §4.1 rule 8 on HEARTS_SPLIT: (25, 1, 0, 0).
        state = new_state("hearts", HEARTS_SPLIT, options=NO_PASS)
        play(state, "2C AC 2H 2S")
        assert last_trick(state).winner == 1 and state.observation(0).hearts_broken
        hearts_hand_to_end(state)
        assert deal_result(state, 1).scores == (25, 1, 0, 0)
        assert state.totals == [25, 1, 0, 0] and state.deal_number == 2

    def test_ties_share_places(self) -> None:
        # A-H8, §4.1 rule 10: (25, 1, 0, 0) reaches target 25: seats 2 and 3 are co-winners.
        state = new_state("hearts", HEARTS_SPLIT, options={**NO_PASS, "target": 25})
        hearts_hand_to_end(state)
        assert state.is_over
        assert state.final_places == (4, 3, 1, 1)
        assert state.events[-1] == GameEnded((25, 1, 0, 0), (4, 3, 1, 1))
        assert_illegal(state, PlayCard(card("2C")), "game-over")
        with pytest.raises(IllegalActionError) as caught:
            state.fallback_action()
        assert caught.value.rule == "game-over"

    def test_target_is_reached_not_exceeded(self) -> None:
        # A-H7: the game ends at >= target: 25 < 26 plays on.
        state = new_state("hearts", HEARTS_SPLIT, options={**NO_PASS, "target": 26})
        hearts_hand_to_end(state)
        assert not state.is_over and state.deal_number == 2


class TestHeartsMoon:
    def moon_state(self, **options: object) -> GameState:
        # SUIT_PER_SEAT: seat 0 holds every club, leads 2♣ and wins all 13 tricks: 13 hearts and Q♠.
        state = new_state("hearts", SUIT_PER_SEAT, options={**NO_PASS, **options})
        hearts_hand_to_end(state)
        assert state.phase is Phase.MOON
        return state

    def test_the_shooter_chooses(self) -> None:
        # §4.1 rule 9, A-H6.
        state = self.moon_state()
        assert state.to_act == 0 and state.legal_plays() == []
        assert state.observation(0).moon_options == {
            MoonOption.SELF: (-26, 0, 0, 0),
            MoonOption.OTHERS: (0, 26, 26, 26),
        }
        assert state.observation(1).moon_options is None
        assert state.observation(0).deal_scores == (26, 0, 0, 0)
        assert_illegal(state, ChooseMoon(MoonOption.SELF), "turn", seat=1)
        assert_illegal(state, ChooseMoon("self"), "moon-option")  # type: ignore[arg-type]
        assert_illegal(state, PlayCard(card("2C")), "decision")
        assert state.fallback_action() == ChooseMoon(MoonOption.OTHERS)  # the default

    @pytest.mark.parametrize(
        ("option", "value", "scores"),
        [
            (MoonOption.SELF, 26, (-26, 0, 0, 0)),
            (MoonOption.OTHERS, 26, (0, 26, 26, 26)),
            (MoonOption.SELF, 52, (-52, 0, 0, 0)),
            (MoonOption.OTHERS, 52, (0, 52, 52, 52)),
        ],
    )
    def test_moon_options_and_value(self, option: MoonOption, value: int, scores: tuple[int, ...]) -> None:
        state = self.moon_state(moon_value=value)
        events = state.apply(ChooseMoon(option), 0)
        assert events[0] == MoonShot(0, option)
        assert events[1] == DealEnded(1, DealKind.HEARTS, scores, scores, False)
        assert state.totals == list(scores)  # totals may go negative (A-CH15 alike)
        assert state.deal_number == 2

    def test_game_end_is_checked_after_the_moon(self) -> None:
        # A-H7: with target 26, +26 to the others ends the game; -26 to the shooter does not.
        others = self.moon_state(target=26)
        others.apply(ChooseMoon(MoonOption.OTHERS))
        assert others.is_over and others.final_places == (1, 2, 2, 2)
        shooter = self.moon_state(target=26)
        shooter.apply(ChooseMoon(MoonOption.SELF))
        assert not shooter.is_over and shooter.totals == [-26, 0, 0, 0]

    def test_moon_default_options(self) -> None:
        assert self.moon_state(moon_default="self").fallback_action() == ChooseMoon(MoonOption.SELF)
        # safety: +26 to the others (0, 26, 26, 26) does not end a game to 100, so "others".
        assert self.moon_state(moon_default="safety").fallback_action() == ChooseMoon(MoonOption.OTHERS)

    def test_safety_moon_avoids_losing_the_game(self) -> None:
        # A-CH14 / HW "safety shoot". Target 51, no passing. Hands 1-2: HEARTS_SPLIT turned so seat 2 takes 25
        # and seat 3 takes 1 -> (0, 0, 50, 2). Hand 3: turned so seat 3 takes 25 and seat 0 takes 1 -> (1, 0, 50,
        # 27). Hand 4: seat 2 holds every club and shoots. "others" would give (27, 26, 50, 53): the game ends
        # and seat 2 (50) is not lowest, so the safety default is "self": (1, 0, 24, 27).
        deals = [
            deal(rotate(HEARTS_SPLIT, 2)),
            deal(rotate(HEARTS_SPLIT, 2)),
            deal(rotate(HEARTS_SPLIT, 3)),
            deal(rotate(SUIT_PER_SEAT, 2)),
        ]
        state = new_state("hearts", deals, options={**NO_PASS, "target": 51, "moon_default": "safety"})
        for _ in range(3):
            hearts_hand_to_end(state)
        assert state.totals == [1, 0, 50, 27]
        hearts_hand_to_end(state)
        assert state.phase is Phase.MOON and state.to_act == 2
        assert state.observation(2).moon_options == {
            MoonOption.SELF: (1, 0, 24, 27),
            MoonOption.OTHERS: (27, 26, 50, 53),
        }
        assert state.fallback_action() == ChooseMoon(MoonOption.SELF)
        state.apply(state.fallback_action())
        assert state.totals == [1, 0, 24, 27] and not state.is_over


# ============================================================================================================
# §1 Cancellation Hearts, 6-11 players, two decks
# ============================================================================================================


def cancellation(players: int, spec: DealSpec, **options: object) -> GameState:
    return new_state("cancellation", spec, players=players, options={"passing": "none", **options})


def ruleset(players: int, **options: object) -> Ruleset:
    return Ruleset.create("cancellation", players, options)


# Eight seats, two of each suit: seats 0 and 4 hold one copy of every club, 1 and 5 diamonds, 2 and 6 hearts,
# 3 and 7 spades. Dealer 7, so seat 0 leads. With the fallback, seats 0 and 4 play the same club every trick, so
# every trick cancels (nobody else can follow).
PAIRS8 = SUIT_PER_SEAT * 2

# Eight seats, dealer 7, seat 0 leads. Seat 0 leads A♣ A♣ K♣ K♣ ... 9♣ 9♣ and wins tricks 1-12 (seat 4 follows
# with lower clubs; in trick 1 seat 1's 2♣ and seat 4's 2♣ cancel each other); everyone else is void and throws
# their lowest card first, so each keeps their highest card for trick 13: seat 1 5♦, seat 2 A♠, seat 3 A♠,
# seat 4 8♣, seats 5 and 6 K♠, seat 7 A♥. Trick 13: seat 0 leads 5♦ and seat 1's 5♦ cancels it; no live
# diamond is left, so the last trick has no winner. It holds A♥: seat 0 has collected the other 51 points.
CH8 = [
    "C:AAKKQQJJTT99 5D",
    "2C 5D D:2233 D:44 S:2233 4S",
    "AS H:AKQJT9876543",
    "AS D:AAKKQQJJTT99",
    "C:2334455667788",
    "S:KQJT98765 4S 8D 7D 6D",
    "S:KQJT98765 2H 8D 7D 6D",
    "H:AKQJT98765432",
]
CH8_LEADS = "AC AC KC KC QC QC JC JC TC TC 9C 9C 5D"


def play_ch8(state: GameState) -> None:
    for lead in CH8_LEADS.split():
        lead_and_follow(state, lead)


class TestCancellationDeal:
    @pytest.mark.parametrize(
        ("players", "each", "kitty"), [(6, 17, 2), (7, 14, 6), (8, 13, 0), (9, 11, 5), (10, 10, 4), (11, 9, 5)]
    )
    def test_hand_sizes_and_kitty(self, players: int, each: int, kitty: int) -> None:
        # §1.1 rules 2 and 4: floor(104 / N) each, 104 mod N in the kitty, two decks.
        started = GameState(ruleset(players), seed=players).events[0]
        assert isinstance(started, DealStarted)
        assert [len(h) for h in started.hands] == [each] * players
        assert len(started.kitty) == kitty
        assert Counter(c for h in started.hands for c in h) + Counter(started.kitty) == Counter(list(range(52)) * 2)

    def test_kitty_is_the_end_of_the_shuffled_pack(self) -> None:
        # A-CH2, A-CH1: first dealer from the seed, then the shuffle; the last 104 mod N cards are the kitty.
        started = GameState(ruleset(7), seed="5").events[0]
        assert isinstance(started, DealStarted)
        deck = shuffled_deck("5", 104)
        assert started.kitty == tuple(deck[98:])
        assert started.hands[(started.dealer + 1) % 7][:2] == (deck[0], deck[7])

    def test_dealer_rotates_and_dealer_left_always_opens(self) -> None:
        # A-CH1, A-CH4: the dealer moves one seat left each hand; dealer+1 leads trick 1 of every hand.
        state = GameState(ruleset(6, target=1000), seed=3)
        d0 = state.dealer
        for hand in range(1, 5):
            assert state.deal_number == hand and state.dealer == (d0 + hand - 1) % 6
            play_until(state, lambda s: s.phase is Phase.PLAY)
            assert state.to_act == (state.dealer + 1) % 6
            play_until(state, lambda s, h=hand: s.deal_number > h)  # type: ignore[misc]

    @pytest.mark.parametrize(
        ("passing", "offsets"), [("alternate", [1, 6, 1, 6]), ("right", [6, 6, 6, 6]), ("left", [1, 1, 1, 1])]
    )
    def test_pass_directions(self, passing: str, offsets: list[int]) -> None:
        # §1.1 rule 5, A-CH3: left on odd hands, right on even hands; no across, no hold hand.
        state = GameState(ruleset(7, passing=passing, target=1000), seed=6)
        play_until(state, lambda s: s.deal_number == 5)
        assert [e.pass_offset for e in state.events if isinstance(e, DealStarted)][:4] == offsets

    def test_no_passing_option(self) -> None:
        state = GameState(ruleset(9, passing="none"), seed=1)
        assert state.phase is Phase.PLAY and state.to_act == (state.dealer + 1) % 9

    def test_simultaneous_exchange_with_two_decks(self) -> None:
        # §1.1 rule 5: all N choose, then everyone receives from the right (hand 1 passes left); the kitty is
        # not touched. A seat may pass both copies of a card it holds twice.
        spec = build_deal(ruleset(7), {0: "AS AS 2H 2H"}, dealer=6, kitty="AC AC AD AD AH AH")
        state = new_state("cancellation", spec, players=7)
        assert state.phase is Phase.PASS and state.to_act == 0
        assert_illegal(state, PassCards(cards("AS AS AS")), "pass-own-cards")  # only two A♠ exist
        assert_illegal(state, PassCards(cards("2H 2H AH")), "pass-own-cards")
        state.apply(PassCards(cards("AS AS 2H")))
        for _ in range(5):
            state.apply(state.fallback_action())
            assert state.phase is Phase.PASS
        assert Counter(state.hand(0))[card("AS")] == 2  # nothing moves before the seventh choice
        events = state.apply(state.fallback_action())
        assert isinstance(events[0], PassesExchanged) and events[0].pass_offset == 1
        assert Counter(state.hand(0))[card("AS")] == 0 and Counter(state.hand(0))[card("2H")] == 1
        assert Counter(state.hand(1))[card("AS")] == 2
        assert state.observation(1).received == cards("AS AS 2H")
        assert state.observation(0).kitty_size == 6  # the kitty holds both copies of A♣ A♦ A♥: nobody has one
        assert not set(cards("AC AD AH")) & {c for s in range(7) for c in state.hand(s)}
        assert (state.phase, state.to_act) == (Phase.PLAY, 0)


class TestCancellationTricks:
    def test_ch_a_two_pairs_cancel(self) -> None:
        # CH-a (A-CH17: the seed's 4-player example, here with 8 seats): spades led; 10♠ 9♥ 9♥ 10♠ plus four
        # off-suit cards. Both pairs cancel, no winner; the 8 cards (2 points) wait; seat 0 leads again.
        fixed = {0: "TS AS", 1: "9H 4D", 2: "9H 4D", 3: "TS 2S", 4: "2D 5D", 5: "2D 5D", 6: "3C 6D", 7: "3C 6D"}
        voids = {s: "S" for s in (1, 2, 4, 5, 6, 7)}
        state = cancellation(8, build_deal(ruleset(8), fixed, dealer=7, voids=voids))
        events = play(state, "TS 9H 9H TS 2D 2D 3C 3C")
        trick = tricks_of(events)[0]
        assert (trick.winner, trick.collected) == (None, ())
        assert state.observation(0).pending_cards == 8
        assert state.observation(0).deal_scores == (0,) * 8
        assert state.to_act == 0 and state.trick_number == 2  # A-CH8: the same leader
        assert state.observation(0).hearts_broken is True  # A-CH6: hearts in a cancelled trick count
        # The next trick with a winner takes the pending pile too (§1.1 rule 10).
        trick = tricks_of(play(state, "AS 4D 4D 2S 5D 5D 6D 6D"))[0]
        assert trick.winner == 0
        assert Counter(trick.collected) == Counter(cards("TS 9H 9H TS 2D 2D 3C 3C AS 4D 4D 2S 5D 5D 6D 6D"))
        assert state.observation(0).deal_scores == (2, 0, 0, 0, 0, 0, 0, 0)
        assert state.observation(0).pending_cards == 0

    def test_ch_b_the_pair_cancels_and_the_ten_wins(self) -> None:
        # CH-b: 6 seats, clubs led: J♣ J♣ 10♣ 9♣ 4♣ Q♥. The J♣ pair cancels; 10♣ wins, with 1 point, and as
        # the winner of trick 1 also takes the kitty (§1.1 rule 11), here 2♦ 3♦.
        fixed = {0: "JC", 1: "JC", 2: "TC", 3: "9C", 4: "4C", 5: "QH"}
        spec = build_deal(ruleset(6), fixed, dealer=5, kitty="2D 3D", voids={5: "C"})
        state = cancellation(6, spec)
        assert state.observation(0).kitty_size == 2
        trick = tricks_of(play(state, "JC JC TC 9C 4C QH"))[0]
        assert trick.winner == 2
        assert Counter(trick.collected) == Counter(cards("JC JC TC 9C 4C QH 2D 3D"))
        assert state.observation(0).deal_scores == (0, 0, 1, 0, 0, 0)
        assert state.observation(0).kitty_size == 0
        assert state.to_act == 2

    def test_off_suit_cards_never_win(self) -> None:
        # A-CH7: 10♠ 10♠ 9♥ 3♦ ...: the led-suit cards cancel, the live off-suit cards cannot win. Dealer 2, so
        # seat 3 leads; it leads again after the trick (A-CH8).
        fixed = {3: "TS", 4: "TS", 5: "9H", 6: "3D", 7: "4D", 0: "5D", 1: "6D", 2: "7D"}
        voids = {s: "S" for s in (5, 6, 7, 0, 1, 2)}
        state = cancellation(8, build_deal(ruleset(8), fixed, dealer=2, voids=voids))
        assert state.to_act == 3
        trick = tricks_of(play(state, "TS TS 9H 3D 4D 5D 6D 7D"))[0]
        assert trick.winner is None
        assert state.to_act == 3 and state.observation(3).pending_cards == 8

    def test_kitty_waits_when_trick_1_has_no_winner(self) -> None:
        # A-CH9, A-CH12: 9 seats (kitty of 5 hearts). Trick 1: 5♣ 5♣ 7♣ 7♣ and five diamonds: every club is
        # paired, no winner; the kitty joins the pending pile (9 + 5 = 14). Trick 2: A♣ 2♣ 3♣ 3♣ ...: A♣ wins
        # and takes 9 + 14 = 23 cards, 5 points (the kitty's hearts).
        fixed = {
            0: "5C AC", 1: "5C 2C", 2: "7C 3C", 3: "7C 3C",
            4: "2D 6D", 5: "2D 6D", 6: "3D 7D", 7: "3D 7D", 8: "4D 8D",
        }  # fmt: skip
        voids = {s: "C" for s in range(4, 9)}
        spec = build_deal(ruleset(9), fixed, dealer=8, kitty="2H 3H 4H 5H 6H", voids=voids)
        state = cancellation(9, spec)
        trick = tricks_of(play(state, "5C 5C 7C 7C 2D 2D 3D 3D 4D"))[0]
        assert trick.winner is None
        observation = state.observation(0)
        assert (observation.kitty_size, observation.pending_cards) == (0, 14)
        assert state.to_act == 0
        trick = tricks_of(play(state, "AC 2C 3C 3C 6D 6D 7D 7D 8D"))[0]
        assert trick.winner == 0 and len(trick.collected) == 23
        assert Counter(cards("2H 3H 4H 5H 6H")) <= Counter(trick.collected)
        assert state.observation(0).deal_scores == (5, 0, 0, 0, 0, 0, 0, 0, 0)

    def test_pending_tricks_accumulate(self) -> None:
        # A-CH10 on PAIRS8: every trick cancels, so the pile grows by 8 cards a trick and seat 0 keeps leading.
        state = cancellation(8, deal(PAIRS8, 7))
        for number in range(1, 13):
            trick = tricks_of(play_fallback(state, 8))[0]
            assert trick.winner is None and trick.plays[0] == (0, (number - 1) * 4)  # 2♣, 3♣, ... in turn
            assert state.observation(0).pending_cards == 8 * number
            assert state.to_act == 0
        # A-CH11: the last trick has no winner either, and by default nobody scores anything.
        play_fallback(state, 8)
        assert deal_result(state, 1).scores == (0,) * 8

    @pytest.mark.parametrize(
        ("rule", "scores"),
        [
            ("nobody", (51, 0, 0, 0, 0, 0, 0, 0)),  # the seed: nobody collects the A♥ of trick 13
            ("second_highest", (51, 1, 0, 0, 0, 0, 0, 0)),  # the later 5♦, seat 1's
        ],
    )
    def test_last_trick_without_winner(self, rule: str, scores: tuple[int, ...]) -> None:
        # A-CH11, §1.1 rules 12-14 on CH8 (its comment has the play): with A♥ uncollected, no moon is possible.
        state = cancellation(8, deal(CH8, 7), last_cancelled=rule)
        play_ch8(state)
        trick = next(t for t in tricks_of(deal_events(state, 1)) if t.number == 13)
        assert Counter(c for _, c in trick.plays) == Counter(cards("5D 5D AS AS 8C KS KS AH"))
        assert trick.winner == (None if rule == "nobody" else 1)
        assert deal_result(state, 1).scores == scores
        assert not any(isinstance(e, MoonShot) for e in state.events)

    def test_last_trick_to_the_leader_completes_a_moon(self) -> None:
        # A-CH11 option last_cancelled=leader: seat 0 led trick 13, takes it and has all 52 points.
        state = cancellation(8, deal(CH8, 7), last_cancelled="leader")
        play_ch8(state)
        assert last_trick(state).winner == 0
        assert state.phase is Phase.MOON and state.to_act == 0
        assert state.observation(0).deal_scores == (52, 0, 0, 0, 0, 0, 0, 0)

    @pytest.mark.parametrize(("rule", "shooter"), [("leader", 0), ("second_highest", 4)])
    def test_all_cancelled_hand_goes_to_the_last_trick_taker(self, rule: str, shooter: int) -> None:
        # PAIRS8: with a last-trick rule, the last trick takes the whole pending pile: all 104 cards.
        state = cancellation(8, deal(PAIRS8, 7), last_cancelled=rule)
        play_until(state, lambda s: s.phase is Phase.MOON)
        assert state.to_act == shooter
        assert len(last_trick(state).collected) == 104

    def test_kitty_counts_for_the_moon(self) -> None:
        # A-CH12: 9 seats. Seat 0 holds A♣ A♣ K♣ K♣ Q♣ Q♣ J♣ J♣ 10♣ 10♣ 9♣ (the other 9♣ is in the kitty with
        # Q♠ A♥ K♥ Q♥); nobody else holds a club above 8, so seat 0 wins every trick, the kitty with trick 1.
        spec = build_deal(ruleset(9), {0: "C:AAKKQQJJTT9"}, dealer=8, kitty="9C QS AH KH QH")
        state = cancellation(9, spec)
        first = lead_and_follow(state, "AC")
        assert first.winner == 0 and len(first.collected) == 9 + 5
        for lead in ["AC", "KC", "KC", "QC", "QC", "JC", "JC", "TC", "TC", "9C"]:
            lead_and_follow(state, lead)
        assert state.phase is Phase.MOON and state.to_act == 0
        assert state.observation(0).deal_scores == (52,) + (0,) * 8

    def test_identical_cards_in_hand_are_one_rules_object(self) -> None:
        # §0: a seat holding two 9♥ plays either; one copy stays.
        spec = build_deal(ruleset(8), {0: "9D 9D"}, dealer=7)
        state = cancellation(8, spec)
        assert state.hand(0).count(card("9D")) == 2
        assert state.legal_plays().count(card("9D")) == 1
        play(state, "9D")
        assert state.hand(0).count(card("9D")) == 1
        assert card("9D") in state.observation(0).hand

    @pytest.mark.parametrize("players", [6, 7, 8, 9, 10, 11])
    def test_cancelling_does_not_depend_on_the_player_count(self, players: int) -> None:
        # A-CH17: seats pair up on equal clubs (5♣ 5♣, 6♣ 6♣, ...); with N odd the last seat throws 2♦.
        fixed = {s: f"{'56789TJQKA'[s // 2]}C" for s in range(players - players % 2)}
        voids = {}
        if players % 2:
            fixed[players - 1] = "2D"
            voids[players - 1] = "C"
        state = cancellation(players, build_deal(ruleset(players), fixed, dealer=players - 1, voids=voids))
        plays = " ".join(fixed[s] for s in range(players))
        trick = tricks_of(play(state, plays))[0]
        assert trick.winner is None
        kitty = 104 % players
        assert state.observation(0).pending_cards == players + kitty
        assert state.to_act == 0


class TestCancellationLeads:
    def test_opening_lead_is_no_heart_and_no_queen(self) -> None:
        # §1.1 rule 6.
        spec = build_deal(ruleset(8), {0: "QS 2H 3D"}, dealer=7)
        state = cancellation(8, spec)
        assert card("QS") not in state.legal_plays() and card("2H") not in state.legal_plays()
        assert card("3D") in state.legal_plays()
        assert_illegal(state, PlayCard(card("QS")), "first-lead")
        assert_illegal(state, PlayCard(card("2H")), "first-lead")

    def test_opening_leader_with_only_hearts_and_queen_leads_anything(self) -> None:
        # A-CH4.
        spec = build_deal(ruleset(8), {0: "H:AKQJT9876543 QS"}, dealer=7)
        state = cancellation(8, spec)
        assert name_set(state.legal_plays()) == name_set(cards("H:AKQJT9876543 QS"))

    @pytest.mark.parametrize(("option", "broken"), [(True, True), (False, False)])
    def test_queen_of_spades_breaks_hearts(self, option: bool, broken: bool) -> None:
        # A-CH6: Q♠ thrown on trick 1 breaks hearts (default); seat 7 then wins with A♦ and may lead 2♥.
        fixed = {0: "2D", 1: "QS", 2: "3D", 3: "4D", 4: "5D", 5: "6D", 6: "7D", 7: "AD 2H"}
        spec = build_deal(ruleset(8), fixed, dealer=7, voids={1: "D"})
        state = cancellation(8, spec, qs_breaks_hearts=option)
        play(state, "2D QS 3D 4D 5D 6D 7D AD")
        assert last_trick(state).winner == 7
        assert state.observation(0).deal_scores == (0, 0, 0, 0, 0, 0, 0, 13)
        assert (card("2H") in state.legal_plays()) is broken
        if not broken:
            assert_illegal(state, PlayCard(card("2H")), "hearts-not-broken")

    @pytest.mark.parametrize("no_points", [False, True])
    def test_points_on_trick_1(self, no_points: bool) -> None:
        # A-CH5: by default a void seat may throw Q♠ or hearts on trick 1; first_trick_no_points forbids it.
        fixed = {0: "2D", 1: "QS 5H 9C"}
        spec = build_deal(ruleset(8), fixed, dealer=7, voids={1: "D"})
        state = cancellation(8, spec, first_trick_no_points=no_points)
        play(state, "2D")
        legal = set(state.legal_plays())
        assert (card("QS") in legal, card("5H") in legal, card("9C") in legal) == (not no_points, not no_points, True)
        if no_points:
            assert_illegal(state, PlayCard(card("QS")), "first-trick-points")


class TestCancellationMoonAndEnd:
    def moon_state(self, **options: object) -> GameState:
        state = cancellation(8, deal(CH8, 7), last_cancelled="leader", **options)
        play_ch8(state)
        assert state.phase is Phase.MOON
        return state

    @pytest.mark.parametrize(
        ("option", "value", "scores"),
        [
            (MoonOption.SELF, 26, (-26,) + (0,) * 7),
            (MoonOption.OTHERS, 26, (0,) + (26,) * 7),
            (MoonOption.OTHERS, 52, (0,) + (52,) * 7),  # A-CH13 option moon_value=52 (BGG)
        ],
    )
    def test_moon(self, option: MoonOption, value: int, scores: tuple[int, ...]) -> None:
        # §1.1 rule 14, A-CH13, A-CH14: the shooter scores 0 for the hand and chooses.
        state = self.moon_state(moon_value=value)
        assert state.observation(0).moon_options == {
            MoonOption.SELF: (-value,) + (0,) * 7,
            MoonOption.OTHERS: (0,) + (value,) * 7,
        }
        assert state.fallback_action() == ChooseMoon(MoonOption.OTHERS)  # the default
        state.apply(ChooseMoon(option), 0)
        assert deal_result(state, 1).scores == scores
        assert state.totals == list(scores)  # A-CH15: negative totals stand
        assert state.deal_number == 2 and not state.is_over

    def test_game_ends_at_target_with_co_winners(self) -> None:
        # §1.1 rule 15, A-CH16: CH8 gives (51, 0, ...); with target 51 the game ends at once and the seven
        # seats on 0 share first place.
        state = cancellation(8, deal(CH8, 7), target=51)
        play_ch8(state)
        assert state.is_over
        assert state.final_places == (8, 1, 1, 1, 1, 1, 1, 1)
        default = cancellation(8, deal(CH8, 7))
        play_ch8(default)
        assert not default.is_over and default.deal_number == 2  # 51 < 150


# ============================================================================================================
# Refused actions: each names its rule and leaves the state exactly as it was
# ============================================================================================================


def _kierki_deal1() -> GameState:
    return new_state("kierki", SPLIT, dealer=3)  # seat 0 to lead


def _kierki_following() -> GameState:
    state = new_state("kierki", SPLIT, dealer=3)
    play(state, "AC")  # seat 1 holds clubs and must follow
    return state


def _hearts_pass() -> GameState:
    return new_state("hearts", HEARTS_SPLIT, dealer=3)


def _hearts_play() -> GameState:
    return new_state("hearts", HEARTS_SPLIT, options=NO_PASS)  # seat 0 holds 2♣


def _cancellation_following() -> GameState:
    state = cancellation(8, deal(PAIRS8, 7))
    play(state, "2C 2D 2H 2S")  # seat 4 holds clubs and must follow
    return state


def _over() -> GameState:
    state = new_state("hearts", HEARTS_SPLIT, options={**NO_PASS, "target": 1})
    hearts_hand_to_end(state)
    return state


REFUSALS = [
    # (situation, action, seat, rule)
    (_kierki_deal1, PlayCard(52), None, "card"),
    (_kierki_deal1, PlayCard(-1), None, "card"),
    (_kierki_deal1, PlayCard("AC"), None, "card"),  # type: ignore[arg-type]
    (_kierki_deal1, PlayCard(card("2H")), None, "own-card"),
    (_kierki_deal1, PlayCard(card("AC")), 1, "turn"),
    (_kierki_deal1, PassCards(cards("AC KC QC")), None, "decision"),
    (_kierki_deal1, ChooseTrump(SPADES), None, "decision"),
    (_kierki_deal1, ChooseMoon(MoonOption.SELF), None, "decision"),
    (_kierki_following, PlayCard(card("8D")), None, "follow-suit"),
    (_kierki_following, PlayCard(card("AC")), None, "own-card"),
    (_hearts_pass, PlayCard(card("2C")), None, "decision"),
    (_hearts_pass, ChooseMoon(MoonOption.OTHERS), None, "decision"),
    (_hearts_pass, PassCards(cards("AS KS QS")), None, "pass-own-cards"),
    (_hearts_play, PlayCard(card("KC")), None, "two-of-clubs-leads"),
    (_hearts_play, PlayCard(card("AD")), None, "two-of-clubs-leads"),
    (_hearts_play, PassCards(cards("KC QC JC")), None, "decision"),
    (_hearts_play, ChooseTrump(CLUBS), None, "decision"),
    (_hearts_play, PlayCard(card("2C")), 2, "turn"),
    (_cancellation_following, PlayCard(card("3D")), None, "own-card"),
    (_cancellation_following, PlayCard(card("2C")), 5, "turn"),
    (_over, PlayCard(card("2C")), None, "game-over"),
    (_over, ChooseMoon(MoonOption.SELF), 0, "game-over"),
]


class TestRefusals:
    @pytest.mark.parametrize(("situation", "action", "seat", "rule"), REFUSALS)
    def test_refused_and_unchanged(self, situation: object, action: object, seat: int | None, rule: str) -> None:
        state = situation()  # type: ignore[operator]
        error = assert_illegal(state, action, rule, seat)
        assert error.message and str(error) == error.message

    def test_follow_suit_in_cancellation(self) -> None:
        # Seat 4 of PAIRS8 holds only clubs, so give it a choice: a deal where it also holds a diamond.
        spec = build_deal(ruleset(8), {0: "2C", 1: "3C", 2: "4C", 3: "5C", 4: "6C 9D"}, dealer=7)
        state = cancellation(8, spec)
        play(state, "2C 3C 4C 5C")
        error = assert_illegal(state, PlayCard(card("9D")), "follow-suit")
        assert "you must follow suit (C)" in error.message

    def test_a_refused_action_can_be_followed_by_a_legal_one(self) -> None:
        state = _kierki_following()
        assert_illegal(state, PlayCard(card("8D")), "follow-suit")
        play(state, "2C")
        assert state.to_act == 2
