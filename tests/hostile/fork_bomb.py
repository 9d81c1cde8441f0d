"""Forks without limit while saying hello: children that sleep, each holding the pipes; then plays correctly.

RLIMIT_NPROC (--limit-processes) stops it where it applies; it does not apply to root, so the bot also stops
itself at 200 children, so that this test can never take a machine down.
"""

import os
import signal
import sys

from _common import Message, run

SELF_CAP = 200


def bomb(msg: Message) -> None:
    forked = 0
    while forked < SELF_CAP:
        try:
            pid = os.fork()
        except OSError as error:  # EAGAIN: the process limit
            print(f"fork failed: {error}", file=sys.stderr)
            break
        if pid == 0:
            while True:
                signal.pause()
        forked += 1
    print(f"forked {forked} children", file=sys.stderr, flush=True)


run(on_hello=bomb)
