"""What a tournament plays: its bots, its format, and the duplicate sets expanded from them.

A *duplicate set* is one deal seed played once under each seat rotation of a table of bots; every game of the set
deals the same cards to the same seat, so over a set each bot holds every seat's cards once (``cyclic``) or in every
ordering (``all``). Sets are the independent units of the statistics; the games inside a set are not.

The plan is a pure function of the tournament's configuration and seed: the same seed gives the same tables and the
same deal seeds, so a stopped tournament resumes where it stopped and a parallel run plays what a serial one plays.
"""

from __future__ import annotations

import itertools
import random
import tomllib
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from math import gcd
from pathlib import Path
from typing import Literal

import msgspec

from competition.names import name_problem, same_name_groups
from competition.seeds import set_seed, text_key
from referee.api import PartialTimeControl

Format = Literal["round-robin", "gauntlet", "paired"]
FORMATS: tuple[Format, ...] = ("round-robin", "gauntlet")
Rotations = Literal["cyclic", "all"]
ROTATIONS: tuple[Rotations, ...] = ("cyclic", "all")


class PlanError(ValueError):
    """A tournament that cannot be planned: bad bot names, an unknown candidate, a malformed bots file."""


class Entrant(msgspec.Struct, frozen=True):
    """One bot of the tournament: a unique name and how to start it; in a stored tournament.json, one of
    ``bots``: every field by its name, ``owner`` only when set (a stopped run's stored configuration stays the
    same as before owners existed)."""

    name: str
    command: str  # a shell-quoted command line, or sample:NAME
    cwd: str | None = None
    env: tuple[tuple[str, str], ...] = ()
    time: PartialTimeControl = msgspec.field(default_factory=PartialTimeControl)
    owner: str | msgspec.UnsetType = msgspec.UNSET  # who registered it (a bots file's ``owner``): sandboxed if several


def check_name(name: str) -> str:
    problem = name_problem(name)
    if problem is not None:
        raise PlanError(f"bot name {name!r}: {problem} (it names the bot in every table)")
    return name


def parse_bot_argument(argument: str) -> Entrant:
    """``NAME=COMMAND``, e.g. ``smart=python3 smart.py`` or ``h=sample:heuristic``."""
    name, sep, command = argument.partition("=")
    if not sep or not command.strip():
        raise PlanError(f"bot {argument!r}: write NAME=COMMAND, e.g. 'mine=python3 my_bot.py'")
    return Entrant(check_name(name.strip()), command.strip())


def parse_bots_file(path: Path) -> list[Entrant]:
    """A TOML file with one ``[[bot]]`` table per bot: name, command, and optionally cwd, env, time and owner.

    ``cwd`` is relative to the file's folder; ``env`` is a table of strings; ``time`` a table with any of
    move_ms, startup_ms, bank_ms, increment_ms; ``owner`` names who registered the bot (see ``owners``).
    """
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, UnicodeDecodeError) as error:
        raise PlanError(f"{path}: cannot read it: {error}") from None
    except tomllib.TOMLDecodeError as error:
        raise PlanError(f"{path}: not valid TOML: {error}") from None
    tables = data.get("bot")
    if not isinstance(tables, list) or not tables:
        raise PlanError(f"{path}: give each bot as a [[bot]] table with name and command")
    entrants = []
    for number, table in enumerate(tables, 1):
        where = f"{path}, bot {number}"
        unknown = set(table) - {"name", "command", "cwd", "env", "time", "owner"}
        if unknown:
            raise PlanError(
                f"{where}: unknown key(s) {', '.join(sorted(unknown))}; use name, command, cwd, env, time, owner"
            )
        owner = table.get("owner")
        if owner is not None and (not isinstance(owner, str) or not owner.strip()):
            raise PlanError(f'{where}: owner must be a name, e.g. owner = "alice"')
        name, command = table.get("name"), table.get("command")
        if not isinstance(name, str) or not isinstance(command, str) or not command.strip():
            raise PlanError(f"{where}: name and command must both be given as strings")
        cwd = table.get("cwd")
        if cwd is not None and not isinstance(cwd, str):
            raise PlanError(f"{where}: cwd must be a string (a folder, relative to the bots file)")
        folder = (path.parent / cwd).resolve() if cwd is not None else None
        if folder is not None and not folder.is_dir():
            raise PlanError(
                f"{where}: cwd {cwd!r} is not a folder ({folder}; a relative cwd is read from the bots file's folder)"
            )
        env = table.get("env", {})
        if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
            raise PlanError(f'{where}: env must be a table of strings, e.g. env = {{ OMP_NUM_THREADS = "1" }}')
        try:
            time = msgspec.convert(table.get("time", {}), PartialTimeControl)
        except msgspec.ValidationError as error:
            keys = ", ".join(sorted(PartialTimeControl.__struct_fields__))
            raise PlanError(f"{where}: time: {_at('time', error)} (time takes whole milliseconds for {keys})") from None
        entrants.append(
            Entrant(
                check_name(name),
                command.strip(),
                str(folder) if folder is not None else None,
                tuple(sorted(env.items())),
                time,
                owner.strip() if owner is not None else msgspec.UNSET,
            )
        )
    return entrants


def _at(key: str, error: msgspec.ValidationError) -> str:
    """msgspec's message with its path read from ``key`` (``... - at `$.move_ms``` -> ``... - at time.move_ms``)."""
    return str(error).replace("`$", f"`{key}")


def owners(entrants: Sequence[Entrant]) -> set[str]:
    """The owners a tournament's bots name. Two or more mean bots registered by different people, which the
    tournament runs under the strongest sandbox unless told otherwise (SECURITY.md)."""
    return {e.owner for e in entrants if isinstance(e.owner, str)}


def check_entrants(entrants: Sequence[Entrant]) -> None:
    names = [e.name for e in entrants]
    repeated = sorted(name for name, count in Counter(names).items() if count > 1)
    if repeated:
        raise PlanError(f"bot name(s) {', '.join(repeated)} given twice: every bot needs its own name")
    alike = same_name_groups(names)
    if alike:
        shown = "; ".join(" and ".join(group) for group in alike)
        raise PlanError(
            f"bot names {shown} differ only in case or in look-alike characters (0 O, 1 I l, m rn): "
            "rename one so that every table tells them apart"
        )
    if len(entrants) < 2:
        raise PlanError("a tournament needs at least two bots")


# --- seeds ----------------------------------------------------------------------------------------------------


def tournament_set_seed(tournament_seed: str, set_id: int) -> str:
    """The deal seed of a set: ``competition.seeds.set_seed`` under the tournament's seed's key."""
    return set_seed(text_key(tournament_seed), set_id)


# --- tables and rotations -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PlannedSet:
    set_id: int  # 1-based
    seed: str
    table: tuple[str, ...]  # bot names in the seat order of the set's first game
    rotations: tuple[tuple[int, ...], ...]  # per game: which table position sits at each seat

    def seats(self, game_index: int) -> tuple[str, ...]:
        return tuple(self.table[i] for i in self.rotations[game_index])


def rotations(players: int, kind: Rotations) -> tuple[tuple[int, ...], ...]:
    """Per game, the table position at each seat: ``cyclic`` shifts everyone one seat per game; ``all`` every order."""
    if kind == "cyclic":
        return tuple(tuple((seat - shift) % players for seat in range(players)) for shift in range(players))
    return tuple(itertools.permutations(range(players)))


def set_rotations(table: Sequence[str], kind: Rotations) -> tuple[tuple[int, ...], ...]:
    """The rotations of one table; orderings that put the same bots in the same seats are played once."""
    unique: dict[tuple[str, ...], tuple[int, ...]] = {}
    for rotation in rotations(len(table), kind):
        unique.setdefault(tuple(table[i] for i in rotation), rotation)
    return tuple(unique.values())


class TableDraw:
    """Tables for a field larger than the seats left for it, drawn in rounds.

    In each round every field bot plays the same number of sets; inside a round a table is filled one bot at a
    time with the bot that has met the bots already seated least often so far (ties drawn at random), and of
    several such rounds the one that leaves the pair counts most even is kept.
    """

    ATTEMPTS = 8
    SWAPS = 1500

    def __init__(self, field: Sequence[str], seats: int, rng: random.Random) -> None:
        self.field = list(field)
        self.seats = seats
        self.rng = rng
        self.pairs: Counter[frozenset[str]] = Counter()
        k = len(self.field)
        self.round_tables = k // gcd(k, seats)
        self.per_round = self.round_tables * seats // k  # sets each bot plays per round

    def rounds(self) -> Iterator[list[tuple[str, ...]]]:
        while True:
            best: tuple[tuple[int, int], list[list[str]]] | None = None
            for _ in range(self.ATTEMPTS):
                tables = self._improve(self._deal())
                score = self._score(tables)
                if best is None or score < best[0]:
                    best = (score, tables)
                if score[0] <= 1:
                    break
            assert best is not None
            chosen = [tuple(table) for table in best[1]]
            for table in chosen:
                self.pairs.update(_pairs(table))
            yield chosen

    def _deal(self) -> list[list[str]]:
        """A random round: each bot ``per_round`` times, never twice at one table."""
        while True:
            order = [b for b in self.field for _ in range(self.per_round)]
            self.rng.shuffle(order)
            tables = [order[i : i + self.seats] for i in range(0, len(order), self.seats)]
            if all(len(set(t)) == len(t) for t in tables):
                return tables

    def _improve(self, tables: list[list[str]]) -> list[list[str]]:
        """Swap bots between tables while the sum of squared pair counts does not grow (it is least when even)."""
        counts = self.pairs.copy()
        for table in tables:
            counts.update(_pairs(table))
        if len(tables) < 2:
            return tables
        for _ in range(self.SWAPS):
            t1, t2 = self.rng.sample(range(len(tables)), 2)
            i, j = self.rng.randrange(self.seats), self.rng.randrange(self.seats)
            a, b = tables[t1][i], tables[t2][j]
            if a in tables[t2] or b in tables[t1]:
                continue
            rest1 = [x for x in tables[t1] if x != a]
            rest2 = [x for x in tables[t2] if x != b]
            delta = 0
            for moved, leaving, joining in ((a, rest1, rest2), (b, rest2, rest1)):
                for other in leaving:
                    delta += -2 * counts[frozenset((moved, other))] + 1
                for other in joining:
                    delta += 2 * counts[frozenset((moved, other))] + 1
            if delta <= 0:
                for other in rest1:
                    counts[frozenset((a, other))] -= 1
                    counts[frozenset((b, other))] += 1
                for other in rest2:
                    counts[frozenset((b, other))] -= 1
                    counts[frozenset((a, other))] += 1
                tables[t1][i], tables[t2][j] = b, a
        return tables

    def _score(self, tables: list[list[str]]) -> tuple[int, int]:
        counts = self.pairs.copy()
        for table in tables:
            counts.update(_pairs(table))
        values = [counts[frozenset(p)] for p in itertools.combinations(self.field, 2)]
        return max(values) - min(values), sum(v * v for v in values)


def _pairs(table: Sequence[str]) -> list[frozenset[str]]:
    return [frozenset(p) for p in itertools.combinations(sorted(set(table)), 2)]


@dataclass(frozen=True)
class Plan:
    """The tournament's sets, in order; ``sets(n)`` expands the first n (tables are drawn in whole rounds)."""

    format: Format
    bots: tuple[str, ...]
    players: int
    seed: str
    rotations: Rotations = "cyclic"
    candidate: str | None = None
    baseline: str | None = None  # paired: the bot that replays each of the candidate's sets in its place

    def __post_init__(self) -> None:
        if self.format == "paired":
            if self.candidate not in self.bots or self.baseline not in self.bots or self.candidate == self.baseline:
                raise PlanError("a paired plan needs a candidate and a different baseline, both among the bots")
        elif self.format == "gauntlet":
            if self.candidate is None:
                raise PlanError("a gauntlet needs --candidate NAME: the bot that plays against the field")
            if self.candidate not in self.bots:
                raise PlanError(f"--candidate {self.candidate!r} is not one of the bots ({', '.join(self.bots)})")
        elif self.candidate is not None:
            raise PlanError("--candidate is for the gauntlet format (--format gauntlet)")

    @property
    def round_length(self) -> int:
        """Sets after which every bot has played equally often (a requested count is rounded up to a multiple)."""
        fixed, field = self._split()
        left = self.players - len(fixed)
        length = 1 if len(field) == left else len(field) // gcd(len(field), left)
        return 2 * length if self.format == "paired" else length

    def _split(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        if self.format != "round-robin":
            assert self.candidate is not None
            return (self.candidate,), tuple(b for b in self.bots if b not in (self.candidate, self.baseline))
        return (), self.bots

    def sets(self, count: int) -> list[PlannedSet]:
        return list(itertools.islice(self.iter_sets(), count))

    def iter_sets(self) -> Iterator[PlannedSet]:
        rng = random.Random(tournament_set_seed(self.seed, 0))  # set 0 is never played: its seed draws the tables
        fixed, field = self._split()
        left = self.players - len(fixed)
        set_id = 0
        for tables in self._field_tables(field, left, rng):
            for chosen in tables:
                set_id += 1
                table = list(fixed + chosen)
                rng.shuffle(table)  # who sits next to whom (who passes to whom) varies from set to set
                if self.format != "paired":
                    yield PlannedSet(
                        set_id,
                        tournament_set_seed(self.seed, set_id),
                        tuple(table),
                        set_rotations(table, self.rotations),
                    )
                    continue
                # Sets 2p-1 and 2p: the same deals, the baseline in exactly the candidate's place.
                seed = tournament_set_seed(self.seed, (set_id + 1) // 2)
                yield PlannedSet(set_id, seed, tuple(table), set_rotations(table, self.rotations))
                set_id += 1
                assert self.baseline is not None
                swapped = tuple(self.baseline if b == self.candidate else b for b in table)
                yield PlannedSet(set_id, seed, swapped, set_rotations(table, self.rotations))

    @staticmethod
    def _field_tables(field: tuple[str, ...], seats: int, rng: random.Random) -> Iterator[list[tuple[str, ...]]]:
        if len(field) <= seats:
            # The whole field at every table; with fewer bots than seats some fill two (or more) seats, and who
            # gets the extra seats moves on by one bot per set.
            shift = 0
            while True:
                batch = []
                for _ in range(len(field) // gcd(len(field), seats) if len(field) < seats else 1):
                    batch.append(tuple(field[(shift + i) % len(field)] for i in range(seats)))
                    shift += 1
                yield batch
        else:
            yield from TableDraw(field, seats, rng).rounds()


def round_up(count: int, multiple: int) -> int:
    return -(-count // multiple) * multiple
