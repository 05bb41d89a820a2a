"""What the network sees: the observation tensor of the player to move, plus who is to move.

`features(state) = observation_tensor(observer) ++ one_hot(mover)`, where the observer is the
player to move (player 0 at a chance node) and the one-hot has one entry per player and a last
one for chance. Some games' observations are absolute (connect_four: the same planes whoever
observes) and some relative; the one-hot makes the input say whose turn it is either way.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pyspiel

from spiel_bounded.games import game_description


class Features:
    """Writes a state's input vector into a buffer (no allocation per leaf).

    Attributes:
        observation_shape: The game's `observation_tensor_shape()`.
        observation_size: Its number of entries.
        size: Entries of the whole input (observation, then the mover's one-hot).
    """

    def __init__(self, game: pyspiel.Game) -> None:
        if not game.get_type().provides_observation_tensor:
            raise ValueError(
                f"{game_description(game)} has no observation tensor, which a value network "
                "reads; accepted: games whose observation_tensor_shape() is defined"
            )
        self.observation_shape: tuple[int, ...] = tuple(game.observation_tensor_shape())
        self.observation_size = math.prod(self.observation_shape)
        self._players = game.num_players()
        self.size = self.observation_size + self._players + 1

    def write(self, state: pyspiel.State, out: np.ndarray) -> None:
        """Fills `out` (length `size`) with the features of `state` (not terminal)."""
        self.writer(out)(state)

    def writer(self, out: np.ndarray) -> Callable[[pyspiel.State], None]:
        """A function writing a state's features into `out`, its views cut once (the per-leaf
        path of `ValueNetEvaluator` keeps one for its buffer)."""
        size, players = self.observation_size, self._players
        observation, mover_bits = out[:size], out[size:]

        def write(state: pyspiel.State) -> None:
            mover = state.current_player()
            observation[:] = state.observation_tensor(mover if mover >= 0 else 0)
            mover_bits.fill(0.0)
            mover_bits[mover if mover >= 0 else players] = 1.0

        return write

    def of(self, state: pyspiel.State) -> np.ndarray:
        """A new float32 vector of the features of `state`."""
        out = np.empty(self.size, dtype=np.float32)
        self.write(state, out)
        return out
