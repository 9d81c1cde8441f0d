"""tournament.json: the configuration and the stopping rule, decoded and encoded by msgspec from the types alone.

The files under tests/golden/tournament_json were written by the kierki before these were msgspec Structs (its
hand-written ``to_json``): a plain one, one with no stopping rule (as a kierki before stopping rules wrote), and one
with every field away from its default (owners, a bot's own clock, paths, fair play, an analysis, a seed that is not
ASCII). Each must read back and write again to the same bytes, so that either kierki resumes the other's folder.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import msgspec
import pytest

from competition.plan import Entrant
from competition.tournament_config import (
    StopRule,
    TournamentConfig,
    TournamentError,
    prepare_out_dir,
    stored_config,
    stored_stop,
)
from referee.bots.isolation import Isolation
from referee.bots.time_control import PartialTimeControl, TimeControl
from referee.rules import Ruleset

GOLDEN = Path(__file__).parent / "golden" / "tournament_json"
FILES = sorted(GOLDEN.glob("*.json"))


def _folder(tmp_path: Path, data: bytes) -> Path:
    out = tmp_path / "old"
    out.mkdir(parents=True)
    (out / "tournament.json").write_bytes(data)
    return out


@pytest.mark.parametrize("golden", FILES, ids=[path.stem for path in FILES])
def test_an_older_kierkis_tournament_json_reads_and_writes_back_to_the_same_bytes(tmp_path: Path, golden: Path) -> None:
    old = _folder(tmp_path, golden.read_bytes())
    config, stop = stored_config(old), stored_stop(old)
    assert (stop is None) == (golden.stem == "no_stop")
    new = tmp_path / "new"
    prepare_out_dir(config, new, resume=False, stop=stop)
    assert (new / "tournament.json").read_bytes() == golden.read_bytes()
    prepare_out_dir(config, old, resume=True, stop=stop)  # the same configuration: resumes, and nothing rewritten
    assert (old / "tournament.json").read_bytes() == golden.read_bytes()


def test_the_rich_file_reads_as_the_values_it_was_written_from(tmp_path: Path) -> None:
    folder = _folder(tmp_path, (GOLDEN / "rich.json").read_bytes())
    config = stored_config(folder)
    smart, zolw, plain = config.entrants
    assert smart.time == PartialTimeControl(move_ms=2500, bank_ms=0) and smart.owner == "alice"
    assert smart.env == (("OMP_NUM_THREADS", "1"), ("MODE", "fast")) and plain.owner is msgspec.UNSET
    assert config.ruleset.deal6_tricks == (6, 12) and config.seed == "zażółć gęślą jaźń"
    assert config.isolation.bot_ro == (Path("/usr/share/dict"),) and config.isolation.freeze is False
    assert config.analysed is not None and config.analysed.seats == (0, 2)
    own = config.bot_spec(smart).time
    assert own == TimeControl(move_ms=2500, startup_ms=9000, bank_ms=0, increment_ms=50)
    assert config.bot_spec(zolw).time is None  # no clock of its own: the match's
    assert stored_stop(folder) == StopRule(until_ci=2.5, max_sets=200)


def test_a_config_made_in_python_is_the_one_decoded_from_its_file(tmp_path: Path) -> None:
    config = TournamentConfig.of(
        entrants=(Entrant("a", "sample:random", time=PartialTimeControl(startup_ms=9)), Entrant("b", "sample:random")),
        ruleset=Ruleset.create("kierki", options={"deal6_tricks": "6,12"}),
        seed="1",
        isolation=Isolation(fair_play="none"),
    )
    prepare_out_dir(config, tmp_path / "out", resume=False, stop=StopRule(sets=2))
    assert stored_config(tmp_path / "out") == config
    stored = json.loads((tmp_path / "out" / "tournament.json").read_text())
    assert stored["fair_play"] == "none" and "freeze" not in stored and "analysis" not in stored


def _broken(tmp_path: Path, change: dict[str, object]) -> Path:
    data = json.loads((GOLDEN / "plain.json").read_text())
    data.update(change)
    shutil.rmtree(tmp_path / "old", ignore_errors=True)
    return _folder(tmp_path, json.dumps(data).encode())


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"max_strikes": 0}, r"cannot be read: Expected `int` >= 1 - at `\$\.max_strikes`$"),
        ({"drop_after": "3"}, r"cannot be read: Expected `int`, got `str` - at `\$\.drop_after`$"),
        ({"version": 2}, r"cannot be read: version 2, this kierki reads 1$"),
        ({"rotations": "some"}, r"cannot be read: Invalid enum value 'some' - at `\$\.rotations`$"),
        ({"time": {"move_ms": 0}}, r"cannot be read: Expected `int` >= 1 - at `\$\.time\.move_ms`$"),
        ({"limits": {"memory_mb": -1}}, r"cannot be read: Expected `int` >= 0 - at `\$\.limits\.memory_mb`$"),
        ({"sandbox": "jail"}, r"cannot be read: Invalid enum value 'jail' - at `\$\.sandbox`$"),
        ({"options": {"nope": 1}}, r"cannot be read: hearts has no option nope"),
    ],
)
def test_a_broken_tournament_json_says_what_is_wrong_and_where(
    tmp_path: Path, change: dict[str, object], message: str
) -> None:
    with pytest.raises(TournamentError, match=message):
        stored_config(_broken(tmp_path, change))


def test_a_bots_own_clock_out_of_bounds_is_named_by_its_path(tmp_path: Path) -> None:
    data = json.loads((GOLDEN / "plain.json").read_text())
    data["bots"][1]["time"] = {"startup_ms": 0}
    with pytest.raises(TournamentError, match=r"Expected `int` >= 1 - at `\$\.bots\[1\]\.time\.startup_ms`$"):
        stored_config(_folder(tmp_path, json.dumps(data).encode()))


@pytest.mark.parametrize(
    ("stop", "message"),
    [
        ({"sets": 0}, r"Expected `int` >= 1 - at `\$\.sets`$"),
        ({"sets": "many"}, r"Expected `int \| null`, got `str` - at `\$\.sets`$"),
        ({"until_ci": 0.0}, r"Expected `float` > 0\.0 - at `\$\.until_ci`$"),
        ({"sets": 3, "until_ci": 1.0}, r"give one of sets and until_ci, not both or neither$"),
        ({"max_sets": 5}, r"give one of sets and until_ci, not both or neither$"),
        ({"sets": 3, "rounds": 1}, r"Object contains unknown field `rounds`$"),
    ],
)
def test_a_broken_stopping_rule_says_what_is_wrong_and_where(tmp_path: Path, stop: object, message: str) -> None:
    with pytest.raises(TournamentError, match=r"^the stored stopping rule cannot be read: " + message):
        stored_stop(_broken(tmp_path, {"stop": stop}))


def test_every_isolation_setting_has_its_field_in_tournament_json() -> None:
    """A setting added to `Isolation` must be stored with a tournament (by its name), or a resume would lose it."""
    assert set(Isolation.__struct_fields__) <= set(TournamentConfig.__struct_fields__)
    assert TournamentConfig.of(entrants=(), ruleset=Ruleset.create("hearts"), seed="1").isolation == Isolation()
