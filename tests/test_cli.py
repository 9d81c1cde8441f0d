"""The `kierki` command as a user runs it (click's CliRunner, real bot processes)."""

from __future__ import annotations

import json
import os
import re
import subprocess
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


@pytest.mark.parametrize("command", ["match", "tournament"])
def test_a_short_explicit_seed_draws_a_warning_and_a_long_one_does_not(tmp_path: Path, command: str) -> None:
    """README, "Seeds and dealing": a bot can search a short seed from its own cards."""
    bots = ["h=sample:heuristic", "r=sample:random", "--sets", "1"] if command == "tournament" else []
    for seed, warned in (("7", True), ("0123456789abcdef0123456789abcdef", False)):
        out = tmp_path / f"{command}-{seed}"
        args = [command, *bots, "--game", "hearts", "--option", "target=10", "--seed", seed, "--out", str(out)]
        code, _, err = run(*args)
        assert code == 0, err
        assert ("is short: a bot can find it from its own cards" in err) == warned, err


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
    code, _, err = run("match", "--out", str(tmp_path / "out"), "sample:random")
    assert code == 2 and "needs 4 bot commands, got 1" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1  # no "logs in DIR" header: nothing is written
    assert not (tmp_path / "out").exists()


def test_seven_bots_for_cancellation_suggest_players_7(tmp_path: Path) -> None:
    code, _, err = run("match", "--game", "cancellation", "--out", str(tmp_path), *["sample:random"] * 7)
    assert code == 2
    assert err.strip() == (
        "Error: cancellation with 6 players needs 6 bot commands, got 7: add --players 7 to seat them all "
        "(see `cli match --help`)"  # CliRunner names the program "cli"; the installed command says kierki
    )


def test_a_bot_that_cannot_start_is_one_line(tmp_path: Path) -> None:
    code, _, err = run(
        "match", "--out", str(tmp_path), "/no/such/bot", "sample:random", "sample:random", "sample:random"
    )
    assert code == 1 and "seat 0" in err and "/no/such/bot" in err and "Traceback" not in err


def test_a_missing_relative_bot_is_named_as_given_and_where_it_was_looked_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = run("match", "--out", "out", "./missing.sh", "sample:random", "sample:random", "sample:random")
    assert code == 1
    line = err.strip().splitlines()[-1]
    assert line.startswith("Error: seat 0 (./missing.sh): cannot start bot command ")
    assert f"executable '{tmp_path / 'missing.sh'}' was not found;" in line
    assert "relative to" not in line


def test_the_table_says_why_a_seat_was_forfeited_with_the_bots_text_escaped(tmp_path: Path) -> None:
    bad = f"{sys.executable} {MISBEHAVE} escape_garbage 2"
    code, out, _ = run("match", "--out", str(tmp_path), bad, "sample:random", "sample:random", "sample:random")
    assert code == 0
    [line] = [x for x in out.splitlines() if x.startswith("seat 0 forfeited in game 1: ")]
    assert line.startswith("seat 0 forfeited in game 1: malformed (strike 3): ")
    assert "\x1b" not in out and "\x07" not in out and "pwned" in line
    reason = json.loads((tmp_path / "result.json").read_text())["seats"][0]["forfeit_reason"]
    assert reason.startswith("malformed (strike 3): ")


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
    assert code == 1
    # The error alone: no header naming a folder that is not there ("logs in ...") above it.
    assert err.splitlines() == [
        f"Error: cannot create the output folder {blocker / 'runs'}: Not a directory; choose another with --out"
    ]


def test_the_help_table_names_every_command_with_its_own_short_help() -> None:
    from kierki_cli import entry

    listed = CliRunner().invoke(entry.cli, ["--help"]).stdout
    for name, (module, attribute, short_help) in entry.COMMANDS.items():
        command = entry.cli.get_command(click.Context(entry.cli), name)
        assert command is not None and getattr(sys.modules[module], attribute) is command
        assert command.get_short_help_str(10_000) == short_help, f"update entry.COMMANDS[{name!r}]"
        assert re.search(rf"^  {re.escape(name)} ", listed, re.MULTILINE)
    assert sorted(entry.cli.commands) == sorted(entry.COMMANDS), "a command registered on cli is missing from COMMANDS"
    assert CliRunner().invoke(entry.cli, ["--help"]).stdout == listed  # the same once every module is imported


def test_help_imports_no_command_module() -> None:
    # In a fresh interpreter: `kierki --help` must not import the referee, msgspec or any command's module.
    code = (
        "import sys; from kierki_cli.entry import cli\n"
        "try: cli(['--help'])\n"
        "except SystemExit: pass\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('referee', 'protocol', 'msgspec', 'competition')"
        " or m in ('kierki_cli.main', 'kierki_cli.replay_cmd', 'kierki_cli.checkbot_cmd', 'importlib.metadata'))\n"
        "print('imported:', heavy, file=sys.stderr)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "imported: []" in done.stderr, done.stderr


@pytest.mark.parametrize("columns", ["30", "52", "60", "80", "100", "112", "200", "not-a-number"])
def test_the_script_prints_the_same_help_as_the_click_group(columns: str) -> None:
    # Both in a fresh interpreter with stdout a pipe (CliRunner would force click's width to 80).
    env = {**os.environ, "COLUMNS": columns}
    script = "import sys; sys.argv = ['/usr/bin/kierki', '--help']\nfrom kierki_cli.launch import main; main()"
    group = "from kierki_cli.entry import cli; cli(['--help'], prog_name='kierki')"
    fast, slow = (
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True).stdout
        for code in (script, group)
    )
    assert fast == slow  # click's own width (its formatter, from shutil) and the options it really has
    assert fast.startswith("Usage: kierki [OPTIONS] COMMAND [ARGS]...\n")
    width = max(min(int(columns) if columns.isdigit() else 80, 110) - 2, 50)
    assert max(map(len, fast.splitlines())) <= width
    if columns == "60":  # too narrow for check-bot's sentence: shortened, as click shortens
        assert re.search(r"^  check-bot +Check that a bot speaks the protocol.*\.\.\.$", fast, re.MULTILINE)


def test_the_scripts_help_imports_neither_click_nor_any_command() -> None:
    code = (
        "import sys; sys.argv = ['kierki', '-h']\n"
        "from kierki_cli.launch import main; main()\n"
        "print('imported:', sorted(m for m in sys.modules if m.split('.')[0] in "
        "('click', 'referee', 'protocol', 'msgspec', 'competition') or m.startswith('kierki_cli.') "
        "and m not in ('kierki_cli.launch', 'kierki_cli.command_table')), file=sys.stderr)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "imported: []" in done.stderr, done.stderr
    assert "Commands:" in done.stdout and "  match " in done.stdout


def test_the_scripts_version_is_click_s_without_click() -> None:
    code = (
        "import sys; sys.argv = ['/usr/bin/kierki', '--version']\n"
        "from kierki_cli.launch import main; main()\n"
        "print('click' in sys.modules, file=sys.stderr)"
    )
    fast = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    group = "from kierki_cli.entry import cli; cli(['--version'], prog_name='kierki')"
    slow = subprocess.run([sys.executable, "-c", group], capture_output=True, text=True, check=True)
    assert fast.stdout == slow.stdout and fast.stdout.startswith("kierki, version ")
    assert fast.stderr.strip() == "False"


def test_the_script_plays_a_match_and_exits_with_its_status(tmp_path: Path) -> None:
    argv = ["kierki", "match", "--game", "hearts", "--option", "target=20", "--seed", "1", "--json"]
    code = f"import sys; sys.argv = {[*argv, '--out', str(tmp_path)]!r}\nfrom kierki_cli.launch import main; main()"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["status"] == "complete"
    assert json.loads((tmp_path / "result.json").read_text())["status"] == "complete"


def test_imports_pause_the_collector_and_restore_it() -> None:
    import gc

    from kierki_cli.command_table import gc_paused

    frozen = gc.get_freeze_count()
    for enabled in (True, False):
        (gc.enable if enabled else gc.disable)()
        try:
            with gc_paused():
                assert not gc.isenabled()
            assert gc.isenabled() is enabled
        finally:
            gc.enable()
    assert gc.get_freeze_count() == frozen  # only the kierki script freezes what its imports made


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_the_scripts_help_fails_in_one_line_and_stops_quietly_for_a_reader_that_left() -> None:
    code = "import sys; sys.argv = ['kierki', '--help']\nfrom kierki_cli.launch import main; main()"
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-c", code], stdout=full, stderr=subprocess.PIPE, text=True)
    assert done.returncode == 1 and done.stderr == "Error: cannot write to stdout: No space left on device\n"
    reader = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert reader.stdout is not None and reader.stderr is not None
    reader.stdout.close()  # the reader leaves at once: usually before the help is written, never an error
    assert reader.wait() == 0 and reader.stderr.read() == b""
    reader.stderr.close()


def test_the_script_hands_every_other_command_line_to_click() -> None:
    main = "\nfrom kierki_cli.launch import main; main()"
    code = "import sys; sys.argv = ['kierki', 'options', '--game', 'hearts']" + main
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.startswith("hearts:"), done.stderr
    code = "import sys; sys.argv = ['kierki', 'nosuch', '--help']" + main
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 2 and "No such command 'nosuch'" in done.stderr, done.stderr


def test_the_installed_entry_runs_a_command() -> None:
    from kierki_cli import entry

    result = CliRunner().invoke(entry.cli, ["options", "--game", "hearts"])
    assert result.exit_code == 0 and result.stdout.startswith("hearts:")


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


def _handshake_crash_bot(tmp_path: Path) -> str:
    bot = tmp_path / "dies.py"
    bot.write_text(
        "import sys\nprint('loading model weights', file=sys.stderr)\nprint('ImportError: no numpy', file=sys.stderr)\n"
        "sys.exit(4)\n"
    )
    return f"{sys.executable} {bot}"


def test_a_failed_handshake_shows_the_end_of_the_bots_stderr(tmp_path: Path) -> None:
    code, _, err = run("match", "--out", str(tmp_path / "out"), _handshake_crash_bot(tmp_path), *["sample:random"] * 3)
    assert code == 1
    lines = err.strip().splitlines()
    assert "the bot's stderr (last lines):" in lines and "  ImportError: no numpy" in lines
    assert lines[-1].startswith("Error: seat 0 (") and "failed the handshake" in lines[-1]


def test_with_json_an_error_is_a_json_object(tmp_path: Path) -> None:
    code, out, _ = run(
        "match", "--json", "--out", str(tmp_path / "out"), _handshake_crash_bot(tmp_path), *["sample:random"] * 3
    )
    assert code == 1
    error = json.loads(out)
    assert error["exit_status"] == 1 and "failed the handshake" in error["error"]
    code, out, _ = run("match", "--json", "--option", "target=0", "--game", "hearts")
    assert code == 2 and "too small" in json.loads(out)["error"]


def test_a_wrong_answer_id_is_named_in_the_fault_record(tmp_path: Path) -> None:
    bad = f"{sys.executable} {MISBEHAVE} wrong_id 0"
    out_dir = tmp_path / "out"
    code, _, err = run(
        "match", "--game", "hearts", "--time-per-move", "200", "--out", str(out_dir), bad, *["sample:random"] * 3
    )
    assert code == 0, err
    records = [json.loads(line) for line in (out_dir / "game001.replay.jsonl").read_text().splitlines()]
    faults = [r for r in records if r["type"] == "fault"]
    assert faults and all(f["code"] == "timeout" for f in faults)
    for fault in faults:
        found = re.search(r"answered with id (\d+); the request's id is (\d+)", fault["message"])
        assert found and int(found.group(1)) == int(found.group(2)) + 1000, fault["message"]


def test_the_result_and_table_are_written_into_out(tmp_path: Path) -> None:
    out_dir = tmp_path / "out"
    code, out, _ = run("match", "--game", "hearts", "--option", "target=30", "--seed", "2", "--out", str(out_dir))
    assert code == 0
    assert (out_dir / "result.txt").read_text() == out
    saved = json.loads((out_dir / "result.json").read_text())
    assert saved["status"] == "complete" and saved["game"] == "hearts" and len(saved["seats"]) == 4


def test_progress_is_one_line_per_game_when_stderr_is_not_a_terminal(tmp_path: Path) -> None:
    code, _, err = run(
        "match", "--game", "hearts", "--option", "target=20", "--games", "3", "--seed", "1", "--out", str(tmp_path)
    )
    assert code == 0 and "\r" not in err
    lines = [line for line in err.splitlines() if line.startswith("game ")]
    assert [line.split("  ")[0] for line in lines] == ["game 1/3", "game 2/3", "game 3/3"]
    # Each names the bots best first (seats rotate: a seat's numbers would say nothing), the sample bots by name,
    # two of one name told apart by their seat in game 1; within 80 columns.
    for line in lines:
        cells = line.split("  ")[1:]
        assert sorted(c.split()[1] for c in cells) == ["heuristic#0", "heuristic#2", "random#1", "random#3"]
        places = [int(c.split(".")[0]) for c in cells]
        totals = [int(c.split()[2]) for c in cells]
        assert places == sorted(places) and totals == sorted(totals)  # hearts: the lowest total first
        assert len(line) <= 80


def test_ctrl_c_prints_the_standings_of_the_finished_games(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from referee.match import Match

    real_play = Match._play_game

    def stop_in_game_3(self: Match, game_number: int) -> None:
        if game_number == 3:
            raise KeyboardInterrupt
        real_play(self, game_number)

    monkeypatch.setattr(Match, "_play_game", stop_in_game_3)
    code, out, err = run(
        "match", "--game", "hearts", "--option", "target=20", "--games", "5", "--seed", "1", "--out", str(tmp_path)
    )
    assert code == 130
    assert out.splitlines()[0].split()[:4] == ["place", "seat", "bot", "total"]
    assert "the standings above are those of the 2 finished game(s)" in err
    saved = json.loads((tmp_path / "result.json").read_text())
    assert saved["status"] == "interrupted" and saved["games"] == 2


def test_from_refuses_another_game_and_explicit_rules(tmp_path: Path) -> None:
    code, _, err = run(
        "match", "--game", "hearts", "--option", "target=20", "--seed", "1", "--out", str(tmp_path / "a")
    )
    assert code == 0, err
    log = str(tmp_path / "a" / "game001.replay.jsonl")
    code, _, err = run("match", "--from", log, "--game", "kierki", "--out", str(tmp_path / "b"))
    assert code == 2 and "is a hearts game, not kierki: leave out --game" in err
    code, _, err = run("match", "--from", log, "--option", "target=50", "--out", str(tmp_path / "c"))
    assert code == 2 and "leave out --players and --option" in err
    code, _, err = run("match", "--from", log, "--game", "hearts", "--at", "3", "--out", str(tmp_path / "d"))
    assert code == 0, err


def test_from_a_truncated_log_warns_and_resumes(tmp_path: Path) -> None:
    code, _, err = run(
        "match", "--game", "hearts", "--option", "target=20", "--seed", "1", "--out", str(tmp_path / "a")
    )
    assert code == 0, err
    log = tmp_path / "a" / "game001.replay.jsonl"
    data = log.read_bytes()
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(data[: len(data) // 2])
    code, _, err = run("match", "--from", str(cut), "--at", "5", "--out", str(tmp_path / "b"))
    assert code == 0, err
    warnings = [line for line in err.splitlines() if line.startswith("warning: ")]
    assert any("the log has no end record: it was cut off" in line for line in warnings), err


@pytest.mark.parametrize("written", ["10H", "th", "qs"])
def test_deal_files_take_only_the_canonical_card_form(tmp_path: Path, written: str) -> None:
    import random

    ruleset = Ruleset.create("hearts")
    deal = deal_cards(ruleset, 0, random.Random(3))
    data = json.loads(dump_deal_file(ruleset, [deal]))
    data["deals"][0]["hands"][0][0] = written
    path = tmp_path / "deals.json"
    path.write_text(json.dumps(data))
    code, _, err = run("match", "--game", "hearts", "--deals", str(path), "--out", str(tmp_path / "out"))
    assert code == 1
    assert f"deal 1: {written!r} is not a card: write rank then suit in capitals" in err and "(T is the ten)" in err
