"""Contact inputs: what a network may derive from the observation of a clobber position.

In clobber a move takes a stone onto an orthogonally adjacent stone of the other side, and the
player who makes the last capture wins. Two facts shape the position's value: every *contact* (two
adjacent stones of different sides) is one move for each side, so both sides always have as many
moves; and since a capture only empties a cell, the *groups* (4-connected sets of stones, either
side's) never merge: each group is a game of its own, and one holding both sides' stones is
*live* (a capture is left in it). With `ModelConfig.inputs = "contacts"` a network reads, after
the observation and the mover bits:

- for player 0 then player 1, a plane of its stones next to a stone of the other side (those
  that can capture);
- the horizontal contacts (an entry for each cell but the last column's: it and the cell to its
  right hold different sides' stones), then the vertical ones (each cell but the last row's, and
  the cell below it);
- three planes of the stones of live groups: of 2 stones (a lone contact: whoever takes it makes
  that group's last capture), of 3-4 stones, of 5 or more;
- thermometers: the live groups (entry k, k = 1..8, is 1 where there are at least k), the live
  groups of 2 stones (the same), and the contacts (at least 1, 2, 3, 4, 6, 8, 12, 16, 24, 32).

Why: a dense network reads cells, not adjacency, which is all clobber's moves are; the clobber
network of the continuous loop (`results/models/clobber_solved`) stopped improving with values
that correlate 0.30 with exact values over 1,000 solved positions, where eight random playouts'
do 0.51. With these inputs the same loop reached 0.37 (`results/models/clobber_contacts`).

A function of the observation, derived inside the network as the other derived inputs are:
`reference_planes` is the readable definition (a search of each group a position at a time) and
the tests' oracle; `contact_planes` runs the native engine's twin where it is built.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import pyspiel

from spiel_bounded.evaluators.value_net.host_planes import host_planes
from spiel_bounded.games import game_description

GROUP_SIZES: Final = ((2, 2), (3, 4), (5, None))
"""The live groups' size classes, each a plane of their stones: (fewest stones, most or None)."""

GROUP_STEPS: Final = 8
"""Entries of the thermometers of live groups and of live groups of 2 stones."""

CONTACT_STEPS: Final = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32)
"""The contacts' thermometer: entry k is 1 where there are at least `CONTACT_STEPS[k]`."""

MAX_CELLS: Final = 64
"""The most cells a board may have (the native engine's bitboards are one word)."""


@dataclass(frozen=True)
class ClobberBoard:
    """A clobber board as its observation shows it: player 0's stones, then player 1's, then
    the empty cells, a plane each.

    Attributes:
        rows: Board rows.
        columns: Board columns.
    """

    rows: int
    columns: int

    @property
    def cells(self) -> int:
        return self.rows * self.columns

    @property
    def size(self) -> int:
        """Inputs the network derives."""
        contacts = self.rows * (self.columns - 1) + (self.rows - 1) * self.columns
        planes = (2 + len(GROUP_SIZES)) * self.cells
        return planes + contacts + 2 * GROUP_STEPS + len(CONTACT_STEPS)

    def planes(self, observations: Any, xp: Any = np) -> Any:
        """The contact inputs `[batch, size]` (float32) of observations `[batch, ...]` (the
        game's flat observations, planes first). numpy runs the native engine where it is built
        (else `reference_planes`); `jax.numpy` calls it back from the traced computation."""
        return host_planes(observations, xp, self.size, lambda batch: contact_planes(batch, self))


def clobber_board(game: pyspiel.Game) -> ClobberBoard | None:
    """clobber (any rows and columns) as a `ClobberBoard`; None for another game."""
    if game.get_type().short_name != "clobber":
        return None
    params = game.get_parameters()
    return ClobberBoard(params["rows"], params["columns"])


def contact_board(game: pyspiel.Game) -> ClobberBoard:
    """`clobber_board(game)` of at least 2 x 2 and at most `MAX_CELLS` cells; `ValueError` naming
    what is accepted for any other game or board."""
    board = clobber_board(game)
    if board is None:
        raise ValueError(
            f"inputs = contacts reads a clobber board; {game_description(game)} is not one; "
            "accepted: clobber (boards of 2x2 up to 64 cells), or inputs = observation"
        )
    if board.rows < 2 or board.columns < 2 or board.cells > MAX_CELLS:
        raise ValueError(
            "inputs = contacts reads clobber boards of at least 2 rows and 2 columns and at most "
            f"{MAX_CELLS} cells; {game_description(game)} is {board.rows}x{board.columns}"
        )
    return board


def groups(stones: np.ndarray, board: ClobberBoard) -> list[list[int]]:
    """The 4-connected groups of the cells where `stones` (a cell each) is true."""
    seen = np.zeros(board.cells, bool)
    found = []
    for start in np.flatnonzero(stones).tolist():
        if seen[start]:
            continue
        seen[start] = True
        group, frontier = [start], [start]
        while frontier:
            row, column = divmod(frontier.pop(), board.columns)
            for r, c in (
                (row - 1, column),
                (row + 1, column),
                (row, column - 1),
                (row, column + 1),
            ):
                cell = r * board.columns + c
                if (
                    0 <= r < board.rows
                    and 0 <= c < board.columns
                    and stones[cell]
                    and not seen[cell]
                ):
                    seen[cell] = True
                    group.append(cell)
                    frontier.append(cell)
        found.append(group)
    return found


def _differ(sides: tuple[np.ndarray, np.ndarray], first: Any, second: Any) -> np.ndarray:
    """Where the cells `first` and `second` pick hold stones of different sides."""
    return (sides[0][first] & sides[1][second]) | (sides[1][first] & sides[0][second])


def reference_planes(observations: np.ndarray, board: ClobberBoard) -> np.ndarray:
    """The contact inputs `[batch, size]` of observations `[batch, ...]`, a position at a time
    in Python: the definition the native engine is tested against."""
    rows, columns = board.rows, board.columns
    out = np.zeros((len(observations), board.size), np.float32)
    for index, observation in enumerate(observations):
        planes = np.asarray(observation).reshape(-1, rows, columns)
        sides = planes[0] != 0, planes[1] != 0
        across = _differ(sides, np.s_[:, :-1], np.s_[:, 1:])
        down = _differ(sides, np.s_[:-1, :], np.s_[1:, :])
        capturers = []
        for mine, theirs in (sides, sides[::-1]):
            near = np.zeros((rows, columns), bool)
            near[1:] |= theirs[:-1]
            near[:-1] |= theirs[1:]
            near[:, 1:] |= theirs[:, :-1]
            near[:, :-1] |= theirs[:, 1:]
            capturers.append(mine & near)
        live = [
            group
            for group in groups((sides[0] | sides[1]).ravel(), board)
            if sides[0].ravel()[group].any() and sides[1].ravel()[group].any()
        ]
        classes = np.zeros((len(GROUP_SIZES), board.cells), bool)
        for group in live:
            for k, (fewest, most) in enumerate(GROUP_SIZES):
                if len(group) >= fewest and (most is None or len(group) <= most):
                    classes[k, group] = True
        pairs = sum(len(group) == 2 for group in live)
        contacts = int(across.sum() + down.sum())
        steps = np.arange(1, GROUP_STEPS + 1)
        out[index] = np.concatenate(
            [
                capturers[0].ravel(),
                capturers[1].ravel(),
                across.ravel(),
                down.ravel(),
                classes.ravel(),
                len(live) >= steps,
                pairs >= steps,
                contacts >= np.array(CONTACT_STEPS),
            ]
        )
    return out


def contact_planes(observations: np.ndarray, board: ClobberBoard) -> np.ndarray:
    """`reference_planes` in the native engine where it is built (float32 observations)."""
    from spiel_bounded import native

    engine = native.module()
    if engine is None:
        return reference_planes(observations, board)
    return engine.contact_planes(
        np.ascontiguousarray(observations, np.float32), board.rows, board.columns
    )
