"""Leaf evaluators: estimate per-player values of non-terminal states for depth-limited search.

Use `make_evaluator("zero" | "rollout" | "heuristic", game)` or pass any object satisfying the
`Evaluator` protocol.
"""

from __future__ import annotations

import numpy as np
import pyspiel

from spiel_bounded.evaluators.base import Evaluator, ZeroEvaluator, check_values
from spiel_bounded.evaluators.heuristics import (
    HEURISTIC_GAMES,
    HeuristicEvaluator,
    has_heuristic,
)
from spiel_bounded.evaluators.rollout import RolloutEvaluator

EVALUATOR_NAMES = ("zero", "rollout", "heuristic")
"""Names `make_evaluator` accepts."""

__all__ = [
    "EVALUATOR_NAMES",
    "HEURISTIC_GAMES",
    "Evaluator",
    "HeuristicEvaluator",
    "RolloutEvaluator",
    "ZeroEvaluator",
    "check_values",
    "has_heuristic",
    "make_evaluator",
]


def make_evaluator(
    spec: str | Evaluator,
    game: pyspiel.Game,
    *,
    rollouts: int = 1,
    seed: int | np.random.Generator = 0,
) -> Evaluator:
    """Builds an evaluator by name, or passes an evaluator object through.

    Args:
        spec: One of `EVALUATOR_NAMES`, or an object with a `name` and an `evaluate` method.
        game: The game the evaluator will be used on.
        rollouts: Playouts per evaluation ("rollout" only).
        seed: Integer seed or generator for the playouts ("rollout" only).

    Returns:
        The evaluator: a new one for a name, `spec` itself for an object.

    Raises:
        ValueError: Unknown name, an object that is not an evaluator, or an invalid argument
            for the named evaluator (e.g. `rollouts=0`, or "heuristic" on an unsupported game).
    """
    if isinstance(spec, str):
        if spec == "zero":
            return ZeroEvaluator(game)
        if spec == "rollout":
            return RolloutEvaluator(game, rollouts=rollouts, seed=seed)
        if spec == "heuristic":
            return HeuristicEvaluator(game)
        raise ValueError(f"unknown evaluator {spec!r}; accepted: {', '.join(EVALUATOR_NAMES)}")
    if isinstance(spec, Evaluator) and callable(getattr(spec, "evaluate", None)):
        return spec
    raise ValueError(
        f"evaluator must be a name ({', '.join(EVALUATOR_NAMES)}) or an object with `name` and "
        f"`evaluate(state)`, got {type(spec).__name__}"
    )
