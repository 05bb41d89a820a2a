"""Which evaluator a native search runs: a C++ twin of the package's evaluator, or a callback."""

from __future__ import annotations

import sys
import weakref
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pyspiel

from spiel_bounded.evaluators.base import Evaluator, ZeroEvaluator
from spiel_bounded.evaluators.heuristics import HeuristicEvaluator
from spiel_bounded.evaluators.mixed import MixedEvaluator
from spiel_bounded.evaluators.rollout import RolloutEvaluator
from spiel_bounded.evaluators.seeded_rollout import SeededRolloutEvaluator
from spiel_bounded.native import available, check_engine, engine_module, warn_fallback

_KEPT_TWINS: weakref.WeakKeyDictionary[Evaluator, dict[str, Any]] = weakref.WeakKeyDictionary()
"""The twins of heuristics and value networks, made once per evaluator and game (a network's
parameters are copied into C++; a twin keeps no value from one search to the next)."""


def _twin(module: ModuleType, evaluator: Evaluator, game: pyspiel.Game) -> Any | None:
    """The C++ twin of `evaluator`, or None when it has none."""
    if isinstance(evaluator, ZeroEvaluator):
        return module.constant_evaluator(list(evaluator.values))
    if isinstance(evaluator, RolloutEvaluator):  # a new seed from its stream each search
        low, high = float(game.min_utility()), float(game.max_utility())
        return module.rollout_evaluator(evaluator.rollouts, evaluator.draw_seed(), low, high)
    if isinstance(evaluator, SeededRolloutEvaluator):
        return module.seeded_rollout_evaluator(evaluator.rollouts)
    if isinstance(evaluator, MixedEvaluator):
        parts = [evaluator.first, evaluator.second]
        twins: list[Any] = [None, None]
        # Playouts last: a mix with a part that has no twin draws no seed from their stream.
        for index in sorted(range(2), key=lambda i: _draws_seeds(parts[i])):
            twins[index] = _twin(module, parts[index], game)
            if twins[index] is None:
                return None
        low, high = float(game.min_utility()), float(game.max_utility())
        return module.mixed_evaluator(*twins, evaluator.weight, low, high)
    if not isinstance(evaluator, HeuristicEvaluator) and not _is_value_net(evaluator):
        return None
    kept = _KEPT_TWINS.setdefault(evaluator, {})
    key = str(game)
    if key not in kept:
        if isinstance(evaluator, HeuristicEvaluator):
            kept[key] = module.heuristic_evaluator(game)
        else:
            kept[key] = _value_net_twin(module, evaluator, game)
    return kept[key]


_VALUE_NET_MODULE = "spiel_bounded.evaluators.value_net.evaluator"


def has_twin(evaluator: Evaluator, game: pyspiel.Game) -> bool:
    """Whether `evaluator` has a C++ twin on `game`, without making it (so nothing is drawn
    from a rollout evaluator's random stream); False where the native engine is unavailable."""
    if not available():
        return False
    if isinstance(evaluator, ZeroEvaluator | RolloutEvaluator | SeededRolloutEvaluator):
        return True
    if isinstance(evaluator, MixedEvaluator):
        return has_twin(evaluator.first, game) and has_twin(evaluator.second, game)
    if isinstance(evaluator, HeuristicEvaluator):
        try:
            return engine_module("has_twin").heuristic_evaluator(game) is not None
        except ValueError:  # a board layout the C++ heuristic does not read
            return False
    return _is_value_net(evaluator)


def _is_value_net(evaluator: Evaluator) -> bool:
    """Whether `evaluator` is a `ValueNetEvaluator`. A value network exists only once its module
    is imported: looking there first keeps numpy inference (and numba) out of searches that use
    no network."""
    loaded = sys.modules.get(_VALUE_NET_MODULE)
    return loaded is not None and isinstance(evaluator, loaded.ValueNetEvaluator)


def _value_net_twin(module: ModuleType, evaluator: Any, game: pyspiel.Game) -> Any:
    """The C++ twin of a `ValueNetEvaluator` (its checked parameters handed over)."""
    checkpoint, model = evaluator.checkpoint, evaluator.checkpoint.model
    return module.value_net_evaluator(
        game,
        model.kind,
        model.width,
        model.depth,
        model.channels,
        model.conv_layers,
        model.inputs,
        checkpoint.chance_view,
        checkpoint.lifted_view,
        dict(checkpoint.params),
    )


def native_evaluator(
    engine: str,
    algorithm: str,
    evaluator: Evaluator,
    game: pyspiel.Game,
    value_of: Callable[[], Callable[[pyspiel.State], float]],
) -> Any | None:
    """The evaluator a search with setting `engine` runs natively, or None for the Python engine.

    "auto" runs natively when the engine is built and `evaluator` has a C++ twin; "native"
    always, calling a Python evaluator back through `value_of()` (the checked `state -> value`
    function of the Python engine, for the search's maximizing player).

    Raises:
        ValueError: `engine` is unknown, or "native" where the native engine is unavailable.
    """
    check_engine(engine)
    if engine == "python":
        return None
    if engine == "auto" and not available():
        warn_fallback()
        return None
    module = engine_module(algorithm)
    twin = _twin(module, evaluator, game)
    if twin is not None or engine == "auto":
        return twin
    value = value_of()
    name = str(getattr(evaluator, "name", type(evaluator).__name__))
    return module.callback_evaluator(lambda state, _player: value(state), name)


def reusable_twin(engine: str, algorithm: str, evaluator: Evaluator, game: pyspiel.Game) -> Any:
    """The C++ twin of `evaluator` that every search of a whole native game may share, or None:
    when `engine` is "python", the native engine is unavailable, `evaluator` has no twin, or its
    twin changes from one search to the next (a rollout evaluator draws a new seed each)."""
    check_engine(engine)
    if engine == "python" or not available() or _draws_seeds(evaluator):
        return None
    return _twin(engine_module(algorithm), evaluator, game)


def _draws_seeds(evaluator: Evaluator) -> bool:
    """Whether `evaluator`'s twin takes a new seed each search (a rollout evaluator, mixed or
    not)."""
    if isinstance(evaluator, MixedEvaluator):
        return _draws_seeds(evaluator.first) or _draws_seeds(evaluator.second)
    return isinstance(evaluator, RolloutEvaluator)


def native_values_evaluator(
    engine: str,
    algorithm: str,
    evaluator: Evaluator,
    game: pyspiel.Game,
    values_of: Callable[[], Callable[[pyspiel.State], list[float]]],
) -> Any | None:
    """As `native_evaluator`, for the n-player searches, which read every player's value: a
    Python evaluator is called back once per state through `values_of()` (the checked
    `state -> values` function of the Python engine)."""
    check_engine(engine)
    if engine == "python":
        return None
    if engine == "auto" and not available():
        warn_fallback()
        return None
    module = engine_module(algorithm)
    twin = _twin(module, evaluator, game)
    if twin is not None or engine == "auto":
        return twin
    name = str(getattr(evaluator, "name", type(evaluator).__name__))
    return module.values_callback_evaluator(values_of(), name)
