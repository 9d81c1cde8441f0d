"""Answers with deeply nested JSON that still fits the line limit."""

from _common import Message, after, run, send_raw


def hook(msg: Message, reply: Message, n: int) -> bool:
    if n < after():
        return False
    send_raw(b"[" * 2000 + b"]" * 2000 + b"\n")
    return True


run(hook)
