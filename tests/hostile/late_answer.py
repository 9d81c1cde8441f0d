"""Answers every request from its AFTER-th on, but only after the deadline has passed.

Each late answer carries the id of the request it answers, so it arrives while the referee already waits for the
next one; the referee must not take it for that next answer.
"""

import time

from _common import Message, after, run, send


def hook(msg: Message, reply: Message, n: int) -> bool:
    if n < after():
        return False
    time.sleep(msg["time_ms"] / 1000 + 0.1)
    send(reply)
    return True


run(hook)
