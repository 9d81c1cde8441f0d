"""The plain data a tournament produces: one record per game, one per duplicate set.

These are the only shapes that cross from the runner (which plays games) to the statistics, the ratings, the
reports, the results file and the ladder's database, so each of those can be tested on data made by hand.
A set's record is one line of the results file (``msgspec`` JSON), written once the whole set is finished.
"""

from __future__ import annotations

import msgspec

from referee.api import FaultCode

__all__ = ["GameRecord", "SeatAnalysis", "SetRecord", "decode_set", "encode_set"]


class SeatAnalysis(msgspec.Struct, frozen=True, kw_only=True):
    """One seat's figures from ``kierki analyse`` (``referee.analysis``): its analysed decisions (its own, with a
    choice), the points they lost in all, and its largest losses as (decision number, loss, class or None)."""

    decisions: int
    loss: float
    largest: tuple[tuple[int, float, str | None], ...] = ()


class GameRecord(msgspec.Struct, frozen=True, kw_only=True):
    """One game of a set: which bot sat where and how each seat did."""

    index: int  # 0-based position in the set (the rotation it played)
    seats: tuple[str, ...]  # bot name at each seat
    totals: tuple[int, ...]  # per seat: the game's final total
    places: tuple[int, ...]  # per seat: 1 is best, equal totals share a place
    faults: tuple[dict[FaultCode, int], ...] = ()  # per seat: fault code -> count
    start_failed: tuple[bool, ...] = ()  # per seat: the bot could not start or failed its handshake
    forfeited: tuple[bool, ...] = ()  # per seat: the seat was forfeited during the game
    replay: str | None = None  # the replay log, relative to the tournament's folder
    cpu_ms: tuple[float | None, ...] = ()  # per seat: its bot's CPU time, start-up included (None: not measured)
    analysis: tuple[SeatAnalysis | None, ...] = ()  # per seat, when the run analyses its games (empty: it did not)

    def score_of(self, bot: str) -> float:
        """The bot's total; the mean of its seats when it sat in several (fewer bots than seats)."""
        mine = [total for seat, total in zip(self.seats, self.totals, strict=True) if seat == bot]
        return sum(mine) / len(mine)

    def cpu_of(self, seat: int) -> float | None:
        """The CPU time (ms) of the bot at ``seat``, start-up included; None where not measured."""
        return self.cpu_ms[seat] if seat < len(self.cpu_ms) else None

    def place_of(self, bot: str) -> float:
        """The bot's place under the ranking rule (`ranked_places`); the mean of its seats' when it sat in several."""
        mine = [place for seat, place in zip(self.seats, self.ranked_places, strict=True) if seat == bot]
        return sum(mine) / len(mine)

    def won_by(self, bot: str) -> bool:
        """A seat of the bot finished first (alone or tied) under the ranking rule, played by the bot itself: where
        a bot fills several seats (fewer bots than seats, a gauntlet's field), any one of them wins the game."""
        return any(
            name == bot and place == 1 and not self.fallback_seat(seat)
            for seat, (name, place) in enumerate(zip(self.seats, self.ranked_places, strict=True))
        )

    def fallback_seat(self, seat: int) -> bool:
        """The referee's fallback played some or all of the seat's game: its bot could not start, crashed or
        forfeited."""
        return (seat < len(self.forfeited) and self.forfeited[seat]) or (
            seat < len(self.start_failed) and self.start_failed[seat]
        )

    def fallback_of(self, bot: str) -> bool:
        """The fallback played (some of) one of the bot's seats in this game."""
        return any(name == bot and self.fallback_seat(seat) for seat, name in enumerate(self.seats))

    @property
    def ranked_places(self) -> tuple[int, ...]:
        """The ranking rule: per seat, its place for ratings, places and wins. A seat the fallback played (in part)
        finishes last, tied with any other such seat, whatever its points; the other seats keep their order.
        ``places`` (by points alone) stays as the referee reported it."""
        fallback = [self.fallback_seat(seat) for seat in range(len(self.seats))]
        if not any(fallback):
            return self.places
        kept = [place for place, fell in zip(self.places, fallback, strict=True) if not fell]
        last = len(kept) + 1
        return tuple(
            last if fell else 1 + sum(1 for other in kept if other < place)
            for place, fell in zip(self.places, fallback, strict=True)
        )


class SetRecord(msgspec.Struct, frozen=True, kw_only=True):
    """A duplicate set: one deal sequence (``seed``) played under every seat rotation of ``bots``."""

    set_id: int
    seed: str  # the deal seed of every game in the set, as text (128-bit seeds do not fit JSON numbers safely)
    game: str
    players: int
    higher_is_better: bool  # Kierki: highest total wins; Hearts and Cancellation: lowest
    bots: tuple[str, ...]  # the table, in the seat order of the set's first game
    games: tuple[GameRecord, ...]

    def total(self, bot: str) -> float:
        """The bot's score summed over the set's games (per game: the mean of its seats)."""
        return sum(game.score_of(bot) for game in self.games)

    def mean_per_game(self, bot: str) -> float:
        return self.total(bot) / len(self.games)


_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder(SetRecord)


def encode_set(record: SetRecord) -> bytes:
    """One results-file line (with its newline)."""
    return _encoder.encode(record) + b"\n"


def decode_set(line: bytes) -> SetRecord:
    return _decoder.decode(line)
