"""BABMCTS, the entry point: `babmcts` searches from a state on a fresh tree, `tree_engine` says
which tree `BABMCTSSettings.engine` asks for and `make_tree` builds it.

The two trees search identically: `python_tree.BABMCTSTree` (the reference) and
`native_tree.NativeBABMCTSTree` (the whole search in C++, `spiel_bounded.native`; chance nodes
and priors included).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
import pyspiel

from spiel_bounded.evaluators.base import Evaluator
from spiel_bounded.games import game_description
from spiel_bounded.limits import Limits
from spiel_bounded.native import available, engine_module, warn_fallback
from spiel_bounded.result import SearchResult
from spiel_bounded.search.babmcts.common import (
    ALGORITHM,
    ENGINE_AUTO,
    ENGINE_NATIVE,
    ENGINE_PYTHON,
    BABMCTSSettings,
    BABMCTSTreeBase,
)
from spiel_bounded.search.babmcts.native_tree import NativeBABMCTSTree
from spiel_bounded.search.babmcts.python_tree import BABMCTSTree
from spiel_bounded.search.native_evaluators import has_twin


def tree_engine(game: pyspiel.Game, evaluator: Evaluator, settings: BABMCTSSettings) -> str:
    """The tree that `settings.engine` asks for, with `evaluator`: "native" or "python".

    "auto" is "native" when the native engine is built and `evaluator` has a C++ twin (random
    playouts, the zero and heuristic evaluators, value networks), else "python" (where the
    engine is not built, with one warning that says why).

    Raises:
        ValueError: "native" where the native engine is unavailable (the message says why).
    """
    engine = settings.engine
    if engine == ENGINE_NATIVE:
        engine_module(ALGORITHM)  # says why it is unavailable
        return ENGINE_NATIVE
    if engine == ENGINE_AUTO:
        if not available():
            warn_fallback()
        elif has_twin(evaluator, game):
            return ENGINE_NATIVE
    return ENGINE_PYTHON


def make_tree(
    state: pyspiel.State,
    *,
    evaluator: Evaluator,
    settings: BABMCTSSettings | None = None,
    rng: np.random.Generator | int | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> BABMCTSTreeBase:
    """The tree `settings.engine` asks for (see `tree_engine`).

    Raises:
        ValueError: engine="native" where the native engine is unavailable (the message says
            why), or the tree refuses the state (see `BABMCTSTree`).
    """
    settings = settings or BABMCTSSettings()
    engine = tree_engine(state.get_game(), evaluator, settings)
    if engine == ENGINE_NATIVE:
        return NativeBABMCTSTree(
            state, evaluator=evaluator, settings=settings, rng=rng, clock=clock
        )
    return BABMCTSTree(state, evaluator=evaluator, settings=settings, rng=rng, clock=clock)


def babmcts(
    state: pyspiel.State,
    *,
    evaluator: Evaluator,
    limits: Limits | None = None,
    settings: BABMCTSSettings | None = None,
    rng: np.random.Generator | int | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> SearchResult:
    """BABMCTS from `state` for the player to move, on a fresh tree.

    Args:
        state: A non-terminal decision state of a two-player zero-sum perfect-information game,
            with or without chance nodes.
        evaluator: Values non-terminal leaves (rollouts, a heuristic, any `Evaluator`).
        limits: Node and time limits (no depth limit); simulations are limited by
            `settings.simulations`.
        settings: Epsilon, UCT constant, simulation limit, memory cap, engine, ...
        rng: Seeds selection (expansion order, chance sampling): a generator or an integer.
        clock: Seconds for the time limit, monotonic (tests inject a fake clock).

    Returns:
        A `SearchResult` with `MCTSStats`: `[lower, upper]` contains the root's exact value for
        the player to move and is at most epsilon wide when `stats.stopped_by == "solved"`; the
        action is then epsilon-optimal.

    Raises:
        ValueError: The game is unsupported, the state is terminal or a chance node, `rng` or
            `limits` are invalid, `settings.engine` is "native" where the native engine is
            unavailable (see `tree_engine`), or the evaluator returned a value outside the
            game's range.
    """
    if state.is_chance_node():
        raise ValueError(
            f"{ALGORITHM} needs a decision state, got a chance node of "
            f"{game_description(state.get_game())}"
        )
    tree = make_tree(state, evaluator=evaluator, settings=settings, rng=rng, clock=clock)
    return tree.search(limits)
