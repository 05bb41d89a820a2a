"""Value-network training: self-play data, the dataset, Flax training, a run as files.

- `config`: `DataConfig` (the self-play) and `TrainConfig` (the training); the network's shape,
  `ModelConfig`, belongs to the model in `spiel_bounded.evaluators.value_net`.
- `selfplay`: one seeded self-play game's positions and labels.
- `generate`: self-play generation (parallel, resumable, on Dask too); `dataset`: the games
  merged into a deduplicated `Dataset`, and its file; `targets`: the split by game and the
  targets.
- `train` (the `jax` extra): Optax training with early stopping; `losses`: what an epoch reports.
- `pipeline`: a run's TOML config, and training that writes the checkpoint, loss curve and
  record (`scripts/train_value_net.py` drives it).

Training sits above the bots: self-play loads registered bots. What a search needs to use a
trained network (`evaluator="net:PATH"`) stays in `spiel_bounded.evaluators.value_net`, which
imports nothing from here.
"""

from __future__ import annotations

from spiel_bounded.training.config import DataConfig, TrainConfig

__all__ = ["DataConfig", "TrainConfig"]
