"""One configuration (issue 21): the values that check themselves (referee/bots/isolation.py, the time control) and
the options declared once for every command (kierki_cli/shared_options.py)."""

from __future__ import annotations

import ast
import tomllib
from collections import Counter, defaultdict
from pathlib import Path

import click
import msgspec
import pytest
from click.testing import CliRunner

from competition.ladder.config import ConfigError, LadderConfig
from competition.plan import Entrant
from competition.tournament_config import TournamentConfig
from kierki_cli.main import cli
from kierki_cli.options import SharedOption
from referee.bots.isolation import Isolation
from referee.bots.sandbox import Limits
from referee.bots.time_control import PartialTimeControl, TimeControl
from referee.match_config import MatchSpec, RulesetSpec, decode_spec, encode_spec
from referee.rules import Ruleset
from referee.vocabulary.setting_error import SettingError

NOT_A_NAME = "a variable's name is letters, digits and _, not a digit first"


def test_an_isolation_checks_itself_whoever_makes_it() -> None:
    with pytest.raises(SettingError, match=r"^memory_mb = -1: must be at least 0$") as raised:
        Isolation(limits=Limits(memory_mb=-1))
    assert (raised.value.setting, raised.value.value) == ("memory_mb", -1)
    with pytest.raises(SettingError, match="sandbox = 'docker'"):
        Isolation(sandbox="docker")  # type: ignore[arg-type]
    with pytest.raises(SettingError, match=NOT_A_NAME):
        Isolation(bot_env=(("1X", "y"),))
    with pytest.raises(SettingError, match="fair_play = 'always': use one of auto, cgroup, none"):
        Isolation(fair_play="always")  # type: ignore[arg-type]
    with pytest.raises(SettingError, match="freeze = 'no': must be true or false"):
        Isolation(freeze="no")  # type: ignore[arg-type]
    assert Isolation(limits=Limits(disk_mb=5)).unapplied() == ("disk_mb",)
    assert Isolation(limits=Limits(disk_mb=5), sandbox="bwrap").unapplied() == ()


def test_the_command_line_and_ladder_toml_refuse_a_setting_with_the_same_check(tmp_path: Path) -> None:
    """One check, worded by each front end: the option on the command line, the key in ladder.toml."""
    given = CliRunner().invoke(cli, ["match", "--bot-env", "1X=y"])
    assert given.exit_code == 2 and "--bot-env" in given.output and NOT_A_NAME in given.output
    data = tomllib.loads(LadderConfig(game="hearts", players=4).to_toml())
    data["isolation"]["bot_env"] = {"1X": "y"}
    with pytest.raises(ConfigError, match=f"isolation.bot_env = '1X': {NOT_A_NAME}"):
        LadderConfig.from_dict(data)
    data = tomllib.loads(LadderConfig(game="hearts", players=4).to_toml())
    data["isolation"]["fair_play"] = "always"
    with pytest.raises(ConfigError, match=r"isolation\.fair_play = 'always': use one of auto, cgroup, none"):
        LadderConfig.from_dict(data)


def test_fair_play_is_part_of_the_isolation_wherever_it_is_kept(tmp_path: Path) -> None:
    """Issue 23 on issue 21's house: fair play's mode and freezing are two fields of the one `Isolation`, so the
    command line, ladder.toml, a tournament's stored configuration and the spec a worker gets all carry them."""
    ran = CliRunner().invoke(cli, ["match", "--fair-play", "none", "--no-freeze"])
    assert ran.exit_code == 2 and "--no-freeze applies to bots in control groups" in ran.output
    trusted = Isolation(limits=Limits(cpu_s=600), fair_play="cgroup", freeze=False)  # (as ladder.toml keeps it)
    config = LadderConfig(game="hearts", players=4, isolation=trusted)
    table = tomllib.loads(config.to_toml())["isolation"]
    assert (table["fair_play"], table["freeze"]) == ("cgroup", False)
    assert LadderConfig.from_dict(tomllib.loads(config.to_toml())).isolation == trusted
    # The ladder's games require control groups unless told "none" (auto would run strangers on the wall clock).
    assert LadderConfig(game="hearts", players=4).match(tmp_path).isolation.fair_play == "cgroup"
    none = LadderConfig(game="hearts", players=4, isolation=Isolation(fair_play="none"))
    assert none.match(tmp_path).isolation.fair_play == "none"
    hearts = Ruleset.create("hearts")
    stored = msgspec.to_builtins(TournamentConfig.of(entrants=(), ruleset=hearts, seed="1", isolation=trusted))
    assert (stored["fair_play"], stored["freeze"]) == ("cgroup", False)
    plain = msgspec.to_builtins(TournamentConfig.of(entrants=(), ruleset=Ruleset.create("hearts"), seed="1"))
    assert "fair_play" not in plain and "freeze" not in plain  # a tournament stored before fair play resumes
    spec = MatchSpec(rules=RulesetSpec.of(Ruleset.create("hearts")), isolation=trusted)
    assert decode_spec(encode_spec(spec), MatchSpec).isolation == trusted


def test_a_time_control_checks_itself_and_a_bots_own_one_is_refused_by_name() -> None:
    with pytest.raises(SettingError, match=r"^move_ms = 0: must be at least 1$"):
        TimeControl(move_ms=0)
    with pytest.raises(SettingError, match=r"^move_ms = 0: must be at least 1$"):
        PartialTimeControl(move_ms=0)  # a bot's own: the same bounds, declared once on the types
    config = TournamentConfig.of(entrants=(), ruleset=Ruleset.create("hearts"), seed="1")
    own = config.bot_spec(Entrant("slow", "sample:random", time=PartialTimeControl(move_ms=5000)))
    assert own.time == TimeControl(move_ms=5000)


def _command(*path: str) -> click.Command:
    command: click.Command = cli
    context = click.Context(cli)
    for word in path:
        assert isinstance(command, click.Group)
        found = command.get_command(context, word)
        assert found is not None, word
        command = found
    return command


def _option(path: tuple[str, ...], name: str) -> click.Option:
    (option,) = (p for p in _command(*path).params if isinstance(p, click.Option) and name in p.opts)
    return option


_SHARED_OPTIONS = (
    "--limit-memory",
    "--limit-cpu",
    "--limit-processes",
    "--limit-file",
    "--limit-disk",
    "--sandbox",
    "--bot-ro",
    "--bot-env",
    "--fair-play",
    "--no-freeze",
    "--time-per-move",
    "--startup-time",
    "--time-bank",
    "--increment",
)


def test_every_command_declares_the_isolation_and_time_options_alike() -> None:
    """One table of option definitions: the same type, default, metavar and help for every command that takes
    them (the ladder chooses only the sandbox's default and its words). Before, ``ladder init`` declared its own
    copies, and its ``--limit-cpu 0`` meant the referee's default where ``match``'s meant no limit."""

    def described(command: click.Command) -> dict[str, tuple[object, ...]]:
        options: dict[str, tuple[object, ...]] = {}
        for param in command.params:
            if isinstance(param, click.Option) and param.opts[0] in _SHARED_OPTIONS:
                default = None if param.opts[0] == "--sandbox" else param.default
                words = None if param.opts[0] == "--sandbox" else param.help
                options[param.opts[0]] = (param.type.to_info_dict(), default, param.metavar, param.multiple, words)
        return options

    commands = [("match",), ("tournament",), ("sprt",), ("check-bot",), ("ladder", "init")]
    seen = {path: described(_command(*path)) for path in commands}
    reference = seen[("match",)]
    assert sorted(reference) == sorted(_SHARED_OPTIONS)
    for path, options in seen.items():
        wanted = reference if path != ("check-bot",) else {k: v for k, v in reference.items() if k in options}
        assert options == wanted, path


@pytest.mark.parametrize("name", ["--game", "--players", "--option"])
def test_every_command_declares_the_rules_options_alike(name: str) -> None:
    """Before, --game/--players/--option were declared five times and their help had drifted apart. A command
    chooses only the default game (play: hearts; ladder init: required; check-bot: every game)."""
    commands = [("match",), ("play",), ("tournament",), ("sprt",), ("check-bot",), ("ladder", "init")]
    seen: dict[tuple[str, ...], str] = {}
    for path in commands:
        option = _option(path, name)
        help_text = (option.help or "").split("  [default")[0]  # check-bot says its default (every game) there
        seen[path] = repr((option.type.to_info_dict(), option.metavar, option.multiple, help_text))
    assert len(set(seen.values())) == 1, seen


# One word, two meanings: an option of one command that shares its name with another's, not its meaning.
_OWN_MEANING = {
    ("analyse", "--seed"): "the search's seed, a number (elsewhere the deals' seed, any text)",
    ("analyse", "--seat"): "the seats whose decisions are weighed, repeatable",
    ("replay", "--seat"): "the one seat whose view is shown",
    ("play", "--seat"): "the person's own seat",
    ("analyse", "--deal"): "the deals whose decisions are weighed, repeatable",
    ("replay", "--deal"): "the one deal shown",
}


def _every_option() -> dict[str, list[tuple[str, click.Option]]]:
    """Every visible option of every command, under each of its long names: (the command, the option)."""
    found: dict[str, list[tuple[str, click.Option]]] = defaultdict(list)
    context = click.Context(cli)

    def walk(command: click.Command, path: tuple[str, ...]) -> None:
        if isinstance(command, click.Group):
            for word in command.list_commands(context):
                sub = command.get_command(context, word)
                assert sub is not None
                walk(sub, (*path, word))
            return
        for param in command.params:
            if isinstance(param, click.Option) and not param.hidden:
                for name in (*param.opts, *param.secondary_opts):
                    if name.startswith("--") and name != "--help":
                        found[name].append((" ".join(path), param))

    walk(cli, ())
    return found


def _declarations(source: str) -> Counter[str]:
    """How many option declarations (``click.option(...)``, ``shared_option(...)``) name each option in ``source``."""
    counted: Counter[str] = Counter()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            called = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if called in ("option", "shared_option"):
                for arg in node.args:
                    if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and arg.value.startswith("--"):
                        counted.update(arg.value.split("/"))
    return counted


def test_an_option_of_several_commands_is_declared_once() -> None:
    """Issue 31: ``--seed`` was declared three times with three help texts, ``--out`` three, ``--jobs`` three. Now
    every option that several commands take comes from its one declaration (``shared_option``) with one help text,
    which a command's variant may only add to (its default); two commands declare a name apart only where it means
    two things (``_OWN_MEANING``)."""
    repeated = {name: uses for name, uses in _every_option().items() if len(uses) > 1}
    assert {"--seed", "--out", "--jobs", "--json", "--game", "--time-per-move", "--symbols"} <= repeated.keys()
    for name, uses in repeated.items():
        alike = [(path, option) for path, option in uses if (path, name) not in _OWN_MEANING]
        for path, option in alike if len(alike) > 1 else []:
            assert isinstance(option, SharedOption), f"kierki {path} {name}: declare it once, with shared_option"
            assert (option.help or "").startswith(option.base), f"kierki {path} {name}: a variant only adds"
        assert len({option.base for _, option in alike if isinstance(option, SharedOption)}) <= 1, name
    for path, name in _OWN_MEANING:
        (option,) = [option for where, option in _every_option()[name] if where == path]
        assert not isinstance(option, SharedOption), f"kierki {path} {name} is shared now: drop it from the list"
    sources = "\n".join(path.read_text() for path in sorted(Path(__file__).parents[1].glob("kierki_cli/*.py")))
    own = Counter(name for _, name in _OWN_MEANING)
    twice = {name: count for name, count in _declarations(sources).items() if count - own[name] > 1}
    assert twice == {}, "declared more than once (use the shared declaration)"


def test_a_second_declaration_is_found() -> None:
    source = 'click.option("--seed", help="a")\nshared_option("--seed", "--x/--no-x", text="b")\n'
    assert _declarations(source) == Counter({"--seed": 2, "--x": 1, "--no-x": 1})
