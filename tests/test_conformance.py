"""Every registered bot plays every game it claims, legally, reproducibly, under both drivers."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel
import pytest

from spiel_bounded import list_bots, load_bot
from spiel_bounded.games import game_info

DETERMINISTIC_GAMES = (
    "tic_tac_toe",
    "connect_four",
    "breakthrough(rows=6,columns=6)",
    "hex(board_size=5)",
    "othello",
    "clobber(rows=4,columns=4)",
    "mancala",
    "nim",
    "pentago",
    "bounded_random_tree(branching=3,depth=6,seed=5)",
)
# Shortened variants keep the suite fast; test_star1_and_star2_play_each_other plays the full
# games.
CHANCE_GAMES = (
    "backgammon(max_player_turns=16)",
    "pig(winscore=30)",
    "einstein_wurfelt_nicht",
    "maedn(players=2)",
    "yacht(players=2,num_dice=3)",
    "bounded_random_tree(branching=3,depth=5,seed=5,chance=0.5,chance_outcomes=3)",
)
FULL_CHANCE_GAMES = (
    "backgammon",
    "pig",
    "einstein_wurfelt_nicht",
    "maedn(players=2)",
    "yacht(players=2)",
)
GAMES = DETERMINISTIC_GAMES + CHANCE_GAMES

# Small limits keep a whole game to a fraction of a second; node limits keep it reproducible.
SMALL: dict[str, dict[str, Any]] = {
    "bounded_ab": {"nodes": 200},
    "bounded_star1": {"nodes": 200},
    "bounded_star2": {"nodes": 200},
    "openspiel_ab": {"depth": 2},
    "mcts": {"simulations": 20},
    "python_mcts": {"simulations": 10},
    "random": {},
    "babmcts": {"simulations": 30},
}


def _opponent(game: pyspiel.Game, player: int, seed: int) -> pyspiel.Bot:
    # The C++ MCTS crashes when stepped from Python on a Python-implemented game.
    if game_info(game).python_game:
        return load_bot("python_mcts", game, player, simulations=20, seed=seed)
    return load_bot("mcts", game, player, simulations=20, seed=seed)


def _bots(name: str, game: pyspiel.Game, seat: int, seed: int) -> list[pyspiel.Bot]:
    return [
        load_bot(name, game, p, seed=seed, **SMALL[name]) if p == seat else _opponent(game, p, seed)
        for p in range(game.num_players())
    ]


def _play_checked(
    bots: list[pyspiel.Bot], game: pyspiel.Game, seed: int
) -> tuple[list[int], list[float]]:
    """Plays a game in Python, checking every move's legality; chance sampled from `seed`."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    history = []
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probabilities = zip(*state.chance_outcomes(), strict=True)
            action = int(rng.choice(actions, p=probabilities))
        else:
            player = state.current_player()
            legal = state.legal_actions()
            action = bots[player].step(state)
            assert action in legal, f"illegal action {action} in\n{state}"
            for other, bot in enumerate(bots):
                if other != player:
                    bot.inform_action(state, player, action)
        history.append(action)
        state.apply_action(action)
    return history, state.returns()


def _check_returns(game: pyspiel.Game, returns: list[float]) -> None:
    assert sum(returns) == pytest.approx(0.0)
    assert all(game.min_utility() <= r <= game.max_utility() for r in returns)


def test_every_bot_is_covered() -> None:
    assert {spec.name for spec in list_bots()} == set(SMALL)


@pytest.mark.parametrize("game_string", GAMES)
@pytest.mark.parametrize("name", sorted(SMALL))
def test_bot_plays_the_game(name: str, game_string: str) -> None:
    game = pyspiel.load_game(game_string)
    spec = next(spec for spec in list_bots() if spec.name == name)
    reasons = spec.reasons_against(game_info(game))
    if reasons:
        # A bot may decline only for the documented reasons.
        expected = {
            "bounded_ab": "chance nodes",
            "openspiel_ab": "chance nodes",
            "mcts": "implemented in Python",
        }
        assert name in expected and expected[name] in " ".join(reasons), reasons
        pytest.skip(f"{name} cannot play {game_string}: {'; '.join(reasons)}")
    first = _play_checked(_bots(name, game, 0, seed=11), game, seed=11)
    again = _play_checked(_bots(name, game, 0, seed=11), game, seed=11)
    assert first == again, "the same seed must give the same game"
    _check_returns(game, first[1])
    returns = pyspiel.evaluate_bots(game.new_initial_state(), _bots(name, game, 1, seed=12), 12)
    _check_returns(game, returns)


@pytest.mark.parametrize("game_string", FULL_CHANCE_GAMES)
def test_star1_and_star2_play_each_other(game_string: str) -> None:
    game = pyspiel.load_game(game_string)
    bots = [
        load_bot("bounded_star1", game, 0, nodes=100, seed=3),
        load_bot("bounded_star2", game, 1, nodes=100, seed=4),
    ]
    _check_returns(game, _play_checked(bots, game, seed=5)[1])
