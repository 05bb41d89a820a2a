"""A weighted mean of two evaluators: AlphaGo's mix of a value network and playouts.

`"mix:W:FIRST+SECOND"` values a state at `(1 - W) * FIRST + W * SECOND` for every player, where
FIRST and SECOND are evaluator names or `net:PATH` (neither may contain "+" or be a mix itself)
and `0 < W < 1`. A mean of values inside the game's range stays inside it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

import pyspiel

from spiel_bounded.evaluators.base import Evaluator, check_values
from spiel_bounded.games import game_info

MIX_PREFIX: Final = "mix:"
"""`"mix:W:FIRST+SECOND"` names the mix of two evaluators, SECOND weighted W."""


@dataclass(frozen=True)
class MixSpec:
    """The parts of a `"mix:W:FIRST+SECOND"` spec.

    Attributes:
        first: The spec of the evaluator weighted `1 - weight`.
        second: The spec of the evaluator weighted `weight`.
        weight: The second evaluator's weight, strictly between 0 and 1.
    """

    first: str
    second: str
    weight: float


def _is_weight(weight: float) -> bool:
    """Whether `weight` may weigh a mix's second evaluator: strictly between 0 and 1."""
    return math.isfinite(weight) and 0.0 < weight < 1.0


def parse_mix(spec: str) -> MixSpec:
    """The parts of `spec`, a `"mix:W:FIRST+SECOND"` string, checked for form only (neither
    evaluator is built, so no checkpoint is read).

    Raises:
        ValueError: saying which part is wrong and what is accepted.
    """
    form = f"{MIX_PREFIX}W:FIRST+SECOND with 0 < W < 1 (e.g. mix:0.5:net:model.npz+rollout)"
    if not spec.startswith(MIX_PREFIX):
        raise ValueError(f"a mixed evaluator is named {form}; got {spec!r}")
    weight_text, _, pair = spec[len(MIX_PREFIX) :].partition(":")
    try:
        weight = float(weight_text)
    except ValueError:
        raise ValueError(
            f"mix weight {weight_text!r} is not a number in {spec!r}; use {form}"
        ) from None
    if not _is_weight(weight):
        raise ValueError(f"mix weight {weight_text} must be strictly between 0 and 1 in {spec!r}")
    first, plus, second = pair.partition("+")
    if not plus or not first or not second or "+" in second:
        raise ValueError(f"{spec!r} must name exactly two evaluators joined by '+'; use {form}")
    if first.startswith(MIX_PREFIX) or second.startswith(MIX_PREFIX):
        raise ValueError(f"{spec!r} mixes a mix; name two plain evaluators (or net:PATH)")
    return MixSpec(first=first, second=second, weight=weight)


class MixedEvaluator:
    """`(1 - weight) * first + weight * second`, per player.

    Args:
        first: The evaluator weighted `1 - weight`.
        second: The evaluator weighted `weight`.
        weight: Strictly between 0 and 1.
        game: The game both evaluate.
    """

    def __init__(
        self, first: Evaluator, second: Evaluator, weight: float, game: pyspiel.Game
    ) -> None:
        if not _is_weight(weight):
            raise ValueError(f"mix weight must be strictly between 0 and 1, got {weight!r}")
        self.first = first
        self.second = second
        self.weight = float(weight)
        self.name = f"{MIX_PREFIX}{self.weight!r}:{first.name}+{second.name}"
        self._info = game_info(game)

    def evaluate(self, state: pyspiel.State) -> Sequence[float]:
        first = check_values(self.first.evaluate(state), self.first, self._info)
        second = check_values(self.second.evaluate(state), self.second, self._info)
        low, high = self._info.min_utility, self._info.max_utility
        return [
            min(high, max(low, (1.0 - self.weight) * float(a) + self.weight * float(b)))
            for a, b in zip(first, second, strict=True)
        ]

    def leaf_value(self, player: int) -> Callable[[pyspiel.State], float]:
        """A function `state -> evaluate(state)[player]`, equal to the last bit, through each
        part's own `leaf_value` where it has one (a network's one-call path)."""
        first, second = self._part_value(self.first, player), self._part_value(self.second, player)
        weight, low, high = self.weight, self._info.min_utility, self._info.max_utility
        return lambda state: min(
            high, max(low, (1.0 - weight) * first(state) + weight * second(state))
        )

    def _part_value(self, part: Evaluator, player: int) -> Callable[[pyspiel.State], float]:
        fast = getattr(part, "leaf_value", None)
        value = fast(player) if fast is not None else None
        if value is not None:
            return value
        info = self._info
        return lambda state: float(check_values(part.evaluate(state), part, info)[player])
