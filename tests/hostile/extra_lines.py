"""At its AFTER-th decision prints 10,000 valid-looking answers with wrong ids (old and unknown) before the real one."""

from _common import Message, after, run, send_raw

COUNT = 10_000


def hook(msg: Message, reply: Message, n: int) -> bool:
    if n != after():
        return False
    lines = []
    for i in range(COUNT):
        wrong_id = i % msg["id"] if i % 2 else 1_000_000 + i  # answers to old requests, and to none at all
        lines.append(b'{"type": "play", "id": %d, "card": "2C"}\n' % wrong_id)
    send_raw(b"".join(lines))
    return False  # then the real answer


run(hook)
