"""Connection inputs: what a network may derive from the observation of a hex position.

In hex, x (Black, player 0 unless the swap rule changed colours) joins the first row to the last,
o (White) the first column to the last. A side's *distance* is the fewest empty cells it must
still fill to join its two edges: the cheapest path over its own stones (cost 0) and empty cells
(cost 1), around the other side's stones. With `ModelConfig.inputs = "connections"` a network
reads, after the observation and the mover bits, for x then for o:

- a plane of the empty cells on one of the side's cheapest paths (the cells whose best path
  between the two edges is no longer than the side's distance);
- the side's distance as a thermometer of `max(rows, columns)` entries: entry k (k = 1, ...) is
  1 where the distance is at most k (all 0 when the side can no longer join its edges; a side
  that has joined them, distance 0, has every entry and an empty plane).

Why: a dense network does not see connections in the raw planes: the hex network of the
continuous loop (`results/models/hex_v3`) scored 33% against C++ `mcts` and stopped improving
with more games.

The inputs are a function of the observation, derived inside the network as threat planes are
(`threats.py`): stored features, datasets and mirror images are unchanged. `reference_planes` is
the readable definition (a 0-1 breadth-first search a position at a time) and the tests' oracle;
`connection_planes` runs the native engine's twin (`native/src/connection_planes.cc`) where it is
built, 100-1000 times faster, which training needs.
"""

from __future__ import annotations

import collections
import math
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import pyspiel

from spiel_bounded.evaluators.value_net.host_planes import host_planes
from spiel_bounded.games import game_description

BLOCKED: Final = -1
"""A cell's cost for a side where the other side holds it: no path crosses it."""


@dataclass(frozen=True)
class HexBoard:
    """A hex board as its observation shows it.

    Attributes:
        rows: Board rows (x joins the first to the last).
        columns: Board columns (o joins the first to the last).
        x_planes: The observation's planes of x's stones (any edge connection).
        o_planes: Those of o's stones.
    """

    rows: int
    columns: int
    x_planes: tuple[int, ...]
    o_planes: tuple[int, ...]

    @property
    def cells(self) -> int:
        return self.rows * self.columns

    @property
    def thermometer(self) -> int:
        """Entries of a side's distance."""
        return max(self.rows, self.columns)

    @property
    def size(self) -> int:
        """Inputs the network derives: two planes and two thermometers."""
        return 2 * (self.cells + self.thermometer)

    def neighbours(self, cell: int) -> list[int]:
        """The cells next to `cell` (`row * columns + column`), as OpenSpiel's hex has them."""
        row, column = divmod(cell, self.columns)
        steps = ((0, -1), (0, 1), (-1, 0), (-1, 1), (1, -1), (1, 0))
        return [
            (row + down) * self.columns + column + right
            for down, right in steps
            if 0 <= row + down < self.rows and 0 <= column + right < self.columns
        ]

    def planes(self, observations: Any, xp: Any = np) -> Any:
        """The connection inputs `[batch, size]` (float32) of observations `[batch, >= cells *
        planes]` (the game's flat observations, planes first). numpy runs the native engine where
        it is built (else `reference_planes`); `jax.numpy` calls it back from the traced
        computation."""
        return host_planes(
            observations, xp, self.size, lambda batch: connection_planes(batch, self)
        )


def hex_board(game: pyspiel.Game) -> HexBoard | None:
    """hex (any rows and columns, either observation) as a `HexBoard`; None for another game."""
    if game.get_type().short_name != "hex":
        return None
    params = game.get_parameters()
    if params.get("plain_obs_tensor", False):
        return HexBoard(params["num_rows"], params["num_cols"], (0,), (1,))
    # The full observation: one plane a cell state, state + 4 (o's four states, empty, x's four).
    return HexBoard(params["num_rows"], params["num_cols"], (5, 6, 7, 8), (0, 1, 2, 3))


def connection_board(game: pyspiel.Game) -> HexBoard:
    """`hex_board(game)`; `ValueError` naming the accepted game for any other."""
    board = hex_board(game)
    if board is None:
        raise ValueError(
            f"inputs = connections reads a hex board; {game_description(game)} is not one; "
            "accepted: hex (any size), or inputs = observation"
        )
    return board


def side_costs(observation: np.ndarray, board: HexBoard) -> tuple[np.ndarray, np.ndarray]:
    """Each side's cost of each cell on one observation: 0 its stone, 1 empty, `BLOCKED`."""
    cells = board.cells

    def stones(planes: tuple[int, ...]) -> np.ndarray:
        return np.asarray(observation.reshape(-1, cells)[list(planes)].any(axis=0))

    x_stones, o_stones = stones(board.x_planes), stones(board.o_planes)
    x_costs = np.where(x_stones, 0, np.where(o_stones, BLOCKED, 1))
    o_costs = np.where(o_stones, 0, np.where(x_stones, BLOCKED, 1))
    return x_costs, o_costs


def edge_distances(costs: np.ndarray, edge: list[int], board: HexBoard) -> list[float]:
    """Each cell's cheapest path from `edge`, its own cost and the edge cell's counted (inf
    where none): a 0-1 breadth-first search."""
    distances = [float("inf")] * board.cells
    queue: collections.deque[int] = collections.deque()
    for cell in edge:
        if costs[cell] != BLOCKED and costs[cell] < distances[cell]:
            distances[cell] = float(costs[cell])
            if costs[cell] == 0:
                queue.appendleft(cell)
            else:
                queue.append(cell)
    while queue:
        cell = queue.popleft()
        for neighbour in board.neighbours(cell):
            cost = costs[neighbour]
            if cost == BLOCKED or distances[cell] + cost >= distances[neighbour]:
                continue
            distances[neighbour] = distances[cell] + cost
            if cost == 0:
                queue.appendleft(neighbour)
            else:
                queue.append(neighbour)
    return distances


def side_inputs(
    costs: np.ndarray, edges: tuple[list[int], list[int]], board: HexBoard
) -> tuple[np.ndarray, np.ndarray]:
    """One side's plane and thermometer."""
    first = edge_distances(costs, edges[0], board)
    second = edge_distances(costs, edges[1], board)
    distance = min(first[cell] for cell in edges[1])
    plane = np.zeros(board.cells, np.float32)
    if math.isinf(distance):
        return plane, np.zeros(board.thermometer, np.float32)
    for cell in range(board.cells):
        if costs[cell] == 1 and first[cell] + second[cell] - 1 <= distance:
            plane[cell] = 1.0
    steps = np.arange(1, board.thermometer + 1)
    return plane, (distance <= steps).astype(np.float32)


def reference_planes(observations: np.ndarray, board: HexBoard) -> np.ndarray:
    """The connection inputs `[batch, size]` of observations `[batch, ...]`, a position at a
    time in Python: the definition the native engine is tested against."""
    rows, columns = board.rows, board.columns
    x_edges = (list(range(columns)), list(range((rows - 1) * columns, rows * columns)))
    o_edges = (
        list(range(0, rows * columns, columns)),
        list(range(columns - 1, rows * columns, columns)),
    )
    out = np.zeros((len(observations), board.size), np.float32)
    for index, observation in enumerate(observations):
        x_costs, o_costs = side_costs(observation, board)
        x_plane, x_distance = side_inputs(x_costs, x_edges, board)
        o_plane, o_distance = side_inputs(o_costs, o_edges, board)
        out[index] = np.concatenate([x_plane, o_plane, x_distance, o_distance])
    return out


def connection_planes(observations: np.ndarray, board: HexBoard) -> np.ndarray:
    """`reference_planes` in the native engine where it is built (float32 observations)."""
    from spiel_bounded import native

    engine = native.module()
    if engine is None:
        return reference_planes(observations, board)
    return engine.connection_planes(
        np.ascontiguousarray(observations, np.float32),
        board.rows,
        board.columns,
        list(board.x_planes),
        list(board.o_planes),
    )
