"""A trained policy exported to numpy (`referee.learning.export.MlpPolicy`), playing as a protocol bot.

    kierki match --game hearts 'python examples/numpy_policy_bot.py hearts_ppo.npz' sample:heuristic \\
        sample:heuristic sample:heuristic

It imports numpy and the bot library, not torch: it answers ``hello`` well within the default start-up time
(docs/bots/learning.md gives the measured figures, bench/run.py policy_bot_startup).
"""

from __future__ import annotations

import sys

from referee.learning.bot import run_policy
from referee.learning.export import MlpPolicy

if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: numpy_policy_bot.py POLICY.npz")
    run_policy(MlpPolicy.load(sys.argv[1]), name="numpy-policy", version="1")
