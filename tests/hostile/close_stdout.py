"""Closes its stdout in the middle of the game but stays alive, still reading its input."""

import os
import sys
import time

from _common import Message, after, run


def hook(msg: Message, reply: Message, n: int) -> bool:
    if n < after():
        return False
    sys.stdout.flush()
    os.close(1)
    for _line in sys.stdin:
        pass
    time.sleep(600)  # even at the end of its input it does not go
    return True


run(hook)
