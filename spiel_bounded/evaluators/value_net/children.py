"""A position's children valued from its own observation, without building them.

At their depth limit, searches ask an evaluator for the values of a node's children
(`child_leaves`, see `evaluators.base.ChildLeaves`). Where a move changes a game's observation
locally, the child's observation is the parent's with a few entries changed, so one compiled
call finds whether the child is terminal and otherwise runs the network on it: no child state,
no observation written by pyspiel. The child's input is exactly what `Features.observe` writes
for the child, and the forward pass is the same compiled function, so a value equals
`evaluate(child)[player]` to the last bit (the tests check every move of many positions).

Games: connect_four (any rows, columns and x_in_row, absolute observation), tic_tac_toe and
breakthrough (any board); the others have no such path (None). The compiled kernels themselves
are in `compiled.py`, beside the forward pass they call.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pyspiel

from spiel_bounded.evaluators.value_net.compiled import MOVER_WINS, NOT_TERMINAL, kernels
from spiel_bounded.evaluators.value_net.features import Features
from spiel_bounded.evaluators.value_net.outputs import OutputForm
from spiel_bounded.evaluators.value_net.threats import line_game

Kernel = Callable[..., int]
"""A child kernel: (observation, mover, move, shape, weights, dims, work) -> a terminal code."""


def child_kernel(game: pyspiel.Game) -> tuple[Kernel, np.ndarray] | None:
    """The child kernel and `shape` of a game whose children it can value from the parent's
    observation (connect_four and tic_tac_toe: a move places one piece; breakthrough: a move
    moves one, taking one at most), the observation being absolute (the same planes whoever
    observes), else None."""
    lines = line_game(game)
    if lines is not None:
        shape = [lines.rows, lines.columns, lines.in_row, int(lines.gravity), lines.empty_plane]
        shape += lines.player_planes
        return kernels().placement_child, np.asarray(shape, np.int64)
    if game.get_type().short_name == "breakthrough":
        params = game.get_parameters()
        shape = [params["rows"], params["columns"]]
        return kernels().breakthrough_child, np.asarray(shape, np.int64)
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
