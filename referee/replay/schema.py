"""The replay record format as JSON Schema, generated from the Structs of ``records.py`` so it cannot drift.

Tools in other languages can validate a log line by line against ``referee/replay/schema.json``, or generate types
from it. The file is committed (so it can be read on the web and is shipped as package data) and a test fails when
it is stale. ``kierki replay-schema`` prints it. Regenerate it with::

    python -m referee.replay.schema

``python -m referee.replay.schema --check`` only compares, exiting 1 when the file is stale (for CI).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Final

import msgspec

from protocol.schema import schema_file_main
from referee.replay.records import FORMAT, VERSION, Record

__all__ = ["SCHEMA_PATH", "json_schema", "main", "render_schema"]

SCHEMA_PATH: Final = Path(__file__).with_name("schema.json")


def json_schema() -> dict[str, Any]:
    """One line of a log: any record; ``$defs`` holds each record type and its nested objects."""
    (record,), components = msgspec.json.schema_components([Record], ref_template="#/$defs/{name}")
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"{FORMAT} record, format version {VERSION}",
        "description": (
            "One line of a kierki replay log (JSON Lines, UTF-8). The first line is a header, the last of a "
            "finished log an end record. Readers must ignore unknown fields. See REPLAY.md."
        ),
        "x-replay-version": VERSION,
        **record,
        "$defs": dict(components),
    }


def render_schema() -> str:
    """The exact text of ``schema.json``: stable key order so regenerating gives a minimal diff."""
    return json.dumps(json_schema(), sort_keys=True, indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    return schema_file_main(SCHEMA_PATH, render_schema(), "referee.replay.schema", argv)


if __name__ == "__main__":
    sys.exit(main())
