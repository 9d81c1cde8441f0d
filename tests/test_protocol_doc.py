"""PROTOCOL.md agrees with the code wherever it restates it: each message's field table lists exactly the fields of
its Struct, in their order and ``type`` first. (Every JSON example is decoded by tests/test_protocol.py.)"""

from __future__ import annotations

import re
import typing
from pathlib import Path

import msgspec
import msgspec.inspect

from protocol import messages as m

PROTOCOL_MD = Path(__file__).resolve().parents[1] / "PROTOCOL.md"


def message_tables() -> list[tuple[str, list[str]]]:
    """Per message section of PROTOCOL.md (sections 8 and 9), each field table's first column: (heading, names)."""
    text = PROTOCOL_MD.read_text(encoding="utf-8")
    body = text[text.index("## 8. Requests and their answers") : text.index("## 10. The games")]
    tables: list[tuple[str, list[str]]] = []
    for section in re.split(r"^### ", body, flags=re.M)[1:]:
        heading = section.split("\n", 1)[0]
        for table in re.findall(r"^\| Field \| Type \| Meaning \|\n\|---\|---\|---\|\n((?:\|.*\n)+)", section, re.M):
            tables.append((heading, [row.split("|")[1].strip().strip("`") for row in table.splitlines()]))
    return tables


def wire_names(cls: type[msgspec.Struct]) -> list[str]:
    info = msgspec.inspect.type_info(cls)
    assert isinstance(info, msgspec.inspect.StructType)
    return ["type", *(field.encode_name for field in info.fields)]


def test_every_message_table_lists_exactly_its_structs_fields_in_order_type_first() -> None:
    by_tag = {cls.__struct_config__.tag: cls for cls in typing.get_args(m.RefereeMessage)}
    answers = {cls.__struct_config__.tag: cls for cls in typing.get_args(m.BotMessage)}
    tables = message_tables()
    expected: list[tuple[str, list[str]]] = []
    for heading, _ in tables:
        if heading in answers and (heading, wire_names(by_tag[heading])) not in expected:
            expected += [(heading, wire_names(by_tag[heading])), (heading, wire_names(answers[heading]))]
        elif heading not in answers:
            expected.append((heading, wire_names(by_tag[heading])))
    assert tables == expected
    assert {heading for heading, _ in tables} == set(by_tag)
