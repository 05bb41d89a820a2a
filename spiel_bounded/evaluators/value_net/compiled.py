"""The network's forward pass for one position, compiled with numba (the `fast` extra), and
the child kernels of `children.py`, which call it (here, so that numba's cache of them follows
a change of it: a cache is invalidated by a change of its own file only).

What a search calls at every leaf. It reads the observation tensor as pyspiel writes it (no
feature vector is assembled: the mover's one-hot adds one row of the first dense kernel), skips
the zero inputs of the first layer and of every ReLU layer, and works in reused buffers, so a
leaf costs no allocation. Every parameter sits in one flat float32 array and the architecture
in one int64 array (`Packed`): a call passes five arguments, since numba's dispatch costs about
0.2 us per argument, as much as a layer. `NumpyNetwork` stays the reference (and the fallback
without numba): the tests hold the two to 1e-6.
"""

from __future__ import annotations

import functools
import importlib.util
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from spiel_bounded.evaluators.value_net.layout import KERNEL_SIZE, Layout
from spiel_bounded.evaluators.value_net.numpy_net import patch_indices

# The header of `Packed.dims`: sizes, then the offsets of each parameter block in `weights`.
(
    _INPUTS,  # dense inputs before the one-hot (observation size, or cells * channels)
    _EXTRA,  # one-hot inputs (players + 1)
    _WIDTH,
    _DEPTH,
    _OUTPUTS,
    _FIRST,  # offsets into weights: first dense kernel, hidden kernels, biases, out, out bias
    _HIDDEN,
    _BIASES,
    _OUT,
    _OUT_BIAS,
    _CONV_LAYERS,  # 0 for an mlp
    _PLANES,
    _CELLS,
    _CHANNELS,
    _CONV_FIRST,  # offsets into weights: first conv kernel, other conv kernels, conv biases
    _CONV_REST,
    _CONV_BIASES,
    _PATCHES_FIRST,  # offsets into dims: the patch gathers of the first and the other layers
    _PATCHES_REST,
    _HEADER,
) = range(20)


def _dense(
    inputs: np.ndarray, extra_row: int, weights: np.ndarray, dims: np.ndarray, work: np.ndarray
) -> None:
    """The dense ReLU layers and the linear output, from `inputs` plus the mover bits that
    `Features.observe`'s code `extra_row` sets (one, or a player's and the chance bit), into
    `work[2 * width:][:outputs]`."""
    size, width, depth, outputs = dims[_INPUTS], dims[_WIDTH], dims[_DEPTH], dims[_OUTPUTS]
    rows = size + dims[_EXTRA]
    chance = dims[_EXTRA] - 1  # the chance bit; codes above it set a player's bit too
    second = -1
    if extra_row > chance:
        second = size + extra_row - chance - 1
        extra_row = chance
    biases = weights[dims[_BIASES] : dims[_BIASES] + depth * width].reshape((depth, width))
    out_bias = weights[dims[_OUT_BIAS] : dims[_OUT_BIAS] + outputs]
    result = work[2 * width : 2 * width + outputs]
    if depth == 0:  # a linear model
        kernel = weights[dims[_OUT] : dims[_OUT] + rows * outputs].reshape((rows, outputs))
        for k in range(outputs):
            result[k] = out_bias[k] + kernel[size + extra_row, k]
            if second >= 0:
                result[k] += kernel[second, k]
        for i in range(size):
            x = inputs[i]
            if x != 0.0:
                for k in range(outputs):
                    result[k] += x * kernel[i, k]
        return
    first = weights[dims[_FIRST] : dims[_FIRST] + rows * width].reshape((rows, width))
    current = work[:width]
    for j in range(width):
        current[j] = biases[0, j]
    for i in range(size):
        x = inputs[i]
        if x != 0.0:
            for j in range(width):
                current[j] += x * first[i, j]
    row = size + extra_row
    for j in range(width):
        current[j] += first[row, j]
        if second >= 0:
            current[j] += first[second, j]
        if current[j] < 0.0:
            current[j] = 0.0
    hidden = weights[dims[_HIDDEN] : dims[_HIDDEN] + (depth - 1) * width * width].reshape(
        (max(depth - 1, 0), width, width)
    )
    for layer in range(1, depth):
        kernel = hidden[layer - 1]
        following = work[(layer % 2) * width : (layer % 2 + 1) * width]
        for j in range(width):
            following[j] = biases[layer, j]
        for i in range(width):
            x = current[i]
            if x != 0.0:
                for j in range(width):
                    following[j] += x * kernel[i, j]
        for j in range(width):
            if following[j] < 0.0:
                following[j] = 0.0
        current = following
    out = weights[dims[_OUT] : dims[_OUT] + width * outputs].reshape((width, outputs))
    for k in range(outputs):
        result[k] = out_bias[k]
    for i in range(width):
        x = current[i]
        if x != 0.0:
            for k in range(outputs):
                result[k] += x * out[i, k]


def forward(
    observation: np.ndarray, extra_row: int, weights: np.ndarray, dims: np.ndarray, work: np.ndarray
) -> None:
    """The whole network: 'SAME' 3x3 convolutions with ReLU over the (planes, rows, columns)
    observation when it has them, then `_dense` (over the last board ++ the one-hot)."""
    layers = dims[_CONV_LAYERS]
    if layers == 0:
        _dense(observation, extra_row, weights, dims, work)
        return
    planes, cells, channels = dims[_PLANES], dims[_CELLS], dims[_CHANNELS]
    taps = KERNEL_SIZE * KERNEL_SIZE
    board_size = cells * max(planes, channels) + 1
    start = 2 * dims[_WIDTH] + dims[_OUTPUTS]
    boards = work[start : start + 2 * board_size].reshape((2, board_size))
    board = boards[0]
    for cell in range(cells):  # (plane, cell) -> (cell, plane), one zero past the end
        for plane in range(planes):
            board[cell * planes + plane] = observation[plane * cells + cell]
    channels_in = planes
    for layer in range(layers):
        if layer == 0:
            kernel = weights[dims[_CONV_FIRST] : dims[_CONV_FIRST] + taps * planes * channels]
            indices = dims[dims[_PATCHES_FIRST] : dims[_PATCHES_FIRST] + cells * taps * planes]
        else:
            offset = dims[_CONV_REST] + (layer - 1) * taps * channels * channels
            kernel = weights[offset : offset + taps * channels * channels]
            indices = dims[dims[_PATCHES_REST] : dims[_PATCHES_REST] + cells * taps * channels]
        kernel = kernel.reshape((taps * channels_in, channels))
        indices = indices.reshape((cells, taps * channels_in))
        bias = weights[
            dims[_CONV_BIASES] + layer * channels : dims[_CONV_BIASES] + (layer + 1) * channels
        ]
        source = boards[layer % 2]
        target = boards[(layer + 1) % 2]
        source[cells * channels_in] = 0.0
        for cell in range(cells):
            base = cell * channels
            for c in range(channels):
                target[base + c] = bias[c]
            for p in range(taps * channels_in):
                x = source[indices[cell, p]]
                if x != 0.0:
                    for c in range(channels):
                        target[base + c] += x * kernel[p, c]
            for c in range(channels):
                if target[base + c] < 0.0:
                    target[base + c] = 0.0
        channels_in = channels
    _dense(boards[layers % 2][: cells * channels], extra_row, weights, dims, work)


# -- child kernels (children.py): a position's children valued from its observation ---------

NOT_TERMINAL, MOVER_WINS, DRAW = 0, 1, 2
# The fields of a game's `shape` array for `placement_child`.
ROWS, COLUMNS, IN_ROW, GRAVITY, EMPTY_PLANE, PLANE_OF_0, PLANE_OF_1 = range(7)


def placement_child(
    observation: np.ndarray,
    mover: int,
    move: int,
    shape: np.ndarray,
    weights: np.ndarray,
    dims: np.ndarray,
    work: np.ndarray,
) -> int:
    """Places `mover`'s piece for `move` on the board `observation` (one plane per player and
    one of empty cells, row 0 first; with `GRAVITY`, `move` is a column and the piece drops to
    its lowest empty cell, else `move` is the cell): `MOVER_WINS` (`IN_ROW` in a line) or
    `DRAW` (the board full) when the child is terminal, else `NOT_TERMINAL` with the network's
    raw outputs for the child in `work` (`observation` is restored before returning)."""
    rows, columns, in_row = shape[ROWS], shape[COLUMNS], shape[IN_ROW]
    cells = rows * columns
    empty = shape[EMPTY_PLANE] * cells
    pieces = (shape[PLANE_OF_0] if mover == 0 else shape[PLANE_OF_1]) * cells
    if shape[GRAVITY]:
        row, column = 0, move
        while observation[empty + row * columns + column] == 0.0:
            row += 1
    else:
        row, column = move // columns, move % columns
    for step_row, step_column in ((0, 1), (1, 0), (1, 1), (1, -1)):
        count = 1
        for sign in (1, -1):
            r, c = row + sign * step_row, column + sign * step_column
            while 0 <= r < rows and 0 <= c < columns and observation[pieces + r * columns + c]:
                count += 1
                r += sign * step_row
                c += sign * step_column
        if count >= in_row:
            return MOVER_WINS
    free = 0
    for cell in range(cells):
        free += observation[empty + cell] != 0.0
    if free == 1:
        return DRAW
    cell = row * columns + column
    observation[empty + cell] = 0.0
    observation[pieces + cell] = 1.0
    forward(observation, 1 - mover, weights, dims, work)
    observation[empty + cell] = 1.0
    observation[pieces + cell] = 0.0
    return NOT_TERMINAL


def breakthrough_child(
    observation: np.ndarray,
    mover: int,
    move: int,
    shape: np.ndarray,
    weights: np.ndarray,
    dims: np.ndarray,
    work: np.ndarray,
) -> int:
    """Plays breakthrough's `move` by `mover` on the board `observation` (planes: player 0,
    player 1, empty; player 0 moves towards the last row): `MOVER_WINS` when the piece reaches
    the far row or takes the last opposing piece, else `NOT_TERMINAL` with the network's raw
    outputs for the child in `work` (`observation` restored). OpenSpiel's encoding of a move:
    ((row * columns + column) * 6 + direction) * 2 + capture, directions 0-2 player 0's
    (forward left, forward, forward right), 3-5 player 1's."""
    rows, columns = shape[ROWS], shape[COLUMNS]
    cells = rows * columns
    square, rest = divmod(move, 12)
    direction, capture = divmod(rest, 2)
    row, column = divmod(square, columns)
    to_row = row + (1 if direction < 3 else -1)
    to_column = column + direction % 3 - 1
    if to_row == (rows - 1 if mover == 0 else 0):
        return MOVER_WINS
    other = 1 - mover
    source, target = row * columns + column, to_row * columns + to_column
    if capture:
        left = 0
        for cell in range(cells):
            left += observation[other * cells + cell] != 0.0
        if left == 1:
            return MOVER_WINS
        observation[other * cells + target] = 0.0
    else:
        observation[2 * cells + target] = 0.0
    observation[mover * cells + source] = 0.0
    observation[2 * cells + source] = 1.0
    observation[mover * cells + target] = 1.0
    forward(observation, other, weights, dims, work)
    observation[mover * cells + target] = 0.0
    observation[2 * cells + source] = 0.0
    observation[mover * cells + source] = 1.0
    if capture:
        observation[other * cells + target] = 1.0
    else:
        observation[2 * cells + target] = 1.0
    return NOT_TERMINAL


def numba_available() -> bool:
    """True when numba is installed (the `fast` extra); it is imported only by `kernels`."""
    return importlib.util.find_spec("numba") is not None


@dataclass(frozen=True)
class Kernels:
    """The compiled functions: `forward` and the child kernels of `children.py`."""

    forward: Callable[..., None]
    placement_child: Callable[..., int]
    breakthrough_child: Callable[..., int]


@functools.cache
def kernels() -> Kernels:
    """The functions above compiled with numba (cached on disk: `forward`, which the kernels
    call, lives in this file, so a change of it is seen). numba is imported here, on the first
    compiled network, not with the package: it costs about 0.3 s, paid by every process.

    The module's names are rebound to the compiled functions, because a compiled function
    calls another through its module's globals (`forward` calls `_dense`, the kernels call
    `forward`).

    Raises:
        ImportError: without numba (the `fast` extra).
    """
    import numba

    global _dense, forward, placement_child, breakthrough_child
    jit = numba.njit(cache=True, nogil=True)
    _dense, forward = jit(_dense), jit(forward)
    placement_child, breakthrough_child = jit(placement_child), jit(breakthrough_child)
    return Kernels(forward, placement_child, breakthrough_child)


@dataclass(frozen=True)
class Packed:
    """A network's parameters in one flat float32 array and its architecture in one int64
    array (a header of sizes and offsets, then the convolutions' patch gathers), plus the work
    buffer a forward pass writes into.

    Attributes:
        weights: Every parameter, flat.
        dims: The header (`_INPUTS` ... `_PATCHES_REST`) and the patch gathers.
        work: Scratch and result; `result` is the view of the raw outputs in it.
    """

    weights: np.ndarray
    dims: np.ndarray
    work: np.ndarray

    @property
    def result(self) -> np.ndarray:
        width, outputs = int(self.dims[_WIDTH]), int(self.dims[_OUTPUTS])
        return self.work[2 * width : 2 * width + outputs]


def pack(layout: Layout, params: Mapping[str, np.ndarray]) -> Packed:
    """The `Packed` form of a network's parameters (shapes as `layout.shapes()` gives)."""
    model = layout.model
    blocks: list[np.ndarray] = []
    offsets: dict[str, int] = {}
    used = 0

    def put(name: str, array: np.ndarray) -> None:
        nonlocal used
        offsets[name] = used
        flat = np.ascontiguousarray(array, dtype=np.float32).ravel()
        blocks.append(flat)
        used += flat.size

    def get(name: str) -> np.ndarray:
        return np.asarray(params[name], dtype=np.float32)

    depth, width = model.depth, model.width
    put("first", get("dense_0/kernel") if depth else np.zeros(0))
    put(
        "hidden",
        np.stack([get(f"dense_{i}/kernel") for i in range(1, depth)]) if depth > 1 else np.zeros(0),
    )
    put(
        "biases", np.stack([get(f"dense_{i}/bias") for i in range(depth)]) if depth else np.zeros(0)
    )
    put("out", get("out/kernel"))
    put("out_bias", get("out/bias"))
    conv_layers = model.conv_layers if model.kind == "conv" else 0
    planes = cells = channels = 0
    gathers: list[np.ndarray] = []
    if conv_layers:
        planes, rows, columns = layout.observation_shape
        cells, channels = rows * columns, model.channels
        put("conv_first", get("conv_0/kernel"))
        rest = [get(f"conv_{i}/kernel") for i in range(1, conv_layers)]
        put("conv_rest", np.stack(rest) if rest else np.zeros(0))
        put("conv_biases", np.stack([get(f"conv_{i}/bias") for i in range(conv_layers)]))
        gathers = [patch_indices(rows, columns, planes), patch_indices(rows, columns, channels)]
    else:
        offsets.update(conv_first=0, conv_rest=0, conv_biases=0)
    inputs = cells * channels if conv_layers else layout.observation_size
    header = [  # in the order of the _INPUTS ... _PATCHES_REST names
        inputs,
        layout.extra,
        width if depth else 0,
        depth,
        layout.outputs,
        offsets["first"],
        offsets["hidden"],
        offsets["biases"],
        offsets["out"],
        offsets["out_bias"],
        conv_layers,
        planes,
        cells,
        channels,
        offsets["conv_first"],
        offsets["conv_rest"],
        offsets["conv_biases"],
        _HEADER,
        _HEADER + (gathers[0].size if gathers else 0),
    ]
    dims = np.concatenate(
        [np.asarray(header, np.int64), *[g.ravel().astype(np.int64) for g in gathers]]
    )
    board_size = cells * max(planes, channels) + 1 if conv_layers else 0
    work = np.zeros(2 * width + layout.outputs + 2 * board_size, np.float32)
    return Packed(np.concatenate(blocks), dims, work)
