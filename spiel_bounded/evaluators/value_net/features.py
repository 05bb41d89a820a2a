"""What the network sees: the observation tensor of the player to move, plus who is to move.

`features(state) = observation_tensor(observer) ++ mover bits`, with one mover bit per player
and a last one for chance. At a decision node the observer is the player to move and only their
bit is set. Some games' observations are absolute (connect_four: the same planes whoever
observes) and some relative; the bits make the input say whose turn it is either way.

At a chance node what the input says depends on the `chance_view` (`CHANCE_VIEWS`):

- "next_mover" (every network trained since 2026-11-25): the observer is the player who moves
  once chance has acted (read from the child of the first outcome, through further chance
  nodes), and both that player's bit and the chance bit are set. Without it, backgammon's input
  after a move cannot say who rolls next: its observation at a chance node has no turn or dice
  bits, the same board with either side on roll, and a depth-1 search values every move by such
  positions.
- "player_0" (checkpoints written before): player 0 observes and only the chance bit is set.

A checkpoint records its view (`Checkpoint.chance_view`); in games without chance nodes the two
are the same input. It records too how an amazon lifted mid-turn is shown (`lifted.LIFTED_VIEWS`,
`Checkpoint.lifted_view`): back on its cell, or missing as OpenSpiel's observation has it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Final

import numpy as np
import pyspiel
from open_spiel.python.observation import make_observation

from spiel_bounded.evaluators.value_net.lifted import LIFTED_VIEWS, restore_lifted
from spiel_bounded.evaluators.value_net.territory import amazons_board
from spiel_bounded.games import game_description

CHANCE_VIEWS: Final = ("next_mover", "player_0")
"""How a chance node is shown to the network (module docstring); the first is the default."""


def next_mover(state: pyspiel.State) -> int:
    """The player to move once chance has acted at `state` (a chance node): the mover after its
    first outcome, and after the first outcome of any chance node that follows; player 0 when
    the game ends first."""
    while state.is_chance_node():
        state = state.child(state.legal_actions()[0])
    return max(state.current_player(), 0)


class Features:
    """Writes a state's input vector into a buffer (no allocation per leaf).

    The observation comes from OpenSpiel's default observer (`make_observation`), which writes
    it into one reused float32 array, equal to `state.observation_tensor(player)` without
    building a Python list.

    Args:
        game: The game.
        chance_view: One of `CHANCE_VIEWS`: what a chance node's input says.
        lifted_view: One of `LIFTED_VIEWS`: whether an amazon lifted mid-turn is put back.

    Attributes:
        observation_shape: The game's `observation_tensor_shape()`.
        observation_size: Its number of entries.
        size: Entries of the whole input (observation, then the mover's one-hot).
        observation: The reused array `observe` writes the observation into.
        chance_view: One of `CHANCE_VIEWS`.
        lifted_view: One of `LIFTED_VIEWS`.
    """

    def __init__(
        self,
        game: pyspiel.Game,
        chance_view: str = CHANCE_VIEWS[0],
        lifted_view: str = LIFTED_VIEWS[0],
    ) -> None:
        if chance_view not in CHANCE_VIEWS:
            raise ValueError(
                f"unknown chance view {chance_view!r}; accepted: {', '.join(CHANCE_VIEWS)}"
            )
        if lifted_view not in LIFTED_VIEWS:
            raise ValueError(
                f"unknown lifted view {lifted_view!r}; accepted: {', '.join(LIFTED_VIEWS)}"
            )
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
        self.chance_view = chance_view
        self._next_mover = chance_view == "next_mover"
        self.lifted_view = lifted_view
        self._lifted = amazons_board(game) if lifted_view == "restored" else None

    def observe(self, state: pyspiel.State) -> int:
        """Writes the observation of `state` (not terminal) into `observation` and returns the
        code of its mover bits (`mover_rows` decodes it): the mover at a decision node; at a
        chance node the player count (the chance bit alone, "player_0" view) or the player
        count plus 1 plus the next mover ("next_mover" view)."""
        mover = state.current_player()
        if mover >= 0:
            self._observer.set_from(state, mover)
            if self._lifted is not None:
                restore_lifted(state, self.observation, self._lifted)
            return mover
        if not self._next_mover:
            self._observer.set_from(state, 0)
            return self._players
        observer = next_mover(state)
        self._observer.set_from(state, observer)
        return self._players + 1 + observer

    def mover_rows(self, code: int) -> tuple[int, ...]:
        """The mover bits set for an `observe` code."""
        players = self._players
        return (code,) if code <= players else (code - players - 1, players)

    def write(self, state: pyspiel.State, out: np.ndarray) -> None:
        """Fills `out` (length `size`) with the features of `state` (not terminal)."""
        self.writer(out)(state)

    def writer(self, out: np.ndarray) -> Callable[[pyspiel.State], None]:
        """A function writing a state's features into `out`, its views cut once (the per-leaf
        path of `ValueNetEvaluator` keeps one for its buffer)."""
        size = self.observation_size
        observation, mover_bits, observed = out[:size], out[size:], self.observation
        observe, mover_rows = self.observe, self.mover_rows

        def write(state: pyspiel.State) -> None:
            code = observe(state)
            observation[:] = observed
            mover_bits.fill(0.0)
            for row in mover_rows(code):
                mover_bits[row] = 1.0

        return write

    def of(self, state: pyspiel.State) -> np.ndarray:
        """A new float32 vector of the features of `state`."""
        out = np.empty(self.size, dtype=np.float32)
        self.write(state, out)
        return out
