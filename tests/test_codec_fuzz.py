"""The decoders, fuzzed harder than tests/test_protocol.py does: whatever the bytes, only ``ProtocolError`` comes out.

tests/test_protocol.py throws random bytes and lightly mutated answers at ``decode_bot_line``. This file adds:

* answers generated from every answer type with random valid content, then mutated at the JSON level (types
  swapped, numbers at and past every integer boundary, lone surrogates and NULs in strings, duplicate and extra
  keys, nesting inside fields) and at the byte level (truncated, spliced, BOM, odd whitespace, CR/LF/CRLF in
  the middle and at the end, padded to exactly the length limit and one past it);
* ``decode_referee_line`` fuzzed from real referee messages (a game played in-process through the rules core and
  ``referee.wire``, encoded by the codec), since bots and tools decode those;
* properties beyond "no other exception": a decoded answer survives an encode/decode round trip; an error's
  text is bounded (the referee forwards it to the bot) and always carries a hint; and that text fits into an
  ``error`` message that encodes to exactly one line the bot can decode.
"""

from __future__ import annotations

import json
import random
import typing
from typing import Any

import msgspec
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

from protocol import codec
from protocol import messages as m
from referee import wire, wire_requests
from referee.rules import Event, GameState, Phase, Ruleset

BOT_CLASSES: tuple[type[msgspec.Struct], ...] = typing.get_args(m.BotMessage)
# An error's text goes back to the bot inside one line. It may quote at most the bot's line itself (an unknown
# field name is quoted whole) plus a bounded explanation: never more, whatever the bot sent.
MAX_ERROR_CHARS = codec.MAX_BOT_LINE_BYTES + 1024

RANKS = "23456789TJQKA"
SUITS = "CDHS"
cards = st.builds(lambda r, s: r + s, st.sampled_from(RANKS), st.sampled_from(SUITS))
ids = st.integers(0, 2**31)


def answers() -> st.SearchStrategy[dict[str, Any]]:
    """A valid answer of any type, as a JSON-ready dict."""
    return st.one_of(
        st.fixed_dictionaries(
            {
                "type": st.just("hello"),
                "id": ids,
                "name": st.text(max_size=20),
                "version": st.text(max_size=10),
                "protocol": st.just(codec.PROTOCOL_VERSION),
            }
        ),
        st.fixed_dictionaries({"type": st.just("pass"), "id": ids, "cards": st.lists(cards, min_size=3, max_size=3)}),
        st.fixed_dictionaries({"type": st.just("trump"), "id": ids, "suit": st.sampled_from([*SUITS, "NT"])}),
        st.fixed_dictionaries({"type": st.just("play"), "id": ids, "card": cards}),
        st.fixed_dictionaries({"type": st.just("moon"), "id": ids, "choice": st.sampled_from(["self", "others"])}),
    )


# Values that sit on or past a boundary of something: integer widths, float specials, odd strings.
edge_values: st.SearchStrategy[Any] = st.sampled_from(
    [
        -1,
        0,
        2**31,
        2**63 - 1,
        2**63,
        2**64,
        -(2**63) - 1,
        10**40,
        1.5,
        -0.0,
        1e308,
        True,
        None,
        "",
        "\x00",
        "\ud800",
        "\u2028",
        "QS\n",
        " QS",
        "qs",
        "10H",
        "QSX",
        "🂭",
        [],
        {},
        [[[]]],
        {"type": "play"},
    ]
)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12) | edge_values,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)
field_names = st.sampled_from(["type", "id", "card", "cards", "suit", "choice", "name", "version", "protocol", "x"])


@st.composite
def json_mutants(draw: st.DrawFn, base: st.SearchStrategy[dict[str, Any]]) -> bytes:
    """A valid message changed at the JSON level: wrong types, boundary numbers, extra or missing or doubled keys."""
    value = dict(draw(base))
    for _ in range(draw(st.integers(1, 3))):
        action = draw(st.sampled_from(["set", "delete", "add", "wrap", "duplicate"]))
        key = draw(field_names)
        if action == "set":
            value[key] = draw(json_values)
        elif action == "delete" and value:
            value.pop(draw(st.sampled_from(sorted(value))))
        elif action == "add":
            value[draw(st.text(max_size=8))] = draw(json_values)
        elif action == "wrap" and key in value:
            value[key] = draw(st.sampled_from([[value[key]], {"value": value[key]}, str(value[key])]))
    text = json.dumps(value, ensure_ascii=draw(st.booleans()))
    if draw(st.booleans()) and value:  # a duplicate key, which json.dumps cannot write
        first = next(iter(value))
        text = text[:-1] + f", {json.dumps(first)}: {json.dumps(draw(json_values))}" + "}"
    return text.encode("utf-8", "surrogatepass")


@st.composite
def byte_mutants(draw: st.DrawFn, base: st.SearchStrategy[bytes]) -> bytes:
    """A line changed at the byte level: cut, spliced, padded to the limit, odd whitespace and line ends."""
    data = bytearray(draw(base))
    for _ in range(draw(st.integers(1, 3))):
        edit = draw(st.sampled_from(["cut", "splice", "insert", "pad", "prefix", "inner_newline"]))
        at = draw(st.integers(0, len(data)))
        if edit == "cut":
            del data[at:]
        elif edit == "splice":
            data[at:at] = draw(st.sampled_from([b"{", b"}", b'"', b"\\", b",", b"\\u", b"\\ud83d", b"null", b"]"]))
        elif edit == "insert":
            data.insert(at, draw(st.integers(0, 255)))
        elif edit == "pad":  # a string field grown until the line is at, or just past, the limit
            target = codec.MAX_BOT_LINE_BYTES + draw(st.sampled_from([-1, 0, 1, 2]))
            data[at:at] = b" " * max(0, target - len(data))
        elif edit == "prefix":
            data[0:0] = draw(st.sampled_from([b"\xef\xbb\xbf", b"\t", b"\x0b", b"\x00", b"\r", b" \n"]))
        else:
            data[at:at] = draw(st.sampled_from([b"\n", b"\r", b"\r\n"]))
    return bytes(data) + draw(st.sampled_from([b"", b"\n", b"\r\n", b"\n\n", b"\r"]))


def check_bot_line(line: bytes) -> None:
    """The properties of decoding any line a bot may write."""
    try:
        decoded = codec.decode_bot_line(line)
    except codec.ProtocolError as error:
        text = str(error)
        assert "Hint: " in text and len(text) <= MAX_ERROR_CHARS, text
        notice = m.ErrorEvent(request_id=1, code="malformed", message=text, fallback=None, strikes=1, forfeited=False)
        encoded = codec.encode(notice)
        assert encoded.count(b"\n") == 1 and encoded.endswith(b"\n")  # one line, whatever the bot wrote
        assert codec.decode_referee_line(encoded) == notice
        return
    except Exception as error:  # pragma: no cover - the failure this file exists to catch
        raise AssertionError(f"decode_bot_line raised {type(error).__name__}: {error}") from error
    assert isinstance(decoded, BOT_CLASSES)
    again = codec.decode_bot_line(codec.encode_answer(decoded))
    assert again == decoded


def check_referee_line(line: bytes) -> None:
    try:
        decoded = codec.decode_referee_line(line)
    except codec.ProtocolError as error:
        assert "Hint: " in str(error)
        return
    except Exception as error:  # pragma: no cover
        raise AssertionError(f"decode_referee_line raised {type(error).__name__}: {error}") from error
    assert codec.decode_referee_line(codec.encode(decoded)) == decoded


# --- bot lines --------------------------------------------------------------------------------------------------


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(answers())
def test_valid_answers_decode_and_round_trip(answer: dict[str, Any]) -> None:
    line = json.dumps(answer).encode() + b"\n"
    decoded = codec.decode_bot_line(line)
    assert json.loads(msgspec.json.encode(decoded)) == answer
    check_bot_line(line)


@settings(max_examples=examples(1500), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(json_mutants(answers()))
@example(b'{"type": "play", "id": 18446744073709551616, "card": "QS"}')
@example(b'{"type": "play", "id": -1, "card": "QS"}')
@example(b'{"type": "play", "id": 1, "card": "\\ud800"}')
@example(b'{"type": "play", "id": 1, "card": "QS", "card": "2C"}')
@example(b'{"type": "play", "id": 1e400, "card": "QS"}')
@example(b'{"type": "pass", "id": 1, "cards": ["QS", "QS", "QS", "QS"]}')
@example(b'{"type": "hello", "id": 1, "name": "x", "version": "1", "protocol": 99999999999999999999}')
def test_json_level_mutants_raise_only_protocol_error(line: bytes) -> None:
    check_bot_line(line)


@settings(max_examples=examples(1500), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(byte_mutants(json_mutants(answers()) | answers().map(lambda a: json.dumps(a).encode())))
@example(b'\xef\xbb\xbf{"type": "moon", "id": 3, "choice": "self"}\n')
@example(b'{"type": "moon", "id": 3, "choice": "self"}\r\n')
@example(b'{"type": "moon", "id": 3,\n "choice": "self"}\n')
@example(b'{"type": "moon", "id": 3, "choice": "self"}' + b" " * (codec.MAX_BOT_LINE_BYTES - 42) + b"\n")
def test_byte_level_mutants_raise_only_protocol_error(line: bytes) -> None:
    check_bot_line(line)


@settings(max_examples=examples(400), deadline=None)
@given(st.text(max_size=200).map(lambda s: s.encode("utf-8", "surrogatepass")))
def test_any_text_raises_only_protocol_error(line: bytes) -> None:
    check_bot_line(line)


@settings(max_examples=examples(100), deadline=None)
@given(st.integers(0, codec.MAX_BOT_LINE_BYTES + 8), st.sampled_from([b"[", b"{", b'"', b"\\", b"1", b"\xff", b"\n"]))
def test_lines_of_one_repeated_byte_raise_only_protocol_error(length: int, byte: bytes) -> None:
    check_bot_line(byte * length)


# --- referee lines ---------------------------------------------------------------------------------------------


def referee_corpus() -> list[bytes]:
    """Real referee messages: games of every family played by the fallback, through ``referee.wire``."""
    lines: list[bytes] = []
    for game, players, options in (("kierki", 4, {}), ("hearts", 4, {"target": 30}), ("cancellation", 7, {})):
        state = GameState(Ruleset.create(game, players, options), seed=4)
        rng = random.Random(game)
        events: list[Event] = list(state.events)
        while not state.is_over:
            seat = state.to_act
            obs = state.observation(seat)
            rules = wire_requests.game_part(state.ruleset)[1]
            if state.phase is Phase.PLAY and rng.random() < 0.3:
                lines.append(codec.encode(wire_requests.play_request(state, state.play_view(), 7, 1, 1000)))
            elif state.phase is Phase.PASS:
                lines.append(codec.encode(wire_requests.pass_request(obs, 7, 1, 1000, rules)))
            elif state.phase is Phase.TRUMP:
                lines.append(codec.encode(wire_requests.trump_request(obs, state.trump_choices(), 7, 1, 1000, rules)))
            events += state.apply(state.fallback_action())
        for per_seat in wire.messages_for(events, players, 1):
            lines.extend(codec.encode(message) for message in per_seat)
    return lines


REFEREE_LINES = referee_corpus()


def test_the_referee_corpus_decodes() -> None:
    tags = set()
    for line in REFEREE_LINES:
        tags.add(codec.decode_referee_line(line).__struct_config__.tag)
    assert {"deal", "played", "trick", "deal_end", "game_end", "play", "pass", "trump", "passed"} <= tags


@settings(max_examples=examples(800), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    byte_mutants(st.sampled_from(REFEREE_LINES).map(lambda line: line.rstrip(b"\n")))
    | json_mutants(st.sampled_from(REFEREE_LINES).map(json.loads))
)
def test_referee_line_mutants_raise_only_protocol_error(line: bytes) -> None:
    check_referee_line(line)
