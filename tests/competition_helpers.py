"""Set records made by hand for the statistics, ratings, SPRT and report tests; a run's processes, found again."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

import msgspec
import pytest

from competition.ladder.config import LADDER_ISOLATION, BotSettings, InboxSettings, LadderConfig, RunSettings
from competition.model import GameRecord, SetRecord
from referee.bots.procfs import process_stat
from referee.vocabulary.faults import FaultCode


def short_ladder(run: RunSettings, bots: BotSettings, inbox: InboxSettings | None = None) -> LadderConfig:
    """A ladder for the tests: Hearts to 10 for four (a short game keeps the suite fast), the ladder's isolation
    without the sandbox."""
    return LadderConfig(
        game="hearts",
        players=4,
        options={"target": "10"},
        isolation=msgspec.structs.replace(LADDER_ISOLATION, sandbox="none"),
        run=run,
        bots=bots,
        inbox=inbox or InboxSettings(),
    )


@contextlib.contextmanager
def tmpfs(where: Path, options: str) -> Iterator[Path]:
    """A tmpfs of our own at ``where`` (made here) with these mount options, unmounted after; the test is skipped
    where this process may not mount one."""
    where.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(where)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (needs root or CAP_SYS_ADMIN): {mounted.stderr.decode().strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def places_of(totals: Sequence[int], higher_is_better: bool) -> tuple[int, ...]:
    """1 + the number of seats strictly better: equal totals share a place (1, 1, 3)."""
    sign = -1 if higher_is_better else 1
    return tuple(1 + sum(1 for other in totals if sign * other < sign * total) for total in totals)


def make_set(
    set_id: int,
    scores: Mapping[str, Sequence[int]],
    *,
    higher_is_better: bool = True,
    game: str = "kierki",
    seed: str | None = None,
    faults: Mapping[tuple[int, str], dict[FaultCode, int]] | None = None,
    start_failed: Sequence[tuple[int, str]] = (),
    forfeited: Sequence[tuple[int, str]] = (),
) -> SetRecord:
    """A cyclic duplicate set: game i seats the bots rotated by i; ``scores[bot][i]`` is the bot's total in game i.

    ``faults[(i, bot)]`` and ``start_failed`` / ``forfeited`` entries ``(i, bot)`` attach per-seat extras to game i.
    """
    bots = tuple(scores)
    n_games = len(next(iter(scores.values())))
    games = []
    for i in range(n_games):
        seats = bots[i % len(bots) :] + bots[: i % len(bots)]
        totals = tuple(scores[bot][i] for bot in seats)
        games.append(
            GameRecord(
                index=i,
                seats=seats,
                totals=totals,
                places=places_of(totals, higher_is_better),
                faults=tuple((faults or {}).get((i, bot), {}) for bot in seats),
                start_failed=tuple((i, bot) in start_failed for bot in seats),
                forfeited=tuple((i, bot) in forfeited for bot in seats),
            )
        )
    return SetRecord(
        set_id=set_id,
        seed=seed if seed is not None else str(1000 + set_id),
        game=game,
        players=len(bots),
        higher_is_better=higher_is_better,
        bots=bots,
        games=tuple(games),
    )


FAMILY_VARIABLE = "KIERKI_TEST_FAMILY"


def family_env() -> tuple[str, dict[str, str]]:
    """A tag, and the environment that marks every process a command starts with it (the coordinator, its
    forkserver, its workers, which run in sessions of their own): `family` finds them by it. Bots get a filtered
    environment (referee/bots/sandbox.py), so a bot carries the tag only when it is given as the bot's own
    variable (a bots file's ``env``, ``--bot-env``)."""
    tag = uuid.uuid4().hex
    return tag, {**os.environ, FAMILY_VARIABLE: tag}


def family(tag: str) -> list[int]:
    """The processes started with ``family_env``'s tag that are still running (zombies have ended)."""
    marker = f"{FAMILY_VARIABLE}={tag}".encode()
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if marker not in (entry / "environ").read_bytes().split(b"\0"):
                continue
        except OSError:
            continue
        fields = process_stat(int(entry.name))
        if fields is not None and fields[0] != b"Z":
            members.append(int(entry.name))
    return members


def family_left(tag: str) -> list[int]:
    """The processes of ``tag``'s family still running once they had a bounded number of looks to end (polls on
    SIGCHLD, not a clock), each then killed so that a failing test leaves nothing behind: [] when all ended."""
    for _ in range(3000):
        if not family(tag):
            return []
        signal.sigtimedwait([signal.SIGCHLD], 0.01)
    left = family(tag)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    return left


# The kierki command in a child: a shell starts background jobs with SIGINT ignored, and Python keeps that, so
# Ctrl-C's usual handler is restored first (what an interactive terminal gives the command).
_KIERKI_WITH_CTRL_C = (
    "import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "from kierki_cli.main import cli; cli(sys.argv[1:])"
)


def tournament_after_its_first_set(
    args: Sequence[str],
    env: Mapping[str, str] | None = None,
    stdout: int = subprocess.PIPE,
    wrap: Callable[[list[str]], list[str]] | None = None,
) -> subprocess.Popen[bytes]:
    """``kierki ARGS`` (a tournament) started in a session of its own, returned once it has printed its first set's
    line on stderr: games are in play on its workers then, the moment a Ctrl-C or a kill test wants. ``wrap``
    makes the command run inside another (``cgroup_helpers.PrivateGroup.command``)."""
    command = [sys.executable, "-c", _KIERKI_WITH_CTRL_C, *args]
    process = subprocess.Popen(
        command if wrap is None else wrap(command),
        stdout=stdout,
        stderr=subprocess.PIPE,
        start_new_session=True,
        env=None if env is None else dict(env),
    )
    assert process.stderr is not None
    for line in process.stderr:
        if line.startswith(b"set 1/"):
            break
    return process


def output_once_stopped(process: subprocess.Popen[bytes]) -> tuple[bytes, bytes]:
    """The stdout and stderr of a tournament sent a stop, once it has ended. One that has not ended in two minutes
    (it plays 12 sets of Hearts to 10 in about 20 seconds) ignored the stop or hung in it: its session is killed
    and the test fails with what it printed, leaving nothing behind for later tests to trip on."""
    try:
        return process.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        _, err = process.communicate()
        raise AssertionError(f"the tournament did not end after its stop:\n{err.decode(errors='replace')}") from None


def untimed(records: Sequence[SetRecord]) -> list[SetRecord]:
    """The sets in id order, without what the clock decides (each seat's CPU time), to compare two runs."""
    return [
        msgspec.structs.replace(record, games=tuple(msgspec.structs.replace(g, cpu_ms=()) for g in record.games))
        for record in sorted(records, key=lambda r: r.set_id)
    ]
