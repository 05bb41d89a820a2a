"""Mirror images of positions, for games whose rules do not change when the board is reflected
left to right: a position and its mirror image have the same value, so a network can be
trained on both (`[train] mirror = true`), twice the data for free.

Every game here observes its board as planes `[planes, rows, columns]`, so the mirror image of
an observation is the same planes with their columns reversed; the mover's one-hot that follows
the observation in the features does not change. `tests/test_training_intervals.py` checks each
game by brute force: the mirrored features of every position of random games are the features
of the position reached by the mirrored moves.
"""

from __future__ import annotations

import math
from typing import Final

import numpy as np
import pyspiel

from spiel_bounded.games import game_description

MIRRORS: Final = ("connect_four", "tic_tac_toe", "breakthrough")
"""Games (short names, any parameters) whose left-right mirror image keeps the rules."""


def check_mirror(game: pyspiel.Game) -> None:
    """`ValueError` unless `game` has a left-right mirror symmetry this module knows."""
    if game.get_type().short_name not in MIRRORS:
        raise ValueError(
            f"[train] mirror = true needs a game with a left-right mirror symmetry; "
            f"{game_description(game)} is not one of {', '.join(MIRRORS)}"
        )


def mirror_features(game: pyspiel.Game, features: np.ndarray) -> np.ndarray:
    """The features (`[positions, size]`) of the mirror images of the positions."""
    check_mirror(game)
    planes, rows, columns = game.observation_tensor_shape()
    size = math.prod((planes, rows, columns))
    board = features[:, :size].reshape(-1, planes, rows, columns)[..., ::-1]
    return np.concatenate([board.reshape(-1, size), features[:, size:]], axis=1)
