"""Min/max approximation: exact with an unbounded budget, weights and penalties as computed by
hand, incremental updates equal to a whole-tree recomputation, budgets and bad input."""

from __future__ import annotations

import math
import weakref
from typing import Any

import pyspiel
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spiel_bounded import load_bot, oracles
from spiel_bounded.evaluators import ZeroEvaluator, make_evaluator
from spiel_bounded.games import game_info
from spiel_bounded.limits import Budget, Limits
from spiel_bounded.search import rivest as rivest_module
from spiel_bounded.search.rivest import (
    FREE_SECONDS_PER_NODE,
    REVERSE_BASE,
    MinMaxTree,
    RivestNode,
    RivestSettings,
    recompute,
    rivest,
)
from spiel_bounded.synthetic import make_game
from spiel_bounded.testing import random_positions

MODES = ("reverse", "generalized")


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    branching=st.integers(2, 4),
    depth=st.integers(1, 6),
    integer=st.booleans(),
    mode=st.sampled_from(MODES),
)
def test_unbounded_search_is_exact_on_trees(
    seed: int, branching: int, depth: int, integer: bool, mode: str
) -> None:
    game = make_game(branching=branching, depth=depth, seed=seed, integer_values=int(integer))
    state = game.new_initial_state()
    result = rivest(
        state, evaluator=make_evaluator("heuristic", game), settings=RivestSettings(mode=mode)
    )
    assert result.bounds_game_value and result.stats.stopped_by == "solved"
    assert result.lower == pytest.approx(oracles.solve(state)[0], abs=1e-9)
    assert result.action in oracles.optimal_actions(state, tolerance=1e-9)


@pytest.mark.parametrize("mode", MODES)
def test_unbounded_search_is_exact_on_tic_tac_toe(mode: str) -> None:
    game = pyspiel.load_game("tic_tac_toe")
    evaluator = make_evaluator("heuristic", game)
    for state in random_positions(game, 12, plies=(1, 6), seed=4):
        result = rivest(state, evaluator=evaluator, settings=RivestSettings(mode=mode))
        player = state.current_player()
        assert result.bounds_game_value
        assert result.lower == oracles.solve(state)[player]
        assert result.action in oracles.optimal_actions(state)


def _tree_of(values: list[list[float]], mode: str, p: float) -> MinMaxTree:
    """A max root over min nodes over tips with the given mapped values."""
    game = pyspiel.load_game("tic_tac_toe")
    tree = MinMaxTree(
        game.new_initial_state(),
        ZeroEvaluator(game),
        game_info(game),
        RivestSettings(mode=mode, p=p),
    )
    root = RivestNode(None, True, 0)
    root.actions, root.children = list(range(len(values))), []
    for tips in values:
        middle = RivestNode(None, False, 1)
        middle.actions, middle.children = list(range(len(tips))), []
        for value in tips:
            tip = RivestNode(None, True, 2)
            tip.value = value
            middle.children.append(tip)
        root.children.append(middle)
    tree.root = root
    recompute(tree)
    return tree


HAND_TREE = [[400.0, 600.0], [300.0, 900.0, 500.0]]


def test_reverse_weights_and_penalties_by_hand() -> None:
    for p in (2.0, 10.0):  # p plays no part in reverse mode
        tree = _tree_of(HAND_TREE, "reverse", p)
        a, b = tree.root.children
        assert (a.value, b.value, tree.root.value) == (400.0, 300.0, 400.0)
        assert [tip.weight for tip in a.children] == pytest.approx([0.05, 0.05 + 0.4054651])
        assert [tip.weight for tip in b.children] == pytest.approx(
            [0.05, 0.05 + 1.0986123, 0.05 + 0.5108256]
        )
        assert (a.penalty, b.penalty) == pytest.approx((0.05, 0.05))
        assert (a.weight, b.weight) == pytest.approx((0.05, 0.05 + 0.2876821))
        assert tree.root.penalty == pytest.approx(0.1)
        assert tree.select() == [tree.root, a, a.children[0]]
    assert REVERSE_BASE == 0.05


def _mean(values: list[float], q: float) -> float:
    return (sum(value**q for value in values) / len(values)) ** (1 / q)


@pytest.mark.parametrize("p", [2.0, 10.0])
def test_generalized_weights_and_penalties_by_hand(p: float) -> None:
    tree = _tree_of(HAND_TREE, "generalized", p)
    a, b = tree.root.children
    value_a, value_b = _mean(HAND_TREE[0], -p), _mean(HAND_TREE[1], -p)
    value_root = _mean([value_a, value_b], p)
    assert (a.value, b.value, tree.root.value) == pytest.approx((value_a, value_b, value_root))

    def weight(n: int, q: float, child: float, parent: float) -> float:
        # -ln of the derivative (1/n) (child / parent)^(q - 1)
        return -math.log((child / parent) ** (q - 1) / n)

    paths = {}
    for middle, tips, value in ((a, HAND_TREE[0], value_a), (b, HAND_TREE[1], value_b)):
        edge = weight(2, p, value, value_root)
        assert middle.weight == pytest.approx(edge)
        for tip, tip_value in zip(middle.children, tips, strict=True):
            assert tip.weight == pytest.approx(weight(len(tips), -p, tip_value, value))
            paths[id(tip)] = edge + tip.weight
    assert tree.root.penalty == pytest.approx(min(paths.values()))
    chosen = tree.select()[-1]
    assert paths[id(chosen)] == pytest.approx(min(paths.values()))


def _snapshot(node: RivestNode) -> list[float]:
    rows = [node.value, node.weight, node.penalty, float(node.solved)]
    for child in node.children:
        rows += _snapshot(child)
    return rows


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    mode=st.sampled_from(MODES),
    p=st.sampled_from([2.0, 10.0]),
    steps=st.integers(1, 60),
)
def test_incremental_updates_equal_a_full_recomputation(
    seed: int, mode: str, p: float, steps: int
) -> None:
    game = make_game(branching=3, depth=6, seed=seed)
    state = game.new_initial_state()
    tree = MinMaxTree(
        state, make_evaluator("heuristic", game), game_info(game), RivestSettings(mode=mode, p=p)
    )
    budget = Budget(Limits())
    for _ in range(steps):
        if not tree.step(budget):
            break
        incremental = _snapshot(tree.root)
        recompute(tree)
        assert _snapshot(tree.root) == pytest.approx(incremental)


def test_budgets_and_result() -> None:
    game = pyspiel.load_game("connect_four")
    state = game.new_initial_state()
    evaluator = make_evaluator("heuristic", game)
    result = rivest(state, evaluator=evaluator, limits=Limits(nodes=500))
    assert result.stats.stopped_by == "nodes" and result.stats.nodes <= 501
    assert result.bounds_on.kind == "estimate" and result.stats.depth >= 2
    assert set(result.children) == set(state.legal_actions())
    assert (
        result.children[result.action].lower
        == result.lower
        == max(bounds.lower for bounds in result.children.values())
    )
    shallow = rivest(state, evaluator=evaluator, limits=Limits(depth=2))
    assert shallow.stats.stopped_by == "depth" and shallow.stats.depth == 2
    assert shallow.stats.nodes == 7 + 7 * 7


def test_bot_and_bad_input() -> None:
    bot = load_bot("rivest", "connect_four", 0, nodes=300)
    state = pyspiel.load_game("connect_four").new_initial_state()
    assert bot.step(state) in state.legal_actions()
    with pytest.raises(ValueError, match=r"'mode' of bot 'rivest'.*reverse, generalized"):
        load_bot("rivest", "connect_four", 0, mode="exact")
    with pytest.raises(ValueError, match=r"'p' of bot 'rivest'.*> 1"):
        load_bot("rivest", "connect_four", 0, p=1)
    with pytest.raises(ValueError, match="chance nodes"):
        load_bot("rivest", "backgammon", 0)
    with pytest.raises(ValueError, match=r"3 players \(supported: 2\)"):
        load_bot("rivest", "chinese_checkers(players=3)", 0)


def test_the_tree_never_outgrows_its_memory_cap() -> None:
    game = pyspiel.load_game("connect_four")
    evaluator = make_evaluator("heuristic", game)
    result = rivest(
        game.new_initial_state(), evaluator=evaluator, settings=RivestSettings(max_nodes=1_000)
    )
    assert result.stats.stopped_by == "nodes" and 900 < result.stats.nodes < 1_000
    assert RivestSettings().max_nodes == 250_000  # the manual's figure
    with pytest.raises(ValueError, match="max_nodes"):
        RivestSettings(max_nodes=0)


def test_the_time_freeing_the_tree_takes_is_part_of_the_search(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The clock's last read, which `stats.seconds` reports, must come after the tree is freed.
    trees: list[weakref.ref[MinMaxTree]] = []

    class WatchedTree(MinMaxTree):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            trees.append(weakref.ref(self))

    reads: list[bool] = []

    def clock() -> float:
        reads.append(bool(trees) and trees[0]() is not None)  # the tree still alive?
        return float(len(reads))

    monkeypatch.setattr(rivest_module, "MinMaxTree", WatchedTree)
    game = pyspiel.load_game("connect_four")
    result = rivest(
        game.new_initial_state(),
        evaluator=make_evaluator("heuristic", game),
        limits=Limits(nodes=300),
        settings=RivestSettings(engine="python"),  # the Python tree is watched
        clock=clock,
    )
    assert trees and trees[0]() is None
    assert any(reads) and reads[-1] is False  # freed before the last read
    assert result.stats.seconds == len(reads) - 1.0


def test_a_timed_search_stops_in_time_to_free_its_tree() -> None:
    # A frozen clock never reaches the limit: only the time freeing the tree would take stops
    # the search, at 1,000 nodes for 2 ms at 2 us a node.
    game = pyspiel.load_game("connect_four")
    result = rivest(
        game.new_initial_state(),
        evaluator=make_evaluator("heuristic", game),
        limits=Limits(seconds=1_000 * FREE_SECONDS_PER_NODE),
        settings=RivestSettings(engine="python"),  # the native tree's cost per node is its own
        clock=lambda: 0.0,
    )
    assert result.stats.stopped_by == "seconds" and 990 <= result.stats.nodes <= 1_010
    assert result.stats.seconds == 0.0
