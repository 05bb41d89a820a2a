"""A position's children valued from its own observation, without building them.

At their depth limit, searches ask an evaluator for the values of a node's children
(`child_leaves`, see `evaluators.base.ChildLeaves`). Where a move changes a game's observation
locally, the child's observation is the parent's with a few entries changed, so one compiled
call finds whether the child is terminal and otherwise runs the network on it: no child state,
no observation written by pyspiel. The child's input is exactly what `Features.observe` writes
for the child, and the forward pass is the same compiled function, so a value equals
`evaluate(child)[player]` to the last bit (the tests check every move of many positions).

Games: connect_four (any rows, columns and x_in_row); the others have no such path (None).
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


def _connect_four_child(
    observation: np.ndarray,
    mover: int,
    column: int,
    rows: int,
    columns: int,
    x_in_row: int,
    weights: np.ndarray,
    dims: np.ndarray,
    work: np.ndarray,
) -> int:
    """Drops `mover`'s piece in `column` of the board `observation` (planes: player 0, player 1,
    empty; row 0 at the bottom): `MOVER_WINS` or `DRAW` when the child is terminal, else
    `NOT_TERMINAL` with the network's raw outputs for the child in `work` (`observation` is
    restored before returning)."""
    cells = rows * columns
    empty = 2 * cells
    row = 0
    while observation[empty + row * columns + column] == 0.0:
        row += 1
    pieces = mover * cells
    for step_row, step_column in ((0, 1), (1, 0), (1, 1), (1, -1)):
        count = 1
        for sign in (1, -1):
            r, c = row + sign * step_row, column + sign * step_column
            while (
                0 <= r < rows and 0 <= c < columns and observation[pieces + r * columns + c] != 0.0
            ):
                count += 1
                r += sign * step_row
                c += sign * step_column
        if count >= x_in_row:
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
    _connect_four_child = numba.njit(cache=True, nogil=True)(_connect_four_child)


def connect_four_children(
    game: pyspiel.Game,
    features: Features,
    weights: np.ndarray,
    dims: np.ndarray,
    work: np.ndarray,
    result: np.ndarray,
    form: OutputForm,
) -> Callable[[pyspiel.State, int], Callable[[int], tuple[float, bool]]]:
    """The `child_leaves` of a compiled network on connect_four (`form` "mirror")."""
    params = game.get_parameters()
    rows, columns = int(params["rows"]), int(params["columns"])
    x_in_row = int(params["x_in_row"])
    high, low = float(game.max_utility()), float(game.min_utility())
    mid = 0.5 * form.total
    half = min(form.high - mid, mid - form.low)
    tanh = math.tanh
    parent = np.zeros_like(features.observation)
    observe, observed = features.observe, features.observation

    def child_leaves(state: pyspiel.State, player: int) -> Callable[[int], tuple[float, bool]]:
        mover = observe(state)
        parent[:] = observed
        sign = 1.0 if player == 0 else -1.0
        win = high if player == mover else low

        def leaf(move: int) -> tuple[float, bool]:
            code = _connect_four_child(
                parent, mover, move, rows, columns, x_in_row, weights, dims, work
            )
            if code == NOT_TERMINAL:
                return mid + sign * (half * tanh(float(result[0]))), False
            return (win if code == MOVER_WINS else 0.0), True

        return leaf

    return child_leaves
