"""The network's forward pass in numpy: what searches call at every leaf (no JAX dispatch)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from spiel_bounded.evaluators.value_net.layout import KERNEL_SIZE, Layout


def patch_indices(rows: int, columns: int, channels: int) -> np.ndarray:
    """Gather indices of a 'SAME' 3x3 convolution's input patches.

    The board is flattened row-major as (row, column, channel) with one zero appended; row
    `r * columns + c` of the result lists, in the kernel's (kernel row, kernel column, channel)
    order, the flat index of each input of the patch centred on (r, c), the zero where the
    patch leaves the board.
    """
    pad = KERNEL_SIZE // 2
    outside = rows * columns * channels
    indices = np.full((rows, columns, KERNEL_SIZE, KERNEL_SIZE, channels), outside, np.intp)
    for row in range(rows):
        for column in range(columns):
            for kernel_row in range(KERNEL_SIZE):
                for kernel_column in range(KERNEL_SIZE):
                    source_row, source_column = row + kernel_row - pad, column + kernel_column - pad
                    if 0 <= source_row < rows and 0 <= source_column < columns:
                        start = (source_row * columns + source_column) * channels
                        indices[row, column, kernel_row, kernel_column] = np.arange(
                            start, start + channels
                        )
    return indices.reshape(rows * columns, -1)


class NumpyNetwork:
    """Raw outputs of a batch of feature vectors, from exported parameters.

    Args:
        layout: The architecture.
        params: Parameter name -> array, with the shapes `layout.shapes()` gives.
    """

    def __init__(self, layout: Layout, params: Mapping[str, np.ndarray]) -> None:
        self.layout = layout
        self._params = {name: np.asarray(params[name], dtype=np.float32) for name in params}
        model = layout.model
        self._convs = [
            (
                self._params[f"conv_{index}/kernel"].reshape(-1, model.channels),
                self._params[f"conv_{index}/bias"],
            )
            for index in range(model.conv_layers if model.kind == "conv" else 0)
        ]
        self._dense = [
            (self._params[f"dense_{index}/kernel"], self._params[f"dense_{index}/bias"])
            for index in range(model.depth)
        ]
        self._out = (self._params["out/kernel"], self._params["out/bias"])
        if self._convs:
            _, rows, columns = layout.observation_shape
            self._patches = [
                patch_indices(rows, columns, channels)
                for channels in [layout.observation_shape[0]]
                + [model.channels] * (model.conv_layers - 1)
            ]

    def __call__(self, features: np.ndarray) -> np.ndarray:
        """Raw outputs `[batch, outputs]` of features `[batch, size]` (float32)."""
        layout = self.layout
        size = layout.observation_size
        if self._convs:
            planes, rows, columns = layout.observation_shape
            batch = features.shape[0]
            board = features[:, :size].reshape(batch, planes, rows * columns).transpose(0, 2, 1)
            for (kernel, bias), indices in zip(self._convs, self._patches, strict=True):
                padded = np.concatenate(
                    [board.reshape(batch, -1), np.zeros((batch, 1), np.float32)], axis=1
                )
                patches = padded[:, indices].reshape(batch * rows * columns, -1)
                board = np.maximum(patches @ kernel + bias, 0.0)
            hidden = np.concatenate([board.reshape(batch, -1), features[:, size:]], axis=1)
        else:
            hidden = features
        if layout.derived is not None:
            planes = layout.derived.planes(features[:, :size])
            hidden = np.concatenate([hidden, planes], axis=1)
        for kernel, bias in self._dense:
            hidden = hidden @ kernel
            hidden += bias
            np.maximum(hidden, 0.0, out=hidden)
        kernel, bias = self._out
        return hidden @ kernel + bias
