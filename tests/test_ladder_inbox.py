"""The ladder's inbox: strangers' submissions taken once, copied, validated, owned, and answered in result.json."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner
from competition_helpers import short_ladder

import sample_bots
from competition.ladder.config import BotSettings, InboxSettings, LadderConfig, RunSettings
from competition.ladder.inbox import take_inbox
from competition.ladder.ladder import add_bot, init_ladder
from competition.ladder.run import run_ladder
from competition.ladder.site import bot_page, write_site
from competition.ladder.store import Store
from competition.ladder.store_records import BotStatus
from kierki_cli.main import cli

SAMPLES = Path(sample_bots.__file__).parent
HOSTILE = Path(__file__).parent / "hostile"


def _config(**inbox: object) -> LadderConfig:
    return short_ladder(
        RunSettings(jobs=2, pin=False, plan_ahead=1),
        BotSettings(validation=True, validation_deals=1),
        InboxSettings(**{"unsandboxed": True, **inbox}),  # type: ignore[arg-type]
    )


def _ladder(tmp_path: Path, **inbox: object) -> Path:
    folder = tmp_path / "ladder"
    init_ladder(folder, _config(**inbox))
    return folder


def _submit(folder: Path, owner: str, name: str, files: dict[str, str | Path], *, ready: bool = True) -> Path:
    """An upload as an author makes it: the files, bot.toml, and READY last."""
    where = folder / "inbox" / owner / name
    where.mkdir(parents=True, exist_ok=True)
    for relative, content in files.items():
        path = where / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, Path):
            shutil.copyfile(content, path)
        else:
            path.write_text(content)
    if ready:
        (where / "READY").write_text("")
    return where


def _random_bot(command: str = 'command = "python3 bot.py"\n') -> dict[str, str | Path]:
    return {"bot.py": SAMPLES / "random_bot.py", "bot.toml": command}


def _take(folder: Path) -> list[str]:
    lines: list[str] = []
    take_inbox(folder, LadderConfig.load(folder), now=lambda: 1e9, progress=lines.append)
    return lines


def _result(where: Path) -> dict[str, object]:
    data = json.loads((where / "result.json").read_text())
    assert isinstance(data, dict)
    return data


def test_a_complete_submission_is_copied_validated_added_for_its_owner_and_answered_once(tmp_path: Path) -> None:
    folder = _ladder(tmp_path)
    where = _submit(folder, "alice", "rnd", _random_bot())
    half = _submit(folder, "bob", "later", _random_bot(), ready=False)
    assert _take(folder) == ["inbox alice/rnd: accepted as rnd@1"]
    with Store.open(folder / "ladder.sqlite") as store:
        (bot,) = store.bots()
    assert (bot.label, bot.owner) == ("rnd@1", "alice")
    copy = folder / "bots" / "rnd@1"
    assert Path(bot.cwd) == copy.resolve() and (copy / "bot.py").read_bytes() == (where / "bot.py").read_bytes()
    assert not (copy / "READY").exists()
    result = _result(where)
    assert result["accepted"] is True and result["label"] == "rnd@1" and result["reason"] is None
    assert not (where / "READY").exists() and not (half / "result.json").exists()
    (where / "bot.py").write_text("raise SystemExit(3)\n")  # the author changes the inbox: the copy runs on
    assert _take(folder) == []
    assert (copy / "bot.py").read_bytes() == (SAMPLES / "random_bot.py").read_bytes()
    (where / "READY").write_text("")  # a new READY is a new submission: the broken file is refused now
    (line,) = _take(folder)
    assert line.startswith("inbox alice/rnd: refused: rnd was not added: it failed its validation game")
    with Store.open(folder / "ladder.sqlite") as store:
        assert [b.label for b in store.bots(BotStatus.ACTIVE)] == ["rnd@1"]
        assert [s.accepted for s in store.submissions("rnd")] == [False, True]


def test_a_submission_under_another_owners_name_is_refused_with_the_owner(tmp_path: Path) -> None:
    folder = _ladder(tmp_path)
    add_bot(folder, "rnd", [sys.executable, str(SAMPLES / "random_bot.py")], cwd=tmp_path, owner="alice")
    where = _submit(folder, "mallory", "rnd", _random_bot())
    (line,) = _take(folder)
    assert line == "inbox mallory/rnd: refused: rnd belongs to alice: choose another name"
    assert _result(where)["accepted"] is False
    with Store.open(folder / "ladder.sqlite") as store:
        assert [(b.label, b.owner, b.status) for b in store.bots()] == [("rnd@1", "alice", "active")]
    assert not (folder / "bots" / "rnd@2").exists()


def test_ladder_add_refuses_another_owners_name_too(tmp_path: Path) -> None:
    folder = _ladder(tmp_path)
    add_bot(folder, "rnd", [sys.executable, str(SAMPLES / "random_bot.py")], cwd=tmp_path, owner="alice")
    os.chdir(tmp_path)
    result = CliRunner().invoke(
        cli, ["ladder", "add", str(folder), "rnd", "--owner", "mallory", "--", sys.executable, "x.py"]
    )
    assert result.exit_code == 1 and "belongs to alice" in result.output


def test_a_broken_submission_is_refused_with_its_stderr_and_the_run_goes_on(tmp_path: Path) -> None:
    folder = _ladder(tmp_path)
    # four good bots for the four seats (a bot never sits twice at a table), beside the two broken ones
    for owner, name in (("alice", "a"), ("bob", "b"), ("carol", "c"), ("frank", "f")):
        _submit(folder, owner, name, _random_bot('command = ["python3", "bot.py"]\n'))
    crash = _submit(
        folder,
        "dave",
        "crashy",
        {
            "bot.py": HOSTILE / "crash_mid_game.py",
            "_common.py": HOSTILE / "_common.py",
            "bot.toml": 'command = "python3 bot.py 3"\nenv = { PYTHONDONTWRITEBYTECODE = "1" }\n',
        },
    )
    junk = _submit(folder, "erin", "junk", {"bot.toml": "command = 5\n"})
    report = run_ladder(folder, sets=1)
    assert report.sets_played == 1
    refused = _result(crash)
    reason = str(refused["reason"])
    assert refused["accepted"] is False and reason.startswith("crashy was not added: it failed its validation game")
    assert "its last stderr lines are shown" in reason and "see its stderr log" not in reason  # the log is gone
    stderr = refused["stderr"]
    assert isinstance(stderr, list) and any("hostile bot: crashing at decision 3" in line for line in stderr)
    assert not any(str(folder.resolve()) in line for line in stderr)  # the server's path is DIR
    assert "command must be a string" in str(_result(junk)["reason"])
    with Store.open(folder / "ladder.sqlite") as store:
        assert sorted(b.label for b in store.bots()) == ["a@1", "b@1", "c@1", "f@1"]
    assert sorted(p.name for p in (folder / "bots").iterdir()) == ["a@1", "b@1", "c@1", "f@1"]
    with Store.open(folder / "ladder.sqlite") as store:
        write_site(folder, store, tmp_path / "www")
        page = (tmp_path / "www" / "bots" / bot_page(store.bots()[0])).read_text()
    assert re.search(r'accepted as <a href="bot-\d+\.html">a@1</a>', page)
    listing = (tmp_path / "www" / "submissions.html").read_text()
    assert "refused: crashy was not added" in listing and "refused: bot.toml: command must be a string" in listing


def test_symlinks_and_hard_links_in_a_submission_are_refused_and_nothing_of_the_ladder_is_copied(
    tmp_path: Path,
) -> None:
    folder = _ladder(tmp_path)
    linked = _submit(folder, "mallory", "peek", _random_bot(), ready=False)
    (linked / "key").symlink_to(folder / "secret.key")
    (linked / "READY").write_text("")
    hard = _submit(folder, "mallory", "hard", _random_bot(), ready=False)
    os.link(folder / "secret.key", hard / "key")
    (hard / "READY").write_text("")
    lines = _take(folder)
    assert len(lines) == 2 and all("refused" in line for line in lines), lines
    assert "key cannot be opened as a plain file or folder (a symlink?)" in str(_result(linked)["reason"])
    assert "key is not a plain file" in str(_result(hard)["reason"])
    assert not (folder / "bots").exists() or not any((folder / "bots").iterdir())


def test_an_unsandboxed_ladder_takes_no_submission_unless_told_to(tmp_path: Path) -> None:
    folder = _ladder(tmp_path, unsandboxed=False)
    where = _submit(folder, "alice", "rnd", _random_bot())
    (line,) = _take(folder)
    assert line.startswith('inbox not taken: isolation.sandbox = "none" would run strangers\' bots unsandboxed')
    assert (where / "READY").exists() and not (where / "result.json").exists()


def test_ladder_intake_takes_the_inbox_from_the_command_line(tmp_path: Path) -> None:
    folder = _ladder(tmp_path)
    where = _submit(folder, "alice", "rnd", _random_bot())
    result = CliRunner().invoke(cli, ["ladder", "intake", str(folder)])
    assert result.exit_code == 0, result.output
    assert "inbox alice/rnd: accepted as rnd@1" in result.output and "1 submission(s) taken" in result.output
    assert _result(where)["label"] == "rnd@1"


def test_a_push_to_an_owners_git_repository_becomes_a_submission_through_the_hook(tmp_path: Path) -> None:
    folder = _ladder(tmp_path)
    (folder / "inbox" / "alice").mkdir(parents=True)
    repo = tmp_path / "alice.git"
    env = {**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}

    def git(*args: str, cwd: Path = tmp_path) -> str:
        done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True)
        return done.stdout + done.stderr

    git("init", "-q", "--bare", str(repo))
    git("config", "kierki.inbox", str(folder / "inbox" / "alice"), cwd=repo)
    shutil.copy(Path(__file__).parent.parent / "tools" / "inbox_post_receive.sh", repo / "hooks" / "post-receive")
    work = tmp_path / "work"
    git("init", "-q", "-b", "rnd", str(work))
    for name, content in _random_bot().items():
        if isinstance(content, Path):
            shutil.copyfile(content, work / name)
        else:
            (work / name).write_text(content)
    git("add", ".", cwd=work)
    git("-c", "user.name=a", "-c", "user.email=a@b", "commit", "-q", "-m", "first", cwd=work)
    pushed = git("push", "-q", str(repo), "rnd", cwd=work)
    assert "kierki: rnd submitted as commit" in pushed
    assert (folder / "inbox" / "alice" / "rnd" / "READY").exists()
    assert _take(folder) == ["inbox alice/rnd: accepted as rnd@1"]
