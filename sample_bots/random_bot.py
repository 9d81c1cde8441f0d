#!/usr/bin/env python3
"""random_bot.py - the smallest complete kierki bot: every choice is uniformly random.

It speaks only the wire protocol (PROTOCOL.md) and uses only the Python standard library, so you can
copy this file and start changing the `choose_*` functions.

The protocol in one paragraph: the referee starts this program and writes one JSON object per line to its stdin.
Messages with an "id" are requests (hello, pass, trump, play, moon) and must be answered with one JSON line on
stdout carrying the same "id" and "type". All other messages are events: read them or ignore them. Unknown
message types and unknown fields must be ignored, because the protocol grows by adding them. stdout is only for
answers; write any log text to stderr. Exit on "bye" or when stdin closes.

Usage:  random_bot.py [--seed N]
The random generator is seeded from N (default 0) together with the game and seat sent in "hello", so the same
match replays the same way and the four copies of this bot at one table do not all make the same choices.
"""

import argparse
import json
import random
import sys

NAME = "random_bot"
VERSION = "1.0"
PROTOCOL = 2


def log(*args):
    """Write a line to stderr: the referee keeps it as this bot's log. Never print debug text to stdout."""
    print(NAME + ":", *args, file=sys.stderr, flush=True)


def send(message):
    """Write one answer as one compact JSON line and flush at once (the referee is waiting for it)."""
    print(json.dumps(message, separators=(",", ":")), flush=True)


def main():
    parser = argparse.ArgumentParser(description="kierki bot that plays uniformly random legal moves")
    parser.add_argument("--seed", type=int, default=0, help="random seed (mixed with game and seat)")
    seed = parser.parse_args().seed
    rng = random.Random(seed)

    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            msg = json.loads(line)
        except ValueError:
            log("ignoring a line that is not JSON:", line[:200])
            continue
        if not isinstance(msg, dict):
            continue
        kind = msg.get("type")

        if kind == "hello":
            # A string seed is hashed the same way on every run (unlike hash()), so this is reproducible.
            rng = random.Random(f"{seed}:{msg.get('game')}:{msg.get('seat')}")
            send({"type": "hello", "id": msg["id"], "name": NAME, "version": VERSION, "protocol": PROTOCOL})
        elif kind == "pass":
            # Any `count` cards of the hand (count is 3 today). sample() picks distinct positions, so a hand
            # holding two identical cards (Cancellation Hearts uses two decks) may pass both copies.
            cards = rng.sample(msg["hand"], msg.get("count", 3))
            send({"type": "pass", "id": msg["id"], "cards": cards})
        elif kind == "trump":
            send({"type": "trump", "id": msg["id"], "suit": rng.choice(msg["choices"])})
        elif kind == "play":
            # The referee lists the legal cards, so a bot never has to implement the rules itself.
            send({"type": "play", "id": msg["id"], "card": rng.choice(msg["legal"])})
        elif kind == "moon":
            send({"type": "moon", "id": msg["id"], "choice": rng.choice(["self", "others"])})
        elif kind == "error":
            log("referee reported an error on request", msg.get("request_id"), msg.get("code"), msg.get("message"))
        elif kind == "bye":
            log("bye:", msg.get("reason"))
            return
        # Everything else (game_start, deal, played, trick, deal_end, game_end, new types) is ignored.


if __name__ == "__main__":
    try:
        main()
    except (BrokenPipeError, KeyboardInterrupt):
        pass  # the referee went away; nothing left to do
    sys.exit(0)
