"""Issue 32 item 4: tournament.json stores the stopping rule with everything else, so ``--resume --out DIR`` alone
plays exactly what the first run would have; a resume given another rule says what changed and keeps it."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest
from click.testing import CliRunner
from competition_helpers import output_once_stopped, tournament_after_its_first_set

from competition.results_file import read_results
from kierki_cli import tournament_cmd
from kierki_cli.main import cli

ARGS = ["a=sample:random", "b=sample:random", "--game", "hearts", "--option", "target=10", "--seed", "4"]


def _resume(out: Path, *more: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["tournament", "--resume", "--out", str(out), *more])
    return result.exit_code, result.stderr


def test_a_sets_3_tournament_stopped_after_its_first_set_resumes_to_3_sets(tmp_path: Path) -> None:
    out = tmp_path / "out"
    process = tournament_after_its_first_set(["tournament", *ARGS, "--sets", "3", "--jobs", "1", "--out", str(out)])
    os.killpg(process.pid, signal.SIGTERM)
    output_once_stopped(process)
    assert process.returncode == 130
    assert 1 <= len(read_results(out / "results.jsonl")[0]) < 3
    stored = json.loads((out / "tournament.json").read_text())
    assert stored["stop"] == {"sets": 3, "until_ci": None, "max_sets": 1000}
    code, err = _resume(out)
    assert code == 0, err
    assert "3 sets" in err and "changed" not in err
    assert sorted(r.set_id for r in read_results(out / "results.jsonl")[0]) == [1, 2, 3]
    # Another rule given on a resume is said, played, and kept for the next resume.
    code, err = _resume(out, "--sets", "4")
    assert code == 0 and "note: the stopping rule changed: --sets 3 before, --sets 4 now" in err
    assert len(read_results(out / "results.jsonl")[0]) == 4
    assert json.loads((out / "tournament.json").read_text())["stop"]["sets"] == 4
    code, err = _resume(out)
    assert code == 0 and "changed" not in err and len(read_results(out / "results.jsonl")[0]) == 4


def test_an_until_ci_rule_is_stored_and_max_sets_alone_needs_it(tmp_path: Path) -> None:
    out = tmp_path / "ci"
    result = CliRunner().invoke(
        cli, ["tournament", *ARGS, "--until-ci", "1e9", "--max-sets", "1", "--jobs", "1", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert json.loads((out / "tournament.json").read_text())["stop"] == {"sets": None, "until_ci": 1e9, "max_sets": 1}
    assert len(read_results(out / "results.jsonl")[0]) == 1
    code, err = _resume(out, "--max-sets", "2")
    assert code == 0 and "--until-ci 1e+09 --max-sets 1 before, --until-ci 1e+09 --max-sets 2 now" in err
    assert len(read_results(out / "results.jsonl")[0]) == 2
    assert json.loads((out / "tournament.json").read_text())["stop"]["max_sets"] == 2
    refused = CliRunner().invoke(cli, ["tournament", *ARGS, "--max-sets", "5", "--out", str(tmp_path / "x")])
    assert refused.exit_code == 2 and "--max-sets goes with --until-ci WIDTH" in refused.output


@pytest.mark.parametrize("stored", [None, {"sets": "many"}])
def test_an_older_or_broken_tournament_json_says_what_it_plays(
    tmp_path: Path, stored: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tournament_cmd, "DEFAULT_SETS", 2)  # the default, 10, played for nothing but time
    out = tmp_path / "old"
    result = CliRunner().invoke(cli, ["tournament", *ARGS, "--sets", "1", "--out", str(out)])
    assert result.exit_code == 0, result.output
    data = json.loads((out / "tournament.json").read_text())
    del data["stop"]
    if stored is not None:
        data["stop"] = stored
    (out / "tournament.json").write_text(json.dumps(data))
    code, err = _resume(out)
    if stored is None:
        assert code == 0 and "keeps no stopping rule (an older kierki wrote it): playing to the default --sets 2" in err
        assert len(read_results(out / "results.jsonl")[0]) == 2
    else:
        assert code == 1 and "the stored stopping rule cannot be read" in err
