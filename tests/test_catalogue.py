"""Over OpenSpiel's whole catalogue, what the registry says a bot can play is what it plays.

For every registered game that loads with its default parameters (`default_loadable`): each
bot `bots_for` lists is built by `load_bot` and makes one legal move; each bot it does not list
is refused by `load_bot` with a `ValueError` saying why. The bots search with tiny limits (one
ply, ten simulations): this checks promises, not strength.
"""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

from spiel_bounded import list_bots, load_bot
from spiel_bounded.registry import bots_for

CHEAP = {"depth": 1, "nodes": 300, "simulations": 10, "max_memory_mb": 50, "max_nodes": 10_000}
"""Small limits for every bot that takes them (each bot gets the ones it declares)."""


def _default_games() -> list[str]:
    return sorted(
        game_type.short_name
        for game_type in pyspiel.registered_games()
        if game_type.default_loadable
    )


GAMES = _default_games()


def _first_decision(game: pyspiel.Game) -> pyspiel.State:
    rng = np.random.default_rng(0)
    state = game.new_initial_state()
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        state.apply_action(outcomes[rng.integers(len(outcomes))][0])
    return state


def _cheap_params(name: str) -> dict[str, object]:
    spec = next(spec for spec in list_bots() if spec.name == name)
    return {key: value for key, value in CHEAP.items() if key in spec.params}


def test_the_catalogue_is_large() -> None:
    assert len(GAMES) > 60


@pytest.mark.parametrize("game_name", GAMES)
def test_listed_bots_play_and_the_others_are_refused(game_name: str) -> None:
    game = pyspiel.load_game(game_name)
    listed = set(bots_for(game))
    state = _first_decision(game)
    for spec in list_bots():
        if spec.name not in listed:
            with pytest.raises(ValueError, match=f"bot '{spec.name}' cannot play"):
                load_bot(spec.name, game, 0)
            continue
        required = [name for name, param in spec.params.items() if param.required]
        if required:  # alphazero: a checkpoint of this very game, which no test has
            with pytest.raises(ValueError, match=f"parameter '{required[0]}' .* is required"):
                load_bot(spec.name, game, 0, **_cheap_params(spec.name))
            continue
        if state.is_terminal() or state.is_simultaneous_node():
            continue  # nothing to step on (no listed bot plays simultaneous games)
        player = state.current_player()
        bot = load_bot(spec.name, game, player, **_cheap_params(spec.name))
        assert bot.step(state) in state.legal_actions(player), spec.name


@pytest.mark.parametrize("game_name", ["kuhn_poker", "leduc_poker", "hearts", "dark_hex"])
def test_random_plays_imperfect_information_games(game_name: str) -> None:
    assert "random" in bots_for(game_name)


@pytest.mark.parametrize("game_name", ["2048", "cliff_walking", "morpion_solitaire"])
def test_mcts_refuses_games_with_rewards_along_the_way(game_name: str) -> None:
    assert {"mcts", "python_mcts"}.isdisjoint(bots_for(game_name))
    with pytest.raises(ValueError, match="rewards before the end"):
        load_bot("mcts", game_name, 0)
