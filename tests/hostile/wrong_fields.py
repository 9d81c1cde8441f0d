"""Answers with the right type but wrong fields: a misspelt field, a card of the wrong shape, a string id."""

from _common import Message, after, run, send


def wrong(msg: Message, reply: Message, n: int) -> Message:
    if n % 3 == 0:
        return {**reply, "crad": "2C"}
    if n % 3 == 1:
        shapes: Message = {"card": "10H", "suit": "hearts", "choice": "me", "cards": ["10H", "JH", "QH"]}
        return {key: shapes.get(key, value) for key, value in reply.items()}
    return {**reply, "id": str(msg["id"])}


def hook(msg: Message, reply: Message, n: int) -> bool:
    if n < after():
        return False
    send(wrong(msg, reply, n))
    return True


run(hook)
