"""The native board heuristics (`_engine.heuristic_evaluator`) equal the Python
`HeuristicEvaluator` to the last bit on connect_four, tic_tac_toe and breakthrough."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

from spiel_bounded import native
from spiel_bounded.evaluators.heuristics import HeuristicEvaluator

if not native.available():
    pytest.skip(
        f"the native engine is unavailable: {native.unavailable_reason()}",
        allow_module_level=True,
    )

ENGINE = native.engine_module("test_native_heuristics")


def random_positions(game: pyspiel.Game, games: int, seed: int) -> list[pyspiel.State]:
    """Every non-terminal state of `games` seeded uniformly random games."""
    rng = np.random.default_rng(seed)
    positions: list[pyspiel.State] = []
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            positions.append(state.clone())
            actions = state.legal_actions()
            state.apply_action(actions[int(rng.integers(len(actions)))])
    return positions


@pytest.mark.parametrize(
    ("game_string", "games"),
    [
        ("connect_four", 300),
        ("connect_four(rows=5,columns=6,x_in_row=3)", 300),  # two centre columns
        ("connect_four(rows=3,columns=8,x_in_row=4)", 200),  # centre columns shorter than a line
        ("tic_tac_toe", 300),
        ("breakthrough", 200),
        ("breakthrough(rows=6,columns=5)", 300),
    ],
)
def test_native_values_equal_python_values(game_string: str, games: int) -> None:
    game = pyspiel.load_game(game_string)
    python = HeuristicEvaluator(game)
    native_evaluator = ENGINE.heuristic_evaluator(game)
    assert native_evaluator is not None
    assert native_evaluator.name == "heuristic"
    mismatches: list[tuple[str, int, float, float]] = []
    positions = random_positions(game, games, seed=len(game_string))
    for state in positions:
        expected = python.evaluate(state)
        for player in (0, 1):
            value = native_evaluator.value(state, player)
            if value != expected[player]:
                mismatches.append((str(state), player, value, expected[player]))
    assert len(positions) > games
    assert not mismatches, f"{len(mismatches)} mismatches, first: {mismatches[:3]}"


@pytest.mark.parametrize("game_string", ["othello", "chess", "hex"])
def test_games_without_native_heuristic_give_none(game_string: str) -> None:
    assert ENGINE.heuristic_evaluator(pyspiel.load_game(game_string)) is None


@pytest.mark.parametrize("name", ["connect_four", "connect_four(rows=4,columns=5,x_in_row=3)"])
def test_connect_four_children_valued_without_building_them(name: str) -> None:
    module = ENGINE
    game = pyspiel.load_game(name)
    native = module.heuristic_evaluator(game)
    python = HeuristicEvaluator(game)
    for seed in range(30):
        rng = np.random.default_rng(seed)
        state = game.new_initial_state()
        while not state.is_terminal():
            for player in (0, 1):
                leaves = module.child_leaves(native, state, player)
                expected = []
                for move in state.legal_actions():
                    child = state.child(move)
                    if child.is_terminal():
                        expected.append((child.player_return(player), True))
                    else:
                        expected.append((python.evaluate(child)[player], False))
                assert leaves == expected
            state.apply_action(int(rng.choice(state.legal_actions())))
    tic_tac_toe = pyspiel.load_game("tic_tac_toe")
    cannot = module.heuristic_evaluator(tic_tac_toe)
    assert module.child_leaves(cannot, tic_tac_toe.new_initial_state(), 0) is None
