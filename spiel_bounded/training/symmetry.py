"""Symmetric images of positions, for games whose rules do not change when the board is
reflected or turned: a position and its image have the same value, so a network can be trained
on both (`[train] mirror = true`), twice the data for free.

Every game here observes its board as planes `[planes, rows, columns]`, so an image of an
observation is the same planes with their rows and/or columns reversed, some planes exchanged
(hex's "connected to the north edge" becomes "connected to the south edge" when the board is
turned); the mover's one-hot that follows the observation in the features does not change.
Each game has one image, a symmetry that also keeps its starting position (so the images are
positions games reach): a left-right mirror, a top-bottom mirror, or a half turn.
`tests/test_training_intervals.py` checks each game by brute force: the image of the features of
every position of random games is the features of the position reached by the images of the
moves.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

import numpy as np
import pyspiel

from spiel_bounded.games import game_description


@dataclass(frozen=True)
class Symmetry:
    """A transformation of a game's observation that keeps the game's rules and start.

    Attributes:
        name: What it does to the board, for messages and model cards.
        flip_rows: Reverse the board's rows (top to bottom).
        flip_columns: Reverse the board's columns (left to right).
        swapped_planes: Pairs of planes that trade places.
    """

    name: str
    flip_rows: bool
    flip_columns: bool
    swapped_planes: tuple[tuple[int, int], ...] = ()


LEFT_RIGHT: Final = Symmetry("left-right mirror", flip_rows=False, flip_columns=True)
TOP_BOTTOM: Final = Symmetry("top-bottom mirror", flip_rows=True, flip_columns=False)
HALF_TURN: Final = Symmetry("half turn", flip_rows=True, flip_columns=True)
# Hex's planes are its cell states from -4 to 4: a half turn exchanges the west and east edges
# (planes 1 and 2, white's) and the south and north edges (planes 6 and 7, black's).
HEX_HALF_TURN: Final = Symmetry(
    "half turn", flip_rows=True, flip_columns=True, swapped_planes=((1, 2), (6, 7))
)

SYMMETRIES: Final = {
    "connect_four": LEFT_RIGHT,
    "tic_tac_toe": LEFT_RIGHT,
    "breakthrough": LEFT_RIGHT,
    "amazons": LEFT_RIGHT,
    "clobber": TOP_BOTTOM,  # of an odd number of rows; `symmetry_of` chooses by the shape
    "othello": HALF_TURN,
    "hex": HEX_HALF_TURN,
}
"""Games (short names) with the image this module makes of their positions."""

MIRRORS: Final = tuple(SYMMETRIES)
"""Games whose positions have an image here (`[train] mirror = true` accepts them)."""


def symmetry_of(game: pyspiel.Game) -> Symmetry | None:
    """The image `game`'s positions have here; None where it has none."""
    name = game.get_type().short_name
    if name == "clobber":
        # The start is a checkerboard: a flip along an odd side keeps each cell's colour.
        rows, columns = game.get_parameters()["rows"], game.get_parameters()["columns"]
        return TOP_BOTTOM if rows % 2 else LEFT_RIGHT if columns % 2 else HALF_TURN
    if name == "hex" and game.get_parameters().get("plain_obs_tensor", False):
        return HALF_TURN  # planes of empty, black and white cells: none to exchange
    if name == "hex" and game.get_parameters().get("swap", False):
        return None  # the pie rule's swap move has no image
    return SYMMETRIES.get(name)


def check_mirror(game: pyspiel.Game) -> Symmetry:
    """`game`'s symmetry; `ValueError` naming the accepted games where it has none."""
    symmetry = symmetry_of(game)
    if symmetry is None:
        raise ValueError(
            f"[train] mirror = true needs a game whose positions have a symmetric image "
            f"(a mirror or a half turn); {game_description(game)} is not one of "
            f"{', '.join(MIRRORS)}"
        )
    return symmetry


def mirror_features(game: pyspiel.Game, features: np.ndarray) -> np.ndarray:
    """The features (`[positions, size]`) of the symmetric images of the positions."""
    symmetry = check_mirror(game)
    planes, rows, columns = game.observation_tensor_shape()
    size = math.prod((planes, rows, columns))
    board = features[:, :size].reshape(-1, planes, rows, columns)
    if symmetry.flip_rows:
        board = board[:, :, ::-1, :]
    if symmetry.flip_columns:
        board = board[:, :, :, ::-1]
    if symmetry.swapped_planes:
        order = list(range(planes))
        for first, second in symmetry.swapped_planes:
            order[first], order[second] = second, first
        board = board[:, order]
    return np.concatenate([board.reshape(-1, size), features[:, size:]], axis=1)
