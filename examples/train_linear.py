"""Train a linear policy to play Hearts against random opponents, and plot its learning curve.

    pip install 'kierki[rl]'
    python examples/train_linear.py                       # 6000 steps of the learner, about half a minute
    python examples/train_linear.py --steps 20000 --out curve.png

One seat (``SingleSeatEnv``, seat 0) learns; the other three play uniformly random legal cards. The policy is a
softmax over the legal actions of ``observation @ W`` (a linear score per action, illegal ones masked out), trained
by REINFORCE: after each deal, every decision of that deal is pushed towards what it got, the deal's reward (minus
the Hearts points the seat took) less a running average. The plot shows the reward per deal, averaged over
windows of deals, against the random policy's in the same games. Nothing here is tuned: it is the smallest loop
that learns something (mostly: shed spades above the queen, and hearts, when void), to start from.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # a file, no window
import gymnasium
import matplotlib.pyplot as plt
import numpy as np

from referee.learning import N_ACTIONS, SingleSeatEnv


def masked_softmax(scores: np.ndarray, mask: np.ndarray) -> np.ndarray:
    scores = np.where(mask == 1, scores, -np.inf)
    scores -= scores.max()
    weights = np.exp(scores)
    result: np.ndarray = weights / weights.sum()
    return result


def run(steps: int, seed: int, learning_rate: float, learn: bool) -> list[float]:
    """Play ``steps`` decisions of seat 0; the reward of each deal that ended, in order."""
    env = SingleSeatEnv("hearts", options={"target": 100}, seat=0, opponents="random")
    rng = np.random.default_rng(seed)
    space = env.observation_space
    assert isinstance(space, gymnasium.spaces.Dict)
    shape = space["observation"].shape
    assert shape is not None
    size = shape[0]
    weights = np.zeros((size, N_ACTIONS), dtype=np.float32)
    baseline = -6.5  # a random seat takes about 26/4 points a deal
    observation, _ = env.reset(seed=seed)
    episode: list[tuple[np.ndarray, np.ndarray, int]] = []
    deal_rewards: list[float] = []
    deals_seen = 0  # deal results of the game in play already counted
    for _ in range(steps):
        x = np.asarray(observation["observation"], dtype=np.float32)
        mask = np.asarray(observation["action_mask"], dtype=np.float32)
        probabilities = masked_softmax(x @ weights, mask) if learn else mask / mask.sum()
        action = int(rng.choice(N_ACTIONS, p=probabilities))
        episode.append((x, probabilities, action))
        observation, reward, terminated, _, _ = env.step(action)
        state = env.aec.game_state
        assert state is not None
        if len(state.deal_results) > deals_seen:  # a deal ended: every deal counts, those the seat took 0 in too
            deals_seen = len(state.deal_results)
            deal_rewards.append(reward)
            if learn:
                advantage = reward - baseline
                baseline += 0.05 * (reward - baseline)
                for features, probs, chosen in episode:
                    gradient = -probs
                    gradient[chosen] += 1  # d log softmax / d scores
                    weights += learning_rate * advantage * np.outer(features, gradient).astype(np.float32)
            episode = []
        if terminated:
            observation, _ = env.reset()
            deals_seen = 0
    return deal_rewards


def windows(values: list[float], width: int) -> tuple[np.ndarray, np.ndarray]:
    count = len(values) // width
    means = np.array(values[: count * width]).reshape(count, width).mean(axis=1) if count else np.array([])
    return (np.arange(count) + 1) * width, means


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=6000, help="decisions of the learning seat [6000]")
    parser.add_argument("--seed", type=int, default=1, help="match seed: the deals, and the random choices [1]")
    parser.add_argument("--learning-rate", type=float, default=0.03, help="step size of the updates [0.03]")
    parser.add_argument("--out", type=Path, default=Path("learning_curve.png"), help="the plot [learning_curve.png]")
    args = parser.parse_args(argv)
    if args.steps < 1:
        parser.error("--steps must be at least 1")
    learned = run(args.steps, args.seed, args.learning_rate, learn=True)
    random_play = run(args.steps, args.seed, args.learning_rate, learn=False)
    width = max(1, min(len(learned), len(random_play)) // 12)
    figure, axes = plt.subplots(figsize=(7, 4))
    for label, rewards in (("linear policy, learning", learned), ("random policy", random_play)):
        x, y = windows(rewards, width)
        axes.plot(x, y, marker="o", label=label)
    axes.set_xlabel("deals played")
    axes.set_ylabel(f"reward per deal (minus points), mean of {width}")
    axes.set_title(f"Hearts, seat 0 against 3 random seats, {args.steps} steps")
    axes.legend()
    figure.tight_layout()
    figure.savefig(args.out)
    first, last = np.mean(learned[: len(learned) // 4 or 1]), np.mean(learned[-(len(learned) // 4 or 1) :])
    print(
        f"{len(learned)} deals; learner's reward per deal: first quarter {first:.2f}, last quarter {last:.2f}; "
        f"random policy {np.mean(random_play):.2f}; plot in {args.out}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
