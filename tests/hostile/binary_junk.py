"""Answers with binary junk: NUL bytes, invalid UTF-8, control characters (one line, ending in a newline)."""

import random

from _common import Message, after, run, send_raw

rng = random.Random(7)


def hook(msg: Message, reply: Message, n: int) -> bool:
    if n < after():
        return False
    junk = bytes(rng.choice([0, 1, 0x1B, 0x7F, 0xC3, 0xFF, 0xFE, 0x80, ord("{")]) for _ in range(200))
    send_raw(b"\xff\xfe\x00" + junk + b"\n")
    return True


run(hook)
