"""How the network's raw outputs become per-player values inside the game's utility range.

Bounded by construction, so no search ever sees a value out of range:

- two players, zero- or constant-sum ("mirror"): one output r; player 0 gets
  `mid + half * tanh(r)` and player 1 `mid - half * tanh(r)` (mid: half the constant sum;
  half: the largest distance from mid that stays inside `[min, max]` for both).
- more players, zero- or constant-sum ("shares"): one output per player; player i gets
  `low + (sum - n * low) * softmax(r)_i`, so the values keep the constant sum exactly. The
  largest value is `sum - (n - 1) * low`, which stays within the maximum when
  `low = max(min, (sum - max) / (n - 1))`: the smallest floor the range allows (for
  winner-take-all games like pig with 4 players, -1/3 where -1 is declared).
- otherwise ("independent"): one output per player, `min + (max - min) * sigmoid(r_i)`.

Every function takes the array module (`numpy` or `jax.numpy`) so numpy inference and JAX
training compute the same thing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import pyspiel

FORMS: Final = ("mirror", "shares", "independent")


@dataclass(frozen=True)
class OutputForm:
    """The map from raw outputs to per-player values of one game.

    Attributes:
        form: One of `FORMS`.
        players: Number of players.
        low: Smallest value produced (a player's minimum return).
        high: Largest value any player's value can reach.
        total: The constant sum ("mirror", "shares"), else 0.
    """

    form: str
    players: int
    low: float
    high: float
    total: float

    @property
    def outputs(self) -> int:
        """Raw outputs of the network."""
        return 1 if self.form == "mirror" else self.players

    @property
    def mirror(self) -> tuple[float, float]:
        """ "mirror": the middle of the range (half the constant sum) and the largest distance
        from it that stays inside `[low, high]` for both players."""
        mid = 0.5 * self.total
        return mid, min(self.high - mid, mid - self.low)

    def values(self, raw: Any, xp: Any) -> Any:
        """Per-player values `[..., players]` of raw outputs `[..., outputs]`."""
        if self.form == "mirror":
            mid, half = self.mirror
            value = half * xp.tanh(raw[..., 0])
            return xp.stack([mid + value, mid - value], axis=-1)
        if self.form == "shares":
            shifted = raw - xp.max(raw, axis=-1, keepdims=True)
            weights = xp.exp(shifted)
            shares = weights / xp.sum(weights, axis=-1, keepdims=True)
            return self.low + (self.total - self.players * self.low) * shares
        return self.low + (self.high - self.low) / (1.0 + xp.exp(-raw))

    def values_of_one(self, raw: np.ndarray) -> list[float]:
        """`values` of one position's raw outputs, as floats (the per-leaf path)."""
        if self.form == "mirror":
            mid, half = self.mirror
            value = half * math.tanh(float(raw[0]))
            return [mid + value, mid - value]
        # float64: float32 shares can miss the constant sum by 1e-7, more than searches allow.
        return [float(value) for value in self.values(np.asarray(raw, dtype=np.float64), np)]


def output_form(game: pyspiel.Game) -> OutputForm:
    """The output form of `game` (see the module docstring)."""
    players = game.num_players()
    low, high = float(game.min_utility()), float(game.max_utility())
    utility = game.get_type().utility
    constant = utility in (pyspiel.GameType.Utility.ZERO_SUM, pyspiel.GameType.Utility.CONSTANT_SUM)
    if not constant:
        return OutputForm("independent", players, low, high, 0.0)
    total = 0.0 if utility == pyspiel.GameType.Utility.ZERO_SUM else float(game.utility_sum())
    if players == 2:
        return OutputForm("mirror", players, low, high, total)
    low = max(low, (total - high) / (players - 1))
    return OutputForm("shares", players, low, high, total)
