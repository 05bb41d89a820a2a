"""Every registered bot plays every game it claims, legally, reproducibly, under both drivers."""

from __future__ import annotations

from typing import Any

import pyspiel
import pytest

from spiel_bounded import list_bots, load_bot
from spiel_bounded.games import game_info

GAMES = (
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

# Small limits keep a whole game to a fraction of a second; node limits keep it reproducible.
SMALL: dict[str, dict[str, Any]] = {
    "bounded_ab": {"nodes": 200},
    "openspiel_ab": {"depth": 2},
    "mcts": {"simulations": 20},
    "python_mcts": {"simulations": 10},
    "random": {},
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


def _play_checked(bots: list[pyspiel.Bot], game: pyspiel.Game) -> tuple[list[int], list[float]]:
    state = game.new_initial_state()
    history = []
    while not state.is_terminal():
        if state.is_chance_node():
            action = state.chance_outcomes()[0][0]
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


def test_every_bot_is_covered() -> None:
    assert {spec.name for spec in list_bots()} == set(SMALL)


@pytest.mark.parametrize("game_string", GAMES)
@pytest.mark.parametrize("name", sorted(SMALL))
def test_bot_plays_the_game(name: str, game_string: str) -> None:
    game = pyspiel.load_game(game_string)
    spec = next(spec for spec in list_bots() if spec.name == name)
    if spec.reasons_against_game(game):
        assert name == "mcts" and game_info(game).python_game
        return
    for seat in range(game.num_players()):
        first = _play_checked(_bots(name, game, seat, seed=11), game)
        again = _play_checked(_bots(name, game, seat, seed=11), game)
        assert first == again, "the same seed must give the same game"
        assert sum(first[1]) == pytest.approx(0.0)
        returns = pyspiel.evaluate_bots(
            game.new_initial_state(), _bots(name, game, seat, seed=12), 12
        )
        assert sum(returns) == pytest.approx(0.0)
        assert all(game.min_utility() <= r <= game.max_utility() for r in returns)
