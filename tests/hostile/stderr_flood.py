"""Plays correctly while a thread writes to stderr as fast as it can for the whole match."""

import sys
import threading

from _common import run

CHUNK = b"stderr flood " * 5000


def flood() -> None:
    while True:
        sys.stderr.buffer.write(CHUNK)
        sys.stderr.buffer.flush()


threading.Thread(target=flood, daemon=True).start()
run()
