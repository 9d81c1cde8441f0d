"""Tournament statistics: pure functions from set records to a :class:`Standings`.

The independent unit is the duplicate set, not the game: the games of a set share their deals, so their scores are
correlated. Every interval here therefore treats one set as one observation (its mean score per game) and uses
Student's t with ``sets − 1`` degrees of freedom. With fewer than two sets there is no interval: the half-width is
``math.inf``, so "is every interval narrower than W" is simply false until there is evidence.

"Better" always follows the records' ``higher_is_better`` (Kierki: high totals win; Hearts and Cancellation: low
totals win): the standings order, the ranks fed to the ratings and the sign of every comparison agree on it.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import Literal

from competition.model import SetRecord
from competition.ratings import Rating, RatingParams, rate
from referee.api import FaultCode

__all__ = [
    "BotStats",
    "BotStatus",
    "DuplicateEfficiency",
    "HeadToHead",
    "Interval",
    "SeatStats",
    "Standings",
    "StatsError",
    "duplicate_efficiency",
    "load_scipy",
    "mean_interval",
    "standings",
    "t_quantile",
    "units_needed",
]

CONFIDENCE = 0.95

BotStatus = Literal["ok", "dropped", "deactivated", "retired"]


class StatsError(ValueError):
    """The records cannot be summarised together (no sets, or sets of different games)."""


def t_quantile(probability: float, dof: int) -> float:
    """Student's t quantile; scipy is imported here, not at module load, so ``kierki --help`` stays fast."""
    from scipy.stats import t as student_t

    return float(student_t.ppf(probability, dof))


def load_scipy() -> None:
    """Import scipy now, before a run's first game. Otherwise the first standings (the progress line after the
    first set) import it mid-run, and a Ctrl-C or SIGTERM landing inside that import leaves numpy half-imported
    for good: the standings printed after the stop then fail with a traceback."""
    t_quantile(0.975, 1)


@dataclass(frozen=True)
class Interval:
    """A mean of ``n`` independent observations and the half-width of its two-sided confidence interval."""

    mean: float
    half_width: float  # math.inf when n < 2: one observation says nothing about the spread
    n: int

    @property
    def low(self) -> float:
        return self.mean - self.half_width

    @property
    def high(self) -> float:
        return self.mean + self.half_width

    @property
    def width(self) -> float:
        """high − low: what ``--until-ci WIDTH`` compares (inf with fewer than two sets)."""
        return 2.0 * self.half_width

    @property
    def defined(self) -> bool:
        return math.isfinite(self.half_width)


def mean_interval(values: Sequence[float], confidence: float = CONFIDENCE) -> Interval:
    """Mean and Student-t confidence half-width ``t(1 − (1 − c)/2, n − 1) · s / √n`` of independent values."""
    n = len(values)
    if n == 0:
        return Interval(mean=math.nan, half_width=math.inf, n=0)
    mean = math.fsum(values) / n
    if n < 2:
        return Interval(mean=mean, half_width=math.inf, n=n)
    variance = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    half = t_quantile(1.0 - (1.0 - confidence) / 2.0, n - 1) * math.sqrt(variance / n)
    return Interval(mean=mean, half_width=half, n=n)


@dataclass(frozen=True)
class BotStats:
    """One bot's summary over a tournament."""

    bot: str
    rank: int | None  # 1-based position among the ranked bots; None: the bot never played a game of its own
    rating: Rating
    sets: int
    games: int
    score: Interval  # mean score per game over sets (one observation per set), in the game's raw points
    mean_place: float  # under the ranking rule: a game the fallback played (in part) for the bot is a last place
    first_places: int  # games any seat of the bot finished first in (alone or tied), playing for itself (`won_by`)
    faults: dict[FaultCode, int] = field(default_factory=dict)  # fault code -> count, summed over games and seats
    start_failures: int = 0  # seats the bot could not start or failed its handshake in
    forfeits: int = 0  # seats forfeited during a game (a start failure forfeits its seat too)
    status: BotStatus = "ok"
    reason: str | None = None  # why the bot was dropped (or deactivated, retired)
    fallback_games: int = 0  # games the fallback played (in part) for the bot: their points are the fallback's
    fallback_score: float = math.nan  # the mean points per game of those games (nan without any)
    cpu_ms: float | None = None  # CPU time of its control groups over every game, start-ups included (None: never)
    seats_per_game: int = 1  # the most seats it filled in one game (fewer bots than seats: a gauntlet's field)
    analysed_decisions: int = 0  # its decisions that ``--analyse`` weighed (kierki analyse)
    analysed_loss: float = 0.0  # the points they lost in all, by the analysis

    @property
    def loss_per_decision(self) -> float | None:
        """The analysis's mean loss a decision (None: no game of the bot was analysed)."""
        return self.analysed_loss / self.analysed_decisions if self.analysed_decisions else None

    @property
    def ranked(self) -> bool:
        return self.rank is not None


@dataclass(frozen=True)
class HeadToHead:
    """Over the games where both ``bot`` and ``other`` sat, how often ``bot`` finished ahead of ``other`` by place."""

    bot: str
    other: str
    ahead: int
    behind: int
    tied: int

    @property
    def games(self) -> int:
        return self.ahead + self.behind + self.tied

    @property
    def score(self) -> float:
        """Share of those games won, a tie counting half (nan without games)."""
        return (self.ahead + 0.5 * self.tied) / self.games if self.games else math.nan


@dataclass(frozen=True)
class SeatStats:
    """The mean score of one seat over all games, with an interval over sets (the seat's bias, not any bot's)."""

    seat: int
    games: int
    score: Interval


@dataclass(frozen=True)
class Standings:
    """Everything a report shows; ``bots`` is ordered best first."""

    game: str
    players: int
    higher_is_better: bool
    sets: int
    games: int
    bots: tuple[BotStats, ...]
    head_to_head: tuple[HeadToHead, ...]  # every ordered pair of bots that met, in standings order
    seats: tuple[SeatStats, ...]
    confidence: float = CONFIDENCE

    def bot(self, name: str) -> BotStats:
        for stats in self.bots:
            if stats.bot == name:
                return stats
        raise KeyError(name)

    def pair(self, bot: str, other: str) -> HeadToHead | None:
        for h2h in self.head_to_head:
            if h2h.bot == bot and h2h.other == other:
                return h2h
        return None


def _check_same_game(records: Sequence[SetRecord]) -> None:
    if not records:
        raise StatsError("no finished sets to summarise: play at least one set")
    kinds = {(r.game, r.players, r.higher_is_better) for r in records}
    if len(kinds) > 1:
        shown = ", ".join(sorted(f"{game} with {players} players" for game, players, _ in kinds))
        raise StatsError(f"the results mix different games ({shown}): summarise each game separately")


def _names(record: SetRecord) -> list[str]:
    names = dict.fromkeys(record.bots)
    for game in record.games:
        names.update(dict.fromkeys(game.seats))
    return list(names)


@dataclass
class _Tally:
    """One bot's running counts while the records are read."""

    set_means: list[float] = field(default_factory=list)  # one observation per set: its mean score per game
    games: int = 0
    place_sum: float = 0.0
    first_places: int = 0
    faults: Counter[FaultCode] = field(default_factory=Counter)
    start_failures: int = 0
    forfeits: int = 0
    own_games: int = 0  # games the bot played for itself (no seat of its played by the fallback)
    fallback_points: list[float] = field(default_factory=list)
    cpu_ms: float | None = None
    seats_per_game: int = 1
    analysed_decisions: int = 0
    analysed_loss: float = 0.0


def _tally_bots(sets: Sequence[SetRecord]) -> dict[str, _Tally]:
    tallies: dict[str, _Tally] = defaultdict(_Tally)
    for record in sets:
        for bot in _names(record):
            played = [game for game in record.games if bot in game.seats]
            if played:
                tallies[bot].set_means.append(math.fsum(game.score_of(bot) for game in played) / len(played))
        for game in record.games:
            for bot in dict.fromkeys(game.seats):  # a bot in several seats counts once a game
                tally = tallies[bot]
                place = game.place_of(bot)
                fallback = game.fallback_of(bot)
                tally.games += 1
                tally.place_sum += place
                tally.first_places += int(game.won_by(bot))
                tally.seats_per_game = max(tally.seats_per_game, game.seats.count(bot))
                tally.own_games += int(not fallback)
                if fallback:
                    tally.fallback_points.append(game.score_of(bot))
            for seat, bot in enumerate(game.seats):  # faults and failures belong to seats: summed over them
                tally = tallies[bot]
                if seat < len(game.faults):
                    tally.faults.update(game.faults[seat])
                tally.start_failures += int(seat < len(game.start_failed) and game.start_failed[seat])
                tally.forfeits += int(seat < len(game.forfeited) and game.forfeited[seat])
                cpu = game.cpu_of(seat)
                if cpu is not None:
                    tally.cpu_ms = (tally.cpu_ms or 0.0) + cpu
                analysed = game.analysis[seat] if seat < len(game.analysis) else None
                if analysed is not None:
                    tally.analysed_decisions += analysed.decisions
                    tally.analysed_loss += analysed.loss
    return tallies


def _head_to_head(sets: Sequence[SetRecord], order: Sequence[str]) -> tuple[HeadToHead, ...]:
    """Every ordered pair that met, in standings order; compared by place in each game where both sat."""
    counts: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    for record in sets:
        for game in record.games:
            present = list(dict.fromkeys(game.seats))
            for a in present:
                for b in present:
                    if a != b:
                        pa, pb = game.place_of(a), game.place_of(b)
                        counts[a, b]["ahead" if pa < pb else "behind" if pb < pa else "tied"] += 1
    return tuple(
        HeadToHead(bot=a, other=b, ahead=met["ahead"], behind=met["behind"], tied=met["tied"])
        for a in order
        for b in order
        if (met := counts.get((a, b))) is not None
    )


def _seat_bias(sets: Sequence[SetRecord], confidence: float) -> tuple[SeatStats, ...]:
    """Each seat's mean score per game whoever sat there; the interval again treats one set as one observation."""
    games: Counter[int] = Counter()
    set_means: dict[int, list[float]] = defaultdict(list)
    for record in sets:
        in_set: dict[int, list[float]] = defaultdict(list)
        for game in record.games:
            for seat, total in enumerate(game.totals):
                in_set[seat].append(total)
                games[seat] += 1
        for seat, totals in in_set.items():
            set_means[seat].append(math.fsum(totals) / len(totals))
    return tuple(
        SeatStats(seat=seat, games=games[seat], score=mean_interval(set_means[seat], confidence))
        for seat in sorted(games)
    )


def standings(
    records: Iterable[SetRecord],
    params: RatingParams | None = None,
    confidence: float = CONFIDENCE,
    status: Mapping[str, tuple[BotStatus, str | None]] | None = None,
) -> Standings:
    """Summarise finished sets: per-bot scores with intervals, ratings, head-to-head and seat bias.

    ``status`` gives the bots that are not ``ok`` (dropped by a tournament, deactivated or retired in a ladder)
    with the reason. Order: the bots that played a game of their own, those ``ok`` above the others, each by rating
    μ − 3σ (best first), then mean score per game (in the game's own direction), then name; ranked 1..n. A bot
    that never played a game of its own (the fallback played every one of its seats) is listed last, unranked.
    """
    sets = list(records)
    _check_same_game(sets)
    first = sets[0]
    sign = 1.0 if first.higher_is_better else -1.0
    status = status or {}

    tallies = _tally_bots(sets)
    ratings = rate(sets, params)
    prior = params or RatingParams()
    unrated = Rating(mu=prior.mu, sigma=prior.sigma, sets=0)  # a bot that only ever sat alone
    scores = {bot: mean_interval(tally.set_means, confidence) for bot, tally in tallies.items()}

    def order(bot: str) -> tuple[bool, bool, float, float, str]:
        unranked = tallies[bot].own_games == 0
        working = status.get(bot, ("ok", None))[0] == "ok"
        return unranked, not working, -ratings.get(bot, unrated).conservative, -sign * scores[bot].mean, bot

    ranked = sorted(tallies, key=order)
    ranks = itertools.count(1)
    bots = tuple(
        BotStats(
            bot=bot,
            rank=next(ranks) if tallies[bot].own_games else None,
            rating=ratings.get(bot, unrated),
            sets=len(tallies[bot].set_means),
            games=tallies[bot].games,
            score=scores[bot],
            mean_place=tallies[bot].place_sum / tallies[bot].games,
            first_places=tallies[bot].first_places,
            faults=dict(sorted(tallies[bot].faults.items())),
            start_failures=tallies[bot].start_failures,
            forfeits=tallies[bot].forfeits,
            status=status.get(bot, ("ok", None))[0],
            reason=status.get(bot, ("ok", None))[1],
            fallback_games=len(tallies[bot].fallback_points),
            fallback_score=(
                math.fsum(tallies[bot].fallback_points) / len(tallies[bot].fallback_points)
                if tallies[bot].fallback_points
                else math.nan
            ),
            cpu_ms=tallies[bot].cpu_ms,
            seats_per_game=tallies[bot].seats_per_game,
            analysed_decisions=tallies[bot].analysed_decisions,
            analysed_loss=tallies[bot].analysed_loss,
        )
        for bot in ranked
    )
    return Standings(
        game=first.game,
        players=first.players,
        higher_is_better=first.higher_is_better,
        sets=len(sets),
        games=sum(len(record.games) for record in sets),
        bots=bots,
        head_to_head=_head_to_head(sets, ranked),
        seats=_seat_bias(sets, confidence),
        confidence=confidence,
    )


# --- how much duplicate play saves -----------------------------------------------------------------------------


def units_needed(spread: float, difference: float, confidence: float = CONFIDENCE) -> float:
    """The fewest independent units ``n`` (at least 2) whose Student-t interval ``t · spread / √n`` is narrower than
    ``|difference|``, i.e. that tell the two bots apart at ``confidence``; ``math.inf`` when ``difference`` is 0."""
    if difference == 0.0 or not math.isfinite(spread):
        return math.inf
    if spread == 0.0:
        return 2.0
    quantile = 1.0 - (1.0 - confidence) / 2.0
    # Start from the normal approximation and walk up: the t quantile only shrinks towards it as n grows.
    z = NormalDist().inv_cdf(quantile)
    n = max(2, math.ceil((z * spread / abs(difference)) ** 2))
    while t_quantile(quantile, n - 1) * spread / math.sqrt(n) > abs(difference):
        n += 1
    return float(n)


@dataclass(frozen=True)
class DuplicateEfficiency:
    """Games needed to separate two bots at ``confidence`` with random deals against with duplicate sets."""

    difference: float  # the common estimate of a − b per game used for both (precision-weighted)
    random_spread: float  # standard deviation of a − b over single random-deal games
    set_spread: float  # standard deviation of a − b (per game) over duplicate sets
    games_per_set: float
    random_games: float  # games of random deals needed
    duplicate_sets: float  # duplicate sets needed
    confidence: float = CONFIDENCE

    @property
    def duplicate_games(self) -> float:
        return self.duplicate_sets * self.games_per_set

    @property
    def ratio(self) -> float:
        """How many times fewer games duplicate play needs (> 1 means duplicate sets are worth it)."""
        return self.random_games / self.duplicate_games if self.duplicate_games else math.nan


def _mean_and_spread(values: Sequence[float]) -> tuple[float, float]:
    mean = math.fsum(values) / len(values)
    return mean, math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (len(values) - 1))


def duplicate_efficiency(
    random_games: Iterable[SetRecord],
    duplicate_sets: Iterable[SetRecord],
    a: str,
    b: str,
    confidence: float = CONFIDENCE,
) -> DuplicateEfficiency:
    """Compare the cost of telling ``a`` from ``b`` with games of random deals and with duplicate sets.

    ``random_games``: records whose every game had its own deals (each game is one independent unit; a record may
    hold one or several such games). ``duplicate_sets``: duplicate sets (each set is one unit). Both need ``a`` and
    ``b`` at the table. The same difference (the precision-weighted mean of both samples' estimates) is used for
    both, so the ratio reflects the spreads — the luck each design leaves in — and not two noisy means:
    ratio ≈ random-game variance / (games per set × per-set variance).
    """
    singles = [
        game.score_of(a) - game.score_of(b)
        for record in random_games
        for game in record.games
        if a in game.seats and b in game.seats
    ]
    sets = [record for record in duplicate_sets if a in record.bots and b in record.bots]
    per_set = [record.mean_per_game(a) - record.mean_per_game(b) for record in sets]
    if len(singles) < 2 or len(per_set) < 2:
        raise StatsError(
            f"need at least 2 random-deal games and 2 duplicate sets with both {a!r} and {b!r}; "
            f"got {len(singles)} and {len(per_set)}"
        )
    random_mean, random_spread = _mean_and_spread(singles)
    set_mean, set_spread = _mean_and_spread(per_set)
    if set_spread == 0.0:
        difference = set_mean
    elif random_spread == 0.0:
        difference = random_mean
    else:
        random_weight, set_weight = len(singles) / random_spread**2, len(per_set) / set_spread**2
        difference = (random_weight * random_mean + set_weight * set_mean) / (random_weight + set_weight)
    games_per_set = math.fsum(len(record.games) for record in sets) / len(sets)
    return DuplicateEfficiency(
        difference=difference,
        random_spread=random_spread,
        set_spread=set_spread,
        games_per_set=games_per_set,
        random_games=units_needed(random_spread, difference, confidence),
        duplicate_sets=units_needed(set_spread, difference, confidence),
        confidence=confidence,
    )
