"""The C++ MCTS wrapper: a time limit too short for one simulation still gives a legal move.

Before the wrapper, `load_bot("mcts", game, 0, seconds=1e-6).step(state)` was a segmentation
fault on every game (OpenSpiel's bot took the best child of an unexpanded root), which kills the
test process: these tests then fail as a crashed worker.
"""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

from spiel_bounded import load_bot
from spiel_bounded.bots.cpp_mcts import MIN_SIMULATIONS, CppMCTSBot, CppMCTSSettings

GAMES = [
    "tic_tac_toe",
    "connect_four",
    "breakthrough(rows=6,columns=6)",
    "maedn(players=4)",
    "backgammon",
    "chess",
    "go(board_size=9)",
    "oware",
]


@pytest.mark.parametrize("game_name", GAMES)
def test_a_limit_shorter_than_a_simulation_still_plays_legal_moves(game_name: str) -> None:
    game = pyspiel.load_game(game_name)
    bots = [load_bot("mcts", game, player, seconds=1e-6) for player in range(game.num_players())]
    rng = np.random.default_rng(0)
    state = game.new_initial_state()
    for _ in range(30):
        if state.is_terminal():
            break
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.integers(len(outcomes))][0])
            continue
        action = bots[state.current_player()].step(state)
        assert action in state.legal_actions()
        state.apply_action(action)


def test_without_a_time_limit_it_is_the_cpp_bot() -> None:
    game = pyspiel.load_game("connect_four")
    state = game.new_initial_state()
    for action in (3, 3, 2):
        state.apply_action(action)
    ours = load_bot("mcts", game, 1, simulations=300, seed=5)
    theirs = pyspiel.MCTSBot(
        game, pyspiel.RandomRolloutEvaluator(1, 5), 2.0, 300, 1000, False, 5, False
    )
    assert [ours.step(state) for _ in range(5)] == [theirs.step(state) for _ in range(5)]


def test_a_long_enough_limit_searches_and_finds_the_win() -> None:
    game = pyspiel.load_game("tic_tac_toe")
    state = game.new_initial_state()
    for action in (0, 3, 1, 4):  # x to move wins with 2
        state.apply_action(action)
    # simulations=1 is ignored when seconds is set, as in OpenSpiel.
    settings = CppMCTSSettings(simulations=1, max_memory_mb=100, solve=True, seconds=0.2)
    bot = CppMCTSBot(game, settings, seed=0)
    assert bot.step(state) == 2
    assert MIN_SIMULATIONS == 2
