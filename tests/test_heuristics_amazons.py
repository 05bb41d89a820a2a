"""The amazons heuristic (`heuristics_amazons`): territory and mobility by queen moves, counted
against the reference breadth-first search and OpenSpiel's move rules, the amazon chosen
mid-turn put back, and searches that play with it."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

from spiel_bounded import AlphaBetaSettings, Limits, bounded_ab, make_evaluator
from spiel_bounded.evaluators.heuristics_amazons import AMAZONS_TERRITORY, AmazonsScorer
from spiel_bounded.evaluators.value_net.territory import queen_distances, territory_board
from spiel_bounded.testing import random_positions
from tests.markers import needs_native


def _turn_starts(game: pyspiel.Game, count: int, seed: int) -> list[pyspiel.State]:
    """Random non-terminal positions where a turn starts (no amazon chosen yet)."""
    states = random_positions(game, 4 * count, seed=seed, plies=(0, 90))
    return [state for state in states if len(state.history()) % 3 == 0][:count]


def _destinations(state: pyspiel.State) -> set[int]:
    """The cells the mover's amazons can move to, by OpenSpiel's rules."""
    cells: set[int] = set()
    for lift in state.legal_actions():
        cells.update(state.child(lift).legal_actions())
    return cells


def _reference_score(state: pyspiel.State, game: pyspiel.Game) -> int:
    """The score of a turn start by its definition, with the reference search."""
    board = territory_board(game)
    planes = np.asarray(state.observation_tensor(0)).reshape(-1, board.cells)
    empty = planes[board.empty_plane] != 0
    first, second = (
        np.array(queen_distances(empty, planes[plane] != 0, board)) for plane in board.player_planes
    )
    reached = empty & np.isfinite(np.minimum(first, second))
    territory = int((reached & (first < second)).sum()) - int((reached & (second < first)).sum())
    reach = int((first == 1).sum()) - int((second == 1).sum())
    return AMAZONS_TERRITORY * territory + reach


@pytest.mark.parametrize(
    ("game_string", "count"),
    [("amazons(board_size=6)", 30), ("amazons(board_size=8)", 12), ("amazons", 12)],
)
def test_the_score_is_territory_and_mobility(game_string: str, count: int) -> None:
    game = pyspiel.load_game(game_string)
    scorer = AmazonsScorer(game)
    board = territory_board(game)
    for state in _turn_starts(game, count, seed=len(game_string)):
        assert scorer.score(state) == _reference_score(state, game), str(state)
        # The mover's one-move reach is where OpenSpiel lets its amazons go.
        planes = np.asarray(state.observation_tensor(0)).reshape(-1, board.cells)
        mover = planes[board.player_planes[state.current_player()]] != 0
        distances = np.array(queen_distances(planes[board.empty_plane] != 0, mover, board))
        assert set(np.flatnonzero(distances == 1).tolist()) == _destinations(state)


def test_the_start_is_level_and_player_0_is_x() -> None:
    game = pyspiel.load_game("amazons")
    heuristic = make_evaluator("heuristic", game)
    start = game.new_initial_state()
    assert tuple(heuristic.evaluate(start)) == (0.0, 0.0)
    # Player 0's plane holds the X amazons of the printed board, player 1's the O ones.
    board = territory_board(game)
    planes = np.asarray(start.observation_tensor(0)).reshape(-1, board.cells)
    printed = "".join(str(start).split("\n")[: board.rows])
    for player, piece in enumerate("XO"):
        cells = [index for index, cell in enumerate(printed) if cell == piece]
        assert np.flatnonzero(planes[board.player_planes[player]]).tolist() == cells
    assert start.current_player() == 0 and "X" in str(start)


@pytest.mark.parametrize("game_string", ["amazons(board_size=6)", "amazons"])
def test_the_chosen_amazon_is_put_back(game_string: str) -> None:
    game = pyspiel.load_game(game_string)
    heuristic = make_evaluator("heuristic", game)
    for state in _turn_starts(game, 6, seed=3):
        for lift in state.legal_actions():
            lifted = state.child(lift)
            # OpenSpiel's observation no longer shows it ...
            assert (
                np.asarray(lifted.observation_tensor(0)).sum()
                < np.asarray(state.observation_tensor(0)).sum() + 1e-9
            )
            # ... and the heuristic still counts it: the position has not changed.
            assert tuple(heuristic.evaluate(lifted)) == tuple(heuristic.evaluate(state))


@needs_native
@pytest.mark.parametrize("depth", [1, 2, 3])
def test_native_and_python_searches_agree(depth: int) -> None:
    game = pyspiel.load_game("amazons(board_size=6)")
    heuristic = make_evaluator("heuristic", game)
    for state in random_positions(game, 4, seed=depth, plies=(0, 20)):
        results = [
            bounded_ab(
                state,
                evaluator=heuristic,
                limits=Limits(depth=depth),
                settings=AlphaBetaSettings(engine=engine),
            )
            for engine in ("python", "native")
        ]
        assert results[0].stats.engine == "python" and results[1].stats.engine == "native"
        assert results[0].action == results[1].action
        assert results[0].interval == pytest.approx(results[1].interval, abs=1e-12)
        assert results[1].action in state.legal_actions()
