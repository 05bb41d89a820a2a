"""What the native exact solvers' wrappers share: a state is asked about by its moves from the
start of its game, replayed on the solver, whose table is kept from one question to the next."""

from __future__ import annotations

from typing import Any

import pyspiel

from spiel_bounded.games import game_description, game_key


class ReplayedSolver:
    """A native solver of `game` (its `solve`, `move_values` and `nodes`) asked about states.

    Args:
        game: The game the solver was built for.
        solver: The native solver.
    """

    def __init__(self, game: pyspiel.Game, solver: Any) -> None:
        self.game = game
        self._solver = solver

    @property
    def nodes(self) -> int:
        """Positions searched since the solver was made."""
        return int(self._solver.nodes)

    def value(
        self, state: pyspiel.State, *, nodes: int | None = None, seconds: float | None = None
    ) -> int | None:
        """The value of `state` for the player to move (1 win, 0 draw, -1 loss), or None when
        `nodes` (positions searched) or `seconds` ran out first. ValueError for a terminal
        state or a state of another game."""
        return self._solver.solve(self._moves(state), max_nodes=nodes, seconds=seconds)

    def _moves(self, state: pyspiel.State) -> list[int]:
        """The moves that reach `state`; ValueError for a terminal state or another game's."""
        if game_key(state.get_game()) != game_key(self.game):
            raise ValueError(
                f"the solver of {game_description(self.game)} was given a state of "
                f"{game_description(state.get_game())}"
            )
        if state.is_terminal():
            name = self.game.get_type().short_name
            raise ValueError(f"a terminal {name} state has no player to move to solve for")
        return [int(action) for action in state.history()]
