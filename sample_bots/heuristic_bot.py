#!/usr/bin/env python3
"""heuristic_bot.py - a simple rule-of-thumb bot for Kierki (3 and 4 players), Hearts and Cancellation Hearts.

It speaks only the wire protocol (PROTOCOL.md) and uses only the Python standard library. It is stateless:
every request carries what it needs (hand, legal cards, current trick, this deal's tricks, scores), so the only
things remembered are the seat and game from "hello". Start from random_bot.py for the bare protocol; this file
shows one way to turn a request into a decent decision:

  penalty deals and Hearts   duck under the winning card, dump the most dangerous card when void, lead low
  trump deals (Kierki 8-11)  win tricks as cheaply as possible, lead the top cards
  loteryjka (Kierki 12)      play cards that open the least for the others
"""

import json
import sys
import traceback

NAME = "heuristic_bot"
VERSION = "1.0"
PROTOCOL = 2
RANKS = "23456789TJQKA"  # index = strength: "2" is 0, "A" is 12
SUITS = "CDHS"
REQUESTS = ("hello", "pass", "trump", "play", "moon")  # messages that must be answered, with the same id
ME = {"seat": 0, "game": "kierki", "options": {}}  # filled in by hello


def rank(card):
    return RANKS.index(card[0])


def suit(card):
    return card[1]


def log(*args):
    print(NAME + ":", *args, file=sys.stderr, flush=True)


def winner(cards, trump, cancellation):
    """Index in `cards` (like ["9H", "KH"], led card first) of the card winning so far: the highest trump, else
    the highest card of the led suit. In Cancellation Hearts two identical cards in one trick cancel each other:
    neither can win, and if no live card of the led suit is left there is no winner (None)."""
    best = None
    for i, card in enumerate(cards):
        if cancellation and cards.count(card) > 1:
            continue
        if suit(card) not in (suit(cards[0]), trump):
            continue
        key = (suit(card) == trump, rank(card))
        if best is None or key > best[0]:
            best = (key, i)
    return None if best is None else best[1]


def would_win(played, card, trump=None, cancellation=False):
    """True if `card`, added to the trick as the last card so far, would be winning it."""
    cards = played + [card]
    return winner(cards, trump, cancellation) == len(cards) - 1


def penalty(card, kind):
    """What taking this card costs in this kind of deal (scales differ between kinds; compare within one)."""
    heart, queen, pan, kh = suit(card) == "H", card[0] == "Q", card[0] in "KJ", card == "KH"
    hearts_game = 13 * (card == "QS") + heart
    return {"hearts": hearts_game, "cancellation": hearts_game,
            "no_hearts": 20 * heart, "no_queens": 60 * queen, "no_kings_jacks": 30 * pan,
            "no_king_of_hearts": 150 * kh, "robber": 20 * heart + 60 * queen + 30 * pan + 150 * kh,
            }.get(kind, 0)  # no_tricks, no_seventh_last: the trick itself is the penalty, not its cards


def play_avoiding(req, played, seen):
    """Penalty deals (no_tricks .. robber), Hearts and Cancellation: take as little as possible."""
    kind, hand, legal = req["kind"], req["hand"], req["legal"]
    cancellation = kind == "cancellation"
    players = len(req["scores"]["total"])

    if not played:
        # Lead the cheapest penalty (none, if possible), a non-heart, a low card (9 or lower), from the shortest
        # suit: a short suit soon leaves us void, and being void lets us dump dangerous cards on others' tricks.
        return min(legal, key=lambda c: (penalty(c, kind), suit(c) == "H", rank(c) > rank("9"),
                                         sum(suit(h) == suit(c) for h in hand), rank(c)))

    if any(suit(c) == suit(played[0]) for c in legal):
        # Following suit. Duck: the highest card that still does not win the trick.
        ducks = [c for c in legal if not would_win(played, c, None, cancellation)]
        if ducks:
            return max(ducks, key=rank)
        if len(played) == players - 1:
            # Last to play and every card wins: the trick is ours anyway, so get rid of our highest safe card.
            return min(legal, key=lambda c: (penalty(c, kind), -rank(c)))
        return min(legal, key=lambda c: (penalty(c, kind), rank(c)))  # someone after us may still go higher

    # Void in the led suit: dump the most dangerous card. A high spade is dangerous in Hearts while Q♠ is out.
    def danger(c):
        high_spade = kind in ("hearts", "cancellation") and c in ("AS", "KS") and "QS" not in seen
        return penalty(c, kind) * 100 + 150 * high_spade + rank(c)
    return max(legal, key=danger)


def play_trump(req, played, seen):
    """Trump deals: every trick is worth points, so win as many as possible."""
    hand, legal, trump = req["hand"], req["legal"], req["trump"]

    if not played:
        # A "master" is a card that no unplayed card of its suit can beat (all higher ones are gone or ours).
        def master(c):
            return all(r + suit(c) in seen for r in RANKS[rank(c) + 1:])
        masters = [c for c in legal if master(c)]
        trump_masters = [c for c in masters if suit(c) == trump]
        if trump_masters:
            return max(trump_masters, key=rank)  # draw the others' trumps with a card nobody can beat
        if masters:
            return max(masters, key=rank)
        # Otherwise give the lead away cheaply from our shortest side suit, hoping to become void and ruff.
        side = [c for c in legal if suit(c) != trump] or legal
        return min(side, key=lambda c: (sum(suit(h) == suit(c) for h in hand), rank(c)))

    winners = [c for c in legal if would_win(played, c, trump)]
    if winners:  # cheapest winner: a side card before a trump, then the lowest
        return min(winners, key=lambda c: (suit(c) == trump, rank(c)))
    return min(legal, key=lambda c: (suit(c) == trump, rank(c)))  # cannot win: throw the least useful card


def play_lottery(req):
    """Loteryjka: get rid of cards first. Prefer cards that open nothing new for the other players."""
    hand, legal, lottery = req["hand"], req["legal"], req["lottery"]
    columns = lottery.get("columns") or {}

    def cost(card):
        s, r = suit(card), rank(card)
        column = columns.get(s)  # [lowest, highest] card on the table in this suit, or None: not opened yet
        # Which way the column grows: a card opening its suit makes both its neighbours playable.
        directions = [-1, +1] if column is None else [-1] if r < rank(column[0]) else [+1]
        opened, ours_beyond = 0, 0
        for d in directions:
            nxt = r + d
            if 0 <= nxt < len(RANKS) and RANKS[nxt] + s not in hand:
                opened += 1  # a card that another player may hold becomes playable
            ours_beyond += sum(suit(h) == s and (rank(h) - r) * d > 0 for h in hand)
        if not lottery.get("start_rank"):
            # The very first card also lets the others open the other suits with this rank.
            opened += sum(RANKS[r] + s2 not in hand for s2 in SUITS if s2 != s)
        # Least opened first; then the suit we hold most of further out (we keep control); then fixed order.
        return (opened, -ours_beyond, r, s)

    return min(legal, key=cost)


def choose_play(req):
    trick = req.get("trick") or {}
    played = [entry["card"] for entry in trick.get("cards", [])]
    seen = set(req["hand"]) | set(played)  # cards we know are not in another hand
    for done in req.get("tricks") or []:
        seen.update(entry["card"] for entry in done["cards"])
    if req.get("lottery"):
        return play_lottery(req)
    if req.get("kind") == "trump":
        return play_trump(req, played, seen)
    return play_avoiding(req, played, seen)


def choose_pass(req):
    """Hearts/Cancellation: pass Q♠ K♠ A♠ unless guarded by 4+ low spades, then high hearts, then high cards."""
    hand = req["hand"]
    low_spades = sum(suit(c) == "S" and rank(c) < rank("Q") for c in hand)

    def danger(c):
        if c in ("QS", "KS", "AS") and low_spades < 4:
            return 100 + rank(c)
        return rank(c) + (6 if suit(c) == "H" else 0)
    return sorted(hand, key=danger, reverse=True)[:req.get("count", 3)]


def choose_trump(req):
    """The suit with most cards among those seen, ties broken by the stronger cards. Never no-trump."""
    cards = req["cards"]
    suits = [s for s in req["choices"] if s in SUITS] or req["choices"]
    in_suit = {s: [rank(c) + 2 for c in cards if suit(c) == s] for s in suits}
    return max(suits, key=lambda s: (len(in_suit[s]), sum(in_suit[s])))


def choose_moon(req):
    """We shot the moon: compare where each option leaves us. Lowest total wins Hearts and Cancellation."""
    me = ME["seat"]
    default_target = 150 if ME["game"] == "cancellation" else 100
    target = ME["options"].get("target", default_target)

    def outcome(choice):
        totals = req["options"][choice]
        margin = totals[me] - min(t for i, t in enumerate(totals) if i != me)  # below 0: we lead
        if max(totals) >= target:  # this option ends the game
            return (0 if margin < 0 else 2, margin)
        # Game goes on. Both options move us 26 relative to everyone, so: leading, hurry the end; else wait.
        return (1, margin, (choice == "self") == (margin < 0))
    return min(["others", "self"], key=outcome)


def answer(msg):
    kind = msg["type"]
    if kind == "hello":
        ME.update(seat=msg.get("seat", 0), game=msg.get("game"), options=msg.get("options") or {})
        return {"name": NAME, "version": VERSION, "protocol": PROTOCOL}
    if kind == "pass":
        return {"cards": choose_pass(msg)}
    if kind == "trump":
        return {"suit": choose_trump(msg)}
    if kind == "play":
        return {"card": choose_play(msg)}
    return {"choice": choose_moon(msg)}  # "moon"


def fallback(msg):
    """A safe answer if our own code fails on an unexpected request (a bug here should not cost the game)."""
    return {"hello": {"name": NAME, "version": VERSION, "protocol": PROTOCOL},
            "pass": {"cards": msg.get("hand", [])[:msg.get("count", 3)]},
            "trump": {"suit": (msg.get("choices") or ["S"])[0]},
            "play": {"card": (msg.get("legal") or ["2C"])[0]},
            "moon": {"choice": "others"}}[msg["type"]]


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            msg = json.loads(line)
        except ValueError:
            log("ignoring a line that is not JSON:", line.strip()[:200])
            continue
        if not isinstance(msg, dict):
            continue
        kind = msg.get("type")
        if kind == "bye":
            return
        if kind == "error":
            log("referee reported an error on request", msg.get("request_id"), msg.get("code"), msg.get("message"))
        if kind not in REQUESTS:
            continue  # an event (or a new message type): nothing to answer
        try:
            reply = answer(msg)
        except Exception:
            log("bug while answering, using a fallback:\n" + traceback.format_exc())
            reply = fallback(msg)
        reply = {"type": kind, "id": msg.get("id"), **reply}
        print(json.dumps(reply, separators=(",", ":")), flush=True)


if __name__ == "__main__":
    try:
        main()
    except (BrokenPipeError, KeyboardInterrupt):
        pass
    sys.exit(0)
