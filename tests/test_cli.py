"""The `kierki` command as a user runs it (click's CliRunner, real bot processes)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from rules_helpers import dump_deal_file

from kierki_cli.common import parse_pairs
from kierki_cli.main import cli
from referee.dealfile import parse_deal_file
from referee.rules import DealSpec, Ruleset
from referee.rules.dealing import deal_cards

MISBEHAVE = Path(__file__).parent / "bots" / "misbehave.py"


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_default_match_prints_a_table_of_four_seats(tmp_path: Path) -> None:
    code, out, err = run("match", "--seed", "2", "--out", str(tmp_path))
    assert code == 0, err
    rows = out.strip().splitlines()
    assert rows[0].split()[:4] == ["place", "seat", "bot", "total"]
    seats = sorted(int(row.split()[1]) for row in rows[2:6])
    assert seats == [0, 1, 2, 3]
    assert "seed 2" in err and "kierki (4 players)" in err
    assert (tmp_path / "game001.replay.jsonl").exists()
    assert sorted(p.name for p in tmp_path.glob("seat*.stderr.log")) == [f"seat{s}.stderr.log" for s in range(4)]


def test_json_result_for_scripts(tmp_path: Path) -> None:
    code, out, _ = run(
        "match",
        "--game",
        "hearts",
        "--option",
        "target=40",
        "--seed",
        "3",
        "--games",
        "2",
        "--json",
        "--out",
        str(tmp_path),
    )
    assert code == 0
    result = json.loads(out)
    assert result["game"] == "hearts" and result["games"] == 2 and result["options"]["target"] == 40
    assert [len(s["totals"]) for s in result["seats"]] == [2, 2, 2, 2]


def test_sample_bot_shorthand(tmp_path: Path) -> None:
    code, out, err = run(
        "match",
        "--game",
        "kierki3",
        "--seed",
        "1",
        "--json",
        "--out",
        str(tmp_path),
        "sample:heuristic",
        "sample:random",
        "sample:heuristic",
    )
    assert code == 0, err
    assert [s["name"] for s in json.loads(out)["seats"]] == ["heuristic_bot", "random_bot", "heuristic_bot"]


def test_unknown_sample_bot_is_a_usage_error(tmp_path: Path) -> None:
    code, _, err = run(
        "match", "--out", str(tmp_path), "sample:genius", "sample:random", "sample:random", "sample:random"
    )
    assert code == 2 and "sample:heuristic" in err


def test_bad_option_value_says_what_is_allowed() -> None:
    code, _, err = run("match", "--game", "hearts", "--option", "moon_value=30")
    assert code == 2 and "moon_value" in err and "26, 52" in err


def test_unknown_option_lists_the_games_options() -> None:
    code, _, err = run("match", "--game", "hearts", "--option", "rozbojnik=false")
    assert code == 2 and "hearts has no option rozbojnik" in err and "qs_breaks_hearts" in err


def test_option_without_equals_sign_is_a_usage_error() -> None:
    code, _, err = run("match", "--option", "target")
    assert code == 2 and "--option" in err and "write KEY=VALUE, e.g. target=50" in err


def test_parse_pairs_keeps_order_and_checks_keys_and_values() -> None:
    assert parse_pairs([" a = 1 ", "b=x=y"], "--o", "a=1", strip=True) == [("a", "1"), ("b", "x=y")]
    assert parse_pairs(["A_1= 2"], "--env", "A=1", keys=re.compile(r"[A-Z_0-9]+")) == [("A_1", " 2")]
    assert parse_pairs(["timeout=forfeit"], "--on-fault", "t=f", keys=("timeout",), values=("forfeit",)) == [
        ("timeout", "forfeit")
    ]
    for pairs, kwargs, problem in [
        (["=1"], {}, "'=1': write KEY=VALUE, e.g. a=1"),
        (["a"], {}, "'a': write KEY=VALUE"),
        (["a-b=1"], {"keys": re.compile(r"[a-z]+")}, "'a-b' is not a valid name"),
        (["c=1"], {"keys": ("a", "b")}, "the key is one of a, b"),
        (["a=3"], {"keys": ("a",), "values": ("1", "2")}, "the value is one of 1, 2"),
    ]:
        with pytest.raises(click.BadParameter, match=re.escape(problem)) as caught:
            parse_pairs(pairs, "--o", "a=1", **kwargs)  # type: ignore[arg-type]
        assert caught.value.param_hint == "--o"


def test_wrong_number_of_bots_is_one_line(tmp_path: Path) -> None:
    code, _, err = run("match", "--out", str(tmp_path), "sample:random")
    assert code == 1 and "needs 4 bot commands, got 1" in err and "Traceback" not in err


def test_a_bot_that_cannot_start_is_one_line(tmp_path: Path) -> None:
    code, _, err = run(
        "match", "--out", str(tmp_path), "/no/such/bot", "sample:random", "sample:random", "sample:random"
    )
    assert code == 1 and "seat 0" in err and "/no/such/bot" in err and "Traceback" not in err


def test_on_fault_forfeit_ends_a_seat_at_its_first_timeout(tmp_path: Path) -> None:
    bad = f"{sys.executable} {MISBEHAVE} timeout 2"
    code, out, _ = run(
        "match",
        "--game",
        "hearts",
        "--option",
        "target=30",
        "--seed",
        "5",
        "--json",
        "--time-per-move",
        "150",
        "--on-fault",
        "timeout=forfeit",
        "--out",
        str(tmp_path),
        bad,
        "sample:random",
        "sample:random",
        "sample:random",
    )
    assert code == 0
    seat0 = json.loads(out)["seats"][0]
    assert seat0["faults"] == {"timeout": 1} and seat0["forfeited_in_game"] == 1


def test_on_fault_rejects_unknown_codes() -> None:
    code, _, err = run("match", "--on-fault", "crash=fallback")
    assert code == 2 and "a crash always forfeits" in err


def test_deal_file_plays_the_given_hands(tmp_path: Path) -> None:
    import random

    ruleset = Ruleset.create("hearts", 4, {"target": 30})
    first = deal_cards(ruleset, 2, random.Random(77))
    given = DealSpec(first.hands, first.kitty, 2)
    path = tmp_path / "deals.json"
    path.write_bytes(dump_deal_file(ruleset, [given]))
    assert parse_deal_file(path.read_bytes()).deals == (given,)
    code, _, err = run(
        "match", "--game", "hearts", "--option", "target=30", "--deals", str(path), "--out", str(tmp_path / "out")
    )
    assert code == 0, err
    records = [json.loads(line) for line in (tmp_path / "out" / "game001.replay.jsonl").read_text().splitlines()]
    deal = next(r for r in records if r["type"] == "deal")
    assert deal["dealer"] == 2
    assert deal["hands"] == [[card for card in json.loads(path.read_text())["deals"][0]["hands"][s]] for s in range(4)]


def test_deal_file_for_another_game_is_refused(tmp_path: Path) -> None:
    import random

    ruleset = Ruleset.create("kierki")
    path = tmp_path / "deals.json"
    path.write_bytes(dump_deal_file(ruleset, [deal_cards(ruleset, 0, random.Random(1))]))
    code, _, err = run("match", "--game", "hearts", "--deals", str(path), "--out", str(tmp_path / "out"))
    assert code == 1 and "for kierki, not hearts" in err


def test_options_lists_every_option_with_its_default() -> None:
    code, out, _ = run("options", "--game", "kierki3")
    assert code == 0
    assert "trump_trick_value_3p=20" in out and "deal6_tricks=7,17" in out and "lottery_missing_2c=virtual" in out


def test_protocol_schema_is_the_committed_file() -> None:
    code, out, _ = run("protocol", "schema")
    assert code == 0
    committed = json.loads((Path(__file__).parents[1] / "protocol" / "schema.json").read_text())
    assert json.loads(out) == committed


def test_help_names_every_command() -> None:
    code, out, _ = run("--help")
    assert code == 0
    for command in ("match", "replay", "check-bot", "options", "protocol"):
        assert command in out


def test_default_out_folders_never_collide(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("time.strftime", lambda fmt: "20260101-000000")
    for _ in range(2):
        code, _, err = run("match", "--game", "hearts", "--option", "target=20", "--seed", "1")
        assert code == 0, err
    runs = sorted(p.name for p in (tmp_path / "kierki-out").iterdir())
    assert runs == ["20260101-000000", "20260101-000000-2"]


def test_an_output_folder_that_cannot_be_made_is_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    code, _, err = run("match", "--out", str(blocker / "runs"))
    assert code == 1 and "cannot create the output folder" in err and "Traceback" not in err


@pytest.mark.parametrize("game", ["kierki", "kierki3", "hearts", "cancellation"])
def test_options_lists_exactly_the_choices_each_game_takes(game: str) -> None:
    from referee.rules import RulesError
    from referee.rules.ruleset import Passing

    code, out, _ = run("options", "--game", game)
    assert code == 0
    listed: dict[str, list[str]] = {}
    name = ""
    for line in out.splitlines():
        if line.startswith("  ") and not line.startswith("      "):
            name = line.strip().split("=", 1)[0]
        elif line.strip().startswith("choices: "):
            listed[name] = line.strip().removeprefix("choices: ").split(", ")
    assert listed, out
    for option, choices in listed.items():
        for choice in choices:  # every listed choice is taken
            Ruleset.create(game, None, {option: choice})
    if "passing" in listed:  # and every passing value not listed is refused
        for value in set(Passing) - set(listed["passing"]):
            with pytest.raises(RulesError):
                Ruleset.create(game, None, {"passing": value.value})
    if game == "cancellation":
        assert listed["passing"] == ["alternate", "left", "right", "none"]


@pytest.mark.parametrize("target", ["0", "-5"])
def test_a_target_below_one_is_refused(target: str) -> None:
    code, _, err = run("match", "--game", "hearts", "--option", f"target={target}")
    assert code == 2 and f"option target: '{target}' is too small (the least is 1)" in err
    assert len(err.strip().splitlines()) == 1  # one line, no usage block
