"""The wire protocol: PROTOCOL.md agrees with the Structs, bad bot lines give helpful ProtocolErrors and
nothing else, and the committed JSON Schema is current."""

from __future__ import annotations

import inspect
import json
import re
import subprocess
import sys
import typing
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

from protocol import schema
from protocol.codec import (
    MAX_BOT_LINE_BYTES,
    PROTOCOL_VERSION,
    ProtocolError,
    decode_bot_line,
    decode_referee_line,
    encode,
    encode_answer,
)
from protocol.messages import (
    ANSWER_TYPES,
    BotMessage,
    ErrorEvent,
    ErrorEventV1,
    HelloAnswer,
    MoonOptions,
    MoonRequest,
    PassAnswer,
    PassedEvent,
    PlayAnswer,
    RefereeMessage,
)

ROOT = Path(__file__).resolve().parents[1]
PROTOCOL_MD = ROOT / "PROTOCOL.md"

BOT_CLASSES: tuple[type[msgspec.Struct], ...] = typing.get_args(BotMessage)
REFEREE_CLASSES: tuple[type[msgspec.Struct], ...] = typing.get_args(RefereeMessage)


def tag_of(cls: type[msgspec.Struct]) -> str:
    tag = cls.__struct_config__.tag
    assert isinstance(tag, str)
    return tag


def fenced_blocks(language: str) -> list[str]:
    text = PROTOCOL_MD.read_text(encoding="utf-8")
    return re.findall(rf"^```{language}\n(.*?)^```$", text, flags=re.S | re.M)


def decode_example(block: str) -> tuple[str, Any, Any]:
    """Decode a documentation example by its shape: a strict bot answer if it is one, else a referee message.

    The two directions share tags ("play" is both a request and an answer), but answers are strict and
    requests have required fields answers lack, so at most one direction accepts any example.
    """
    value = json.loads(block)
    line = json.dumps(value).encode()
    if value["type"] == "error" and "id" in value:  # section 4's error event as protocol 1 writes it
        return "referee-v1", value, msgspec.json.decode(line, type=ErrorEventV1)
    try:
        return "bot", value, decode_bot_line(line)
    except ProtocolError:
        return "referee", value, decode_referee_line(line)


EXAMPLES = [decode_example(block) for block in fenced_blocks("json")]


# --- PROTOCOL.md -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("side", "value", "msg"), EXAMPLES, ids=lambda x: str(x)[:30])
def test_doc_example_round_trips_to_the_same_json(side: str, value: Any, msg: Any) -> None:
    line = encode_answer(msg) if side == "bot" else encode(msg)
    assert json.loads(line) == value, "an example has a field the Struct lacks, or misses one"


def test_every_message_has_a_doc_example() -> None:
    documented = {(side, value["type"]) for side, value, _ in EXAMPLES if side != "referee-v1"}
    wanted = {("bot", tag_of(c)) for c in BOT_CLASSES} | {("referee", tag_of(c)) for c in REFEREE_CLASSES}
    assert wanted - documented == set()


def test_doc_states_the_version_and_line_limit() -> None:
    text = PROTOCOL_MD.read_text(encoding="utf-8")
    assert f"**Protocol version {PROTOCOL_VERSION}**" in text
    assert f"**{MAX_BOT_LINE_BYTES} bytes**" in text


def test_every_doc_example_is_one_object_per_block() -> None:
    text = PROTOCOL_MD.read_text(encoding="utf-8")
    assert text.count("```json") == len(fenced_blocks("json")), "an indented ```json block is not tested"
    decoder = json.JSONDecoder()
    for block in fenced_blocks("json"):
        value, end = decoder.raw_decode(block.strip())
        assert isinstance(value, dict)
        assert end == len(block.strip()), f"more than one JSON value in: {block[:60]}"


def run_minimal_bot(tmp_path: Path, messages: list[bytes]) -> subprocess.CompletedProcess[bytes]:
    code, _library_bot = fenced_blocks("python")  # section 11's bot, then section 12's (test_protocol_bot.py)
    bot = tmp_path / "minimal_bot.py"
    bot.write_text(code, encoding="utf-8")
    return subprocess.run(
        [sys.executable, str(bot)],
        input=b"".join(messages),
        capture_output=True,
        timeout=60,
        check=False,
    )


def test_minimal_bot_answers_every_request_of_the_docs(tmp_path: Path) -> None:
    referee = [msg for side, _, msg in EXAMPLES if side.startswith("referee")]
    requests = [m for m in referee if type(m) in ANSWER_TYPES]
    events = [m for m in referee if type(m) not in ANSWER_TYPES and tag_of(type(m)) != "bye"]
    future = b'{"type": "chat", "text": "a message type from a later version"}\n'
    stream = [encode(m) for m in events] + [future] + [encode(m) for m in requests]
    result = run_minimal_bot(tmp_path, [*stream, b'{"type": "bye", "reason": "match_over"}\n'])
    assert result.returncode == 0, result.stderr.decode()
    answers = [decode_bot_line(line) for line in result.stdout.splitlines()]
    assert len(answers) == len(requests)
    for request, reply in zip(requests, answers, strict=True):
        assert isinstance(reply, ANSWER_TYPES[type(request)])
        assert reply.id == request.id
        if isinstance(reply, PlayAnswer):
            assert reply.card in request.legal
        if isinstance(reply, PassAnswer):
            assert len(reply.cards) == request.count
        if isinstance(reply, HelloAnswer):
            assert reply.protocol == PROTOCOL_VERSION


def test_minimal_bot_exits_on_end_of_input(tmp_path: Path) -> None:
    result = run_minimal_bot(tmp_path, [b'{"type": "game_start", "x": 1}\n'])
    assert result.returncode == 0
    assert result.stdout == b""


# --- the Structs -------------------------------------------------------------------------------------------


def test_tags_are_the_draft_wire_names() -> None:
    assert [tag_of(c) for c in BOT_CLASSES] == ["hello", "pass", "trump", "play", "moon"]
    assert [tag_of(c) for c in REFEREE_CLASSES] == [
        *("hello", "pass", "trump", "play", "moon", "game_start", "deal", "passed", "played"),
        *("lottery_pass", "trick", "deal_end", "game_end", "error", "bye"),
    ]


@pytest.mark.parametrize("cls", BOT_CLASSES + REFEREE_CLASSES, ids=lambda c: c.__name__)
def test_struct_config(cls: type[msgspec.Struct]) -> None:
    config = cls.__struct_config__
    assert config.frozen and not config.omit_defaults
    parameters = inspect.signature(cls).parameters.values()
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in parameters)
    assert config.tag_field == "type"
    assert config.forbid_unknown_fields is (cls in BOT_CLASSES)


def test_each_request_names_its_answer() -> None:
    assert {tag_of(req): tag_of(ans) for req, ans in ANSWER_TYPES.items()} == {
        tag: tag for tag in ("hello", "pass", "trump", "play", "moon")
    }


@pytest.mark.parametrize(("side", "value", "msg"), EXAMPLES, ids=lambda x: str(x)[:30])
def test_struct_round_trip(side: str, value: Any, msg: Any) -> None:
    if side == "bot":
        assert decode_bot_line(encode_answer(msg)) == msg
    elif side == "referee-v1":  # read as protocol 2's error event, the request in "request_id"
        assert decode_referee_line(encode(msg)) == msg.current()
    else:
        assert decode_referee_line(encode(msg)) == msg


def test_python_keywords_keep_their_wire_names() -> None:
    moon = MoonRequest(id=3, game_number=1, deal=2, options=MoonOptions(self_=(0, 26), others=(26, 0)), time_ms=50)
    assert json.loads(encode(moon))["options"] == {"self": [0, 26], "others": [26, 0]}
    passed = PassedEvent(game_number=1, deal=1, sent=("2C",), received=("3C",), from_=2, hand=("3C",))
    assert json.loads(encode(passed))["from"] == 2


def test_error_event_carries_a_tagged_fallback_answer() -> None:
    error = ErrorEvent(
        request_id=5,
        code="timeout",
        message="no answer within 100 ms\nanswer faster",
        fallback=PlayAnswer(id=5, card="2C"),
        strikes=1,
        forfeited=False,
    )
    line = encode(error)
    assert line.endswith(b"\n") and line.count(b"\n") == 1 and b": " not in line
    assert json.loads(line)["fallback"] == {"type": "play", "id": 5, "card": "2C"}
    assert decode_referee_line(line) == error


def test_only_requests_carry_id_and_the_error_event_names_its_request_in_request_id() -> None:
    """One rule for every referee message of protocol 2: "id" marks a request (PROTOCOL.md section 5)."""
    for cls in REFEREE_CLASSES:
        fields = {field.encode_name for field in msgspec.structs.fields(cls)}
        assert ("id" in fields) == (cls in ANSWER_TYPES), tag_of(cls)
    assert "request_id" in {field.encode_name for field in msgspec.structs.fields(ErrorEvent)}


def test_a_protocol_1_bot_gets_the_error_event_with_id_and_decoders_read_both_forms() -> None:
    error = ErrorEvent(request_id=5, code="illegal", message="m", fallback=None, strikes=1, forfeited=False)
    assert error.in_protocol(2) is error
    old = json.loads(encode(error.in_protocol(1)))
    assert old == {
        "type": "error",
        "id": 5,
        "code": "illegal",
        "message": "m",
        "fallback": None,
        "strikes": 1,
        "forfeited": False,
    }
    assert "id" not in json.loads(encode(error))
    assert decode_referee_line(encode(error.in_protocol(1))) == error


def test_referee_lines_ignore_unknown_fields_but_not_unknown_types() -> None:
    bye = decode_referee_line(b'{"type": "bye", "reason": "aborted", "added_in_v2": [1, 2]}')
    assert bye == decode_referee_line(b'{"type": "bye", "reason": "aborted"}')
    with pytest.raises(ProtocolError) as caught:
        decode_referee_line(b'{"type": "chat", "text": "hi"}')
    assert caught.value.message_type == "chat"


# --- decode_bot_line: rejections ---------------------------------------------------------------------------

PLAY = b'{"type": "play", "id": 7, "card": "QS"}'


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (b"thinking about QS...", ["not valid JSON", "stderr", "`thinking about QS...`"]),
        (b'{"type": "play", "id": 7, "card": "QS"', ["not valid JSON", "truncated"]),
        (PLAY + b" " + PLAY, ["not valid JSON", "trailing characters"]),
        (b'{"type": "play", "card": "Q\xffS"}', ["not valid UTF-8", "byte 27 is 0xff"]),
        (b"\xef\xbb\xbf" + PLAY, ["not valid JSON"]),
        (b"", ["empty line"]),
        (b"  \r\n", ["empty line"]),
        (b"[1, 2]", ['expected a JSON object with a "type" field, got an array `[1,2]`']),
        (b'"play"', ['expected a JSON object with a "type" field, got a string']),
        (b"42", ["got a number `42`"]),
        (b"null", ["got null"]),
        (b'{"id": 7, "card": "QS"}', ['no "type" field', '"hello", "pass", "trump", "play", "moon"']),
        (b'{"type": ["play"]}', ['"type" must be a string, got an array']),
        (b'{"type": {"name": "play"}}', ['"type" must be a string, got an object']),
        (b'{"type": "plya", "id": 7}', ['unknown message type "plya" (did you mean "play"?)']),
        (b'{"type": "played", "id": 7}', ['unknown message type "played"', "A bot sends only"]),
        (b'{"type": "play", "id": 7, "crad": "QS"}', ["unknown field `crad`", 'did you mean "card"']),
        (PLAY[:-1] + b', "why": "x"}', ['invalid "play" answer', "unknown field `why`"]),
        (b'{"type": "play", "id": 7, "card": "10S"}', ["`$.card`", 'a card such as "QS"']),
        (b'{"type": "play", "id": 7, "card": "qs"}', ["regex", "`$.card`"]),
        (b'{"type": "play", "id": 7, "card": 43}', ["Expected `str`, got `int` - at `$.card`"]),
        (b'{"type": "play", "id": "7", "card": "QS"}', ["Expected `int`, got `str` - at `$.id`"]),
        (b'{"type": "play", "id": -1, "card": "QS"}', ["`$.id`", "an integer >= 0"]),
        (b'{"type": "play", "id": 7.5, "card": "QS"}', ["`$.id`"]),
        (b'{"type": "play", "id": 1e400, "card": "QS"}', ["out of range"]),
        (b'{"type": "play", "card": "QS"}', ["missing required field `id`"]),
        (b'{"type": "pass", "id": 7, "cards": "QS KS AH"}', ["`$.cards`", "a list of cards"]),
        (b'{"type": "pass", "id": 7, "cards": ["QS", "KS", "1H"]}', ["`$.cards[2]`"]),
        (b'{"type": "trump", "id": 7, "suit": "spades"}', ["`$.suit`", '"NT"']),
        (b'{"type": "moon", "id": 7, "choice": "me"}', ["`$.choice`", '"others", "self"']),
        (b'{"type": "hello", "id": 1, "name": "x"}', ["missing required field `version`"]),
        (b"[" * 3000, ["nested too deeply"]),
        (b'{"type": "play", "id": 7, "card": "' + b"Q" * 5000 + b'"}', ["4096 bytes"]),
    ],
)
def test_decode_bot_line_explains_what_is_wrong(line: bytes, expected: list[str]) -> None:
    with pytest.raises(ProtocolError) as caught:
        decode_bot_line(line + b"\n")
    message = str(caught.value)
    assert "Hint: " in message
    for part in expected:
        assert part in message


def test_protocol_error_is_a_value_error_and_knows_the_line() -> None:
    with pytest.raises(ValueError, match=r"^line 3: ") as caught:
        decode_bot_line(b'{"type": "play", "id": 12, "card": "XX"}', line_number=3)
    assert isinstance(caught.value, ProtocolError)
    assert (caught.value.message_type, caught.value.message_id) == ("play", 12)
    assert caught.value.line_number == 3


def test_a_hello_of_another_version_is_a_mismatch_not_garbage() -> None:
    other = b'{"type": "hello", "id": 1, "name": "b", "version": "3", "protocol": 3}'
    assert decode_bot_line(other) == HelloAnswer(id=1, name="b", version="3", protocol=3)
    with pytest.raises(ProtocolError, match="speaks protocol version 3") as caught:
        decode_bot_line(other[:-1] + b', "features": ["chat"]}')
    assert caught.value.protocol == 3
    older = b'{"type": "hello", "id": 1, "name": "b", "version": "1", "protocol": 1, "features": []}'
    with pytest.raises(ProtocolError, match="invalid") as caught:  # version 1 is spoken: just a bad field
        decode_bot_line(older)
    assert caught.value.protocol is None


def test_line_ends_and_the_length_limit() -> None:
    for end in (b"", b"\n", b"\r\n"):
        assert decode_bot_line(PLAY + end) == PlayAnswer(id=7, card="QS")
    padded = PLAY[:-1] + b" " * (MAX_BOT_LINE_BYTES - len(PLAY)) + b"}"
    assert len(padded) == MAX_BOT_LINE_BYTES
    assert decode_bot_line(padded + b"\r\n") == PlayAnswer(id=7, card="QS")
    assert decode_bot_line(padded + b"\r") == PlayAnswer(id=7, card="QS")  # as the transport hands a CRLF line
    with pytest.raises(ProtocolError, match="4097 bytes long"):
        decode_bot_line(b" " + padded + b"\n")


# --- decode_bot_line: nothing but ProtocolError, whatever comes in -------------------------------------------

VALID_ANSWERS: list[dict[str, Any]] = [
    {"type": "hello", "id": 1, "name": "bot", "version": "1.0", "protocol": 1},
    {"type": "pass", "id": 2, "cards": ["QS", "KS", "AH"]},
    {"type": "trump", "id": 3, "suit": "NT"},
    {"type": "play", "id": 4, "card": "TH"},
    {"type": "moon", "id": 5, "choice": "self"},
]

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(max_size=8)
    | st.sampled_from(["QS", "2C", "NT", "play", "self", "10H", "qs"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=10,
)
field_names = st.sampled_from(["type", "id", "card", "cards", "suit", "choice", "name", "protocol"])


@st.composite
def mutated_answers(draw: st.DrawFn) -> bytes:
    """A valid answer with a few things changed: the near misses that real bots send."""
    answer = dict(draw(st.sampled_from(VALID_ANSWERS)))
    for _ in range(draw(st.integers(0, 3))):
        action = draw(st.sampled_from(["set", "delete", "add"]))
        if action == "set":
            answer[draw(field_names)] = draw(json_values)
        elif action == "delete" and answer:
            del answer[draw(st.sampled_from(sorted(answer)))]
        else:
            answer[draw(st.text(max_size=6))] = draw(json_values)
    data = bytearray(json.dumps(answer, ensure_ascii=draw(st.booleans())).encode())
    for _ in range(draw(st.sampled_from([0, 0, 0, 1, 2, 3]))):  # mostly structural near misses
        at = draw(st.integers(0, len(data)))
        edit = draw(st.sampled_from(["insert", "delete", "replace"]))
        byte = draw(st.integers(0, 255))
        if edit == "insert":
            data.insert(at, byte)
        elif at < len(data):
            if edit == "delete":
                del data[at]
            else:
                data[at] = byte
    return bytes(data) + draw(st.sampled_from([b"", b"\n", b"\r\n"]))


def decodes_or_explains(line: bytes) -> None:
    try:
        decoded = decode_bot_line(line)
    except ProtocolError as error:
        assert "Hint: " in str(error)
    else:
        assert isinstance(decoded, BOT_CLASSES)


@settings(max_examples=examples(400), deadline=None)
@given(st.binary(max_size=300) | st.binary(min_size=4090, max_size=4110))
def test_random_bytes_raise_only_protocol_error(line: bytes) -> None:
    decodes_or_explains(line)


@settings(max_examples=examples(800), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_answers())
def test_near_valid_answers_raise_only_protocol_error(line: bytes) -> None:
    decodes_or_explains(line)


@settings(max_examples=examples(100), deadline=None)
@given(st.integers(1, 4000), st.sampled_from([b"[", b'{"a":', b'{"type":"pass","id":1,"cards":[']))
def test_deep_nesting_raises_only_protocol_error(depth: int, opener: bytes) -> None:
    decodes_or_explains(opener * depth)


# --- the JSON Schema ---------------------------------------------------------------------------------------


def test_committed_schema_is_current() -> None:
    current = schema.SCHEMA_PATH.read_text(encoding="utf-8")
    assert current == schema.render_schema(), (
        "protocol/schema.json is stale: regenerate it with `python -m protocol.schema` and commit it"
    )
    assert schema.main(["--check"]) == 0


def test_schema_names_both_directions_and_every_message() -> None:
    document = schema.json_schema()
    names = {cls.__name__ for cls in BOT_CLASSES + REFEREE_CLASSES}
    assert names | {"RefereeMessage", "BotMessage"} <= set(document["$defs"])
    assert document["x-protocol-version"] == PROTOCOL_VERSION
    card = document["$defs"]["PlayAnswer"]["properties"]["card"]
    assert card["pattern"] == "^[2-9TJQKA][CDHS]$"


def test_schema_has_the_error_event_of_each_version_and_only_requests_require_id() -> None:
    defs = schema.json_schema()["$defs"]
    assert "request_id" in defs["ErrorEvent"]["required"] and "id" not in defs["ErrorEvent"]["properties"]
    assert "id" in defs["ErrorEventV1"]["required"]  # protocol 1's form, outside RefereeMessage
    assert {"$ref": "#/$defs/ErrorEventV1"} not in defs["RefereeMessage"]["anyOf"]
    for cls in REFEREE_CLASSES:
        assert ("id" in defs[cls.__name__]["properties"]) == (cls in ANSWER_TYPES), cls.__name__
