"""Issue 32 item 7: the inbox for every language. A relative command (``./bot``, ``bin/bot``, a bare ``bot`` that is
a file of the submission, ``java -cp . Bot``) runs from the submission's copied folder; a command that cannot start
is refused before any game, saying what the submitter should change."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from bot_helpers import build_java_bot
from test_ladder_inbox import SAMPLES, _ladder, _result, _submit, _take

from competition.ladder.store import Store
from competition.ladder.store_records import BotStatus

SCRIPT = "#!/usr/bin/env python3\n" + (SAMPLES / "random_bot.py").read_text()


def _upload(folder: Path, name: str, command: str, files: dict[str, str | Path], mode: int = 0o755) -> Path:
    where = _submit(folder, "alice", name, {**files, "bot.toml": f"command = {command!r}\n"}, ready=False)
    for relative in files:
        os.chmod(where / relative, mode)
    (where / "READY").write_text("")
    return where


def _commands(folder: Path) -> dict[str, str]:
    with Store.open(folder / "ladder.sqlite") as store:
        return {bot.name: bot.command for bot in store.bots(BotStatus.ACTIVE)}


def test_relative_commands_run_from_the_submissions_copy(tmp_path: Path) -> None:
    folder = _ladder(tmp_path)
    _upload(folder, "dot", "./bot", {"bot": SCRIPT})
    _upload(folder, "bin", "bin/bot", {"bin/bot": SCRIPT})
    _upload(folder, "bare", "bot", {"bot": SCRIPT})  # a bare name that is a file of the submission: ./bot
    assert sorted(_take(folder)) == [f"inbox alice/{name}: accepted as {name}@1" for name in ("bare", "bin", "dot")]
    assert _commands(folder) == {"bare": "./bot", "bin": "bin/bot", "dot": "./bot"}


def test_a_compiled_c_bot_is_uploaded_as_its_program(tmp_path: Path, c_bot: Path) -> None:
    folder = _ladder(tmp_path)
    _upload(folder, "cbot", "./bot", {"bot": c_bot})
    assert _take(folder) == ["inbox alice/cbot: accepted as cbot@1"]
    assert (folder / "bots" / "cbot@1" / "bot").read_bytes() == c_bot.read_bytes()


def test_a_java_bot_runs_with_its_classes_from_the_copy(tmp_path: Path) -> None:
    classes = tmp_path / "classes"
    build_java_bot(classes)
    folder = _ladder(tmp_path)
    files: dict[str, str | Path] = {p.name: p for p in classes.glob("*.class")}
    _upload(folder, "javabot", "java -cp . Bot", files, mode=0o644)
    assert _take(folder) == ["inbox alice/javabot: accepted as javabot@1"]


@pytest.mark.parametrize(
    ("command", "files", "mode", "says"),
    [
        ("./bott", {"bot": SCRIPT}, 0o755, "./bott is not a file of your submission: upload it, or fix the path"),
        ("./bot", {"bot": SCRIPT}, 0o644, "./bot is not executable: set its executable bit before uploading"),
        ("../bot", {"bot": SCRIPT}, 0o755, "../bot leads out of your submission: name a file inside it"),
        ("./bot", {"bot": "#!/nowhere/python\n"}, 0o755, "starts with #!/nowhere/python, which this server does not"),
        ("./bot", {"bot": "\xcf\xfa\xed\xfe"}, 0o755, "./bot is neither a Linux program nor a script with a #! line"),
        ("no-such-program-x", {"bot": SCRIPT}, 0o755, "'no-such-program-x' is neither a file of your submission nor"),
        ("/no/such/bot", {"bot": SCRIPT}, 0o755, "/no/such/bot is not a program on this server: name your own"),
    ],
)
def test_a_command_that_cannot_start_is_refused_before_any_game_saying_what_to_change(
    tmp_path: Path, command: str, files: dict[str, str | Path], mode: int, says: str
) -> None:
    folder = _ladder(tmp_path)
    where = _upload(folder, "broken", command, files, mode)
    (line,) = _take(folder)
    assert line.startswith("inbox alice/broken: refused: bot.toml: command: ") and says in line
    assert _result(where)["accepted"] is False and _commands(folder) == {}
    assert not (folder / "bots" / "broken@1").exists()


def test_an_elf_program_for_another_machine_is_refused_naming_both(tmp_path: Path) -> None:
    other = 0xB7 if os.uname().machine != "aarch64" else 0x3E
    header = b"\x7fELF\x02\x01\x01" + bytes(11) + other.to_bytes(2, "little") + bytes(44)
    program = tmp_path / "elf"
    program.write_bytes(header)
    folder = _ladder(tmp_path)
    _upload(folder, "elf", "./bot", {"bot": program})
    (line,) = _take(folder)
    assert f"is a Linux program for {'aarch64' if other == 0xB7 else 'x86_64'}, and this server is" in line


def test_a_failed_validation_game_says_how_to_try_the_bot_at_home(tmp_path: Path) -> None:
    folder = _ladder(tmp_path)
    _upload(folder, "crash", "./bot", {"bot": "#!/bin/sh\nexit 3\n"})
    (line,) = _take(folder)
    assert "it failed its validation game" in line
    assert line.endswith("; try it on your machine with: kierki check-bot -- ./bot")
