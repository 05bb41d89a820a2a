"""The games the package solves exactly, and their solvers behind one interface.

connect_four (`judges.connect_four`: win, draw or loss) and clobber (`judges.clobber`: win or
loss) each have a native solver; `exact_solver` picks the one of a game, `check_solvable` says
why a game has none. Values are for the player to move: 1 a win, 0 a draw, -1 a loss.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, Protocol

import pyspiel

from spiel_bounded.games import game_description
from spiel_bounded.judges.clobber import ClobberSolver, check_clobber
from spiel_bounded.judges.connect_four import ConnectFourSolver, check_connect_four

VALUES: Final = {1: "win", 0: "draw", -1: "loss"}
"""The solvers' values for the player to move."""


class ExactSolver(Protocol):
    """What the solvers answer (each keeps its table from one question to the next)."""

    @property
    def nodes(self) -> int: ...

    def value(
        self, state: pyspiel.State, *, nodes: int | None = None, seconds: float | None = None
    ) -> int | None: ...

    def move_values(
        self, state: pyspiel.State, *, nodes: int | None = None, seconds: float | None = None
    ) -> dict[int, int] | None: ...


_SOLVERS: Final[
    dict[str, tuple[Callable[[pyspiel.Game], str], Callable[[pyspiel.Game], ExactSolver]]]
] = {
    "connect_four": (check_connect_four, ConnectFourSolver),
    "clobber": (check_clobber, ClobberSolver),
}
SOLVED_GAMES: Final = tuple(_SOLVERS)
"""The games with an exact solver (by short name)."""


def check_solvable(game: pyspiel.Game) -> str:
    """Why `game` has no exact solver here ("" when it has one)."""
    entry = _SOLVERS.get(game.get_type().short_name)
    if entry is None:
        return (
            f"exact solvers exist for {' and '.join(SOLVED_GAMES)} only, not "
            f"{game_description(game)}"
        )
    return entry[0](game)


def exact_solver(game: pyspiel.Game) -> ExactSolver:
    """The solver of `game`; ValueError (`check_solvable`'s reason) when it has none."""
    reason = check_solvable(game)
    if reason:
        raise ValueError(reason)
    return _SOLVERS[game.get_type().short_name][1](game)
