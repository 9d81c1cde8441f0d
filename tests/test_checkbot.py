"""`kierki check-bot`: every starter bot passes, each broken bot fails with the message that names its mistake.

The scenario tests need no process: they play each check's game with random legal choices for the bot and prove
that every situation is reached whatever the bot chooses, and that every message is one the protocol defines.
"""

from __future__ import annotations

import random
import shutil
import sys
from pathlib import Path
from typing import Literal

import pytest
from bot_helpers import python_bot, script_bot
from click.testing import CliRunner
from rules_helpers import random_action
from test_hostile import needs_cgroups

from kierki_cli.checkbot_cmd import format_result
from kierki_cli.main import cli
from protocol import codec
from protocol import messages as m
from referee.bots.isolation import Isolation
from referee.bots.runtimes import RUNTIME_HINT, runtime_failure
from referee.bots.time_control import TimeControl
from referee.checkbot import (
    ALL_GAMES,
    GAME_NUMBER,
    HINT_BYE,
    HINT_DEBUG,
    HINT_FLUSH,
    CheckOptions,
    CheckReport,
    CheckResult,
    check_bot,
    scenario,
    walk,
)
from referee.rules import Action, GameState
from referee.wire_requests import request_for

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_bots"
BROKEN = Path(__file__).parent / "bots"


# --- helpers -------------------------------------------------------------------------------------------------------


def run_check(
    argv: tuple[str, ...], games: tuple[str, ...] = ALL_GAMES, startup_ms: int = 5000, exit_ms: int = 1000
) -> CheckReport:
    options = CheckOptions(argv, games, TimeControl(startup_ms=startup_ms), exit_ms=exit_ms, cwd=ROOT)
    return check_bot(options)


def by_name(report: CheckReport, *words: str) -> list[CheckResult]:
    return [r for r in report.results if all(w in r.name for w in words)]


def failures(report: CheckReport) -> str:
    return "\n".join(format_result(r) for r in report.results if r.status != "PASS")


def assert_all_pass(report: CheckReport) -> None:
    assert report.ok, failures(report)
    assert all(r.status == "PASS" for r in report.results), failures(report)
    # handshake + 4 games' situations, the unknown message, results, bye; then end of input
    for game in report.games:
        names = [r.name for r in report.results if r.name.startswith(f"{game}:")]
        assert f"{game}: handshake (hello)" in names
        assert f"{game}: unknown message type and fields ignored" in names
        assert f"{game}: exits on bye" in names
    assert report.results[-1].name == "end of input: exits when stdin closes"


# --- the scenarios, without a process ----------------------------------------------------------------------------


def play_randomly(game: str, seed: int) -> tuple[int, list[m.Request], list[m.Request], list[m.RefereeMessage], int]:
    """Walk the check's game with random legal choices: (situations missed, requests, checkpoints, events, and
    the most events sent between two requests)."""
    scn = scenario(game)
    rng = random.Random(seed)
    asked: list[m.Request] = []
    named: list[m.Request] = []
    sent: list[m.RefereeMessage] = []
    burst = {"now": 0, "most": 0}

    def send(message: m.RefereeMessage) -> None:
        sent.append(message)
        burst["now"] += 1
        burst["most"] = max(burst["most"], burst["now"])

    def decide(state: GameState, is_checkpoint: bool) -> Action:
        assert state.to_act == scn.seat
        request = request_for(state, len(asked) + 1, GAME_NUMBER, 1000)
        asked.append(request)
        burst["now"] = 0
        if is_checkpoint:
            named.append(request)
        return random_action(state, rng)

    pending = walk(scn, decide, send)
    return len(pending), asked, named, sent, burst["most"]


@pytest.mark.parametrize("game", ALL_GAMES)
def test_every_situation_is_reached_whatever_the_bot_plays(game: str) -> None:
    checkpoints = len(scenario(game).checkpoints)
    for seed in range(12):
        missed, asked, named, sent, burst = play_randomly(game, seed)
        assert missed == 0, f"seed {seed}: {missed} situation(s) never reached"
        assert len(named) == checkpoints
        assert isinstance(sent[0], m.GameStartEvent) and sent[0].seat == scenario(game).seat
        assert isinstance(sent[-1], m.GameEndEvent)
        for message in [*sent, *asked]:  # every line is one the protocol defines, and round-trips
            assert codec.decode_referee_line(codec.encode(message)) == message
        # asked on every turn of its seat, as in a match: never whole deals of events between two requests
        assert len(asked) == sum(isinstance(e, m.PlayedEvent) and e.seat == scenario(game).seat for e in sent) + sum(
            isinstance(r, m.PassRequest | m.TrumpRequest | m.MoonRequest) for r in asked
        )
        assert burst <= 16  # at 27 ms a message, read well inside the default 1000 ms


def checkpoint_requests(game: str) -> list[m.Request]:
    scn = scenario(game)
    named: list[m.Request] = []

    def decide(state: GameState, is_checkpoint: bool) -> Action | None:
        if is_checkpoint:
            named.append(request_for(state, len(named) + 1, GAME_NUMBER, 1000))
        return None

    walk(scn, decide, lambda message: None)
    return named


def test_kierki_situations() -> None:
    lead, follow, trump, trump_play, lottery = checkpoint_requests("kierki")
    assert isinstance(lead, m.PlayRequest) and lead.kind == "no_tricks" and lead.trick is not None
    assert lead.trick.cards == ()
    assert isinstance(follow, m.PlayRequest) and follow.trick is not None and follow.trick.cards
    assert isinstance(trump, m.TrumpRequest) and len(trump.cards) == 5 and trump.choices == ("C", "D", "H", "S")
    assert isinstance(trump_play, m.PlayRequest) and trump_play.kind == "trump" and trump_play.trump is not None
    assert isinstance(lottery, m.PlayRequest) and lottery.kind == "lottery"
    assert lottery.trick is None and lottery.lottery is not None and lottery.lottery.start_rank is not None


def test_kierki3_trump_shows_six_cards() -> None:
    requests = checkpoint_requests("kierki3")
    trump = next(r for r in requests if isinstance(r, m.TrumpRequest))
    assert len(trump.cards) == 6


def test_hearts_situations_include_a_moon() -> None:
    passing, first_trick, moon = checkpoint_requests("hearts")
    assert isinstance(passing, m.PassRequest) and passing.direction == "left" and passing.count == 3
    assert isinstance(first_trick, m.PlayRequest) and first_trick.tricks == ()
    assert isinstance(moon, m.MoonRequest) and moon.deal == 4 and moon.seat == scenario("hearts").seat


def test_cancellation_situations() -> None:
    passing, kitty_trick, after_no_winner, void, following = checkpoint_requests("cancellation")
    assert isinstance(passing, m.PassRequest) and len(passing.hand) == 17
    for play in (kitty_trick, after_no_winner, void, following):
        assert isinstance(play, m.PlayRequest) and play.kind == "cancellation" and play.trick is not None
    assert isinstance(kitty_trick, m.PlayRequest) and kitty_trick.tricks == ()
    assert isinstance(after_no_winner, m.PlayRequest) and after_no_winner.tricks[-1].winner is None
    assert isinstance(void, m.PlayRequest) and void.trick is not None and void.trick.cards
    led = void.trick.cards[0].card[-1]
    assert not any(card.endswith(led) for card in void.hand) and set(void.legal) == set(void.hand)
    assert isinstance(following, m.PlayRequest) and following.trick is not None and following.trick.cards
    led = following.trick.cards[0].card[-1]
    assert following.legal and all(card.endswith(led) for card in following.legal)


# --- every starter bot passes ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["random_bot.py", "heuristic_bot.py"])
def test_python_sample_bots_pass(name: str) -> None:
    assert_all_pass(run_check(python_bot(SAMPLES / name)))


def test_js_bot_passes() -> None:
    assert_all_pass(run_check(script_bot("js")))


def test_perl_bot_passes() -> None:
    assert_all_pass(run_check(script_bot("perl")))


def test_c_bot_passes(c_bot: Path) -> None:
    assert_all_pass(run_check((str(c_bot),)))


@needs_cgroups
def test_a_default_jvm_bot_passes(java_bot: tuple[str, ...]) -> None:
    """The JVM with its default flags, under the default limits: in a control group the memory limit is resident
    memory, so the JVM's large reservations (heap, compressed class space, thread stacks) do not stop it."""
    assert_all_pass(run_check(java_bot))


def test_a_runtime_that_cannot_start_is_named_with_its_cause(java_bot: tuple[str, ...]) -> None:
    """Without control groups the memory limit is address space: a default JVM cannot start under 1 GiB, and says
    so on stdout; check-bot names the JVM and the limit instead of calling it a debug print."""
    options = CheckOptions(java_bot, ("hearts",), TimeControl(), cwd=ROOT, isolation=Isolation(fair_play="none"))
    report = check_bot(options)
    handshake = by_name(report, "handshake")[0]
    assert handshake.status == "FAIL" and handshake.detail.startswith("the JVM could not start")
    assert handshake.hint == RUNTIME_HINT and "--limit-memory" in handshake.hint


def test_runtime_start_failures_are_told_from_debug_prints() -> None:
    said = {
        b"Error occurred during initialization of VM": "the JVM",
        b"Could not allocate compressed class space: 1073741824 bytes": "the JVM",
        b"# There is insufficient memory for the Java Runtime Environment to continue.": "the JVM",
        b"Failed to create CoreCLR, HRESULT: 0x8007000E": ".NET",
        b"fatal error: runtime: cannot allocate memory": "the Go runtime",
        b"FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory": "Node.js",
        b"debug: thinking about 2C": None,
        b'{"type":"play","id":3,"card":"2C"}': None,
    }
    assert {line: runtime_failure(line) for line in said} == said


# --- each broken bot fails, with the message that names its mistake ------------------------------------------


@needs_cgroups
def test_a_bot_that_sleeps_passes_on_cpu_time_with_a_note_of_what_the_wall_clock_would_judge() -> None:
    """Issue 32: a bot that sleeps past time_ms passed as "in time" and check-bot never said which clock judged."""
    bot = python_bot(BROKEN / "sleeps_twice.py")

    def check(fair_play: Literal["cgroup", "none"]) -> CheckReport:
        time = TimeControl(move_ms=200, startup_ms=5000)
        options = CheckOptions(bot, ("hearts",), time, cwd=ROOT, isolation=Isolation(fair_play=fair_play))
        return check_bot(options)

    on_cpu = check("cgroup")
    assert on_cpu.ok, failures(on_cpu)
    (note,) = [r for r in on_cpu.results if r.status == "NOTE"]
    assert note.name == "hearts: the clock: CPU time, not wall time"
    assert note.detail.startswith("judged on your bot's CPU time (fair play), 2 decision(s) were in time although")
    assert "with --fair-play none, timed on the wall clock, they would have timed out" in note.detail
    on_the_wall = check("none")  # what the note foretold
    late = [r for r in on_the_wall.results if r.status == "FAIL"]
    assert late and "the answer came after" in late[0].detail and "the limit is 200 ms" in late[0].detail
    assert not [r for r in on_the_wall.results if r.status == "NOTE"]


def test_unflushed_answers_are_reported_as_such() -> None:
    report = run_check(python_bot(BROKEN / "broken_noflush.py"), ("kierki",), startup_ms=1000)
    assert not report.ok
    (handshake,) = by_name(report, "handshake")
    assert handshake.status == "FAIL"
    assert "your answer arrived only when input closed: you are not flushing stdout after each line" in (
        handshake.detail
    )
    assert handshake.hint == HINT_FLUSH
    assert any('"name": "broken-noflush"' in line for line in handshake.exchange)  # what came out at the end
    assert by_name(report, "end of input")[0].status == "SKIP"


_PLAIN_PRINT_BOT = """
import json, os, sys
if os.path.exists("data.txt"):
    print("found data.txt in the working directory", file=sys.stderr)
    sys.exit(5)
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "bye":
        break
    if msg["type"] == "hello":
        print(json.dumps({"type": "hello", "id": msg["id"], "name": "plain", "version": "0", "protocol": 1}))
"""


def test_the_bot_runs_as_in_a_match_not_in_the_users_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A plain print() is block-buffered on a pipe: a match (whose bots get a built environment) fails it at the
    handshake, so check-bot must too, even from a shell that sets PYTHONUNBUFFERED. And a match runs the bot in
    its private directory, so a data file beside the user is not the bot's working directory's."""
    bot = tmp_path / "plain_bot.py"
    bot.write_text(_PLAIN_PRINT_BOT)
    (tmp_path / "data.txt").write_text("the user's file")
    monkeypatch.setenv("PYTHONUNBUFFERED", "1")
    options = CheckOptions((sys.executable, str(bot)), ("hearts",), TimeControl(startup_ms=1000), cwd=tmp_path)
    (handshake,) = by_name(check_bot(options), "handshake")
    assert handshake.status == "FAIL"
    assert "you are not flushing stdout after each line" in handshake.detail


_LIMITS_BOT = """
import json, os, resource, sys
def memory_limit():  # its control group's memory limit (v1, or a pure v2 mount), else its address-space limit
    for line in open("/proc/self/cgroup"):
        _, names, path = line.strip().split(":", 2)
        for kind, where in (("memory", f"/sys/fs/cgroup/memory{path}/memory.limit_in_bytes"),
                            ("", f"/sys/fs/cgroup{path}/memory.max")):
            if names == kind and os.path.exists(where):
                return open(where).read().strip()
    return resource.getrlimit(resource.RLIMIT_AS)[0]
name = f"{memory_limit()}:{os.environ.get('KIERKI_CHECK_VAR', '-')}"
for line in sys.stdin:
    msg = json.loads(line)
    kind = msg["type"]
    if kind == "bye":
        break
    answer = {"hello": {"name": name, "version": "0", "protocol": 1}, "pass": {"cards": msg.get("hand", [])[:3]},
              "play": {"card": (msg.get("legal") or [None])[0]}, "moon": {"choice": "others"}}.get(kind)
    if answer is not None and "id" in msg:
        print(json.dumps({"type": kind, "id": msg["id"], **answer}), flush=True)
"""


def test_the_bot_gets_the_matchs_limits_and_bot_env(tmp_path: Path) -> None:
    """The isolation options are a match's: a bot that needs more memory than the match allows must fail here (its
    control group's limit, or without one its address space)."""
    bot = tmp_path / "limits_bot.py"
    bot.write_text(_LIMITS_BOT)
    args = ["check-bot", "--game", "hearts", "--limit-memory", "300", "--bot-env", "KIERKI_CHECK_VAR=set"]
    result = CliRunner().invoke(cli, [*args, "--", sys.executable, str(bot)])
    assert f'"{300 * 1024 * 1024}:set"' in result.output, result.output
    result = CliRunner().invoke(cli, ["check-bot", "--game", "hearts", "--", sys.executable, str(bot)])
    assert f'"{1024 * 1024 * 1024}:-"' in result.output, result.output  # the match's default


def test_the_sandbox_is_the_matchs(tmp_path: Path) -> None:
    """Under --sandbox bwrap the bot sees only its program folders, as in a match: a file beside them is hidden."""
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap (bwrap) is not installed")
    folder = tmp_path / "bot"
    folder.mkdir()
    secret = tmp_path / "secret.txt"
    secret.write_text("the organiser's")
    bot = folder / "limits_bot.py"
    bot.write_text(_LIMITS_BOT.replace("os.environ.get('KIERKI_CHECK_VAR', '-')", f"os.path.exists({str(secret)!r})"))
    args = ["check-bot", "--game", "hearts", "--sandbox", "bwrap", "--", sys.executable, str(bot)]
    result = CliRunner().invoke(cli, args)
    if "bubblewrap" in result.output and result.exit_code == 1 and "Error:" in result.output:
        pytest.skip(result.output.strip())  # the machine forbids the namespaces bubblewrap needs
    assert ':False"' in result.output, result.output
    result = CliRunner().invoke(cli, ["check-bot", "--game", "hearts", "--", sys.executable, str(bot)])
    assert ':True"' in result.output, result.output


def test_debug_print_on_stdout_is_reported() -> None:
    report = run_check(python_bot(BROKEN / "broken_debug_print.py"), ("kierki",))
    assert not report.ok
    plays = by_name(report, "kierki: play")
    assert plays and all(r.status == "FAIL" for r in plays)
    for result in plays:
        assert "not valid JSON" in result.detail and "thinking about" in result.detail
    assert plays[0].hint == HINT_DEBUG  # the cause in full once; the same cause after it is named and counted
    assert any(line.startswith("<- thinking about") for line in plays[0].exchange)
    assert all("(the cause reported at " in r.detail and not r.exchange for r in plays[1:])
    # Only the play answers have a debug line: the rest is judged on its own.
    assert by_name(report, "handshake")[0].status == "PASS"
    assert by_name(report, "kierki: trump")[0].status == "PASS"
    assert by_name(report, "unknown message")[0].status == "PASS"


def test_illegal_card_is_reported() -> None:
    report = run_check(python_bot(BROKEN / "broken_illegal.py"), ("kierki",))
    assert not report.ok
    plays = by_name(report, "kierki: play")
    assert len(plays) == 4 and all(r.status == "FAIL" for r in plays)
    assert all(r.detail.startswith("illegal answer {") for r in plays)
    assert "[rule: follow-suit]" in by_name(report, "following")[0].detail
    assert "legal" in plays[0].hint
    assert by_name(report, "exits on bye")[0].status == "PASS"


def test_bot_that_ignores_bye_is_reported() -> None:
    report = run_check(python_bot(BROKEN / "broken_ignore_bye.py"), ("kierki",), exit_ms=500)
    assert not report.ok
    (bye,) = by_name(report, "exits on bye")
    assert bye.status == "FAIL"
    assert bye.detail == "still running 500 ms after bye"
    assert bye.hint == HINT_BYE
    assert bye.exchange[-1].startswith('-> {"type":"bye"')
    assert by_name(report, "end of input")[0].status == "PASS"  # it does stop when its input ends
    assert [r.name for r in report.results if r.status == "FAIL"] == ["kierki: exits on bye"]


def test_bot_that_cannot_start_fails_once() -> None:
    report = run_check(("./no-such-bot",))
    assert not report.ok
    assert [r.status for r in report.results].count("FAIL") == 1
    assert "was not found" in report.results[0].detail
    skipped = [r.detail for r in report.results if r.status == "SKIP"]
    assert skipped and all(d == "not run: the bot did not start or failed the handshake" for d in skipped)


def test_crash_is_reported_with_its_exit_status() -> None:
    report = run_check(python_bot(BROKEN / "misbehave.py", "crash", "3"), ("hearts",))
    (failed,) = [r for r in report.results if r.status == "FAIL"]
    assert failed.detail == "the bot exited (exit status 3) instead of answering"
    assert by_name(report, "exits on bye")[0].status == "SKIP"
    assert by_name(report, "end of input")[0].status == "PASS"


# --- the command -------------------------------------------------------------------------------------------------


def test_cli_passes_a_good_bot_given_after_double_dash() -> None:
    result = CliRunner().invoke(
        cli, ["check-bot", "--game", "hearts", "--", sys.executable, str(SAMPLES / "random_bot.py"), "--seed", "3"]
    )
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert any(line.startswith("PASS  hearts: moon") for line in lines)
    assert not any(line.startswith(("FAIL", "SKIP")) for line in lines)
    assert not any(line.startswith("PASS  kierki") for line in lines)  # --game limits the check
    assert lines[-1].startswith("OK: ")


def test_cli_accepts_one_quoted_command_and_exits_1_on_failure() -> None:
    command = f"{sys.executable} {BROKEN / 'broken_illegal.py'}"
    result = CliRunner().invoke(cli, ["check-bot", "--game", "kierki3", command])
    assert result.exit_code == 1, result.output
    assert "FAIL  kierki3: play" in result.output
    assert "hint: play one of the cards" in result.output
    assert "last lines exchanged" in result.output
    assert result.output.splitlines()[-1].startswith("NOT OK: ")


def test_cli_takes_a_sample_bot_as_a_match_does() -> None:
    result = CliRunner().invoke(cli, ["check-bot", "--game", "hearts", "sample:random"])
    assert result.exit_code == 0, result.output
    assert "random_bot.py" in result.output.splitlines()[0]
    result = CliRunner().invoke(cli, ["check-bot", "sample:nope"])
    assert result.exit_code == 2 and "no sample bot 'nope': use one of sample:" in result.output


def test_cli_requires_a_command() -> None:
    result = CliRunner().invoke(cli, ["check-bot"])
    assert result.exit_code == 2


@pytest.mark.skipif(shutil.which("jq") is None, reason="jq is not installed (.ci/run installs it)")
def test_a_bash_bot_that_starts_jq_for_every_message_passes() -> None:
    """The bot a first-time author writes in bash: one jq process per message read. It is asked on every turn,
    as in a match, so between two requests it reads a handful of events, never whole deals (the scenario tests
    bound that to 16); the generous deadline only keeps a loaded test machine from failing it."""
    options = CheckOptions(
        ("bash", str(BROKEN / "bash_jq_bot.sh")),
        ("kierki3",),
        TimeControl(move_ms=30_000, startup_ms=30_000),
        cwd=ROOT,
    )
    assert_all_pass(check_bot(options))


def test_cli_players_and_option_need_a_game_and_valid_rules() -> None:
    bot = [sys.executable, str(SAMPLES / "random_bot.py")]
    no_game = CliRunner().invoke(cli, ["check-bot", "--players", "7", "--", *bot])
    assert no_game.exit_code == 2 and "add --game" in no_game.output
    bad = CliRunner().invoke(cli, ["check-bot", "--game", "cancellation", "--players", "5", "--", *bot])
    assert bad.exit_code == 2 and "cancellation is played by 6 to 11 players, not 5" in bad.output
    ok = CliRunner().invoke(
        cli, ["check-bot", "--game", "cancellation", "--players", "7", "--option", "target=40", "--", *bot]
    )
    assert ok.exit_code == 0, ok.output
    assert "games: cancellation, 7 players, target=40;" in ok.output
