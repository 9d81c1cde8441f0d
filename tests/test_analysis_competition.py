"""``kierki tournament --analyse``: each game analysed in the worker that played it (``competition.game.play_game``,
which the local pool and Dask's workers both run), each seat's figures in the game's record, each bot's mean loss a
decision in the standings (table, JSON, CSV). A tiny Hearts tournament with a small playout budget."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import msgspec
from click.testing import CliRunner

from competition.game import GameSpec
from competition.results_file import read_results
from kierki_cli.main import cli
from referee.analysis import AnalysisSettings
from referee.match_config import BotSpec, MatchSpec, RulesetSpec, decode_spec, encode_spec
from referee.rules import Ruleset


def test_a_game_spec_with_an_analysis_crosses_to_a_remote_worker_intact(tmp_path: Path) -> None:
    match = MatchSpec(rules=RulesetSpec.of(Ruleset.create("hearts", None, {"target": "10"})))
    spec = GameSpec(
        set_id=1,
        index=0,
        names=("a", "b", "c", "d"),
        match=_one_game(match),
        root=tmp_path,
        set_dir="sets/0001",
        analysis=AnalysisSettings(playouts=16, seed=3),
    )
    assert decode_spec(encode_spec(spec), GameSpec) == spec


def _one_game(match: MatchSpec) -> MatchSpec:
    bots = tuple(BotSpec.parse("sample:random") for _ in range(4))
    return msgspec.structs.replace(match, bots=bots, games=1)


def _tournament(out: Path, *extra: str) -> tuple[int, str, str]:
    arguments = ["tournament", "h=sample:heuristic", "r=sample:random", "--game", "hearts", "--option", "target=10"]
    arguments += ["--sets", "1", "--seed", "3", "--jobs", "1", "--out", str(out), *extra]
    result = CliRunner().invoke(cli, arguments)
    return result.exit_code, result.stdout, result.stderr


def test_tournament_analyse_puts_each_bots_mean_loss_in_the_standings(tmp_path: Path) -> None:
    code, out, err = _tournament(tmp_path, "--analyse", "--analyse-playouts", "16", "--json")
    assert code == 0, err
    standings = json.loads(out)["standings"]
    for bot in standings["bots"]:
        assert bot["analysed_decisions"] > 0 and bot["loss_per_decision"] is not None
    records, _ = read_results(tmp_path / "results.jsonl")
    games = [game for record in records for game in record.games]
    assert games and all(len(game.analysis) == len(game.seats) for game in games)
    decisions = sum(a.decisions for game in games for a in game.analysis if a is not None)
    assert decisions == sum(bot["analysed_decisions"] for bot in standings["bots"])
    # The largest losses name decisions of the game's replay log.
    for game in games:
        for seat in game.analysis:
            assert seat is not None
            for decision, loss, _ in seat.largest:
                assert decision >= 0 and loss > 0
    rows = list(csv.DictReader((tmp_path / "standings.csv").read_text().splitlines()))
    assert all(row["loss_per_decision"] for row in rows)
    stored = json.loads((tmp_path / "tournament.json").read_text())
    assert stored["analysis"]["playouts"] == 16


def test_without_analyse_nothing_is_analysed_and_the_table_is_unchanged(tmp_path: Path) -> None:
    code, out, err = _tournament(tmp_path)
    assert code == 0, err
    assert "loss/dec" not in out
    records, _ = read_results(tmp_path / "results.jsonl")
    assert all(game.analysis == () for record in records for game in record.games)
    assert "analysis" not in json.loads((tmp_path / "tournament.json").read_text())
    code, _, err = _tournament(tmp_path / "again", "--analyse-playouts", "8")
    assert code == 2 and "--analyse-playouts goes with --analyse" in err


def test_a_ladder_with_analysis_lists_each_bots_largest_losses_linking_their_decisions(tmp_path: Path) -> None:
    import dataclasses
    import re
    import sys

    import sample_bots
    from competition.ladder.config import AnalysisSection, BotSettings, LadderConfig, RunSettings
    from competition.ladder.ladder import add_bot, init_ladder
    from competition.ladder.run import run_ladder
    from referee.bots.fairplay import fair_play_problem
    from referee.bots.isolation import Isolation

    folder = tmp_path / "ladder"
    out = tmp_path / "www"
    config = LadderConfig(
        game="hearts",
        players=4,
        options={"target": "10"},
        isolation=Isolation(sandbox="none", fair_play="none" if fair_play_problem("auto") else "auto"),
        run=RunSettings(jobs=1, pin=False, plan_ahead=1),
        bots=BotSettings(validation=False),
        site_dir=str(out),
        analysis=AnalysisSection(enabled=True, playouts=16),
    )
    init_ladder(folder, config)
    assert LadderConfig.load(folder).analysis == AnalysisSection(enabled=True, playouts=16)
    samples = Path(sample_bots.__file__).parent
    for name, program in (("h", "heuristic_bot.py"), ("r", "random_bot.py"), ("h2", "heuristic_bot.py")):
        add_bot(folder, name, [sys.executable, str(samples / program)], cwd=tmp_path)
    add_bot(folder, "r2", [sys.executable, str(samples / "random_bot.py")], cwd=tmp_path)
    run_ladder(folder, sets=1)
    pages = sorted((out / "bots").glob("*.html"))
    assert len(pages) == 4
    for page in pages:
        html = page.read_text()
        assert '<table id="recent-losses">' in html, page.name
        links = re.findall(r'class="decision" href="([^"]+)"', html)
        assert links
        for link in links:
            target, _, anchor = link.partition("#decision=")
            assert (page.parent / target).is_file() and anchor.isdigit()
    index = (out / "index.html").read_text()
    assert "Loss/dec" in index and len(re.findall(r'<td class="loss">\d+\.\d\d</td>', index)) == 4
    assert all('<p id="mean-loss">Mean loss a decision: ' in page.read_text() for page in pages)
    assert dataclasses.replace(config, analysis=AnalysisSection()).analysis.settings() is None
