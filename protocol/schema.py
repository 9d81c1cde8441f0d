"""The wire format as JSON Schema, generated from the Structs so it cannot drift from the code.

Bot authors in other languages can validate their output against ``protocol/schema.json`` or generate types
from it. The file is committed (so it can be read on the web and shipped as package data) and a test fails when
it is stale. Regenerate it with::

    python -m protocol.schema

``python -m protocol.schema --check`` only compares, exiting 1 when the file is stale (for CI).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Final

import msgspec

from protocol.codec import MAX_BOT_LINE_BYTES, PROTOCOL_VERSION
from protocol.messages import BotMessage, ErrorEventV1, RefereeMessage

__all__ = ["SCHEMA_PATH", "json_schema", "main", "render_schema"]

SCHEMA_PATH: Final = Path(__file__).with_name("schema.json")


def json_schema() -> dict[str, Any]:
    """Both directions in one document: ``$defs`` holds every message and nested object.

    The document itself matches either a referee message or a bot answer; ``$defs/RefereeMessage`` and
    ``$defs/BotMessage`` are the two directions on their own. ``$defs/ErrorEventV1`` is the error event as the
    referee writes it to a bot of protocol 1, outside both.
    """
    (referee, bot, _v1), components = msgspec.json.schema_components(
        [RefereeMessage, BotMessage, ErrorEventV1], ref_template="#/$defs/{name}"
    )
    defs = dict(components)
    defs["RefereeMessage"] = {
        "title": "RefereeMessage",
        "description": "Any line the referee writes to a bot. Bots must ignore unknown fields and types.",
        **referee,
    }
    defs["BotMessage"] = {
        "title": "BotMessage",
        "description": f"Any line a bot writes; at most {MAX_BOT_LINE_BYTES} bytes, no unknown fields.",
        **bot,
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"kierki wire protocol, version {PROTOCOL_VERSION}",
        "description": (
            "One JSON object per line, UTF-8, each line ending in a newline. See PROTOCOL.md for the "
            "order of messages, deadlines and what the referee does when a bot misbehaves."
        ),
        "x-protocol-version": PROTOCOL_VERSION,
        "anyOf": [{"$ref": "#/$defs/RefereeMessage"}, {"$ref": "#/$defs/BotMessage"}],
        "$defs": defs,
    }


def render_schema() -> str:
    """The exact text of ``schema.json``: stable key order so regenerating gives a minimal diff."""
    return json.dumps(json_schema(), sort_keys=True, indent=2, ensure_ascii=False) + "\n"


def schema_file_main(path: Path, text: str, module: str, argv: list[str] | None = None) -> int:
    """A committed schema file's command: write ``text`` to ``path``, or with ``--check`` say whether it is current.

    Shared by every schema this project publishes (the protocol's here, the replay log's in referee.replay).
    """
    args = sys.argv[1:] if argv is None else argv
    if args == ["--check"]:
        if path.exists() and path.read_text(encoding="utf-8") == text:
            return 0
        print(f"{path} is stale: run `python -m {module}`", file=sys.stderr)
        return 1
    if args:
        print(f"usage: python -m {module} [--check]", file=sys.stderr)
        return 2
    path.write_text(text, encoding="utf-8")
    print(f"wrote {path}")
    return 0


def main(argv: list[str] | None = None) -> int:
    return schema_file_main(SCHEMA_PATH, render_schema(), "protocol.schema", argv)


if __name__ == "__main__":
    sys.exit(main())
