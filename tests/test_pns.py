"""Proof-number search (df-pn) and bounded multi-outcome PNS against exact oracles."""

from __future__ import annotations

import functools
from collections.abc import Hashable
from typing import Any

import pyspiel
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from open_spiel.python.algorithms import minimax

from spiel_bounded import load_bot, make_evaluator, synthetic
from spiel_bounded.limits import Limits
from spiel_bounded.native import available
from spiel_bounded.registry import bots_for
from spiel_bounded.search import outcomes as outcomes_module
from spiel_bounded.search.alphabeta import bounded_ab
from spiel_bounded.search.outcomes import terminal_values
from spiel_bounded.search.pns import BoundedPNSSettings, PNSSettings, bounded_pns, pns
from spiel_bounded.testing import random_positions
from tests.helpers import move_lists, play_random

TTT = pyspiel.load_game("tic_tac_toe")
GUARD = Limits(nodes=1_000_000)
"""Far above what any search here needs: a broken search fails (not solved) instead of hanging."""


def ttt(*actions: int) -> pyspiel.State:
    """A tic_tac_toe position after `actions` (cells 0..8, x first)."""
    state = TTT.new_initial_state()
    for action in actions:
        state.apply_action(action)
    return state


def exact(state: pyspiel.State) -> float:
    """The game value for the player to move, by memoised minimax written afresh here: the
    player to move is read at every node (some games give a player two moves in a row)."""
    root_player = state.current_player()
    memo: dict[Hashable, float] = {}

    def value(node: pyspiel.State) -> float:
        if node.is_terminal():
            return float(node.player_return(root_player))
        key = (node.current_player(), node.move_number(), str(node))
        if key not in memo:
            values = [value(node.child(a)) for a in node.legal_actions()]
            memo[key] = max(values) if node.current_player() == root_player else min(values)
        return memo[key]

    return value(state)


def openspiel_value(state: pyspiel.State) -> float:
    value, _ = minimax.alpha_beta_search(
        state.get_game(), state, maximizing_player_id=state.current_player()
    )
    return float(value)


def child_value(state: pyspiel.State, action: int) -> float:
    """The exact value of `action` for the player to move at `state`."""
    player = state.current_player()
    child = state.child(action)
    if child.is_terminal():
        return float(child.player_return(player))
    value = exact(child)
    return value if child.current_player() == player else -value


def check_pns(state: pyspiel.State, value: float, guard: Limits = GUARD, **extra: Any) -> None:
    """pns on both goals agrees with `value` and claims only what is proved."""
    for goal, holds in (("win", value > 0), ("draw", value >= 0)):
        result = pns(state, limits=guard, settings=PNSSettings(goal=goal, **extra))
        assert result.stats.stopped_by == "solved" and result.bounds_game_value
        assert result.lower <= value <= result.upper
        threshold_met = result.lower > 0 if goal == "win" else result.lower >= 0
        assert threshold_met == holds, (goal, value, result.interval)
        if holds:  # the proving move reaches the goal
            reached = child_value(state, result.action)
            assert reached > 0 if goal == "win" else reached >= 0
        for action, bounds in result.children.items():
            assert bounds.lower <= child_value(state, action) <= bounds.upper


def check_bounded(
    state: pyspiel.State, value: float, epsilon: float, guard: Limits = GUARD, **extra: Any
) -> None:
    """bounded_pns: the interval holds the value, is at most epsilon wide, and the move is
    epsilon-optimal."""
    settings_ = BoundedPNSSettings(epsilon=epsilon, **extra)
    result = bounded_pns(state, limits=guard, settings=settings_)
    assert result.stats.stopped_by == "solved" and result.bounds_game_value
    assert result.lower <= value <= result.upper
    assert result.upper - result.lower <= epsilon
    assert child_value(state, result.action) >= value - epsilon
    for action, bounds in result.children.items():
        assert bounds.lower <= child_value(state, action) <= bounds.upper


# -- known answers -----------------------------------------------------------------------------


def test_tic_tac_toe_is_a_draw() -> None:
    root = TTT.new_initial_state()
    exact_result = bounded_pns(root, limits=GUARD)
    assert (exact_result.lower, exact_result.upper) == (0.0, 0.0)
    assert child_value(root, exact_result.action) == 0.0
    win = pns(root, limits=GUARD)
    assert win.stats.stopped_by == "solved" and win.upper <= 0.0  # no win: disproved
    draw = pns(root, limits=GUARD, settings=PNSSettings(goal="draw"))
    assert draw.stats.stopped_by == "solved" and draw.lower >= 0.0  # at least a draw: proved
    assert child_value(root, draw.action) == 0.0


def test_won_and_lost_positions() -> None:
    won = ttt(0, 3, 1, 4)  # x: 0 1, o: 3 4, x to move
    result = pns(won, limits=GUARD)
    assert result.stats.stopped_by == "solved" and result.lower == 1.0 and result.action == 2
    assert bounded_pns(won, limits=GUARD).interval == (1.0, 1.0)
    # x 0 4 6 against o 1 8: two threats, o to move is lost.
    lost = ttt(0, 1, 4, 8, 6)
    for result in (
        pns(lost, limits=GUARD),
        pns(lost, limits=GUARD, settings=PNSSettings(goal="draw")),
    ):
        assert result.stats.stopped_by == "solved" and result.upper == -1.0
    assert bounded_pns(lost, limits=GUARD).interval == (-1.0, -1.0)


# -- agreement with OpenSpiel's alpha-beta and with bounded_ab ---------------------------------


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(moves=move_lists(7), epsilon=st.sampled_from((0.0, 0.5, 1.0, 1.5)))
def test_tic_tac_toe_agrees_with_openspiel(moves: list[int], epsilon: float) -> None:
    state = play_random(TTT.new_initial_state(), moves)
    if state.is_terminal():
        return
    value = openspiel_value(state)
    check_pns(state, value)
    check_bounded(state, value, epsilon)


@pytest.mark.parametrize(
    ("game_string", "plies", "count", "oracle"),
    [
        ("connect_four", (28, 34), 4, "openspiel"),
        ("breakthrough(rows=5,columns=5)", (6, 10), 3, "bounded_ab"),
        ("hex(board_size=4)", (6, 9), 3, "bounded_ab"),
        ("clobber(rows=3,columns=4)", (0, 3), 3, "openspiel"),
        ("clobber(rows=4,columns=4)", (3, 5), 2, "bounded_ab"),
    ],
)
def test_small_boards_agree_with_the_oracles(
    game_string: str, plies: tuple[int, int], count: int, oracle: str
) -> None:
    game = pyspiel.load_game(game_string)
    for state in random_positions(game, count, plies=plies, seed=17):
        if oracle == "openspiel":
            value = openspiel_value(state)
        else:
            result = bounded_ab(state, evaluator=make_evaluator("zero", game))
            assert result.stats.stopped_by == "solved" and result.lower == result.upper
            value = result.lower
        for goal in ("win", "draw"):
            answer = pns(state, limits=GUARD, settings=PNSSettings(goal=goal))
            assert answer.stats.stopped_by == "solved" and answer.lower <= value <= answer.upper
            assert (answer.lower > 0 if goal == "win" else answer.lower >= 0) == (
                value > 0 if goal == "win" else value >= 0
            )
        bounded = bounded_pns(state, limits=GUARD)
        assert bounded.stats.stopped_by == "solved", state
        assert bounded.interval == (value, value), (state, bounded.interval)


def test_a_player_moving_twice_is_handled() -> None:
    """dots_and_boxes gives a player who completes a box another move: the searches must read
    the player to move at every node, not assume that players alternate."""
    game = pyspiel.load_game("dots_and_boxes(num_rows=2,num_cols=2)")
    repeated = 0
    for state in random_positions(game, 6, plies=(3, 7), seed=5):
        value = exact(state)
        assert value == openspiel_value(state)
        check_pns(state, value)
        check_bounded(state, value, 0.0)
        repeated += any(
            not state.child(a).is_terminal()
            and state.child(a).current_player() == state.current_player()
            for a in state.legal_actions()
        )
    assert repeated > 0  # the positions do exercise a second move in a row


# -- synthetic trees with few distinct values --------------------------------------------------


@functools.cache
def tree(branching: int, depth: int, seed: int, high: int, transpositions: int) -> pyspiel.Game:
    return synthetic.make_game(
        branching=branching,
        depth=depth,
        seed=seed,
        integer_values=1,
        min_value=-high,
        max_value=high,
        transpositions=transpositions,
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    branching=st.integers(min_value=1, max_value=4),
    depth=st.integers(min_value=1, max_value=6),
    seed=st.integers(min_value=0, max_value=10_000),
    high=st.integers(min_value=1, max_value=3),
    transpositions=st.sampled_from((0, 1)),
    epsilon=st.sampled_from((0.0, 0.5, 1.0, 2.0, 3.0)),
    capacity=st.sampled_from((1, 3, 2_000_000)),
)
def test_synthetic_trees_epsilon_guarantee(
    branching: int,
    depth: int,
    seed: int,
    high: int,
    transpositions: int,
    epsilon: float,
    capacity: int,
) -> None:
    game = tree(branching, depth, seed, high, transpositions)
    assert terminal_values(game) == tuple(float(v) for v in range(-high, high + 1))
    root = game.new_initial_state()
    value = exact(root)
    guard = Limits(nodes=100_000)  # a few thousand nodes at most when correct
    if epsilon >= 2 * high:  # as wide as the value range: refused
        with pytest.raises(ValueError, match="not below the value range"):
            bounded_pns(root, settings=BoundedPNSSettings(epsilon=epsilon))
    else:
        check_bounded(root, value, epsilon, guard, tt_capacity=capacity)
    check_pns(root, value, guard, tt_capacity=capacity)


@pytest.mark.parametrize(
    "root",
    [TTT.new_initial_state(), tree(3, 6, 7, 1, 1).new_initial_state()],
    ids=["tic_tac_toe", "tree"],
)
def test_exact_search_reuses_proofs_across_thresholds(root: pyspiel.State) -> None:
    """On a drawn win / draw / loss position the exact value takes two thresholds, "value >= 0"
    then "value >= 1"; they share one table, so together they cost less than the two plain PNS
    runs that ask the same questions each from scratch (`pns` with goal "draw", then "win")."""
    shared = bounded_pns(root, limits=GUARD)
    assert shared.interval == (0.0, 0.0)
    separate = 0
    for goal in ("draw", "win"):
        plain = pns(root, limits=GUARD, settings=PNSSettings(goal=goal))
        assert plain.stats.stopped_by == "solved" and plain.stats.nodes is not None
        separate += plain.stats.nodes
    assert shared.stats.nodes is not None and shared.stats.nodes < separate


# -- limits and the memory cap -----------------------------------------------------------------


def test_node_limit_gives_an_estimate_not_a_proof() -> None:
    root = TTT.new_initial_state()
    result = pns(root, limits=Limits(nodes=60))
    assert result.stats.stopped_by == "nodes" and result.bounds_game_value  # bounds proved so far
    assert result.stats.nodes == 60
    assert result.lower <= 0.0 <= result.upper and (result.lower, result.upper) != (0.0, 0.0)
    assert result.action in root.legal_actions()
    bounded = bounded_pns(root, limits=Limits(nodes=60))
    assert bounded.stats.stopped_by == "nodes" and bounded.upper - bounded.lower > 0
    assert bounded.lower <= 0.0 <= bounded.upper  # still proven bounds
    for action, bounds in bounded.children.items():
        assert bounds.lower <= child_value(root, action) <= bounds.upper


def test_time_limit_with_a_fake_clock() -> None:
    now = [0.0]

    def clock() -> float:  # every read takes a millisecond
        now[0] += 0.001
        return now[0]

    result = pns(TTT.new_initial_state(), limits=Limits(seconds=0.02), clock=clock)
    assert result.stats.stopped_by == "seconds" and result.bounds_game_value  # bounds proved so far
    bounded = bounded_pns(TTT.new_initial_state(), limits=Limits(seconds=0.02), clock=clock)
    assert bounded.stats.stopped_by == "seconds" and bounded.lower <= 0.0 <= bounded.upper


def test_tiny_memory_cap_is_still_exact_and_costs_reexpansions() -> None:
    state = ttt(4)
    roomy = bounded_pns(state, limits=GUARD)
    tiny = bounded_pns(state, limits=GUARD, settings=BoundedPNSSettings(tt_capacity=4))
    assert tiny.interval == roomy.interval == (0.0, 0.0)
    assert tiny.stats.nodes is not None and roomy.stats.nodes is not None
    assert tiny.stats.nodes > roomy.stats.nodes
    for goal in ("win", "draw"):
        small = pns(state, limits=GUARD, settings=PNSSettings(goal=goal, tt_capacity=2))
        assert small.stats.stopped_by == "solved" and small.lower <= 0.0 <= small.upper


def test_transpositions_off_gives_the_same_answers() -> None:
    for state in random_positions(TTT, 5, plies=(1, 5), seed=2):
        value = openspiel_value(state)
        check_pns(state, value, transpositions=False)
        check_bounded(state, value, 0.0, transpositions=False)


# -- bots --------------------------------------------------------------------------------------


def test_pns_bot_plays_the_proved_win() -> None:
    won = ttt(0, 3, 1, 4)
    bot = load_bot("pns", "tic_tac_toe", 0, nodes=10_000)
    assert bot.step(won) == 2
    assert bot.last_result is not None and bot.last_result.stats.stopped_by == "solved"


@pytest.mark.parametrize("engine", ["python", "native"])
def test_a_pns_bot_that_finds_no_win_still_plays_a_drawing_move(engine: str) -> None:
    # Issue 40, item 9: with goal "win" a disproved win used to leave every move tied, and the
    # first one was played, a lost one more often than not.
    if engine == "native" and not available():
        pytest.skip("the native engine is not built")
    bots = [load_bot("pns", "tic_tac_toe", p, nodes=100_000, engine=engine) for p in (0, 1)]
    for state in random_positions(TTT, 12, plies=(0, 6), seed=4):
        action = bots[state.current_player()].step(state)
        assert child_value(state, action) == exact(state), (state.history(), action)


@pytest.mark.parametrize("opponent", ["bounded_pns", "pns", "bounded_ab"])
def test_pns_as_the_second_player_draws_tic_tac_toe(opponent: str) -> None:
    bots = [load_bot(opponent, "tic_tac_toe", 0), load_bot("pns", "tic_tac_toe", 1)]
    state = TTT.new_initial_state()
    while not state.is_terminal():
        state.apply_action(bots[state.current_player()].step(state))
    assert state.returns() == [0.0, 0.0], state.history()


def test_bounded_pns_bot_plays_optimal_moves() -> None:
    bots = [load_bot("bounded_pns", "tic_tac_toe", p, nodes=100_000) for p in (0, 1)]
    for state in random_positions(TTT, 6, plies=(0, 6), seed=9):
        action = bots[state.current_player()].step(state)
        assert child_value(state, action) == exact(state)


def test_bots_for_lists_the_proof_number_bots() -> None:
    assert {"pns", "bounded_pns"} <= set(bots_for("connect_four"))
    assert "bounded_pns" not in bots_for("bounded_random_tree(branching=2,depth=3)")
    assert "pns" in bots_for("bounded_random_tree(branching=2,depth=3)")
    assert "bounded_pns" in bots_for("bounded_random_tree(branching=2,depth=3,integer_values=1)")
    assert "bounded_pns" not in bots_for("dots_and_boxes(utility_margin=true)")


# -- bad input ---------------------------------------------------------------------------------


@pytest.mark.parametrize("search", [pns, bounded_pns])
@pytest.mark.parametrize(
    ("game_string", "message"),
    [
        ("pig", "chance nodes"),
        ("bounded_random_tree(branching=2,depth=3,players=3,integer_values=1)", "3 players"),
    ],
)
def test_unsupported_games_are_refused(search: object, game_string: str, message: str) -> None:
    state = pyspiel.load_game(game_string).new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    with pytest.raises(ValueError, match=message):
        search(state)  # type: ignore[operator]


def test_unknown_terminal_values_are_refused() -> None:
    for game_string in (
        "bounded_random_tree(branching=2,depth=3)",  # float values
        "bounded_random_tree(branching=2,depth=3,integer_values=1,min_value=-100.0,"
        "max_value=100.0)",  # too many
        "dots_and_boxes(num_rows=1,num_cols=2,utility_margin=true)",  # a score margin
    ):
        state = pyspiel.load_game(game_string).new_initial_state()
        with pytest.raises(ValueError, match="terminal values is not known"):
            bounded_pns(state, limits=GUARD)
        assert pns(state, limits=GUARD).stats.stopped_by == "solved"  # pns needs no outcome set
        with pytest.raises(ValueError, match="terminal values is not known"):
            load_bot("bounded_pns", game_string, 0)


def test_a_terminal_value_outside_the_declared_set_raises(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(outcomes_module, "TERMINAL_VALUES", {"tic_tac_toe": (-1.0, 0.5, 1.0)})
    with pytest.raises(ValueError, match="not in its declared set"):
        bounded_pns(TTT.new_initial_state(), limits=GUARD)


def test_bad_settings_limits_and_states_are_refused() -> None:
    root = TTT.new_initial_state()
    with pytest.raises(ValueError, match="goal"):
        PNSSettings(goal="lose")
    with pytest.raises(ValueError, match="epsilon"):
        BoundedPNSSettings(epsilon=-1.0)
    with pytest.raises(ValueError, match="tt_capacity"):
        PNSSettings(tt_capacity=0)
    with pytest.raises(ValueError, match="no depth limit"):
        pns(root, limits=Limits(depth=3))
    with pytest.raises(ValueError, match="no depth limit"):
        bounded_pns(root, limits=Limits(depth=3))
    terminal = ttt(0, 3, 1, 4, 2)
    assert terminal.is_terminal()
    with pytest.raises(ValueError, match="decision state"):
        pns(terminal, limits=GUARD)
    with pytest.raises(ValueError, match="unknown parameter"):
        load_bot("pns", "tic_tac_toe", 0, epsilon=0.5)
    with pytest.raises(ValueError, match="unknown parameter"):
        load_bot("bounded_pns", "tic_tac_toe", 0, depth=3)
