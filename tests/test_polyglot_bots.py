"""Full matches of every game with the starter bots in JavaScript, C and Perl at every seat.

"Write your bot in any language" is checked here end to end: each non-Python starter bot plays one whole game of
each game through the real referee (subprocesses, pipes, deadlines), with no fault of any kind.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from referee.bots.seat import TimeControl
from referee.match import BotSpec, MatchConfig, run_match
from referee.rules import Ruleset

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_bots"

# game, players, options. Kierki always plays its 12 (11) deals and Hearts to 100 is quick; a lower target keeps
# Cancellation Hearts (whose long play requests Perl's pure-Perl JSON::PP parses slowly) to a few deals.
GAMES: list[tuple[str, int | None, dict[str, str]]] = [
    ("kierki", None, {}),
    ("kierki3", None, {}),
    ("hearts", None, {}),
    ("cancellation", 6, {"target": "60"}),
]
NAMES = {"js": "starter-js", "c": "starter-c", "perl": "starter-perl"}


def build_c_bot(out_dir: Path) -> Path:
    """Compile sample_bots/c/bot.c with cc as README says; skip when cc or cJSON's headers are missing."""
    cc = shutil.which("cc")
    if cc is None:
        pytest.skip("no C compiler (cc) on this machine; .ci/run installs what CI needs")
    probe = out_dir / "probe.c"
    probe.write_text("#include <cjson/cJSON.h>\nint main(void) { return cJSON_Version() == 0; }\n")
    found = subprocess.run([cc, "-o", str(out_dir / "probe"), str(probe), "-lcjson"], capture_output=True, text=True)
    if found.returncode != 0:
        pytest.skip(f"cJSON is not installed (Debian: apt-get install libcjson-dev): {found.stderr.strip()[:200]}")
    binary = out_dir / "bot"
    built = subprocess.run(
        [cc, "-O2", "-o", str(binary), str(SAMPLES / "c" / "bot.c"), "-lcjson"], capture_output=True, text=True
    )
    assert built.returncode == 0, built.stderr
    return binary


@pytest.fixture(scope="module")
def c_binary(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_c_bot(tmp_path_factory.mktemp("c_bot"))


def command(language: str, c_binary: Path | None) -> tuple[str, ...]:
    if language == "c":
        assert c_binary is not None
        return (str(c_binary),)
    program = {"js": "node", "perl": "perl"}[language]
    found = shutil.which(program)
    if found is None:
        pytest.skip(f"{program} is not installed; the {language} starter bot cannot run here")
    script = {"js": SAMPLES / "js" / "bot.js", "perl": SAMPLES / "perl" / "bot.pl"}[language]
    return (found, str(script))


@pytest.mark.parametrize("language", ["js", "c", "perl"])
@pytest.mark.parametrize(("game", "players", "options"), GAMES, ids=[g[0] for g in GAMES])
def test_full_game_with_starter_bot_in_every_seat(
    language: str,
    game: str,
    players: int | None,
    options: dict[str, str],
    tmp_path: Path,
    request: pytest.FixtureRequest,
) -> None:
    binary = request.getfixturevalue("c_binary") if language == "c" else None
    argv = command(language, binary)
    ruleset = Ruleset.create(game, players, options)
    config = MatchConfig(
        ruleset=ruleset,
        bots=tuple(BotSpec(argv, ROOT) for _ in range(ruleset.players)),
        out_dir=tmp_path / "out",
        seed=11,
        games=1,
        time=TimeControl(move_ms=2000, startup_ms=10_000),
    )
    result = run_match(config)
    assert result.status == "complete"
    assert result.games_played == 1
    for seat in result.seats:
        assert seat.name == NAMES[language]
        assert seat.faults == {} and seat.strikes == 0, (seat.seat, seat.faults)
        assert seat.forfeited_in_game is None
        assert seat.decisions > 0
        assert len(seat.places) == 1
    replay = Path(result.replays[0]).read_text().splitlines()
    assert '"status":"complete"' in replay[-1]
    for log in (tmp_path / "out").glob("seat*.stderr.log"):
        assert "Traceback" not in log.read_text()
