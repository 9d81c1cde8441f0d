"""Answers with text that is not JSON."""

from _common import Message, after, run, send_raw


def hook(msg: Message, reply: Message, n: int) -> bool:
    if n < after():
        return False
    send_raw(b"I play the queen of spades, obviously {not json\n")
    return True


run(hook)
