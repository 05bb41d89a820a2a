"""The evaluator protocol and the range check every leaf value goes through."""

from __future__ import annotations

from collections.abc import Callable, Sequence
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


ChildLeaves = Callable[[pyspiel.State, int], Callable[[int], tuple[float, bool]]]
"""An evaluator's optional `child_leaves(state, player)`: a function from a legal move of
`state` to `(value, terminal)` of the child for `player`: its return when terminal, else
`evaluate(child)[player]`, exactly, without building the child. Searches use it at the depth
limit. An evaluator may also have `leaf_value(player)`, returning None or a function
`state -> evaluate(state)[player]` that gives the same float faster. Both are trusted: their
values skip `check_values` (the tests check them instead)."""


def check_values(values: Sequence[float], evaluator: Evaluator, info: GameInfo) -> Sequence[float]:
    """Returns `values` unchanged, or raises `ValueError` saying what is wrong with them.

    Accepted: a sequence of `info.num_players` real numbers, each inside
    `[info.min_utility, info.max_utility]`. Anything else (a scalar, the wrong count, NaN, a
    value out of range, something that is not a number) is a bug in the evaluator.
    """
    name = getattr(evaluator, "name", type(evaluator).__name__)
    low, high = info.min_utility, info.max_utility
    expected = f"{info.num_players} numbers in [{low}, {high}], one per player"
    try:
        if isinstance(values, str | bytes):
            raise TypeError
        count = len(values)
        numbers = [float(values[index]) for index in range(count)]
    except (TypeError, ValueError, IndexError, KeyError):
        raise ValueError(
            f"evaluator {name!r} returned {values!r} on {info.description}; expected {expected}"
        ) from None
    if count != info.num_players:
        raise ValueError(
            f"evaluator {name!r} returned {count} values on {info.description}, which has "
            f"{info.num_players} players; expected {expected}"
        )
    for value in numbers:
        if not low <= value <= high:  # NaN fails both comparisons
            raise ValueError(
                f"evaluator {name!r} returned {value!r} on {info.description}, outside the value "
                f"range [{low}, {high}]"
            )
    return values


def player_value(
    values: Sequence[float], player: int, evaluator: Evaluator, info: GameInfo
) -> float:
    """`values[player]` after `check_values`: the one checked read for code off the hot path."""
    return float(check_values(values, evaluator, info)[player])


class ZeroEvaluator:
    """Values every non-terminal state the same for every player (no knowledge): an equal share
    of the constant sum in a zero- or constant-sum game (0 in a zero-sum one, so that n-player
    searches that rely on the sum can use it), else the middle of the value range."""

    name = "zero"

    def __init__(self, game: pyspiel.Game) -> None:
        utility = game.get_type().utility
        players = game.num_players()
        if utility == pyspiel.GameType.Utility.ZERO_SUM:
            share = 0.0
        elif utility == pyspiel.GameType.Utility.CONSTANT_SUM:
            share = game.utility_sum() / players
        else:
            share = 0.5 * (game.min_utility() + game.max_utility())
        self._values = (float(share),) * players

    @property
    def values(self) -> tuple[float, ...]:
        """The value of every state, per player."""
        return self._values

    def evaluate(self, state: pyspiel.State) -> Sequence[float]:
        return self._values
