"""Resuming a game from its replay log (``kierki match --from FILE --at N``): the game cut after its first N
decisions, as a `ResumePoint` that `referee.match.MatchConfig` takes (ruleset, seed, deals, the decisions to replay).

Only what the walk of `referee.replay.timeline` verified is used: a log that is cut off, or stops agreeing with the
rules, resumes from what it holds before that point, with a warning saying so.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from referee.replay.reader import Replay, ReplayError, load
from referee.replay.timeline import Timeline, build_timeline
from referee.rules import Action, DealSpec, Ruleset
from referee.vocabulary.match_result import GameStatus

__all__ = ["ResumePoint", "resume_point"]


@dataclass(frozen=True)
class ResumePoint:
    ruleset: Ruleset
    seed: str
    game_number: int  # with the seed, it fixes the deals the log did not reach
    deals: tuple[DealSpec, ...]
    prefix: tuple[tuple[int, Action], ...]
    decisions: int  # in the log
    warnings: tuple[str, ...] = ()  # what is wrong with the log (cut off, no end record): resumed from what it holds


def resume_point(path: Path, at: int) -> ResumePoint:
    """The game of ``path`` after its first ``at`` decisions, for MatchConfig (ruleset, seed, deals, prefix)."""
    replay = load(path, strict=False)
    timeline = build_timeline(replay, strict=False)
    steps = timeline.decisions
    if not 0 <= at <= len(steps):
        checked = ""
        if timeline.problem is not None and replay.end is not None and replay.end.status == GameStatus.COMPLETE:
            checked = f" that agree with the rules (then {timeline.problem})"
        raise ReplayError(f"{path} has {len(steps)} decisions{checked}; --at takes 0 to {len(steps)}")
    if timeline.state_at(at).is_over:
        raise ReplayError(f"the game of {path} is over after {at} decisions: choose a smaller --at")
    return ResumePoint(
        ruleset=timeline.ruleset,
        seed=str(replay.header.seed),
        game_number=replay.header.game_number,
        deals=timeline.verified_deal_specs(),
        prefix=tuple((s.seat, s.action) for s in steps[:at]),
        decisions=len(steps),
        warnings=tuple(_resume_warnings(replay, timeline)),
    )


def _resume_warnings(replay: Replay, timeline: Timeline) -> list[str]:
    warnings = list(replay.warnings)
    if replay.end is None:
        warnings.append(
            "the log has no end record: it was cut off (the match was killed, or the file truncated), so only the "
            f"{len(timeline.decisions)} decisions it holds can be replayed"
        )
    elif timeline.problem is not None and replay.end.status == GameStatus.COMPLETE:
        warnings.append(f"the log stops agreeing with the rules: {timeline.problem}")
    return warnings
