"""In the second game, fills its private directory (the disk the referee writes its logs to) and plays on.

usage: fill_disk.py AFTER MARKER. It writes 64 KiB blocks to ``filler.bin`` until the disk is full, ignores the
error, says so on stderr (so the referee's next write of its stderr log fails too) and keeps answering. The
referee must stop the match cleanly: a one-line reason, every bot stopped, the first game's log intact.
"""

import os
import sys

from _common import Message, run

filled = False


def fill(msg: Message, reply: Message, n: int) -> bool:
    global filled
    if msg.get("game_number") == 2 and not filled:
        filled = True
        block = b"\0" * 65536
        try:
            with open("filler.bin", "wb") as filler:
                while True:
                    filler.write(block)
                    filler.flush()
        except OSError as error:
            sys.stderr.write(f"disk full now: {error}\n" * 100)
            sys.stderr.flush()
        os.sync()
    return False


run(fill)
