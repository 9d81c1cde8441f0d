"""Spends SHARE percent (default 90) of every request's ``time_ms`` in CPU before its legal answer: a bot that is
never late but makes every game it sits in as long as the clock allows.

usage: edge_of_deadline.py AFTER [SHARE]
"""

import time

from _common import Message, after, arg, run

SHARE = int(arg(0, "90")) / 100


def spin(msg: Message, reply: Message, n: int) -> bool:
    if n >= after():
        until = time.process_time() + SHARE * msg["time_ms"] / 1000
        while time.process_time() < until:
            pass
    return False


run(spin)
