"""The expert bot: every decision valued by the search library (``referee.search.evaluate``) within a budget of
its own CPU time.

- **play**: every legal card, in worlds sampled from what the seat knows (its hand, the cards played, the voids
  shown, the cards it passed and received, Cancellation's kitty), each deal played out by the rollout policy, or
  exactly (max^n, every card known) once few cards remain.
- **pass**: the rule of thumb's pass and the other threes of its five most dangerous cards, each made in the same
  sampled deals and played out.
- **trump** (Kierki, the dealer seeing its first 5 or 6 cards): each suit it may name (and no trump where the rules
  allow it), in the same sampled deals of the rest.
- **moon**: the two outcomes' values for the match: the deal's margin (the same either way), and the game won or
  lost when an outcome ends it (``referee.search.match_value``).

Every choice but the moon is valued by the deal's margin (the seat's points less the mean of the others'), which is
what a match's points add up; the first version's half-target bonus for ending the game first counts wins, not
points (it trailed the Monte Carlo bot over 3 sets of Hearts to 50, docs/bots/expert.md). The worlds are weighted
by the others' plays (``infer``).

The budget: ``--share`` (0.6) of the move's time plus a twentieth of the time bank, counted in this process's CPU
time, never past 75% of the request's ``time_ms`` less 80 ms, and the same cap on the wall clock, so it answers in
time whichever clock the referee measures (``--fair-play cgroup`` or ``none``). With ``--cpu-clock`` (for a referee
that times CPU) the wall clock may run to 75% of the referee's own wall cap instead, so that a loaded machine does
not cut its thinking short; under ``--fair-play none`` that could be late. A decision that fails for any
reason is answered by the first legal choice, and logged.
"""

from __future__ import annotations

import random
import sys
import time
import traceback
from collections.abc import Callable
from typing import Final, TypeVar

import referee.rules as rules
from protocol import messages as m
from protocol.bot import Bot
from referee.search import Budget, Evaluation, Objective, SeatKnowledge, evaluate

DEFAULT_SHARE: Final = 0.6
BANK_SHARE: Final = 1 / 20  # of the bank left, spent on any one decision
MAX_SHARE: Final = 0.75  # of the request's time_ms, on either clock
SAFETY_MS: Final = 80  # pipes, the last playout's overrun, being descheduled
SUITS: Final = "CDHS"
Answer = TypeVar("Answer")


class ExpertBot(Bot):
    name = "expert"
    version = "1.0"

    def __init__(
        self,
        *,
        share: float = DEFAULT_SHARE,
        playouts: int | None = None,
        seed: int | None = None,
        verbose: bool = False,
        infer: bool = True,
        cpu_clock: bool = False,
    ) -> None:
        self.share = share
        self.infer = infer
        self.cpu_clock = cpu_clock  # the referee times this bot's CPU (--fair-play cgroup), not the wall clock
        self.playouts = playouts
        self.rng = random.Random(seed)
        self.verbose = verbose
        self.knowledge = SeatKnowledge(rules.Ruleset.create("hearts", 4), 0)  # until hello says which game
        self.move_ms = 1000
        self.last: Evaluation | None = None  # the last decision's search, for tests and --verbose
        self.failures = 0  # decisions answered by the first legal choice because the search failed

    def on_hello(self, request: m.HelloRequest) -> None:
        self.knowledge = SeatKnowledge.from_hello(request)
        self.move_ms = request.time.move_ms

    # --- the budget ----------------------------------------------------------------------------------------------

    def budget(self, time_ms: int) -> Budget:
        """CPU milliseconds for one decision of ``time_ms`` (the move's time and what is left of the bank)."""
        cap = max(int(time_ms * MAX_SHARE) - SAFETY_MS, 1)
        # A referee that times CPU stops a bot on the wall clock only at twice time_ms plus a second (PROTOCOL.md
        # section 6): there a loaded machine's wall clock need not cut the thinking short.
        wall = max(int((2 * time_ms + 1000) * MAX_SHARE) - SAFETY_MS, 1) if self.cpu_clock else cap
        if self.playouts is not None:
            return Budget(playouts=self.playouts, wall_ms=wall)
        bank = max(time_ms - self.move_ms, 0)
        wanted = int(self.move_ms * self.share + bank * BANK_SHARE)
        return Budget(cpu_ms=max(min(wanted, cap), 1), wall_ms=wall)

    # --- decisions -------------------------------------------------------------------------------------------------

    def _search(
        self, what: str, request: m.PassRequest | m.TrumpRequest | m.PlayRequest | m.MoonRequest
    ) -> rules.Action:
        started = time.process_time()
        seen = self.knowledge.observation(request)
        found = evaluate(
            self.knowledge.ruleset,
            seen,
            self.budget(request.time_ms),
            self.rng.getrandbits(63),
            # Points are what a match and a tournament count: the deal's margin, except for the moon, whose two
            # outcomes have the same margin and differ only in who wins if the game ends.
            objective=Objective.MATCH if isinstance(request, m.MoonRequest) else Objective.DEAL,
            infer=self.infer,
        )
        self.last = found
        if self.verbose:
            best = found.best()
            print(
                f"expert: {what} {request.deal}: {found.worlds} worlds, {found.playouts} playouts, best "
                f"{best.value:.2f}±{best.stderr:.2f}, {(time.process_time() - started) * 1000:.0f} ms CPU",
                file=sys.stderr,
                flush=True,
            )
        return found.best().action

    def _guarded(self, what: str, decide: Callable[[], Answer], fallback: Answer) -> Answer:
        try:
            return decide()
        except Exception:
            self.failures += 1
            print(
                f"expert: {what} failed, answering the first legal choice:\n{traceback.format_exc()}", file=sys.stderr
            )
            return fallback

    def play(self, request: m.PlayRequest) -> str:
        self.last = None
        if len(request.legal) == 1:
            return request.legal[0]

        def decide() -> str:
            action = self._search("play", request)
            assert isinstance(action, rules.PlayCard)
            return rules.card_name(action.card)

        return self._guarded("play", decide, request.legal[0])

    def pass_cards(self, request: m.PassRequest) -> list[str]:
        def decide() -> list[str]:
            action = self._search("pass", request)
            assert isinstance(action, rules.PassCards)
            return [rules.card_name(card) for card in action.cards]

        return self._guarded("pass", decide, list(request.hand[-request.count :]))

    def trump(self, request: m.TrumpRequest) -> str | None:
        def decide() -> str | None:
            action = self._search("trump", request)
            assert isinstance(action, rules.ChooseTrump)
            return None if action.suit is None else SUITS[action.suit]

        first: str = request.choices[0]
        return self._guarded("trump", decide, None if first == "NT" else first)

    def moon(self, request: m.MoonRequest) -> str:
        def decide() -> str:
            action = self._search("moon", request)
            assert isinstance(action, rules.ChooseMoon)
            return action.option.value

        return self._guarded("moon", decide, "others")
