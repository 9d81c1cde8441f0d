"""What ``kierki tournament`` and ``kierki sprt`` share: their options, the `TournamentConfig` built from them, where
the executor runs, and the output folder and seed of a run (a resumed run keeps its stored seed).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from competition.executors import EXECUTORS, ExecutorError, ExecutorSpec
from competition.plan import ROTATIONS, Entrant, PlanError, check_entrants
from competition.tournament_config import TournamentConfig
from kierki_cli.common import fresh_out_dir, new_seed, warn_short_seed
from kierki_cli.options import jobs_option, json_option, out_option, seed_option, shared_option
from kierki_cli.shared_options import RuleOptions, isolation_options, max_strikes_option, rules_options, time_options
from referee.api import Isolation, MatchSetupError, TimeControl

__all__ = ["common_options", "executor_spec", "out_dir_and_seed", "tournament_config"]


def common_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """The options ``tournament`` and ``sprt`` share, each declared once: the game, time, isolation, output and
    parallelism."""
    options: list[Callable[[Callable[..., Any]], Callable[..., Any]]] = [
        rules_options(),
        shared_option(
            "--rotations",
            type=click.Choice(ROTATIONS),
            default="cyclic",
            show_default=True,
            text="Games per duplicate set: cyclic (one per seat, everyone moves on a seat) or all (every ordering).",
        ),
        seed_option,
        out_option,
        shared_option(
            "--resume", is_flag=True, text="Continue the stopped tournament in --out, skipping finished sets."
        ),
        jobs_option(", a game each [default: the usable CPUs]."),
        shared_option(
            "--cpu-pinning/--no-cpu-pinning",
            default=True,
            show_default=True,
            text="Pin each game (its referee and bots) to one CPU.",
        ),
        shared_option(
            "--executor",
            type=click.Choice(EXECUTORS),
            default="local",
            show_default=True,
            text="Where games are played: local (a pool of --jobs processes), dask (the workers of --scheduler), "
            "dask-local (a Dask cluster of --workers processes here). Dask needs pip install 'kierki[dask]'.",
        ),
        shared_option(
            "--scheduler",
            default=None,
            metavar="ADDRESS",
            text='--executor dask: the scheduler\'s address, e.g. tcp://10.0.0.5:8786 (README, "Many machines").',
        ),
        shared_option(
            "--workers",
            type=click.IntRange(1),
            default=None,
            text="--executor dask-local: worker processes [default: --jobs].",
        ),
        time_options(),
        max_strikes_option,
        shared_option(
            "--drop-after",
            type=click.IntRange(1),
            default=3,
            show_default=True,
            metavar="K",
            text="Drop a bot after K games in a row it could not start or failed its handshake in.",
        ),
        isolation_options,
        json_option("one object at the end."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def tournament_config(
    entrants: list[Entrant],
    *,
    rules: RuleOptions,
    seed: str,
    rotations: str,
    time: TimeControl,
    max_strikes: int,
    drop_after: int,
    isolation: Isolation,
    **kinds: Any,
) -> TournamentConfig:
    ruleset = rules.ruleset()
    try:
        check_entrants(entrants)
        config = TournamentConfig.of(
            entrants=tuple(entrants),
            ruleset=ruleset,
            seed=seed,
            rotations=rotations,  # type: ignore[arg-type]
            time=time,
            max_strikes=max_strikes,
            isolation=isolation,
            drop_after=drop_after,
            **kinds,
        )
        config.plan  # noqa: B018 - checks the format's arguments (a gauntlet's candidate) before anything starts
        for entrant in entrants:
            config.bot_spec(entrant)
    except (PlanError, MatchSetupError) as error:
        raise click.UsageError(str(error)) from None
    return config


def executor_spec(settings: dict[str, Any]) -> ExecutorSpec:
    """Take the executor's options out of the shared ones."""
    kind, scheduler, workers = settings.pop("executor"), settings.pop("scheduler"), settings.pop("workers")
    try:
        return ExecutorSpec(kind, scheduler, workers)
    except ExecutorError as error:
        raise click.UsageError(str(error)) from None


def out_dir_and_seed(
    kind: str,
    what: str,
    out_dir: Path | None,
    seed: str | None,
    *,
    resume: bool,
    quiet: bool,
) -> tuple[Path, str]:
    """``--out``, ``--resume`` and ``--seed`` together: the folder to write into (by default a new one named after
    ``kind`` and the time) and the seed (on ``--resume`` without ``--seed``, the stopped run's own). ``what`` names
    the run in the error for a ``--resume`` without ``--out``."""
    if resume and out_dir is None:
        raise click.UsageError(f"--resume needs --out DIR: the folder of the {what} to continue")
    if seed is None:
        stored = _stored_seed(out_dir) if resume else None
        seed = new_seed() if stored is None else stored
    if not quiet:
        warn_short_seed(seed)
    return out_dir or fresh_out_dir(Path("kierki-out") / f"{kind}-{time.strftime('%Y%m%d-%H%M%S')}"), seed


def _stored_seed(out_dir: Path | None) -> str | None:
    if out_dir is None:
        return None
    try:
        return str(json.loads((out_dir / "tournament.json").read_text())["seed"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
