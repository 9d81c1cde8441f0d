"""Answers every request from its AFTER-th on, but only after the deadline has passed.

It computes (spins) past its time, so it is late on the wall clock and on its own CPU time alike (with control
groups a deadline is the bot's CPU time: a bot that only sleeps past ``time_ms`` is not late until the wall-clock
cap). Each late answer carries the id of the request it answers, so it arrives while the referee already waits for
the next one; the referee must not take it for that next answer.
"""

import time

from _common import Message, after, run, send


def hook(msg: Message, reply: Message, n: int) -> bool:
    if n < after():
        return False
    until = time.process_time() + msg["time_ms"] / 1000 + 0.1
    while time.process_time() < until:
        pass
    send(reply)
    return True


run(hook)
