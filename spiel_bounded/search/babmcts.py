"""BABMCTS, the entry point: `babmcts` searches from a state on a fresh tree, and `make_tree`
builds the tree that `BABMCTSSettings.engine` asks for.

The two trees search identically: `search.mcts.BABMCTSTree` (the reference, whose docstring
states the rules: bounds, windows, pruning) and `search.mcts_compiled.CompiledBABMCTSTree`
(selection and backup compiled by numba, games without chance nodes, no priors). This module
imports both, and the compiled one only when it is used (it imports numba, the `fast` extra).
"""

from __future__ import annotations

import numpy as np
import pyspiel

from spiel_bounded.evaluators.base import Evaluator
from spiel_bounded.games import game_description, game_info
from spiel_bounded.limits import Limits
from spiel_bounded.result import SearchResult
from spiel_bounded.search.mcts import BABMCTSTree
from spiel_bounded.search.mcts_base import (
    ALGORITHM,
    ENGINE_AUTO,
    ENGINE_COMPILED,
    ENGINE_PYTHON,
    BABMCTSSettings,
    BABMCTSTreeBase,
    compiled_reasons,
)


def make_tree(
    state: pyspiel.State,
    *,
    evaluator: Evaluator,
    settings: BABMCTSSettings | None = None,
    rng: np.random.Generator | int | None = None,
) -> BABMCTSTreeBase:
    """The tree `settings.engine` asks for (see `BABMCTSSettings.engine`).

    Raises:
        ValueError: engine "compiled" cannot run this search (the message says why), or the
            tree refuses the state (see `BABMCTSTree`).
    """
    settings = settings or BABMCTSSettings()
    if settings.engine != ENGINE_PYTHON:
        info = game_info(state.get_game())
        reasons = compiled_reasons(info, evaluator, settings)
        if not reasons:
            from spiel_bounded.search.mcts_compiled import CompiledBABMCTSTree

            return CompiledBABMCTSTree(state, evaluator=evaluator, settings=settings, rng=rng)
        if settings.engine == ENGINE_COMPILED:
            raise ValueError(
                f"engine={ENGINE_COMPILED!r} cannot search {info.description}: "
                + "; ".join(reasons)
                + f" (engine={ENGINE_AUTO!r} falls back to {ENGINE_PYTHON!r})"
            )
    return BABMCTSTree(state, evaluator=evaluator, settings=settings, rng=rng)


def babmcts(
    state: pyspiel.State,
    *,
    evaluator: Evaluator,
    limits: Limits | None = None,
    settings: BABMCTSSettings | None = None,
    rng: np.random.Generator | int | None = None,
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

    Returns:
        A `SearchResult` with `MCTSStats`: `[lower, upper]` contains the root's exact value for
        the player to move and is at most epsilon wide when `stats.stopped_by == "solved"`; the
        action is then epsilon-optimal.

    Raises:
        ValueError: The game is unsupported, the state is terminal or a chance node, `rng` or
            `limits` are invalid, `settings.engine` is "compiled" and cannot run this search,
            or the evaluator returned a value outside the game's range.
    """
    if state.is_chance_node():
        raise ValueError(
            f"{ALGORITHM} needs a decision state, got a chance node of "
            f"{game_description(state.get_game())}"
        )
    tree = make_tree(state, evaluator=evaluator, settings=settings, rng=rng)
    return tree.search(limits)
