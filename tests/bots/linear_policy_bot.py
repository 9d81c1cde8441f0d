"""A bot of referee.learning.bot playing tests/learning_helpers.py's linear policy; it writes each decision's
observation digest and action to stderr, so tests/test_learning_bot.py can compare them with the environment's.

Usage: linear_policy_bot.py GAME PLAYERS [WEIGHT_SEED]   (the layout needs the game before hello: a test knows it)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/, for learning_helpers

from learning_helpers import digest, linear_policy

from referee.learning import Layout
from referee.learning.bot import run_policy
from referee.rules import Ruleset

game, players = sys.argv[1], int(sys.argv[2])
seed = int(sys.argv[3]) if len(sys.argv) > 3 else 0
policy = linear_policy(Layout.of(Ruleset.create(game, players)).size, seed)


def logged(observation):
    action = policy(observation)
    print(f"decision {digest(observation)} {action}", file=sys.stderr, flush=True)
    return action


run_policy(logged, name="linear", version="1")
