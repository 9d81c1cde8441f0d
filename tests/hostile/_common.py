"""Shared by the hostile test bots: the protocol loop of a legal, boring bot, with one hook to misbehave.

Each bot in this folder is ``python3 BOT.py [AFTER] [extra args]``: it plays the first legal card (passes its first
three cards, names the first trump offered, lets the others take the moon) until its AFTER-th decision (default 2),
and from then on its hook decides what happens. Bots import nothing but the standard library and this file.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

Message = dict[str, Any]
# (request, the legal answer a good bot would send, decision number from 1) -> True when the hook dealt with it
Hook = Callable[[Message, Message, int], bool]


def after() -> int:
    """The decision from which the bot misbehaves (its first argument)."""
    return int(sys.argv[1]) if len(sys.argv) > 1 else 2


def arg(index: int, default: str = "") -> str:
    """An extra argument after AFTER (index 0 is the first one)."""
    return sys.argv[2 + index] if len(sys.argv) > 2 + index else default


def send(obj: Message) -> None:
    send_raw(json.dumps(obj).encode() + b"\n")


def send_raw(data: bytes) -> None:
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


def legal_answer(msg: Message) -> Message | None:
    """The answer of a well-behaved bot to a request, or None for an event."""
    kind = msg["type"]
    if kind == "pass":
        return {"type": "pass", "id": msg["id"], "cards": msg["hand"][:3]}
    if kind == "trump":
        return {"type": "trump", "id": msg["id"], "suit": msg["choices"][0]}
    if kind == "play":
        return {"type": "play", "id": msg["id"], "card": msg["legal"][0]}
    if kind == "moon":
        return {"type": "moon", "id": msg["id"], "choice": "others"}
    return None


def hello(msg: Message, name: str) -> None:
    send({"type": "hello", "id": msg["id"], "name": name, "version": "0", "protocol": 1})


def run(hook: Hook | None = None, *, on_hello: Callable[[Message], None] | None = None) -> None:
    """Play until ``bye`` or end of input; ``hook`` sees every decision and may replace the answer."""
    name = sys.argv[0].rsplit("/", 1)[-1].removesuffix(".py")
    decisions = 0
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["type"] == "hello":
            if on_hello is not None:
                on_hello(msg)
            hello(msg, f"hostile-{name}")
            continue
        if msg["type"] == "bye":
            return
        reply = legal_answer(msg)
        if reply is None:
            continue
        decisions += 1
        if hook is not None and hook(msg, reply, decisions):
            continue
        send(reply)
