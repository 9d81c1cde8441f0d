"""Print a digest of many seeded games, playouts and sampled worlds, for tests/test_compiled.py.

Run once with the pure source and once with the compiled build (``PYTHONPATH=DIR`` first): the two outputs must
be identical. One line per game: its index and a hash of the ``repr`` of every event; then one line per playout
and sampled world. The first line names the build, so the caller can check which one ran.
"""

from __future__ import annotations

import hashlib
import random
import sys

from referee.rules import GameState, Phase, PlayCard, Ruleset, playout, sample_state
from referee.rules import state as state_module

GAMES = [("kierki", 4), ("kierki3", 3), ("hearts", 4), ("cancellation", 6), ("cancellation", 9)]


def main(count: int) -> None:
    built = state_module.__file__ or ""
    print("compiled" if not built.endswith(".py") else "pure")
    for index in range(count):
        game, players = GAMES[index % len(GAMES)]
        ruleset = Ruleset.create(game, players)
        state = GameState(ruleset, seed=index)
        rng = random.Random(index)
        playouts = []
        while not state.is_over:
            if state.phase is Phase.PLAY and rng.random() < 0.8:
                state.apply(PlayCard(rng.choice(state.legal_plays())))
            else:
                state.apply(state.fallback_action())
            if not state.is_over and rng.random() < 0.02:
                playouts.append(playout(state, rng))
                if state.phase in (Phase.PLAY, Phase.PASS, Phase.TRUMP):  # every phase a world is sampled in
                    world = sample_state(ruleset, state.observation(state.to_act), rng)
                    playouts.append(tuple(world.hand(s)[0] if world.hand(s) else -1 for s in range(players)))
                    playouts.append(playout(world, rng))
        digest = hashlib.sha256(repr(state.events).encode()).hexdigest()[:16]
        print(index, game, players, len(state.events), digest, state.totals, playouts)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100)
