"""The golden replay logs in tests/golden/: regenerated in a temporary folder and diffed, and verified.

A difference means the replay format, the rules or the sample bots changed. If the change is meant, run
``python tests/regen_golden.py`` and commit the new goldens with it, so the change shows up in review.
"""

from __future__ import annotations

import difflib
import json
from pathlib import Path

import pytest
import regen_golden
from click.testing import CliRunner

from kierki_cli.main import cli
from referee.replay.records import DECISION_TYPES

# A golden as the dict-building writer wrote it, before the records became Structs: "seat" before "type" on
# decision lines. Kept to show that this was the only change, and that such logs still read and verify.
SEAT_FIRST = regen_golden.GOLDEN / "seat-first" / "hearts-target30-seed5.replay.jsonl"


@pytest.fixture(scope="module")
def regenerated(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("golden")
    return {path.name: path for path in regen_golden.generate(out)}


@pytest.mark.parametrize("golden", regen_golden.GOLDENS, ids=lambda g: g.name)
def test_golden_log_is_unchanged(golden: regen_golden.Golden, regenerated: dict[str, Path]) -> None:
    stored = regen_golden.GOLDEN / golden.name
    assert stored.exists(), f"{stored} is missing: run `python tests/regen_golden.py`"
    want = stored.read_text().splitlines()
    got = regenerated[golden.name].read_text().splitlines()
    if got != want:
        diff = "\n".join(list(difflib.unified_diff(want, got, "stored", "regenerated", lineterm="", n=1))[:40])
        pytest.fail(
            f"{golden.name} differs from what the referee writes now (format, rules or sample bots changed).\n"
            f"If that is intended, run `python tests/regen_golden.py` and commit tests/golden/.\n{diff}"
        )


@pytest.mark.parametrize("golden", regen_golden.GOLDENS, ids=lambda g: g.name)
def test_golden_log_verifies(golden: regen_golden.Golden) -> None:
    result = CliRunner().invoke(cli, ["replay", "--verify", str(regen_golden.GOLDEN / golden.name)])
    assert result.exit_code == 0 and result.stdout.startswith("OK: "), result.stdout


def test_normalising_drops_timing_and_paths() -> None:
    header = {
        "type": "header",
        "started": "2025-01-01T00:00:00Z",
        "referee": "9.9",
        "bots": [
            {"seat": 0, "name": "x", "version": "1", "command": "/usr/bin/python3 /home/a/sample_bots/random_bot.py"}
        ],
    }
    assert regen_golden.normalise(header) == {
        "type": "header",
        "bots": [{"seat": 0, "name": "x", "version": "1", "command": "python3 sample_bots/random_bot.py"}],
    }
    assert regen_golden.normalise({"seat": 1, "type": "play", "card": "2C", "ms": 0.2}) == {
        "seat": 1,
        "type": "play",
        "card": "2C",
    }


def test_a_format_1_log_keeps_its_own_deals() -> None:
    """Format 1 was dealt by the retired Mersenne Twister dealer: its deals are read from its deal records."""
    old = [json.loads(line) for line in SEAT_FIRST.read_text().splitlines()]
    assert old[0]["version"] == 1 and isinstance(old[0]["seed"], int)
    assert next(list(r)[:2] for r in old if r["type"] in DECISION_TYPES) == ["seat", "type"]  # the old key order


def test_a_format_1_log_with_the_old_key_order_still_verifies() -> None:
    result = CliRunner().invoke(cli, ["replay", "--verify", str(SEAT_FIRST)])
    assert result.exit_code == 0 and result.stdout.startswith("OK: "), result.stdout
