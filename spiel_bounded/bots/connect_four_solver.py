"""`connect_four_solver`: perfect play of connect_four, the ceiling any connect_four bot is
measured under.

At every move it solves the position after each legal move (the native weak solver of
`judges.connect_four`), the move nearest the centre first, and plays the first win it finds,
else a draw, else (a lost position) the move nearest the centre, with no attempt to make the
opponent err. Deterministic. With `nodes`, a move searches at most that many positions; when
they run out it plays the best move known by then, a move not yet solved rather than a known
loss (not perfect any more). connect_four (four in a row) only, with the native engine built;
elsewhere the bot is refused with the reason. Unlimited, a move takes up to about 7 s at 7
plies (the random openings of the package's suites) and far less later; the empty board takes
far longer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

import pyspiel

from spiel_bounded.bots.checks import StateCheck
from spiel_bounded.bots.spec import SEED_PARAM, BotSpec
from spiel_bounded.games import TWO_PLAYER_ZERO_SUM, GameInfo, load_game
from spiel_bounded.judges.connect_four import ConnectFourSolver, check_connect_four
from spiel_bounded.params import OPTIONAL_POSITIVE_INT, check_fields, declared, pick, setting


@dataclass(frozen=True, kw_only=True)
class ConnectFourSolverSettings:
    nodes: int | None = setting(
        None,
        "positions searched a move at most (None: unlimited, perfect play)",
        OPTIONAL_POSITIVE_INT,
    )

    def __post_init__(self) -> None:
        check_fields(self)


class ConnectFourSolverBot(pyspiel.Bot):
    """Plays the first win it finds (moves nearest the centre first), else a draw, else the
    move nearest the centre."""

    def __init__(self, game: pyspiel.Game, settings: ConnectFourSolverSettings) -> None:
        pyspiel.Bot.__init__(self)
        self.solver = ConnectFourSolver(game)
        self.nodes = settings.nodes
        self.state_check = StateCheck(game, "connect_four_solver")  # seated by load_bot
        centre = (game.num_distinct_actions() - 1) / 2
        self._order = sorted(range(game.num_distinct_actions()), key=lambda c: abs(c - centre))

    def step(self, state: pyspiel.State) -> int:
        self.state_check(state)
        mover = state.current_player()
        legal = set(state.legal_actions())
        best: tuple[int, float] | None = None  # (move, value); an unsolved move counts -0.5
        spent = self.solver.nodes
        for move in (column for column in self._order if column in legal):
            child = state.child(move)
            if child.is_terminal():
                value: float = child.returns()[mover]
            else:
                left = None if self.nodes is None else self.nodes - (self.solver.nodes - spent)
                solved = (
                    None if left is not None and left < 1 else self.solver.value(child, nodes=left)
                )
                value = -0.5 if solved is None else -solved
            if value == 1:
                return move
            if best is None or value > best[1]:
                best = (move, value)
        assert best is not None
        return best[0]

    def restart_at(self, state: pyspiel.State) -> None:
        pass

    def inform_action(self, state: pyspiel.State, player_id: int, action: int) -> None:
        pass


def _refuse(info: GameInfo) -> str:
    return check_connect_four(load_game(info.description))


def _build(
    game: pyspiel.Game, info: GameInfo, player_id: int, params: dict[str, Any]
) -> pyspiel.Bot:
    return ConnectFourSolverBot(
        game, ConnectFourSolverSettings(**pick(ConnectFourSolverSettings, params))
    )


SPECS: Final = (
    BotSpec(
        name="connect_four_solver",
        description=(
            "perfect connect_four: a win when it has one, else a draw (solved exactly; the move "
            "nearest the centre first)"
        ),
        params={**declared(ConnectFourSolverSettings), **SEED_PARAM},  # seed: unused
        requirements=TWO_PLAYER_ZERO_SUM,
        build=_build,
        refuse=_refuse,
        plays_note="connect_four only (four in a row, with the native engine)",
    ),
)
