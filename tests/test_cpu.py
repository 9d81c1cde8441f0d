"""A match runs its referee and bots on one CPU: ``--cpu N``, ``--cpu none``, and by default one usable CPU."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import sample_bots
from kierki_cli.main import cli
from referee import cpu

pytestmark = pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="pinning needs Linux")

RANDOM_BOT = Path(sample_bots.__file__).parent / "random_bot.py"
# The random sample bot, after writing the CPUs it may run on to its stderr log.
AFFINITY_BOT = shlex.join(
    [
        sys.executable,
        "-c",
        "import os, runpy, sys; sys.stderr.write(repr(sorted(os.sched_getaffinity(0))) + '\\n'); "
        f"runpy.run_path({str(RANDOM_BOT)!r}, run_name='__main__')",
    ]
)


def bot_cpus(out: Path) -> list[str]:
    return [(out / f"seat{s}.stderr.log").read_text().splitlines()[0] for s in range(4)]


def match(out: Path, *options: str) -> None:
    result = CliRunner().invoke(
        cli, ["match", "--game", "hearts", "--option", "target=10", "--out", str(out), *options] + [AFFINITY_BOT] * 4
    )
    assert result.exit_code == 0, result.stderr


def test_bots_run_on_the_cpu_given_and_the_caller_gets_its_cpus_back(tmp_path: Path) -> None:
    before = os.sched_getaffinity(0)
    last = max(before)
    match(tmp_path, "--cpu", str(last))
    assert bot_cpus(tmp_path) == [repr([last])] * 4
    assert os.sched_getaffinity(0) == before


def test_by_default_the_match_is_pinned_to_one_usable_cpu(tmp_path: Path) -> None:
    match(tmp_path)
    shown = set(bot_cpus(tmp_path))
    assert len(shown) == 1 and shown.pop() in {repr([c]) for c in cpu.usable_cpus()}


def test_cpu_none_leaves_the_affinity_alone(tmp_path: Path) -> None:
    match(tmp_path, "--cpu", "none")
    assert bot_cpus(tmp_path) == [repr(cpu.usable_cpus())] * 4


@pytest.mark.parametrize(
    ("given", "says"),
    [("x", "'x' is not a CPU number"), ("100000", "CPU 100000 is not one this process may run on")],
)
def test_a_cpu_that_cannot_be_used_is_a_usage_error(given: str, says: str) -> None:
    result = CliRunner().invoke(cli, ["match", "--cpu", given])
    assert result.exit_code == 2 and says in result.stderr


def test_children_started_while_pinned_inherit_the_cpu() -> None:
    target = cpu.usable_cpus()[-1]
    with cpu.pinned(target):
        shown = subprocess.run(
            [sys.executable, "-c", "import os; print(sorted(os.sched_getaffinity(0)))"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    assert shown.strip() == repr([target])


def test_the_default_is_spread_by_process_id_over_the_usable_set() -> None:
    assert cpu.choose_cpu([3, 5]) == [3, 5][os.getpid() % 2]
    assert cpu.choose_cpu([]) is None
