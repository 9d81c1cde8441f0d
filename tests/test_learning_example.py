"""examples/train_linear.py runs, in a tiny mode (bounded steps), and saves its learning curve as a PNG."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "train_linear.py"


def test_the_training_example_saves_a_learning_curve(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = importlib.util.spec_from_file_location("train_linear", EXAMPLE)
    assert spec is not None and spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    out = tmp_path / "curve.png"
    assert example.main(["--steps", "120", "--out", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "deals; learner's reward per deal" in capsys.readouterr().out


def test_the_training_example_counts_every_deal_those_the_seat_took_nothing_in_too() -> None:
    spec = importlib.util.spec_from_file_location("train_linear", EXAMPLE)
    assert spec is not None and spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    rewards = example.run(800, 1, 0.03, learn=False)
    assert 0.0 in rewards and len(rewards) >= 800 // 17 - 1  # a seat makes at most 16 decisions a deal (13 + 3)
