"""PROTOCOL.md agrees with the code wherever it restates it: each message's field table lists exactly the fields of
its Struct, in their order and ``type`` first, and section 10's option tables are `kierki options --markdown`'s
output, so they cannot drift from the rules core's option list (``OPTION_SPECS``): every option of every game, its
JSON default and values, its help. (Every JSON example is decoded by tests/test_protocol.py.)"""

from __future__ import annotations

import json
import re
import typing

import msgspec
import msgspec.inspect
from click.testing import CliRunner
from protocol_doc import PROTOCOL_MD, generated_blocks

from kierki_cli.main import cli
from protocol import messages as m
from referee.rules import Game, Ruleset
from referee.rules.ruleset import option_specs


def test_protocol_md_holds_each_games_option_table_as_kierki_options_prints_it() -> None:
    blocks = generated_blocks(PROTOCOL_MD.read_text(encoding="utf-8"))
    assert sorted(game for game, _, _ in blocks) == sorted(game.value for game in Game)
    for game, held, wanted in blocks:
        assert held == wanted, f"the {game} option table is stale: run `python tests/protocol_doc.py`"


def test_each_table_row_is_an_option_with_its_json_default() -> None:
    for game in Game:
        result = CliRunner().invoke(cli, ["options", "--markdown", "--game", game.value])
        rows = [line.split(" | ") for line in result.output.splitlines()[2:]]
        defaults = Ruleset.create(game).options()
        assert [row[0].strip("| `") for row in rows] == [spec.name for spec in option_specs(game)]
        for row in rows:
            name = row[0].strip("| `")
            value = defaults[name]
            assert json.loads(row[1].strip("`")) == (list(value) if isinstance(value, tuple) else value)


def test_options_markdown_for_every_game_names_each() -> None:
    result = CliRunner().invoke(cli, ["options", "--markdown"])
    assert result.exit_code == 0
    assert [line for line in result.output.splitlines() if line.endswith(":")] == [f"{g.value}:" for g in Game]


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
