"""ladder.toml: a file written by the kierki before its tables were msgspec Structs reads back and writes again to
the same bytes (tests/golden/ladder_toml: the defaults, and every setting away from its default), and a value out
of the bounds a table's type declares is refused in ladder.toml's words."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from competition.ladder.config import BotSettings, ConfigError, LadderConfig, RunSettings
from competition.ratings import RatingParams
from referee.vocabulary.setting_error import SettingError

GOLDEN = Path(__file__).parent / "golden" / "ladder_toml"
FILES = sorted(GOLDEN.glob("*.toml"))


@pytest.mark.parametrize("golden", FILES, ids=[path.stem for path in FILES])
def test_an_older_kierkis_ladder_toml_reads_and_writes_back_to_the_same_bytes(golden: Path) -> None:
    text = golden.read_text()
    assert LadderConfig.from_dict(tomllib.loads(text)).to_toml() == text


@pytest.mark.parametrize(
    ("section", "key", "value", "says"),
    [
        ("run", "jobs", 0, "run.jobs = 0: must be at least 1"),
        ("run", "sets_per_run", -1, "run.sets_per_run = -1: must be at least 0"),
        ("bots", "deactivate_after", 0, "bots.deactivate_after = 0: must be at least 1"),
        ("inbox", "max_files", 0, "inbox.max_files = 0: must be at least 1"),
        ("rating", "kappa", 0, "rating.kappa = 0.0: must be above 0"),
    ],
)
def test_a_value_out_of_its_tables_bounds_is_refused_by_its_key(
    section: str, key: str, value: object, says: str
) -> None:
    data = tomllib.loads((GOLDEN / "default.toml").read_text())
    data[section][key] = value
    with pytest.raises(ConfigError) as raised:
        LadderConfig.from_dict(data, "ladder.toml")
    assert str(raised.value) == f"ladder.toml: {says}"


def test_a_table_made_in_python_checks_the_same_bounds() -> None:
    with pytest.raises(SettingError, match=r"^plan_ahead = 0: must be at least 1$"):
        RunSettings(plan_ahead=0)
    with pytest.raises(SettingError, match=r"^max_strikes = 0: must be at least 1$"):
        BotSettings(max_strikes=0)
    with pytest.raises(SettingError, match=r"^tau = -1.0: must be 0 or more$"):
        RatingParams(tau=-1.0)
