"""Train sb3-contrib's MaskablePPO for one Hearts seat against three heuristic bots, export it to numpy, and
measure the exported policy in whole games against the same opponents.

    pip install -e '.[rl-train]'          # torch, sb3-contrib (torch: see docs/bots/learning.md)
    nice -n 10 python examples/train_maskable_ppo.py --steps 500000 --out hearts_ppo.npz
    kierki match --game hearts 'python examples/numpy_policy_bot.py hearts_ppo.npz' sample:heuristic \\
        sample:heuristic sample:heuristic

The environment is ``gymnasium.make("referee.learning:kierki/Hearts-v0", opponents="heuristic")`` with the
observation vector alone as the network's input (the mask goes to MaskablePPO through ``action_masks()``, not
into the network), and MaskablePPO's default policy (two hidden layers of 64, tanh). After training, the policy
network is written as an `MlpPolicy` ``.npz`` (`referee.learning.export`) and that file, not the torch model, plays
``--games`` games of Hearts (to 100) at seat 0 against three heuristic seats, from match seeds the training never
saw. Printed: the learner's points a deal against the heuristic seats' average (lower is better in Hearts), the
games it won (the lowest final total; a shared lowest counts as a win for each), and the CPU seconds of
training and of the evaluation.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np

from referee.learning import SingleSeatEnv
from referee.learning.export import MlpPolicy


class VectorOnly(gymnasium.ObservationWrapper[Any, Any, Any]):
    """The observation vector alone (the policy's input); the mask is still there through ``action_masks()``."""

    def __init__(self, env: gymnasium.Env[Any, Any]) -> None:
        super().__init__(env)
        space = env.observation_space
        assert isinstance(space, gymnasium.spaces.Dict)
        self.observation_space = space["observation"]

    def observation(self, observation: dict[str, np.ndarray]) -> np.ndarray:
        return observation["observation"]

    def action_masks(self) -> np.ndarray:
        unwrapped = self.env.unwrapped
        assert isinstance(unwrapped, SingleSeatEnv)
        return unwrapped.action_masks()


def train(steps: int, seed: int) -> MlpPolicy:
    import torch
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(1)
    env = VectorOnly(gymnasium.make("referee.learning:kierki/Hearts-v0", opponents="heuristic"))
    model = MaskablePPO("MlpPolicy", env, seed=seed, verbose=0, device="cpu")
    model.learn(total_timesteps=steps)
    policy_net, action_net = model.policy.mlp_extractor.policy_net, model.policy.action_net
    linears = [layer for layer in policy_net if isinstance(layer, torch.nn.Linear)] + [action_net]
    layers = [(lin.weight.detach().numpy().T.copy(), lin.bias.detach().numpy().copy()) for lin in linears]
    exported = MlpPolicy(layers, "tanh")
    # The export decides as the trained model does (its deterministic, masked prediction) on fresh observations.
    check = SingleSeatEnv("hearts", seat=0, opponents="heuristic")
    observation, _ = check.reset(seed=seed + 10**7)
    for _ in range(300):
        theirs, _ = model.predict(observation["observation"], deterministic=True, action_masks=check.action_masks())
        ours = exported(observation)
        assert int(theirs) == ours, f"the numpy export chose {ours}, the model {int(theirs)}"
        observation, _, terminated, _, _ = check.step(ours)
        if terminated:
            observation, _ = check.reset()
    return exported


def evaluate(policy: MlpPolicy, games: int, first_seed: int) -> dict[str, float]:
    """Whole games at seat 0 against three heuristic seats: points a deal and games won."""
    env = SingleSeatEnv("hearts", seat=0, opponents="heuristic")
    learner_points = other_points = deals = won = 0.0
    for game in range(games):
        observation, _ = env.reset(seed=first_seed + game)
        terminated = False
        while not terminated:
            observation, _, terminated, _, _ = env.step(policy(observation))
        state = env.aec.game_state
        assert state is not None
        deals += len(state.deal_results)
        learner_points += state.totals[0]
        other_points += sum(state.totals[1:]) / 3
        won += state.totals[0] == min(state.totals)
    return {
        "deals": deals,
        "learner_points_per_deal": learner_points / deals,
        "heuristic_points_per_deal": other_points / deals,
        "games_won": won,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=500_000, help="learner steps of training [500000]")
    parser.add_argument("--games", type=int, default=200, help="games of the evaluation [200]")
    parser.add_argument("--seed", type=int, default=1, help="the training's seed [1]")
    parser.add_argument("--out", type=Path, default=Path("hearts_ppo.npz"), help="the exported policy")
    args = parser.parse_args(argv)
    if args.steps < 1 or args.games < 1:
        parser.error("--steps and --games must be at least 1")
    start = time.process_time()
    policy = train(args.steps, args.seed)
    trained = time.process_time()
    policy.save(args.out)
    result = evaluate(MlpPolicy.load(args.out), args.games, first_seed=10**6)
    evaluated = time.process_time()
    print(
        f"trained {args.steps} steps in {trained - start:.0f} CPU s; exported to {args.out}\n"
        f"{args.games} games ({result['deals']:.0f} deals) at seat 0 against 3 heuristic seats, "
        f"{evaluated - trained:.0f} CPU s: learner {result['learner_points_per_deal']:.2f} points a deal, "
        f"heuristic seats {result['heuristic_points_per_deal']:.2f} (lower is better); "
        f"games won {result['games_won']:.0f} of {args.games} (a quarter would be {args.games / 4:.0f})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
