"""Issue 32 item 2: names nobody can imitate. One rule (`competition.names`) for tournaments and the ladder: names
that differ only in case or in look-alike characters are one name; the refusal names the owner of the name it
collides with; a ladder that holds such names from before is reported by `ladder status`, nothing deleted."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from competition_helpers import short_ladder
from test_ladder_inbox import SAMPLES, _ladder, _random_bot, _result, _submit, _take

from competition.ladder.config import BotSettings, RunSettings
from competition.ladder.ladder import LadderError, add_bot, check_name, init_ladder
from competition.ladder.store import Store
from competition.ladder.store_records import NameTaken
from competition.names import name_key, name_problem, same_name_groups
from competition.plan import PlanError, check_entrants, parse_bot_argument
from kierki_cli.main import cli


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("rustbot", "RustBot"),
        ("rustbot", "RUSTB0T"),  # zero for O
        ("Il1", "lll"),  # capital I, one and small L
        ("Mallory", "rnallory"),  # m and rn
        ("M0", "rno"),
        ("PLAIN", "plain"),
        ("bill", "blll"),  # i is I to case folding, and I is l to the eye
    ],
)
def test_names_that_a_reader_could_take_for_each_other_have_one_key(one: str, other: str) -> None:
    assert name_key(one) == name_key(other)


@pytest.mark.parametrize(("one", "other"), [("rustbot", "rustbat"), ("bot-1", "bot_1"), ("n", "rn"), ("0", "8")])
def test_names_that_differ_to_the_eye_stay_apart(one: str, other: str) -> None:
    assert name_key(one) != name_key(other)


def test_the_refusal_of_a_name_says_what_is_allowed() -> None:
    assert name_problem("żubr") == "ż not allowed: use 1-40 ASCII letters (a-z, A-Z), digits (0-9) and _ . - +"
    assert name_problem("a b") == "' ' not allowed: use 1-40 ASCII letters (a-z, A-Z), digits (0-9) and _ . - +"
    assert name_problem("x" * 41) is not None and name_problem("") is not None
    assert name_problem("Rust-bot_2.0+") is None
    with pytest.raises(LadderError, match=r"^bot name 'żubr': ż not allowed: use 1-40 ASCII letters"):
        check_name("żubr")
    with pytest.raises(PlanError, match=r"^bot name 'żubr': ż not allowed: use 1-40 ASCII letters"):
        parse_bot_argument("żubr=sample:random")


def test_a_tournament_refuses_two_names_that_look_alike(tmp_path: Path) -> None:
    entrants = [parse_bot_argument(a) for a in ("rustbot=sample:random", "RustB0t=sample:random", "h=sample:random")]
    with pytest.raises(PlanError, match=r"^bot names RustB0t and rustbot differ only in case or in look-alike"):
        check_entrants(entrants)
    result = CliRunner().invoke(
        cli, ["tournament", "Il=sample:random", "l1=sample:random", "--sets", "1", "--out", str(tmp_path / "t")]
    )
    assert result.exit_code != 0 and "Il and l1 differ only in case" in result.output


def test_the_ladder_refuses_a_look_alike_name_naming_its_owner(tmp_path: Path) -> None:
    with Store.open(tmp_path / "l.sqlite", create=True) as store:
        store.add_bot("rustbot", "./bot", "/", owner="alice")
        with pytest.raises(NameTaken, match=r"^RustBot is too like rustbot \(alice's\): names that differ only in"):
            store.add_bot("RustBot", "./bot", "/", owner="mallory")
        with pytest.raises(NameTaken, match=r"too like rustbot \(alice's\)"):
            store.add_bot("rustb0t", "./bot", "/", owner="alice")  # the owner's own look-alike is refused too
        store.add_bot("plain", "./bot", "/")
        with pytest.raises(NameTaken, match=r"^PLAIN is too like plain \(added without an owner\)"):
            store.add_bot("PLAIN", "./bot", "/")
        assert [b.name for b in store.bots()] == ["plain", "rustbot"]


def test_ladder_add_and_the_inbox_refuse_a_look_alike_before_any_game(tmp_path: Path) -> None:
    folder = _ladder(tmp_path)
    add_bot(folder, "rustbot", [sys.executable, str(SAMPLES / "random_bot.py")], cwd=tmp_path, owner="alice")
    result = CliRunner().invoke(
        cli, ["ladder", "add", str(folder), "RustBot", "--owner", "mallory", "--", sys.executable, "x.py"]
    )
    assert result.exit_code == 1 and "RustBot is too like rustbot (alice's)" in result.output
    where = _submit(folder, "mallory", "RUSTB0T", _random_bot())
    (line,) = _take(folder)
    assert line.startswith("inbox mallory/RUSTB0T: refused: RUSTB0T is too like rustbot (alice's)")
    assert _result(where)["accepted"] is False
    assert not (folder / "bots" / "RUSTB0T@1").exists()


def test_an_older_ladder_with_look_alike_names_is_reported_and_kept(tmp_path: Path) -> None:
    folder = tmp_path / "ladder"
    config = short_ladder(RunSettings(jobs=1, pin=False, plan_ahead=2), BotSettings(validation=False))
    init_ladder(folder, config)
    with Store.open(folder / "ladder.sqlite") as store:
        store.add_bot("rustbot", "sample:random", "/", owner="alice")
    # What an older kierki let in: the same name in other case, written straight into the database.
    with sqlite3.connect(folder / "ladder.sqlite") as db:
        db.execute(
            "INSERT INTO bots (label, name, version, owner, command, cwd, status, created)"
            " VALUES ('RustBot@1', 'RustBot', 1, 'mallory', 'sample:random', '/', 'active', 0)"
        )
    runner = CliRunner()
    status = runner.invoke(cli, ["ladder", "status", str(folder)])
    assert status.exit_code == 0
    assert (
        "names too alike (added before names were compared by case and look-alike characters): "
        "RustBot@1 (mallory's, active), rustbot@1 (alice's, active); nothing was changed" in status.output
    )
    with Store.open(folder / "ladder.sqlite") as store:
        assert sorted(b.label for b in store.bots()) == ["RustBot@1", "rustbot@1"]
        store.retire("RustBot")
        with pytest.raises(NameTaken, match=r"^RustBot cannot stand beside rustbot@1 \(alice's\)"):
            store.reactivate("RustBot", "asked to")
        assert same_name_groups(b.name for b in store.bots()) == [["RustBot", "rustbot"]]
