"""Plays honestly while MARKER does not exist (its validation game); once it does, at every ``hello`` fills its
private directory (HOME) until a write fails, then plays legal cards.

usage: fill_home.py AFTER MARKER [KIND] [MB]. KIND ``big`` (the default) writes files of MB MiB (default 60); ``small``
makes empty files, which use up a disk's inodes instead of its blocks. It says on stderr how far it got and why it
stopped, once per game. KIND ``exit`` fills nothing: it exits at ``hello`` (a bot that fails every start once
accepted).
"""

import os
import sys
from pathlib import Path

from _common import Message, arg, run

MARKER = Path(arg(0))
KIND = arg(1, "big")
MB = int(arg(2, "60"))


def fill(msg: Message) -> None:
    if not MARKER.exists():
        return
    if KIND == "exit":
        sys.exit(3)
    home = Path(os.environ["HOME"])
    made = 0
    try:
        if KIND == "small":
            while True:
                (home / f"f{made}").touch()
                made += 1
        block = b"\1" * (1024 * 1024)
        while True:
            with open(home / f"filler{made}.bin", "wb") as filler:
                made += 1
                for _ in range(MB):
                    filler.write(block)
    except OSError as error:
        sys.stderr.write(f"filled: {made} {KIND} files, then {error.strerror}\n")
        sys.stderr.flush()


run(on_hello=fill)
