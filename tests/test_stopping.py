"""Stop signals held and taken at a checkpoint (competition/stopping.py): a Ctrl-C that lands inside a ``__del__``
(the garbage collector runs them wherever the coordinator is, a Dask client's futures among them) is not lost, and a
tournament stopped that way stops rather than playing on to its end."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from competition.plan import Entrant
from competition.stopping import stop_signals_held
from competition.tournament import TournamentProgress, run_tournament
from competition.tournament_config import StopRule, TournamentConfig
from kierki_cli.entry import install_stop_handlers
from referee.rules import Ruleset
from referee.vocabulary.match_result import GameStatus


class InterruptsAsItGoes:
    """An object whose ``__del__`` is where the signal lands: Python prints a KeyboardInterrupt raised there as
    "Exception ignored" and drops it."""

    def __init__(self, signum: int) -> None:
        self.signum = signum

    def __del__(self) -> None:
        signal.raise_signal(self.signum)


@pytest.fixture(autouse=True)
def _handlers() -> Iterator[None]:
    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    signal.signal(signal.SIGINT, signal.default_int_handler)
    install_stop_handlers()  # what every kierki command runs with
    yield
    for signum, handler in saved.items():
        signal.signal(signum, handler)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_a_stop_landing_in_a_del_is_raised_at_the_checkpoint_once(signum: int) -> None:
    with stop_signals_held() as held:
        InterruptsAsItGoes(signum)  # dropped at once: the signal lands in its __del__
        assert held.signals == [signum]
        with pytest.raises(KeyboardInterrupt):
            held.check()
        held.check()  # taken once: nothing is left to deliver here or as the block ends
    if signum != signal.SIGINT:  # stop_like_ctrl_c: a second SIGTERM or SIGHUP while cleaning up is ignored
        assert signal.getsignal(signum) == signal.SIG_IGN
    else:
        assert signal.getsignal(signum) is signal.default_int_handler


def test_a_stop_not_taken_at_a_checkpoint_is_delivered_as_the_block_ends() -> None:
    with pytest.raises(KeyboardInterrupt), stop_signals_held():
        InterruptsAsItGoes(signal.SIGINT)
        reached = True
    assert reached


def test_a_tournament_stopped_inside_a_del_stops(tmp_path: Path) -> None:
    """The stop lands in a ``__del__`` run on the coordinator after the first set (here its progress callback's):
    held, then taken at the loop's next checkpoint. Raised where it landed, it was dropped, and the run played all
    its sets (a Dask tournament's Ctrl-C was lost that way)."""
    config = TournamentConfig.of(
        entrants=(Entrant("h", "sample:heuristic"), Entrant("r", "sample:random")),
        ruleset=Ruleset.create("hearts", None, {"target": "10"}),
        seed="5",
    )

    def progress(update: TournamentProgress) -> None:
        if update.sets_done == 1:
            InterruptsAsItGoes(signal.SIGINT)

    result = run_tournament(config, tmp_path, StopRule(sets=6), progress=progress)
    assert result.status is GameStatus.INTERRUPTED
    assert 1 <= len(result.records) < 6
