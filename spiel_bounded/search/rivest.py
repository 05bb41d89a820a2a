"""Best-first search by min/max approximation (R. L. Rivest, "Game Tree Searching by Min/Max
Approximation", Artificial Intelligence 34, 1987) for two-player zero-sum deterministic games.

An explicit partial tree grows from the root: the tip with the least sum of edge weights on its
path (minus the log of how much each parent's generalized mean depends on its child) is
expanded next, all its children at once, and only that path is updated. The move is the root
child with the best backed-up value (an estimate unless the root is solved). The values, weights,
solved subtrees, budgets and memory are explained in the manual (docs/algorithms.md); the native
engine (`native/src/rivest.cc`) follows this module step for step.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

import pyspiel

from spiel_bounded.evaluators.base import Evaluator, check_values
from spiel_bounded.games import TWO_PLAYER_ZERO_SUM, GameInfo, require_decision_state
from spiel_bounded.limits import STOPPED_BY_NODES, STOPPED_BY_SECONDS, Budget, Limits, SearchStopped
from spiel_bounded.native import ENGINES, engine_module, time_arguments
from spiel_bounded.params import POSITIVE_INT, Number, OneOf, check_fields, setting
from spiel_bounded.result import (
    GAME_VALUE,
    Interval,
    SearchResult,
    SearchStats,
    StopReason,
    estimate,
)
from spiel_bounded.search.native_evaluators import native_evaluator

ALGORITHM: Final = "rivest"
MODES: Final = ("reverse", "generalized")
TOP: Final = 1023.0
"""The mapped value of a win for the root player (a loss is 1)."""
DEFAULT_MAX_NODES: Final = 250_000
"""The default memory cap: about 220 MB of tree on connect_four."""
FREE_SECONDS_PER_NODE: Final = 2e-6
"""What freeing one tree node costs, at most (1.85 us measured on connect_four with both cores
busy): a timed search stops when the time left would not free its tree."""
NATIVE_FREE_SECONDS_PER_NODE: Final = 2e-7
"""`FREE_SECONDS_PER_NODE` of the native engine's tree (a flat array of nodes, each with the state
of a tip): an upper estimate."""
REVERSE_BASE: Final = 0.05
"""reverse mode: the constant part of every edge weight (Rivest's implementation)."""


@dataclass(frozen=True, kw_only=True)
class RivestSettings:
    """Settings of min/max approximation."""

    mode: str = setting(
        "reverse",
        "reverse (minimax values, Rivest's edge penalty) or generalized (p-mean values)",
        OneOf(MODES),
    )
    p: float = setting(
        10.0,
        "exponent of the generalized mean (generalized mode)",
        Number(minimum=1.0, strict=True),
    )
    max_nodes: int = setting(
        DEFAULT_MAX_NODES,
        "memory cap: the tree never holds more nodes (about 870 bytes each on connect_four); "
        "a full tree ends the search like a node limit",
        POSITIVE_INT,
    )
    engine: str = setting(
        "auto",
        "auto (native when built and the evaluator has a C++ twin), native (a Python evaluator "
        "is called back) or python",
        OneOf(ENGINES),
    )
    # The native engine (`spiel_bounded.native`) follows this module step for step: after the
    # same number of expansions it holds the same tree and returns the same move, children and
    # principal variation.

    def __post_init__(self) -> None:
        check_fields(self)


class RivestNode:
    """A node of the partial tree. `value` is the root player's, mapped to [1, TOP].

    Attributes:
        state: The position (dropped once expanded).
        maximizing: The root player moves here (False: the opponent, or a terminal).
        depth: Plies below the root.
        value: Backed-up value in [1, TOP] (the root player's).
        solved: `value` is the exact minimax value; the node is never expanded.
        penalty: Least sum of weights from here to an expandable tip (inf: none).
        weight: Weight of the edge from the parent (0 at the root).
        actions: The moves to the children (an empty tuple until expanded, which saves a tip
            two lists).
        children: The children, in `legal_actions()` order (likewise).
    """

    __slots__ = (
        "actions",
        "children",
        "depth",
        "maximizing",
        "penalty",
        "solved",
        "state",
        "value",
        "weight",
    )

    def __init__(self, state: pyspiel.State | None, maximizing: bool, depth: int) -> None:
        self.state = state
        self.maximizing = maximizing
        self.depth = depth
        self.value = 0.0
        self.solved = False
        self.penalty = 0.0
        self.weight = 0.0
        self.actions: Sequence[int] = ()
        self.children: Sequence[RivestNode] = ()


def generalized_mean(values: list[float], q: float) -> float:
    """`M_q(values) = ((1/n) sum v^q)^(1/q)` for positive values, computed in log space."""
    logs = [q * math.log(value) for value in values]
    top = max(logs)
    total = sum(math.exp(log - top) for log in logs)
    return math.exp((top + math.log(total / len(values))) / q)


class MinMaxTree:
    """The partial tree and its update rules (one search from one root)."""

    def __init__(
        self,
        state: pyspiel.State,
        evaluator: Evaluator,
        info: GameInfo,
        settings: RivestSettings,
        max_depth: int | None = None,
    ) -> None:
        self.info = info
        self.evaluator = evaluator
        self.player = state.current_player()
        self.generalized = settings.mode == "generalized"
        self.p = settings.p
        self.max_depth = max_depth
        self.max_nodes = settings.max_nodes
        self.size = 1  # nodes in the tree
        self.evaluations = 0
        self.tree_depth = 0
        self._low = info.min_utility
        self._scale = (TOP - 1.0) / (info.max_utility - info.min_utility)
        self.root = self._leaf(state.clone(), 0)

    # -- values ----------------------------------------------------------------------------

    def mapped(self, utility: float) -> float:
        """A utility of the root player mapped into [1, TOP]."""
        return 1.0 + (utility - self._low) * self._scale

    def utility(self, value: float) -> float:
        """The inverse of `mapped`."""
        return self._low + (value - 1.0) / self._scale

    def _leaf(self, state: pyspiel.State, depth: int) -> RivestNode:
        node = RivestNode(state, state.current_player() == self.player, depth)
        if state.is_terminal():
            node.value = self.mapped(state.returns()[self.player])
            node.solved = True
            node.penalty = math.inf
            node.state = None
            return node
        self.evaluations += 1
        values = check_values(self.evaluator.evaluate(state), self.evaluator, self.info)
        node.value = self.mapped(values[self.player])
        if self.max_depth is not None and depth >= self.max_depth:
            node.penalty = math.inf  # at the depth limit: never expanded
        return node

    def weight(self, parent: RivestNode, child: RivestNode) -> float:
        """The weight of the edge parent -> child (docs/algorithms.md)."""
        if not self.generalized:
            return REVERSE_BASE + abs(math.log(parent.value) - math.log(child.value))
        q = self.p if parent.maximizing else -self.p
        count = len(parent.children)
        return math.log(count) - (q - 1.0) * (math.log(child.value) - math.log(parent.value))

    def back_up(self, node: RivestNode) -> None:
        """Recomputes an expanded node's value, solved flag, children's weights and penalty
        from its children."""
        children = node.children
        values = [child.value for child in children]
        decisive = TOP if node.maximizing else 1.0
        node.solved = all(child.solved for child in children) or any(
            child.solved and child.value == decisive for child in children
        )
        if node.solved:
            exact = [child.value for child in children if child.solved]
            node.value = max(exact) if node.maximizing else min(exact)
        elif self.generalized:
            node.value = generalized_mean(values, self.p if node.maximizing else -self.p)
        else:
            node.value = max(values) if node.maximizing else min(values)
        penalty = math.inf
        for child in children:
            child.weight = self.weight(node, child)
            penalty = min(penalty, child.weight + child.penalty)
        node.penalty = math.inf if node.solved else penalty

    # -- search ----------------------------------------------------------------------------

    def select(self) -> list[RivestNode]:
        """The path from the root to the tip of least penalty (root first)."""
        path = [self.root]
        node = self.root
        while node.children:
            node = min(node.children, key=lambda child: child.weight + child.penalty)
            path.append(node)
        return path

    def expand(self, tip: RivestNode, budget: Budget) -> None:
        """Generates all the tip's children (one budget tick each) and values them; a budget
        that runs out, or children that would overfill the tree, leave the tip as it was."""
        state = tip.state
        assert state is not None, "an expanded or terminal node"
        actions = state.legal_actions()
        if self.size + len(actions) > self.max_nodes:
            raise SearchStopped(STOPPED_BY_NODES)
        children = []
        for action in actions:
            budget.tick()
            children.append(self._leaf(state.child(action), tip.depth + 1))
        tip.actions, tip.children, tip.state = actions, children, None
        self.size += len(children)
        self.tree_depth = max(self.tree_depth, tip.depth + 1)

    def step(self, budget: Budget) -> bool:
        """Expands the best tip and updates its path; False when nothing is left to expand."""
        if self.root.penalty == math.inf:
            return False
        path = self.select()
        self.expand(path[-1], budget)
        for node in reversed(path):
            self.back_up(node)
        return True

    def best_child(self) -> int:
        """Index of the root child with the best value for the root player (first among
        equals)."""
        values = [child.value for child in self.root.children]
        return values.index(max(values))


def recompute(tree: MinMaxTree, node: RivestNode | None = None) -> None:
    """Recomputes every value, weight and penalty below `node` (the root by default) from the
    tips up: the reference the incremental updates must match."""
    node = node or tree.root
    if not node.children:
        return
    for child in node.children:
        recompute(tree, child)
    tree.back_up(node)


def rivest(
    state: pyspiel.State,
    *,
    evaluator: Evaluator,
    limits: Limits | None = None,
    settings: RivestSettings | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> SearchResult:
    """Min/max approximation from `state` under `limits`.

    Args:
        state: A non-terminal state of a two-player zero-sum deterministic game.
        evaluator: Values the tips (the mover's component is used).
        limits: `nodes` (children generated), `seconds`, `depth` (plies below the root);
            with none, the search runs until the root is solved or the tree holds
            `settings.max_nodes`. `seconds` includes freeing the tree.
        settings: Mode, exponent and memory cap.
        clock: Seconds for the time limit (tests inject a fake clock).

    Returns:
        A `SearchResult` for the player to move: the move with the best backed-up value,
        `lower` = `upper` its value as a utility (`bounds_on` is the game value when the
        root is solved, else an estimate), `children` every root move's backed-up value,
        `stats.nodes` the children generated, `stats.depth` the tree's depth.

    Raises:
        ValueError: An unsupported game, a terminal or chance state, or evaluator values out
            of range.
    """
    limits = limits or Limits()
    budget = Budget(limits, clock=clock)  # from here on, everything counts against the time limit
    info = require_decision_state(state, ALGORITHM, TWO_PLAYER_ZERO_SUM)
    settings = settings or RivestSettings()
    player = state.current_player()

    def value_of() -> Callable[[pyspiel.State], float]:
        return lambda node: check_values(evaluator.evaluate(node), evaluator, info)[player]

    native = native_evaluator(settings.engine, ALGORITHM, evaluator, state.get_game(), value_of)
    if native is not None:
        return _native_search(state, native, evaluator, info, settings, limits, budget, clock)
    tree = MinMaxTree(state, evaluator, info, settings, limits.depth)
    stopped_by: StopReason = "depth"
    # Freeing the tree takes time too: stop early enough to free it within the limit.
    free_by = math.inf if limits.seconds is None else limits.seconds
    try:
        while tree.step(budget):
            if budget.elapsed() + tree.size * FREE_SECONDS_PER_NODE >= free_by:
                raise SearchStopped(STOPPED_BY_SECONDS)
        stopped_by = "solved" if tree.root.solved else "depth"
    except SearchStopped as stop:
        stopped_by = stop.reason
    found = _found(tree, evaluator, state)
    evaluations, depth = tree.evaluations, tree.tree_depth
    del tree  # freed now, inside the timed search (about 2 us a node), not after it returns
    stats = SearchStats(
        nodes=budget.nodes,
        evaluations=evaluations,
        depth=depth,
        seconds=budget.elapsed(),
        stopped_by=stopped_by,
    )
    return dataclasses.replace(found, stats=stats)


def _native_search(
    state: pyspiel.State,
    native: Any,
    evaluator: Evaluator,
    info: GameInfo,
    settings: RivestSettings,
    limits: Limits,
    budget: Budget,
    clock: Callable[[], float],
) -> SearchResult:
    """The same search on the native engine (`spiel_bounded.native`), with the same rules."""
    outcome = engine_module(ALGORITHM).rivest(
        state,
        native,
        generalized=settings.mode == "generalized",
        p=float(settings.p),
        max_nodes=settings.max_nodes,
        max_depth=limits.depth,
        min_utility=info.min_utility,
        max_utility=info.max_utility,
        free_seconds_per_node=NATIVE_FREE_SECONDS_PER_NODE,
        max_nodes_budget=limits.nodes,
        **time_arguments(limits, budget, clock),
    )
    stats = SearchStats(
        nodes=outcome.nodes,
        evaluations=outcome.evaluations,
        depth=outcome.depth,
        seconds=budget.elapsed(),
        stopped_by=outcome.stopped_by,
        engine="native",
    )
    if not outcome.expanded:  # the budget ran out before the root was expanded
        action = state.legal_actions()[0]
        return SearchResult(
            action=action,
            lower=info.min_utility,
            upper=info.max_utility,
            pv=(action,),
            stats=stats,
            bounds_on=GAME_VALUE,  # the whole value range
        )
    value = outcome.values[outcome.best]
    return SearchResult(
        action=outcome.actions[outcome.best],
        lower=value,
        upper=value,
        children={
            action: Interval(child, child)
            for action, child in zip(outcome.actions, outcome.values, strict=True)
        },
        pv=tuple(outcome.pv),
        stats=stats,
        bounds_on=GAME_VALUE if outcome.solved else estimate(evaluator),
    )


def _found(tree: MinMaxTree, evaluator: Evaluator, state: pyspiel.State) -> SearchResult:
    """The tree's move, values and principal variation (stats to be filled in)."""
    root = tree.root
    if not root.children:  # the budget ran out before the root was expanded
        action = state.legal_actions()[0]
        return SearchResult(
            action=action,
            lower=tree.info.min_utility,
            upper=tree.info.max_utility,
            pv=(action,),
            bounds_on=GAME_VALUE,  # the whole value range
        )
    index = tree.best_child()
    value = tree.utility(root.children[index].value)
    children = {}
    for action, child in zip(root.actions, root.children, strict=True):
        child_value = tree.utility(child.value)
        children[action] = Interval(child_value, child_value)
    return SearchResult(
        action=root.actions[index],
        lower=value,
        upper=value,
        children=children,
        pv=_principal_variation(root, index),
        bounds_on=GAME_VALUE if root.solved else estimate(evaluator),
    )


def _principal_variation(root: RivestNode, index: int) -> tuple[int, ...]:
    moves = [root.actions[index]]
    node = root.children[index]
    while node.children:
        values = [child.value for child in node.children]
        best = values.index(max(values) if node.maximizing else min(values))
        moves.append(node.actions[best])
        node = node.children[best]
    return tuple(moves)
