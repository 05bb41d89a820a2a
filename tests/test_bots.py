"""SearchBot and the move-choice policies."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import evaluate_bots as python_evaluate_bots

from spiel_bounded import load_bot
from spiel_bounded.bots import choose_action
from spiel_bounded.result import Interval, SearchResult


def _result(children: dict[int, Interval]) -> SearchResult:
    return SearchResult(action=min(children), lower=0.0, upper=0.0, children=children)


def test_policies_pick_from_the_root_intervals() -> None:
    children = {0: Interval(0.2, 0.3), 1: Interval(0.1, 0.9), 2: Interval(-0.5, 0.8)}
    rng = np.random.default_rng(0)
    assert choose_action(_result(children), "pessimistic", rng) == 0
    assert choose_action(_result(children), "optimistic", rng) == 1
    assert choose_action(_result(children), "average", rng) == 1


def test_ties_are_broken_by_the_seed() -> None:
    children = {a: Interval(0.0, 1.0) for a in range(6)}

    def picks(seed: int) -> list[int]:
        rng = np.random.default_rng(seed)
        return [choose_action(_result(children), "pessimistic", rng) for _ in range(8)]

    assert picks(1) == picks(1)
    assert len({tuple(picks(seed)) for seed in range(4)}) > 1
    assert set(picks(2)) <= set(children)


def test_bot_records_its_last_result_and_offers_a_policy() -> None:
    game = pyspiel.load_game("tic_tac_toe")
    bot = load_bot("bounded_ab", game, 0, depth=3)
    state = game.new_initial_state()
    policy, action = bot.step_with_policy(state)
    assert policy == [(action, 1.0)]
    assert bot.last_result is not None
    assert bot.last_result.stats.depth == 3
    bot.restart_at(state)
    assert bot.last_result is None


def test_plays_under_the_python_driver() -> None:
    game = pyspiel.load_game("tic_tac_toe")
    bots = [
        load_bot("bounded_ab", game, 0, depth=9),
        load_bot("python_mcts", game, 1, simulations=20, seed=3),
    ]
    returns = python_evaluate_bots.evaluate_bots(
        game.new_initial_state(), bots, np.random.RandomState(0)
    )
    assert returns[0] >= 0  # a perfect player never loses tic_tac_toe


@pytest.mark.parametrize("epsilon", [0.0, 0.5])
def test_pessimistic_play_draws_against_itself(epsilon: float) -> None:
    # Below epsilon 1 an epsilon-optimal move in tic_tac_toe is an optimal one.
    game = pyspiel.load_game("tic_tac_toe")
    bots = [load_bot("bounded_ab", game, p, epsilon=epsilon, seed=p) for p in range(2)]
    assert pyspiel.evaluate_bots(game.new_initial_state(), bots, 0) == [0.0, 0.0]
