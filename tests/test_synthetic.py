"""Tests for `spiel_bounded.synthetic`: the seeded random game trees and their exact solvers."""

from __future__ import annotations

import math
import random
import subprocess
import sys
import zlib
from collections import defaultdict
from collections.abc import Iterator, Sequence
from typing import Any, NoReturn

import numpy as np
import pyspiel
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from open_spiel.python.algorithms import minimax

from spiel_bounded import synthetic
from spiel_bounded.oracles import action_values, optimal_actions, solve, solve_depth_limited
from spiel_bounded.synthetic import SHORT_NAME, make_game

_Type = pyspiel.GameType
_FAST = settings(max_examples=40, deadline=None)
seeds = st.integers(min_value=-(2**31), max_value=2**31 - 1)


def walk(state: Any) -> Iterator[Any]:
    """Every node of the subtree below `state` (depth first, actions in order)."""
    yield state
    if state.is_terminal():
        return
    if state.is_chance_node():
        actions = [outcome for outcome, _ in state.chance_outcomes()]
    else:
        actions = state.legal_actions()
    for action in actions:
        yield from walk(state.child(action))


def fingerprint(game: Any) -> list[tuple[Any, ...]]:
    """Everything observable about a tree, node by node."""
    rows: list[tuple[Any, ...]] = []
    for state in walk(game.new_initial_state()):
        outcomes = state.chance_outcomes() if state.is_chance_node() else []
        rows.append(
            (str(state), state.current_player(), state.legal_actions(), outcomes, state.returns())
        )
    return rows


def hash_evaluator(num_players: int) -> Any:
    """A deterministic, arbitrary evaluator (a hash of the node string) for depth limits."""

    def evaluate(state: Any) -> list[float]:
        draw = random.Random(zlib.crc32(str(state).encode()))
        x = draw.random() * 2.0 - 1.0
        if num_players == 2:
            return [x, -x]
        return [draw.random() for _ in range(num_players)]

    return evaluate


# --------------------------------------------------------------------------------- the game ---


def test_load_game_with_parameters() -> None:
    game = pyspiel.load_game(f"{SHORT_NAME}(branching=3,depth=6,seed=7)")
    assert isinstance(game, synthetic.SyntheticGame)
    assert game.num_players() == 2
    assert game.num_distinct_actions() == 3
    assert game.max_game_length() == 6
    assert game.max_chance_outcomes() == 0
    assert (game.min_utility(), game.max_utility()) == (-1.0, 1.0)
    game_type = game.get_type()
    assert game_type.chance_mode == _Type.ChanceMode.DETERMINISTIC
    assert game_type.utility == _Type.Utility.ZERO_SUM
    assert game_type.information == _Type.Information.PERFECT_INFORMATION
    assert game_type.dynamics == _Type.Dynamics.SEQUENTIAL
    assert game_type.reward_model == _Type.RewardModel.TERMINAL
    assert game.get_parameters()["seed"] == 7
    # The game string round-trips.
    assert str(pyspiel.load_game(str(game))) == str(game)


def test_defaults_load_by_name() -> None:
    game = pyspiel.load_game(SHORT_NAME)
    assert game.get_parameters() == synthetic.DEFAULT_PARAMETERS
    assert len(list(walk(game.new_initial_state()))) == sum(3**i for i in range(5))


def test_game_type_follows_parameters() -> None:
    game = make_game(
        players=3, chance=0.5, chance_outcomes=4, zero_sum=0, min_value=0, max_value=10, depth=5
    )
    assert game.num_players() == 3
    assert game.get_type().chance_mode == _Type.ChanceMode.EXPLICIT_STOCHASTIC
    assert game.get_type().utility == _Type.Utility.GENERAL_SUM
    assert game.max_chance_outcomes() == 4
    assert game.max_game_length() == 10
    assert (game.min_utility(), game.max_utility()) == (0.0, 10.0)


def test_registering_twice_is_harmless() -> None:
    # In a fresh interpreter: reloading here would replace the classes other tests use.
    code = (
        "import importlib, pyspiel, spiel_bounded.synthetic as s; importlib.reload(s); "
        f"print(pyspiel.load_game('{SHORT_NAME}(depth=2)').num_players())"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert result.stdout.strip() == "2"


def test_make_game_accepts_ints_for_float_parameters() -> None:
    game = make_game(chance=1, min_value=-3, max_value=3)
    assert game.get_parameters()["chance"] == 1.0
    assert str(game) == str(pyspiel.load_game(str(game)))


def test_players_move_in_turn_and_strings_identify_nodes() -> None:
    game = make_game(branching=2, depth=5, players=3, chance=0.5, seed=3)
    strings = set()
    for state in walk(game.new_initial_state()):
        text = str(state)
        assert text not in strings, "path strings must be unique without transpositions"
        strings.add(text)
        for player in range(3):
            assert state.information_state_string(player) == text
            assert state.observation_string(player) == text
        if not (state.is_terminal() or state.is_chance_node()):
            assert state.current_player() == state.ply % 3
    assert len(strings) > 2**5


def test_partial_chance_places_chance_nodes_on_some_plies_only() -> None:
    game = make_game(branching=3, depth=5, chance=0.5, seed=11)
    decision_after_chance = decision_without_chance = 0
    for state in walk(game.new_initial_state()):
        if state.is_terminal() or state.is_chance_node():
            continue
        if str(state).rsplit(" ", 1)[-1].startswith("c"):
            decision_after_chance += 1
        else:
            decision_without_chance += 1
    assert decision_after_chance > 10
    assert decision_without_chance > 10


def test_clone_is_independent() -> None:
    state = make_game(depth=3).new_initial_state()
    clone = state.clone()
    clone.apply_action(2)
    assert str(state) == "path:"
    assert str(clone) == "path: 2"
    assert clone.history() == [2]


@_FAST
@given(seed=seeds)
def test_same_seed_same_tree(seed: int) -> None:
    text = f"{SHORT_NAME}(branching=2,depth=4,players=3,chance=0.5,seed={seed},transpositions=0)"
    assert fingerprint(pyspiel.load_game(text)) == fingerprint(pyspiel.load_game(text))


def test_different_seeds_differ() -> None:
    prints = [fingerprint(make_game(branching=2, depth=4, chance=0.5, seed=s)) for s in range(8)]
    leaves = [tuple(tuple(row[4]) for row in p) for p in prints]
    assert len(set(leaves)) == len(leaves)
    # The chance-node placement differs too.
    assert len({tuple(row[0] for row in p) for p in prints}) > 1


@settings(max_examples=60, deadline=None)
@given(
    seed=seeds,
    players=st.integers(min_value=2, max_value=4),
    zero_sum=st.booleans(),
    integer_values=st.booleans(),
    chance=st.sampled_from([0.0, 0.5, 1.0]),
    scale=st.sampled_from([1.0, 2.5, 7.0]),
)
def test_returns_in_range(
    seed: int, players: int, zero_sum: bool, integer_values: bool, chance: float, scale: float
) -> None:
    low, high = (-scale, scale) if zero_sum else (-scale / 2, scale)
    game = make_game(
        branching=2,
        depth=players + 1,
        seed=seed,
        players=players,
        chance=chance,
        chance_outcomes=3,
        min_value=low,
        max_value=high,
        zero_sum=int(zero_sum),
        integer_values=int(integer_values),
    )
    leaves = 0
    for state in walk(game.new_initial_state()):
        returns = state.returns()
        assert len(returns) == players
        if not state.is_terminal():
            assert returns == [0.0] * players
            continue
        leaves += 1
        assert all(low <= r <= high for r in returns), returns
        if integer_values:
            assert all(float(r).is_integer() for r in returns), returns
        if zero_sum:
            assert sum(returns) == pytest.approx(0.0, abs=1e-12)
            if players == 2:
                assert returns[1] == -returns[0]
    assert leaves >= 2 ** (players + 1)


def test_general_sum_values_are_independent() -> None:
    game = make_game(branching=3, depth=4, zero_sum=0, min_value=0, max_value=1)
    sums = {round(sum(s.returns()), 9) for s in walk(game.new_initial_state()) if s.is_terminal()}
    assert len(sums) > 50


def test_integer_values_tie_often() -> None:
    game = make_game(branching=3, depth=5, integer_values=1, min_value=-2, max_value=2)
    values = [s.returns()[0] for s in walk(game.new_initial_state()) if s.is_terminal()]
    assert set(values) == {-2.0, -1.0, 0.0, 1.0, 2.0}


@_FAST
@given(seed=seeds, outcomes=st.integers(min_value=1, max_value=7))
def test_chance_probabilities(seed: int, outcomes: int) -> None:
    game = make_game(branching=2, depth=3, chance=1.0, chance_outcomes=outcomes, seed=seed)
    chance_nodes = 0
    for state in walk(game.new_initial_state()):
        if not state.is_chance_node():
            continue
        chance_nodes += 1
        distribution = state.chance_outcomes()
        assert [o for o, _ in distribution] == list(range(outcomes))
        assert state.legal_actions() == list(range(outcomes))
        probabilities = [p for _, p in distribution]
        assert all(p > 0 for p in probabilities)
        assert sum(probabilities) == 1.0  # exactly, in any order
        assert sum(reversed(probabilities)) == 1.0
        assert math.fsum(probabilities) == 1.0
    assert chance_nodes == 1 + 2 * outcomes + 4 * outcomes**2


def test_chance_probabilities_are_not_uniform() -> None:
    state = make_game(chance=1.0, chance_outcomes=5).new_initial_state()
    probabilities = [p for _, p in state.chance_outcomes()]
    assert len(set(probabilities)) > 1


# ------------------------------------------------------------------------------ transpositions ---


def test_transpositions_repeat_positions_with_identical_subtrees() -> None:
    game = make_game(branching=3, depth=5, chance=0.5, transpositions=1, seed=5)
    paths: dict[str, set[tuple[int, ...]]] = defaultdict(set)
    nodes: dict[str, tuple[Any, ...]] = {}
    for state in walk(game.new_initial_state()):
        text = str(state)
        paths[text].add(tuple(state.history()))
        outcomes = state.chance_outcomes() if state.is_chance_node() else []
        row = (state.current_player(), state.legal_actions(), outcomes, state.returns())
        assert nodes.setdefault(text, row) == row
    repeated = [text for text, histories in paths.items() if len(histories) > 1]
    assert len(repeated) > 20
    # Equal strings: equal solved values (solved separately from each path).
    for text in repeated[:40]:
        values = set()
        for history in sorted(paths[text])[:3]:
            state = game.new_initial_state()
            for action in history:
                state.apply_action(action)
            values.add(tuple(solve(state)))
        assert len(values) == 1, text


@_FAST
@given(seed=seeds, players=st.integers(min_value=2, max_value=3))
def test_solve_with_transpositions_matches_unmemoised_search(seed: int, players: int) -> None:
    game = make_game(branching=3, depth=4, players=players, chance=0.5, transpositions=1, seed=seed)
    root = game.new_initial_state()
    np.testing.assert_array_equal(solve(root), solve(root, memoise=False))


# ---------------------------------------------------------------------------------- oracles ---


@settings(max_examples=80, deadline=None)
@given(
    seed=seeds,
    branching=st.integers(min_value=1, max_value=4),
    depth=st.integers(min_value=1, max_value=5),
    integer_values=st.booleans(),
    moves=st.lists(st.integers(min_value=0, max_value=3), max_size=3),
)
def test_solve_matches_alpha_beta(
    seed: int, branching: int, depth: int, integer_values: bool, moves: list[int]
) -> None:
    game = make_game(
        branching=branching, depth=depth, seed=seed, integer_values=int(integer_values)
    )
    state = game.new_initial_state()
    for move in moves:
        if not state.is_terminal():
            state.apply_action(move % branching)
    values = solve(state)
    assert values[1] == -values[0]
    for player in (0, 1):
        expected, _ = minimax.alpha_beta_search(
            game, state=state, maximizing_player_id=player, maximum_depth=depth + 1
        )
        assert values[player] == expected


def _no_value_function(state: Any) -> NoReturn:
    raise AssertionError(f"value function called at {state}")


@settings(max_examples=60, deadline=None)
@given(
    seed=seeds,
    branching=st.integers(min_value=1, max_value=3),
    depth=st.integers(min_value=1, max_value=4),
    chance=st.sampled_from([0.3, 1.0]),
    outcomes=st.integers(min_value=1, max_value=3),
    transpositions=st.booleans(),
)
def test_solve_matches_expectiminimax(
    seed: int, branching: int, depth: int, chance: float, outcomes: int, transpositions: bool
) -> None:
    game = make_game(
        branching=branching,
        depth=depth,
        seed=seed,
        chance=chance,
        chance_outcomes=outcomes,
        transpositions=int(transpositions),
    )
    root = game.new_initial_state()
    values = solve(root)
    for player in (0, 1):
        expected, _ = minimax.expectiminimax(root, depth, _no_value_function, player)
        assert values[player] == pytest.approx(expected, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(
    seed=seeds,
    depth=st.integers(min_value=2, max_value=5),
    limit=st.integers(min_value=0, max_value=4),
    chance=st.sampled_from([0.0, 0.5, 1.0]),
)
def test_solve_depth_limited_matches_expectiminimax(
    seed: int, depth: int, limit: int, chance: float
) -> None:
    game = make_game(branching=3, depth=depth, seed=seed, chance=chance)
    root = game.new_initial_state()
    evaluate = hash_evaluator(2)
    values = solve_depth_limited(root, limit, evaluate)
    for player in (0, 1):
        expected, _ = minimax.expectiminimax(
            root, limit, lambda s, p=player: evaluate(s)[p], player
        )
        assert values[player] == pytest.approx(expected, abs=1e-12)


@_FAST
@given(
    seed=seeds,
    players=st.integers(min_value=2, max_value=4),
    chance=st.sampled_from([0.0, 0.5]),
    transpositions=st.booleans(),
)
def test_solve_depth_limited_beyond_the_tree_is_solve(
    seed: int, players: int, chance: float, transpositions: bool
) -> None:
    game = make_game(
        branching=2,
        depth=4,
        players=players,
        seed=seed,
        chance=chance,
        zero_sum=0,
        transpositions=int(transpositions),
    )
    root = game.new_initial_state()
    np.testing.assert_array_equal(solve_depth_limited(root, 4, _no_value_function), solve(root))
    np.testing.assert_array_equal(solve_depth_limited(root, 9, _no_value_function), solve(root))


def test_solve_depth_limited_counts_decision_plies_only() -> None:
    game = make_game(branching=2, depth=3, chance=1.0)
    root = game.new_initial_state()
    seen: list[str] = []

    def evaluate(state: Any) -> Sequence[float]:
        seen.append(str(state))
        return [0.0, 0.0]

    solve_depth_limited(root, 1, evaluate)
    # One decision ply below the root chance node, each horizon node is a chance node again.
    assert seen and all(len(text.split()) == 3 for text in seen), seen
    assert len(seen) == 2 * 2
    with pytest.raises(ValueError, match="depth"):
        solve_depth_limited(root, -1, evaluate)


def _max_n_reference(state: Any) -> tuple[float, ...]:
    """max^n written independently: the first action whose value is maximal for the mover."""
    if state.is_terminal():
        return tuple(state.returns())
    if state.is_chance_node():
        total = np.zeros(state.num_players())
        for outcome, probability in state.chance_outcomes():
            total = total + probability * np.array(_max_n_reference(state.child(outcome)))
        return tuple(total)
    player = state.current_player()
    children = [_max_n_reference(state.child(a)) for a in state.legal_actions()]
    best = max(child[player] for child in children)
    return next(child for child in children if child[player] == best)


@_FAST
@given(
    seed=seeds,
    players=st.integers(min_value=3, max_value=4),
    zero_sum=st.booleans(),
    chance=st.sampled_from([0.0, 0.5]),
)
def test_solve_is_max_n_with_first_child_ties(
    seed: int, players: int, zero_sum: bool, chance: float
) -> None:
    game = make_game(
        branching=3,
        depth=4,
        players=players,
        seed=seed,
        zero_sum=int(zero_sum),
        integer_values=1,
        min_value=-1,
        max_value=1,
        chance=chance,
    )
    root = game.new_initial_state()
    assert tuple(solve(root)) == _max_n_reference(root)


def test_ties_pick_the_first_child() -> None:
    # Integer values in {-1, 0, 1} tie constantly; find a root whose optimum is tied.
    for seed in range(50):
        game = make_game(branching=3, depth=3, players=3, seed=seed, integer_values=1)
        root = game.new_initial_state()
        best = optimal_actions(root)
        children = action_values(root)
        if len(best) > 1 and any(not np.array_equal(children[a], children[best[0]]) for a in best):
            np.testing.assert_array_equal(solve(root), children[best[0]])
            return
    pytest.fail("no seed with distinguishable tied optima")


def test_action_values_reject_non_decision_nodes() -> None:
    root = make_game(chance=1.0).new_initial_state()
    with pytest.raises(ValueError, match="decision node"):
        action_values(root)


# ------------------------------------------------------------------------------------- bots ---


@pytest.mark.parametrize(
    "params",
    [
        "branching=3,depth=6",
        "branching=3,depth=6,chance=0.5,chance_outcomes=3",
        "branching=4,depth=7,players=3",
        "branching=2,depth=9,players=3,chance=1.0,zero_sum=0,transpositions=1",
        "branching=1,depth=2,integer_values=1",
    ],
)
def test_evaluate_bots_with_random_bots(params: str) -> None:
    game = pyspiel.load_game(f"{SHORT_NAME}({params})")
    n = game.num_players()
    for seed in range(5):
        bots = [pyspiel.make_uniform_random_bot(p, seed + 10 * p) for p in range(n)]
        returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, seed)
        assert len(returns) == n
        assert all(game.min_utility() <= r <= game.max_utility() for r in returns)


# ------------------------------------------------------------------------------- validation ---


@pytest.mark.parametrize(
    ("params", "name"),
    [
        ("branching=0", "branching"),
        ("depth=0", "depth"),
        ("players=1", "players"),
        ("players=17", "players"),
        ("chance=1.5", "chance"),
        ("chance=-0.1", "chance"),
        ("chance_outcomes=0", "chance_outcomes"),
        ("min_value=2.0", "max_value"),
        ("zero_sum=2", "zero_sum"),
        ("min_value=-1.0,max_value=2.0", "zero_sum"),
        ("integer_values=-1", "integer_values"),
        ("zero_sum=0,min_value=0.2,max_value=0.8,integer_values=1", "integer_values"),
        ("transpositions=5", "transpositions"),
        ("ordered=1,players=3", "ordered"),
        ("ordered=1,chance=0.5", "ordered"),
        ("ordered=1,transpositions=1", "ordered"),
        ("ordered=1,zero_sum=0", "ordered"),
    ],
)
def test_bad_parameters_raise(params: str, name: str) -> None:
    with pytest.raises(ValueError, match=f"'{name}'") as error:
        pyspiel.load_game(f"{SHORT_NAME}({params})")
    assert "must be" in str(error.value)
    assert "got" in str(error.value)


def test_bad_parameters_raise_from_make_game() -> None:
    with pytest.raises(ValueError, match=r"'branching'.*integer >= 1.*got 2\.5"):
        make_game(branching=2.5)
    with pytest.raises(ValueError, match="'max_value'"):
        make_game(max_value=math.inf)
    with pytest.raises(ValueError, match="unknown parameter"):
        make_game(width=3)


# ------------------------------------------------------------------------------------ ordered ---


def knuth_moore_nodes(branching: int, depth: int) -> int:
    """Nodes of the minimal tree, level by level: b^ceil(k/2) + b^floor(k/2) - 1 at depth k
    (Knuth & Moore 1975)."""
    return sum(branching ** -(-k // 2) + branching ** (k // 2) - 1 for k in range(depth + 1))


@_FAST
@given(
    seed=seeds,
    branching=st.integers(1, 4),
    depth=st.integers(1, 5),
    integer_values=st.booleans(),
)
def test_ordered_trees_put_an_optimal_move_first_everywhere(
    seed: int, branching: int, depth: int, integer_values: bool
) -> None:
    game = make_game(
        branching=branching,
        depth=depth,
        seed=seed,
        ordered=1,
        integer_values=int(integer_values),
        min_value=-5,
        max_value=5,
    )
    for state in walk(game.new_initial_state()):
        if state.is_terminal():
            assert -5 <= state.returns()[0] <= 5
            continue
        values = action_values(state)
        mover = state.current_player()
        assert values[0][mover] == max(value[mover] for value in values.values())


@pytest.mark.parametrize(("branching", "depth"), [(2, 4), (3, 5), (4, 6), (8, 4)])
def test_ordered_trees_are_alpha_betas_best_case(branching: int, depth: int) -> None:
    """Alpha-beta in legal order visits exactly the Knuth-Moore minimal tree."""
    from spiel_bounded import AlphaBetaSettings, bounded_ab, make_evaluator

    plain = AlphaBetaSettings(move_ordering=False, iterative_deepening=False, transpositions=False)
    for seed in range(3):
        game = make_game(branching=branching, depth=depth, seed=seed, ordered=1)
        root = game.new_initial_state()
        result = bounded_ab(root, evaluator=make_evaluator("zero", game), settings=plain)
        assert result.lower == result.upper == solve(root)[0]
        assert result.stats.nodes == knuth_moore_nodes(branching, depth)
