"""Mini-batch training of a value network with Optax, validation by game and early stopping.

Needs the `jax` extra. The loss is the mean squared distance of the per-player values to their
target intervals (`targets.Targets`: zero inside, the squared error for a point label) divided
by the width of the output range (the game's value range; for n players, from the raised floor
of the shares form), so 0.25 is a network that is off by half the range. With `mirror`, the
training positions' mirror images join the training set (`symmetry`); validation stays on the
positions played. Mini-batches are gathered (and mirrored) as they are needed: training holds
no second copy of the dataset. The training loss of
an epoch is the mean over its mini-batches; epoch 0 reports the loss of the untrained network
on the whole training set. Training keeps the
parameters of the epoch with the best validation loss and stops after `patience` epochs without
a better one. Everything random (initialisation, shuffling, the split) comes from
`TrainConfig.seed`. JAX places the computation on its default device: a GPU when it sees one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from spiel_bounded.evaluators.value_net.extra import missing_jax
from spiel_bounded.evaluators.value_net.layout import Layout
from spiel_bounded.evaluators.value_net.outputs import OutputForm
from spiel_bounded.games import load_game
from spiel_bounded.training.config import TrainConfig
from spiel_bounded.training.dataset import Dataset
from spiel_bounded.training.losses import EpochDone, EpochLosses
from spiel_bounded.training.rows import Rows
from spiel_bounded.training.targets import split_by_game, targets

try:
    import jax
    import jax.numpy as jnp
    import optax
    from flax import nnx

    from spiel_bounded.evaluators.value_net.model import (
        ValueNetwork,
        export_params,
        network_from,
    )
except ImportError as error:  # pragma: no cover - only without the extra
    raise missing_jax(error) from error


@dataclass(frozen=True)
class TrainResult:
    """A trained network and how training went.

    Attributes:
        params: The parameters of the best epoch (by validation loss).
        history: Losses per epoch (epoch 0: before any step).
        best_epoch: The epoch whose parameters are kept.
        train_positions: Positions trained on.
        validation_positions: Positions held out.
        backend: JAX's backend ("cpu", "gpu", ...).
    """

    params: dict[str, np.ndarray]
    history: tuple[EpochLosses, ...]
    best_epoch: int
    train_positions: int
    validation_positions: int
    backend: str

    @property
    def best_validation(self) -> float:
        return self.history[self.best_epoch].validation


def train_network(
    dataset: Dataset,
    layout: Layout,
    form: OutputForm,
    config: TrainConfig,
    *,
    on_epoch: EpochDone | None = None,
    initial: Mapping[str, np.ndarray] | None = None,
) -> TrainResult:
    """Trains a network of `layout` on `dataset`, from `initial` parameters when given (else
    from a seeded initialisation); see the module docstring."""
    goal = targets(dataset, config)
    split = split_by_game(dataset, config.validation_fraction, config.seed)
    usable = goal.usable
    train_rows = split.train[usable[split.train]]
    validation_rows = split.validation[usable[split.validation]]
    if train_rows.size == 0 or validation_rows.size == 0:
        raise ValueError(
            f"no labelled position on one side of the split ({train_rows.size} train, "
            f"{validation_rows.size} validation): generate more games"
        )
    scale = 1.0 / (form.high - form.low)
    rows = Rows(dataset.features, goal.lower, goal.upper)
    if config.mirror:
        train_rows = rows.with_mirrors(load_game(dataset.game), train_rows)

    if initial is not None:
        network = network_from(layout, initial)
    else:
        network = ValueNetwork(layout, rngs=nnx.Rngs(config.seed))
    optimizer = nnx.Optimizer(
        network,
        optax.adamw(config.learning_rate, weight_decay=config.weight_decay),
        wrt=nnx.Param,
    )

    def loss_fn(
        model: ValueNetwork, features: jax.Array, lower: jax.Array, upper: jax.Array
    ) -> jax.Array:
        predicted = form.values(model(features), jnp)
        below = jnp.maximum(lower - predicted, 0.0)
        above = jnp.maximum(predicted - upper, 0.0)
        return jnp.mean(jnp.square((below + above) * scale))

    @nnx.jit
    def step(
        model: ValueNetwork,
        optimizer: nnx.Optimizer,
        features: jax.Array,
        lower: jax.Array,
        upper: jax.Array,
    ) -> jax.Array:
        loss, grads = nnx.value_and_grad(loss_fn)(model, features, lower, upper)
        optimizer.update(model, grads)
        return loss

    evaluate = nnx.jit(loss_fn)

    def batch(indices: np.ndarray) -> tuple[jax.Array, ...]:
        return tuple(jnp.asarray(array) for array in rows.batch(indices))

    def mean_loss(model: ValueNetwork, indices: np.ndarray) -> float:
        total = 0.0
        for start in range(0, indices.size, 4096):
            chunk = indices[start : start + 4096]
            total += float(evaluate(model, *batch(chunk))) * chunk.size
        return total / indices.size

    rng = np.random.default_rng(config.seed)
    size = min(config.batch_size, train_rows.size)
    first = EpochLosses(0, mean_loss(network, train_rows), mean_loss(network, validation_rows))
    history = [first]
    if on_epoch is not None:
        on_epoch(first)
    best, best_params, waited = first, export_params(network), 0
    for epoch in range(1, config.max_epochs + 1):
        order = rng.permutation(train_rows)
        losses = [
            float(step(network, optimizer, *batch(order[start : start + size])))
            for start in range(0, order.size - size + 1, size)
        ]
        losses_epoch = EpochLosses(
            epoch, float(np.mean(losses)), mean_loss(network, validation_rows)
        )
        history.append(losses_epoch)
        if on_epoch is not None:
            on_epoch(losses_epoch)
        if losses_epoch.validation < best.validation:
            best, best_params, waited = losses_epoch, export_params(network), 0
        else:
            waited += 1
            if waited >= config.patience:
                break
    return TrainResult(
        params=best_params,
        history=tuple(history),
        best_epoch=best.epoch,
        train_positions=int(train_rows.size),
        validation_positions=int(validation_rows.size),
        backend=jax.default_backend(),
    )
