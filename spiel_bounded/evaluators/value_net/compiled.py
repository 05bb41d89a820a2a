"""The network's forward pass for one position, compiled with numba (the `fast` extra).

What a search calls at every leaf. It reads the observation tensor as pyspiel writes it (no
feature vector is assembled: the mover's one-hot adds one row of the first dense kernel), skips
the zero inputs of the first layer and of every ReLU layer, and works in reused buffers, so a
leaf costs no allocation. `NumpyNetwork` stays the reference (and the fallback without numba):
the tests hold the two to 1e-6.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from spiel_bounded.evaluators.value_net.layout import KERNEL_SIZE, Layout
from spiel_bounded.evaluators.value_net.numpy_net import patch_indices

try:
    import numba
except ImportError:  # pragma: no cover - only without the `fast` extra
    numba = None


def numba_available() -> bool:
    """True when numba is installed (the `fast` extra)."""
    return numba is not None


def _dense(
    inputs: np.ndarray,
    extra_row: int,
    first: np.ndarray,
    hidden: np.ndarray,
    biases: np.ndarray,
    out_kernel: np.ndarray,
    out_bias: np.ndarray,
    scratch: np.ndarray,
    result: np.ndarray,
) -> None:
    """The dense ReLU layers (`first`, then each of `hidden`; `biases` one row per layer) and
    the linear output, from `inputs` plus a one-hot at input `len(inputs) + extra_row`, into
    `result`."""
    width_in = inputs.shape[0]
    if biases.shape[0] == 0:  # no hidden layer: a linear model
        for k in range(result.shape[0]):
            result[k] = out_bias[k] + out_kernel[width_in + extra_row, k]
        for i in range(width_in):
            x = inputs[i]
            if x != 0.0:
                for k in range(result.shape[0]):
                    result[k] += x * out_kernel[i, k]
        return
    current = scratch[0]
    kernel = first
    width = kernel.shape[1]
    for j in range(width):
        current[j] = biases[0, j]
    for i in range(width_in):
        x = inputs[i]
        if x != 0.0:
            for j in range(width):
                current[j] += x * kernel[i, j]
    row = width_in + extra_row
    for j in range(width):
        current[j] += kernel[row, j]
    for j in range(width):
        if current[j] < 0.0:
            current[j] = 0.0
    for layer in range(1, hidden.shape[0] + 1):
        kernel = hidden[layer - 1]
        following = scratch[layer % 2]
        width_out = kernel.shape[1]
        for j in range(width_out):
            following[j] = biases[layer, j]
        for i in range(width):
            x = current[i]
            if x != 0.0:
                for j in range(width_out):
                    following[j] += x * kernel[i, j]
        for j in range(width_out):
            if following[j] < 0.0:
                following[j] = 0.0
        current, width = following, width_out
    for k in range(result.shape[0]):
        result[k] = out_bias[k]
    for i in range(width):
        x = current[i]
        if x != 0.0:
            for k in range(result.shape[0]):
                result[k] += x * out_kernel[i, k]


def _conv(
    observation: np.ndarray,
    extra_row: int,
    conv_first: np.ndarray,
    conv_rest: np.ndarray,
    conv_biases: np.ndarray,
    patches_first: np.ndarray,
    patches_rest: np.ndarray,
    boards: np.ndarray,
    first: np.ndarray,
    hidden: np.ndarray,
    biases: np.ndarray,
    out_kernel: np.ndarray,
    out_bias: np.ndarray,
    scratch: np.ndarray,
    result: np.ndarray,
) -> None:
    """'SAME' 3x3 convolutions with ReLU over the (planes, rows, columns) observation (the
    first layer's kernel `conv_first`, the others' `conv_rest`; their patch gathers likewise),
    then the dense layers over the last board ++ the one-hot."""
    planes = patches_first.shape[1] // (KERNEL_SIZE * KERNEL_SIZE)
    cells = observation.shape[0] // planes
    board = boards[0]
    for cell in range(cells):  # (plane, cell) -> (cell, plane), one zero past the end
        for plane in range(planes):
            board[cell * planes + plane] = observation[plane * cells + cell]
    channels_in = planes
    layers = conv_rest.shape[0] + 1
    for layer in range(layers):
        kernel = conv_first if layer == 0 else conv_rest[layer - 1]
        indices = patches_first if layer == 0 else patches_rest
        bias = conv_biases[layer]
        channels = kernel.shape[1]
        source = boards[layer % 2]
        target = boards[(layer + 1) % 2]
        source[cells * channels_in] = 0.0
        for cell in range(cells):
            base = cell * channels
            for c in range(channels):
                target[base + c] = bias[c]
            for p in range(indices.shape[1]):
                x = source[indices[cell, p]]
                if x != 0.0:
                    for c in range(channels):
                        target[base + c] += x * kernel[p, c]
            for c in range(channels):
                if target[base + c] < 0.0:
                    target[base + c] = 0.0
        channels_in = channels
    last = boards[layers % 2][: cells * channels_in]
    _dense(last, extra_row, first, hidden, biases, out_kernel, out_bias, scratch, result)


if numba is not None:
    _dense = numba.njit(cache=True, nogil=True)(_dense)
    _conv = numba.njit(cache=True, nogil=True)(_conv)


class CompiledNetwork:
    """Raw outputs of one position from its observation tensor and its mover, compiled.

    Args:
        layout: The architecture.
        params: Parameter name -> array, with the shapes `layout.shapes()` gives.

    Raises:
        ImportError: numba is not installed (install the `fast` extra).
    """

    def __init__(self, layout: Layout, params: Mapping[str, np.ndarray]) -> None:
        if numba is None:
            raise ImportError(
                "the compiled forward pass needs numba: pip install 'spiel-bounded[fast]'"
            )
        self.layout = layout
        model = layout.model

        def array(name: str) -> np.ndarray:
            return np.ascontiguousarray(params[name], dtype=np.float32)

        def stacked(names: list[str], shape: tuple[int, ...]) -> np.ndarray:
            return np.ascontiguousarray(
                np.stack([array(name) for name in names]) if names else np.zeros(shape),
                dtype=np.float32,
            )

        depth, width = model.depth, model.width
        self._first = array("dense_0/kernel") if depth else np.zeros((0, 0), np.float32)
        self._hidden = stacked([f"dense_{i}/kernel" for i in range(1, depth)], (0, width, width))
        self._biases = stacked([f"dense_{i}/bias" for i in range(depth)], (0, width))
        self._out_kernel, self._out_bias = array("out/kernel"), array("out/bias")
        self._scratch = np.zeros((2, width), np.float32)
        self._result = np.zeros(layout.outputs, np.float32)
        self._conv: tuple[np.ndarray, ...] | None = None
        if model.kind == "conv":
            planes, rows, columns = layout.observation_shape
            channels, layers = model.channels, model.conv_layers
            kernels = [array(f"conv_{i}/kernel").reshape(-1, channels) for i in range(layers)]
            rest = np.zeros((0, KERNEL_SIZE * KERNEL_SIZE * channels, channels), np.float32)
            self._conv = (
                kernels[0],
                np.ascontiguousarray(np.stack(kernels[1:])) if layers > 1 else rest,
                stacked([f"conv_{i}/bias" for i in range(layers)], (0, channels)),
                patch_indices(rows, columns, planes).astype(np.int64),
                patch_indices(rows, columns, channels).astype(np.int64),
                np.zeros((2, rows * columns * max(planes, channels) + 1), np.float32),
            )

    def raw(self, observation: np.ndarray, extra_row: int) -> np.ndarray:
        """Raw outputs (a reused float32 array: copy it to keep it) of the position whose
        observation tensor is `observation` (float32, flat) and whose one-hot input is set at
        `extra_row` (the mover; the number of players at a chance node)."""
        dense = (
            self._first,
            self._hidden,
            self._biases,
            self._out_kernel,
            self._out_bias,
            self._scratch,
            self._result,
        )
        if self._conv is not None:
            _conv(observation, extra_row, *self._conv, *dense)
        else:
            _dense(observation, extra_row, *dense)
        return self._result
