"""Every registered bot plays every game it claims, legally, reproducibly, under both drivers,
and refuses with `ValueError` a terminal state, a chance node and a state of another game."""

from __future__ import annotations

import gc
from typing import Any

import numpy as np
import pyspiel
import pytest

from spiel_bounded import list_bots, load_bot, testing
from spiel_bounded.games import game_info
from spiel_bounded.testing import DRIVERS, ConformanceError, check_bot

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
THREE_PLAYER_GAMES = (
    "chinese_checkers(players=3,max_moves=60)",
    "pig(players=3,winscore=20)",
    "bounded_random_tree(branching=3,depth=6,seed=5,players=3)",
)
# The n-player games of issue 11 (turn caps and fewer dice keep the suite fast).
N_PLAYER_GAMES = (
    "chinese_checkers(players=2,max_moves=40)",
    "chinese_checkers(players=4,max_moves=60)",
    "chinese_checkers(players=6,max_moves=60)",
    "maedn(players=3)",
    "maedn(players=4)",
    "pig(players=4,winscore=20)",
    "yacht(players=3,num_dice=3)",
    "bounded_random_tree(branching=3,depth=6,seed=5,players=3,chance=0.5)",
    "bounded_random_tree(branching=3,depth=8,seed=5,players=4)",
    "bounded_random_tree(branching=3,depth=8,seed=5,players=4,chance=0.5)",
)
N_PLAYER_BOTS = ("maxn", "paranoid", "brs_plus", "offensive", "mp_mix")
GAMES = DETERMINISTIC_GAMES + CHANCE_GAMES + THREE_PLAYER_GAMES

# Small limits keep a whole game to a fraction of a second; node limits keep it reproducible.
SMALL: dict[str, dict[str, Any]] = {
    "bounded_ab": {"nodes": 200},
    "bounded_star1": {"nodes": 200},
    "bounded_star2": {"nodes": 200},
    "openspiel_ab": {"depth": 2},
    "mcts": {"simulations": 20},
    "python_mcts": {"simulations": 4},
    "random": {},
    "babmcts": {"simulations": 30},
    "maxn": {"nodes": 200, "evaluator": "zero"},
    "paranoid": {"nodes": 200},
    "offensive": {"nodes": 200, "evaluator": "zero"},
    "brs_plus": {"nodes": 200, "evaluator": "zero"},
    "mp_mix": {"nodes": 200, "evaluator": "zero"},
    "rivest": {"nodes": 200},
    "pns": {"nodes": 200},
    "bounded_pns": {"nodes": 200},
    "alphazero": {"simulations": 8},  # and a checkpoint of the game (`checkpoint_for`)
    "gnubg": {},
    "connect_four_solver": {"nodes": 200},
    "clobber_solver": {},
}
# Why a bot may decline a game of the list (any other refusal fails the test).
DOCUMENTED_REFUSALS = {
    "bounded_ab": ("chance nodes", "players"),
    "openspiel_ab": ("chance nodes", "players"),
    "bounded_star1": ("players",),
    "bounded_star2": ("players",),
    "babmcts": ("players",),
    "mp_mix": ("players",),
    "rivest": ("chance nodes", "players"),
    "pns": ("chance nodes", "players"),
    "bounded_pns": ("chance nodes", "players", "terminal values"),
    "mcts": ("implemented in Python",),
    "alphazero": ("chance nodes", "players", "rewards before the end", "alphazero extra"),
    "gnubg": ("backgammon only", "players", "gnubg extra"),
    "connect_four_solver": ("connect_four only", "chance nodes", "players"),
    "clobber_solver": ("clobber only", "chance nodes", "players"),
}


def _opponent(game: pyspiel.Game) -> dict[str, Any]:
    # In a deterministic game a purposeful opponent ends games sooner than a random one; with
    # chance the dice end them anyway, and MCTS's playouts cost more than the game (maedn with
    # 4 players: 9.9 s against 0.2 s). The C++ MCTS cannot search a Python-implemented game.
    if game_info(game).has_chance:
        return {"opponent": "random"}
    name = "python_mcts" if game_info(game).python_game else "mcts"
    return {"opponent": name, "opponent_params": {"simulations": 20}}


def checkpoint_for(name: str, game_string: str, request: pytest.FixtureRequest) -> dict[str, Any]:
    """The `checkpoint` parameter of a bot that plays a trained network's game only (alphazero:
    the tiny runs of `tests/alphazero_runs.py`); empty for the other bots. Skips a game with no
    checkpoint."""
    if name != "alphazero":
        return {}
    runs = request.getfixturevalue("alphazero_runs")
    if game_string not in runs:
        pytest.skip(f"alphazero plays the game of its checkpoint; the test runs train {list(runs)}")
    return {"checkpoint": str(runs[game_string])}


def test_every_bot_is_covered() -> None:
    assert {spec.name for spec in list_bots()} == set(SMALL)


@pytest.mark.parametrize("game_string", GAMES)
@pytest.mark.parametrize("name", sorted(SMALL))
def test_bot_plays_the_game(name: str, game_string: str, request: pytest.FixtureRequest) -> None:
    game = pyspiel.load_game(game_string)
    spec = next(spec for spec in list_bots() if spec.name == name)
    reasons = spec.reasons_against(game_info(game))
    if reasons:
        documented = DOCUMENTED_REFUSALS.get(name, ())
        assert all(any(why in reason for why in documented) for reason in reasons), reasons
        pytest.skip(f"{name} cannot play {game_string}: {'; '.join(reasons)}")
    params = {**SMALL[name], **checkpoint_for(name, game_string, request)}
    played = check_bot(name, game, params, **_opponent(game))
    assert {(game.seat, game.driver) for game in played} == {
        (seat, driver) for seat in range(game.num_players()) for driver in DRIVERS
    }


# Two players, chance, three players: the alpha-beta engine's leaf evaluation differs in each.
CYCLE_GAMES = ("connect_four", "pig(winscore=30)", "chinese_checkers(players=3,max_moves=60)")


@pytest.mark.parametrize("game_string", CYCLE_GAMES)
@pytest.mark.parametrize("name", sorted(SMALL))
def test_a_move_leaves_no_reference_cycle(
    name: str, game_string: str, request: pytest.FixtureRequest
) -> None:
    """A search's tables go when the search returns. Kept alive by a reference cycle, they
    would pile up until the cyclic collector freed dozens at once inside a later timed search
    (paranoid on 3-player chinese_checkers stalled 0.3 to 1.9 s a game that way)."""
    game = pyspiel.load_game(game_string)
    spec = next(spec for spec in list_bots() if spec.name == name)
    if spec.reasons_against(game_info(game)):
        pytest.skip(f"{name} cannot play {game_string}")
    params = {**SMALL[name], **checkpoint_for(name, game_string, request)}
    bot = load_bot(name, game, 0, **params)
    state = game.new_initial_state()
    bot.step(state)  # the first move may fill caches that live on, cycles included
    gc.disable()
    # Frozen, what the first move made is never collected: the collection below walks only what
    # the second and third moves made (fast), and a cycle kept from one move and dropped by the
    # next is still seen, made in the second and dropped in the third.
    gc.freeze()
    try:
        bot.step(state)
        bot.step(state)
        assert gc.collect() == 0
    finally:
        gc.unfreeze()
        gc.enable()


@pytest.mark.parametrize("game_string", N_PLAYER_GAMES + THREE_PLAYER_GAMES)
@pytest.mark.parametrize("name", N_PLAYER_BOTS)
def test_n_player_bot_plays_mcts_and_random(name: str, game_string: str) -> None:
    """Full games against the MCTS opponent in every seat and against random players in seat 0,
    under both drivers."""
    game = pyspiel.load_game(game_string)
    spec = next(spec for spec in list_bots() if spec.name == name)
    reasons = spec.reasons_against(game_info(game))
    if reasons:
        assert name == "mp_mix" and game.num_players() == 2, reasons
        pytest.skip(f"{name} cannot play {game_string}: {'; '.join(reasons)}")
    params = {**SMALL[name], "evaluator": "zero"}  # the heuristics have their own tests
    if game_string not in THREE_PLAYER_GAMES:  # test_bot_plays_the_game covers those
        check_bot(name, game, params, **_opponent(game))
    played = check_bot(name, game, params, opponent="random", seats=(0,))
    assert {game.driver for game in played} == set(DRIVERS)


@pytest.mark.parametrize("game_string", FULL_CHANCE_GAMES)
def test_star1_and_star2_play_each_other(game_string: str) -> None:
    played = check_bot(
        "bounded_star1",
        game_string,
        {"nodes": 100},
        opponent="bounded_star2",
        opponent_params={"nodes": 100},
        seats=(0,),
        seed=3,
    )
    assert len(played) == len(DRIVERS)


class _IllegalBot(pyspiel.Bot):
    def __init__(self) -> None:
        pyspiel.Bot.__init__(self)

    def step(self, state: pyspiel.State) -> int:
        return 999


class _Unseeded(pyspiel.Bot):
    """Plays a random move from a generator that no seed controls."""

    def __init__(self) -> None:
        pyspiel.Bot.__init__(self)
        self.rng = np.random.default_rng()

    def step(self, state: pyspiel.State) -> int:
        return int(self.rng.choice(state.legal_actions()))


class _Unchecked(pyspiel.Bot):
    """Plays the first legal move of whatever state it is given, as OpenSpiel's bots would."""

    def __init__(self) -> None:
        pyspiel.Bot.__init__(self)

    def step(self, state: pyspiel.State) -> int:
        return int(state.legal_actions()[0])

    def restart_at(self, state: pyspiel.State) -> None:
        pass


@pytest.mark.parametrize(
    ("bot", "message"),
    [
        (_IllegalBot, "chose illegal action 999"),
        (_Unseeded, "the same seed gave two"),
        (_Unchecked, "asked to move in a terminal state, it raised IndexError"),
    ],
)
def test_check_bot_catches_broken_bots(
    bot: type, message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = testing.load_bot

    def load(name: str, game: Any, player: int, **params: Any) -> pyspiel.Bot:
        return bot() if name == "broken" else real(name, game, player, **params)

    monkeypatch.setattr(testing, "load_bot", load)
    with pytest.raises(ConformanceError, match=message):
        check_bot("broken", "connect_four")
