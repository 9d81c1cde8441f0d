"""A trained policy as plain numpy: the weights of a multi-layer perceptron in one ``.npz`` file, and the policy
that reads them, for a ladder bot that starts in a fraction of a second (no torch, no training library).

    from referee.learning.export import MlpPolicy
    policy = MlpPolicy.load("hearts_ppo.npz")       # layers w0, b0, w1, b1, ... and the activation's name
    action = policy(observation)                    # the legal action of highest logit

The file holds ``w0, b0, ..., w{k}, b{k}`` (``observation @ w + b`` per layer, the hidden ones followed by the
activation, the last giving one logit per action) and ``activation`` (``"tanh"`` or ``"relu"``). Saving it is the
trainer's part: examples/train_maskable_ppo.py writes one from sb3-contrib's MaskablePPO, whose default policy
network is exactly this (two hidden layers of 64, tanh). The observation is `encoding`'s, the same in the
environment and in `referee.learning.bot`'s protocol bot, so the exported policy plays as trained.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from referee.learning.encoding import Encoded
from referee.rules.features import N_ACTIONS

__all__ = ["MlpPolicy"]

_ACTIVATIONS = ("tanh", "relu")


class MlpPolicy:
    """The greedy policy of a multi-layer perceptron over the observation vector, illegal actions masked out."""

    def __init__(self, layers: Sequence[tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]], activation: str):
        if activation not in _ACTIVATIONS:
            raise ValueError(f"activation must be one of {', '.join(_ACTIVATIONS)}, not {activation!r}")
        if not layers or layers[-1][0].shape[1] != N_ACTIONS:
            raise ValueError(f"the last layer must give {N_ACTIONS} logits, one per action")
        self.layers = [(np.asarray(w, dtype=np.float32), np.asarray(b, dtype=np.float32)) for w, b in layers]
        self.activation = activation

    @classmethod
    def load(cls, path: str | Path) -> MlpPolicy:
        with np.load(path) as data:
            count = sum(1 for name in data.files if name.startswith("w"))
            layers = [(data[f"w{i}"], data[f"b{i}"]) for i in range(count)]
            return cls(layers, str(data["activation"]))

    def save(self, path: str | Path) -> None:
        arrays = {f"w{i}": w for i, (w, _) in enumerate(self.layers)} | {
            f"b{i}": b for i, (_, b) in enumerate(self.layers)
        }
        with open(path, "wb") as file:  # (np.savez would add ".npz" to a name without it)
            np.savez(file, activation=np.array(self.activation), **arrays)  # type: ignore[arg-type]

    def logits(self, vector: npt.NDArray[Any]) -> npt.NDArray[np.float32]:
        x = np.asarray(vector, dtype=np.float32)
        for index, (w, b) in enumerate(self.layers):
            x = x @ w + b
            if index < len(self.layers) - 1:
                x = np.tanh(x) if self.activation == "tanh" else np.maximum(x, 0)
        return x

    def __call__(self, observation: Encoded) -> int:
        logits = self.logits(observation["observation"])
        return int(np.argmax(np.where(observation["action_mask"] == 1, logits, -np.inf)))
