"""A position's children valued from its own observation, without building them.

At their depth limit, searches ask an evaluator for the values of a node's children
(`child_leaves`, see `evaluators.base.ChildLeaves`). Where a move changes a game's observation
locally, the child's observation is the parent's with a few entries changed, so one compiled
call finds whether the child is terminal and otherwise runs the network on it: no child state,
no observation written by pyspiel. The child's input is exactly what `Features.observe` writes
for the child, and the forward pass is the same compiled function, so a value equals
`evaluate(child)[player]` to the last bit (the tests check every move of many positions).

Games: connect_four (any rows, columns and x_in_row, absolute observation), tic_tac_toe and
breakthrough (any board); the others have no such path (None).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pyspiel

from spiel_bounded.evaluators.value_net.compiled import forward, numba
from spiel_bounded.evaluators.value_net.features import Features
from spiel_bounded.evaluators.value_net.outputs import OutputForm

NOT_TERMINAL, MOVER_WINS, DRAW = 0, 1, 2
# The fields of a game's `shape` array for `_placement_child`.
ROWS, COLUMNS, IN_ROW, GRAVITY, EMPTY_PLANE, PLANE_OF_0, PLANE_OF_1 = range(7)


def _placement_child(
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


if numba is not None:
    # Not cached: numba would not see a change of `forward`, which lives in another module.
    _placement_child = numba.njit(nogil=True)(_placement_child)


def _breakthrough_child(
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


if numba is not None:
    _breakthrough_child = numba.njit(nogil=True)(_breakthrough_child)


Kernel = Callable[..., int]
"""A child kernel: (observation, mover, move, shape, weights, dims, work) -> a terminal code."""


def child_kernel(game: pyspiel.Game) -> tuple[Kernel, np.ndarray] | None:
    """The child kernel and `shape` of a game whose children it can value from the parent's
    observation (connect_four and tic_tac_toe: a move places one piece; breakthrough: a move
    moves one, taking one at most), the observation being absolute (the same planes whoever
    observes), else None."""
    name, params = game.get_type().short_name, game.get_parameters()
    if name == "connect_four" and not params.get("egocentric_obs_tensor", False):
        rows, columns, in_row = params["rows"], params["columns"], params["x_in_row"]
        return _placement_child, np.asarray([rows, columns, in_row, 1, 2, 0, 1], np.int64)
    if name == "tic_tac_toe":
        return _placement_child, np.asarray([3, 3, 3, 0, 0, 2, 1], np.int64)
    if name == "breakthrough":
        return _breakthrough_child, np.asarray([params["rows"], params["columns"]], np.int64)
    return None


def kernel_children(
    game: pyspiel.Game,
    kernel: Kernel,
    shape: np.ndarray,
    features: Features,
    weights: np.ndarray,
    dims: np.ndarray,
    work: np.ndarray,
    result: np.ndarray,
    form: OutputForm,
) -> Callable[[pyspiel.State, int], Callable[[int], tuple[float, bool]]]:
    """The `child_leaves` of a compiled network on a game of `child_kernel` (two players,
    zero-sum: `form` "mirror")."""
    high, low = float(game.max_utility()), float(game.min_utility())
    mid, half = form.mirror
    tanh = math.tanh
    parent = np.zeros_like(features.observation)
    observe, observed = features.observe, features.observation

    def child_leaves(state: pyspiel.State, player: int) -> Callable[[int], tuple[float, bool]]:
        mover = observe(state)
        parent[:] = observed
        sign = 1.0 if player == 0 else -1.0
        win = high if player == mover else low

        def leaf(move: int) -> tuple[float, bool]:
            code = kernel(parent, mover, move, shape, weights, dims, work)
            if code == NOT_TERMINAL:
                return mid + sign * (half * tanh(float(result[0]))), False
            return (win if code == MOVER_WINS else mid), True

        return leaf

    return child_leaves
