"""One game spec, one play function, one set loop (competition/game.py, competition/remote.py,
competition/duplicate_set.py): a game is plain data whatever it holds, a worker here and a worker elsewhere leave the
same files, and a set is played, assembled and cleaned up in one place."""

from __future__ import annotations

from concurrent.futures import Future
from pathlib import Path
from typing import Any

import msgspec
import pytest

from competition import remote
from competition.duplicate_set import GameFailed, SetRequest, play_set
from competition.game import GameOutcome, GameSpec, play_here
from referee.match_config import MatchSpec, Prefix, RulesetSpec, decode_spec, default_bots, encode_spec
from referee.replay.reader import load
from referee.replay.resume import resume_point
from referee.rules import ChooseMoon, ChooseTrump, MoonOption, PassCards, PlayCard, Ruleset, parse_card
from referee.rules.cards import parse_suit

SHORT = Ruleset.create("hearts", None, {"target": "10"})
NAMES = ("a", "b", "c", "d")


def _spec(root: Path, prefix: Prefix | None = None, *, transcript: bool = False, rotate: bool = False) -> GameSpec:
    spec = MatchSpec(
        rules=RulesetSpec.of(SHORT),
        bots=default_bots(4),
        seed="5",
        transcript=transcript,
        prefix=prefix or Prefix(),
        rotate=rotate,
    )
    return GameSpec(set_id=1, index=0, names=NAMES, match=spec, root=root, set_dir="sets/0001")


class Here:
    """An executor that plays each game at once in this process, as a local pool's worker would."""

    jobs = 1

    def submit(self, spec: GameSpec) -> Future[GameOutcome]:
        future: Future[GameOutcome] = Future()
        future.set_result(play_here(spec))
        return future

    def close(self) -> None:
        pass

    def stop(self) -> None:
        pass

    def __enter__(self) -> Here:
        return self

    def __exit__(self, *exc: object) -> None:
        pass


def test_a_game_with_a_prefix_a_transcript_and_rotation_is_plain_data_a_remote_worker_plays(tmp_path: Path) -> None:
    """Before, the remote spec refused all three: the one spec carries them, through its bytes and back."""
    first = play_here(_spec(tmp_path / "first"))
    assert first.record is not None
    point = resume_point(tmp_path / "first" / "sets/0001.partial" / "game1.replay.jsonl", 3)  # as --from takes it
    spec = _spec(tmp_path, Prefix(point.prefix), transcript=True, rotate=True)
    assert len(spec.match.prefix) == 3 and decode_spec(encode_spec(spec), GameSpec) == spec
    assert decode_spec(encode_spec(spec), GameSpec).match.prefix.decisions == point.prefix  # rules actions again
    answer = remote.run_remote(remote.remote_game(spec))
    assert answer.refused is None and answer.outcome is not None and answer.outcome.error is None
    assert {"game1.replay.jsonl", "game1.seat0.transcript.log"} <= set(answer.files)
    log = tmp_path / "replayed.replay.jsonl"
    log.write_bytes(answer.files["game1.replay.jsonl"])
    decisions = _decisions(log)
    assert [record.replayed for record in decisions[:4]] == [True, True, True, False]
    original = _decisions(tmp_path / "first" / "sets/0001.partial" / "game1.replay.jsonl")
    assert [(r.seat, r.cards) for r in decisions[:3]] == [(r.seat, r.cards) for r in original[:3]]  # the passes


def _decisions(log: Path) -> list[Any]:
    return [entry.record for entry in load(log).entries if hasattr(entry.record, "replayed")]


def test_a_worker_here_and_a_worker_elsewhere_leave_the_same_files_and_record(tmp_path: Path) -> None:
    here = play_here(_spec(tmp_path / "here"))
    spec = _spec(tmp_path / "there")
    there = remote.deliver(spec, remote.run_remote(remote.remote_game(spec)))
    assert here.record is not None and there.record is not None
    # Everything but the CPU time each bot used, which is measured (each seat has one where control groups serve).
    assert len(here.record.cpu_ms) == len(there.record.cpu_ms) == 4
    assert [cpu is None for cpu in here.record.cpu_ms] == [cpu is None for cpu in there.record.cpu_ms]
    unmeasured = {"record": msgspec.structs.replace(here.record, cpu_ms=there.record.cpu_ms)}
    assert msgspec.structs.replace(here, **unmeasured) == there
    named = {path.name for path in (tmp_path / "here" / "sets/0001.partial").iterdir()}
    assert named == {path.name for path in spec.partial_dir.iterdir()} and "game1.replay.jsonl" in named
    assert not spec.work_dir.exists()  # a remote worker plays in a folder of its own, removed after


def test_play_set_assembles_the_set_and_moves_its_folder_into_place(tmp_path: Path) -> None:
    request = SetRequest(
        set_id=3,
        seed="7",
        table=("a", "b", "a", "b"),
        bots={"a": default_bots(2)[0], "b": default_bots(2)[1]},
        match=MatchSpec(rules=RulesetSpec.of(SHORT)),
        root=tmp_path,
        set_dir="sets/0003",
        higher_is_better=False,
    )
    played = play_set(request, Here()).wait()
    record = played.record
    assert len(record.games) == 2  # the cyclic rotations that seat the bots differently: two
    assert [game.seats for game in record.games] == [("a", "b", "a", "b"), ("b", "a", "b", "a")]
    assert (tmp_path / "sets/0003/game2.replay.jsonl").is_file() and not (tmp_path / "sets/0003.partial").exists()
    assert [game.replay for game in record.games] == ["sets/0003/game1.replay.jsonl", "sets/0003/game2.replay.jsonl"]


def test_a_game_the_referee_refuses_fails_the_set_and_leaves_no_folder(tmp_path: Path) -> None:
    request = SetRequest(
        set_id=1,
        seed="7",
        table=NAMES,
        bots=dict(zip(NAMES, default_bots(4), strict=True)),
        match=MatchSpec(rules=RulesetSpec("hearts", 4, {"no_such_option": 1})),
        root=tmp_path,
        set_dir="sets/0001",
        higher_is_better=False,
    )
    with pytest.raises(GameFailed, match="no option no_such_option") as failed:
        play_set(request, Here()).wait()
    assert failed.value.cause is None  # the referee refused it: no exception of the executor's
    assert not (tmp_path / "sets/0001.partial").exists() and not (tmp_path / "sets/0001").exists()


def test_a_prefix_is_rules_actions_on_both_sides_of_the_bytes() -> None:
    """Issue 31: the spec holds a resumed game's decisions as the rules core's actions; only its bytes say them as
    answers, and every kind of decision comes back as the action it was."""
    decisions = (
        (0, PassCards(tuple(parse_card(name) for name in ("QS", "AH", "2C")))),
        (1, ChooseTrump(parse_suit("H"))),
        (2, ChooseTrump(None)),
        (3, PlayCard(parse_card("TD"))),
        (0, ChooseMoon(MoonOption.OTHERS)),
    )
    spec = MatchSpec(rules=RulesetSpec.of(SHORT), prefix=Prefix(decisions))
    back = decode_spec(encode_spec(spec), MatchSpec)
    assert back == spec and back.prefix.decisions == decisions
