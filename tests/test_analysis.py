"""``kierki analyse`` (referee.analysis, docs/viewers/analysis.md): the figures are honest (a planted blunder is the
seat's largest loss; a seat's analysis does not change when cards it could not know are dealt differently; the
random bot loses more a decision than the heuristic bot), the same log, seed and playouts give the same bytes for
any --jobs, and bad input is refused in one line. Budgets are small: these tests check the plumbing and the gross
facts, not the search's strength."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner
from html_helpers import in_process_header
from hypothesis import HealthCheck, given, settings
from hypothesis import Phase as Search
from hypothesis import strategies as st

from kierki_cli.entry import cli
from referee.analysis import AnalysisSettings, analyse_log, classify
from referee.replay.writer import ReplayWriter, decision_record, event_record
from referee.rules import (
    Action,
    CardPlayed,
    DealEnded,
    DealSpec,
    GameState,
    Phase,
    PlayCard,
    RulesError,
    Ruleset,
    parse_card,
)
from referee.vocabulary.match_result import GameStatus

GOLDEN = Path(__file__).parent / "golden"
HEARTS = GOLDEN / "hearts-target30-seed5.replay.jsonl"
QS = parse_card("QS")

Chooser = Callable[[GameState], Action | None]


def write_deal(
    path: Path, game: str, seed: int, choose: Chooser | None = None, deals: tuple[DealSpec, ...] = ()
) -> Path:
    """One deal of ``game`` written as a log (stopped after the deal's end, as ``deals_per_game`` stops a game),
    every decision the referee's fallback unless ``choose`` gives another (None: the fallback)."""
    ruleset = Ruleset.create(game, None, {})
    state = GameState(ruleset, seed=seed, deals=deals)
    names = [f"bot{s}" for s in range(ruleset.players)]
    writer = ReplayWriter(path, in_process_header(ruleset, seed, names, given_deals=len(deals)))
    for event in state.events:
        if (record := event_record(event)) is not None:
            writer.write(record)
    while True:
        seat = state.to_act
        action = (choose(state) if choose is not None else None) or state.fallback_action()
        events = state.apply(action, seat)
        writer.write(decision_record(seat, action, 0.5, False))
        for event in events:
            if (record := event_record(event)) is not None:
                writer.write(record)
            if isinstance(event, DealEnded):
                writer.finish(GameStatus.STOPPED)
                return path


def _qs_dump(state: GameState) -> Action | None:
    """Seat 0, last to a spade trick that the queen of spades would win, holding a lower spade: the queen."""
    if state.phase is not Phase.PLAY or state.to_act != 0:
        return None
    obs = state.observation(0)
    if len(obs.trick) != 3 or obs.trick[0][1] & 3 != 3 or QS not in obs.legal or not obs.tricks:
        return None
    high = max(c for _, c in obs.trick if c & 3 == 3)
    if high < QS and any(c < QS and c & 3 == 3 for c in obs.legal):
        return PlayCard(QS)
    return None


def test_a_planted_blunder_is_the_seats_largest_loss(tmp_path: Path) -> None:
    for seed in range(1, 400):
        planted: list[int] = []

        def choose(state: GameState) -> Action | None:
            action = _qs_dump(state) if not planted else None  # noqa: B023 - used at once, in this iteration
            if action is not None:
                planted.append(len(state.events))  # noqa: B023
            return action

        log = write_deal(tmp_path / f"h{seed}.replay.jsonl", "hearts", seed, choose)
        if planted:
            break
    else:
        pytest.fail("no deal with the spot for the blunder in 400 seeds")
    analysed = analyse_log(log, AnalysisSettings(playouts=120, seats=(0,)))
    seat = analysed.summary.seats[0]
    worst = seat.largest[0]
    by_number = {d.decision: d for d in analysed.decisions}
    blunder = by_number[worst.decision]
    assert blunder.chosen == "QS" and blunder.phase == "play", blunder
    assert blunder.loss >= 10 and blunder.grade == "blunder"
    assert all(d.loss < blunder.loss for d in analysed.decisions if d.decision != worst.decision)
    if blunder.perfect is not None:  # with every card known, the queen is just as bad
        assert blunder.perfect.loss >= 13


def _kierki_deal(seed: int) -> DealSpec:
    state = GameState(Ruleset.create("kierki", None, {}), seed=seed)
    hands = tuple(tuple(state.hand(s)) for s in range(4))
    return DealSpec(hands, (), state.dealer)


@settings(
    max_examples=6,
    deadline=None,
    phases=[Search.explicit, Search.reuse, Search.generate],  # no shrinking: each example analyses two logs
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(shuffle=st.randoms(use_true_random=False), which=st.integers(0, 3))
def test_a_seats_analysis_ignores_cards_it_could_not_know(tmp_path: Path, shuffle: random.Random, which: int) -> None:
    """The first trick of a Kierki deal: the seat to play the ``which``-th card is analysed twice, once with the
    other seats' unplayed cards dealt differently among them (each keeps its count, and the cards it played)."""
    base = _kierki_deal(11)
    original = write_deal(tmp_path / "a.replay.jsonl", "kierki", 11, deals=(base,))
    state = GameState(Ruleset.create("kierki", None, {}), seed=11, deals=(base,))
    played: list[tuple[int, int]] = []
    for _ in range(which):
        seat = state.to_act
        action = state.fallback_action()
        assert isinstance(action, PlayCard)
        played.append((seat, action.card))
        state.apply(action, seat)
    me = state.to_act
    kept = {s: {c for p, c in played if p == s} for s in range(4)}
    pool = [c for s in range(4) if s != me for c in base.hands[s] if c not in kept[s]]
    shuffle.shuffle(pool)
    hands = []
    for s in range(4):
        if s == me:
            hands.append(base.hands[s])
            continue
        take = len(base.hands[s]) - len(kept[s])
        hands.append(tuple(sorted(kept[s])) + tuple(pool[:take]))
        pool = pool[take:]
    other = DealSpec(tuple(hands), (), base.dealer)
    twin = GameState(Ruleset.create("kierki", None, {}), seed=11, deals=(other,))
    try:
        for seat, card in played:
            twin.apply(PlayCard(card), seat)  # the others' plays stay legal with their new hands (voids)
    except RulesError:
        return  # a redeal under which an earlier play is illegal (a void it showed) is not a case

    def same_plays(state: GameState) -> Action | None:
        done = sum(1 for e in state.events if isinstance(e, CardPlayed))
        return PlayCard(played[done][1]) if done < len(played) else None

    changed = write_deal(tmp_path / "b.replay.jsonl", "kierki", 11, same_plays, deals=(other,))
    assert twin.observation(me) == state.observation(me)
    wanted = AnalysisSettings(playouts=40, seats=(me,))
    first = {d.decision: d for d in analyse_log(original, wanted).decisions}
    second = {d.decision: d for d in analyse_log(changed, wanted).decisions}
    if which in first:
        assert first[which] == second[which]


# Each golden game is two heuristic and two (three) random bots. Some deals of each, to keep the test short:
# Kierki's first penalty deals and a trump deal (its loteryjka, whose 800 and 500 points dwarf every other
# figure, is left out: see docs/viewers/analysis.md), the first deals of the Hearts games.
SAMPLED = {"kierki": (1, 2, 3, 8), "hearts": (1, 2), "cancellation6": (1,)}


@pytest.mark.parametrize("kind", sorted(SAMPLED))
def test_the_random_bot_loses_more_a_decision_than_the_heuristic_bot(kind: str) -> None:
    log = next(GOLDEN.glob(f"{kind}-*.replay.jsonl"))
    analysed = analyse_log(log, AnalysisSettings(playouts=40, seed=1, deals=SAMPLED[kind]))
    lost: dict[str, list[float]] = {}
    for seat in analysed.summary.seats:  # each bot's loss and decisions over the seats it holds
        row = lost.setdefault(seat.name, [0.0, 0])
        row[0] += seat.total_loss
        row[1] += seat.decisions
    means = {name: total / count for name, (total, count) in lost.items()}
    assert means["random_bot"] > means["heuristic_bot"], means


def test_classes_need_the_loss_beyond_two_standard_errors() -> None:
    assert classify(6, 0, 1) == "blunder"
    assert classify(6, 0.6, 1) == "mistake"  # 6 - 1.2 = 4.8 units: short of a blunder
    assert classify(3, 1.5, 1) is None  # within two errors of nothing
    assert classify(25, 0, 20) == "inaccuracy" and classify(19, 0, 20) is None


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["analyse", *args])
    return result.exit_code, result.stdout, result.stderr


def test_json_is_one_object_a_decision_then_a_summary_and_the_same_for_any_jobs() -> None:
    code, out, _ = _run(str(HEARTS), "--playouts", "16", "--seat", "1", "--json")
    assert code == 0
    lines = [json.loads(line) for line in out.splitlines()]
    *decisions, summary = lines
    assert summary["type"] == "summary" and [s["seat"] for s in summary["seats"]] == [1]
    for d in decisions:
        assert d["seat"] == 1 and {"decision", "seat", "chosen", "best", "loss", "choices"} <= d.keys()
        values = {c["choice"]: c["value"] for c in d["choices"]}
        assert d["chosen"] in values and d["best"] in values
        assert d["loss"] == pytest.approx(max(0.0, values[d["best"]] - values[d["chosen"]]), abs=0.011)
    code, again, _ = _run(str(HEARTS), "--playouts", "16", "--seat", "1", "--json", "--jobs", "2")
    assert code == 0 and again == out
    code, other, _ = _run(str(HEARTS), "--playouts", "16", "--seat", "1", "--json", "--seed", "5")
    assert code == 0 and other != out


def test_the_terminal_report_names_each_largest_loss_and_how_to_replay_it() -> None:
    code, out, _ = _run(str(HEARTS), "--playouts", "16", "--seat", "0", "--seat", "3")
    assert code == 0
    assert "seat 0 heuristic_bot: mean loss" in out and "seat 3 random_bot: mean loss" in out
    assert "seat 1 " not in out
    assert f"kierki match --from {HEARTS} --at " in out


def _lines(path: Path) -> list[str]:
    return path.read_text().splitlines(keepends=True)


def test_bad_logs_are_refused_in_one_line(tmp_path: Path) -> None:
    lines = _lines(HEARTS)
    wrong = tmp_path / "wrong.replay.jsonl"
    record = json.loads(lines[20])
    at = 21
    while record["type"] != "play":
        at += 1
        record = json.loads(lines[at - 1])
    record["card"] = "2C" if record["card"] != "2C" else "3C"
    lines[at - 1] = json.dumps(record) + "\n"
    wrong.write_text("".join(lines))
    code, out, err = _run(str(wrong))
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and f"line {at}:" in err and "Traceback" not in err
    newer = tmp_path / "newer.replay.jsonl"
    header = json.loads(lines[0])
    header["version"] = 99
    newer.write_text(json.dumps(header) + "\n" + "".join(_lines(HEARTS)[1:]))
    code, _, err = _run(str(newer))
    assert code == 1 and "format version 99" in err and err.count("\n") == 1
    code, _, err = _run(str(HEARTS), "--seat", "4")
    assert code == 2 and "seats 0 to 3" in err


def test_a_truncated_log_is_analysed_as_far_as_it_goes(tmp_path: Path) -> None:
    lines = _lines(HEARTS)
    cut = tmp_path / "cut.replay.jsonl"
    cut.write_text("".join(lines[:60]) + lines[60][:15])
    code, out, err = _run(str(cut), "--playouts", "8", "--json")
    assert code == 0, err
    summary = json.loads(out.splitlines()[-1])
    assert "the log ends after line 60 (line 61 is cut off" in summary["ends"] and "warning" in err
    assert 0 < summary["decisions"] < 60


def test_the_stepper_shows_a_decisions_analysis_to_all_hands_and_its_own_seat(tmp_path: Path) -> None:
    from kierki_cli.replay_stepper import Stepper
    from kierki_cli.styled import Style, to_text
    from referee.analysis import AnalysisFileError, read_analysis
    from referee.replay.reader import load
    from referee.replay.timeline import build_timeline

    code, out, _ = _run(str(HEARTS), "--playouts", "8", "--seat", "2", "--json")
    assert code == 0
    saved = tmp_path / "hearts.analysis.jsonl"
    saved.write_text(out)
    analysed = read_analysis(saved, HEARTS)
    by_number = {d.decision: d for d in analysed.decisions}
    timeline = build_timeline(load(HEARTS))
    index = next(i for i, f in enumerate(timeline.frames) if f.decision is not None and f.decision.index in by_number)
    number = timeline.frames[index].decision.index  # type: ignore[union-attr]
    style = Style()
    for viewer, shown in ((None, True), (2, True), (1, False)):
        stepper = Stepper(timeline, viewer, index, by_number)
        for height, width in ((None, None), (24, 80)):
            screen = [to_text(line, style) for line in stepper.screen(style, height, width)]
            text = "\n".join(screen)
            assert (f"analysis #{number}: seat 2 {by_number[number].chosen}" in text) == shown, text
            if width is not None and height is not None:
                assert len(screen) <= height and max(len(line) for line in screen) <= width
    other = GOLDEN / "kierki-seed3.replay.jsonl"
    with pytest.raises(AnalysisFileError, match="the analysis of another log"):
        read_analysis(saved, other)
    result = CliRunner().invoke(cli, ["replay", str(HEARTS), "--analysis", str(saved), "--no-interactive"])
    assert result.exit_code == 2 and "--analysis is shown by the stepper" in result.stderr


def test_a_cpu_budget_and_the_option_mistakes() -> None:
    code, out, _ = _run(str(HEARTS), "--cpu-ms", "5", "--seat", "0", "--deal", "1", "--json")
    assert code == 0
    summary = json.loads(out.splitlines()[-1])
    assert summary["cpu_ms"] == 5 and summary["playouts"] is None and summary["deals"] == [1]
    code, _, err = _run(str(HEARTS), "--cpu-ms", "5", "--playouts", "9")
    assert code == 2 and "not both" in err
    code, _, err = _run(str(HEARTS), "--deal", "99")
    assert code == 2 and "--deal 99" in err
