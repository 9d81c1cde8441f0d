"""Full matches of every game with the starter bots in JavaScript, C and Perl at every seat.

"Write your bot in any language" is checked here end to end: each non-Python starter bot plays one whole game of
each game through the real referee (subprocesses, pipes, deadlines), with no fault of any kind.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from bot_helpers import script_bot

from referee.bots.time_control import TimeControl
from referee.match import run_match
from referee.match_config import BotSpec, MatchConfig, MatchSpec, RulesetSpec
from referee.rules import Ruleset

ROOT = Path(__file__).resolve().parent.parent

# game, players, options. Kierki always plays its 12 (11) deals and Hearts to 100 is quick; a lower target keeps
# Cancellation Hearts (whose long play requests Perl's pure-Perl JSON::PP parses slowly) to a few deals.
GAMES: list[tuple[str, int | None, dict[str, str]]] = [
    ("kierki", None, {}),
    ("kierki3", None, {}),
    ("hearts", None, {}),
    ("cancellation", 6, {"target": "60"}),
]
NAMES = {"js": "starter-js", "c": "starter-c", "perl": "starter-perl"}


def command(language: str, c_bot: Path | None) -> tuple[str, ...]:
    if language == "c":
        assert c_bot is not None
        return (str(c_bot),)
    return script_bot(language)


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
    binary = request.getfixturevalue("c_bot") if language == "c" else None
    argv = command(language, binary)
    ruleset = Ruleset.create(game, players, options)
    config = MatchConfig.from_spec(
        MatchSpec(
            rules=RulesetSpec.of(ruleset),
            bots=tuple(BotSpec(argv, ROOT) for _ in range(ruleset.players)),
            seed=str(11),
            games=1,
            time=TimeControl(move_ms=2000, startup_ms=10_000),
        ),
        tmp_path / "out",
    )
    result = run_match(config)
    assert result.status == "complete"
    assert result.games == 1
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
