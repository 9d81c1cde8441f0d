"""result.json: a match's summary, encoded by msgspec, is byte for byte what the hand-written ``to_json`` wrote.

tests/golden/result_json holds what the kierki before `MatchSummary` wrote for the result built here: result.json
(``json.dumps`` with an indent of two) and the line of ``kierki match --json``.
"""

from __future__ import annotations

import json
from pathlib import Path

import msgspec

from referee.vocabulary.faults import FaultCode
from referee.vocabulary.match_result import GameStatus, MatchResult, SeatResult

GOLDEN = Path(__file__).parent / "golden" / "result_json"


def _result() -> MatchResult:
    seats = [
        SeatResult(
            0,
            "smart",
            "1.2",
            "python3 smart.py",
            totals=[3, 26],
            places=[1, 4],
            strikes=1,
            faults={FaultCode.TIMEOUT: 1},
            decisions=52,
            mean_ms=12.3456789,
            max_ms=101.00049,
            cpu_ms=[200.12345, 180.0],
            startup_cpu_ms=33.33333,
        ),
        SeatResult(
            1,
            "żółw",
            "",
            "sample:random",
            totals=[23, 0],
            places=[2, 1],
            forfeited_in_game=2,
            forfeit_reason="crash: gone",
            stderr_log_error="disk full",
            ignored_lines=2,
        ),
    ]
    return MatchResult(
        game="kierki",
        players=2,
        options={"deal6_tricks": [7, 13], "rozbojnik": True},
        seed="zażółć",
        games=2,
        seats=seats,
        replays=["a.jsonl", "b.jsonl"],
        out_dir="/tmp/out",
        status=GameStatus.INTERRUPTED,
        rotated=True,
        isolation={"sandbox": "none", "limits": {"memory_mb": 512}},
    )


def test_result_json_is_what_the_older_kierki_wrote() -> None:
    summary = msgspec.to_builtins(_result().summary())
    assert json.dumps(summary, indent=2) + "\n" == (GOLDEN / "result.json").read_text()
    assert json.dumps(summary) + "\n" == (GOLDEN / "result.line.json").read_text()


def test_the_summary_reads_back_as_itself() -> None:
    summary = _result().summary()
    seat = summary.seats[0]
    assert (seat.total, seat.wins, seat.mean_ms, seat.cpu_total_ms) == (29, 1, 12.346, 413.457)
    decoded = msgspec.json.decode((GOLDEN / "result.json").read_bytes(), type=type(summary))
    assert decoded == summary
