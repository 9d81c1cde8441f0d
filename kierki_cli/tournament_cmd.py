"""``kierki tournament`` and ``kierki sprt``: parse options, run `competition.tournament`, print as it goes."""

from __future__ import annotations

import json
import math
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

import click

from competition import report, stats
from competition.executors import EXECUTORS, ExecutorError, ExecutorSpec
from competition.model import SetRecord
from competition.plan import FORMATS, ROTATIONS, Entrant, PlanError, check_entrants, parse_bot_argument, parse_bots_file
from competition.results import ResultsError
from competition.sprt import SPRT, SprtError, paired_difference
from competition.tournament import (
    Progress,
    StopRule,
    TournamentConfig,
    TournamentError,
    TournamentResult,
    run_tournament,
)
from kierki_cli.common import (
    SHORT_SEED,
    increment_option,
    new_seed,
    parse_pairs,
    startup_time_option,
    time_bank_option,
    time_per_move_option,
)
from kierki_cli.isolation import Isolation, isolation_options
from referee.bots.seat import TimeControl
from referee.match import MatchSetupError
from referee.rules import RulesError, Ruleset
from referee.rules.ruleset import Game
from referee.text import printable

GAMES = [g.value for g in Game]


def _default_jobs() -> int:
    return len(os.sched_getaffinity(0))


def _new_out_dir(kind: str) -> Path:
    base = Path("kierki-out") / f"{kind}-{time.strftime('%Y%m%d-%H%M%S')}"
    out_dir, suffix = base, 2
    while out_dir.exists():
        out_dir, suffix = base.with_name(f"{base.name}-{suffix}"), suffix + 1
    return out_dir


def _stored_seed(out_dir: Path | None) -> str | None:
    if out_dir is None:
        return None
    try:
        return str(json.loads((out_dir / "tournament.json").read_text())["seed"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _warn_short(seed: str, quiet: bool) -> None:
    if len(seed) < SHORT_SEED and not quiet:
        click.echo(
            f"note: seed {printable(seed)!r} is short: a bot can find it from its own cards and predict every deal; "
            "fine for tests, leave --seed out for a competition",
            err=True,
        )


def common_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """The options ``tournament`` and ``sprt`` share: the game, time, isolation, output and parallelism."""
    options: list[Callable[[Callable[..., Any]], Callable[..., Any]]] = [
        click.option("--game", type=click.Choice(GAMES), default="kierki", show_default=True, help="Which game."),
        click.option("--players", type=int, default=None, help="Players (cancellation: 6-11; default 6)."),
        click.option(
            "--option",
            "option_pairs",
            multiple=True,
            metavar="KEY=VALUE",
            help="A rule option; repeat for several. `kierki options` lists them all.",
        ),
        click.option(
            "--rotations",
            type=click.Choice(ROTATIONS),
            default="cyclic",
            show_default=True,
            help="Games per duplicate set: cyclic (one per seat, everyone moves on a seat) or all (every ordering).",
        ),
        click.option(
            "--seed",
            default=None,
            help="The tournament's seed, any text: every set's deals and tables derive from it [default: 128 random "
            "bits, recorded]. A short one is for tests: bots could search it.",
        ),
        click.option(
            "--out",
            "out_dir",
            type=click.Path(file_okay=False, path_type=Path),
            default=None,
            help="Folder for results.jsonl, standings and every replay [default: kierki-out/<command>-<time>].",
        ),
        click.option(
            "--resume", is_flag=True, help="Continue the stopped tournament in --out, skipping finished sets."
        ),
        click.option(
            "--jobs",
            type=click.IntRange(1),
            default=None,
            help="Games played at once [default: the usable CPUs].",
        ),
        click.option(
            "--cpu-pinning/--no-cpu-pinning",
            default=True,
            show_default=True,
            help="Pin each game (its referee and bots) to one CPU.",
        ),
        click.option(
            "--executor",
            type=click.Choice(EXECUTORS),
            default="local",
            show_default=True,
            help="Where games are played: local (a pool of --jobs processes), dask (the workers of --scheduler), "
            "dask-local (a Dask cluster of --workers processes here). Dask needs pip install 'kierki[dask]'.",
        ),
        click.option(
            "--scheduler",
            default=None,
            metavar="ADDRESS",
            help='--executor dask: the scheduler\'s address, e.g. tcp://10.0.0.5:8786 (README, "Many machines").',
        ),
        click.option(
            "--workers",
            type=click.IntRange(1),
            default=None,
            help="--executor dask-local: worker processes [default: --jobs].",
        ),
        time_per_move_option,
        startup_time_option,
        time_bank_option,
        increment_option,
        click.option(
            "--max-strikes",
            type=click.IntRange(1),
            default=3,
            show_default=True,
            help="Faults before a seat is forfeited (for the rest of that game).",
        ),
        click.option(
            "--drop-after",
            type=click.IntRange(1),
            default=3,
            show_default=True,
            metavar="K",
            help="Drop a bot after K games in a row it could not start or failed its handshake in.",
        ),
        isolation_options,
        click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout at the end."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def _config(
    entrants: list[Entrant],
    *,
    game: str,
    players: int | None,
    option_pairs: tuple[str, ...],
    seed: str,
    rotations: str,
    time_per_move: int,
    startup_time: int,
    time_bank: int,
    increment: int,
    max_strikes: int,
    drop_after: int,
    isolation: Isolation,
    **kinds: Any,
) -> TournamentConfig:
    try:
        ruleset = Ruleset.create(game, players, dict(parse_pairs(option_pairs, "--option", "target=50", strip=True)))
    except RulesError as error:
        raise click.UsageError(str(error)) from None
    try:
        check_entrants(entrants)
        config = TournamentConfig(
            entrants=tuple(entrants),
            ruleset=ruleset,
            seed=seed,
            rotations=rotations,  # type: ignore[arg-type]
            time=TimeControl(time_per_move, startup_time, time_bank, increment),
            max_strikes=max_strikes,
            limits=isolation.limits,
            sandbox=isolation.sandbox,
            bot_env=isolation.bot_env,
            bot_ro=isolation.bot_ro,
            drop_after=drop_after,
            **kinds,
        )
        config.plan  # noqa: B018 - checks the format's arguments (a gauntlet's candidate) before anything starts
        for entrant in entrants:
            config.bot_spec(entrant)
    except (PlanError, MatchSetupError) as error:
        raise click.UsageError(str(error)) from None
    return config


# --- presentation ---------------------------------------------------------------------------------------------


def format_standings(result: TournamentResult) -> str:
    """The standings table (competition.report), then what the table cannot say: dropped bots, an early stop."""
    if not result.records:
        lines = ["no set finished yet: no standings"]
    else:
        lines = [report.format_table(stats.standings(result.records), printable).rstrip("\n")]
    for bot, reason in sorted(result.dropped.items()):
        lines.append(f"dropped {printable(bot)}: {printable(reason)}")
    if result.status != "complete":
        lines.append(f"stopped early: continue with --resume --out {printable(str(result.out_dir))}")
    lines.append(f"results: {printable(str(result.out_dir))}")
    return "\n".join(lines)


def result_json(result: TournamentResult) -> dict[str, Any]:
    """``--json``: the standings (as in standings.json) with how the run went."""
    return {
        "status": result.status,
        "out_dir": str(result.out_dir),
        "seed": result.config.seed,
        "dropped": result.dropped,
        "standings": report.standings_json(stats.standings(result.records)) if result.records else None,
    }


def write_reports(result: TournamentResult) -> None:
    """standings.json, standings.csv and report.html in the tournament's folder, from every finished set."""
    if result.records:
        config = result.config
        title = f"{config.format} of {len(config.entrants)} bots, seed {config.seed}"
        report.write_report(stats.standings(result.records), result.out_dir, title)


class ProgressLine:
    """One line on stderr: sets done, ETA and the current leaders; redrawn in place only on a terminal."""

    def __init__(self, stream: TextIO, quiet: bool, capped: bool = False) -> None:
        """``capped``: the target is only an upper bound (--until-ci), so no ETA is shown."""
        self.stream = stream
        self.quiet = quiet
        self.capped = capped
        self.tty = stream.isatty()

    def __call__(self, progress: Progress) -> None:
        if self.quiet:
            return
        left = progress.sets_target - progress.sets_done
        rate = progress.sets_done / progress.elapsed_s if progress.elapsed_s > 0 else 0.0
        eta = f"{left / rate:.0f}s" if rate > 0 and not self.capped else "?"
        leaders = ""
        try:
            table = stats.standings(progress.records)
            leaders = "  ".join(f"{b.bot} {b.score.mean:+.2f}" for b in table.bots[:3])
        except stats.StatsError:
            pass
        line = f"set {progress.sets_done}/{progress.sets_target}  {progress.games_done} games  ETA {eta}  {leaders}"
        if self.tty:
            self.stream.write("\r" + line[:119].ljust(119))
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def end(self) -> None:
        if self.tty and not self.quiet:
            self.stream.write("\n")
            self.stream.flush()


def _executor(settings: dict[str, Any]) -> ExecutorSpec:
    """Take the executor's options out of the shared ones."""
    kind, scheduler, workers = settings.pop("executor"), settings.pop("scheduler"), settings.pop("workers")
    try:
        return ExecutorSpec(kind, scheduler, workers)
    except ExecutorError as error:
        raise click.UsageError(str(error)) from None


def _run(config: TournamentConfig, out_dir: Path, stop: StopRule, **kwargs: Any) -> TournamentResult:
    try:
        return run_tournament(config, out_dir, stop, **kwargs)
    except (TournamentError, PlanError, ResultsError, ExecutorError) as error:
        raise click.ClickException(str(error)) from None


# --- kierki tournament ----------------------------------------------------------------------------------------


@click.command()
@click.argument("bot_arguments", nargs=-1, metavar="[NAME=COMMAND ...]")
@click.option(
    "--bots",
    "bots_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="A TOML file of [[bot]] tables: name, command, and optionally cwd, env and time (see README).",
)
@click.option(
    "--format",
    "format_",
    type=click.Choice(FORMATS[:2]),
    default="round-robin",
    show_default=True,
    help="round-robin: every bot meets every other; gauntlet: --candidate against the field.",
)
@click.option("--candidate", default=None, metavar="NAME", help="Gauntlet: the bot that plays against the field.")
@click.option("--sets", type=click.IntRange(1), default=None, help="Duplicate sets to play [default: 10].")
@click.option(
    "--until-ci",
    type=click.FloatRange(0, min_open=True),
    default=None,
    metavar="WIDTH",
    help="Instead of --sets: play until every bot's 95% interval (points per game) is narrower than WIDTH.",
)
@click.option(
    "--max-sets",
    type=click.IntRange(1),
    default=1000,
    show_default=True,
    help="With --until-ci: stop after this many sets at most.",
)
@common_options
def tournament(
    bot_arguments: tuple[str, ...],
    bots_file: Path | None,
    format_: str,
    candidate: str | None,
    sets: int | None,
    until_ci: float | None,
    max_sets: int,
    seed: str | None,
    out_dir: Path | None,
    resume: bool,
    jobs: int | None,
    cpu_pinning: bool,
    as_json: bool,
    **settings: Any,
) -> None:
    """Play a tournament of duplicate sets and print the standings.

    Give bots as NAME=COMMAND (e.g. 'mine=python3 my_bot.py', 'h=sample:heuristic') or with --bots FILE.
    Each set deals the same cards once under every seat rotation, each game with freshly started bots.
    Ctrl-C stops cleanly and prints the standings so far; --resume --out DIR continues.
    """
    if sets is not None and until_ci is not None:
        raise click.UsageError("give --sets N or --until-ci WIDTH, not both")
    executor = _executor(settings)
    try:
        entrants = [parse_bot_argument(a) for a in bot_arguments]
        if bots_file is not None:
            entrants += parse_bots_file(bots_file)
    except PlanError as error:
        raise click.UsageError(str(error)) from None
    if resume and out_dir is None:
        raise click.UsageError("--resume needs --out DIR: the folder of the tournament to continue")
    if resume and not entrants:
        raise click.UsageError(
            f"--resume: give the same bots and options as the stopped run (they are in {out_dir}/tournament.json)"
        )
    if seed is None:
        stored = _stored_seed(out_dir) if resume else None
        seed = new_seed() if stored is None else stored
    _warn_short(seed, as_json)
    config = _config(entrants, seed=seed, format=format_, candidate=candidate, **settings)
    out_dir = out_dir or _new_out_dir("tournament")
    stop = StopRule(sets=10 if sets is None and until_ci is None else sets, until_ci=until_ci, max_sets=max_sets)
    plan = config.plan
    target = stop.target(plan)
    if not as_json:
        rounded = f" (rounded up to whole rounds of {plan.round_length})" if sets and target != sets else ""
        click.echo(
            f"{config.ruleset.describe()}\n{format_} of {len(entrants)} bots, "
            + (f"{target} sets{rounded}" if until_ci is None else f"until every interval < {until_ci}")
            + f", seed {seed}, results in {out_dir}",
            err=True,
        )
    line = ProgressLine(sys.stderr, as_json, capped=until_ci is not None)
    result = _run(
        config,
        out_dir,
        stop,
        jobs=jobs or _default_jobs(),
        pin=cpu_pinning,
        resume=resume,
        progress=line,
        executor=executor,
    )
    line.end()
    write_reports(result)
    if as_json:
        click.echo(json.dumps(result_json(result)))
    else:
        click.echo(format_standings(result))
    if result.status != "complete":
        sys.exit(130)


# --- kierki sprt ----------------------------------------------------------------------------------------------


@click.command()
@click.option("--new", "new_command", required=True, metavar="CMD", help="The new version's command.")
@click.option("--old", "old_command", required=True, metavar="CMD", help="The old version's command.")
@click.option(
    "--field",
    "field_commands",
    multiple=True,
    metavar="CMD",
    help="A bot of the field; repeat for several [default: sample:heuristic and sample:random].",
)
@click.option("--alpha", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.05, show_default=True)
@click.option("--beta", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.05, show_default=True)
@click.option("--d0", type=float, default=0.0, show_default=True, help="H0: new - old, points per game.")
@click.option("--d1", type=float, default=1.0, show_default=True, help="H1: new - old, points per game.")
@click.option("--max-pairs", type=click.IntRange(1), default=200, show_default=True, help="Stop undecided after this.")
@common_options
def sprt(
    new_command: str,
    old_command: str,
    field_commands: tuple[str, ...],
    alpha: float,
    beta: float,
    d0: float,
    d1: float,
    max_pairs: int,
    seed: str | None,
    out_dir: Path | None,
    resume: bool,
    jobs: int | None,
    cpu_pinning: bool,
    as_json: bool,
    **settings: Any,
) -> None:
    """Is the new version better than the old? A sequential probability ratio test on paired sets.

    New and old play the same deals from the same seat against the same field; each pair of sets gives one
    difference in score per game (positive: new is better). The test stops when the log-likelihood ratio leaves
    its bounds: H1 (new better by d1) or H0 (not better than d0).
    """
    executor = _executor(settings)
    try:
        test = SPRT(alpha=alpha, beta=beta, d0=d0, d1=d1)
    except SprtError as error:
        raise click.UsageError(str(error)) from None
    fields = field_commands or ("sample:heuristic", "sample:random")
    entrants = [Entrant("new", new_command), Entrant("old", old_command)]
    entrants += [Entrant(f"field{i}", command) for i, command in enumerate(fields, 1)]
    if resume and out_dir is None:
        raise click.UsageError("--resume needs --out DIR: the folder of the test to continue")
    if seed is None:
        stored = _stored_seed(out_dir) if resume else None
        seed = new_seed() if stored is None else stored
    _warn_short(seed, as_json)
    config = _config(entrants, seed=seed, format="paired", candidate="new", baseline="old", **settings)
    out_dir = out_dir or _new_out_dir("sprt")
    err = sys.stderr
    quiet = as_json
    if not quiet:
        click.echo(
            f"{config.ruleset.describe()}\nSPRT H0: new - old <= {d0}, H1: >= {d1} points per game; "
            f"alpha {alpha}, beta {beta}; bounds {test.lower:.3f} .. {test.upper:.3f}; seed {seed}; {out_dir}",
            err=True,
        )
    by_id: dict[int, SetRecord] = {}
    fed = 0

    def stop_when(records: list[SetRecord]) -> bool:
        nonlocal fed
        for record in records:
            by_id.setdefault(record.set_id, record)
        # Pairs in order, so a resumed or parallel run feeds the test exactly as a serial one.
        while 2 * fed + 2 in by_id and 2 * fed + 1 in by_id and test.decision is None and fed < max_pairs:
            difference = paired_difference(by_id[2 * fed + 1], by_id[2 * fed + 2], "new", "old")
            test.add(difference)
            fed += 1
            if not quiet:
                err.write(f"{test.describe()}  (last pair {difference:+.2f})\n")
                err.flush()
        return test.decision is not None or fed >= max_pairs

    result = _run(
        config,
        out_dir,
        StopRule(sets=2 * max_pairs),
        jobs=jobs or _default_jobs(),
        pin=cpu_pinning,
        resume=resume,
        stop_when=stop_when,
        executor=executor,
    )
    stop_when(result.records)
    decision = test.decision
    summary = {
        "decision": decision,
        "pairs": test.n,
        "mean": test.mean if test.n else None,
        "llr": test.llr if math.isfinite(test.llr) else str(test.llr),
        "lower": test.lower,
        "upper": test.upper,
        "status": result.status,
        "seed": seed,
        "out_dir": str(out_dir),
    }
    if as_json:
        click.echo(json.dumps(summary))
    else:
        undecided = "" if decision else f": no decision after {test.n} pair(s)"
        click.echo(f"{test.describe()}{undecided}; results in {printable(str(out_dir))}")
    if result.status != "complete" and decision is None and test.n < max_pairs:
        sys.exit(130)
