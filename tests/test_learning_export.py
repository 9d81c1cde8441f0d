"""From training to the ladder: a policy exported to numpy (referee/learning/export.py) loads back the same, decides
legal actions by its logits, and plays a real ``kierki match`` as a protocol bot (examples/numpy_policy_bot.py)."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from referee.learning import KierkiEnv
from referee.learning.export import MlpPolicy

ROOT = Path(__file__).resolve().parents[1]
KIERKI = "import sys; from kierki_cli.launch import main; sys.argv[0] = 'kierki'; main()"  # the installed command


def _policy(size: int, activation: str = "tanh") -> MlpPolicy:
    rng = np.random.default_rng(5)
    sizes = [size, 16, 59]
    layers = [
        (rng.standard_normal((a, b)).astype(np.float32), rng.standard_normal(b).astype(np.float32))
        for a, b in itertools.pairwise(sizes)
    ]
    return MlpPolicy(layers, activation)


@pytest.mark.parametrize("activation", ["tanh", "relu"])
def test_an_exported_policy_loads_back_and_takes_the_legal_action_of_highest_logit(
    tmp_path: Path, activation: str
) -> None:
    env = KierkiEnv("hearts")
    policy = _policy(env.layout.size, activation)
    policy.save(tmp_path / "p.npz")
    loaded = MlpPolicy.load(tmp_path / "p.npz")
    assert loaded.activation == activation
    env.reset(seed=1)
    for agent in env.agent_iter(200):
        observation, _, terminated, _, _ = env.last()
        assert observation is not None
        if terminated:
            env.step(None)
            continue
        x = observation["observation"]
        hidden = (
            np.tanh(x @ policy.layers[0][0] + policy.layers[0][1])
            if activation == "tanh"
            else np.maximum(x @ policy.layers[0][0] + policy.layers[0][1], 0)
        )
        logits = hidden @ policy.layers[1][0] + policy.layers[1][1]
        legal = np.flatnonzero(observation["action_mask"])
        action = loaded(observation)
        assert action == policy(observation) == int(legal[np.argmax(logits[legal])]), agent
        env.step(action)


def test_a_policy_of_the_wrong_shape_is_refused() -> None:
    with pytest.raises(ValueError, match="59 logits"):
        MlpPolicy([(np.zeros((4, 3), np.float32), np.zeros(3, np.float32))], "tanh")
    with pytest.raises(ValueError, match="activation must be one of tanh, relu"):
        MlpPolicy([(np.zeros((4, 59), np.float32), np.zeros(59, np.float32))], "sigmoid")


def test_the_numpy_policy_bot_plays_a_kierki_match(tmp_path: Path) -> None:
    _policy(KierkiEnv("hearts").layout.size).save(tmp_path / "policy.npz")
    bot = f"{sys.executable} {ROOT / 'examples' / 'numpy_policy_bot.py'} {tmp_path / 'policy.npz'}"
    command = [
        sys.executable, "-c", KIERKI, "match", "--game", "hearts", "--option", "target=30", "--seed", "3",
        "--out", str(tmp_path / "out"), bot, "sample:heuristic", "sample:heuristic", "sample:heuristic",
    ]  # fmt: skip
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads((tmp_path / "out" / "result.json").read_text())["status"] == "complete"
    row = next(line for line in done.stdout.splitlines() if "numpy-policy 1" in line)
    assert row.split()[-1] == "ok", row
    assert "not a legal action" not in (tmp_path / "out" / "seat0.stderr.log").read_text()
