"""MP-Mix: the choice follows the leading edge; the search returns the chosen search's result
unchanged, with the choice; the bot plays the search's moves."""

from __future__ import annotations

from dataclasses import fields, replace
from typing import Any

import pyspiel
import pytest

from spiel_bounded import load_bot, make_evaluator
from spiel_bounded.evaluators import Evaluator
from spiel_bounded.evaluators.base import check_values
from spiel_bounded.games import game_info
from spiel_bounded.limits import Limits
from spiel_bounded.result import SearchResult
from spiel_bounded.search.alphabeta import AlphaBetaSettings, paranoid
from spiel_bounded.search.maxn import directed_offensive, maxn
from spiel_bounded.search.mpmix import (
    STRATEGIES,
    MPMixChoice,
    MPMixResult,
    MPMixSettings,
    mp_mix,
    mp_mix_choice,
)
from spiel_bounded.testing import random_positions


@pytest.mark.parametrize(
    ("values", "player", "expected"),
    [
        ((0.6, 0.1, -0.7), 0, MPMixChoice("paranoid")),
        ((0.15, 0.0, -0.15), 0, MPMixChoice("maxn")),
        ((0.1, 0.6, -0.7), 0, MPMixChoice("offensive", 1)),
        ((0.1, 0.6, -0.7), 2, MPMixChoice("offensive", 1)),
        ((0.3, 0.3, -0.6), 1, MPMixChoice("maxn")),  # tied leaders: no edge
    ],
)
def test_mp_mix_chooses_by_the_leading_edge(
    values: tuple[float, ...], player: int, expected: MPMixChoice
) -> None:
    settings = MPMixSettings(defensive_threshold=0.2, offensive_threshold=0.2)
    assert mp_mix_choice(values, player, settings) == expected


def _timeless(result: SearchResult) -> dict[str, Any]:
    """The fields of a `SearchResult` (not of a subclass), its clock reading set to 0."""
    timeless = replace(result, stats=replace(result.stats, seconds=0.0))
    return {item.name: getattr(timeless, item.name) for item in fields(SearchResult)}


def _chosen(
    state: pyspiel.State, evaluator: Evaluator, limits: Limits, epsilon: float, choice: MPMixChoice
) -> SearchResult:
    """The search `choice` names, called directly."""
    if choice.strategy == "paranoid":
        settings = AlphaBetaSettings(epsilon=epsilon)
        return paranoid(state, evaluator=evaluator, limits=limits, settings=settings)
    if choice.strategy == "offensive":
        return directed_offensive(state, evaluator=evaluator, limits=limits, target=choice.target)
    return maxn(state, evaluator=evaluator, limits=limits)


@pytest.mark.parametrize(
    ("name", "evaluator_name"),
    [("chinese_checkers(players=3)", "heuristic"), ("maedn(players=3)", "heuristic")],
)
def test_mp_mix_returns_the_chosen_search_s_result_with_the_choice(
    name: str, evaluator_name: str
) -> None:
    game = pyspiel.load_game(name)
    info = game_info(game)
    evaluator = make_evaluator(evaluator_name, game)
    limits = Limits(depth=2)
    seen = set()
    for threshold in (0.0, 0.05, 10.0):
        settings = MPMixSettings(
            defensive_threshold=threshold, offensive_threshold=threshold, epsilon=0.1
        )
        for state in random_positions(game, 4, plies=(0, 30), seed=7):
            result = mp_mix(state, evaluator=evaluator, limits=limits, settings=settings)
            values = check_values(evaluator.evaluate(state), evaluator, info)
            assert isinstance(result, MPMixResult)
            assert result.choice == mp_mix_choice(values, state.current_player(), settings)
            direct = _chosen(state, evaluator, limits, settings.epsilon, result.choice)
            assert _timeless(result) == _timeless(direct)
            seen.add(result.choice.strategy)
    assert seen == set(STRATEGIES)


def test_the_bot_plays_the_search_s_moves_and_records_its_choice() -> None:
    game = pyspiel.load_game("chinese_checkers(players=3)")
    evaluator = make_evaluator("heuristic", game)
    params = {"defensive_threshold": 0.02, "offensive_threshold": 0.02, "epsilon": 0.1}
    settings = MPMixSettings(**params)
    for state in random_positions(game, 6, plies=(0, 40), seed=11):
        player = state.current_player()
        bot = load_bot("mp_mix", game, player, depth=2, evaluator="heuristic", **params)
        action = bot.step(state)
        result = mp_mix(state, evaluator=evaluator, limits=Limits(depth=2), settings=settings)
        assert action == result.action
        assert bot.last_result.choice == result.choice
        assert isinstance(bot.last_result, MPMixResult)
        assert _timeless(bot.last_result) == _timeless(result)


def test_mp_mix_refuses_what_it_cannot_search() -> None:
    evaluator = make_evaluator("zero", pyspiel.load_game("tic_tac_toe"))
    state = pyspiel.load_game("tic_tac_toe").new_initial_state()
    with pytest.raises(ValueError, match=r"mp_mix cannot play tic_tac_toe: .*players"):
        mp_mix(state, evaluator=evaluator, limits=Limits(depth=1))
    game = pyspiel.load_game("chinese_checkers(players=3)")
    evaluator = make_evaluator("zero", game)
    state = game.new_initial_state()
    with pytest.raises(ValueError, match="not below the value range"):
        mp_mix(state, evaluator=evaluator, settings=MPMixSettings(epsilon=10.0))
    with pytest.raises(ValueError, match=r"MPMixSettings\.defensive_threshold must be"):
        MPMixSettings(defensive_threshold=-1.0)
    dice = pyspiel.load_game("maedn(players=3)").new_initial_state()
    assert dice.is_chance_node()
    with pytest.raises(ValueError, match="mp_mix needs a decision state"):
        mp_mix(dice, evaluator=make_evaluator("zero", dice.get_game()), limits=Limits(depth=1))


@pytest.mark.parametrize("defensive, strategy", [(0.0, "paranoid"), (9.0, "maxn")])
def test_every_choice_searches_on_the_clock_it_is_given(defensive: float, strategy: str) -> None:
    # Issue 40, item 6: mp_mix (and paranoid) take the clock of the time limit. Each read of
    # this one takes a second, so a 5-second limit stops the search within a few reads. At
    # the first position every player's value is the same: the mover leads by 0.
    game = pyspiel.load_game("chinese_checkers(players=3)")
    now = [0.0]

    def clock() -> float:
        now[0] += 1.0
        return now[0]

    state, evaluator = game.new_initial_state(), make_evaluator("heuristic", game)
    result = mp_mix(
        state,
        evaluator=evaluator,
        limits=Limits(seconds=5.0),
        settings=MPMixSettings(defensive_threshold=defensive, offensive_threshold=9.0),
        clock=clock,
    )
    assert result.choice.strategy == strategy
    assert result.stats.stopped_by == "seconds" and result.stats.nodes < 200
    offensive = directed_offensive(
        state, evaluator=evaluator, limits=Limits(seconds=5.0), target=1, clock=clock
    )
    assert offensive.stats.stopped_by == "seconds" and offensive.stats.nodes < 200
