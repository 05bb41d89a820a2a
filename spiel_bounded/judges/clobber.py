"""Perfect play of clobber: the value of a position, of each of its moves, and a best move.

The native engine's solver (`native/src/clobber_solver.cc`) says whether the player to move wins
(1) or loses (-1) with perfect play (clobber has no draws: the last capture wins), replaying the
state's moves on two bitboards. It keeps only the groups of pieces that hold both colours (a
group of one colour never moves again), searches win / loss negamax with a table of solved
positions, and tries first the moves that leave the opponent the fewest replies. Boards of at
most 64 cells, with the native engine built. On the default 5 x 6 board it solved every move of
150 positions 6 random plies in at a median of 0.2 s a position (the slowest 2.3 s), later
positions in milliseconds (`results/clobber_perfect_play.md`).
"""

from __future__ import annotations

from typing import Any, Final

import pyspiel

from spiel_bounded import native
from spiel_bounded.games import game_description
from spiel_bounded.judges.replayed import ReplayedSolver

MAX_CELLS: Final = 64
TABLE_BITS: Final = 21
"""2^21 table entries of 24 bytes: 48 MiB."""


def check_clobber(game: pyspiel.Game) -> str:
    """Why the solver cannot play `game` ("" when it can)."""
    if game.get_type().short_name != "clobber":
        return f"the clobber solver plays clobber only, not {game_description(game)}"
    params = game.get_parameters()
    rows, columns = params["rows"], params["columns"]
    if rows * columns > MAX_CELLS or columns >= MAX_CELLS:
        return (
            f"the clobber solver plays boards of rows * columns <= {MAX_CELLS} cells with fewer "
            f"than {MAX_CELLS} columns, not {rows} x {columns}"
        )
    if not native.available():
        return f"the clobber solver needs the native engine: {native.unavailable_reason()}"
    return ""


class ClobberSolver(ReplayedSolver):
    """Exact values of clobber positions (a state's history replayed on the native solver, whose
    table is kept from one question to the next).

    Args:
        game: A clobber game the solver plays (`check_clobber`); ValueError if not.
        table_bits: The table has 2^table_bits entries of 24 bytes.
    """

    def __init__(self, game: pyspiel.Game, table_bits: int = TABLE_BITS) -> None:
        reason = check_clobber(game)
        if reason:
            raise ValueError(reason)
        params = game.get_parameters()
        engine: Any = native.module()
        super().__init__(
            game, engine.ClobberSolver(params["rows"], params["columns"], table_bits=table_bits)
        )

    def move_values(
        self, state: pyspiel.State, *, nodes: int | None = None, seconds: float | None = None
    ) -> dict[int, int] | None:
        """The value of each legal move of `state` for the player to move, or None when `nodes`
        or `seconds` ran out first. ValueError for a terminal state."""
        values = self._solver.move_values(self._moves(state), max_nodes=nodes, seconds=seconds)
        return None if values is None else dict(values)

    def best_move(
        self, state: pyspiel.State, *, nodes: int | None = None, seconds: float | None = None
    ) -> tuple[int, int] | None:
        """A move of perfect play and the value of `state` for the player to move: the first
        winning move found, or in a lost position the move whose loss took the most positions to
        prove; None when `nodes` or `seconds` ran out first. ValueError for a terminal state."""
        found = self._solver.best_move(self._moves(state), max_nodes=nodes, seconds=seconds)
        return None if found is None else (int(found[0]), int(found[1]))
