"""The bot registry: names, parameters, games, and every error a user can meet."""

from __future__ import annotations

import re
from pathlib import Path

import pyspiel
import pytest

from spiel_bounded import list_bots, load_bot
from spiel_bounded.registry import bots_for, get_spec
from spiel_bounded.result import BoundsOn
from spiel_bounded.search.alphabeta import AlphaBetaSettings

EXPECTED = {
    "bounded_ab",
    "bounded_star1",
    "bounded_star2",
    "openspiel_ab",
    "mcts",
    "python_mcts",
    "random",
}


def test_every_bot_is_listed_with_description_and_parameters() -> None:
    specs = {spec.name: spec for spec in list_bots()}
    assert set(specs) >= EXPECTED
    for spec in specs.values():
        assert spec.description
        for param in spec.params.values():
            assert param.doc
    assert {"epsilon", "depth", "nodes", "seconds", "evaluator", "policy", "seed"} <= set(
        specs["bounded_ab"].params
    )
    assert {"simulations", "uct_c", "seconds", "solve"} <= set(specs["mcts"].params)


def test_bots_for_games() -> None:
    assert set(bots_for("tic_tac_toe")) >= EXPECTED
    assert set(bots_for("backgammon")) >= {
        "bounded_star1",
        "bounded_star2",
        "mcts",
        "python_mcts",
        "random",
    }
    assert "bounded_ab" not in bots_for("backgammon")


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_bot_loads_and_moves(name: str) -> None:
    game = pyspiel.load_game("tic_tac_toe")
    params = {"simulations": 10} if "mcts" in name else {}
    if name in ("bounded_ab", "bounded_star1", "bounded_star2", "openspiel_ab"):
        params = {"depth": 2}
    bot = load_bot(name, game, 0, **params)
    state = game.new_initial_state()
    assert bot.step(state) in state.legal_actions()


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        (("alphabeta", "tic_tac_toe", 0), {}, "unknown bot 'alphabeta'; registered bots: "),
        (("bounded_ab", "no_such_game", 0), {}, "unknown game 'no_such_game'"),
        (
            ("bounded_ab", "tic_tac_toe", 0),
            {"epsilom": 0.1},
            "unknown parameter.*'epsilom'.*valid parameters: epsilon, depth",
        ),
        (
            ("bounded_ab", "tic_tac_toe", 0),
            {"epsilon": -1.0},
            "bad value for parameter 'epsilon' of bot 'bounded_ab'.*must be a number >= 0",
        ),
        (("bounded_ab", "tic_tac_toe", 0), {"depth": 0}, "parameter 'depth'.*integer >= 1"),
        (("bounded_ab", "tic_tac_toe", 0), {"seconds": -2}, "parameter 'seconds'.*> 0"),
        (("bounded_ab", "tic_tac_toe", 0), {"policy": "greedy"}, "must be one of pessimistic"),
        (("bounded_ab", "tic_tac_toe", 0), {"evaluator": "nn"}, "must be one of auto, zero"),
        (("bounded_ab", "tic_tac_toe", 0), {"transpositions": 1}, "must be True or False"),
        (
            ("bounded_star1", "pig", 0),
            {"chance_epsilon": "half"},
            "parameter 'chance_epsilon'.*must be one of uniform, carry",
        ),
        (
            ("bounded_ab", "tic_tac_toe", 0),
            {"chance_epsilon": "carry"},
            "unknown parameter.*'chance_epsilon' for bot 'bounded_ab'",
        ),
        (("mcts", "tic_tac_toe", 0), {"simulations": 0}, "parameter 'simulations'"),
        (("bounded_ab", "tic_tac_toe", 2), {}, "player_id 2 is out of range.*2 players"),
        (
            ("bounded_ab", "backgammon", 0),
            {},
            "bot 'bounded_ab' cannot play backgammon.*chance nodes.*Bots that can play it: "
            "bounded_star1, bounded_star2, .*mcts, python_mcts, random",
        ),
        (
            ("openspiel_ab", "chinese_checkers(players=3)", 0),
            {},
            r"3 players \(supported: 2\)",
        ),
        (("bounded_ab", "kuhn_poker", 0), {}, "imperfect information"),
        (("bounded_ab", 42, 0), {}, "game must be a pyspiel.Game or a game string"),
        (
            ("mcts", "bounded_random_tree(depth=3)", 0),
            {},
            "implemented in Python.*Bots that can play it: bounded_ab, .*python_mcts",
        ),
    ],
)
def test_bad_input_is_a_clear_error(args: tuple, kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        load_bot(*args, **kwargs)


def test_heuristic_on_a_game_without_one_is_refused() -> None:
    with pytest.raises(ValueError, match="no heuristic for nim"):
        load_bot("bounded_ab", "nim", 0, evaluator="heuristic")


@pytest.mark.parametrize(
    ("name", "settings"),
    [
        ("bounded_ab", {"tt_capacity": 1000, "transpositions": False}),
        ("bounded_star1", {"tt_capacity": 1000, "chance_epsilon": "carry"}),
        ("babmcts", {"prune": False, "priors": False, "simulations": 20}),
        ("mcts", {"max_memory_mb": 10, "solve": True, "simulations": 20}),
    ],
)
def test_every_setting_is_reachable_from_load_bot(name: str, settings: dict) -> None:
    game = pyspiel.load_game("tic_tac_toe")
    bot = load_bot(name, game, 0, **settings)
    state = game.new_initial_state()
    assert bot.step(state) in state.legal_actions()


@pytest.mark.parametrize("name", ["bounded_ab", "bounded_star2", "babmcts"])
def test_a_refused_setting_names_the_bot_and_what_is_accepted(name: str) -> None:
    setting = "max_nodes" if name == "babmcts" else "tt_capacity"
    accepted = "an integer >= 1( or None)?, got 0"
    with pytest.raises(ValueError, match=f"'{setting}' of bot '{name}'.*{accepted}"):
        load_bot(name, "tic_tac_toe", 0, **{setting: 0})


def test_openspiel_ab_reports_a_depth_limited_value_and_no_node_count() -> None:
    bot = load_bot("openspiel_ab", "tic_tac_toe", 0, depth=2)
    bot.step(pyspiel.load_game("tic_tac_toe").new_initial_state())
    result = bot.last_result
    assert result is not None and result.stats.nodes is None
    assert result.bounds_on == BoundsOn("depth_limited", "minimax", 2, "heuristic")
    ours = load_bot("bounded_ab", "tic_tac_toe", 0, depth=2)
    ours.step(pyspiel.load_game("tic_tac_toe").new_initial_state())
    assert ours.last_result is not None
    assert ours.last_result.bounds_on == BoundsOn("depth_limited", "minimax", 2, "heuristic")
    assert ours.last_result.stats.nodes


def test_the_manuals_memory_table_states_the_current_defaults() -> None:
    bots_page = (Path(__file__).resolve().parents[1] / "docs" / "bots.md").read_text()
    rows = re.findall(r"^\| `(\w+)` \(([^)]*)\) \| ([^|]+) \| ([\d,]+) \|", bots_page, re.MULTILINE)
    assert len(rows) == 6, rows
    for parameter, unit, bots, default in rows:
        names = [name for name in re.findall(r"`(\w+)`", bots) if name != "mp_mix"]
        assert names, bots
        for name in names:
            declared = get_spec(name).params[parameter].default
            if declared is None:  # the engine's own default (the alpha-beta family)
                declared = AlphaBetaSettings().capacity(native="native engine" in unit)
            assert declared == int(default.replace(",", "")), name
