"""The evaluator protocol and the range check every leaf value goes through."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import pyspiel

from spiel_bounded.games import GameInfo


@runtime_checkable
class Evaluator(Protocol):
    """Estimates the values of a non-terminal state for every player.

    `evaluate(state)` returns one value per player, each inside the game's
    `[min_utility, max_utility]`, in the game's own units (the same scale as `state.returns()`).
    Searches check every value with `check_values`: a value outside the range, or NaN, is a bug
    in the evaluator and raises `ValueError`.
    """

    name: str

    def evaluate(self, state: pyspiel.State) -> Sequence[float]:
        """Per-player values of `state` (not terminal, not a chance node unless documented)."""
        ...


def check_values(values: Sequence[float], evaluator: Evaluator, info: GameInfo) -> Sequence[float]:
    """Returns `values` unchanged, or raises `ValueError` if one is NaN or out of range."""
    low, high = info.min_utility, info.max_utility
    for value in values:
        if not low <= value <= high:  # NaN fails both comparisons
            raise ValueError(
                f"evaluator {evaluator.name!r} returned {value!r} on {info.description}, outside "
                f"the value range [{low}, {high}]"
            )
    if len(values) != info.num_players:
        raise ValueError(
            f"evaluator {evaluator.name!r} returned {len(values)} values on {info.description}, "
            f"which has {info.num_players} players"
        )
    return values


class ZeroEvaluator:
    """Values every non-terminal state at the middle of the value range (no knowledge)."""

    name = "zero"

    def __init__(self, game: pyspiel.Game) -> None:
        mid = 0.5 * (game.min_utility() + game.max_utility())
        self._values = (mid,) * game.num_players()

    def evaluate(self, state: pyspiel.State) -> Sequence[float]:
        return self._values
