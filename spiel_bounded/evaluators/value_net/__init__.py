"""Value networks: train a network on self-play positions and use it as a leaf evaluator.

- `dataset`: self-play generation (parallel, resumable, on Dask too), deduplication, labels,
  the split by game.
- `model` and `train` (the `jax` extra): the Flax network and its Optax training.
- `checkpoint`: the file format, with its checks; `numpy_net` and `evaluator`: inference in
  numpy, one position at a time, for searches: `evaluator="net:PATH"` on any bot.

Training needs `pip install 'spiel-bounded[jax]'`; using a trained checkpoint needs numpy only.
"""

from __future__ import annotations

from spiel_bounded.evaluators.value_net.checkpoint import (
    Checkpoint,
    load_checkpoint,
    save_checkpoint,
)
from spiel_bounded.evaluators.value_net.config import DataConfig, ModelConfig, TrainConfig
from spiel_bounded.evaluators.value_net.evaluator import ValueNetEvaluator
from spiel_bounded.evaluators.value_net.extra import JAX_EXTRA, jax_available

__all__ = [
    "JAX_EXTRA",
    "Checkpoint",
    "DataConfig",
    "ModelConfig",
    "TrainConfig",
    "ValueNetEvaluator",
    "jax_available",
    "load_checkpoint",
    "save_checkpoint",
]
