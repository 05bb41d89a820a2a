"""The network in Flax (NNX API, flax 0.12), for training and batched evaluation with JAX.

Needs the `jax` extra (`pip install 'spiel-bounded[jax]'`); importing this module without it
raises `ImportError` saying so. The same parameters run in numpy through `NumpyNetwork`; the
tests check the two agree to 1e-5.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from spiel_bounded.evaluators.value_net.extra import missing_jax
from spiel_bounded.evaluators.value_net.layout import KERNEL_SIZE, Layout
from spiel_bounded.evaluators.value_net.outputs import OutputForm

try:
    import jax
    import jax.numpy as jnp
    from flax import nnx
except ImportError as error:  # pragma: no cover - only without the extra
    raise missing_jax(error) from error


class ValueNetwork(nnx.Module):
    """Convolutions (optional), dense ReLU layers, and a linear output of raw values."""

    def __init__(self, layout: Layout, *, rngs: nnx.Rngs) -> None:
        self.layout = layout
        model = layout.model
        convs = []
        if model.kind == "conv":
            channels = layout.observation_shape[0]
            for _ in range(model.conv_layers):
                convs.append(
                    nnx.Conv(
                        channels,
                        model.channels,
                        (KERNEL_SIZE, KERNEL_SIZE),
                        padding="SAME",
                        rngs=rngs,
                    )
                )
                channels = model.channels
        self.convs = nnx.List(convs)
        dense = []
        width = layout.dense_input
        for _ in range(model.depth):
            dense.append(nnx.Linear(width, model.width, rngs=rngs))
            width = model.width
        self.dense = nnx.List(dense)
        self.out = nnx.Linear(width, layout.outputs, rngs=rngs)

    def __call__(self, features: jax.Array) -> jax.Array:
        layout = self.layout
        size = layout.observation_size
        hidden = features
        if len(self.convs):
            planes, rows, columns = layout.observation_shape
            batch = features.shape[0]
            board = features[:, :size].reshape(batch, planes, rows, columns).transpose(0, 2, 3, 1)
            for conv in self.convs:
                board = jax.nn.relu(conv(board))
            hidden = jnp.concatenate([board.reshape(batch, -1), features[:, size:]], axis=1)
        if layout.derived is not None:
            planes = layout.derived.planes(features[:, :size], jnp)
            hidden = jnp.concatenate([hidden, planes], axis=1)
        for layer in self.dense:
            hidden = jax.nn.relu(layer(hidden))
        return self.out(hidden)

    def layers(self) -> dict[str, Any]:
        """Layer name (as in `Layout.shapes`) -> the Flax layer."""
        named: dict[str, Any] = {f"conv_{index}": conv for index, conv in enumerate(self.convs)}
        named.update({f"dense_{index}": layer for index, layer in enumerate(self.dense)})
        named["out"] = self.out
        return named


def export_params(network: ValueNetwork) -> dict[str, np.ndarray]:
    """The parameters as float32 numpy arrays named like `Layout.shapes()`."""
    params = {}
    for name, layer in network.layers().items():
        params[f"{name}/kernel"] = np.asarray(layer.kernel[...], dtype=np.float32)
        params[f"{name}/bias"] = np.asarray(layer.bias[...], dtype=np.float32)
    return params


def network_from(layout: Layout, params: Mapping[str, np.ndarray]) -> ValueNetwork:
    """A `ValueNetwork` holding `params`."""
    network = ValueNetwork(layout, rngs=nnx.Rngs(0))
    for name, layer in network.layers().items():
        layer.kernel[...] = jnp.asarray(params[f"{name}/kernel"])
        layer.bias[...] = jnp.asarray(params[f"{name}/bias"])
    return network


class BatchValues:
    """Values of batches of features with one jitted call per batch shape."""

    def __init__(self, layout: Layout, form: OutputForm, params: Mapping[str, np.ndarray]):
        graph, state = nnx.split(network_from(layout, params))

        def values(state: Any, features: jax.Array) -> jax.Array:
            return form.values(nnx.merge(graph, state)(features), jnp)

        self._state = state
        self._values = jax.jit(values)

    def __call__(self, features: np.ndarray) -> np.ndarray:
        return np.asarray(self._values(self._state, jnp.asarray(features)))
