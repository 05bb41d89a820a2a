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
from open_spiel.python.observation import make_observation

from spiel_bounded.games import game_description


class Features:
    """Writes a state's input vector into a buffer (no allocation per leaf).

    The observation comes from OpenSpiel's default observer (`make_observation`), which writes
    it into one reused float32 array, equal to `state.observation_tensor(player)` without
    building a Python list.

    Attributes:
        observation_shape: The game's `observation_tensor_shape()`.
        observation_size: Its number of entries.
        size: Entries of the whole input (observation, then the mover's one-hot).
        observation: The reused array `observe` writes the observation into.
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
        self._observer = make_observation(game)
        self.observation: np.ndarray = self._observer.tensor

    def observe(self, state: pyspiel.State) -> int:
        """Writes the observation of `state` (not terminal) by its mover into `observation`
        and returns the index of the mover's one-hot entry (the player count at a chance
        node)."""
        mover = state.current_player()
        self._observer.set_from(state, mover if mover >= 0 else 0)
        return mover if mover >= 0 else self._players

    def write(self, state: pyspiel.State, out: np.ndarray) -> None:
        """Fills `out` (length `size`) with the features of `state` (not terminal)."""
        self.writer(out)(state)

    def writer(self, out: np.ndarray) -> Callable[[pyspiel.State], None]:
        """A function writing a state's features into `out`, its views cut once (the per-leaf
        path of `ValueNetEvaluator` keeps one for its buffer)."""
        size = self.observation_size
        observation, mover_bits, observed = out[:size], out[size:], self.observation
        observe = self.observe

        def write(state: pyspiel.State) -> None:
            row = observe(state)
            observation[:] = observed
            mover_bits.fill(0.0)
            mover_bits[row] = 1.0

        return write

    def of(self, state: pyspiel.State) -> np.ndarray:
        """A new float32 vector of the features of `state`."""
        out = np.empty(self.size, dtype=np.float32)
        self.write(state, out)
        return out
