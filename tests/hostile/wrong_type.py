"""Answers with valid JSON of the wrong message type (a "hello" with the request's id)."""

from _common import Message, after, hello, run


def hook(msg: Message, reply: Message, n: int) -> bool:
    if n < after():
        return False
    hello(msg, "i-am-not-an-answer")
    return True


run(hook)
