"""TEMPORARY stand-in for ``protocol.bot`` (the bot library the protocol helper is writing on branch h-protocol),
with the same API: ``Bot`` and ``run``. Deleted once that library is merged; nothing else may import this."""

from __future__ import annotations

import sys
import traceback
from typing import IO, Any

import msgspec

from protocol import messages as m

_decoder = msgspec.json.Decoder(m.RefereeMessage)
_encoder = msgspec.json.Encoder()


class Bot:
    name = "bot"
    version = "0"

    def play(self, request: m.PlayRequest) -> str:
        return request.legal[0]

    def pass_cards(self, request: m.PassRequest) -> list[str]:
        return list(request.hand[: request.count])

    def trump(self, request: m.TrumpRequest) -> str | None:
        return request.choices[0]

    def moon(self, request: m.MoonRequest) -> str:
        return "others"

    def on_hello(self, request: m.HelloRequest) -> None:
        pass

    def on_event(self, message: Any) -> None:
        pass


def _answer(bot: Bot, request: Any) -> m.Answer:
    if isinstance(request, m.HelloRequest):
        bot.on_hello(request)
        return m.HelloAnswer(id=request.id, name=bot.name, version=bot.version, protocol=1)
    if isinstance(request, m.PlayRequest):
        return m.PlayAnswer(id=request.id, card=bot.play(request))
    if isinstance(request, m.PassRequest):
        return m.PassAnswer(id=request.id, cards=tuple(bot.pass_cards(request)))
    if isinstance(request, m.TrumpRequest):
        suit = bot.trump(request)
        return m.TrumpAnswer(id=request.id, suit="NT" if suit is None else suit)  # type: ignore[arg-type]
    return m.MoonAnswer(id=request.id, choice=bot.moon(request))  # type: ignore[arg-type]


def run(bot: Bot, *, stdin: IO[bytes] | None = None, stdout: IO[bytes] | None = None) -> None:
    source = stdin if stdin is not None else sys.stdin.buffer
    sink = stdout if stdout is not None else sys.stdout.buffer
    requests = (m.HelloRequest, m.PlayRequest, m.PassRequest, m.TrumpRequest, m.MoonRequest)
    for line in source:
        try:
            message = _decoder.decode(line)
        except msgspec.DecodeError:
            continue
        if isinstance(message, m.ByeEvent):
            return
        if not isinstance(message, requests):
            bot.on_event(message)
            continue
        try:
            answer = _answer(bot, message)
        except Exception:
            print(traceback.format_exc(), file=sys.stderr, flush=True)
            answer = _answer(Bot(), message)
        sink.write(_encoder.encode(answer) + b"\n")
        sink.flush()
