"""The positions a search's table bounded (`search.table_walk`, the tree labels of issue 39).

Every label's interval must hold the value it claims: the exact game value where it says
`proven` (brute force on tic_tac_toe), else the depth-limited minimax / expectiminimax value at
its `depth` with the search's evaluator (OpenSpiel's `expectiminimax`). The native engine must
label the same positions, in the same order, with the same features and bounds.
"""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import minimax

from spiel_bounded.evaluators import make_evaluator
from spiel_bounded.evaluators.value_net.features import Features
from spiel_bounded.games import load_game
from spiel_bounded.limits import Limits
from spiel_bounded.native import available
from spiel_bounded.result import TableLabels
from spiel_bounded.search.alphabeta import (
    AlphaBetaSettings,
    bounded_ab,
    bounded_star1,
    bounded_star2,
)
from spiel_bounded.search.table_walk import LabelRequest
from tests.helpers import play_random

CASES = [
    # game, search, evaluator, opening plies, depth, epsilon
    ("tic_tac_toe", bounded_ab, "zero", (), 9, 0.0),
    ("connect_four", bounded_ab, "heuristic", (3, 2, 3), 4, 0.0),
    ("connect_four", bounded_ab, "heuristic", (3, 4), 4, 0.25),
    ("breakthrough", bounded_ab, "heuristic", (10, 50), 3, 0.0),
    ("pig(winscore=12)", bounded_star2, "heuristic", (0, 2), 3, 0.0),
    ("pig(winscore=12)", bounded_star1, "heuristic", (0, 3), 3, 0.1),
    ("amazons(board_size=6)", bounded_ab, "heuristic", (30, 1), 2, 0.0),
]


def _search(case: tuple, engine: str, min_depth: int = 1) -> tuple[pyspiel.State, TableLabels]:
    name, search, evaluator, opening, depth, epsilon = case
    game = load_game(name)
    state = play_random(game.new_initial_state(), opening)
    result = search(
        state,
        evaluator=make_evaluator(evaluator, game),
        limits=Limits(depth=depth),
        settings=AlphaBetaSettings(engine=engine, epsilon=epsilon),
        labels=LabelRequest(Features(game), min_depth),
    )
    assert result.labels is not None
    return state, result.labels


def _below(root: pyspiel.State, plies: int) -> dict[str, list[pyspiel.State]]:
    """Every non-terminal state within `plies` decision plies of `root`, by label key (pig's
    text leaves out what its table key keeps: several states may share a label key)."""
    found: dict[str, list[pyspiel.State]] = {}
    frontier = [(root, plies)]
    while frontier:
        state, left = frontier.pop()
        if state.is_terminal() or left < 0:
            continue
        found.setdefault(f"{state.current_player()}|{state}", []).append(state)
        for action in state.legal_actions():
            frontier.append((state.child(action), left - (not state.is_chance_node())))
    return found


@pytest.mark.parametrize("case", CASES, ids=lambda case: f"{case[0]}-{case[1].__name__}")
def test_every_label_bounds_the_value_it_claims(case: tuple) -> None:
    root, labels = _search(case, "python")
    game = root.get_game()
    player = root.current_player()
    evaluator = make_evaluator(case[2], game)
    states = _below(root, case[4])
    features = Features(game)
    assert len(labels) > 10

    def value(state: pyspiel.State) -> float:
        return float(evaluator.evaluate(state)[player])

    def holds(index: int, state: pyspiel.State) -> bool:
        plies = 100 if labels.proven[index] else int(labels.depth[index])
        exact, _ = minimax.expectiminimax(state, plies, value, player)
        same_input = np.array_equal(labels.features[index], features.of(state))
        return same_input and labels.lower[index] - 1e-9 <= exact <= labels.upper[index] + 1e-9

    for index, key in enumerate(labels.keys):
        assert any(holds(index, state) for state in states[key]), key


def test_a_solved_search_labels_proven_game_values() -> None:
    _, labels = _search(CASES[0], "python")
    assert labels.proven.all()
    assert (labels.upper - labels.lower).max() > 0  # one-sided where the search cut
    assert (labels.upper == labels.lower).sum() > 100


def test_min_depth_keeps_the_deeper_entries_only() -> None:
    _, every = _search(CASES[1], "python")
    _, deep = _search(CASES[1], "python", min_depth=2)
    kept = every.depth >= 2
    assert 0 < len(deep) < len(every)
    assert deep.keys == tuple(key for key, keep in zip(every.keys, kept, strict=True) if keep)
    with pytest.raises(ValueError, match="min_depth must be >= 1"):
        LabelRequest(Features(load_game("tic_tac_toe")), 0)


def test_no_request_no_labels_and_no_table_refused() -> None:
    game = load_game("tic_tac_toe")
    state = game.new_initial_state()
    evaluator = make_evaluator("zero", game)
    plain = bounded_ab(state, evaluator=evaluator, limits=Limits(depth=3))
    assert plain.labels is None
    with pytest.raises(ValueError, match="labels come from the transposition table"):
        bounded_ab(
            state,
            evaluator=evaluator,
            limits=Limits(depth=3),
            settings=AlphaBetaSettings(transpositions=False),
            labels=LabelRequest(Features(game)),
        )


def test_a_search_stopped_by_its_budget_still_labels() -> None:
    game = load_game("connect_four")
    result = bounded_ab(
        game.new_initial_state(),
        evaluator=make_evaluator("heuristic", game),
        limits=Limits(nodes=3000),
        settings=AlphaBetaSettings(engine="python"),
        labels=LabelRequest(Features(game)),
    )
    assert result.stats.stopped_by == "nodes"
    assert result.labels is not None and len(result.labels) > 0


@pytest.mark.skipif(not available(), reason="the native engine is not built")
@pytest.mark.parametrize("case", CASES, ids=lambda case: f"{case[0]}-{case[1].__name__}")
def test_the_native_engine_labels_the_same_positions(case: tuple) -> None:
    _, python = _search(case, "python")
    _, native = _search(case, "native")
    assert native.keys == python.keys
    for name in ("features", "lower", "upper", "depth", "proven"):
        np.testing.assert_array_equal(getattr(native, name), getattr(python, name), err_msg=name)
