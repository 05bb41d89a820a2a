"""Results claim no more than they hold: the tolerance is below the value range, and every
result names the value its bounds are about (`SearchResult.bounds_on`)."""

from __future__ import annotations

import pyspiel
import pytest

from spiel_bounded import (
    AlphaBetaSettings,
    Limits,
    bounded_ab,
    bounded_star1,
    bounded_star2,
    load_bot,
    make_evaluator,
)
from spiel_bounded.result import GAME_VALUE, BoundsOn
from spiel_bounded.search.alphabeta import paranoid
from spiel_bounded.search.babmcts import babmcts
from spiel_bounded.search.babmcts.common import BABMCTSSettings
from spiel_bounded.search.pns import BoundedPNSSettings, bounded_pns

EPSILON_BOTS = ("bounded_ab", "bounded_star1", "bounded_star2", "babmcts", "bounded_pns")


@pytest.mark.parametrize("epsilon", [2.0, 5.0])
@pytest.mark.parametrize("name", EPSILON_BOTS)
def test_bots_refuse_an_epsilon_as_wide_as_the_value_range(name: str, epsilon: float) -> None:
    with pytest.raises(ValueError, match=r"epsilon=.* not below the value range .*\(2: utilities"):
        load_bot(name, "connect_four", 0, epsilon=epsilon)
    load_bot(name, "connect_four", 0, epsilon=1.99)  # just below: accepted


@pytest.mark.parametrize("name", ["paranoid", "mp_mix"])
def test_nplayer_bots_refuse_a_range_wide_epsilon(name: str) -> None:
    game = "chinese_checkers(players=3)"
    with pytest.raises(ValueError, match="not below the value range"):
        load_bot(name, game, 0, epsilon=10.0)


def test_search_functions_refuse_a_range_wide_epsilon() -> None:
    game = pyspiel.load_game("connect_four")
    state = game.new_initial_state()
    evaluator = make_evaluator("heuristic", game)
    settings = AlphaBetaSettings(epsilon=5.0)
    for search in (bounded_ab, bounded_star1, bounded_star2, paranoid):
        with pytest.raises(ValueError, match="Accepted: 0 <= epsilon < 2"):
            search(state, evaluator=evaluator, limits=Limits(depth=2), settings=settings)
    with pytest.raises(ValueError, match="not below the value range"):
        babmcts(state, evaluator=evaluator, settings=BABMCTSSettings(epsilon=2.0))
    with pytest.raises(ValueError, match="not below the value range"):
        bounded_pns(state, limits=Limits(nodes=10), settings=BoundedPNSSettings(epsilon=2.0))


def test_depth_limited_bounds_say_so_and_may_exclude_the_game_value() -> None:
    # The case: tic_tac_toe is a draw, yet the depth-3 bounds exclude 0.
    game = pyspiel.load_game("tic_tac_toe")
    result = bounded_ab(
        game.new_initial_state(),
        evaluator=make_evaluator("heuristic", game),
        limits=Limits(depth=3),
        settings=AlphaBetaSettings(epsilon=1.9),
    )
    assert result.stats.stopped_by == "depth"
    assert result.bounds_on == BoundsOn("depth_limited", "minimax", 3, "heuristic")
    assert not result.bounds_game_value
    assert "depth-3 minimax value" in str(result.bounds_on)
    assert "not the game value" in str(result.bounds_on)
    assert "bounds_on=BoundsOn(kind='depth_limited'" in repr(result)


def test_bounds_reaching_every_terminal_are_on_the_game_value() -> None:
    game = pyspiel.load_game("tic_tac_toe")
    state = game.new_initial_state()
    evaluator = make_evaluator("heuristic", game)
    for search in (bounded_ab, bounded_star1, bounded_star2, paranoid):
        result = search(state, evaluator=evaluator, limits=Limits(depth=9))
        assert result.stats.stopped_by == "solved", search
        assert result.bounds_on == GAME_VALUE and result.lower <= 0.0 <= result.upper
    assert str(GAME_VALUE) == "the game value"


@pytest.mark.parametrize(
    ("name", "game", "params", "kind"),
    [
        ("bounded_star2", "pig", {"depth": 2}, "depth_limited"),
        ("babmcts", "connect_four", {"simulations": 50}, "game"),
        ("pns", "connect_four", {"nodes": 200}, "game"),
        ("bounded_pns", "connect_four", {"nodes": 200}, "game"),
        ("rivest", "connect_four", {"nodes": 200}, "estimate"),
        ("maxn", "chinese_checkers(players=3)", {"depth": 2}, "depth_limited"),
        ("offensive", "chinese_checkers(players=3)", {"depth": 2}, "depth_limited"),
        ("brs_plus", "chinese_checkers(players=3)", {"depth": 2}, "depth_limited"),
        ("paranoid", "chinese_checkers(players=3)", {"depth": 2}, "depth_limited"),
        ("openspiel_ab", "connect_four", {"depth": 2}, "depth_limited"),
    ],
)
def test_every_search_names_what_its_bounds_hold_for(
    name: str, game: str, params: dict[str, int], kind: str
) -> None:
    bot = load_bot(name, game, 0, **params)
    state = pyspiel.load_game(game).new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    bot.step(state)
    bounds_on = bot.last_result.bounds_on
    assert bounds_on.kind == kind
    if kind != "game":
        assert bounds_on.evaluator  # the evaluator is named
    if kind == "depth_limited":
        assert bounds_on.depth == bot.last_result.stats.depth > 0 and bounds_on.model


@pytest.mark.parametrize("name", ["paranoid", "maxn", "brs_plus", "offensive"])
def test_a_solved_nplayer_search_claims_its_model_not_a_game_value(name: str) -> None:
    game = pyspiel.load_game("bounded_random_tree(players=3,depth=4,branching=2)")
    bot = load_bot(name, game, 0, depth=50, evaluator="zero")
    bot.step(game.new_initial_state())
    assert bot.last_result is not None
    assert bot.last_result.stats.stopped_by == "solved"
    bounds_on = bot.last_result.bounds_on
    assert bounds_on.kind == "model" and bounds_on.model, bounds_on
    assert "value of the whole game" in str(bounds_on)


@pytest.mark.parametrize("name", ["paranoid", "maxn"])
def test_a_solved_two_player_zero_sum_search_claims_the_game_value(name: str) -> None:
    game = pyspiel.load_game("tic_tac_toe")
    bot = load_bot(name, game, 0, depth=9)
    bot.step(game.new_initial_state())
    assert bot.last_result is not None and bot.last_result.bounds_on == GAME_VALUE
