"""Bounded Star-1 / Star-2: bounds hold against expectiminimax and brute force on chance games."""

from __future__ import annotations

import pyspiel
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from open_spiel.python.algorithms import minimax

from spiel_bounded import oracles, synthetic
from spiel_bounded.games import game_info
from spiel_bounded.limits import Budget, Limits
from spiel_bounded.search.alphabeta import (
    AlphaBetaSettings,
    bounded_ab,
    bounded_star1,
    bounded_star2,
)
from tests.alphabeta_reference import ReferenceEngine
from tests.helpers import HashEvaluator, move_lists, play_random

SEARCHES = {"star1": bounded_star1, "star2": bounded_star2}
TOLERANCE = 1e-9


def _decision_state(state: pyspiel.State, choices: list[int]) -> pyspiel.State | None:
    state = play_random(state, choices)
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    return None if state.is_terminal() else state


def _expectiminimax(state: pyspiel.State, depth: int, evaluator: HashEvaluator) -> float:
    player = state.current_player()
    value, _ = minimax.expectiminimax(
        state, depth, lambda leaf: evaluator.value_for(leaf, player), player
    )
    return float(value)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(min_value=0, max_value=10_000),
    branching=st.integers(min_value=1, max_value=3),
    depth=st.integers(min_value=1, max_value=4),
    limit=st.integers(min_value=1, max_value=5),
    chance=st.sampled_from((0.5, 1.0)),
    outcomes=st.integers(min_value=1, max_value=4),
    epsilon=st.sampled_from((0.0, 0.1, 0.5, 1.5)),
    policy=st.sampled_from(("uniform", "carry")),
    search=st.sampled_from(sorted(SEARCHES)),
    use_tt=st.booleans(),
    transposing=st.integers(min_value=0, max_value=1),
)
def test_bounds_on_synthetic_chance_trees(
    seed: int,
    branching: int,
    depth: int,
    limit: int,
    chance: float,
    outcomes: int,
    epsilon: float,
    policy: str,
    search: str,
    use_tt: bool,
    transposing: int,
) -> None:
    game = synthetic.make_game(
        branching=branching,
        depth=depth,
        seed=seed,
        chance=chance,
        chance_outcomes=outcomes,
        min_value=-2,
        max_value=2,
        transpositions=transposing,
    )
    state = _decision_state(game.new_initial_state(), [seed])
    if state is None:
        return
    evaluator = HashEvaluator(game, seed)
    player = state.current_player()
    exact = oracles.solve_depth_limited(state, limit, evaluator.evaluate)[player]
    result = SEARCHES[search](
        state,
        evaluator=evaluator,
        limits=Limits(depth=limit),
        settings=AlphaBetaSettings(epsilon=epsilon, chance_epsilon=policy, transpositions=use_tt),
    )
    assert result.lower - TOLERANCE <= exact <= result.upper + TOLERANCE
    assert result.upper - result.lower <= epsilon + TOLERANCE
    if limit >= 2 * depth:
        solved = oracles.solve(state)[player]
        assert result.lower - TOLERANCE <= solved <= result.upper + TOLERANCE
    chosen = oracles.solve_depth_limited(state.child(result.action), limit - 1, evaluator.evaluate)[
        player
    ]
    assert chosen >= exact - epsilon - TOLERANCE


PIG = pyspiel.load_game("pig(winscore=20)")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    moves=move_lists(30),
    depth=st.integers(min_value=1, max_value=5),
    epsilon=st.sampled_from((0.0, 0.05, 0.3)),
    policy=st.sampled_from(("uniform", "carry")),
    search=st.sampled_from(sorted(SEARCHES)),
)
def test_bounds_on_pig_against_expectiminimax(
    moves: list[int], depth: int, epsilon: float, policy: str, search: str
) -> None:
    state = _decision_state(PIG.new_initial_state(), moves)
    if state is None:
        return
    evaluator = HashEvaluator(PIG)
    exact = _expectiminimax(state, depth, evaluator)
    result = SEARCHES[search](
        state,
        evaluator=evaluator,
        limits=Limits(depth=depth),
        settings=AlphaBetaSettings(epsilon=epsilon, chance_epsilon=policy),
    )
    assert result.lower - TOLERANCE <= exact <= result.upper + TOLERANCE
    assert result.upper - result.lower <= epsilon + TOLERANCE
    if epsilon == 0:
        assert result.lower == pytest.approx(exact, abs=TOLERANCE)


BACKGAMMON = pyspiel.load_game("backgammon")


@pytest.mark.parametrize("search", sorted(SEARCHES))
@pytest.mark.parametrize("epsilon", [0.0, 0.1])
@pytest.mark.parametrize("seed", [1, 2])
def test_bounds_on_backgammon_at_depth_one(search: str, epsilon: float, seed: int) -> None:
    state = _decision_state(BACKGAMMON.new_initial_state(), [seed * 7919 + k for k in range(9)])
    assert state is not None
    evaluator = HashEvaluator(BACKGAMMON)
    exact = _expectiminimax(state, 1, evaluator)
    result = SEARCHES[search](
        state,
        evaluator=evaluator,
        limits=Limits(depth=1),
        settings=AlphaBetaSettings(epsilon=epsilon),
    )
    assert result.lower - TOLERANCE <= exact <= result.upper + TOLERANCE
    assert result.upper - result.lower <= epsilon + TOLERANCE


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(min_value=0, max_value=10_000),
    limit=st.integers(min_value=1, max_value=6),
    use_tt=st.booleans(),
)
def test_star1_and_star2_agree_at_epsilon_zero(seed: int, limit: int, use_tt: bool) -> None:
    game = synthetic.make_game(branching=3, depth=4, seed=seed, chance=0.5, chance_outcomes=3)
    state = _decision_state(game.new_initial_state(), [])
    if state is None:
        return
    evaluator = HashEvaluator(game, seed)
    options = AlphaBetaSettings(transpositions=use_tt)
    one = bounded_star1(state, evaluator=evaluator, limits=Limits(depth=limit), settings=options)
    two = bounded_star2(state, evaluator=evaluator, limits=Limits(depth=limit), settings=options)
    assert one.lower == pytest.approx(two.lower, abs=TOLERANCE)
    assert one.upper == pytest.approx(two.upper, abs=TOLERANCE)


def test_probing_saves_work_on_backgammon() -> None:
    state = _decision_state(BACKGAMMON.new_initial_state(), [3, 1, 4, 1, 5])
    assert state is not None
    evaluator = HashEvaluator(BACKGAMMON)
    runs = {
        name: search(state, evaluator=evaluator, limits=Limits(depth=2))
        for name, search in SEARCHES.items()
    }
    assert runs["star1"].lower == pytest.approx(runs["star2"].lower, abs=TOLERANCE)
    assert runs["star2"].stats.evaluations < runs["star1"].stats.evaluations


def test_bounded_ab_refuses_chance_games_and_points_to_star() -> None:
    state = _decision_state(PIG.new_initial_state(), [])
    assert state is not None
    with pytest.raises(
        ValueError, match="chance nodes; for games with chance nodes use bounded_star1"
    ):
        bounded_ab(state, evaluator=HashEvaluator(PIG))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"chance_epsilon": "greedy"},
            "chance_epsilon must be one of uniform, carry; got 'greedy'",
        ),
        ({"epsilon": -1}, "epsilon must be a number >= 0"),
        ({"epsilon": True}, "epsilon must be a number >= 0"),
    ],
)
def test_bad_chance_settings(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        AlphaBetaSettings(**kwargs)


def test_chance_root_is_refused() -> None:
    state = BACKGAMMON.new_initial_state()
    assert state.is_chance_node()
    with pytest.raises(ValueError, match="bounded_star2 needs a decision state"):
        bounded_star2(state, evaluator=HashEvaluator(BACKGAMMON))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(min_value=0, max_value=10_000),
    chance=st.sampled_from((0.0, 0.5, 1.0)),
    outcomes=st.integers(min_value=1, max_value=4),
    window=st.tuples(
        st.integers(min_value=-8, max_value=8), st.integers(min_value=-8, max_value=8)
    ),
    epsilon=st.sampled_from((0.0, 0.25, 0.5, 1.0)),
    policy=st.sampled_from(("uniform", "carry")),
    probing=st.booleans(),
    use_tt=st.booleans(),
)
def test_every_node_keeps_the_contract_for_any_window(
    seed: int,
    chance: float,
    outcomes: int,
    window: tuple[int, int],
    epsilon: float,
    policy: str,
    probing: bool,
    use_tt: bool,
) -> None:
    """A node searched with any window, open or closed, returns (lower, upper) with lower <= V <=
    upper and upper <= alpha + eps, or lower >= beta - eps, or upper - lower <= eps. A node is
    only reachable with a window of one's choosing in the readable oracle, which the engine
    matches search for search (`tests/test_equivalence.py`)."""
    game = synthetic.make_game(
        branching=3,
        depth=3,
        seed=seed,
        chance=chance,
        chance_outcomes=outcomes,
        integer_values=1,
        min_value=-2,
        max_value=2,
    )
    root = game.new_initial_state()
    alpha, beta = window[0] / 4, window[1] / 4
    engine = ReferenceEngine(
        game,
        game_info(game),
        root.current_player() if not root.is_chance_node() else 0,
        HashEvaluator(game),
        AlphaBetaSettings(epsilon=epsilon, chance_epsilon=policy, transpositions=use_tt),
        Budget(Limits()),
        probing,
    )
    value = oracles.solve(root)[engine.max_player]
    lower, upper = engine.node(root, 2 * 3, alpha, beta, epsilon, 0)
    assert lower - TOLERANCE <= value <= upper + TOLERANCE
    assert (
        upper <= alpha + epsilon + TOLERANCE
        or lower >= beta - epsilon - TOLERANCE
        or (upper - lower <= epsilon + TOLERANCE)
    )


PIG = pyspiel.load_game("pig(horizon=6,winscore=12)")


@settings(max_examples=15, deadline=None)
@given(choices=move_lists(8), search=st.sampled_from(sorted(SEARCHES)))
def test_transpositions_keep_values_near_the_pig_horizon(choices: list[int], search: str) -> None:
    """pig ends after `horizon` decisions, a counter its string does not show: equal strings
    after different numbers of decisions must not share a table entry (they did with the key
    (player, str(state)))."""
    state = _decision_state(PIG.new_initial_state(), choices)
    if state is None:
        return
    depth = PIG.max_game_length()  # the horizon: the game ends within the depth
    exact = _expectiminimax(state, depth, HashEvaluator(PIG))
    result = SEARCHES[search](state, evaluator=HashEvaluator(PIG), limits=Limits(depth=depth))
    assert result.lower - TOLERANCE <= exact <= result.upper + TOLERANCE
    assert result.upper - result.lower <= TOLERANCE
