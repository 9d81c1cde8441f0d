"""The output folder and seed of ``kierki tournament`` and ``kierki sprt`` (one function for both commands)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from kierki_cli.main import cli
from kierki_cli.tournament_options import out_dir_and_seed


@pytest.mark.parametrize(
    ("args", "what"),
    [
        (["tournament", "h=sample:heuristic", "r=sample:random", "--resume"], "the folder of the tournament"),
        (["sprt", "--new", "sample:heuristic", "--old", "sample:random", "--resume"], "the folder of the test"),
    ],
)
def test_resume_without_out_is_a_usage_error_naming_the_run(args: list[str], what: str) -> None:
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2
    assert f"--resume needs --out DIR: {what} to continue" in result.output


def test_a_resumed_run_keeps_its_stored_seed_unless_one_is_given(tmp_path: Path) -> None:
    (tmp_path / "tournament.json").write_text(json.dumps({"seed": "stored-seed-of-the-stopped-run"}))
    found = out_dir_and_seed("sprt", "test", tmp_path, None, resume=True, quiet=True)
    assert found == (tmp_path, "stored-seed-of-the-stopped-run")
    assert out_dir_and_seed("sprt", "test", tmp_path, "given", resume=True, quiet=True)[1] == "given"
    _, fresh = out_dir_and_seed("sprt", "test", tmp_path, None, resume=False, quiet=True)
    assert fresh != "stored-seed-of-the-stopped-run" and len(fresh) == 32


def test_a_short_seed_gets_a_note_unless_quiet(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_dir_and_seed("tournament", "tournament", tmp_path, "7", resume=False, quiet=False)
    assert "seed '7' is short" in capsys.readouterr().err
    out_dir_and_seed("tournament", "tournament", tmp_path, "7", resume=False, quiet=True)
    out_dir_and_seed("tournament", "tournament", tmp_path, "a" * 32, resume=False, quiet=False)
    assert capsys.readouterr().err == ""


def test_default_folders_are_named_after_the_command_and_never_reused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("time.strftime", lambda fmt: "20260101-000000")
    first, _ = out_dir_and_seed("sprt", "test", None, "x" * 32, resume=False, quiet=True)
    assert first == Path("kierki-out/sprt-20260101-000000")
    first.mkdir(parents=True)
    second, _ = out_dir_and_seed("sprt", "test", None, "x" * 32, resume=False, quiet=True)
    assert second == Path("kierki-out/sprt-20260101-000000-2")


RUNS = {
    "tournament": ["tournament", "h=sample:heuristic", "r=sample:random"],
    "sprt": ["sprt", "--new", "sample:heuristic", "--old", "sample:random"],
}


@pytest.mark.parametrize("command", RUNS)
def test_a_folder_that_cannot_be_made_is_reported_by_its_error_alone(tmp_path: Path, command: str) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    result = CliRunner().invoke(cli, [*RUNS[command], "--out", str(blocker / "runs")])
    assert result.exit_code == 1
    # No header naming a folder that is not there ("results in ...") above the error.
    assert result.stderr.splitlines() == [
        f"Error: cannot create the output folder {blocker / 'runs'}: Not a directory; choose another with --out"
    ]


@pytest.mark.parametrize("command", RUNS)
def test_a_folder_that_holds_another_run_is_reported_by_its_error_alone(tmp_path: Path, command: str) -> None:
    (tmp_path / "tournament.json").write_text("{}")
    result = CliRunner().invoke(cli, [*RUNS[command], "--out", str(tmp_path)])
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        f"Error: {tmp_path} already holds a tournament: continue it with --resume, or choose another --out"
    ]
