"""The replay record Structs as the one description of the format: what the writer writes (and leaves out), the
reader decoding each line once, the committed JSON Schema, and every example in REPLAY.md."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, get_args

import msgspec
import pytest
from click.testing import CliRunner

from kierki_cli.main import cli
from referee.replay import reader, schema
from referee.replay.records import (
    RECORD_TYPES,
    DealEndRecord,
    DealRecord,
    EndRecord,
    PlayDecision,
    Record,
    record_type,
)
from referee.replay.timeline import build_timeline
from referee.replay.writer import decision_record
from referee.rules import DealKind, PassCards, PlayCard, parse_card
from referee.vocabulary.match_result import GameStatus

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden"
_decode = msgspec.json.Decoder(Record).decode

# --- what is written ---------------------------------------------------------------------------------------


def test_decisions_write_ms_always_and_fallback_and_replayed_only_when_true() -> None:
    play = PlayCard(parse_card("TH"))
    assert (
        msgspec.json.encode(decision_record(2, play, None, False)) == b'{"type":"play","seat":2,"card":"TH","ms":null}'
    )
    assert (
        msgspec.json.encode(decision_record(2, play, 1.23456, True))
        == b'{"type":"play","seat":2,"card":"TH","ms":1.235,"fallback":true}'
    )
    cards = PassCards(tuple(parse_card(c) for c in ("AH", "KH", "QH")))
    assert (
        msgspec.json.encode(decision_record(0, cards, None, False, replayed=True))
        == b'{"type":"pass","seat":0,"cards":["AH","KH","QH"],"ms":null,"replayed":true}'
    )


def test_fields_at_their_zero_value_are_written_unless_optional() -> None:
    deal = DealRecord(deal=1, kind=DealKind.HEARTS, dealer=0, hands=[[]], kitty=[], pass_offset=0)
    assert msgspec.json.encode(deal).endswith(b'"kitty":[],"pass_offset":0}')
    end = DealEndRecord(deal=1, scores=[0], totals=[0], early=False)
    assert msgspec.json.encode(end).endswith(b'"early":false}')
    assert msgspec.json.encode(EndRecord(status=GameStatus.COMPLETE)) == b'{"type":"end","status":"complete"}'


@pytest.mark.parametrize("path", sorted(GOLDEN.glob("*.jsonl")), ids=lambda p: p.name)
def test_every_golden_line_decodes_and_encodes_back_to_the_same_bytes(path: Path) -> None:
    lines = path.read_bytes().splitlines()
    assert lines
    for line in lines:
        assert msgspec.json.encode(_decode(line)) == line


# --- reading -----------------------------------------------------------------------------------------------


class _Counting:
    def __init__(self, inner: msgspec.json.Decoder[Any]) -> None:
        self.inner = inner
        self.calls = 0

    def decode(self, data: bytes) -> Any:
        self.calls += 1
        return self.inner.decode(data)


def test_a_log_is_decoded_once_per_line_straight_into_structs(monkeypatch: pytest.MonkeyPatch) -> None:
    counting = _Counting(reader._decoder)
    monkeypatch.setattr(reader, "_decoder", counting)

    def refused(*args: object, **kwargs: object) -> None:
        raise AssertionError("a second decode of a valid line")

    monkeypatch.setattr(msgspec, "convert", refused)
    monkeypatch.setattr(msgspec.json, "decode", refused)
    path = GOLDEN / "hearts-target30-seed5.replay.jsonl"
    replay = reader.load(path)
    lines = len(path.read_bytes().splitlines())
    assert counting.calls == lines == replay.line_count
    assert all(isinstance(e.record, get_args(Record)) for e in replay.entries)
    assert build_timeline(replay).checked == lines


def test_the_record_as_json_is_the_line_as_written() -> None:
    path = GOLDEN / "kierki-seed3.replay.jsonl"
    replay = reader.load(path)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [replay.header_raw, *(e.raw for e in replay.entries)] == lines
    assert list(replay.entries[1].raw)[:2] == ["type", "seat"]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (b"[1, 2]", "a record is a JSON object, not list"),
        (b'{"seat": 1}', 'a record without a "type"'),
        (b'{"type": "unheard_of"}', "unknown record type 'unheard_of'"),
        (b'{"type": "moon", "seat": 1, "choice": "nobody"}', "moon record: Invalid enum value 'nobody'"),
        (b'{"type": "fault", "seat": 1, "code": "sulking", "message": "", "strikes": 1, "forfeited": false}',
         "fault record: Invalid enum value 'sulking'"),
        (b'{"type": "end"}', "end record: Object missing required field `status`"),
    ],
)  # fmt: skip
def test_a_line_that_is_not_a_record_says_why(line: bytes, message: str) -> None:
    golden = (GOLDEN / "hearts-target30-seed5.replay.jsonl").read_bytes().splitlines()
    with pytest.raises(reader.ReplayError) as error:
        reader.parse(b"\n".join([*golden[:2], line, *golden[2:]]) + b"\n")
    assert str(error.value).startswith(f"line 3: {message}")


# --- the schema and REPLAY.md ------------------------------------------------------------------------------


def test_committed_schema_is_current() -> None:
    current = schema.SCHEMA_PATH.read_text(encoding="utf-8")
    assert current == schema.render_schema(), (
        "referee/replay/schema.json is stale: regenerate it with `python -m referee.replay.schema` and commit it"
    )
    assert schema.main(["--check"]) == 0


def test_the_schema_has_every_record_and_the_command_prints_it() -> None:
    document = schema.json_schema()
    names = {cls.__name__ for cls in get_args(Record)}
    assert names <= set(document["$defs"])
    assert {ref["$ref"].rsplit("/", 1)[1] for ref in document["anyOf"]} == names
    assert document["discriminator"]["propertyName"] == "type"
    assert set(document["discriminator"]["mapping"]) == RECORD_TYPES
    result = CliRunner().invoke(cli, ["replay-schema"])
    assert result.exit_code == 0 and result.stdout == schema.SCHEMA_PATH.read_text(encoding="utf-8")


def _examples(text: str) -> list[str]:
    """Every example record in REPLAY.md: the lines of ```json blocks and inline `{"type":...}` code (not elided)."""
    found = []
    for block in re.findall(r"```json\n(.*?)```", text, flags=re.S):
        found += [line for line in block.splitlines() if line.strip()]
    found += [span for span in re.findall(r"`(\{\"type\"[^`]*\})`", text) if "..." not in span]
    return found


def test_every_example_in_replay_md_decodes_and_is_written_as_shown() -> None:
    examples = _examples((ROOT / "REPLAY.md").read_text(encoding="utf-8"))
    kinds = set()
    for example in examples:
        record = _decode(example.encode())
        assert msgspec.json.encode(record).decode() == example  # the field order and omissions the writer uses
        kinds.add(record_type(record))
    assert kinds == RECORD_TYPES  # an example of every record type
    assert sum(isinstance(_decode(e.encode()), PlayDecision) for e in examples) >= 2
