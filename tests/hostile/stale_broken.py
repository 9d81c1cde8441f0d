"""From its AFTER-th decision, writes a broken line that names the previous request's id before each answer.

usage: stale_broken.py AFTER KIND. KIND ``bad_card`` sends an answer with a card that is no card;
``unknown_field`` sends an otherwise good answer with a field the protocol does not have. Both carry an old id:
they answer another request, so the referee ignores them (PROTOCOL.md §5) and takes the good answer after them.
"""

from _common import Message, after, arg, send, send_raw

previous_id = 0


def hook(msg: Message, reply: Message, n: int) -> bool:
    global previous_id
    old, previous_id = previous_id, msg["id"]
    if n < after() or old == 0:
        return False
    if arg(0) == "unknown_field":
        send({**reply, "id": old, "x_extra": 1})
    else:
        send_raw(b'{"type": "play", "id": %d, "card": "ZZ"}\n' % old)
    send(reply)
    return True


from _common import run  # noqa: E402

run(hook)
