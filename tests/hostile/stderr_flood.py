"""Plays correctly while a thread writes to stderr as fast as it can for the whole match.

It first writes more than the referee's default stderr cap (1,000,000 bytes) before it answers anything, so the
cap is always reached however fast the match goes; the thread then keeps flooding.
"""

import sys
import threading

from _common import run

CHUNK = b"stderr flood " * 5000


def flood() -> None:
    while True:
        sys.stderr.buffer.write(CHUNK)
        sys.stderr.buffer.flush()


for _ in range(1_200_000 // len(CHUNK) + 1):
    sys.stderr.buffer.write(CHUNK)
sys.stderr.buffer.flush()
threading.Thread(target=flood, daemon=True).start()
run()
