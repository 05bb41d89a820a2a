"""The state check every bot makes before a search (or OpenSpiel's bot) sees the state.

Before it, OpenSpiel's C++ `mcts` and `random` killed the process on a terminal state or a chance
node, `openspiel_ab` raised a `SpielError`, `python_mcts` an `IndexError` (and answered a chance
node with -1), and every bot searched, or failed deep in a heuristic on, a state of another game.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import evaluate_bots as python_evaluate_bots

from spiel_bounded import BABMCTSBot, list_bots, load_bot
from spiel_bounded.bots.checks import CheckedBot, StateCheck
from spiel_bounded.games import game_info
from spiel_bounded.judges.backgammon import missing_extra

# Small limits: a refusal must come before any search, but a wrong acceptance must stay cheap.
SMALL: dict[str, dict[str, Any]] = {
    "openspiel_ab": {"depth": 1},
    "mcts": {"simulations": 10},
    "python_mcts": {"simulations": 4},
    "random": {},
    "babmcts": {"simulations": 10},
    "pns": {"nodes": 50},
    "bounded_pns": {"nodes": 50},
    "gnubg": {},
    "connect_four_solver": {"nodes": 50},
    "clobber_solver": {"nodes": 50, "evaluator": "zero"},
}
DEFAULT_SMALL: dict[str, Any] = {"nodes": 50, "evaluator": "zero"}


def _params(
    name: str, game: str = "tic_tac_toe", request: pytest.FixtureRequest | None = None
) -> dict[str, Any]:
    """Small parameters; alphazero's checkpoint of `game` from the `alphazero_runs` fixture."""
    if name == "alphazero":
        assert request is not None
        return {
            "checkpoint": str(request.getfixturevalue("alphazero_runs")[game]),
            "simulations": 4,
        }
    return SMALL.get(name, DEFAULT_SMALL)


def _game_for(name: str) -> str:
    """A game the bot plays, with chance nodes where it can play those."""
    spec = next(spec for spec in list_bots() if spec.name == name)
    for game in (
        "pig(players=3,winscore=20)",
        "pig(winscore=30)",
        "tic_tac_toe",
        "backgammon",
        "connect_four",
        "clobber",
    ):
        if not spec.reasons_against(game_info(pyspiel.load_game(game))):
            return game
    raise AssertionError(f"no test game for {name}")


def _terminal(game: pyspiel.Game) -> pyspiel.State:
    rng = np.random.default_rng(0)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=probabilities)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    return state


def _chance_node(game: pyspiel.Game) -> pyspiel.State:
    state = game.new_initial_state()
    if not state.is_chance_node():
        state.apply_action(0)  # pig: roll (backgammon starts with the dice)
    assert state.is_chance_node()
    return state


# gnubg needs its extra (x86-64 Linux only): without it the bot is refused, checked elsewhere.
ALL_BOTS = sorted(
    spec.name for spec in list_bots() if not (spec.name == "gnubg" and missing_extra())
)


@pytest.mark.parametrize("name", ALL_BOTS)
def test_every_bot_refuses_a_terminal_state_naming_itself(
    name: str, request: pytest.FixtureRequest
) -> None:
    game = pyspiel.load_game("tic_tac_toe")
    state = game.new_initial_state()
    for action in (0, 3, 1, 4, 2):  # x wins
        state.apply_action(action)
    if name in ("mp_mix", "gnubg", "connect_four_solver", "clobber_solver"):  # other games
        game = pyspiel.load_game(_game_for(name))
        state = _terminal(game)
    bot = load_bot(name, game, 0, **_params(name, "tic_tac_toe", request))
    with pytest.raises(ValueError, match=rf"^{name} \(.*\) was asked to move in a terminal state"):
        bot.step(state)


@pytest.mark.parametrize("name", ALL_BOTS)
def test_every_bot_that_plays_chance_refuses_a_chance_node(
    name: str, request: pytest.FixtureRequest
) -> None:
    game = pyspiel.load_game(_game_for(name))
    if not game_info(game).has_chance:
        pytest.skip(f"{name} plays no game with chance nodes")
    bot = load_bot(name, game, 0, **_params(name, _game_for(name), request))
    with pytest.raises(
        ValueError, match=rf"^{name} \((pig|backg).*\) was asked to move at a chance"
    ):
        bot.step(_chance_node(game))


@pytest.mark.parametrize("name", ALL_BOTS)
def test_every_bot_refuses_a_state_of_another_game_naming_both(
    name: str, request: pytest.FixtureRequest
) -> None:
    built = _game_for(name)
    bot = load_bot(name, built, 0, **_params(name, built, request))
    other = {
        "pig(players=3,winscore=20)": "pig(players=4,winscore=20)",
        "connect_four": "tic_tac_toe",
        "clobber": "tic_tac_toe",
    }.get(built, "connect_four")
    state = pyspiel.load_game(other).new_initial_state()
    with pytest.raises(ValueError, match=rf"^{name} was built for .* state of {re.escape(other)}"):
        bot.step(state)
    if bot.provides_policy():
        with pytest.raises(ValueError, match="state of"):
            bot.step_with_policy(state)


def test_the_issue_cases_are_refused() -> None:
    """Issue 23: bounded_ab for connect_four failed with an IndexError in the heuristic on a
    tic_tac_toe state; babmcts searched it and answered 4."""
    state = pyspiel.load_game("tic_tac_toe").new_initial_state()
    for name in ("bounded_ab", "babmcts"):
        bot = load_bot(name, "connect_four", 0, nodes=100)
        with pytest.raises(ValueError, match=r"built for connect_four .* state of tic_tac_toe"):
            bot.step(state)


def test_the_same_game_loaded_again_or_spelt_otherwise_is_accepted() -> None:
    for built, given in [
        ("connect_four", "connect_four"),
        ("pig", "pig(winscore=100)"),  # the default, spelt out
        ("breakthrough(rows=6,columns=6)", "breakthrough(columns=6,rows=6)"),
    ]:
        for name in ("bounded_star1", "mcts", "random"):
            bot = load_bot(name, built, 0, **SMALL.get(name, {"nodes": 50}))
            state = pyspiel.load_game(given).new_initial_state()
            assert bot.step(state) in state.legal_actions()
            # The accepted game object is remembered; another game is still refused.
            with pytest.raises(ValueError, match="state of tic_tac_toe"):
                bot.step(pyspiel.load_game("tic_tac_toe").new_initial_state())


def test_other_parameters_are_another_game() -> None:
    bot = load_bot("bounded_ab", "breakthrough", 0, nodes=50)
    state = pyspiel.load_game("breakthrough(rows=6,columns=6)").new_initial_state()
    with pytest.raises(
        ValueError, match=r"built for breakthrough but .* state of breakthrough\(columns=6,rows=6\)"
    ):
        bot.step(state)


def test_every_bot_moves_only_for_the_player_it_was_loaded_as() -> None:
    # Issue 40, item 10: bounded_ab loaded as player 0 returned a move for player 1.
    game = pyspiel.load_game("tic_tac_toe")
    state = game.new_initial_state()
    state.apply_action(4)  # player 1 to move
    for name in ("bounded_ab", "babmcts", "mcts", "python_mcts", "openspiel_ab", "pns"):
        params = SMALL.get(name, {"nodes": 50})
        with pytest.raises(ValueError, match=rf"{name} .* plays player 0 .* player 1 is to move"):
            load_bot(name, game, 0, **params).step(state)
        assert load_bot(name, game, 1, **params).step(state) in state.legal_actions()


def test_random_moves_only_for_its_own_player() -> None:
    """OpenSpiel's random bot draws from its own player's legal actions: stepped for another
    player it crashed the process."""
    game = pyspiel.load_game("tic_tac_toe")
    state = game.new_initial_state()
    state.apply_action(4)
    with pytest.raises(ValueError, match=r"random .* plays player 0 .* player 1 is to move"):
        load_bot("random", game, 0).step(state)
    with pytest.raises(ValueError, match="player 1 is to move"):
        load_bot("random", game, 0).step_with_policy(state)
    assert load_bot("random", game, 1).step(state) in state.legal_actions()


def test_the_checked_random_bot_keeps_its_policy_and_its_moves() -> None:
    game = pyspiel.load_game("connect_four")
    state = game.new_initial_state()
    ours = load_bot("random", game, 0, seed=7)
    theirs = pyspiel.make_uniform_random_bot(0, 7)
    assert isinstance(ours, CheckedBot)
    assert ours.provides_policy()
    assert ours.get_policy(state) == theirs.get_policy(state)
    assert [ours.step(state) for _ in range(20)] == [theirs.step(state) for _ in range(20)]
    policy, action = ours.step_with_policy(state)
    assert action in state.legal_actions() and len(policy) == 7


def test_checked_bots_play_under_both_drivers() -> None:
    game = pyspiel.load_game("pig(winscore=20)")
    bots = [load_bot("random", game, 0, seed=1), load_bot("python_mcts", game, 1, simulations=5)]
    returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, 3)
    assert sum(returns) == 0
    returns = python_evaluate_bots.evaluate_bots(
        game.new_initial_state(), bots, np.random.RandomState(3)
    )
    assert sum(returns) == 0


def test_a_bot_built_directly_is_named_by_its_class() -> None:
    bot = BABMCTSBot(pyspiel.load_game("tic_tac_toe"), 0)
    with pytest.raises(ValueError, match=r"^BABMCTSBot .* terminal state"):
        bot.step(_terminal(pyspiel.load_game("tic_tac_toe")))


def test_a_state_check_refuses_what_is_not_a_state() -> None:
    check = StateCheck(pyspiel.load_game("tic_tac_toe"), "mine")
    with pytest.raises(TypeError, match=r"mine was asked to move in 'str', not a pyspiel\.State"):
        check("x.o......")


def test_a_state_check_refuses_a_simultaneous_node() -> None:
    game = pyspiel.load_game("matrix_rps")
    check = StateCheck(game, "mine")
    with pytest.raises(ValueError, match=r"mine \(matrix_rps\) .* simultaneous-move node"):
        check(game.new_initial_state())
