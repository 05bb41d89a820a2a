"""The amazon a turn has lifted: what OpenSpiel's amazons observation leaves out.

An amazons turn is three actions: the amazon to move (its cell), its destination, the arrow.
After the first, OpenSpiel's observation shows the chosen amazon's cell as empty: the board seems
to hold three amazons of the mover's, and which one is in the air is not said. A search that
stops there (a third of the depths it reaches) would value such positions by a board that is
not the game's.

`LIFTED_VIEWS` are how a network's input shows that position:

- "restored" (every network trained since 2026-11-30): the lifted amazon back on its cell, so
  the position after choosing an amazon reads as the one before, the mover unchanged;
- "observed" (checkpoints written before): OpenSpiel's observation as it is.

In every other game the two views are the same input.
"""

from __future__ import annotations

from typing import Final

import numpy as np
import pyspiel

from spiel_bounded.evaluators.value_net.territory import AmazonsBoard

LIFTED_VIEWS: Final = ("restored", "observed")
"""How the input shows an amazon lifted mid-turn (module docstring); the first is the default."""
TURN_ACTIONS: Final = 3
"""Actions an amazons turn takes: the amazon, its destination, the arrow."""


def restore_lifted(state: pyspiel.State, observation: np.ndarray, board: AmazonsBoard) -> None:
    """Puts the amazon `state`'s turn has lifted (if its first action is the last one played)
    back on its cell in `observation` (the flat observation of `state`, written in place)."""
    # Every action counts as a move in amazons (no chance nodes): the move number is the
    # history's length without building the history at every leaf.
    if state.move_number() % TURN_ACTIONS != 1:
        return
    cell = state.history()[-1]
    planes = observation.reshape(-1, board.cells)
    planes[board.empty_plane, cell] = 0.0
    planes[board.player_planes[state.current_player()], cell] = 1.0
