"""Regenerate the golden replay logs in tests/golden/: ``python tests/regen_golden.py``.

Each golden is one game between the sample bots with a fixed seed, written by the real referee, then
normalised so that it is the same on every machine and every run: the timing fields (each decision's ``ms``,
the header's ``started``) and the referee's version are dropped, and the bot commands lose the interpreter's
and the checkout's paths. Everything else is what the referee wrote. ``tests/test_replay_golden.py`` regenerates
them in a temporary folder and diffs, so a change in the format, the rules or the sample bots shows up in review.
"""

from __future__ import annotations

import json
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = Path(__file__).resolve().parent / "golden"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from referee.bots.time_control import TimeControl  # noqa: E402
from referee.match import Match  # noqa: E402
from referee.match_config import MatchConfig, MatchSpec, RulesetSpec, default_bots  # noqa: E402
from referee.rules import Ruleset  # noqa: E402


@dataclass(frozen=True)
class Golden:
    name: str
    game: str
    players: int | None
    options: dict[str, object]
    seed: int


GOLDENS = (
    Golden("kierki-seed3.replay.jsonl", "kierki", None, {}, 3),
    Golden("hearts-target30-seed5.replay.jsonl", "hearts", None, {"target": 30}, 5),
    Golden("cancellation6-target30-seed7.replay.jsonl", "cancellation", 6, {"target": 30}, 7),
)

TIMING_FIELDS = ("ms", "cpu_ms", "started", "referee", "isolation")


def normalise(record: dict[str, Any]) -> dict[str, Any]:
    """The record without its timing fields and machine paths (the --no-timing of the goldens)."""
    out = {k: v for k, v in record.items() if k not in TIMING_FIELDS}
    if out.get("type") == "header":
        out["bots"] = [
            {**bot, "command": "python3 sample_bots/" + Path(bot["command"].split()[-1]).name} for bot in out["bots"]
        ]
    return out


def play(golden: Golden, work: Path) -> Path:
    ruleset = Ruleset.create(golden.game, golden.players, golden.options)
    spec = MatchSpec(
        rules=RulesetSpec.of(ruleset),
        bots=default_bots(ruleset.players),
        seed=str(golden.seed),
        # Generous deadlines: a golden must never depend on how busy the machine is.
        time=TimeControl(move_ms=30_000, startup_ms=30_000),
    )
    result = Match(MatchConfig.from_spec(spec, work)).run()
    return Path(result.replays[0])


def generate(out_dir: Path) -> list[Path]:
    """Play every golden game and write its normalised log to ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    with tempfile.TemporaryDirectory() as work:
        for golden in GOLDENS:
            log = play(golden, Path(work) / golden.name)
            lines = [json.loads(line) for line in log.read_text().splitlines()]
            text = "".join(json.dumps(normalise(r), separators=(",", ":")) + "\n" for r in lines)
            path = out_dir / golden.name
            path.write_text(text)
            written.append(path)
    return written


if __name__ == "__main__":
    for path in generate(GOLDEN):
        print(f"wrote {path.relative_to(ROOT)}")
