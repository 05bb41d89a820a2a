"""Leaf evaluators: estimate per-player values of non-terminal states for depth-limited search.

Use `make_evaluator("zero" | "rollout" | "heuristic" | "seeded_rollout" | "net:PATH" |
"mix:W:FIRST+SECOND", game)` or pass any object satisfying the `Evaluator` protocol. "net:PATH"
loads a trained value network (`value_net`); "mix:W:FIRST+SECOND" weighs two of them (`mixed`).
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
from spiel_bounded.evaluators.mixed import MIX_PREFIX, MixedEvaluator, parse_mix
from spiel_bounded.evaluators.rollout import RolloutEvaluator
from spiel_bounded.evaluators.seeded_rollout import SeededRolloutEvaluator

EVALUATOR_NAMES = ("zero", "rollout", "heuristic", "seeded_rollout")
"""Names `make_evaluator` accepts, besides `NET_PREFIX` followed by a checkpoint path."""
NET_PREFIX = "net:"
"""`"net:PATH"` names the value network whose checkpoint is at PATH."""
EVALUATOR_FORMS = (
    f"{', '.join(EVALUATOR_NAMES)}, {NET_PREFIX}PATH (a trained value network), "
    f"{MIX_PREFIX}W:FIRST+SECOND (weighted mean, SECOND weighted W)"
)
"""Every form of evaluator name, as messages list them."""

__all__ = [
    "EVALUATOR_FORMS",
    "EVALUATOR_NAMES",
    "HEURISTIC_GAMES",
    "MIX_PREFIX",
    "NET_PREFIX",
    "Evaluator",
    "HeuristicEvaluator",
    "MixedEvaluator",
    "RolloutEvaluator",
    "SeededRolloutEvaluator",
    "ZeroEvaluator",
    "check_values",
    "has_heuristic",
    "make_evaluator",
    "reseeded",
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
        spec: One of `EVALUATOR_NAMES`, "net:PATH" (a value-network checkpoint),
            "mix:W:FIRST+SECOND" (two of those, `(1 - W) * FIRST + W * SECOND`), or an object
            with a `name` and an `evaluate` method.
        game: The game the evaluator will be used on.
        rollouts: Playouts per evaluation ("rollout" and "seeded_rollout", mixed or not).
        seed: Integer seed or generator for the playouts ("rollout", mixed or not).

    Returns:
        The evaluator: a new one for a name, `spec` itself for an object.

    Raises:
        ValueError: Unknown name, an object that is not an evaluator, or an invalid argument
            for the named evaluator (e.g. `rollouts=0`, "heuristic" on an unsupported game, a
            checkpoint that is missing, corrupted or trained on another game).
    """
    if isinstance(spec, str):
        if spec == "zero":
            return ZeroEvaluator(game)
        if spec == "rollout":
            return RolloutEvaluator(game, rollouts=rollouts, seed=seed)
        if spec == "heuristic":
            return HeuristicEvaluator(game)
        if spec == "seeded_rollout":
            return SeededRolloutEvaluator(game, rollouts=rollouts)
        if spec.startswith(NET_PREFIX) and len(spec) > len(NET_PREFIX):
            from spiel_bounded.evaluators.value_net.evaluator import ValueNetEvaluator

            return ValueNetEvaluator(game, spec[len(NET_PREFIX) :])
        if spec.startswith(MIX_PREFIX):
            mix = parse_mix(spec)
            return MixedEvaluator(
                make_evaluator(mix.first, game, rollouts=rollouts, seed=seed),
                make_evaluator(mix.second, game, rollouts=rollouts, seed=seed),
                mix.weight,
                game,
            )
        raise ValueError(f"unknown evaluator {spec!r}; accepted: {EVALUATOR_FORMS}")
    if isinstance(spec, Evaluator) and callable(getattr(spec, "evaluate", None)):
        return spec
    raise ValueError(
        f"evaluator must be a name ({EVALUATOR_FORMS}) or an object with `name` and "
        f"`evaluate(state)`, got {type(spec).__name__}"
    )


def reseeded(evaluator: Evaluator, game: pyspiel.Game, seed: int) -> Evaluator:
    """`evaluator` with its random playouts seeded by `seed`: a new rollout evaluator for a
    rollout evaluator, a mix with its rollout parts reseeded for a mix, else `evaluator`
    itself (a network is not loaded again)."""
    if isinstance(evaluator, RolloutEvaluator):
        return RolloutEvaluator(game, rollouts=evaluator.rollouts, seed=seed)
    if isinstance(evaluator, MixedEvaluator):
        first = reseeded(evaluator.first, game, seed)
        second = reseeded(evaluator.second, game, seed)
        if first is evaluator.first and second is evaluator.second:
            return evaluator
        return MixedEvaluator(first, second, evaluator.weight, game)
    return evaluator
