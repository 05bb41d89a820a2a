"""BABMCTS: bounds hold at every stage, proofs end epsilon-optimal, the tree survives moves."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from itertools import permutations

import numpy as np
import pyspiel
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from open_spiel.python.algorithms import evaluate_bots as python_evaluate_bots
from open_spiel.python.algorithms import minimax

from spiel_bounded import load_bot, make_evaluator, oracles, synthetic
from spiel_bounded.bots.babmcts import BABMCTSBot
from spiel_bounded.evaluators.base import ZeroEvaluator
from spiel_bounded.limits import Limits
from spiel_bounded.search.babmcts import babmcts
from spiel_bounded.search.babmcts.common import (
    BABMCTSSettings,
    MCTSStats,
    shuffle_actions,
    shuffle_plan,
)
from spiel_bounded.search.babmcts.python_tree import BABMCTSTree, MCTSNode
from tests.helpers import HashEvaluator, move_lists, play_random

UNTIL_PROVED = 10**9  # a count no test reaches: the search runs until the root is proved

CHANCE = int(pyspiel.PlayerId.CHANCE)
TERMINAL = int(pyspiel.PlayerId.TERMINAL)
TTT = pyspiel.load_game("tic_tac_toe")
C4 = pyspiel.load_game("connect_four")


def slow(max_examples: int) -> settings:
    return settings(
        max_examples=max_examples, deadline=None, suppress_health_check=[HealthCheck.too_slow]
    )


Path = tuple[int, ...]


# -- oracles and invariant checks ---------------------------------------------------------------


def exact_by_path(state: pyspiel.State) -> dict[Path, float]:
    """Player 0's exact value of every node below `state`, by path of actions from it.

    Expectimax at chance nodes, summed in outcome order from 0.0 like `oracles.solve` and
    OpenSpiel's `expectiminimax`, so the floats are identical to theirs.
    """
    values: dict[Path, float] = {}

    def solve(node: pyspiel.State, path: Path) -> float:
        if node.is_terminal():
            value = float(node.player_return(0))
        elif node.is_chance_node():
            value = 0.0
            for outcome, probability in node.chance_outcomes():
                value = value + probability * solve(node.child(outcome), (*path, outcome))
        else:
            children = [solve(node.child(a), (*path, a)) for a in node.legal_actions()]
            value = max(children) if node.current_player() == 0 else min(children)
        values[path] = value
        return value

    solve(state, ())
    return values


def tree_nodes(root: MCTSNode) -> list[tuple[Path, MCTSNode]]:
    out = []
    stack: list[tuple[Path, MCTSNode]] = [((), root)]
    while stack:
        path, node = stack.pop()
        out.append((path, node))
        stack.extend(((*path, a), kid) for a, kid in node.children().items())
    return out


def recomputed_bounds(node: MCTSNode, vmin: float, vmax: float) -> tuple[float, float]:
    """The bounds a node must hold, from its children (the definition, written afresh)."""
    assert node.kids is not None and node.actions is not None
    bounds = [(vmin, vmax) if k is None else (k.lower, k.upper) for k in node.kids]
    if node.player == CHANCE:
        assert node.probs is not None
        lower = upper = 0.0
        for p, (kid_lower, kid_upper) in zip(node.probs, bounds, strict=True):
            lower += p * kid_lower
            upper += p * kid_upper
        return lower, upper
    pick = max if node.player == 0 else min
    return pick(b[0] for b in bounds), pick(b[1] for b in bounds)


def check_tree(tree: BABMCTSTree, exact: dict[Path, float] | None) -> None:
    """Every invariant of every node: bounds contain the exact value, agree with the children,
    stay in range; a dominated child is never the unique optimum unless its value is known."""
    vmin, vmax = tree.info.min_utility, tree.info.max_utility
    for path, node in tree_nodes(tree.root):
        assert node.lower <= node.upper, path
        assert vmin - 1e-12 <= node.lower and node.upper <= vmax + 1e-12, path
        if exact is not None:
            assert node.lower <= exact[path] <= node.upper, (
                path,
                node.lower,
                exact[path],
                node.upper,
            )
        if node.player == TERMINAL:
            assert node.lower == node.upper
            if exact is not None:
                assert node.lower == exact[path]
        elif node.kids is None:
            assert (node.lower, node.upper) == (vmin, vmax), path
        else:
            assert (node.lower, node.upper) == recomputed_bounds(node, vmin, vmax), path
        if exact is None or node.player not in (0, 1) or node.kids is None:
            continue
        assert node.actions is not None
        sign = 1 if node.player == 0 else -1
        child_values = {a: sign * exact[(*path, a)] for a in node.actions}
        best = max(child_values.values())
        optimal = [a for a, v in child_values.items() if v == best]
        if len(optimal) != 1:
            continue
        kid = node.children().get(optimal[0])
        if kid is None:
            continue
        floor = node.lower if sign > 0 else -node.upper
        kid_upper = kid.upper if sign > 0 else -kid.lower
        if kid_upper <= floor:  # pruned at node with epsilon 0: only once its value is known
            assert kid.lower == kid.upper == exact[(*path, optimal[0])], path


def prove_checked(
    tree: BABMCTSTree,
    exact: dict[Path, float],
    *,
    full_every: int = 1,
    max_simulations: int = 200_000,
) -> int:
    """Simulates until proved; checks the root every simulation, the whole tree every
    `full_every` simulations and at the end. Returns the simulation count."""
    root_value = exact[()]
    previous = (tree.root.lower, tree.root.upper)
    count = 0
    while not tree.proved:
        assert count < max_simulations, "not proved within the budget"
        tree.simulate()
        count += 1
        root = tree.root
        assert root.lower <= root_value <= root.upper
        assert previous[0] <= root.lower and root.upper <= previous[1], "bounds only tighten"
        previous = (root.lower, root.upper)
        if count % full_every == 0:
            check_tree(tree, exact)
    check_tree(tree, exact)
    assert tree.fallbacks == 0
    return count


def check_proved_result(
    state: pyspiel.State, tree: BABMCTSTree, exact: dict[Path, float], epsilon: float
) -> None:
    """The result of a proved tree: bounds, width and an epsilon-optimal move, in the mover's
    units."""
    result = tree.result()
    sign = 1.0 if state.current_player() == 0 else -1.0
    value = sign * exact[()]
    assert result.lower <= value <= result.upper
    assert result.upper - result.lower <= epsilon
    assert sign * exact[(result.action,)] >= value - epsilon
    for action, bounds in result.children.items():
        assert bounds.lower <= sign * exact[(action,)] <= bounds.upper
    if epsilon == 0:
        assert result.lower == result.upper == value


# -- synthetic trees: exact at every stage -----------------------------------------------------


@slow(150)
@given(
    seed=st.integers(min_value=0, max_value=10_000),
    branching=st.integers(min_value=1, max_value=3),
    depth=st.integers(min_value=1, max_value=4),
    chance=st.sampled_from([0.0, 0.5, 1.0]),
    outcomes=st.integers(min_value=1, max_value=3),
    integer_values=st.booleans(),
    epsilon=st.sampled_from([0.0, 0.0, 0.1, 0.5, 2.5]),
    prune=st.booleans(),
    uct_c=st.sampled_from([0.0, 0.5, 2.0]),
    first_move=st.booleans(),
)
def test_synthetic_bounds_hold_at_every_stage_and_the_proof_is_epsilon_optimal(
    seed: int,
    branching: int,
    depth: int,
    chance: float,
    outcomes: int,
    integer_values: bool,
    epsilon: float,
    prune: bool,
    uct_c: float,
    first_move: bool,
) -> None:
    game = synthetic.make_game(
        branching=branching,
        depth=depth + first_move,
        seed=seed,
        chance=chance,
        chance_outcomes=outcomes,
        integer_values=integer_values,
        min_value=-2,
        max_value=2,
    )
    state = game.new_initial_state()
    moves = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state = state.child(outcomes[seed % len(outcomes)][0])
        elif moves < first_move:
            state = state.child(state.legal_actions()[seed % branching])
            moves += 1
        else:
            break
    if state.is_terminal():
        return
    exact = exact_by_path(state)
    sign = 1 if state.current_player() == 0 else -1
    assert sign * exact[()] == pytest.approx(oracles.solve(state)[state.current_player()])
    tree = BABMCTSTree(
        state,
        evaluator=make_evaluator("rollout", game, seed=seed),
        settings=BABMCTSSettings(epsilon=epsilon, prune=prune, uct_c=uct_c),
        rng=seed,
    )
    # The whole tree after every simulation while it is small, else about 200 times per proof.
    prove_checked(tree, exact, full_every=1 + len(exact) // 200)
    check_proved_result(state, tree, exact, epsilon)


@pytest.mark.parametrize("chance", [0.0, 1.0])
def test_larger_synthetic_trees_are_proved_with_periodic_full_checks(chance: float) -> None:
    game = synthetic.make_game(branching=3, depth=5, seed=17, chance=chance, chance_outcomes=2)
    state = game.new_initial_state()
    if state.is_chance_node():
        state = state.child(0)
    exact = exact_by_path(state)
    for epsilon in (0.0, 0.2):
        tree = BABMCTSTree(
            state,
            evaluator=make_evaluator("rollout", game, seed=3),
            settings=BABMCTSSettings(epsilon=epsilon),
            rng=5,
        )
        prove_checked(tree, exact, full_every=101)
        check_proved_result(state, tree, exact, epsilon)


def test_window_pruning_proves_with_fewer_simulations_than_bounds_alone() -> None:
    """Alpha-beta windows are the point of BABMCTS: over a set of trees they save simulations."""
    with_windows = without = 0
    for seed in range(6):
        game = synthetic.make_game(branching=4, depth=5, seed=seed)
        state = game.new_initial_state()
        for prune in (True, False):
            result = babmcts(
                state,
                evaluator=make_evaluator("rollout", game, seed=seed),
                settings=BABMCTSSettings(prune=prune, simulations=UNTIL_PROVED),
                rng=seed,
            )
            assert result.stats.stopped_by == "solved"
            assert isinstance(result.stats, MCTSStats)
            if prune:
                with_windows += result.stats.simulations
            else:
                without += result.stats.simulations
    assert with_windows < without


# -- OpenSpiel games solved by brute force ----------------------------------------------------


def alpha_beta_values(state: pyspiel.State) -> dict[Path, float]:
    """Player 0's exact value of the root and of every root child (OpenSpiel's alpha-beta)."""

    def value(node: pyspiel.State) -> float:
        if node.is_terminal():
            return float(node.player_return(0))
        return float(minimax.alpha_beta_search(node.get_game(), node, maximizing_player_id=0)[0])

    values = {(a,): value(state.child(a)) for a in state.legal_actions()}
    values[()] = value(state)
    return values


def prove_root_checked(state: pyspiel.State, epsilon: float, seed: int) -> BABMCTSTree:
    """Proves `state`, checking the root and its children against alpha-beta after every
    simulation (the rest of the tree has no oracle here)."""
    exact = alpha_beta_values(state)
    tree = BABMCTSTree(
        state,
        evaluator=make_evaluator("rollout", state.get_game(), seed=seed),
        settings=BABMCTSSettings(epsilon=epsilon),
        rng=seed,
    )
    count = 0
    while not tree.proved:
        tree.simulate()
        count += 1
        assert count < 100_000
        root = tree.root
        assert root.lower <= exact[()] <= root.upper
        for action, kid in root.children().items():
            assert kid.lower <= exact[(action,)] <= kid.upper
        if epsilon == 0:  # a child dominated at the root is the unique optimum only if known
            sign = 1 if root.player == 0 else -1
            values = {a: sign * exact[(a,)] for a in state.legal_actions()}
            optimal = [a for a, v in values.items() if v == max(values.values())]
            kid = root.children().get(optimal[0])
            if len(optimal) == 1 and kid is not None:
                floor = root.lower if sign > 0 else -root.upper
                if (kid.upper if sign > 0 else -kid.lower) <= floor:
                    assert kid.lower == kid.upper
    check_proved_result(state, tree, exact, epsilon)
    return tree


@slow(25)
@given(moves=move_lists(5).filter(lambda m: len(m) >= 1), epsilon=st.sampled_from([0.0, 0.5]))
def test_tic_tac_toe_positions_are_proved(moves: list[int], epsilon: float) -> None:
    state = play_random(TTT.new_initial_state(), moves)
    if state.is_terminal():
        return
    prove_root_checked(state, epsilon, seed=len(moves))


def test_tic_tac_toe_is_a_draw() -> None:
    result = babmcts(
        TTT.new_initial_state(),
        evaluator=make_evaluator("rollout", TTT, seed=0),
        settings=BABMCTSSettings(simulations=UNTIL_PROVED),
        rng=0,
    )
    assert (result.lower, result.upper) == (0.0, 0.0)
    assert result.stats.stopped_by == "solved"
    assert result.stats.evaluations < result.stats.simulations == result.stats.nodes


def connect_four_endgames(count: int) -> list[pyspiel.State]:
    """Seeded random connect_four positions with about 10 plies left to fill the board."""
    rng = np.random.default_rng(4)
    states: list[pyspiel.State] = []
    while len(states) < count:
        state = C4.new_initial_state()
        for _ in range(int(rng.integers(30, 34))):
            state.apply_action(int(rng.choice(state.legal_actions())))
            if state.is_terminal():
                break
        if not state.is_terminal():
            states.append(state)
    return states


@pytest.mark.parametrize("index", range(4))
def test_connect_four_endgames_are_proved(index: int) -> None:
    state = connect_four_endgames(4)[index]
    prove_root_checked(state, epsilon=0.0, seed=index)
    prove_root_checked(state, epsilon=1.0, seed=index)


# -- chance: pig -------------------------------------------------------------------------------


def test_small_pig_is_solved_exactly_against_expectiminimax() -> None:
    game = pyspiel.load_game("pig(horizon=6,winscore=6,diceoutcomes=3)")
    for moves in ([], [0, 2, 0, 1], [0, 0, 1]):
        state = play_random(game.new_initial_state(), moves)
        assert not state.is_chance_node() and not state.is_terminal()
        exact = exact_by_path(state)
        player = state.current_player()
        reference, _ = minimax.expectiminimax(state, 100, None, player)
        assert (1 if player == 0 else -1) * exact[()] == pytest.approx(reference, abs=1e-12)
        for epsilon in (0.0, 0.1):
            tree = BABMCTSTree(
                state,
                evaluator=make_evaluator("rollout", game, seed=1),
                settings=BABMCTSSettings(epsilon=epsilon),
                rng=2,
            )
            prove_checked(tree, exact, full_every=7)
            check_proved_result(state, tree, exact, epsilon)


def test_pig_bounds_stay_sound_on_the_full_game() -> None:
    """Pig with the default horizon is too big to solve; every property that needs no oracle is
    checked instead (range, agreement with the children, exact terminals, tightening)."""
    game = pyspiel.load_game("pig(winscore=20)")
    rng = np.random.default_rng(0)
    state = game.new_initial_state()
    for _ in range(12):  # a position late enough for some terminals to be reached
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        else:
            state.apply_action(0 if rng.random() < 0.8 else 1)
        if state.is_terminal():
            state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    tree = BABMCTSTree(state, evaluator=make_evaluator("rollout", game, seed=0), rng=0)
    previous = (tree.root.lower, tree.root.upper)
    for count in range(1, 1501):
        tree.simulate()
        root = tree.root
        assert previous[0] <= root.lower <= root.upper <= previous[1]
        previous = (root.lower, root.upper)
        if count % 250 == 0:
            check_tree(tree, None)
    terminals = [n for _, n in tree_nodes(tree.root) if n.player == TERMINAL]
    assert terminals, "the position should reach some terminals"
    assert tree.fallbacks == 0


# -- PUCT with priors ----------------------------------------------------------------------------


class PriorEvaluator(HashEvaluator):
    """A hash evaluator that also offers skewed priors (OpenSpiel's `prior` interface)."""

    def prior(self, state: pyspiel.State) -> Sequence[tuple[int, float]]:
        actions = state.legal_actions()
        weights = [1.0 + (a * 7 + len(actions)) % 5 for a in actions]
        total = sum(weights)
        return [(a, w / total) for a, w in zip(actions, weights, strict=True)]


@slow(25)
@given(
    seed=st.integers(min_value=0, max_value=1000),
    chance=st.sampled_from([0.0, 1.0]),
    epsilon=st.sampled_from([0.0, 0.3]),
)
def test_puct_with_priors_keeps_the_bounds_sound(seed: int, chance: float, epsilon: float) -> None:
    game = synthetic.make_game(branching=3, depth=3, seed=seed, chance=chance)
    state = game.new_initial_state()
    if state.is_chance_node():
        state = state.child(0)
    exact = exact_by_path(state)
    tree = BABMCTSTree(
        state,
        evaluator=PriorEvaluator(game, seed),
        settings=BABMCTSSettings(epsilon=epsilon),
        rng=seed,
    )
    prove_checked(tree, exact)
    check_proved_result(state, tree, exact, epsilon)
    assert tree.root.probs is not None  # the priors were used


# -- limits, stats and the memory cap ------------------------------------------------------------


def test_limits_stop_the_search_exactly() -> None:
    state = C4.new_initial_state()
    evaluator = make_evaluator("rollout", C4, seed=0)
    by_sims = babmcts(state, evaluator=evaluator, settings=BABMCTSSettings(simulations=37))
    assert by_sims.stats.stopped_by == "simulations"
    assert isinstance(by_sims.stats, MCTSStats)
    assert by_sims.stats.simulations == 37 == by_sims.stats.nodes
    assert by_sims.stats.evaluations == 37
    by_nodes = babmcts(
        state,
        evaluator=evaluator,
        limits=Limits(nodes=50),
        settings=BABMCTSSettings(simulations=None),
    )
    assert by_nodes.stats.stopped_by == "nodes"
    assert by_nodes.stats.nodes == 50
    by_cap = babmcts(
        state, evaluator=evaluator, settings=BABMCTSSettings(simulations=UNTIL_PROVED, max_nodes=64)
    )
    assert by_cap.stats.stopped_by == "nodes"
    assert isinstance(by_cap.stats, MCTSStats) and by_cap.stats.tree_nodes == 64
    by_time = babmcts(
        state,
        evaluator=evaluator,
        limits=Limits(seconds=0.05),
        settings=BABMCTSSettings(simulations=None),
    )
    assert by_time.stats.stopped_by == "seconds"
    for result in (by_sims, by_nodes, by_cap, by_time):
        assert result.action in state.legal_actions()
        assert result.lower == -1.0 and result.upper == 1.0
        assert result.pv[0] == result.action
        assert set(result.children) <= set(state.legal_actions())


def test_a_budget_stop_leaves_the_tree_consistent() -> None:
    """Stopped mid-simulation (between a chance node and its outcome), nothing is attached."""
    game = synthetic.make_game(branching=2, depth=6, seed=3, chance=1.0, chance_outcomes=3)
    state = game.new_initial_state().child(0)
    exact = exact_by_path(state)
    tree = BABMCTSTree(state, evaluator=make_evaluator("zero", game), rng=0)
    for nodes in range(1, 40, 3):
        result = tree.search(Limits(nodes=nodes))
        assert result.stats.nodes <= nodes
        check_tree(tree, exact)
        assert all(node.n >= 1 for path, node in tree_nodes(tree.root) if path)
    assert tree.size == sum(1 for _ in tree.root.walk())


def test_result_is_in_the_movers_units() -> None:
    game = synthetic.make_game(branching=3, depth=4, seed=8)
    state = game.new_initial_state().child(1)  # player 1 to move
    result = babmcts(
        state,
        evaluator=make_evaluator("zero", game),
        settings=BABMCTSSettings(simulations=None),
    )
    value = oracles.solve(state)[1]
    assert result.lower == result.upper == value
    assert oracles.solve(state.child(result.action))[1] == value


# -- the expansion order ------------------------------------------------------------------------


def test_shuffle_actions_is_uniform_with_one_draw_up_to_20_actions() -> None:
    assert [len(shuffle_plan(count)) for count in (1, 2, 20, 21)] == [0, 1, 1, 2]
    rng = random.Random(4)
    counts = dict.fromkeys(permutations(range(4)), 0)
    draws = 24_000
    for _ in range(draws):
        actions = [0, 1, 2, 3]
        shuffle_actions(actions, rng.getrandbits)
        counts[tuple(actions)] += 1
    expected = draws / 24
    assert all(abs(count - expected) < 5 * expected**0.5 for count in counts.values())
    many = list(range(30))  # two words
    shuffle_actions(many, rng.getrandbits)
    assert sorted(many) == list(range(30)) and many != list(range(30))


# -- tree reuse ---------------------------------------------------------------------------------


def test_advance_keeps_the_subtree_and_sync_follows_the_history() -> None:
    state = C4.new_initial_state()
    tree = BABMCTSTree(state, evaluator=make_evaluator("rollout", C4, seed=1), rng=1)
    tree.search()
    action = tree.result().action
    kid = tree.root.children()[action]
    kept = sum(1 for _ in kid.walk())
    assert tree.advance(action)
    assert tree.root is kid and tree.size == kept
    reply = max(kid.children(), key=lambda a: kid.children()[a].n)
    later = state.child(action).child(reply)
    grandchild = kid.children()[reply]
    assert tree.sync(later)
    assert tree.root is grandchild
    assert tree.sync(later)  # already there
    assert not tree.sync(state)  # not below the root: rebuilt
    assert tree.size == 1 and tree.root.n == 0
    assert tree.root_state.history() == state.history()
    with pytest.raises(ValueError, match="not legal"):
        tree.advance(99)


def test_advance_passes_through_chance_nodes() -> None:
    game = pyspiel.load_game("pig")
    state = game.new_initial_state()
    tree = BABMCTSTree(state, evaluator=make_evaluator("rollout", game, seed=0), rng=0)
    tree.search()
    assert tree.advance(0)  # roll: the root becomes a chance node
    assert tree.root.player == CHANCE
    with pytest.raises(ValueError, match="chance"):
        tree.search()
    outcome = next(a for a, k in tree.root.children().items() if k is not None)
    assert tree.advance(outcome)
    result = tree.search()
    assert result.stats.reused_nodes > 1


def test_the_memory_cap_is_honoured_across_moves() -> None:
    game = C4
    bot = BABMCTSBot(game, 0, settings=BABMCTSSettings(simulations=500, max_nodes=300), seed=0)
    state = game.new_initial_state()
    for _ in range(6):
        action = bot.step(state)
        tree = bot.tree
        assert tree is not None and tree.size <= 300
        assert bot.last_result is not None
        assert bot.last_result.stats.stopped_by in ("nodes", "solved")  # never "simulations"
        state.apply_action(action)
        if state.is_terminal():
            break
        state.apply_action(state.legal_actions()[-1])  # the opponent's move, not informed
        if state.is_terminal():
            break
    tree = BABMCTSTree(
        game.new_initial_state(),
        evaluator=make_evaluator("zero", game),
        settings=BABMCTSSettings(max_nodes=50, simulations=UNTIL_PROVED),
    )
    tree.search()
    assert tree.size == 50
    tree.settings = BABMCTSSettings(max_nodes=20, simulations=5)
    result = tree.search()  # the kept tree is over the new cap: dropped, then searched afresh
    assert result.stats.reused_nodes == 1 and tree.size == 6


def play(
    game: pyspiel.Game, reuse: bool, seed: int, simulations: int | None, driver: str
) -> tuple[list[int], list[BABMCTSBot]]:
    """One game between two BABMCTS bots; returns the history and the bots."""
    settings_ = BABMCTSSettings(simulations=simulations)
    bots = [
        BABMCTSBot(game, p, settings=settings_, reuse_tree=reuse, seed=seed + p) for p in range(2)
    ]
    state = game.new_initial_state()
    if driver == "cpp":
        pyspiel.evaluate_bots(state, bots, seed)  # plays `state` in place
    elif driver == "python":
        python_evaluate_bots.evaluate_bots(state, bots, np.random.RandomState(seed))
    else:  # our own loop that never informs: the bots follow through the history alone
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(state.chance_outcomes()[seed % len(state.chance_outcomes())][0])
            else:
                state.apply_action(bots[state.current_player()].step(state))
    return state.history(), bots


@pytest.mark.parametrize("driver", ["cpp", "python", "silent"])
@pytest.mark.parametrize("chance", [0.0, 0.5])
def test_tree_reuse_gives_the_same_decisions_as_a_fresh_tree(driver: str, chance: float) -> None:
    """With a budget that proves every move and float leaf values (a unique optimum at every
    node), decisions are the exact optimum either way; with reuse the trees are kept."""
    game = synthetic.make_game(branching=3, depth=6, seed=21, chance=chance, chance_outcomes=2)
    for seed in range(3):
        fresh, fresh_bots = play(game, False, seed, UNTIL_PROVED, driver)
        reused, reuse_bots = play(game, True, seed, UNTIL_PROVED, driver)
        assert fresh == reused
        for bot in fresh_bots + reuse_bots:
            assert bot.last_result is not None and bot.last_result.stats.stopped_by == "solved"
        stats = [bot.last_result.stats for bot in reuse_bots if bot.last_result is not None]
        assert any(isinstance(s, MCTSStats) and s.reused_nodes > 1 for s in stats)
        # Every decision is the optimum: replay and compare with the oracle.
        state = game.new_initial_state()
        for action in fresh:
            if not state.is_chance_node():
                assert action in oracles.optimal_actions(state)
            state.apply_action(action)


def test_a_kept_proof_needs_no_new_simulation() -> None:
    """With epsilon 0 the chosen child of a proved root is proved too (its bounds are squeezed
    between the root's): after advancing, the next search ends at once."""
    game = synthetic.make_game(branching=3, depth=6, seed=2)
    tree = BABMCTSTree(game.new_initial_state(), evaluator=make_evaluator("zero", game), rng=0)
    first = tree.search()
    assert first.stats.stopped_by == "solved"
    assert tree.advance(first.action)
    again = tree.search()
    assert again.stats.stopped_by == "solved" and again.stats.simulations == 0
    assert (again.lower, again.upper) == (-first.upper, -first.lower)


# -- the bot --------------------------------------------------------------------------------------


@pytest.mark.parametrize("policy", ["auto", "pessimistic", "optimistic", "average"])
def test_bot_is_reproducible_and_records_results(policy: str) -> None:
    game = pyspiel.load_game("pig")

    def run() -> list[float]:
        bots = [
            load_bot("babmcts", game, 0, simulations=30, policy=policy, seed=4),
            load_bot("random", game, 1, seed=4),
        ]
        return pyspiel.evaluate_bots(game.new_initial_state(), bots, 9)

    assert run() == run()
    bot = load_bot("babmcts", game, 0, simulations=30, policy=policy, seed=4)
    state = game.new_initial_state()
    policy_out, action = bot.step_with_policy(state)
    assert policy_out == [(action, 1.0)] and action in state.legal_actions()
    assert bot.last_result is not None
    bot.restart_at(state)
    assert bot.last_result is None and bot.tree is None


def test_bot_with_the_heuristic_evaluator() -> None:
    bot = load_bot("babmcts", C4, 1, simulations=50, evaluator="heuristic", reuse_tree=False)
    state = C4.new_initial_state().child(3)
    assert bot.step(state) in state.legal_actions()
    assert bot.tree is None  # no reuse: nothing kept


def test_bot_thinks_for_the_time_it_is_given_unless_a_count_is_set() -> None:
    state = C4.new_initial_state()
    timed = load_bot("babmcts", C4, 0, seconds=0.2)
    capped = load_bot("babmcts", C4, 0, seconds=0.2, simulations=50)
    direct = BABMCTSBot(C4, 0, limits=Limits(seconds=0.2))  # the class, not the registry
    bare = load_bot("babmcts", C4, 0)  # no limit at all: OpenSpiel MCTSBot's 1000 simulations
    assert isinstance(timed, BABMCTSBot) and isinstance(capped, BABMCTSBot)
    assert isinstance(bare, BABMCTSBot) and bare.limits == Limits()
    for bot in (timed, capped, direct, bare):
        bot.step(state)
    # The case: seconds alone stopped at the default count in a few milliseconds.
    assert timed.last_result is not None and timed.last_result.stats.stopped_by != "simulations"
    assert direct.last_result is not None and direct.last_result.stats.stopped_by != "simulations"
    assert capped.last_result is not None and capped.last_result.stats.simulations == 50
    assert bare.last_result is not None and bare.last_result.stats.simulations == 1000
    by_nodes = babmcts(state, evaluator=ZeroEvaluator(C4), limits=Limits(nodes=3_000), rng=0)
    assert by_nodes.stats.stopped_by == "nodes" and by_nodes.stats.simulations > 1000


# -- bad input -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"epsilon": -0.1}, "epsilon must be a number >= 0"),
        ({"epsilon": math.nan}, "epsilon must be a number >= 0"),
        ({"epsilon": True}, "epsilon must be"),
        ({"uct_c": -1.0}, "uct_c must be a number >= 0"),
        ({"simulations": 0}, "simulations must be an integer >= 1 or None"),
        ({"simulations": 2.5}, "simulations must be"),
        ({"max_nodes": 0}, "max_nodes must be an integer >= 1, got 0"),
        ({"max_nodes": None}, "max_nodes must be an integer >= 1"),
        ({"prune": 1}, "prune must be True or False"),
        ({"priors": "yes"}, "priors must be True or False"),
        ({"engine": "numba"}, "engine must be one of auto, native, python; got 'numba'$"),
        (
            {"engine": "compiled"},
            "engine must be one of auto, native, python; got 'compiled': the numba tree "
            r"\(engine='compiled'\) was removed in issue 38; native, the C\+\+ tree, replaces it",
        ),
    ],
)
def test_bad_settings_are_refused(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        BABMCTSSettings(**kwargs)


def x_wins() -> pyspiel.State:
    state = TTT.new_initial_state()
    for action in (0, 3, 1, 4, 2):
        state.apply_action(action)
    assert state.is_terminal()
    return state


def test_bad_searches_are_refused() -> None:
    zero = ZeroEvaluator(TTT)
    state = TTT.new_initial_state()
    with pytest.raises(ValueError, match="does not take a depth limit"):
        babmcts(state, evaluator=zero, limits=Limits(depth=3))
    with pytest.raises(ValueError, match="non-terminal"):
        babmcts(x_wins(), evaluator=zero)
    pig = pyspiel.load_game("pig")
    with pytest.raises(ValueError, match="decision state, got a chance node"):
        babmcts(pig.new_initial_state().child(0), evaluator=ZeroEvaluator(pig))
    with pytest.raises(ValueError, match="rng must be"):
        babmcts(state, evaluator=zero, rng=-1)
    for name, reason in [
        ("kuhn_poker", "imperfect information"),
        ("bounded_random_tree(players=3)", "3 players"),
        ("bounded_random_tree(zero_sum=0,min_value=0.0)", "not zero-sum"),
        ("matrix_rps", "simultaneous"),
    ]:
        game = pyspiel.load_game(name)
        with pytest.raises(ValueError, match=f"babmcts cannot play .*{reason}"):
            BABMCTSTree(game.new_initial_state(), evaluator=ZeroEvaluator(game))


class BadEvaluator:
    """Returns a fixed (wrong) value vector."""

    name = "bad"

    def __init__(self, values: Sequence[float]) -> None:
        self.values = values

    def evaluate(self, state: pyspiel.State) -> Sequence[float]:
        return self.values


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ((2.0, -2.0), r"evaluator 'bad' returned 2.0 on tic_tac_toe, outside"),
        ((math.nan, 0.0), "evaluator 'bad' returned nan"),
        ((0.5, -0.5, 0.0), "returned 3 values on tic_tac_toe"),
    ],
)
def test_bad_evaluator_values_are_refused(values: Sequence[float], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        babmcts(TTT.new_initial_state(), evaluator=BadEvaluator(values))


def test_bad_sync_is_refused() -> None:
    tree = BABMCTSTree(TTT.new_initial_state(), evaluator=ZeroEvaluator(TTT))
    with pytest.raises(ValueError, match="was given to a tree of tic_tac_toe"):
        tree.sync(C4.new_initial_state())
    with pytest.raises(ValueError, match="non-terminal"):
        tree.sync(x_wins())


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"epsilon": -1}, "parameter 'epsilon' of bot 'babmcts'"),
        ({"simulations": 0}, "parameter 'simulations' of bot 'babmcts'"),
        ({"max_nodes": 0}, "parameter 'max_nodes' of bot 'babmcts'"),
        ({"reuse_tree": "yes"}, "parameter 'reuse_tree' of bot 'babmcts'"),
        ({"policy": "greedy"}, "parameter 'policy' of bot 'babmcts'"),
        ({"evaluator": "oracle"}, "parameter 'evaluator' of bot 'babmcts'"),
        ({"engine": "compiled"}, "parameter 'engine' of bot 'babmcts'.*numba tree.*removed"),
        ({"depth": 3}, "unknown parameter.*'depth'.*valid parameters: epsilon"),
    ],
)
def test_bad_bot_parameters_are_refused(params: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        load_bot("babmcts", TTT, 0, **params)


def test_unsupported_games_are_refused_by_the_registry() -> None:
    with pytest.raises(ValueError, match="bot 'babmcts' cannot play kuhn_poker"):
        load_bot("babmcts", "kuhn_poker", 0)
    with pytest.raises(ValueError, match="heuristic"):
        load_bot("babmcts", "othello", 0, evaluator="heuristic")


def _search_with(state: pyspiel.State, epsilon: float) -> tuple[object, ...]:
    result = babmcts(
        state,
        evaluator=make_evaluator("rollout", state.get_game(), seed=3),
        settings=BABMCTSSettings(epsilon=epsilon, simulations=20_000),
        rng=7,
    )
    return (result.action, result.lower, result.upper, result.children, result.stats.nodes)


@pytest.mark.parametrize(
    ("game_string", "choices"),
    [
        ("tic_tac_toe", []),
        ("tic_tac_toe", [4]),
        ("breakthrough(rows=5,columns=4)", [4, 1, 7]),
        ("breakthrough(rows=5,columns=4)", [2, 0, 3, 5]),
    ],
)
def test_epsilon_below_the_gap_between_returns_changes_nothing(
    game_string: str, choices: list[int]
) -> None:
    """Returns here are -1, 0 or 1, so every bound and window edge is one of them: epsilon < 1
    prunes and proves exactly what epsilon 0 does (the BABMCTS tournament configs rely on it to
    read their breakthrough rows). Same seeds, so the searches must be identical; they are
    proved within 20,000 simulations."""
    game = pyspiel.load_game(game_string)
    state = play_random(game.new_initial_state(), choices)
    exact = _search_with(state, 0.0)
    assert exact[1] == exact[2]  # proved
    assert _search_with(state, 0.1) == exact
    assert _search_with(state, 0.99) == exact
    if game_string == "tic_tac_toe":  # draws: a tolerance of 1.5 stops at [-1, 0] or [0, 1]
        assert _search_with(state, 1.5) != exact


@pytest.mark.parametrize(
    ("moves", "player", "action", "message"),
    [
        ([], 0, 99, r"got action 99, which is not legal in the given state \(legal: 0, 1, 2"),
        ([4], 1, 4, r"got action 4, which is not legal"),
        ([], 1, 0, r"got player 1, but player 0 is to move"),
        ([0, 3, 1, 4, 2], 0, 5, r"got a terminal state"),
        ([], 0, "3", r"got action '3'"),
    ],
)
def test_bad_inform_action_is_a_clear_error(
    moves: list[int], player: int, action: object, message: str
) -> None:
    bot = load_bot("babmcts", TTT, 0, simulations=30)
    bot.step(TTT.new_initial_state())  # the bot keeps a tree from now on
    state = TTT.new_initial_state()
    for move in moves:
        state.apply_action(move)
    with pytest.raises(ValueError, match=message):
        bot.inform_action(state, player, action)


@pytest.mark.parametrize("engine", ["python", "native"])
def test_time_limit_with_a_fake_clock(engine: str) -> None:
    # Issue 40, item 6: every search takes the clock of its time limit, BABMCTS too.
    from spiel_bounded.native import available

    if engine == "native" and not available():
        pytest.skip("the native engine is not built")
    now = [0.0]

    def clock() -> float:  # every read takes a millisecond
        now[0] += 0.001
        return now[0]

    result = babmcts(
        pyspiel.load_game("connect_four").new_initial_state(),
        evaluator=make_evaluator("zero", pyspiel.load_game("connect_four")),
        limits=Limits(seconds=0.05),
        settings=BABMCTSSettings(engine=engine),
        clock=clock,
    )
    assert result.stats.stopped_by == "seconds"
    assert 0 < result.stats.simulations <= 50  # one read a simulation at least
