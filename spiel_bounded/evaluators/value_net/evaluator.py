"""`ValueNetEvaluator`: a trained network as the leaf evaluator of any search."""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from typing import Final

import numpy as np
import pyspiel

from spiel_bounded.evaluators.base import ChildLeaves
from spiel_bounded.evaluators.value_net.checkpoint import (
    Checkpoint,
    checkpoint_file,
    load_checkpoint,
)
from spiel_bounded.evaluators.value_net.children import child_kernel, kernel_children
from spiel_bounded.evaluators.value_net.compiled import kernels, numba_available, pack
from spiel_bounded.evaluators.value_net.extra import jax_available
from spiel_bounded.evaluators.value_net.features import Features
from spiel_bounded.evaluators.value_net.layout import Layout, layout_for
from spiel_bounded.evaluators.value_net.numpy_net import NumpyNetwork
from spiel_bounded.evaluators.value_net.outputs import OutputForm, output_form

ENGINES: Final = ("auto", "compiled", "numpy")
"""How a leaf is computed: "compiled" (numba, the `fast` extra), "numpy" (the reference), or
"auto" (compiled when numba is installed)."""


def layout_of(checkpoint: Checkpoint, game: pyspiel.Game) -> Layout:
    """The architecture a checkpoint describes for `game`; `ValueError` when its parameters do
    not have the shapes that architecture needs."""
    layout = layout_for(game, checkpoint.model)
    expected = layout.shapes()
    found = {name: tuple(array.shape) for name, array in checkpoint.params.items()}
    if found != expected:
        wrong = sorted(set(expected) ^ set(found)) or sorted(
            name for name in expected if expected[name] != found[name]
        )
        raise ValueError(
            f"checkpoint parameters do not fit its model config {checkpoint.model} on "
            f"{checkpoint.game}: mismatched {', '.join(wrong)}"
        )
    return layout


class ValueNetEvaluator:
    """Per-player values from a trained network, computed one position at a time.

    The observation is written by OpenSpiel into a reused array (`Features.observe`) and the
    forward pass runs compiled with numba when it is installed (`compiled.forward`), else in
    numpy (`NumpyNetwork`, the reference: the two agree to 1e-6). The raw outputs go through
    the game's `OutputForm`, so every value lies in the utility range (and n-player values keep
    the constant sum). `leaf_value(player)` gives searches one player's value in one call.
    `evaluate_batch` values many positions at once (with JAX when installed).

    Args:
        game: The game to evaluate; the checkpoint must have been trained on it.
        path: The checkpoint file, or the training run's output directory that holds it
            (`model.npz`).
        engine: One of `ENGINES`.

    Raises:
        ValueError: A missing, corrupted or mismatched checkpoint (see `load_checkpoint`), an
            unknown engine, or "compiled" for a network with derived inputs (threats,
            connections: its "auto" is numpy).
        ImportError: engine="compiled" without numba.
    """

    def __init__(
        self, game: pyspiel.Game, path: str | os.PathLike[str], *, engine: str = "auto"
    ) -> None:
        if engine not in ENGINES:
            raise ValueError(f"unknown engine {engine!r}; accepted: {', '.join(ENGINES)}")
        self.path = checkpoint_file(path)
        self.name = f"net:{path}"
        self.checkpoint = load_checkpoint(self.path, game)
        self.layout = layout_of(self.checkpoint, game)
        self.form: OutputForm = output_form(game)
        self._features = Features(game, self.checkpoint.chance_view, self.checkpoint.lifted_view)
        self._network = NumpyNetwork(self.layout, self.checkpoint.params)
        self._buffer = np.zeros((1, self._features.size), dtype=np.float32)
        self._write = self._features.writer(self._buffer[0])
        self._batch: Callable[[np.ndarray], np.ndarray] | None = None
        if engine == "compiled" and not numba_available():
            raise ImportError(
                "the compiled forward pass needs numba: pip install 'spiel-bounded[fast]'"
            )
        if engine == "compiled" and self.layout.derived is not None:
            raise ValueError(
                "the compiled forward pass reads the observation only (model inputs = "
                f"{self.layout.model.inputs}); accepted engines for this network: numpy, auto "
                "(numpy here; searches with engine auto run it natively)"
            )
        compiled = self.layout.derived is None and (
            engine == "compiled" or (engine == "auto" and numba_available())
        )
        self.engine = "compiled" if compiled else "numpy"
        self.raw: Callable[[pyspiel.State], np.ndarray] = self._numpy_raw
        if compiled:
            packed = pack(self.layout, self.checkpoint.params)
            weights, dims, work, result = packed.weights, packed.dims, packed.work, packed.result
            observe, observation = self._features.observe, self._features.observation
            forward = kernels().forward

            def compiled_raw(state: pyspiel.State) -> np.ndarray:
                forward(observation, observe(state), weights, dims, work)
                return result

            self.raw = compiled_raw
            children = child_kernel(game)
            if children is not None:
                kernel, shape = children
                self.child_leaves = kernel_children(
                    game, kernel, shape, self._features, weights, dims, work, result, self.form
                )
            self._warm_up(game)

    child_leaves: ChildLeaves | None = None
    """connect_four, tic_tac_toe and breakthrough with the compiled engine (else None):
    `child_leaves(state, player)(move)` is `(value, terminal)` of the child for `player`,
    without building it (`children.kernel_children`); searches use it at their depth
    limit."""

    def _warm_up(self, game: pyspiel.Game) -> None:
        """Loads (or compiles) the compiled kernels now, not in a search's first timed move."""
        state = game.new_initial_state()
        while state.is_chance_node():
            state.apply_action(state.chance_outcomes()[0][0])
        if state.is_terminal():
            return
        self.raw(state)
        if self.child_leaves is not None:
            self.child_leaves(state, 0)(state.legal_actions()[0])

    def _numpy_raw(self, state: pyspiel.State) -> np.ndarray:
        self._write(state)
        return self._network(self._buffer)[0]

    def evaluate(self, state: pyspiel.State) -> Sequence[float]:
        return self.form.values_of_one(self.raw(state))

    def leaf_value(self, player: int) -> Callable[[pyspiel.State], float]:
        """A function `state -> evaluate(state)[player]`, equal to the last bit, in one call."""
        raw, form = self.raw, self.form
        if form.form != "mirror":
            return lambda state: form.values_of_one(raw(state))[player]
        mid, half = form.mirror
        tanh = math.tanh
        if player == 0:
            return lambda state: mid + half * tanh(float(raw(state)[0]))
        return lambda state: mid - half * tanh(float(raw(state)[0]))

    def features(self, states: Sequence[pyspiel.State]) -> np.ndarray:
        """The input vectors of `states`, `[len(states), size]` float32."""
        out = np.zeros((len(states), self._features.size), dtype=np.float32)
        for row, state in zip(out, states, strict=True):
            self._features.write(state, row)
        return out

    def evaluate_batch(
        self, states: Sequence[pyspiel.State], *, use_jax: bool = True
    ) -> np.ndarray:
        """Values `[len(states), players]` of many positions: one jitted JAX call when JAX is
        installed and `use_jax` (float32: n-player sums hold to about 1e-6), else numpy
        (float64 outputs, as `evaluate`)."""
        features = self.features(states)
        if use_jax and jax_available():
            if self._batch is None:
                from spiel_bounded.evaluators.value_net.model import BatchValues

                self._batch = BatchValues(self.layout, self.form, self.checkpoint.params)
            return self._batch(features)
        return np.asarray(self.form.values(self._network(features).astype(np.float64), np))
