"""The Monte Carlo bot: every decision searched over sampled worlds within a time budget.

- **play**: every legal card is tried in each sampled world (``worlds``) and the deal played out by the rollout
  policy (``referee.search.Rollout``, shared with the expert bot and the analysis); the card with the best total
  margin over the same worlds is played (``search``).
- **pass** (Hearts, Cancellation): the rule of thumb's pass and the other threes of its five most dangerous cards
  (``referee.search.candidate_passes``), each made in the same sampled deals (the other seats passing by the rule of
  thumb) and played out.
- **trump** (Kierki trump deals, the dealer seeing its first 5 or 6 cards): each suit it may name, named in the same
  sampled deals of the rest of the cards and played out.
- **moon**: no search is needed, the totals say it: take the option that ends the game while this seat leads, never
  one that ends it while another leads, otherwise the one that brings the end nearer when leading (``choose_moon``).

The budget is a quarter of each request's ``time_ms`` unless ``--budget-ms`` says otherwise, never more than 80%
of it and always 100 ms short of it; ``--playouts N`` caps the playouts per decision (with ``--seed``, a
repeatable bot for tests). A decision that fails for any reason is answered by the rule of thumb, and logged.
"""

from __future__ import annotations

import random
import sys
import traceback
from collections.abc import Callable, Sequence
from typing import Any, Final, TypeVar

import referee.rules as rules
from protocol import messages as m
from protocol.bot import Bot
from referee.search import Rollout, SeatKnowledge, candidate_passes, cards, forced_first, rule_of_thumb_pass, trump_suit
from sample_bots.montecarlo import worlds
from sample_bots.montecarlo.search import Budget, Tally, Trial, margin, search

SUITS: Final = "CDHS"
Answer = TypeVar("Answer")


class MonteCarloBot(Bot):
    name = "montecarlo"
    version = "1.0"

    def __init__(
        self,
        *,
        budget_ms: int | None = None,
        playouts: int | None = None,
        seed: int | None = None,
        verbose: bool = False,
    ) -> None:
        self.budget_ms = budget_ms
        self.playouts = playouts
        self.rng = random.Random(seed)
        self.verbose = verbose
        self.table = SeatKnowledge(rules.Ruleset.create("hearts", 4), 0)  # until hello says which game
        self.last: Tally[Any] | None = None  # the last decision's search, for tests and --verbose
        self.failures = 0  # decisions answered by the rule of thumb because the search failed

    # --- what the seat sees ------------------------------------------------------------------------------------

    def on_hello(self, request: m.HelloRequest) -> None:
        self.table = SeatKnowledge.from_hello(request)

    @property
    def higher_is_better(self) -> bool:
        return self.table.higher_is_better

    def _budget(self, time_ms: int) -> Budget:
        return Budget(time_ms, self.budget_ms, self.playouts)

    def _report(self, what: str, tally: Tally[Any], budget: Budget) -> None:
        self.last = tally
        if self.verbose:
            print(
                f"montecarlo: {what}: {tally.worlds} worlds, {tally.playouts} playouts, "
                f"{tally.failed_worlds} failed, {budget.elapsed_ms():.0f} ms",
                file=sys.stderr,
                flush=True,
            )

    def _guarded(self, what: str, decide: Callable[[], Answer], fallback: Callable[[], Answer]) -> Answer:
        try:
            return decide()
        except Exception:
            self.failures += 1
            print(f"montecarlo: {what} failed, answering by rule of thumb:\n{traceback.format_exc()}", file=sys.stderr)
            return fallback()

    # --- decisions ---------------------------------------------------------------------------------------------

    def play(self, request: m.PlayRequest) -> str:
        self.last = None
        if len(request.legal) == 1:
            return request.legal[0]
        return self._guarded("play", lambda: self._play(request), lambda: request.legal[0])

    def _play(self, request: m.PlayRequest) -> str:
        budget = self._budget(request.time_ms)
        seen = self.table.observation(request)
        tally = search(list(seen.legal), play_trial(self.table.ruleset, seen), budget, self.rng)
        self._report(f"play {request.deal}/{len(request.tricks) + 1}", tally, budget)
        return rules.card_name(tally.best())

    def pass_cards(self, request: m.PassRequest) -> list[str]:
        hand = list(cards(request.hand))
        fallback = [rules.card_name(c) for c in rule_of_thumb_pass(hand, request.count)]
        return self._guarded("pass", lambda: self._pass(request, hand), lambda: fallback)

    def _pass(self, request: m.PassRequest, hand: list[int]) -> list[str]:
        budget = self._budget(request.time_ms)
        table = self.table
        ruleset = table.ruleset
        seen = table.observation(request)
        kind = seen.kind
        higher = self.higher_is_better
        rollout = Rollout(ruleset, kind, None)

        def trial(rng: random.Random) -> Callable[[tuple[int, ...]], float] | None:
            try:
                world = worlds.sample(ruleset, seen, rng)
            except worlds.NoWorld:
                return None

            def score(mine: tuple[int, ...]) -> float:
                after = worlds.after_pass(world, seen.seat, mine)
                return margin(rules.playout(after, rng, rollout), seen.seat, higher)

            return score

        tally = search(candidate_passes(hand, request.count), trial, budget, self.rng)
        self._report(f"pass {request.deal}", tally, budget)
        return [rules.card_name(c) for c in tally.best()]

    def trump(self, request: m.TrumpRequest) -> str | None:
        seen = cards(request.cards)
        in_suit = {s: [c >> 2 for c in seen if c & 3 == SUITS.index(s)] for s in SUITS}
        ordered = sorted(
            request.choices, key=lambda s: (len(in_suit.get(s, [])), sum(in_suit.get(s, []))), reverse=True
        )
        first = ordered[0]
        answer = self._guarded("trump", lambda: self._trump(request, ordered), lambda: first)
        return None if answer == "NT" else answer

    def _trump(self, request: m.TrumpRequest, ordered: Sequence[str]) -> str:
        budget = self._budget(request.time_ms)
        table = self.table
        ruleset = table.ruleset
        seen = table.observation(request)
        higher = self.higher_is_better

        def trial(rng: random.Random) -> Callable[[str], float] | None:
            try:
                world = worlds.sample(ruleset, seen, rng)
            except worlds.NoWorld:
                return None

            def score(letter: str) -> float:
                suit = trump_suit(letter)
                after = worlds.after_trump(world, suit)
                return margin(
                    rules.playout(after, rng, Rollout(ruleset, rules.DealKind.TRUMP, suit)), seen.seat, higher
                )

            return score

        tally = search(ordered, trial, budget, self.rng)
        self._report(f"trump {request.deal}", tally, budget)
        return tally.best()

    def moon(self, request: m.MoonRequest) -> str:
        seat = self.table.seat_of(request.seat)
        return choose_moon(request.options.self_, request.options.others, seat, self.table.ruleset.target)


def play_trial(ruleset: rules.Ruleset, seen: rules.Observation) -> Trial[int]:
    """The search's trial for a card to play: a world sampled from ``seen``, each card played out in it."""
    higher = ruleset.game in (rules.Game.KIERKI, rules.Game.KIERKI3)
    rollout = Rollout(ruleset, seen.kind, seen.trump)

    def trial(rng: random.Random) -> Callable[[int], float] | None:
        try:
            world = worlds.sample(ruleset, seen, rng)
        except worlds.NoWorld:
            return None

        def score(choice: int) -> float:
            return margin(rules.playout(world, rng, forced_first(choice, rollout)), seen.seat, higher)

        return score

    return trial


def choose_moon(own: tuple[int, ...], others: tuple[int, ...], seat: int, target: int) -> str:
    """Lowest total wins. Either option moves this seat the moon's value against every other, so what differs is
    whether the game ends: end it while leading, never while behind; otherwise, leading, bring the end nearer."""

    def lead(totals: tuple[int, ...]) -> int:  # below 0: this seat is ahead of every other
        return totals[seat] - min(t for s, t in enumerate(totals) if s != seat)

    if max(others) >= target:
        return "others" if lead(others) < 0 else "self"
    return "others" if lead(own) < 0 else "self"
