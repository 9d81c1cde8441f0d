"""Plays legally but slowly (20 ms a decision); after bye or end of input it ignores SIGTERM and stays.

usage: stubborn.py AFTER MARKER. Used to stop a referee in the middle of a game: whatever stops it, this bot must
still be gone afterwards (SIGKILL), and the others must have been told the match was aborted.
"""

import signal
import time

from _common import Message, run


def slow(msg: Message, reply: Message, n: int) -> bool:
    time.sleep(0.02)
    return False


run(slow)
signal.signal(signal.SIGTERM, signal.SIG_IGN)
while True:
    signal.pause()
