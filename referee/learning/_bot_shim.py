"""TEMPORARY: the API of ``protocol/bot.py`` (being written on another branch), until it is merged; then this file
goes and `referee.learning.bot` imports ``protocol.bot``. Only what `PolicyBot` uses: `Bot` and `run`."""

from __future__ import annotations

import sys
from typing import BinaryIO, ClassVar

from protocol import codec
from protocol import messages as m


class Bot:
    name: ClassVar[str] = "bot"
    version: ClassVar[str] = "1"

    def on_hello(self, request: m.HelloRequest) -> None:
        pass

    def on_event(self, message: m.RefereeMessage) -> None:
        pass

    def play(self, request: m.PlayRequest) -> str:
        raise NotImplementedError

    def pass_cards(self, request: m.PassRequest) -> list[str]:
        raise NotImplementedError

    def trump(self, request: m.TrumpRequest) -> str | None:
        raise NotImplementedError

    def moon(self, request: m.MoonRequest) -> str:
        raise NotImplementedError


def run(bot: Bot, *, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
    source = stdin if stdin is not None else sys.stdin.buffer
    sink = stdout if stdout is not None else sys.stdout.buffer
    for line in source:
        if not line.strip():
            continue
        message = codec.decode_referee_line(line.rstrip(b"\r\n"))
        answer: m.BotMessage | None = None
        if isinstance(message, m.HelloRequest):
            bot.on_hello(message)
            answer = m.HelloAnswer(id=message.id, name=bot.name, version=bot.version, protocol=1)
        elif isinstance(message, m.PlayRequest):
            answer = m.PlayAnswer(id=message.id, card=bot.play(message))
        elif isinstance(message, m.PassRequest):
            answer = m.PassAnswer(id=message.id, cards=tuple(bot.pass_cards(message)))
        elif isinstance(message, m.TrumpRequest):
            suit = bot.trump(message)
            answer = m.TrumpAnswer(id=message.id, suit=suit or "NT")  # type: ignore[arg-type]
        elif isinstance(message, m.MoonRequest):
            answer = m.MoonAnswer(id=message.id, choice=bot.moon(message))  # type: ignore[arg-type]
        else:
            bot.on_event(message)
            if isinstance(message, m.ByeEvent):
                return
        if answer is not None:
            sink.write(codec.encode_answer(answer))
            sink.flush()
