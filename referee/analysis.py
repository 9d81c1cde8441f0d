"""Where a seat won and lost its points: every decision of a replay weighed against the seat's other choices.

Each analysed decision is rebuilt from the verified replay (``referee.replay.timeline``): the state before it, and
from that state the deciding seat's own ``Observation`` (the rules core's statement of what the seat knew: its hand,
the cards played, what it passed and received; never another seat's hidden card). The search library
(``referee.search.evaluate``) values every legal choice from that observation alone, in points of the game as
scored and higher better for the seat, with each value's standard error. The loss of a decision is the best value
less the chosen one, never below zero.

A loss is classed by the lower end of its two-standard-error interval, so a loss the search cannot tell from noise
is never called a mistake: with ``se`` the standard error of the loss (the best and the chosen value's errors
combined as if independent, which overstates it: every choice meets the same sampled worlds) and ``unit`` the
game's point step (``UNITS``: 20 in Kierki, 1 in the Hearts games), the class is the largest of ``inaccuracy``
(1 unit), ``mistake`` (2.5 units) and ``blunder`` (5 units) whose threshold ``loss - 2 * se`` reaches.

Near the end of a deal, every card of it is also solved exactly with all hands known (``referee.search.solve``,
the double-dummy view): that *perfect-information* value is kept apart, in ``perfect``, and never enters the
loss, the classes or the summary's losses, since no seat knew the hands it assumes.

Every decision's search has its own seed, drawn from the analysis seed and the decision's number, so the same log,
seed and playout budget give the same figures whichever decisions are analysed, in whatever order, by however many
processes (``analyse_log``'s ``jobs``). A CPU-time budget gives figures that depend on the machine.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path
from typing import Any, Final

import msgspec

from referee import rules, search
from referee.replay.mismatch import describe_action
from referee.replay.reader import Replay, ReplayError, load
from referee.replay.timeline import DecisionStep, Timeline, build_timeline
from referee.replay.view import KIND_NAMES
from referee.vocabulary.match_result import GameStatus

__all__ = [
    "CLASSES",
    "DEFAULT_PLAYOUTS",
    "PERFECT_TRICKS",
    "UNITS",
    "AnalysedLog",
    "AnalysisFileError",
    "AnalysisSettings",
    "ChoiceFigure",
    "DecisionAnalysis",
    "Loss",
    "Perfect",
    "SeatSummary",
    "Summary",
    "Tally",
    "analyse_log",
    "analyse_timeline",
    "classify",
    "open_log",
    "read_analysis",
]

DEFAULT_PLAYOUTS: Final = 400  # playouts a decision, spread over its choices, unless --playouts or --cpu-ms
# A play decision is also solved with every card known in its deal's last this many tricks (at most
# search.SOLVE_MAX_CARDS cards in all hands: Cancellation Hearts' larger tables get fewer).
PERFECT_TRICKS: Final = 3
UNITS: Final = {
    rules.Game.KIERKI: 20,
    rules.Game.KIERKI3: 20,
    rules.Game.HEARTS: 1,
    rules.Game.CANCELLATION: 1,
}
CLASSES: Final = (("blunder", 5.0), ("mistake", 2.5), ("inaccuracy", 1.0))  # threshold in units, largest first
MIN_WORLDS: Final = 2  # a playout budget is raised to give every choice at least this many worlds
LARGEST: Final = 5  # losses listed per seat in the summary


class AnalysisSettings(msgspec.Struct, frozen=True, kw_only=True):
    """How to analyse: the search's budget a decision, its seed, the seats (empty: every seat)."""

    playouts: int | None = None  # None with cpu_ms None: DEFAULT_PLAYOUTS
    cpu_ms: int | None = None
    seed: int = 0
    seats: tuple[int, ...] = ()
    deals: tuple[int, ...] = ()  # only these deals (empty: every deal)
    perfect_tricks: int = PERFECT_TRICKS

    def budget(self) -> search.Budget:
        if self.playouts is None and self.cpu_ms is None:
            return search.Budget(playouts=DEFAULT_PLAYOUTS)
        return search.Budget(playouts=self.playouts, cpu_ms=self.cpu_ms)


class ChoiceFigure(msgspec.Struct, frozen=True):
    choice: str
    value: float
    stderr: float | None  # None: not estimated (one sampled world); 0 for the exact values


class Perfect(msgspec.Struct, frozen=True):
    """The exact values with every hand known: never mixed with the seat's honest values."""

    best: str
    loss: float
    choices: list[ChoiceFigure]


class DecisionAnalysis(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="decision"):
    """One analysed decision, as ``kierki analyse --json`` prints it (one JSON object a line)."""

    decision: int  # as ``kierki replay`` numbers it: ``kierki match --from LOG --at N`` replays from here
    line: int  # the decision's line in the log
    seat: int
    deal: int
    kind: str  # the deal's kind ("no hearts", "trumps", "hearts")
    phase: str  # "play", "pass", "trump", "moon"
    chosen: str
    best: str
    loss: float
    stderr: float | None  # of the loss; None: not estimated (the search saw one world)
    grade: str | None  # "inaccuracy", "mistake", "blunder"; None: no loss the search can tell from noise
    fallback: bool  # the referee decided for the seat (a fault or a forfeit): not counted in the seat's figures
    worlds: int
    playouts: int
    choices: list[ChoiceFigure]
    perfect: Perfect | None = None


class Tally(msgspec.Struct, frozen=True):
    decisions: int
    loss: float


class Loss(msgspec.Struct, frozen=True):
    decision: int
    loss: float
    grade: str | None


class SeatSummary(msgspec.Struct, frozen=True, kw_only=True):
    seat: int
    name: str
    decisions: int  # analysed: the seat's own decisions with a choice (forced and fallback decisions left out)
    forced: int
    mean_loss: float
    total_loss: float
    grades: dict[str, int]
    by_phase: dict[str, Tally]  # "play", "pass", "trump", "moon"
    by_kind: dict[str, Tally]  # by the deal's kind, in the order the game first plays them
    largest: list[Loss]  # largest first
    perfect_decisions: int
    perfect_mean_loss: float | None


class Summary(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="summary"):
    game: str
    unit: int
    playouts: int | None
    cpu_ms: int | None
    seed: int
    deals: list[int]  # the deals analysed; empty: every deal
    perfect_tricks: int
    log_sha256: str
    decisions: int  # in the log (as far as it verified)
    ends: str  # "complete", or where the log ends and why
    seats: list[SeatSummary]


@dataclass(frozen=True)
class AnalysedLog:
    decisions: tuple[DecisionAnalysis, ...]
    summary: Summary


# --- one decision ----------------------------------------------------------------------------------------------


def choice_text(action: rules.Action) -> str:
    """A choice as the log names it, without the verb: 'QS', 'AH KH QH', 'S', 'none', 'others'."""
    return describe_action(action).split(" ", 1)[1]


def decision_seed(seed: int, decision: int) -> int:
    digest = hashlib.sha256(f"kierki-analyse:{seed}:{decision}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def classify(loss: float, stderr: float, unit: int) -> str | None:
    """The class of a loss: by the low end of its two-standard-error interval, in the game's units."""
    if not math.isfinite(stderr):
        return None
    low = (loss - 2.0 * stderr) / unit
    for name, threshold in CLASSES:
        if low >= threshold:
            return name
    return None


def _r(value: float) -> float:
    return round(value, 2) + 0.0  # 2 decimals, and never -0.0


def _e(stderr: float) -> float | None:
    """A standard error as printed; None when the search could not estimate one (a single world)."""
    return _r(stderr) if math.isfinite(stderr) else None


def _key(action: rules.Action) -> object:
    """An action, with a pass's cards in any order."""
    return frozenset(action.cards) if isinstance(action, rules.PassCards) else action


def analyse_decision(timeline: Timeline, step: DecisionStep, settings: AnalysisSettings) -> DecisionAnalysis | None:
    """The analysis of one decision; None when it was forced (one legal choice)."""
    ruleset = timeline.ruleset
    state = timeline.state_at(step.index)
    seen = state.observation(step.seat)
    if seen.phase is rules.Phase.PLAY and len(seen.legal) < 2:
        return None
    choices = search.choices_of(ruleset, seen)
    made = _key(step.action)
    if all(_key(c) != made for c in choices):  # a pass outside the search's candidates: weighed with them
        choices.append(step.action)
    if len(choices) < 2:
        return None
    budget = settings.budget()
    if budget.playouts is not None and budget.playouts < MIN_WORLDS * len(choices):  # enough for an error estimate
        budget = search.Budget(playouts=MIN_WORLDS * len(choices), cpu_ms=budget.cpu_ms)
    evaluation = search.evaluate(ruleset, seen, budget, decision_seed(settings.seed, step.index), choices=choices)
    chosen = next(c for c in evaluation.choices if _key(c.action) == made)
    best = evaluation.best()
    loss = max(0.0, best.value - chosen.value)
    stderr = 0.0 if best is chosen else math.hypot(best.stderr, chosen.stderr)
    unit = UNITS[ruleset.game]
    return DecisionAnalysis(
        decision=step.index,
        line=step.entry.line,
        seat=step.seat,
        deal=seen.deal,
        kind=KIND_NAMES[seen.kind],
        phase=seen.phase.value,
        chosen=choice_text(chosen.action),
        best=choice_text(best.action),
        loss=_r(loss),
        stderr=_e(stderr),
        grade=classify(loss, stderr, unit),
        fallback=step.record.fallback,
        worlds=evaluation.worlds,
        playouts=evaluation.playouts,
        choices=[ChoiceFigure(choice_text(c.action), _r(c.value), _e(c.stderr)) for c in evaluation.choices],
        perfect=_perfect(state, step, settings),
    )


def _perfect(state: rules.GameState, step: DecisionStep, settings: AnalysisSettings) -> Perfect | None:
    if state.phase is not rules.Phase.PLAY or state.kind is rules.DealKind.LOTTERY:
        return None
    left = sum(len(state.hand(seat)) for seat in range(state.players))
    if left > min(settings.perfect_tricks * state.players, search.SOLVE_MAX_CARDS):
        return None
    try:
        values = search.solve(state)
    except search.SolveError:
        return None
    if step.action not in values:
        return None
    best_action = max(values, key=lambda a: values[a])
    ordered = sorted(values.items(), key=lambda item: choice_text(item[0]))
    return Perfect(
        best=choice_text(best_action),
        loss=_r(max(0.0, values[best_action] - values[step.action])),
        choices=[ChoiceFigure(choice_text(a), _r(v), 0.0) for a, v in ordered],
    )


# --- a whole log -----------------------------------------------------------------------------------------------


def open_log(path: Path) -> tuple[Timeline, bytes, str]:
    """The log's timeline, its bytes and where it ends ("complete" or why it stops short).

    A log that disagrees with the rules raises ``ReplayError`` naming the first line that does; a truncated log
    (a cut last line, no end record) or a game that did not finish is analysed as far as it goes."""
    data = _bytes(path)
    replay = load(path, strict=False)
    timeline = build_timeline(replay, strict=False)
    problem = timeline.problem
    if problem is None:
        return timeline, data, "complete"
    if _cut_short(replay, problem):
        cut = next((w for w in replay.warnings if "cut off" in w), None)
        where = f"after line {replay.line_count}" + (f" ({cut})" if cut else "")
        return timeline, data, f"the log ends {where} without an end record: analysed as far as it goes"
    end = replay.end
    if end is not None and problem.line == replay.line_count and end.status != GameStatus.COMPLETE:
        return timeline, data, f"the game did not finish: {problem.message}"
    raise problem


def _bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as error:
        raise ReplayError(f"cannot read {path}: {error.strerror or error}") from None


def _cut_short(replay: Replay, problem: ReplayError) -> bool:
    return replay.end is None and problem.line == replay.line_count and "no end record" in problem.message


def _wanted(timeline: Timeline, settings: AnalysisSettings) -> list[int]:
    seats = set(settings.seats) if settings.seats else None
    deals = set(settings.deals) if settings.deals else None
    deal_of = {f.decision.index: f.deal for f in timeline.frames if f.decision is not None}
    return [
        s.index
        for s in timeline.decisions
        if (seats is None or s.seat in seats) and (deals is None or deal_of[s.index] in deals)
    ]


def analyse_timeline(
    timeline: Timeline, settings: AnalysisSettings, indices: Iterable[int]
) -> list[tuple[int, DecisionAnalysis | None]]:
    """The analysis of the decisions at ``indices`` (in the order given: ascending is quickest)."""
    return [(i, analyse_decision(timeline, timeline.decisions[i], settings)) for i in indices]


def _worker(path: Path, settings: AnalysisSettings, indices: list[int]) -> list[tuple[int, DecisionAnalysis | None]]:
    timeline, _, _ = open_log(path)
    return analyse_timeline(timeline, settings, indices)


def analyse_log(
    path: Path,
    settings: AnalysisSettings,
    jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> AnalysedLog:
    """Analyse a log file: every decision of ``settings.seats`` (all: every seat), on ``jobs`` processes."""
    timeline, data, ends = open_log(path)
    wanted = _wanted(timeline, settings)
    results: dict[int, DecisionAnalysis | None] = {}
    if jobs <= 1 or len(wanted) < 2:
        for done, index in enumerate(wanted, 1):
            results[index] = analyse_decision(timeline, timeline.decisions[index], settings)
            if progress is not None:
                progress(done, len(wanted))
    else:
        # Interleaved shares: every process walks the whole game once, and the deals' ends (slower) are spread.
        shares = [wanted[k::jobs] for k in range(jobs) if wanted[k::jobs]]
        with ProcessPoolExecutor(len(shares), mp_context=get_context("forkserver")) as pool:
            futures = [pool.submit(_worker, path, settings, share) for share in shares]
            for future in futures:
                results.update(future.result())
                if progress is not None:
                    progress(len(results), len(wanted))
    decisions = tuple(a for i in wanted if (a := results[i]) is not None)
    forced = [i for i in wanted if results[i] is None]
    summary = summarise(timeline, settings, decisions, forced, hashlib.sha256(data).hexdigest(), ends)
    return AnalysedLog(decisions, summary)


def summarise(
    timeline: Timeline,
    settings: AnalysisSettings,
    decisions: Sequence[DecisionAnalysis],
    forced: Sequence[int],
    digest: str,
    ends: str,
) -> Summary:
    players = timeline.ruleset.players
    seats = settings.seats or tuple(range(players))
    forced_by_seat = [0] * players
    for index in forced:
        forced_by_seat[timeline.decisions[index].seat] += 1
    rows = []
    for seat in sorted(set(seats)):
        own = [d for d in decisions if d.seat == seat and not d.fallback]
        total = sum(d.loss for d in own)
        grades = {name: sum(1 for d in own if d.grade == name) for name, _ in reversed(CLASSES)}
        by_phase = _tallies(own, lambda d: d.phase)
        by_kind = _tallies(own, lambda d: d.kind)
        largest = sorted((d for d in own if d.loss > 0), key=lambda d: (-d.loss, d.decision))[:LARGEST]
        solved = [d.perfect for d in own if d.perfect is not None]
        rows.append(
            SeatSummary(
                seat=seat,
                name=timeline.replay.bot_name(seat),
                decisions=len(own),
                forced=forced_by_seat[seat],
                mean_loss=_r(total / len(own)) if own else 0.0,
                total_loss=_r(total),
                grades=grades,
                by_phase=by_phase,
                by_kind=by_kind,
                largest=[Loss(d.decision, d.loss, d.grade) for d in largest],
                perfect_decisions=len(solved),
                perfect_mean_loss=_r(sum(p.loss for p in solved) / len(solved)) if solved else None,
            )
        )
    budget = settings.budget()
    return Summary(
        game=timeline.ruleset.game.value,
        unit=UNITS[timeline.ruleset.game],
        playouts=budget.playouts,
        cpu_ms=budget.cpu_ms,
        seed=settings.seed,
        deals=sorted(settings.deals),
        perfect_tricks=settings.perfect_tricks,
        log_sha256=digest,
        decisions=len(timeline.decisions),
        ends=ends,
        seats=rows,
    )


def _tallies(decisions: Sequence[DecisionAnalysis], key: Callable[[DecisionAnalysis], str]) -> dict[str, Tally]:
    counts: dict[str, list[float]] = {}
    for d in decisions:
        row = counts.setdefault(key(d), [0, 0.0])
        row[0] += 1
        row[1] += d.loss
    return {k: Tally(int(n), _r(total)) for k, (n, total) in counts.items()}


# --- on the replay page -----------------------------------------------------------------------------------------


def page_analysis(analysed: AnalysedLog) -> dict[str, Any]:
    """What the replay page (``referee.replay.html``) embeds of an analysis: each decision's figures by number,
    the classes' thresholds, and the summary."""
    return {
        "unit": analysed.summary.unit,
        "classes": [[name, threshold] for name, threshold in CLASSES],
        "decisions": {str(d.decision): msgspec.to_builtins(d) for d in analysed.decisions},
        "summary": msgspec.to_builtins(analysed.summary),
    }


def write_analysed_html(path: Path, analysed: AnalysedLog, out: Path, file: str | None = None) -> int:
    """Write the replay page of the log at ``path`` with ``analysed`` drawn on it; returns its size in bytes."""
    from referee.replay.html import write_html

    timeline, _, _ = open_log(path)
    return write_html(timeline, out, file=file, analysis=page_analysis(analysed))


# --- read back ------------------------------------------------------------------------------------------------

_line_decoder = msgspec.json.Decoder(DecisionAnalysis | Summary)


class AnalysisFileError(ValueError):
    """An analysis file (``kierki analyse --json``) that cannot be read, or that is of another log."""


def read_analysis(path: Path, log: Path | None = None) -> AnalysedLog:
    """An analysis as ``kierki analyse --json`` printed it; with ``log``, checked to be that log's (its hash)."""
    try:
        text = path.read_bytes()
    except OSError as error:
        raise AnalysisFileError(f"cannot read {path}: {error.strerror or error}") from None
    decisions: list[DecisionAnalysis] = []
    summary: Summary | None = None
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            item = _line_decoder.decode(line)
        except msgspec.DecodeError as error:
            raise AnalysisFileError(
                f"{path} line {number}: not a line of `kierki analyse --json` output ({error})"
            ) from None
        if isinstance(item, Summary):
            summary = item
        else:
            decisions.append(item)
    if summary is None:
        raise AnalysisFileError(f"{path}: no summary line: not the whole output of `kierki analyse --json`")
    if log is not None and hashlib.sha256(_bytes(log)).hexdigest() != summary.log_sha256:
        raise AnalysisFileError(f"{path} is the analysis of another log than {log} (its log_sha256 differs)")
    return AnalysedLog(tuple(decisions), summary)
