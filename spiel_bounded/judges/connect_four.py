"""Perfect play of connect_four: the value of a position and of each of its moves.

The native engine's weak solver (`native/src/connect_four_solver.cc`) says whether the player
to move wins (1), draws (0) or loses (-1) with perfect play, replaying the state's moves on two
bitboards and searching with null windows, a table of bounds and the moves that hand the
opponent an immediate win left out. It solved the 39 random 7-ply openings of one of the
package's suites and every move of each in 157 s, about 4.7 million positions a second
(`results/connect_four_perfect_play.md`); later positions take far less. Four in a row only,
on boards of (rows + 1) * columns <= 64 cells, at most 16 columns and 19 rows, with the native
engine built.
"""

from __future__ import annotations

from typing import Any, Final

import pyspiel

from spiel_bounded import native
from spiel_bounded.games import game_description
from spiel_bounded.judges.replayed import ReplayedSolver

MAX_COLUMNS: Final = 16
MAX_ROWS: Final = 19
"""The solver's board limits besides (rows + 1) * columns <= 64 (one bit a cell, and a spare one
a column): its lines' shifts must stay inside a 64-bit word."""
TABLE_BITS: Final = 22
"""2^22 table entries of 16 bytes: 64 MiB."""


def check_connect_four(game: pyspiel.Game) -> str:
    """Why the solver cannot play `game` ("" when it can)."""
    if game.get_type().short_name != "connect_four":
        return f"the connect_four solver plays connect_four only, not {game_description(game)}"
    params = game.get_parameters()
    rows, columns = params["rows"], params["columns"]
    if params["x_in_row"] != 4:
        return f"the connect_four solver plays four in a row only, not {params['x_in_row']}"
    if (rows + 1) * columns > 64 or columns > MAX_COLUMNS or rows > MAX_ROWS:
        return (
            f"the connect_four solver plays boards of (rows + 1) * columns <= 64 cells, at most "
            f"{MAX_COLUMNS} columns and at most {MAX_ROWS} rows, not {rows} x {columns}"
        )
    if not native.available():
        return f"the connect_four solver needs the native engine: {native.unavailable_reason()}"
    return ""


class ConnectFourSolver(ReplayedSolver):
    """Exact values of connect_four positions (a state's history replayed on the native solver,
    whose table is kept from one question to the next).

    Args:
        game: A connect_four game the solver plays (`check_connect_four`); ValueError if not.
        table_bits: The table has 2^table_bits entries of 16 bytes.
    """

    def __init__(self, game: pyspiel.Game, table_bits: int = TABLE_BITS) -> None:
        reason = check_connect_four(game)
        if reason:
            raise ValueError(reason)
        params = game.get_parameters()
        engine: Any = native.module()
        super().__init__(
            game,
            engine.ConnectFourSolver(params["rows"], params["columns"], table_bits=table_bits),
        )
        self._full = engine.CONNECT_FOUR_FULL

    def move_values(
        self, state: pyspiel.State, *, nodes: int | None = None, seconds: float | None = None
    ) -> dict[int, int] | None:
        """The value of each legal move of `state` for the player to move, or None when
        `nodes` or `seconds` ran out first. ValueError for a terminal state."""
        values = self._solver.move_values(self._moves(state), max_nodes=nodes, seconds=seconds)
        if values is None:
            return None
        return {column: value for column, value in enumerate(values) if value != self._full}
