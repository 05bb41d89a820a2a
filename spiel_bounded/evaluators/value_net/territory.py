"""Territory inputs: what a network may derive from the observation of an amazons position.

In amazons a player who cannot move loses, so what counts is the room each side can still reach.
A cell's *queen distance* from a side is the fewest queen moves (any distance along a row, column
or diagonal, through empty cells) one of its amazons needs to reach it. With
`ModelConfig.inputs = "territory"` a network reads, after the observation and the mover bits,
five planes over the empty cells: those player 0 reaches in fewer queen moves than player 1,
those player 1 reaches first, those both reach in the same number, then those each side reaches
in one queen move (its mobility).

Why: the board's planes show where the pieces are, not which side owns the room between them;
territory by queen distance is the classic amazons evaluation, and a dense network does not
find it from the raw planes, as hex's did not find connections (`connections.py`).

A function of the observation, derived inside the network as the other derived inputs are:
`reference_planes` is the readable definition (a breadth-first search a side at a time) and the
tests' oracle; `territory_planes` runs the native engine's twin where it is built.
"""

from __future__ import annotations

import collections
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import pyspiel

from spiel_bounded.evaluators.value_net.host_planes import host_planes
from spiel_bounded.games import game_description

PLANES: Final = 5
"""Player 0's cells, player 1's, the tied ones, player 0's reach in one move, player 1's."""

DIRECTIONS: Final = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))


@dataclass(frozen=True)
class AmazonsBoard:
    """An amazons board as its observation shows it.

    Attributes:
        rows: Board rows (and columns: amazons boards are square).
        empty_plane: The observation's plane of empty cells.
        player_planes: Each player's amazons' plane (player 0's, then player 1's).
    """

    rows: int
    empty_plane: int = 0
    player_planes: tuple[int, int] = (2, 1)

    @property
    def cells(self) -> int:
        return self.rows * self.rows

    @property
    def size(self) -> int:
        """Inputs the network derives: five planes."""
        return PLANES * self.cells

    def planes(self, observations: Any, xp: Any = np) -> Any:
        """The territory inputs `[batch, size]` (float32) of observations `[batch, ...]` (the
        game's flat observations, planes first). numpy runs the native engine where it is built
        (else `reference_planes`); `jax.numpy` calls it back from the traced computation."""
        return host_planes(observations, xp, self.size, lambda batch: territory_planes(batch, self))


def amazons_board(game: pyspiel.Game) -> AmazonsBoard | None:
    """amazons (any board size) as an `AmazonsBoard`; None for another game."""
    if game.get_type().short_name != "amazons":
        return None
    return AmazonsBoard(game.get_parameters()["board_size"])


def territory_board(game: pyspiel.Game) -> AmazonsBoard:
    """`amazons_board(game)`; `ValueError` naming the accepted game for any other."""
    board = amazons_board(game)
    if board is None:
        raise ValueError(
            f"inputs = territory reads an amazons board; {game_description(game)} is not one; "
            "accepted: amazons (any size), or inputs = observation"
        )
    return board


def queen_distances(empty: np.ndarray, amazons: np.ndarray, board: AmazonsBoard) -> list[float]:
    """Each cell's fewest queen moves from one of `amazons` through `empty` cells (inf where
    none reach it; 0 on the amazons themselves)."""
    rows = board.rows
    distances = [float("inf")] * board.cells
    queue: collections.deque[int] = collections.deque()
    for start in np.flatnonzero(amazons).tolist():
        distances[start] = 0.0
        queue.append(start)
    while queue:
        cell = queue.popleft()
        row, column = divmod(cell, rows)
        for down, right in DIRECTIONS:
            r, c = row + down, column + right
            while 0 <= r < rows and 0 <= c < rows and empty[r * rows + c]:
                if distances[r * rows + c] == float("inf"):
                    distances[r * rows + c] = distances[cell] + 1
                    queue.append(r * rows + c)
                r, c = r + down, c + right
    return distances


def reference_planes(observations: np.ndarray, board: AmazonsBoard) -> np.ndarray:
    """The territory inputs `[batch, size]` of observations `[batch, ...]`, a position at a time
    in Python: the definition the native engine is tested against."""
    cells = board.cells
    out = np.zeros((len(observations), board.size), np.float32)
    for index, observation in enumerate(observations):
        planes = np.asarray(observation).reshape(-1, cells)
        empty = planes[board.empty_plane] != 0
        first, second = (
            np.array(queen_distances(empty, planes[plane] != 0, board))
            for plane in board.player_planes
        )
        reached = empty & np.isfinite(np.minimum(first, second))
        out[index] = np.concatenate(
            [
                reached & (first < second),
                reached & (second < first),
                reached & (first == second),
                empty & (first == 1),
                empty & (second == 1),
            ]
        )
    return out


def territory_planes(observations: np.ndarray, board: AmazonsBoard) -> np.ndarray:
    """`reference_planes` in the native engine where it is built (float32 observations)."""
    from spiel_bounded import native

    engine = native.module()
    if engine is None:
        return reference_planes(observations, board)
    return engine.territory_planes(
        np.ascontiguousarray(observations, np.float32),
        board.rows,
        board.empty_plane,
        list(board.player_planes),
    )
