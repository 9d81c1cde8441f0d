"""Issue 32 item 3: ``wins`` and ``first_places`` count every game any seat of the bot won, and say so where a bot
fills several seats (a gauntlet's field against one candidate fills three seats of every table)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from click.testing import CliRunner

from kierki_cli.main import cli


def test_a_gauntlet_counts_a_win_for_the_field_bot_whenever_any_of_its_seats_is_first(tmp_path: Path) -> None:
    out = tmp_path / "out"
    args = ["tournament", "cand=sample:random", "base=sample:heuristic", "--format", "gauntlet", "--candidate"]
    args += ["cand", "--game", "hearts", "--option", "target=10", "--sets", "2", "--seed", "5", "--jobs", "2"]
    result = CliRunner().invoke(cli, [*args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    won: dict[str, int] = {"cand": 0, "base": 0}
    games = 0
    for line in (out / "results.jsonl").read_text().splitlines():
        record = json.loads(line)
        if "games" not in record:
            continue
        for game in record["games"]:
            games += 1
            assert game["seats"].count("base") == 3
            for bot in won:
                won[bot] += any(s == bot and p == 1 for s, p in zip(game["seats"], game["places"], strict=True))
    assert games == 8 and won["base"] > 0  # three heuristic seats against one random one win some games
    rows = {row["bot"]: row for row in json.loads((out / "standings.json").read_text())["bots"]}
    assert {bot: rows[bot]["first_places"] for bot in won} == won
    assert (rows["base"]["seats_per_game"], rows["cand"]["seats_per_game"]) == (3, 1)
    csv_rows = {row["bot"]: row for row in csv.DictReader(io.StringIO((out / "standings.csv").read_text()))}
    assert (csv_rows["base"]["first_places"], csv_rows["base"]["seats_per_game"]) == (str(won["base"]), "3")
    table = result.output
    lines = table.splitlines()
    header = next(line for line in lines if line.startswith("#  bot"))
    base_row = next(line for line in lines[lines.index(header) :] if line.split()[1] == "base")
    wins_at = header.index("wins") + len("wins")
    assert base_row[:wins_at].split()[-1] == str(won["base"])
    assert "wins of base: it filled up to 3 seats a game; a game counts once, won when any of its seats" in table
    assert "wins of cand" not in table
