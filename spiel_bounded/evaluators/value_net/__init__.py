"""Value networks as leaf evaluators: the model, its checkpoints, and inference.

- `config`, `layout`, `outputs`, `features`: the network's shape, its layers on a game, how raw
  outputs become values in the utility range, and what it sees.
- `model` (the `jax` extra): the Flax network, for training and batched evaluation.
- `checkpoint`: the file format, with its checks; `numpy_net` and `evaluator`: inference in
  numpy, one position at a time, for searches: `evaluator="net:PATH"` on any bot.

Using a trained checkpoint needs numpy only. Training (self-play, dataset, Optax) lives in
`spiel_bounded.training` and needs `pip install 'spiel-bounded[jax]'`.
"""

from __future__ import annotations

from spiel_bounded.evaluators.value_net.checkpoint import (
    Checkpoint,
    load_checkpoint,
    save_checkpoint,
)
from spiel_bounded.evaluators.value_net.config import ModelConfig
from spiel_bounded.evaluators.value_net.evaluator import ValueNetEvaluator
from spiel_bounded.evaluators.value_net.extra import JAX_EXTRA, jax_available

__all__ = [
    "JAX_EXTRA",
    "Checkpoint",
    "ModelConfig",
    "ValueNetEvaluator",
    "jax_available",
    "load_checkpoint",
    "save_checkpoint",
]
