"""The compiled BABMCTS tree against the reference: the same search, node for node."""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from dataclasses import replace
from itertools import permutations

import numpy as np
import pyspiel
import pytest

from spiel_bounded import load_bot, make_evaluator, synthetic
from spiel_bounded.evaluators import Evaluator
from spiel_bounded.limits import Limits
from spiel_bounded.native import evaluators as native_evaluators
from spiel_bounded.result import SearchResult
from spiel_bounded.search import mcts_kernels as kernels
from spiel_bounded.search.babmcts import make_tree
from spiel_bounded.search.mcts import BABMCTSTree
from spiel_bounded.search.mcts_base import (
    BABMCTSSettings,
    BABMCTSTreeBase,
    shuffle_actions,
    shuffle_plan,
    shuffle_word,
)
from spiel_bounded.search.mcts_compiled import CompiledBABMCTSTree
from spiel_bounded.testing import random_positions

UNTIL_PROVED = 10**9  # a count no test reaches: the search runs until the root is proved

Tree = BABMCTSTreeBase


def _timeless(result: SearchResult) -> SearchResult:
    return replace(result, stats=replace(result.stats, seconds=0.0))


def _assert_same(python: Tree, compiled: Tree, results: tuple[SearchResult, SearchResult]) -> None:
    assert compiled.snapshot() == python.snapshot()
    assert _timeless(results[1]) == _timeless(results[0])
    assert (compiled.simulations, compiled.evaluations, compiled.fallbacks, compiled.size) == (
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
) -> int:
    """Searches with both trees, then follows the move and a random reply with both (keeping
    the subtree), `moves` times; checks they agree after every search. Returns the simulations
    run by one tree."""
    trees: list[Tree] = [
        cls(state, evaluator=new_evaluator(), settings=settings, rng=11)
        for cls in (BABMCTSTree, CompiledBABMCTSTree)
    ]
    chooser = random.Random(5)
    for move in range(moves):
        results = (trees[0].search(limits), trees[1].search(limits))
        _assert_same(trees[0], trees[1], results)
        state = state.child(results[0].action)
        if state.is_terminal():
            break
        reply = chooser.choice(state.legal_actions())
        if state.child(reply).is_terminal():
            break
        for tree in trees:
            tree.advance(results[0].action)
            tree.advance(reply)
            tree.reseed(100 + move)
        state = state.child(reply)
    return trees[0].simulations


def _rollouts(game: pyspiel.Game) -> Callable[[], Evaluator]:
    return lambda: make_evaluator("rollout", game, seed=3)


CASES = [
    ("tic_tac_toe", 0.0, True, 400),
    ("tic_tac_toe", 0.5, True, 400),
    ("tic_tac_toe", 0.0, False, 400),
    ("connect_four", 0.0, True, 600),
    ("connect_four", 0.5, True, 600),
    ("connect_four", 0.0, False, 600),
    ("breakthrough(rows=6,columns=5)", 0.0, True, 300),
    ("breakthrough(rows=6,columns=5)", 1.0, True, 300),
]


@pytest.mark.parametrize(("name", "epsilon", "prune", "simulations"), CASES)
def test_same_tree_as_the_reference_over_a_game(
    name: str, epsilon: float, prune: bool, simulations: int
) -> None:
    game = pyspiel.load_game(name)
    settings = BABMCTSSettings(epsilon=epsilon, prune=prune, simulations=simulations)
    state = random_positions(game, 1, plies=2, seed=7)[0]
    _play_both(state, _rollouts(game), settings, Limits(), moves=3)


@pytest.mark.parametrize("epsilon", [0.0, 0.05, 0.3])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_same_tree_and_proof_as_the_reference_on_synthetic_trees(epsilon: float, seed: int) -> None:
    game = synthetic.make_game(branching=4, depth=6, seed=seed)
    settings = BABMCTSSettings(epsilon=epsilon, simulations=UNTIL_PROVED)
    state = game.new_initial_state()
    python = BABMCTSTree(
        state, evaluator=make_evaluator("rollout", game, seed=seed), settings=settings, rng=seed
    )
    compiled = CompiledBABMCTSTree(
        state, evaluator=make_evaluator("rollout", game, seed=seed), settings=settings, rng=seed
    )
    results = (python.search(), compiled.search())
    assert results[0].stats.stopped_by == "solved"
    _assert_same(python, compiled, results)


def test_same_tree_with_a_heuristic_and_the_limits() -> None:
    game = pyspiel.load_game("connect_four")
    state = random_positions(game, 1, plies=6, seed=3)[0]

    def heuristic() -> Evaluator:
        return make_evaluator("heuristic", game)

    # A node limit that stops mid-search, then a memory cap that stops it and drops a full tree.
    _play_both(state, heuristic, BABMCTSSettings(simulations=None), Limits(nodes=333), moves=3)
    _play_both(
        state, heuristic, BABMCTSSettings(simulations=UNTIL_PROVED, max_nodes=500), Limits(), 3
    )


def test_shuffle_one_word_is_shuffle_actions() -> None:
    rng = random.Random(1)
    for count in range(1, 21):
        assert len(shuffle_plan(count)) == (1 if count > 1 else 0)
        for _ in range(20):
            state = rng.getstate()
            expected = list(range(100, 100 + count))
            shuffle_actions(expected, rng.getrandbits)
            rng.setstate(state)
            actions = np.arange(100, 100 + count, dtype=np.int64)
            if count > 1:
                word = shuffle_word(shuffle_plan(count)[0][2], rng.getrandbits)
                assert actions[word % count] == expected[0]  # the first child, known at once
                kernels.shuffle_one_word(actions, word)
            assert actions.tolist() == expected
    assert len(shuffle_plan(21)) == 2


def test_shuffle_actions_is_uniform() -> None:
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


def test_auto_engine_picks_the_compiled_tree_where_it_can(monkeypatch: pytest.MonkeyPatch) -> None:
    # Where the evaluator has a C++ twin, "auto" prefers the native tree when it is built
    # (tests/test_native_mcts.py); without it:
    monkeypatch.setattr(native_evaluators, "available", lambda: False)
    connect_four = pyspiel.load_game("connect_four")
    state = connect_four.new_initial_state()
    rollout = make_evaluator("rollout", connect_four)
    assert isinstance(make_tree(state, evaluator=rollout), CompiledBABMCTSTree)
    python = BABMCTSSettings(engine="python")
    assert type(make_tree(state, evaluator=rollout, settings=python)) is BABMCTSTree
    pig = pyspiel.load_game("pig(winscore=10)")
    pig_state = pig.new_initial_state()
    assert type(make_tree(pig_state, evaluator=make_evaluator("zero", pig))) is BABMCTSTree
    with pytest.raises(ValueError, match="the game has chance nodes"):
        make_tree(
            pig_state,
            evaluator=make_evaluator("zero", pig),
            settings=BABMCTSSettings(engine="compiled"),
        )


class _PriorEvaluator:
    name = "prior"

    def evaluate(self, state: pyspiel.State) -> list[float]:
        return [0.0, 0.0]

    def prior(self, state: pyspiel.State) -> list[tuple[int, float]]:
        actions = state.legal_actions()
        return [(a, 1.0 / len(actions)) for a in actions]


def test_priors_stay_with_the_reference() -> None:
    state = pyspiel.load_game("tic_tac_toe").new_initial_state()
    assert type(make_tree(state, evaluator=_PriorEvaluator())) is BABMCTSTree
    no_priors = BABMCTSSettings(priors=False)
    tree = make_tree(state, evaluator=_PriorEvaluator(), settings=no_priors)
    assert isinstance(tree, CompiledBABMCTSTree)
    with pytest.raises(ValueError, match="has priors"):
        CompiledBABMCTSTree(state, evaluator=_PriorEvaluator())


def test_without_numba_auto_is_python_and_compiled_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "numba", None)  # import numba now raises ImportError
    monkeypatch.setattr(native_evaluators, "available", lambda: False)
    game = pyspiel.load_game("connect_four")
    state = game.new_initial_state()
    rollout = make_evaluator("rollout", game)
    assert type(make_tree(state, evaluator=rollout)) is BABMCTSTree
    bot = load_bot("babmcts", game, 0, simulations=50)
    bot.step(state)
    assert type(bot.tree) is BABMCTSTree
    with pytest.raises(ValueError, match=r"numba is not installed.*spiel-bounded\[fast\]"):
        load_bot("babmcts", game, 0, engine="compiled")


def test_bot_engines_play_the_same_moves() -> None:
    game = pyspiel.load_game("connect_four")
    games = []
    for engine in ("python", "compiled"):
        bots = [
            load_bot("babmcts", game, 0, engine=engine, simulations=200, seed=4),
            load_bot("mcts", game, 1, simulations=200, seed=4),
        ]
        state = game.new_initial_state()
        while not state.is_terminal():
            action = bots[state.current_player()].step(state)
            for bot in bots:
                if bot is not bots[state.current_player()]:
                    bot.inform_action(state, state.current_player(), action)
            state.apply_action(action)
        games.append(state.history())
    assert games[0] == games[1]


def test_bad_engine_is_refused() -> None:
    game = pyspiel.load_game("connect_four")
    with pytest.raises(
        ValueError, match="must be one of auto, python, compiled, native; got 'numba'"
    ):
        load_bot("babmcts", game, 0, engine="numba")
    with pytest.raises(ValueError, match="must be one of auto, python, compiled"):
        BABMCTSSettings(engine="fast")
    pig = pyspiel.load_game("pig(winscore=10)")
    with pytest.raises(ValueError, match=r"engine=.compiled. cannot play pig.*chance nodes"):
        load_bot("babmcts", pig, 0, engine="compiled")


def test_compaction_keeps_the_subtree_in_place() -> None:
    game = pyspiel.load_game("connect_four")
    state = game.new_initial_state()
    tree = CompiledBABMCTSTree(
        state,
        evaluator=make_evaluator("rollout", game, seed=1),
        settings=BABMCTSSettings(simulations=2000),
        rng=1,
    )
    tree.search()
    action = tree.best_action()
    before = {path[1:]: stats for path, stats in tree.snapshot().items() if path[:1] == (action,)}
    assert tree.advance(action)
    assert tree.snapshot() == before
    assert tree.size == len(before) == int(tree.scratch[kernels.USED])
