"""What GNU Backgammon says about OpenSpiel's backgammon positions (the `gnubg` extra).

`gnubg` (PyPI, the engine with Python bindings) evaluates a board given as two sides of 25
checker counts, the side on roll second, each counted from its own side: index i is the side's
point i + 1, index 24 its bar. OpenSpiel's player 0 (x) moves from position 0 up to 23, so its
point is 24 - position; player 1 (o) moves down, its point is position + 1; the bar is read
from the state's text. `move_equities` values every legal move of a state the way gnubg's own
move list does (`find_best_moves`): the position after the move, the opponent on roll, evaluated
at `plies` and negated. A double's first half is worth its best second half (OpenSpiel plays a
double as two moves of the same player). The equity is cubeless and in OpenSpiel's own units,
from gnubg's probabilities: `2 p(win) - 1` under the default `winloss_scoring`, plus gammons
under `enable_gammons` (worth 2, backgammons too), plus backgammons once more under
`full_scoring` (worth 3: gnubg's own equity).
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any, Final

import pyspiel

from spiel_bounded.evaluators.value_net.features import next_mover
from spiel_bounded.games import game_description

GNUBG_EXTRA: Final = "pip install 'spiel-bounded[gnubg]'"
POINTS: Final = 24
PLIES: Final = (0, 1, 2)
"""gnubg's lookahead depths the package offers (2-ply: about 7 ms a move list)."""
SCORING: Final = {
    "winloss_scoring": (False, False),
    "enable_gammons": (True, False),
    "full_scoring": (True, True),
}
"""OpenSpiel's backgammon scoring types: whether gammons, and backgammons on top, count extra."""


def missing_extra() -> str:
    """Why gnubg cannot be used ("" when it can)."""
    try:
        found = importlib.util.find_spec("gnubg") is not None
    except (ImportError, ValueError):
        found = False
    return (
        ""
        if found
        else f"it needs GNU Backgammon's Python bindings, the gnubg extra: {GNUBG_EXTRA}"
    )


def check_backgammon(game: pyspiel.Game) -> str:
    """Why `game` cannot be judged by gnubg ("" when it can): backgammon only, not hyper."""
    if game.get_type().short_name != "backgammon":
        return f"gnubg plays backgammon only, not {game_description(game)}"
    if game.get_parameters().get("hyper_backgammon", False):
        return "gnubg does not play hyper-backgammon (3 checkers a side)"
    return ""


def _side(state: pyspiel.State, player: int, bar: int) -> tuple[int, ...]:
    counts = [0] * (POINTS + 1)
    for position in range(POINTS):
        point = POINTS - position if player == 0 else position + 1
        counts[point - 1] = state.board(player, position)
    counts[POINTS] = bar
    return tuple(counts)


def board_of(state: pyspiel.State, on_roll: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """gnubg's board of `state` with `on_roll` to play: (the other side, `on_roll`'s side)."""
    text = str(state)
    bar_line = next(line for line in text.splitlines() if line.startswith("Bar:"))
    bars = (bar_line.count("x"), bar_line.count("o"))
    other = 1 - on_roll
    return _side(state, other, bars[other]), _side(state, on_roll, bars[on_roll])


class Judge:
    """gnubg's equities of backgammon moves, at `plies` of lookahead."""

    def __init__(self, game: pyspiel.Game, plies: int = 0) -> None:
        reason = missing_extra() or check_backgammon(game)
        if reason:
            raise ValueError(reason)
        if plies not in PLIES:
            raise ValueError(f"gnubg plies must be one of {PLIES}, got {plies!r}")
        self._gnubg: Any = importlib.import_module("gnubg")
        self._cube = self._gnubg.cubeinfo()
        self._context = self._gnubg.evalcontext(0, plies, 1, 0, 0.0)
        scoring = game.get_parameters().get("scoring_type", "winloss_scoring")
        if scoring not in SCORING:
            raise ValueError(
                f"gnubg: unknown backgammon scoring_type {scoring!r}; accepted: "
                f"{', '.join(SCORING)}"
            )
        self._gammons, self._backgammons = SCORING[scoring]
        self.plies = plies

    def equity(self, state: pyspiel.State, player: int) -> float:
        """`player`'s cubeless equity at `state`: a chance node (whoever rolls next is on roll)
        or a terminal state."""
        if state.is_terminal():
            return float(state.returns()[player])
        on_roll = next_mover(state)
        win, gammon, backgammon, lose_gammon, lose_backgammon, _ = self._gnubg.evaluate(
            board_of(state, on_roll), self._cube, self._context
        )
        value = 2.0 * win - 1.0
        if self._gammons:
            value += gammon - lose_gammon  # gnubg's gammons include its backgammons
        if self._backgammons:
            value += backgammon - lose_backgammon
        return value if on_roll == player else -value

    def move_equities(self, state: pyspiel.State) -> dict[int, float]:
        """The mover's equity after each legal action of a decision `state` (module docstring)."""
        mover = state.current_player()
        return {action: self._after(state.child(action), mover) for action in state.legal_actions()}

    def _after(self, state: pyspiel.State, mover: int) -> float:
        if not state.is_terminal() and state.current_player() == mover:  # a double's second half
            return max(self.move_equities(state).values())
        return self.equity(state, mover)
