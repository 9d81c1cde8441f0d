"""Tries to kill the referee (its parent process) with SIGKILL, then plays correctly."""

import os
import signal
import sys

from _common import Message, run


def attack(msg: Message) -> None:
    parent = os.getppid()
    try:
        os.kill(parent, signal.SIGKILL)
        print(f"sent SIGKILL to my parent, pid {parent}", file=sys.stderr, flush=True)
    except OSError as error:
        print(f"could not kill my parent, pid {parent}: {error}", file=sys.stderr, flush=True)


run(on_hello=attack)
