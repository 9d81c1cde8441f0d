"""The compiled build (setup.py's COMPILED: the modules a match runs on every decision, compiled by mypyc) plays
exactly the games the pure source does, and passes the tests of every module it compiles.

The compiled build is optional for users; the suite builds it (tools/build_compiled.py, about 30 s; skipped
where no C compiler is found) unless ``KIERKI_COMPILED=DIR`` names a build already. The same seeded games,
playouts and sampled worlds (tests/compiled_digest.py) are played in one process with the pure source and one
with the compiled build, and every event of every game (by hash of its repr) must agree; then the tests of every
compiled module (the rules, the wire, the transport, the seat, the replay writer, the match), the hostile bots'
tests and check-bot's (all but its slow jq bot) run once more, in a process of their own, against the compiled
build.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

# One worker takes this file's tests under pytest-xdist (--dist loadgroup), so the build is made once, not per worker.
pytestmark = pytest.mark.xdist_group("compiled")

ROOT = Path(__file__).resolve().parent.parent
COMPILED = os.environ.get("KIERKI_COMPILED")
COMPILED_TESTS = (  # the tests of the compiled modules, run again against the compiled build
    "test_rules_cases.py",
    "test_rules_machine.py",
    "test_openspiel_diff.py",
    "test_state_copy.py",
    "test_replay_golden.py",
    "test_playout.py",
    "test_event_records.py",
    # the referee's hot path between the rules core and the bots, compiled too (setup.py COMPILED)
    "test_wire.py",
    "test_projection.py",
    "test_observation.py",
    "test_request_complete.py",
    # the learning environment's vector, written by the rules core's features.py (compiled with it)
    "test_learning_features.py",
    # the transport, the seat's conversation, the replay writer and the match loop (compiled since issue 14)
    "test_lines.py",
    "test_process.py",
    "test_seat.py",
    "test_checkbot_protocol.py",
    "test_match.py",
    "test_seating.py",
    "test_replay.py",
    "test_replay_records.py",
    # a user of the compiled build is as safe from hostile bots: the whole zoo (floods, forks, memory, signals,
    # limits, the sandbox, the reaper; its referee subprocesses run this build too), no leak to a seat; and
    # check-bot, its broken bots and its good ones (the sample bots in Python, C, JavaScript and Perl)
    "test_hostile.py",
    "test_no_leaks.py",
    "test_checkbot.py",
)
# test_fair_play.py and test_cgroups.py are not run again: the compiled seat and transport freeze, thaw and time
# bots on their control groups' CPU time in every test_hostile and test_checkbot match above (fair play is on by
# default where control groups can be made), and the attacks' matches would add minutes to a suite that must stay
# well under ten.
# Left out: the bash bot that starts jq for every message takes about 40 s, nearly all of it in jq's starts, and
# asks the compiled build nothing the other good bots do not.
# The default JVM's check (five JVM starts) asks the compiled build nothing the C and Python bots do not either.
NOT_AGAINST_COMPILED = (
    "test_checkbot.py::test_a_bash_bot_that_starts_jq_for_every_message_passes",
    "test_checkbot.py::test_a_default_jvm_bot_passes",
)


def test_this_files_tests_share_one_worker(request: pytest.FixtureRequest) -> None:
    """Under --dist loadgroup the group is the node id's suffix (pytest-xdist renames each item): with pytest 9,
    which no longer reads the renamed id, the group was split over the workers, the build was made twice at
    once in one checkout, and one of the two was broken."""
    if not request.config.getoption("loadgroup", default=False):
        pytest.skip("not run under pytest-xdist's --dist loadgroup")
    assert request.node.nodeid.endswith("@compiled")


def compiled_run_args() -> list[str]:
    """pytest's arguments for the run against the compiled build (from the checkout's root)."""
    deselected = (f"--deselect=tests/{name}" for name in NOT_AGAINST_COMPILED)
    return [*(f"tests/{name}" for name in COMPILED_TESTS), *deselected]


@pytest.fixture(scope="session")  # once per worker: xdist may run other files' tests between these
def compiled_build(tmp_path_factory: pytest.TempPathFactory) -> str:
    if COMPILED:
        return os.path.abspath(COMPILED)
    if shutil.which(os.environ.get("CC", "cc")) is None:
        pytest.skip("no C compiler: the compiled build is optional and is not built")
    target = tmp_path_factory.mktemp("compiled")
    done = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "build_compiled.py"), str(target)], capture_output=True, text=True
    )
    assert done.returncode == 0, f"tools/build_compiled.py failed:\n{done.stdout}\n{done.stderr}"
    return str(target)


def digest(path: str) -> list[str]:
    env = {**os.environ, "PYTHONPATH": path}
    env.pop("KIERKI_COMPILED", None)
    script = str(ROOT / "tests" / "compiled_digest.py")
    done = subprocess.run(
        [sys.executable, "-P", script, "150"], env=env, cwd=ROOT / "tests", capture_output=True, text=True
    )
    assert done.returncode == 0, f"compiled_digest.py with PYTHONPATH={path} failed:\n{done.stderr}"
    return done.stdout.splitlines()


def test_compiled_and_pure_builds_play_identical_games(compiled_build: str) -> None:
    pure = digest(str(ROOT))
    compiled = digest(compiled_build)
    assert pure[0] == "pure" and compiled[0] == "compiled"
    assert len(pure) == len(compiled) == 151
    for ours, theirs in zip(pure[1:], compiled[1:], strict=True):
        assert ours == theirs


@pytest.mark.timeout(1800)  # the build and a few hundred tests in one subprocess: a guard against a hang only
def test_the_rules_tests_pass_against_the_compiled_build(compiled_build: str) -> None:
    if COMPILED:
        pytest.skip("this session already runs against the compiled build")
    env = {**os.environ, "KIERKI_COMPILED": compiled_build}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *compiled_run_args()],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]


def collected(*args: str) -> set[str]:
    """The test ids pytest collects with these arguments (run from the checkout's root)."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-o", "addopts=", "-q", "-p", "no:cacheprovider", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return {line for line in done.stdout.splitlines() if "::" in line}


def test_the_compiled_run_takes_every_checkbot_test_but_the_jq_bot() -> None:
    """check-bot's good bots run against the compiled build as its broken ones do; only the slow jq bot and the
    JVM are left out (and they are tests that exist: a renamed one would be run again, not silently dropped)."""
    ours = [arg for arg in compiled_run_args() if "test_checkbot.py" in arg]
    every = collected("tests/test_checkbot.py")
    left_out = every - collected(*ours)
    assert left_out == {f"tests/{name}" for name in NOT_AGAINST_COMPILED}
    for good in ("test_python_sample_bots_pass[heuristic_bot.py]", "test_c_bot_passes", "test_js_bot_passes"):
        assert f"tests/test_checkbot.py::{good}" in every - left_out


def test_the_build_starts_from_bytecode(compiled_build: str) -> None:
    """The build's modules that are not compiled come with their bytecode: an interpreter that may not write it
    (``PYTHONDONTWRITEBYTECODE``) would otherwise compile them from source at every start of a match."""
    env = {**os.environ, "PYTHONPATH": compiled_build, "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("KIERKI_COMPILED", None)
    done = subprocess.run(
        [sys.executable, "-v", "-c", "import referee.match"],
        env=env,
        cwd=ROOT / "tests",
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    loaded = [line for line in done.stderr.splitlines() if line.startswith("# code object from ")]
    from_build = [line for line in loaded if compiled_build in line]
    assert from_build, "no module of the build was loaded: is it first on the path?"
    from_source = [line for line in from_build if line.endswith(".py")]  # a .pyc is named in quotes
    assert not from_source, "compiled from source at start:\n" + "\n".join(from_source)


def test_a_users_script_runs_the_compiled_rules_core_through_kierki_compiled(
    compiled_build: str, tmp_path: Path
) -> None:
    """``KIERKI_COMPILED=DIR python my_script.py`` (a script anywhere, importing the environments): the rules core
    comes from the build and the learning package from the checkout; a stale build is refused with what to do."""
    script = tmp_path / "my_training.py"
    script.write_text(
        "from referee.learning import SingleSeatEnv\n"
        "import referee.learning, referee.rules.state, referee.rules.features\n"
        "env = SingleSeatEnv('hearts')\n"
        "env.reset(seed=1)\n"
        "print(referee.rules.state.__file__)\n"
        "print(referee.rules.features.__file__)\n"
        "print(referee.learning.__file__)\n"
    )
    env = {**os.environ, "KIERKI_COMPILED": compiled_build}
    env.pop("PYTHONPATH", None)
    done = subprocess.run([sys.executable, str(script)], env=env, cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    state, features, learning = done.stdout.splitlines()
    assert state.startswith(compiled_build) and state.endswith(".so")
    assert features.startswith(compiled_build) and features.endswith(".so")
    assert learning == str(ROOT / "referee" / "learning" / "__init__.py")
    stale = tmp_path / "stale"
    shutil.copytree(compiled_build, stale, symlinks=True)
    (stale / "BUILT_FROM").write_text("0" * 64)
    done = subprocess.run(
        [sys.executable, str(script)],
        env={**env, "KIERKI_COMPILED": str(stale)},
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert (
        done.returncode == 1
        and "was built from other source" in done.stderr
        and "tools/build_compiled.py" in done.stderr
    )
