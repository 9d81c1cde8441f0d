"""Tournaments on Dask workers (competition.executors, competition.remote, competition.dask_executor).

A real ``distributed.LocalCluster`` of two worker processes (one thread each) is shared by the tests of this module
and closed at its end, with a check that none of its processes is left. Hearts to 10 points keeps the games short.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cgroup_helpers import private_group
from click.testing import CliRunner
from competition_helpers import (
    FAMILY_VARIABLE,
    family_env,
    family_left,
    output_once_stopped,
    tournament_after_its_first_set,
    untimed,
)
from test_hostile import settle

distributed = pytest.importorskip("distributed")
Client = Any  # distributed.Client, which mypy cannot name through importorskip

from competition import remote  # noqa: E402
from competition.executors import ExecutorError, ExecutorSpec, InfrastructureError  # noqa: E402
from competition.game import GameSpec  # noqa: E402
from competition.open_executor import open_executor  # noqa: E402
from competition.plan import Entrant  # noqa: E402
from competition.results_file import read_results  # noqa: E402
from competition.tournament import run_tournament  # noqa: E402
from competition.tournament_config import StopRule, TournamentConfig, TournamentError  # noqa: E402
from kierki_cli.main import cli  # noqa: E402
from referee.bots.fairplay import fair_play_problem  # noqa: E402
from referee.bots.isolation import Isolation  # noqa: E402
from referee.bots.procfs import process_stat  # noqa: E402
from referee.match_config import BotSpec, MatchSpec, RulesetSpec, decode_spec  # noqa: E402
from referee.rules import Ruleset  # noqa: E402

BOTS = Path(__file__).parent / "bots"
HEURISTIC = Path(__file__).resolve().parent.parent / "sample_bots" / "heuristic_bot.py"
SHORT = Ruleset.create("hearts", None, {"target": "10"})
SAMPLES = (Entrant("h", "sample:heuristic"), Entrant("r", "sample:random"))


def _config(*entrants: Entrant, seed: str = "11") -> TournamentConfig:
    return TournamentConfig.of(entrants=entrants or SAMPLES, ruleset=SHORT, seed=seed)


def _dask_ladder(tmp_path: Path, spec: ExecutorSpec, isolation: Isolation, plan_ahead: int, **bots: Any) -> Path:
    """A Hearts-to-10 ladder in ``tmp_path/ladder`` that plays on the cluster, its bots not validated."""
    from competition.ladder.config import BotSettings, LadderConfig, RunSettings
    from competition.ladder.ladder import init_ladder

    config = LadderConfig(
        game="hearts",
        players=4,
        options={"target": "10"},
        isolation=isolation,
        run=RunSettings(executor="dask", scheduler=str(spec.scheduler), plan_ahead=plan_ahead),
        bots=BotSettings(**{"validation": False, **bots}),
    )
    folder = tmp_path / "ladder"
    init_ladder(folder, config)
    return folder


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    fields = process_stat(pid)  # a zombie is gone for our purpose (nobody has reaped it yet)
    return fields is not None and fields[0] != b"Z"


@pytest.fixture(scope="module")
def cluster() -> Iterator[tuple[ExecutorSpec, Client]]:
    """Two worker processes under nannies; yields an executor spec for its scheduler and a client to inspect it."""
    local = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address="127.0.0.1:0", silence_logs=logging.ERROR
    )
    client = distributed.Client(local)
    pids: set[int] = set()
    try:
        yield ExecutorSpec("dask", scheduler=local.scheduler_address), client
    finally:
        pids.update(client.run(os.getpid).values())
        pids.update(nanny.process.pid for nanny in local.workers.values() if nanny.process and nanny.process.pid)
        client.close()
        local.close()
    assert pids and not [pid for pid in pids if _alive(pid)], "a cluster process was left running"


def _files(out: Path) -> list[Path]:
    return sorted(path.relative_to(out) for path in (out / "sets").rglob("*") if path.is_file())


def _replay_lines(path: Path) -> list[dict[str, object]]:
    """The replay's lines without what the clock decides: the header's start, each decision's milliseconds and
    CPU time, each game's CPU time."""
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    lines[0].pop("started")
    for line in lines:
        line.pop("ms", None)
        line.pop("cpu_ms", None)
    return lines


def test_dask_results_equal_the_local_executor(tmp_path: Path, cluster: tuple[ExecutorSpec, object]) -> None:
    spec, _ = cluster
    local = run_tournament(_config(seed="5"), tmp_path / "local", StopRule(sets=2), jobs=2, pin=False)
    dask = run_tournament(_config(seed="5"), tmp_path / "dask", StopRule(sets=2), executor=spec)
    assert local.status == dask.status == "complete"
    assert untimed(local.records) == untimed(dask.records)
    files = sorted(p.relative_to(tmp_path / "local") for p in (tmp_path / "local" / "sets").rglob("*") if p.is_file())
    assert files == sorted(
        p.relative_to(tmp_path / "dask") for p in (tmp_path / "dask" / "sets").rglob("*") if p.is_file()
    )
    replays = [f for f in files if f.name.endswith(".replay.jsonl")]
    assert len(replays) == sum(len(r.games) for r in local.records) >= 4
    for name in replays:  # the same deals and every decision of the (deterministic) sample bots
        assert _replay_lines(tmp_path / "local" / name) == _replay_lines(tmp_path / "dask" / name)
    assert not (tmp_path / "dask" / "work").exists()


def test_a_worker_killed_mid_game_is_retried_and_its_game_counted_once(
    tmp_path: Path, cluster: tuple[ExecutorSpec, Client]
) -> None:
    spec, client = cluster
    marker = tmp_path / "killed"
    killer = Entrant("k", f"{sys.executable} {BOTS / 'kill_worker.py'}", env=(("KILL_MARKER", str(marker)),))
    before = set(client.run(os.getpid).values())
    result = run_tournament(_config(SAMPLES[0], killer), tmp_path / "dask", StopRule(sets=2), executor=spec)
    assert marker.exists()  # the kill happened
    client.wait_for_workers(2, timeout=120)  # the nanny restarts it; a bound, not a measurement
    assert before - set(client.run(os.getpid).values())  # a worker was replaced by its nanny
    assert result.status == "complete"
    records, _ = read_results(tmp_path / "dask" / "results.jsonl")
    assert sorted(r.set_id for r in records) == [1, 2]  # each set once
    assert all([g.index for g in r.games] == list(range(len(r.games))) for r in records)
    # The retried game is the game a local run plays with the killer's stand-in (the heuristic bot, as "k").
    local = run_tournament(
        _config(SAMPLES[0], Entrant("k", "sample:heuristic")), tmp_path / "local", StopRule(sets=2), jobs=1, pin=False
    )
    assert untimed(local.records) == untimed(records)
    assert not any(any(g.start_failed) or any(g.forfeited) for r in records for g in r.games)


def test_a_ladder_whose_worker_is_killed_mid_game_records_each_set_once(
    tmp_path: Path, cluster: tuple[ExecutorSpec, Client]
) -> None:
    """Issue 13 for the ladder: the killed worker's game is retried, the set is recorded and rated once, and nobody
    is charged a failure (the kill was the machine's, as far as the ladder can tell)."""
    from competition.ladder.ladder import add_bot
    from competition.ladder.run import run_ladder
    from competition.ladder.store import Store
    from competition.ratings import rate

    spec, client = cluster
    marker = tmp_path / "killed"
    isolation = Isolation(sandbox="none", bot_env=(("KILL_MARKER", str(marker)),))
    folder = _dask_ladder(tmp_path, spec, isolation, plan_ahead=2)
    add_bot(folder, "k", [sys.executable, str(BOTS / "kill_worker.py")], cwd=tmp_path)
    add_bot(folder, "h", ["sample:heuristic"], cwd=tmp_path)
    add_bot(folder, "r", ["sample:random"], cwd=tmp_path)
    add_bot(folder, "r2", ["sample:random"], cwd=tmp_path)  # four bots for four seats: a bot never takes two
    report = run_ladder(folder, sets=2)
    assert marker.exists()  # the kill happened
    client.wait_for_workers(2, timeout=120)  # the nanny restarts it; a bound, not a measurement
    assert report.sets_played == 2 and report.sets_voided == 0 and not report.deactivated
    with Store.open(folder / "ladder.sqlite") as store:
        results = store.results()
        assert sorted(r.set_id for r in results) == [1, 2] and store.count("claimed") == 0
        assert store.ratings() == rate(results, store.rating_params())  # each set rated once
        assert all(bot.failures == 0 for bot in store.bots())
    for record in results:
        assert sorted(g.index for g in record.games) == list(range(len(record.games)))
        assert all((folder / str(g.replay)).is_file() for g in record.games)


def test_a_ladder_bot_that_differs_on_every_worker_voids_the_set_and_is_never_charged(
    tmp_path: Path, cluster: tuple[ExecutorSpec, object], monkeypatch: pytest.MonkeyPatch
) -> None:
    from competition.ladder.ladder import add_bot
    from competition.ladder.run import run_ladder
    from competition.ladder.store import Store

    spec, _ = cluster
    folder = _dask_ladder(tmp_path, spec, Isolation(sandbox="none"), plan_ahead=1, deactivate_after=1)
    (tmp_path / "bot").mkdir()  # a folder of its own: a bot's folder may not hold the ladder's
    shutil.copy(HEURISTIC, tmp_path / "bot" / "mine.py")
    add_bot(folder, "mine", [sys.executable, "mine.py"], cwd=tmp_path / "bot")
    for name in ("r", "r2", "r3"):
        add_bot(folder, name, ["sample:random"], cwd=tmp_path)
    real = remote.sha256_of  # what the coordinator ships; the ladder's own check of the file still passes
    monkeypatch.setattr(remote, "sha256_of", lambda p: "0" * 64 if p.name == "mine.py" else real(p))
    report = run_ladder(folder, sets=1)
    assert report.sets_played == 0 and report.sets_voided == 1 and not report.deactivated
    (reason,) = report.voided.values()
    assert "every worker refused it" in reason and "differs from the coordinator's" in reason
    with Store.open(folder / "ladder.sqlite") as store:
        assert store.results() == [] and store.count("planned") == 1  # played again later
        assert {(b.label, b.status, b.failures) for b in store.bots()} == {
            ("mine@1", "active", 0),
            ("r@1", "active", 0),
            ("r2@1", "active", 0),
            ("r3@1", "active", 0),
        }


def _own_bot(tmp_path: Path) -> Entrant:
    shutil.copy(HEURISTIC, tmp_path / "mine.py")
    return Entrant("mine", f"{sys.executable} mine.py", cwd=str(tmp_path))


def test_a_bot_that_differs_on_the_workers_is_refused_by_each_and_never_scored(
    tmp_path: Path, cluster: tuple[ExecutorSpec, object], monkeypatch: pytest.MonkeyPatch
) -> None:
    spec, _ = cluster
    real = remote.sha256_of
    monkeypatch.setattr(remote, "sha256_of", lambda p: "0" * 64 if p.name == "mine.py" else real(p))  # ours only
    with pytest.raises(TournamentError) as raised:
        run_tournament(_config(SAMPLES[0], _own_bot(tmp_path)), tmp_path / "out", StopRule(sets=1), executor=spec)
    message = str(raised.value)
    assert "every worker refused it" in message and "differs from the coordinator's" in message
    assert message.count("bot mine:") == 2  # tried on both workers
    assert "--resume" in message
    assert read_results(tmp_path / "out" / "results.jsonl") == ([], 0)  # nothing scored, not a loss


def test_a_bot_missing_on_the_workers_is_refused_with_the_reason(
    tmp_path: Path, cluster: tuple[ExecutorSpec, object], monkeypatch: pytest.MonkeyPatch
) -> None:
    spec, _ = cluster
    real_files, real_hash = remote.program_files, remote.sha256_of
    # The coordinator alone has gone.py: it names it and hashes it; the workers look for it in the bot's folder.
    monkeypatch.setattr(remote, "program_files", lambda a, c: ("gone.py",) if "mine.py" in a else real_files(a, c))
    monkeypatch.setattr(remote, "sha256_of", lambda p: "1" * 64 if p.name == "gone.py" else real_hash(p))
    with pytest.raises(TournamentError, match=r"bot mine: .*gone\.py is missing on worker"):
        run_tournament(_config(SAMPLES[0], _own_bot(tmp_path)), tmp_path / "out", StopRule(sets=1), executor=spec)
    assert read_results(tmp_path / "out" / "results.jsonl") == ([], 0)


def _probe_failing_on(broken: str, what: str = remote.BWRAP_PROBLEM) -> Any:
    """A stand-in for ``remote.probe_isolation``, shipped to the workers by value (it is nested): bubblewrap (or,
    with ``what`` CGROUP_PROBLEM, the control groups) "fails" on the worker at address ``broken`` only (Dask passes
    ``dask_worker`` to a function that takes it)."""

    if what == remote.BWRAP_PROBLEM:
        error = "--sandbox bwrap: bubblewrap cannot create its sandbox on this machine (fake:\nno namespaces)"
    else:
        error = "no cgroup hierarchy is mounted (fake)"

    def probe(isolation: Isolation, dask_worker: Any) -> tuple[str, str] | None:
        return (what, error) if dask_worker.address == broken else None

    return probe


def _refused_tournament(
    tmp_path: Path,
    spec: ExecutorSpec,
    monkeypatch: pytest.MonkeyPatch,
    broken: str,
    isolation: Isolation,
    problem: str = remote.BWRAP_PROBLEM,
) -> str:
    """The message of the tournament the workers' probe refuses (failing on ``broken`` only), checked to have sent
    no game and recorded no result."""
    from competition import dask_executor

    monkeypatch.setattr(dask_executor, "probe_isolation", _probe_failing_on(broken, problem))
    submitted: list[object] = []
    monkeypatch.setattr(dask_executor.DaskExecutor, "submit", lambda self, spec: submitted.append(spec))
    config = TournamentConfig.of(entrants=SAMPLES, ruleset=SHORT, seed="11", isolation=isolation)
    with pytest.raises(ExecutorError) as raised:
        run_tournament(config, tmp_path / "out", StopRule(sets=1), executor=spec)
    assert submitted == [] and read_results(tmp_path / "out" / "results.jsonl") == ([], 0)
    return str(raised.value)


def test_a_worker_where_bubblewrap_fails_is_named_before_any_game_is_sent(
    tmp_path: Path, cluster: tuple[ExecutorSpec, Client], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 13: the coordinator's own check of bwrap says nothing of the workers. Each runs the probe first, and a
    failing one stops the tournament in one line that names it, before any game (here the coordinator's bwrap
    works, so only the workers' probe can refuse)."""
    from competition import dask_executor

    spec, client = cluster
    broken = sorted(client.scheduler_info()["workers"])[-1]
    message = _refused_tournament(tmp_path, spec, monkeypatch, broken, Isolation(sandbox="bwrap"))
    assert message.startswith(f"worker {broken} cannot run the bots under bubblewrap: --sandbox bwrap: ")
    assert "(fake: no namespaces)" in message and "\n" not in message
    # Where the probe passes on every worker, the executor opens.
    monkeypatch.setattr(dask_executor, "probe_isolation", _probe_failing_on("no such worker"))
    with open_executor(ExecutorSpec("dask", spec.scheduler), 1, isolation=Isolation(sandbox="bwrap")) as executor:
        assert executor.jobs == 2


def test_a_worker_without_control_groups_is_named_before_any_game_of_strangers_is_sent(
    tmp_path: Path, cluster: tuple[ExecutorSpec, Client], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 23 item 7: strangers' bots (fair_play "cgroup") are timed on their own CPU time in groups of their own;
    a worker that cannot make them would time them on the wall clock its other games share. It is named before any
    game is sent, as a worker without bubblewrap is; with fair_play "auto" (one owner's bots) it is not asked."""
    spec, client = cluster
    broken = sorted(client.scheduler_info()["workers"])[0]
    isolation = Isolation(fair_play="cgroup")
    message = _refused_tournament(tmp_path, spec, monkeypatch, broken, isolation, remote.CGROUP_PROBLEM)
    assert message.startswith(
        f"worker {broken} cannot give each bot a control group of its own: no cgroup hierarchy is mounted (fake); "
        "run that worker as root or in a delegated cgroup (README), or give --fair-play none or take it out"
    )
    with open_executor(ExecutorSpec("dask", spec.scheduler), 1, isolation=Isolation(fair_play="auto")) as executor:
        assert executor.jobs == 2


def test_the_worker_probe_asks_for_control_groups_only_of_fair_play_cgroup(monkeypatch: pytest.MonkeyPatch) -> None:
    """The real probe, on a machine that "has no cgroups": "cgroup" is refused with the reason, "auto" and "none"
    play (a match in mode auto runs without groups and says so in its result)."""
    from referee.bots import fairplay
    from referee.bots.cgroups import CgroupError

    def no_cgroups() -> None:
        raise CgroupError("no cgroup hierarchy is mounted (fake)")

    monkeypatch.setattr(fairplay, "find_cgroups", no_cgroups)
    assert remote.probe_isolation(Isolation(fair_play="cgroup")) == (
        remote.CGROUP_PROBLEM,
        "no cgroup hierarchy is mounted (fake)",
    )
    assert remote.probe_isolation(Isolation(fair_play="auto")) is None
    assert remote.probe_isolation(Isolation(fair_play="none")) is None


@pytest.mark.parametrize(
    ("isolation", "problem", "message"),
    [
        (Isolation(sandbox="bwrap"), remote.BWRAP_PROBLEM, "cannot run the bots under bubblewrap: "),
        # A ladder's fair_play "auto" is "cgroup" there: a worker that cannot make control groups stops it too.
        (Isolation(), remote.CGROUP_PROBLEM, "cannot give each bot a control group of its own: "),
    ],
    ids=["bubblewrap", "control-groups"],
)
def test_a_ladder_on_dask_refuses_a_worker_that_cannot_isolate_its_bots(
    tmp_path: Path,
    cluster: tuple[ExecutorSpec, Client],
    monkeypatch: pytest.MonkeyPatch,
    isolation: Isolation,
    problem: str,
    message: str,
) -> None:
    """A worker that cannot give the ladder's games the isolation they require stops the run before any game is
    claimed, named with what it lacks."""
    from competition import dask_executor
    from competition.ladder.ladder import LadderError, add_bot
    from competition.ladder.run import run_ladder
    from competition.ladder.store import Store

    spec, client = cluster
    broken = sorted(client.scheduler_info()["workers"])[0]
    monkeypatch.setattr(dask_executor, "probe_isolation", _probe_failing_on(broken, problem))
    folder = _dask_ladder(tmp_path, spec, isolation, plan_ahead=1)
    add_bot(folder, "h", ["sample:heuristic"], cwd=tmp_path)
    for name in ("r", "r2", "r3"):
        add_bot(folder, name, ["sample:random"], cwd=tmp_path)
    with pytest.raises(LadderError, match=f"^worker {broken} {message}"):
        run_ladder(folder, sets=1)
    with Store.open(folder / "ladder.sqlite") as store:
        assert store.results() == [] and store.count("claimed") == 0


def test_a_worker_whose_bubblewrap_fails_refuses_a_bwrap_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker that joined after the executor's check refuses bwrap games (they go to the other workers) instead
    of failing each one as the referee's error; games without the sandbox it plays."""

    def problem(isolation: Isolation) -> tuple[str, str] | None:
        if isolation.sandbox == "bwrap":
            return remote.BWRAP_PROBLEM, "--sandbox bwrap: bubblewrap cannot (fake)"
        return None

    monkeypatch.setattr(remote, "_isolation_problem", problem)
    for sandbox in ("bwrap", "none"):
        bots = tuple(BotSpec.parse(command) for command in ["sample:heuristic", "sample:random"] * 2)
        match = MatchSpec(rules=RulesetSpec.of(SHORT), bots=bots, seed="3", isolation=Isolation(sandbox=sandbox))
        spec = GameSpec(set_id=1, index=0, names=("a", "b", "c", "d"), match=match, root=tmp_path, set_dir="sets/1")
        outcome = remote.run_remote(remote.remote_game(spec))
        if sandbox == "bwrap":
            assert outcome.refused is not None and "cannot run the bots under bubblewrap" in outcome.refused
        else:
            assert outcome.refused is None and outcome.outcome is not None and outcome.outcome.record is not None


# --- without a cluster: the spec, the hashes, the options ----------------------------------------------------


def test_program_files_name_the_script_or_the_program(tmp_path: Path) -> None:
    (tmp_path / "bot.py").write_text("")
    (tmp_path / "bot.jar").write_text("")
    (tmp_path / "run").write_text("")
    assert remote.program_files(("python3", "bot.py"), tmp_path) == ("bot.py",)
    assert remote.program_files(("/usr/bin/python3.11", "-u", "bot.py"), tmp_path) == ("bot.py",)
    assert remote.program_files(("java", "-jar", "bot.jar"), tmp_path) == ("bot.jar",)
    assert remote.program_files(("./run", "--fast"), tmp_path) == ("./run",)
    assert remote.program_files(("mybot",), tmp_path) == ()  # found in PATH: a system program
    assert remote.program_files(("python3", "missing.py"), tmp_path) == ()


def test_check_files_accepts_the_same_bytes_and_names_what_differs(tmp_path: Path) -> None:
    (tmp_path / "bot.py").write_text("print('hi')\n")
    match = MatchSpec(rules=RulesetSpec.of(SHORT), bots=(BotSpec(("python3", "bot.py"), tmp_path),) * 4, seed="3")
    spec = GameSpec(set_id=1, index=0, names=("a", "b", "c", "d"), match=match, root=tmp_path, set_dir="sets/0001")
    game = remote.remote_game(spec)
    assert game.bots[0].files == (remote.FileHash("bot.py", hashlib.sha256(b"print('hi')\n").hexdigest()),)
    assert remote.check_files(spec, game.bots) is None
    (tmp_path / "bot.py").write_text("print('bye')\n")
    differs = remote.check_files(spec, game.bots) or ""
    assert "bot a:" in differs and "differs" in differs
    (tmp_path / "bot.py").unlink()
    assert "is missing on worker" in (remote.check_files(spec, game.bots) or "")
    assert decode_spec(game.spec, GameSpec) == spec  # the worker gets the coordinator's spec as it is


def test_executor_options_are_checked() -> None:
    with pytest.raises(ExecutorError, match="needs --scheduler"):
        ExecutorSpec("dask")
    with pytest.raises(ExecutorError, match="--workers is for"):
        ExecutorSpec("local", workers=2)
    with pytest.raises(ExecutorError, match="--scheduler is for"):
        ExecutorSpec("dask-local", scheduler="tcp://x:1")


def test_an_address_where_no_dask_scheduler_answers_is_a_one_line_error() -> None:
    """A server that is not a Dask scheduler (here one that answers HTTP) makes Dask's client fail in its own
    ways (a MemoryError from a bogus frame length): the user gets the address and what to check, no traceback."""
    import socket
    import threading

    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]

    def answer() -> None:
        with contextlib.suppress(OSError):
            while True:
                connection, _ = server.accept()
                with connection:
                    connection.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
                    connection.recv(1)  # until the client gives up

    threading.Thread(target=answer, daemon=True).start()
    gc.collect()  # earlier tests' closed clients, if any are still waiting to be collected
    clients = sum(isinstance(o, distributed.Client) for o in gc.get_objects())
    try:
        with pytest.raises(ExecutorError) as raised:
            open_executor(ExecutorSpec("dask", f"tcp://127.0.0.1:{port}"), 1)
    finally:
        server.close()
    # The half-built Client is gone already: left for a later collection, its __del__ could run inside another
    # Client's constructor, where distributed deadlocks (a whole test run hung on it once).
    assert sum(isinstance(o, distributed.Client) for o in gc.get_objects()) == clients
    assert raised.value.__context__ is None
    message = str(raised.value)
    assert message.startswith(f"cannot use tcp://127.0.0.1:{port}: ") and "\n" not in message
    assert "is `dask scheduler` running there" in message


def test_cli_executor_dask(tmp_path: Path, cluster: tuple[ExecutorSpec, object]) -> None:
    spec, _ = cluster
    args = ["tournament", "h=sample:heuristic", "r=sample:random", "--game", "hearts", "--option", "target=10"]
    args += ["--sets", "1", "--seed", "4", "--json", "--out", str(tmp_path)]
    result = CliRunner().invoke(cli, [*args, "--executor", "dask", "--scheduler", str(spec.scheduler)])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["status"] == "complete"
    assert len(read_results(tmp_path / "results.jsonl")[0]) == 1
    refused = CliRunner().invoke(cli, [*args, "--workers", "2"])
    assert refused.exit_code == 2 and "--workers is for --executor dask-local" in refused.output


def test_ctrl_c_with_a_local_cluster_stops_cleanly_and_resume_plays_each_set_once(
    tmp_path: Path, cluster: tuple[ExecutorSpec, object]
) -> None:
    args = ["tournament", "h=sample:heuristic", "r=sample:random", "--game", "hearts", "--option", "target=10"]
    args += ["--seed", "9", "--sets", "12", "--out", str(tmp_path)]
    process = tournament_after_its_first_set([*args, "--executor", "dask-local", "--workers", "2"])
    os.killpg(process.pid, signal.SIGINT)  # what Ctrl-C does: the whole foreground group gets it
    out, err = output_once_stopped(process)
    assert process.returncode == 130, err
    assert b"stopped early: continue with --resume" in out
    assert b"Traceback" not in err  # the cluster's processes ignore Ctrl-C: the coordinator stops them
    _wait_for_session_to_exit(process.pid)
    done = len(read_results(tmp_path / "results.jsonl")[0])
    assert 1 <= done < 12
    spec, _ = cluster
    config = TournamentConfig.of(entrants=SAMPLES, ruleset=SHORT, seed="9")
    result = run_tournament(config, tmp_path, StopRule(sets=12), executor=spec, resume=True)
    assert result.status == "complete"
    assert [r.set_id for r in read_results(tmp_path / "results.jsonl")[0]] == list(range(1, 13))[: len(result.records)]
    assert sorted(r.set_id for r in result.records) == list(range(1, 13))


def test_kill_9_of_a_local_cluster_coordinator_leaves_no_process_and_resume_plays_each_set_once(
    tmp_path: Path, cluster: tuple[ExecutorSpec, object]
) -> None:
    """A SIGKILLed coordinator cannot stop its cluster: its workers must see it gone (each exits at once, by
    ``os._exit``, once its parent's end of a pipe closes: distributed's ``_immediate_exit_when_closed``), and their
    bots the end of their input, but a bot frozen at that instant cannot read it: the guardian of its worker's
    control groups kills it. Its lock goes with it (the kernel's). The kill comes once a set is recorded, with the
    next games playing on the workers and a bot frozen: what tools/kill_stress.py's dask-tournament mode does at
    random instants. The run is in a control group of its own, so that no other match's sweep (another test's,
    another run's on the machine) removes what it leaves before the check: only the guardian can."""
    tag, env = family_env()  # the coordinator and its worker processes; the bots get the tag through their env
    bots = tmp_path / "bots.toml"
    bots.write_text(
        "".join(
            f'[[bot]]\nname = "{n}"\ncommand = "{c}"\nenv = {{ {FAMILY_VARIABLE} = "{tag}" }}\n'
            for n, c in (("h", "sample:heuristic"), ("r", "sample:random"))
        )
    )
    out = tmp_path / "t"
    args = ["tournament", "--bots", str(bots), "--game", "hearts", "--option", "target=10"]
    args += ["--seed", "13", "--sets", "12", "--out", str(out)]
    with contextlib.ExitStack() as stack:
        group = stack.enter_context(private_group()) if fair_play_problem("cgroup") is None else None
        process = tournament_after_its_first_set(
            [*args, "--executor", "dask-local", "--workers", "2"],
            env,
            stdout=subprocess.DEVNULL,
            wrap=None if group is None else group.command,
        )
        if group is not None:  # (without control groups no bot is ever frozen: their end of input ends them)
            assert settle(lambda: [] if group.frozen_bots() else [1], rounds=4000) == [], "no bot was ever frozen"
        process.kill()
        process.communicate()  # its end of the pipes closed
        assert family_left(tag) == []
    done = [r.set_id for r in read_results(out / "results.jsonl")[0]]
    assert 1 <= len(done) < 12
    spec, _ = cluster
    resumed = CliRunner().invoke(cli, [*args, "--resume", "--executor", "dask", "--scheduler", str(spec.scheduler)])
    assert resumed.exit_code == 0, resumed.output  # not refused as locked
    records = read_results(out / "results.jsonl")[0]
    assert sorted(r.set_id for r in records) == list(range(1, 13))
    assert [r.set_id for r in records[: len(done)]] == done
    assert sorted(p.name for p in (out / "sets").iterdir()) == [f"{i:04d}" for i in range(1, 13)]


def _wait_for_session_to_exit(session: int) -> None:
    """Every process of the session (the cluster's, the bots) has exited; bounded by polls, not by a clock."""
    for _ in range(200):
        members = []
        for entry in Path("/proc").iterdir():
            try:
                if entry.name.isdigit() and os.getsid(int(entry.name)) == session and _alive(int(entry.name)):
                    members.append(int(entry.name))
            except OSError:
                continue
        if not members:
            return
        time.sleep(0.05)
    raise AssertionError(f"processes of the stopped run are still alive: {members}")


def test_a_result_that_comes_after_the_executor_closed_does_not_hang_the_callback_thread(
    cluster: tuple[ExecutorSpec, object],
) -> None:
    """A game's callback that runs once the executor's client is closed (a tournament stopped by another game's
    error while this one finished) must not fetch the result: on a closed client ``Future.result`` fails ("IOLoop is
    closed"), and on one closing it waited forever, and with it Dask's one callback thread, so that every later game
    of the process hung (seen in a full run). It settles the game with the executor's error instead."""
    from types import SimpleNamespace

    from competition.dask_executor import DaskExecutor, _GameFuture

    spec, _ = cluster
    executor = DaskExecutor.open(spec, 1)
    done = executor._client.submit(os.getpid, pure=False)
    distributed.wait([done])
    game = _GameFuture(executor)
    executor.close()
    task = SimpleNamespace(set_id=7, index=0)
    callback = threading.Thread(target=executor._done, args=(done, game, task, None, {}), daemon=True)
    callback.start()
    callback.join(60)  # a bound on a hang, not a measurement: the call returns at once
    assert not callback.is_alive(), "the callback waits on the closed client"
    with pytest.raises(InfrastructureError, match="set 7: the executor was closed"):
        game.result(0)


def test_a_local_cluster_starts_when_the_dask_dashboard_port_is_taken(tmp_path: Path) -> None:
    """Another program on port 8787 (a Jupyter or Dask dashboard, a second ladder's cron run) must not stop a
    dask-local run: the cluster's HTTP server takes any free port on this machine."""
    with contextlib.ExitStack() as stack:
        import socket

        holder = stack.enter_context(socket.socket())
        try:
            holder.bind(("0.0.0.0", 8787))
        except OSError:
            pass  # already taken by someone else: the case itself
        else:
            holder.listen()
        spec = ExecutorSpec("dask-local", workers=1)
        result = run_tournament(_config(seed="3"), tmp_path, StopRule(sets=1), executor=spec)
    assert result.status == "complete" and len(result.records) == 1


def test_executor_from_a_toml_table() -> None:
    assert ExecutorSpec.from_table({}, "ladder.toml [run]") == ExecutorSpec()
    spec = ExecutorSpec.from_table({"executor": "dask", "scheduler": "tcp://h:8786", "jobs": 2}, "[run]")
    assert spec == ExecutorSpec("dask", "tcp://h:8786")
    with pytest.raises(ExecutorError, match=r"^\[run\]: executor must be one of local, dask, dask-local"):
        ExecutorSpec.from_table({"executor": "ray"}, "[run]")
    # Each mistake in the file's own words, not as the command line's options.
    mistakes: list[tuple[dict[str, object], str]] = [
        ({"executor": "dask"}, 'executor = "dask" needs scheduler = "tcp://HOST:8786"'),
        ({"scheduler": "tcp://h:8786"}, 'scheduler is for executor = "dask"'),
        ({"executor": "dask", "scheduler": "tcp://h:8786", "workers": 2}, 'workers is for executor = "dask-local"'),
        ({"executor": "dask-local", "workers": 0}, "workers must be at least 1"),
        ({"retries": -1}, "retries must be at least 0"),
    ]
    for table, says in mistakes:
        with pytest.raises(ExecutorError) as raised:
            ExecutorSpec.from_table(table, "[run]")
        assert str(raised.value).startswith(f"[run]: {says}")
        assert "--" not in str(raised.value)
