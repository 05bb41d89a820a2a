"""The amazons heuristic: territory by queen distance, and mobility.

In amazons a player who cannot move loses, so a position is worth the room each side can still
reach. A cell's queen distance from a side is the fewest queen moves one of its amazons needs to
reach it through empty cells (`value_net.territory`); the score, from player 0's side, is

    AMAZONS_TERRITORY * (cells player 0 reaches first - cells player 1 reaches first)
    + (cells player 0 reaches in one move - cells player 1 reaches in one move)

and `HeuristicEvaluator` maps it to values by `0.95 * tanh(score / AMAZONS_SCALE)`.

A turn is three actions (the amazon, its destination, the arrow), and OpenSpiel's observation
does not show the first one: after it the lifted amazon is missing from the board. The heuristic
puts it back (the turn's first action is its cell), so the position after choosing an amazon is
scored as the one before.

`bounded_ab` with it (the native twin, about 107,000 nodes a move) won 40 of 40 games against C++
`mcts` and 40 of 40 against the same bot with the amazons_territory network, at 0.1 s a move
from unseen openings (`configs/heuristic_amazons.toml`, `results/round_robin_heuristic_amazons/`,
2026-11-29).
"""

from __future__ import annotations

from typing import Final

import numpy as np
import pyspiel

from spiel_bounded.evaluators.value_net.lifted import restore_lifted
from spiel_bounded.evaluators.value_net.territory import territory_board, territory_planes

AMAZONS_TERRITORY: Final = 5
"""Score per empty cell a side reaches in fewer queen moves than the other."""
AMAZONS_SCALE: Final = 50.0
"""The tanh scale of the score."""
AMAZONS_PLANE_WEIGHTS: Final = (AMAZONS_TERRITORY, -AMAZONS_TERRITORY, 0, 1, -1)
"""The score's weight on a cell of each territory plane (`territory.PLANES`: player 0's first,
player 1's first, tied, player 0's one-move reach, player 1's)."""


class AmazonsScorer:
    """The amazons score of a state (any board size the territory planes read)."""

    def __init__(self, game: pyspiel.Game) -> None:
        self._board = territory_board(game)

    def board(self, state: pyspiel.State) -> np.ndarray:
        """The observation of `state` (float32) with an amazon chosen this turn, and so missing
        from it, back on its cell."""
        observation = np.asarray(state.observation_tensor(0), np.float32)
        restore_lifted(state, observation, self._board)
        return observation

    def score(self, state: pyspiel.State) -> int:
        """The score of `state` from player 0's side (positive: player 0 better off)."""
        cells = self._board.cells
        planes = territory_planes(self.board(state)[None], self._board)[0].reshape(-1, cells)
        counts = planes.sum(axis=1).astype(np.int64)
        return int(np.dot(AMAZONS_PLANE_WEIGHTS, counts))
