"""PROTOCOL.md's generated parts: the rule option tables of section 10, which are `kierki options --markdown`'s
output for each game between the comment that names that command and ``<!-- end -->``.

``python tests/protocol_doc.py`` rewrites them in place; ``tests/test_protocol_doc.py`` fails while they differ.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from click.testing import CliRunner

ROOT = Path(__file__).resolve().parent.parent
PROTOCOL_MD = ROOT / "PROTOCOL.md"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from kierki_cli.main import cli  # noqa: E402

BLOCK = re.compile(r"(<!-- kierki options --markdown --game (\w+) -->\n)(.*?)(<!-- end -->)", re.S)


def options_table(game: str) -> str:
    """The block of ``game``: the command's table between blank lines (so that Markdown sees a table)."""
    result = CliRunner().invoke(cli, ["options", "--markdown", "--game", game])
    assert result.exit_code == 0, result.output
    return "\n" + result.output + "\n"


def generated_blocks(text: str) -> list[tuple[str, str, str]]:
    """Each generated block of ``text``: its game, what it holds, what it should hold."""
    return [(found.group(2), found.group(3), options_table(found.group(2))) for found in BLOCK.finditer(text)]


def regenerate(text: str) -> str:
    return BLOCK.sub(lambda found: found.group(1) + options_table(found.group(2)) + found.group(4), text)


if __name__ == "__main__":
    PROTOCOL_MD.write_text(regenerate(PROTOCOL_MD.read_text(encoding="utf-8")), encoding="utf-8")
    print(f"wrote {PROTOCOL_MD}")
