"""The native BABMCTS tree (`engine="native"`) against the Python reference tree.

Under the same seed, evaluator values and limits, the native tree must hold the same nodes with the
same visit counts, sums and bounds, and return the same `SearchResult` as the reference
(`search/babmcts/python_tree.py`): on OpenSpiel games with hashed leaf values called back from C++
and with the heuristics' C++ twins, on the synthetic trees (a game implemented in Python) with and
without chance nodes, with priors (PUCT, called back), through moves that keep the subtree, under
node limits and the memory cap. With random playouts in C++ (no Python twin to compare with) the
bounds must contain the exact values (OpenSpiel's expectiminimax / alpha-beta, brute force). Also:
the engine choice, the bot, signals, the time limit on an injected clock, bad input.
"""

from __future__ import annotations

import random
import signal
from collections.abc import Callable, Sequence
from dataclasses import replace
from types import FrameType

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import minimax

from spiel_bounded import AlphaBetaSettings, load_bot, make_evaluator, oracles, synthetic
from spiel_bounded.evaluators import Evaluator
from spiel_bounded.limits import Limits
from spiel_bounded.native import available
from spiel_bounded.result import SearchResult
from spiel_bounded.search.alphabeta import bounded_ab
from spiel_bounded.search.babmcts import babmcts, make_tree, tree_engine
from spiel_bounded.search.babmcts import search as babmcts_module
from spiel_bounded.search.babmcts.common import BABMCTSSettings, BABMCTSTreeBase
from spiel_bounded.search.babmcts.native_tree import NativeBABMCTSTree
from spiel_bounded.search.babmcts.python_tree import BABMCTSTree
from spiel_bounded.testing import random_positions
from tests.helpers import ClockedEvaluator, FakeClock, HashEvaluator, run_without_native

pytestmark = pytest.mark.skipif(not available(), reason="the native engine is not built")

UNTIL_PROVED = 10**9  # a count no test reaches: the search runs until the root is proved


class PriorEvaluator(HashEvaluator):
    """Hashed values and skewed priors (OpenSpiel's `prior` interface), as in test_mcts.py."""

    def prior(self, state: pyspiel.State) -> Sequence[tuple[int, float]]:
        actions = state.legal_actions()
        weights = [1.0 + (a * 7 + len(actions)) % 5 for a in actions]
        total = sum(weights)
        return [(a, w / total) for a, w in zip(actions, weights, strict=True)]


def _comparable(result: SearchResult) -> SearchResult:
    return replace(result, stats=replace(result.stats, seconds=0.0, engine=""))


def _assert_same(
    python: BABMCTSTreeBase, native: BABMCTSTreeBase, results: Sequence[SearchResult]
) -> None:
    assert results[1].stats.engine == "native"
    assert native.snapshot() == python.snapshot()
    assert _comparable(results[1]) == _comparable(results[0])
    assert (native.simulations, native.evaluations, native.fallbacks, native.size) == (
        python.simulations,
        python.evaluations,
        python.fallbacks,
        python.size,
    )


def _play_both(
    state: pyspiel.State,
    new_evaluator: Callable[[], Evaluator],
    settings: BABMCTSSettings,
    limits: Limits,
    moves: int,
) -> None:
    """Searches with both trees, then follows the move and a random reply (or chance outcome)
    with both, keeping the subtree, `moves` times; checks they agree after every search."""
    trees: list[BABMCTSTreeBase] = [
        BABMCTSTree(state, evaluator=new_evaluator(), settings=settings, rng=11),
        NativeBABMCTSTree(state, evaluator=new_evaluator(), settings=settings, rng=11),
    ]
    chooser = random.Random(5)
    for move in range(moves):
        results = [tree.search(limits) for tree in trees]
        _assert_same(trees[0], trees[1], results)
        path = [results[0].action]
        state = state.child(results[0].action)
        while not state.is_terminal() and (state.is_chance_node() or len(path) < 2):
            if state.is_chance_node():
                action = chooser.choice([a for a, _ in state.chance_outcomes()])
            else:
                action = chooser.choice(state.legal_actions())
            path.append(action)
            state = state.child(action)
        if state.is_terminal():
            return
        kept = [tree.sync(state) for tree in trees]
        assert kept[0] == kept[1]
        for tree in trees:
            tree.reseed(100 + move)


GAMES = [
    ("tic_tac_toe", 0.0, True, 300),
    ("tic_tac_toe", 0.5, False, 300),
    ("connect_four", 0.0, True, 500),
    ("connect_four", 0.5, True, 500),
    ("connect_four", 0.0, False, 500),
    ("breakthrough(rows=6,columns=5)", 1.0, True, 300),
]


@pytest.mark.parametrize(("name", "epsilon", "prune", "simulations"), GAMES)
def test_same_tree_as_the_reference_with_called_back_values(
    name: str, epsilon: float, prune: bool, simulations: int
) -> None:
    game = pyspiel.load_game(name)
    settings = BABMCTSSettings(epsilon=epsilon, prune=prune, simulations=simulations)
    state = random_positions(game, 1, plies=2, seed=7)[0]
    _play_both(state, lambda: HashEvaluator(game), settings, Limits(), moves=3)


@pytest.mark.parametrize("name", ["tic_tac_toe", "connect_four", "breakthrough"])
def test_same_tree_as_the_reference_with_the_heuristic_twin(name: str) -> None:
    game = pyspiel.load_game(name)
    state = random_positions(game, 1, plies=4, seed=3)[0]
    settings = BABMCTSSettings(simulations=300)
    _play_both(state, lambda: make_evaluator("heuristic", game), settings, Limits(), moves=2)


@pytest.mark.parametrize("chance", [0.0, 1.0])
@pytest.mark.parametrize("epsilon", [0.0, 0.2])
@pytest.mark.parametrize("seed", [0, 1])
def test_same_proof_as_the_reference_on_synthetic_trees(
    chance: float, epsilon: float, seed: int
) -> None:
    game = synthetic.make_game(branching=3, depth=5, seed=seed, chance=chance)
    state = game.new_initial_state()
    if state.is_chance_node():
        state = state.child(0)
    settings = BABMCTSSettings(epsilon=epsilon, simulations=UNTIL_PROVED)
    trees = [
        cls(state, evaluator=HashEvaluator(game, seed), settings=settings, rng=seed)
        for cls in (BABMCTSTree, NativeBABMCTSTree)
    ]
    results = [tree.search() for tree in trees]
    assert results[0].stats.stopped_by == "solved"
    _assert_same(trees[0], trees[1], results)
    exact = float(oracles.solve(state)[state.current_player()])
    assert results[1].lower <= exact <= results[1].upper
    assert results[1].upper - results[1].lower <= epsilon


@pytest.mark.parametrize("chance", [0.0, 1.0])
def test_same_tree_as_the_reference_with_priors(chance: float) -> None:
    game = synthetic.make_game(branching=3, depth=4, seed=4, chance=chance)
    state = game.new_initial_state()
    if state.is_chance_node():
        state = state.child(0)
    for settings in (BABMCTSSettings(simulations=150), BABMCTSSettings(simulations=UNTIL_PROVED)):
        _play_both(state, lambda: PriorEvaluator(game, 4), settings, Limits(), moves=2)
    tic_tac_toe = pyspiel.load_game("tic_tac_toe")
    _play_both(
        tic_tac_toe.new_initial_state(),
        lambda: PriorEvaluator(tic_tac_toe),
        BABMCTSSettings(simulations=200),
        Limits(),
        moves=2,
    )


def test_same_tree_on_pig_through_chance_nodes() -> None:
    game = pyspiel.load_game("pig(horizon=8,winscore=6,diceoutcomes=3)")
    settings = BABMCTSSettings(simulations=400)
    _play_both(game.new_initial_state(), lambda: HashEvaluator(game), settings, Limits(), 3)


def test_same_tree_under_the_node_limit_and_the_memory_cap() -> None:
    game = pyspiel.load_game("connect_four")
    state = random_positions(game, 1, plies=6, seed=3)[0]

    def heuristic() -> Evaluator:
        return make_evaluator("heuristic", game)

    _play_both(state, heuristic, BABMCTSSettings(simulations=None), Limits(nodes=333), moves=3)
    capped = BABMCTSSettings(simulations=UNTIL_PROVED, max_nodes=500)
    _play_both(state, heuristic, capped, Limits(), moves=3)
    pig = pyspiel.load_game("pig(horizon=8,winscore=6,diceoutcomes=3)")
    capped = BABMCTSSettings(simulations=UNTIL_PROVED, max_nodes=300)
    _play_both(pig.new_initial_state(), lambda: HashEvaluator(pig), capped, Limits(), moves=2)


# -- random playouts in C++: the bounds' guarantee ------------------------------------------------


def _prove_natively(state: pyspiel.State, epsilon: float, seed: int) -> SearchResult:
    game = state.get_game()
    result = babmcts(
        state,
        evaluator=make_evaluator("rollout", game, seed=seed),
        settings=BABMCTSSettings(epsilon=epsilon, simulations=UNTIL_PROVED, engine="native"),
        rng=seed,
    )
    assert result.stats.engine == "native"
    assert result.stats.stopped_by == "solved"
    return result


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_rollouts_prove_synthetic_chance_trees_against_brute_force(seed: int) -> None:
    game = synthetic.make_game(branching=3, depth=4, seed=seed, chance=1.0, chance_outcomes=3)
    state = game.new_initial_state()
    while state.is_chance_node():
        state = state.child(state.chance_outcomes()[seed % 3][0])
    exact = float(oracles.solve(state)[state.current_player()])
    for epsilon in (0.0, 0.25):
        result = _prove_natively(state, epsilon, seed)
        assert result.lower <= exact <= result.upper
        assert result.upper - result.lower <= epsilon
        action_values = oracles.action_values(state)
        player = state.current_player()
        assert action_values[result.action][player] >= exact - epsilon - 1e-12


def test_rollouts_prove_small_pig_against_expectiminimax() -> None:
    game = pyspiel.load_game("pig(horizon=6,winscore=5,diceoutcomes=3)")
    state = game.new_initial_state()
    exact = minimax.expectiminimax(state, 100, None, 0)[0]
    result = _prove_natively(state, 0.0, 1)
    assert result.lower == pytest.approx(exact, abs=1e-12)
    assert result.upper == pytest.approx(exact, abs=1e-12)


@pytest.mark.parametrize("plies", [2, 3])
def test_rollouts_prove_tic_tac_toe_against_alpha_beta(plies: int) -> None:
    game = pyspiel.load_game("tic_tac_toe")
    for state in random_positions(game, 3, plies=plies, seed=plies):
        exact, _ = minimax.alpha_beta_search(game, state.clone(), maximizing_player_id=0)
        player = state.current_player()
        mover = exact if player == 0 else -exact
        result = _prove_natively(state, 0.0, plies)
        assert result.lower == result.upper == mover


def test_rollouts_on_connect_fours_twin_prove_late_positions_against_alpha_beta() -> None:
    """connect_four's simulations run on the package's twin of the state (`ConnectFourBoard`):
    the proofs still give the value the Python engine's alpha-beta solves, and a move that
    keeps it."""
    game = pyspiel.load_game("connect_four")
    zero = make_evaluator("zero", game)
    python = AlphaBetaSettings(engine="python")

    def solved(state: pyspiel.State) -> float:
        result = bounded_ab(state, evaluator=zero, settings=python)
        assert result.stats.stopped_by == "solved" and result.lower == result.upper
        return result.lower

    for moves in ("44645510216603505", "434346133210250"):
        state = game.new_initial_state()
        for move in moves:
            state.apply_action(int(move))
        exact = solved(state)
        result = _prove_natively(state, 0.0, len(moves))
        assert result.lower == result.upper == exact
        child = state.child(result.action)
        assert child.is_terminal() or -solved(child) == exact


def test_rollout_bounds_hold_before_the_proof_on_pig() -> None:
    game = pyspiel.load_game("pig(horizon=6,winscore=5,diceoutcomes=3)")
    state = game.new_initial_state()
    exact = minimax.expectiminimax(state, 100, None, 0)[0]
    tree = make_tree(
        state,
        evaluator=make_evaluator("rollout", game, seed=2),
        settings=BABMCTSSettings(simulations=200),
        rng=2,
    )
    assert isinstance(tree, NativeBABMCTSTree)  # "auto": the rollouts have a C++ twin
    for _ in range(10):
        result = tree.search()
        assert result.lower - 1e-12 <= exact <= result.upper + 1e-12


# -- engine choice, bots, reuse -------------------------------------------------------------------


def test_auto_prefers_the_native_tree_where_the_evaluator_has_a_twin() -> None:
    connect_four = pyspiel.load_game("connect_four")
    pig = pyspiel.load_game("pig(winscore=10)")
    auto = BABMCTSSettings()
    for game in (connect_four, pig):
        for name in ("rollout", "zero"):
            assert tree_engine(game, make_evaluator(name, game), auto) == "native"
    assert tree_engine(connect_four, make_evaluator("heuristic", connect_four), auto) == "native"
    assert tree_engine(pig, HashEvaluator(pig), auto) == "python"
    native = BABMCTSSettings(engine="native")
    assert tree_engine(pig, HashEvaluator(pig), native) == "native"
    result = babmcts(
        connect_four.new_initial_state(),
        evaluator=make_evaluator("rollout", connect_four),
        settings=BABMCTSSettings(simulations=50),
    )
    assert result.stats.engine == "native"
    python = BABMCTSSettings(simulations=50, engine="python")
    state = connect_four.new_initial_state()
    assert babmcts(state, evaluator=HashEvaluator(connect_four), settings=python).stats.engine == (
        "python"
    )


def test_bots_on_either_tree_play_the_same_game() -> None:
    """The bot, tree kept between moves and informed of the replies, plays the same moves on
    either tree (the heuristic's C++ twin values as the Python heuristic does)."""
    game = pyspiel.load_game("connect_four")
    games = []
    for engine in ("python", "native"):
        bots = [
            load_bot("babmcts", game, 0, engine=engine, evaluator="heuristic", simulations=200),
            load_bot("mcts", game, 1, simulations=200, seed=4),
        ]
        state = game.new_initial_state()
        while not state.is_terminal():
            player = state.current_player()
            action = bots[player].step(state)
            if player == 1:
                bots[0].inform_action(state, player, action)
            state.apply_action(action)
        assert bots[0].last_result.stats.engine == engine
        games.append(state.history())
    assert games[0] == games[1]


def test_without_the_native_engine_auto_falls_back_and_native_is_a_clear_error() -> None:
    script = """
import warnings
import pyspiel
from spiel_bounded import load_bot
state = pyspiel.load_game("connect_four").new_initial_state()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    for _ in range(3):
        bot = load_bot("babmcts", "connect_four", 0, simulations=50)
        bot.step(state)
        assert bot.last_result.stats.engine == "python", bot.last_result.stats
print(len(caught), caught[0].message)
try:
    load_bot("babmcts", "connect_four", 0, engine="native")
except ValueError as error:
    print(error)
"""
    warned, refused = run_without_native(script)
    assert warned.startswith("1 the native engine is disabled (SPIEL_BOUNDED_NATIVE=0)")
    assert "babmcts: engine='native' was asked for, but the native engine is disabled" in refused


def test_the_bot_keeps_its_tree_and_plays_legal_moves() -> None:
    for name in ("connect_four", "pig(winscore=10)"):
        game = pyspiel.load_game(name)
        bots = [
            load_bot("babmcts", game, 0, simulations=100, seed=3, engine="native"),
            load_bot("random", game, 1, seed=3),
        ]
        state = game.new_initial_state()
        rng = np.random.default_rng(0)
        reused = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                action = int(rng.choice(outcomes, p=probs))
                for bot in bots:
                    bot.inform_action(state, pyspiel.PlayerId.CHANCE, action)
            else:
                player = state.current_player()
                action = bots[player].step(state)
                assert action in state.legal_actions()
                if player == 0:
                    tree = bots[0].tree
                    assert isinstance(tree, NativeBABMCTSTree)
                    reused += bots[0].last_result.stats.reused_nodes
                else:
                    bots[0].inform_action(state, player, action)
            state.apply_action(action)
        assert reused > 0


def test_reuse_keeps_the_subtree_and_sync_follows_the_history() -> None:
    game = pyspiel.load_game("tic_tac_toe")
    state = game.new_initial_state()
    tree = NativeBABMCTSTree(
        state, evaluator=make_evaluator("zero", game), settings=BABMCTSSettings(simulations=300)
    )
    first = tree.search()
    child = tree.root.children()[first.action]
    kept_visits = child.n
    below = {
        path[1:]: node for path, node in tree.snapshot().items() if path[:1] == (first.action,)
    }
    assert tree.advance(first.action)
    assert tree.root.n == kept_visits
    assert tree.snapshot() == below  # the subtree kept node for node, nothing else
    assert tree.size == len(below)
    reply = tree.root.actions[0]
    later = state.child(first.action).child(reply)
    expected = tree.root.children()[reply].n
    assert tree.sync(later)
    assert tree.root.n == expected
    again = tree.search()
    assert again.stats.reused_nodes == tree.size - again.stats.nodes
    assert not tree.sync(game.new_initial_state())  # not below the root: rebuilt
    assert tree.size == 1


def test_the_memory_cap_is_never_exceeded() -> None:
    game = pyspiel.load_game("connect_four")
    settings = BABMCTSSettings(simulations=UNTIL_PROVED, max_nodes=400, engine="native")
    tree = make_tree(game.new_initial_state(), evaluator=make_evaluator("rollout", game))
    tree = make_tree(
        game.new_initial_state(), evaluator=make_evaluator("rollout", game), settings=settings
    )
    result = tree.search()
    assert result.stats.stopped_by == "nodes"
    assert tree.size == 400
    tree.advance(result.action)
    assert tree.search().stats.tree_nodes <= 400


# -- limits, signals and bad input ----------------------------------------------------------------


def test_the_time_limit_on_an_injected_clock() -> None:
    game = pyspiel.load_game("connect_four")
    clock = FakeClock()
    evaluator = ClockedEvaluator(HashEvaluator(game), clock, cost=0.1)
    tree = NativeBABMCTSTree(
        game.new_initial_state(),
        evaluator=evaluator,
        settings=BABMCTSSettings(simulations=None),
        clock=clock,
    )
    result = tree.search(Limits(seconds=1.0))
    assert result.stats.stopped_by == "seconds"
    assert 9 <= result.stats.evaluations <= 11
    assert result.stats.seconds == pytest.approx(clock.now)


def test_a_signal_stops_a_native_search_and_leaves_the_tree_usable() -> None:
    class Interrupted(Exception):
        pass

    def interrupt(signum: int, frame: FrameType | None) -> None:
        raise Interrupted

    game = pyspiel.load_game("connect_four")
    tree = NativeBABMCTSTree(
        game.new_initial_state(),
        evaluator=make_evaluator("rollout", game),
        settings=BABMCTSSettings(simulations=UNTIL_PROVED),
    )
    previous = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, 0.2)
    try:
        with pytest.raises(Interrupted):  # unlimited: only the signal can end it
            tree.search()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert tree.simulations > 0
    assert tree.root.n == tree.simulations
    assert tree.size == 1 + sum(1 for path in tree.snapshot() if path)
    assert tree.search(Limits(nodes=10)).stats.stopped_by == "nodes"


class BadEvaluator:
    name = "bad"

    def evaluate(self, state: pyspiel.State) -> Sequence[float]:
        return (3.0, -3.0)


def test_bad_input_is_refused_clearly(monkeypatch: pytest.MonkeyPatch) -> None:
    game = pyspiel.load_game("tic_tac_toe")
    state = game.new_initial_state()
    native = BABMCTSSettings(engine="native")
    with pytest.raises(ValueError, match=r"evaluator 'bad' returned 3.0 .*outside the value range"):
        babmcts(state, evaluator=BadEvaluator(), settings=native)
    tree = NativeBABMCTSTree(state, evaluator=BadEvaluator())
    with pytest.raises(ValueError, match="outside the value range"):
        tree.search()
    assert tree.size == 1 and tree.simulations == 0  # the failed simulation left no trace
    with pytest.raises(ValueError, match="does not take a depth limit"):
        tree.search(Limits(depth=3))
    terminal = state.clone()
    for action in (0, 3, 1, 4, 2):
        terminal.apply_action(action)
    with pytest.raises(ValueError, match="non-terminal"):
        NativeBABMCTSTree(terminal, evaluator=HashEvaluator(game))
    with pytest.raises(ValueError, match="not legal at the tree's root"):
        tree.advance(99)
    pig = pyspiel.load_game("pig(winscore=10)")
    chance = pig.new_initial_state().child(0)  # roll
    assert chance.is_chance_node()
    with pytest.raises(ValueError, match="needs a decision state"):
        babmcts(chance, evaluator=HashEvaluator(pig), settings=native)
    chance_tree = NativeBABMCTSTree(chance, evaluator=HashEvaluator(pig))
    with pytest.raises(ValueError, match="searches from decision nodes, not chance nodes"):
        chance_tree.search()
    with pytest.raises(ValueError, match=r"must be one of auto, native, python; got 'c\+\+'$"):
        BABMCTSSettings(engine="c++")
    with pytest.raises(ValueError, match=r"got 'compiled': the numba tree .* was removed"):
        load_bot("babmcts", game, 0, engine="compiled")
    with pytest.raises(ValueError, match="kuhn_poker"):
        NativeBABMCTSTree(
            pyspiel.load_game("kuhn_poker").new_initial_state(), evaluator=HashEvaluator(game)
        )
    monkeypatch.setattr(babmcts_module, "engine_module", _unavailable)
    with pytest.raises(ValueError, match="engine='native' was asked for, but it is not built"):
        babmcts(state, evaluator=HashEvaluator(game), settings=native)


def _unavailable(algorithm: str) -> None:
    raise ValueError(f"{algorithm}: engine='native' was asked for, but it is not built")
