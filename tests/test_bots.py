"""SearchBot and the move-choice policies."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import evaluate_bots as python_evaluate_bots

from spiel_bounded import load_bot
from spiel_bounded.bots import POLICIES, SearchBot, choose_action
from spiel_bounded.result import GAME_VALUE, Interval, SearchResult
from spiel_bounded.testing import random_positions

MOVER_POLICIES = ("auto", *POLICIES)


def _result(children: dict[int, Interval], visits: dict[int, int] | None = None) -> SearchResult:
    return SearchResult(
        action=min(children),
        lower=0.0,
        upper=0.0,
        children=children,
        visits=visits or {},
        bounds_on=GAME_VALUE,
    )


def test_policies_pick_from_the_root_intervals() -> None:
    children = {0: Interval(0.2, 0.3), 1: Interval(0.1, 0.9), 2: Interval(-0.5, 0.8)}
    rng = np.random.default_rng(0)
    assert choose_action(_result(children), "pessimistic", rng) == 0
    assert choose_action(_result(children), "optimistic", rng) == 1
    assert choose_action(_result(children), "average", rng) == 1


def test_ties_are_broken_by_the_seed() -> None:
    children = {a: Interval(0.0, 1.0) for a in range(6)}

    def picks(seed: int) -> list[int]:
        rng = np.random.default_rng(seed)
        return [choose_action(_result(children), "pessimistic", rng) for _ in range(8)]

    assert picks(1) == picks(1)
    assert len({tuple(picks(seed)) for seed in range(4)}) > 1
    assert set(picks(2)) <= set(children)


def test_bot_records_its_last_result_and_offers_a_policy() -> None:
    game = pyspiel.load_game("tic_tac_toe")
    bot = load_bot("bounded_ab", game, 0, depth=3)
    state = game.new_initial_state()
    policy, action = bot.step_with_policy(state)
    assert policy == [(action, 1.0)]
    assert bot.last_result is not None
    assert bot.last_result.stats.depth == 3
    bot.restart_at(state)
    assert bot.last_result is None


def test_plays_under_the_python_driver() -> None:
    game = pyspiel.load_game("tic_tac_toe")
    bots = [
        load_bot("bounded_ab", game, 0, depth=9),
        load_bot("python_mcts", game, 1, simulations=20, seed=3),
    ]
    returns = python_evaluate_bots.evaluate_bots(
        game.new_initial_state(), bots, np.random.RandomState(0)
    )
    assert returns[0] >= 0  # a perfect player never loses tic_tac_toe


@pytest.mark.parametrize("epsilon", [0.0, 0.5])
def test_pessimistic_play_draws_against_itself(epsilon: float) -> None:
    # Below epsilon 1 an epsilon-optimal move in tic_tac_toe is an optimal one.
    game = pyspiel.load_game("tic_tac_toe")
    bots = [load_bot("bounded_ab", game, p, epsilon=epsilon, seed=p) for p in range(2)]
    assert pyspiel.evaluate_bots(game.new_initial_state(), bots, 0) == [0.0, 0.0]


@pytest.mark.parametrize(
    ("policy", "children", "expected"),
    [
        # Lower bounds tie at 0: the better upper bound wins.
        ("pessimistic", {0: Interval(0.0, 0.2), 1: Interval(0.0, 0.5), 2: Interval(-1, 1)}, 1),
        # Upper bounds tie at 0.5: the better lower bound wins (the issue's [-1, 0] vs [0, 0]).
        ("optimistic", {0: Interval(-1.0, 0.5), 1: Interval(0.5, 0.5), 2: Interval(0.2, 0.5)}, 1),
        # Midpoints tie at 0.25: the better lower bound wins.
        ("average", {0: Interval(0.25, 0.25), 1: Interval(-0.5, 1.0), 2: Interval(0.0, 0.5)}, 0),
    ],
)
def test_ties_go_to_the_other_bound(
    policy: str, children: dict[int, Interval], expected: int
) -> None:
    for seed in range(8):
        assert choose_action(_result(children), policy, np.random.default_rng(seed)) == expected


@pytest.mark.parametrize("policy", POLICIES)
def test_equal_bounds_go_to_the_most_visited_child(policy: str) -> None:
    # An unproved MCTS root: every child still spans the whole range.
    children = {a: Interval(-1.0, 1.0) for a in range(7)}
    visits = {0: 3, 1: 10, 2: 40, 3: 12, 4: 5, 5: 40, 6: 1}
    picks = {
        choose_action(_result(children, visits), policy, np.random.default_rng(seed))
        for seed in range(16)
    }
    assert picks == {2, 5}


def _exact_values() -> dict[str, float]:
    """Game values of every reachable tic_tac_toe position, for the player to move."""
    memo: dict[str, float] = {}

    def solve(state: pyspiel.State) -> float:
        key = str(state)
        if key not in memo:
            if state.is_terminal():
                memo[key] = 0.0  # never read: terminal children are valued from returns
            else:
                player = state.current_player()
                memo[key] = max(_child_value(state.child(a), player) for a in state.legal_actions())
        return memo[key]

    def _child_value(child: pyspiel.State, player: int) -> float:
        if child.is_terminal():
            return child.returns()[player]
        return -solve(child)

    solve(pyspiel.load_game("tic_tac_toe").new_initial_state())
    return memo


_TTT_VALUES = _exact_values()


def _move_value(state: pyspiel.State, action: int) -> float:
    child = state.child(action)
    if child.is_terminal():
        return child.returns()[state.current_player()]
    return -_TTT_VALUES[str(child)]


def _positions(count: int) -> list[pyspiel.State]:
    return random_positions(pyspiel.load_game("tic_tac_toe"), count, plies=(0, 6), seed=11)


def test_the_centre_opening_is_answered_with_a_corner_under_every_policy() -> None:
    game = pyspiel.load_game("tic_tac_toe")
    state = game.new_initial_state()
    state.apply_action(4)
    for policy in POLICIES:
        for seed in range(6):
            bot = load_bot("bounded_ab", game, 1, policy=policy, seed=seed, depth=9)
            assert bot.step(state) in (0, 2, 6, 8), (policy, seed)


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("epsilon", [0.0, 0.5, 1.5])
def test_no_policy_plays_a_move_proved_worse(policy: str, epsilon: float) -> None:
    game = pyspiel.load_game("tic_tac_toe")
    for index, state in enumerate(_positions(25)):
        player = state.current_player()
        bot = load_bot(
            "bounded_ab", game, player, policy=policy, epsilon=epsilon, depth=9, seed=index
        )
        action = bot.step(state)
        result = bot.last_result
        assert result is not None and result.stats.stopped_by == "solved"
        chosen = result.children[action]
        assert all(chosen.upper >= other.lower for other in result.children.values())
        if epsilon == 0.0:
            assert _move_value(state, action) == _TTT_VALUES[str(state)], (policy, str(state))
        if epsilon < 1.0 and policy == "pessimistic":
            # Epsilon below the gap between tic_tac_toe's returns: still an optimal move.
            assert _move_value(state, action) == _TTT_VALUES[str(state)]


@pytest.mark.parametrize("policy", MOVER_POLICIES)
def test_babmcts_plays_optimal_moves_once_it_has_proved_the_root(policy: str) -> None:
    game = pyspiel.load_game("tic_tac_toe")
    for index, state in enumerate(_positions(10)):
        if len(state.history()) < 2:
            continue  # the opening takes too many simulations to prove in a unit test
        bot = load_bot(
            "babmcts",
            game,
            state.current_player(),
            policy=policy,
            seed=index,
            simulations=None,
            nodes=200_000,
        )
        action = bot.step(state)
        assert bot.last_result is not None and bot.last_result.stats.stopped_by == "solved"
        assert _move_value(state, action) == _TTT_VALUES[str(state)], (policy, str(state))


@pytest.mark.parametrize("policy", POLICIES)
def test_babmcts_bound_policies_follow_visits_while_the_root_is_open(policy: str) -> None:
    game = pyspiel.load_game("connect_four")
    bot = load_bot("babmcts", game, 0, policy=policy, simulations=300, seed=4)
    action = bot.step(game.new_initial_state())
    result = bot.last_result
    assert result is not None and result.stats.stopped_by == "simulations"
    open_children = [a for a, bounds in result.children.items() if bounds == Interval(-1, 1)]
    assert len(open_children) == len(result.children) == 7
    assert result.visits[action] == max(result.visits.values())


@pytest.mark.parametrize(
    ("name", "policy"),
    [("bounded_ab", policy) for policy in POLICIES]
    + [("babmcts", policy) for policy in MOVER_POLICIES],
)
def test_last_result_describes_the_move_played(name: str, policy: str) -> None:
    game = pyspiel.load_game("tic_tac_toe")
    limits = {"depth": 2} if name == "bounded_ab" else {"simulations": 30}
    bots = [load_bot(name, game, p, policy=policy, seed=p, **limits) for p in range(2)]
    state = game.new_initial_state()
    while not state.is_terminal():
        bot = bots[state.current_player()]
        action = bot.step(state)
        assert bot.last_result is not None
        assert bot.last_result.action == action
        assert bot.last_result.pv[0] == action
        assert action in bot.last_result.children
        state.apply_action(action)


def test_an_unknown_policy_is_refused_naming_the_accepted_ones() -> None:
    game = pyspiel.load_game("tic_tac_toe")
    with pytest.raises(ValueError, match="unknown policy 'bold'; accepted: pessimistic, optim"):
        SearchBot(game, 0, lambda state: None, policy="bold")  # type: ignore[arg-type,return-value]
