"""A tournament's configuration and its stopping rule, and the file that keeps them: ``OUT/tournament.json``.

`TournamentConfig` and `StopRule` are frozen msgspec Structs whose fields are the file's, with their constraints
declared on the types; msgspec encodes them and decodes a stored file (a `TournamentError` saying what is wrong and
where, ``Expected `int` >= 1 - at `$.max_strikes```). The file is written as it always was (``json.dumps`` with an
indent of two, keys in field order, the stopping rule as ``stop``), so a folder made by an older kierki resumes
and one made by this kierki is read by an older one. `prepare_out_dir` makes the folder, or on ``--resume`` checks
that the configuration given is the one stored.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any, Final

import msgspec
from msgspec import Meta

from competition.plan import Entrant, Format, Plan, Rotations, round_up
from referee.api import (
    AnalysisSettings,
    BotSpec,
    FairPlayMode,
    FaultPolicy,
    Isolation,
    Limits,
    MatchSetupError,
    MatchSpec,
    RulesetSpec,
    SandboxKind,
    TimeControl,
    decode_plain,
    encode_plain,
    make_out_dir,
)
from referee.rules import Ruleset

__all__ = [
    "CONFIG_VERSION",
    "StopRule",
    "TournamentConfig",
    "TournamentError",
    "prepare_out_dir",
    "stored_config",
    "stored_stop",
]

CONFIG_VERSION = 1


class TournamentError(RuntimeError):
    """The tournament cannot run or resume: a folder that holds another tournament, a game that cannot be set up."""


class TournamentConfig(msgspec.Struct, frozen=True, kw_only=True, tag_field="version", tag=CONFIG_VERSION):
    """Everything that decides what a tournament plays; stored in ``OUT/tournament.json`` and checked on resume.

    Its fields are the file's, in the file's order (``version``, its tag, first): the rules as ``game``,
    ``players`` and ``options``, the bots as ``bots``, and the `Isolation`'s fields side by side; made from a
    `Ruleset` and an `Isolation` by `TournamentConfig.of`, which give them back as ``ruleset`` and
    ``isolation``. A field added after a file was written is UNSET when it is its default, and so left out, so
    that a tournament stored before it still resumes as the same one (its stored configuration must compare equal).
    """

    game: str
    players: int
    options: dict[str, Any]
    seed: str
    format: Format = "round-robin"
    candidate: str | None = None
    baseline: str | None = None  # the paired format (kierki sprt): the old version, in the candidate's place
    rotations: Rotations = "cyclic"
    entrants: tuple[Entrant, ...] = msgspec.field(name="bots")
    time: TimeControl = msgspec.field(default_factory=TimeControl)
    max_strikes: Annotated[int, Meta(ge=1)] = 3
    # The isolation (`Isolation`, each field by its name): the first four always, the later ones when not default.
    limits: Limits = msgspec.field(default_factory=Limits)
    sandbox: SandboxKind = "none"
    bot_env: tuple[tuple[str, str], ...] = ()
    bot_ro: tuple[Path, ...] = ()
    fair_play: FairPlayMode | msgspec.UnsetType = msgspec.UNSET
    freeze: bool | msgspec.UnsetType = msgspec.UNSET
    drop_after: Annotated[int, Meta(ge=1)] = 3
    # --analyse: each game analysed in its worker once played (UNSET: not analysed; see `analysed`)
    analysis: AnalysisSettings | msgspec.UnsetType = msgspec.UNSET

    def __post_init__(self) -> None:
        """The rules and the isolation check themselves (a `SettingError`, a `RulesetError`: ValueErrors, which
        msgspec reports with the path of the file it decodes)."""
        self.ruleset  # noqa: B018
        self.isolation  # noqa: B018

    @classmethod
    def of(
        cls,
        entrants: Sequence[Entrant],
        ruleset: Ruleset,
        seed: str,
        *,
        format: Format = "round-robin",
        candidate: str | None = None,
        baseline: str | None = None,
        rotations: Rotations = "cyclic",
        time: TimeControl | None = None,
        max_strikes: int = 3,
        isolation: Isolation | None = None,
        drop_after: int = 3,
        analysis: AnalysisSettings | None = None,
    ) -> TournamentConfig:
        """A tournament of ``entrants`` under ``ruleset``, its clock ``time`` and its ``isolation``."""
        isolation = isolation or Isolation()
        shown = {name: getattr(isolation, name) for name in Isolation.__struct_fields__}
        for name in _ISOLATION_ADDED:
            if shown[name] == getattr(_DEFAULT_ISOLATION, name):
                shown[name] = msgspec.UNSET
        options = msgspec.json.decode(msgspec.json.encode(ruleset.options()))  # as the file holds them (lists)
        return cls(
            game=ruleset.game.value,
            players=ruleset.players,
            options=options,
            seed=seed,
            format=format,
            candidate=candidate,
            baseline=baseline,
            rotations=rotations,
            entrants=tuple(entrants),
            time=time or TimeControl(),
            max_strikes=max_strikes,
            **shown,
            drop_after=drop_after,
            analysis=msgspec.UNSET if analysis is None else analysis,
        )

    @property
    def ruleset(self) -> Ruleset:
        return Ruleset.create(self.game, self.players, self.options)

    @property
    def isolation(self) -> Isolation:
        given = {name: getattr(self, name) for name in Isolation.__struct_fields__}
        return Isolation(**{name: value for name, value in given.items() if value is not msgspec.UNSET})

    @property
    def analysed(self) -> AnalysisSettings | None:
        """How each game is analysed (None: not analysed)."""
        return None if isinstance(self.analysis, msgspec.UnsetType) else self.analysis

    @property
    def plan(self) -> Plan:
        names = tuple(e.name for e in self.entrants)
        return Plan(self.format, names, self.players, self.seed, self.rotations, self.candidate, self.baseline)

    @property
    def higher_is_better(self) -> bool:
        return self.ruleset.game.higher_is_better

    @property
    def match(self) -> MatchSpec:
        """How every game is played (`competition.duplicate_set.SetRequest` fills in its bots and seed)."""
        faults = FaultPolicy(max_strikes=self.max_strikes)
        return MatchSpec(rules=RulesetSpec.of(self.ruleset), time=self.time, faults=faults, isolation=self.isolation)

    def bot_spec(self, entrant: Entrant) -> BotSpec:
        """How to start the entrant (a `MatchSetupError` for a command that cannot be read)."""
        spec = BotSpec.parse(entrant.command)
        time = self.time.over(entrant.time) if entrant.time.given() else None
        return BotSpec(spec.argv, Path(entrant.cwd) if entrant.cwd else spec.cwd, entrant.env, time, entrant.name)


# The isolation's fields added after tournament.json first held "limits", "sandbox", "bot_env" and "bot_ro".
_ISOLATION_ADDED: Final = ("fair_play", "freeze")
_DEFAULT_ISOLATION: Final = Isolation()


def _as_json(value: msgspec.Struct) -> dict[str, Any]:
    """As the JSON objects tournament.json holds (paths as text)."""
    data: dict[str, Any] = msgspec.json.decode(msgspec.json.encode(value, enc_hook=encode_plain))
    return data


def _stored_json(out_dir: Path) -> Any:
    """What ``out_dir/tournament.json`` holds, for a resume."""
    path = out_dir / "tournament.json"
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        raise TournamentError(f"{out_dir} holds no tournament to resume (no tournament.json)") from None
    except (OSError, ValueError) as error:
        raise TournamentError(f"cannot read {path}: {error}") from None


def stored_config(out_dir: Path) -> TournamentConfig:
    """The configuration of the tournament in ``out_dir`` (its ``tournament.json``)."""
    data = _stored_json(out_dir)
    if not isinstance(data, dict):
        raise TournamentError(f"{out_dir / 'tournament.json'} holds no tournament configuration")
    if data.get("version") != CONFIG_VERSION:
        found = data.get("version")
        reads = f"this kierki reads {CONFIG_VERSION}"
        raise TournamentError(f"the stored configuration cannot be read: version {found!r}, {reads}")
    try:
        return msgspec.convert(data, TournamentConfig, dec_hook=decode_plain)
    except msgspec.ValidationError as error:
        raise TournamentError(f"the stored configuration cannot be read: {error}") from None


class StopRule(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``sets``: play that many (rounded up to whole rounds); ``until_ci``: until every bot's 95% interval is
    narrower than this many points per game (at most ``max_sets`` sets). Stored as tournament.json's ``stop``."""

    sets: Annotated[int, Meta(ge=1)] | None = None
    until_ci: Annotated[float, Meta(gt=0)] | None = None
    max_sets: Annotated[int, Meta(ge=1)] = 1000

    def __post_init__(self) -> None:
        if (self.sets is None) == (self.until_ci is None):
            raise ValueError("give one of sets and until_ci, not both or neither")

    def target(self, plan: Plan) -> int:
        count = self.sets if self.sets is not None else self.max_sets
        return round_up(count, plan.round_length)

    def describe(self) -> str:
        """As the options that give it: ``--sets 8``, ``--until-ci 2.5 --max-sets 1000``."""
        if self.until_ci is not None:
            return f"--until-ci {self.until_ci:g} --max-sets {self.max_sets}"
        return f"--sets {self.sets}"


def stored_stop(out_dir: Path) -> StopRule | None:
    """The stopping rule stored with the tournament in ``out_dir`` (None: stored by a kierki that kept none)."""
    data = _stored_json(out_dir)
    if not isinstance(data, dict):
        raise TournamentError(f"{out_dir / 'tournament.json'} holds no tournament configuration")
    if "stop" not in data:
        return None
    try:
        return msgspec.convert(data["stop"], StopRule)
    except msgspec.ValidationError as error:
        raise TournamentError(f"the stored stopping rule cannot be read: {error}") from None


def _write_json_atomic(path: Path, data: dict[str, Any]) -> None:
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(json.dumps(data, indent=2) + "\n")
    os.replace(temporary, path)


def prepare_out_dir(config: TournamentConfig, out_dir: Path, *, resume: bool, stop: StopRule | None = None) -> None:
    """Create the folder and store the configuration with the stopping rule, or on resume check that the
    configuration is the same and store the rule this run plays by (the caller has said if it changed)."""
    stored_path = out_dir / "tournament.json"
    if resume:
        stored = _stored_json(out_dir)
        if not isinstance(stored, dict):
            raise TournamentError(f"{stored_path} holds no tournament configuration")
        stored_rule = stored.pop("stop", None)
        current = _as_json(config)
        if stored != current:
            different = sorted(k for k in set(stored) | set(current) if stored.get(k) != current.get(k))
            raise TournamentError(
                f"--resume: the configuration differs from the one in {stored_path} "
                f"({', '.join(different)}); give the same bots and options (and --seed {stored.get('seed')})"
            )
        if stop is not None and _as_json(stop) != stored_rule:
            _write_json_atomic(stored_path, {**stored, "stop": _as_json(stop)})
    else:
        if stored_path.exists():
            raise TournamentError(
                f"{out_dir} already holds a tournament: continue it with --resume, or choose another --out"
            )
        try:
            make_out_dir(out_dir)
        except MatchSetupError as error:
            raise TournamentError(str(error)) from None
        _write_json_atomic(stored_path, {**_as_json(config), **({"stop": _as_json(stop)} if stop else {})})
    (out_dir / "sets").mkdir(exist_ok=True)
    (out_dir / "work").mkdir(exist_ok=True)
