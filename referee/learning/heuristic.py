"""The heuristic opponent the environments offer (``opponents="heuristic"``): the rule-of-thumb logic of the
sample bot ``sample_bots/heuristic_bot.py``, kept here in the layer that uses it.

The sample bot is a stranger's program that speaks only PROTOCOL.md and imports nothing of ours, and the referee
imports nothing of the sample bots (import-linter contract ``learning``), so its decision rules are restated here,
over the same request fields (card names as on the wire). tests/test_learning_heuristic.py asks both, at every
decision of whole games of every game, and they must agree: the heuristic met in training is the one met on the
ladder as ``sample:heuristic``.

    penalty deals and Hearts   duck under the winning card, dump the most dangerous card when void, lead low
    trump deals (Kierki 8-11)  win tricks as cheaply as possible, lead the top cards
    loteryjka (Kierki 12)      play cards that open the least for the others
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

RANKS = "23456789TJQKA"  # index = strength: "2" is 0, "A" is 12
SUITS = "CDHS"

Request = Mapping[str, Any]


def _rank(card: str) -> int:
    return RANKS.index(card[0])


def _suit(card: str) -> str:
    return card[1]


def winner(cards: Sequence[str], trump: str | None, cancellation: bool) -> int | None:
    """Index in ``cards`` (led card first) of the card winning so far: the highest trump, else the highest card of
    the led suit; in Cancellation Hearts two identical cards cancel (neither wins; maybe nobody does)."""
    best: tuple[tuple[bool, int], int] | None = None
    for i, card in enumerate(cards):
        if cancellation and cards.count(card) > 1:
            continue
        if _suit(card) not in (_suit(cards[0]), trump):
            continue
        key = (_suit(card) == trump, _rank(card))
        if best is None or key > best[0]:
            best = (key, i)
    return None if best is None else best[1]


def _would_win(played: list[str], card: str, trump: str | None = None, cancellation: bool = False) -> bool:
    cards = [*played, card]
    return winner(cards, trump, cancellation) == len(cards) - 1


def penalty(card: str, kind: str) -> int:
    """What taking this card costs in this kind of deal (scales differ between kinds; compare within one)."""
    heart, queen, pan, kh = _suit(card) == "H", card[0] == "Q", card[0] in "KJ", card == "KH"
    hearts_game = 13 * (card == "QS") + heart
    return {
        "hearts": hearts_game,
        "cancellation": hearts_game,
        "no_hearts": 20 * heart,
        "no_queens": 60 * queen,
        "no_kings_jacks": 30 * pan,
        "no_king_of_hearts": 150 * kh,
        "robber": 20 * heart + 60 * queen + 30 * pan + 150 * kh,
    }.get(kind, 0)  # no_tricks, no_seventh_last: the trick itself is the penalty, not its cards


def _play_avoiding(req: Request, played: list[str], seen: set[str]) -> str:
    kind: str = req["kind"]
    hand: list[str] = req["hand"]
    legal: list[str] = req["legal"]
    cancellation = kind == "cancellation"
    players = len(req["scores"]["total"])
    if not played:  # lead the cheapest penalty, a non-heart, a low card, from the shortest suit
        return min(
            legal,
            key=lambda c: (
                penalty(c, kind),
                _suit(c) == "H",
                _rank(c) > _rank("9"),
                sum(_suit(h) == _suit(c) for h in hand),
                _rank(c),
            ),
        )
    if any(_suit(c) == _suit(played[0]) for c in legal):  # following suit: duck under the winner
        ducks = [c for c in legal if not _would_win(played, c, None, cancellation)]
        if ducks:
            return max(ducks, key=_rank)
        if len(played) == players - 1:  # last, and every card wins: take it with the highest safe card
            return min(legal, key=lambda c: (penalty(c, kind), -_rank(c)))
        return min(legal, key=lambda c: (penalty(c, kind), _rank(c)))

    def danger(c: str) -> int:  # void: dump the most dangerous card (a high spade while Q♠ is out)
        high_spade = kind in ("hearts", "cancellation") and c in ("AS", "KS") and "QS" not in seen
        return penalty(c, kind) * 100 + 150 * high_spade + _rank(c)

    return max(legal, key=danger)


def _play_trump(req: Request, played: list[str], seen: set[str]) -> str:
    hand: list[str] = req["hand"]
    legal: list[str] = req["legal"]
    trump: str | None = req["trump"]
    if not played:

        def master(c: str) -> bool:  # no unplayed card of its suit can beat it
            return all(r + _suit(c) in seen for r in RANKS[_rank(c) + 1 :])

        masters = [c for c in legal if master(c)]
        trump_masters = [c for c in masters if _suit(c) == trump]
        if trump_masters:
            return max(trump_masters, key=_rank)
        if masters:
            return max(masters, key=_rank)
        side = [c for c in legal if _suit(c) != trump] or legal
        return min(side, key=lambda c: (sum(_suit(h) == _suit(c) for h in hand), _rank(c)))
    winners = [c for c in legal if _would_win(played, c, trump)]
    if winners:
        return min(winners, key=lambda c: (_suit(c) == trump, _rank(c)))
    return min(legal, key=lambda c: (_suit(c) == trump, _rank(c)))


def _play_lottery(req: Request) -> str:
    hand: list[str] = req["hand"]
    legal: list[str] = req["legal"]
    lottery: Mapping[str, Any] = req["lottery"]
    columns: Mapping[str, list[str] | None] = lottery.get("columns") or {}

    def cost(card: str) -> tuple[int, int, int, str]:
        s, r = _suit(card), _rank(card)
        column = columns.get(s)
        directions = [-1, +1] if column is None else [-1] if r < _rank(column[0]) else [+1]
        opened, ours_beyond = 0, 0
        for d in directions:
            nxt = r + d
            if 0 <= nxt < len(RANKS) and RANKS[nxt] + s not in hand:
                opened += 1
            ours_beyond += sum(_suit(h) == s and (_rank(h) - r) * d > 0 for h in hand)
        if not lottery.get("start_rank"):
            opened += sum(RANKS[r] + s2 not in hand for s2 in SUITS if s2 != s)
        return (opened, -ours_beyond, r, s)

    return min(legal, key=cost)


def choose_play(req: Request) -> str:
    """The card to play for a play request (PROTOCOL.md §8: its kind, hand, legal, trump, trick, tricks, lottery
    and scores)."""
    trick = req.get("trick") or {}
    played = [entry["card"] for entry in trick.get("cards", [])]
    seen = set(req["hand"]) | set(played)  # cards known not to be in another hand
    for done in req.get("tricks") or []:
        seen.update(entry["card"] for entry in done["cards"])
    if req.get("lottery"):
        return _play_lottery(req)
    if req.get("kind") == "trump":
        return _play_trump(req, played, seen)
    return _play_avoiding(req, played, seen)


def choose_pass(hand: Sequence[str], count: int = 3) -> list[str]:
    """Pass Q♠ K♠ A♠ unless guarded by 4+ low spades, then high hearts, then high cards."""
    low_spades = sum(_suit(c) == "S" and _rank(c) < _rank("Q") for c in hand)

    def danger(c: str) -> int:
        if c in ("QS", "KS", "AS") and low_spades < 4:
            return 100 + _rank(c)
        return _rank(c) + (6 if _suit(c) == "H" else 0)

    return sorted(hand, key=danger, reverse=True)[:count]


def choose_trump(cards: Sequence[str], choices: Sequence[str]) -> str:
    """The suit with most cards among those seen, ties broken by the stronger cards; never no-trump."""
    suits = [s for s in choices if s in SUITS] or list(choices)
    in_suit = {s: [_rank(c) + 2 for c in cards if _suit(c) == s] for s in suits}
    return max(suits, key=lambda s: (len(in_suit[s]), sum(in_suit[s])))


def choose_moon(options: Mapping[str, Sequence[int]], seat: int, target: int) -> str:
    """``"self"`` or ``"others"`` after shooting the moon: where each option leaves ``seat`` (lowest total wins)."""

    def outcome(choice: str) -> tuple[int, ...]:
        totals = options[choice]
        margin = totals[seat] - min(t for i, t in enumerate(totals) if i != seat)  # below 0: we lead
        if max(totals) >= target:  # this option ends the game
            return (0 if margin < 0 else 2, margin)
        # The game goes on; both options move us 26 against everyone: leading, hurry the end, else wait.
        return (1, margin, (choice == "self") == (margin < 0))

    return min(["others", "self"], key=outcome)
