"""BABMCTS with selection and backup compiled: `CompiledBABMCTSTree`.

The same search as the reference `BABMCTSTree` (`search/mcts.py`, whose docstring states the
rules), for games without chance nodes and without priors, over the arrays of
`search/mcts_kernels.py`: the compiled kernels select (windows, pruning, UCT) and back up
(statistics, bounds); Python does only what needs pyspiel and the reference's random stream:
replaying the selected path on a clone of the root state, expanding a node (its legal actions
in the order the reference's `random.Random` shuffles them), the terminal test and the leaf
evaluation. Under the same seed, evaluator values and limits both trees hold the same nodes with
the same statistics and bounds, and return the same `SearchResult` (tested).

It builds on `search/mcts_base.py` as the reference does, and does not import the reference.
Importing this module imports numba (the `fast` extra); `babmcts.make_tree` imports it only when
the compiled engine is used.
"""

from __future__ import annotations

import functools
from typing import Any, Final

import numpy as np
import pyspiel

from spiel_bounded.evaluators.base import Evaluator, ZeroEvaluator
from spiel_bounded.evaluators.rollout import RolloutEvaluator
from spiel_bounded.games import TWO_PLAYER_ZERO_SUM_CHANCE, GameInfo, require
from spiel_bounded.limits import STOPPED_BY_NODES, Budget, Limits, SearchStopped
from spiel_bounded.result import StopReason
from spiel_bounded.search import mcts_kernels as kernels
from spiel_bounded.search.mcts_base import (
    ALGORITHM,
    STOPPED_BY_SIMULATIONS,
    STOPPED_BY_SOLVED,
    BABMCTSSettings,
    BABMCTSTreeBase,
    compiled_reasons,
    shuffle_actions,
    shuffle_plan,
    shuffle_word,
)

_INITIAL_ROWS: Final = 1024
_MAX_KEPT_STATES: Final = 1 << 14  # of each kind; ~0.7 KB each for connect_four, breakthrough
_NO_LEGAL: Final = np.zeros(0, dtype=np.int64)


class RowNode:
    """A read-only view of one node of a `CompiledBABMCTSTree` (the `TreeNode` protocol). Values
    (`w`, `lower`, `upper`) are in player 0's utility, as in `search.mcts.MCTSNode`.

    Attributes:
        row: The node's row in the tree's arrays (valid until the root moves).
    """

    __slots__ = ("_tree", "row")

    def __init__(self, tree: CompiledBABMCTSTree, row: int) -> None:
        self._tree = tree
        self.row = row

    @property
    def player(self) -> int:
        return int(self._tree.ints[self.row, kernels.PLAYER])

    @property
    def n(self) -> int:
        return int(self._tree.ints[self.row, kernels.N])

    @property
    def w(self) -> float:
        return float(self._tree.floats[self.row, kernels.W])

    @property
    def lower(self) -> float:
        return float(self._tree.floats[self.row, kernels.LOWER])

    @property
    def upper(self) -> float:
        return float(self._tree.floats[self.row, kernels.UPPER])

    def _edges(self) -> range:
        ints = self._tree.ints
        count = int(ints[self.row, kernels.COUNT])
        first = int(ints[self.row, kernels.FIRST])
        return range(first, first + max(count, 0))

    @property
    def actions(self) -> list[int] | None:
        """The legal actions in expansion order once expanded, else None."""
        if self._tree.ints[self.row, kernels.COUNT] < 0:
            return None
        return [int(a) for a in self._tree.edges[self._edges(), kernels.ACTION]]

    def children(self) -> dict[int, RowNode]:
        """The created children by action."""
        tree = self._tree
        return {
            int(tree.edges[e, kernels.ACTION]): RowNode(tree, int(tree.edges[e, kernels.CHILD]))
            for e in self._edges()
            if tree.edges[e, kernels.CHILD] >= 0
        }


class CompiledBABMCTSTree(BABMCTSTreeBase):
    """A BABMCTS tree whose selection and backup run in compiled code (see the module docstring).

    Attributes (besides `BABMCTSTreeBase`'s): `floats`, `ints`, `edges`, `params`, `scratch`:
    the arrays of `search/mcts_kernels.py` (read-only outside this class; they are replaced when
    they grow).
    """

    def __init__(
        self,
        state: pyspiel.State,
        *,
        evaluator: Evaluator,
        settings: BABMCTSSettings | None = None,
        rng: np.random.Generator | int | None = None,
    ) -> None:
        """Builds a tree holding only its root (see `BABMCTSTree`).

        Raises:
            ValueError: The game is unsupported (also: it has chance nodes, or the evaluator
                has priors that the settings ask to use), the state is terminal, or `rng` is
                invalid.
        """
        settings = settings or BABMCTSSettings()
        game = state.get_game()
        info = require(game, ALGORITHM, TWO_PLAYER_ZERO_SUM_CHANCE)
        _refuse_unsupported(info, evaluator, settings)
        max_length = game.max_game_length()
        self.scratch = np.zeros(kernels.COUNTERS + 2 * (max_length + 2), dtype=np.int64)
        self._leaf_states: dict[int, pyspiel.State] = {}
        self._open_states: dict[int, list[Any]] = {}  # [state, children still to create]
        self._allocate(min(_INITIAL_ROWS, settings.max_nodes))
        super().__init__(state, evaluator=evaluator, settings=settings, rng=rng)
        prune = self.settings.prune
        self.params = np.zeros(kernels.PARAMS, dtype=np.float64)
        self.params[kernels.VMIN] = self._vmin
        self.params[kernels.VMAX] = self._vmax
        self.params[kernels.EPS] = self.settings.epsilon if prune else 0.0
        self.params[kernels.UCT_C] = self.settings.uct_c
        self.params[kernels.EPSILON] = self.settings.epsilon
        self.params[kernels.PRUNE] = 1.0 if prune else 0.0

    # -- storage -------------------------------------------------------------------------------

    def _allocate(self, rows: int) -> None:
        self.floats = np.zeros((rows, kernels.FLOAT_FIELDS), dtype=np.float64)
        self.ints = np.zeros((rows, kernels.INT_FIELDS), dtype=np.int64)
        self.edges = np.zeros((rows * 4, kernels.EDGE_FIELDS), dtype=np.int64)

    def _grow(self, rows: int, edges: int) -> None:
        """Makes room for `rows` nodes and `edges` edges (at least doubling what grows)."""
        if rows > self.floats.shape[0]:
            rows = max(rows, min(2 * self.floats.shape[0], self.settings.max_nodes))
            self.floats = _resized(self.floats, rows)
            self.ints = _resized(self.ints, rows)
        if edges > self.edges.shape[0]:
            self.edges = _resized(self.edges, max(edges, 2 * self.edges.shape[0]))

    def _forget_states(self) -> None:
        self._leaf_states.clear()
        self._open_states.clear()

    def _expand(self, node: int, legal: np.ndarray) -> None:
        edges = int(self.scratch[kernels.EDGES]) + len(legal)
        if edges > self.edges.shape[0]:
            self._grow(self.size, edges)
        kernels.expand(self.ints, self.edges, self.scratch, node, legal)

    def _reset(self, state: pyspiel.State) -> None:
        self._forget_states()
        self.root_state = state
        self._history = state.history()
        self.scratch[: kernels.COUNTERS] = 0
        self.scratch[kernels.USED] = 1
        self.floats[0] = (self._vmin, self._vmax, 0.0, 0.0, 0.0)
        self.ints[0, kernels.PLAYER] = state.current_player()
        self.ints[0, kernels.N] = 0
        self.ints[0, kernels.FIRST] = 0
        self.ints[0, kernels.COUNT] = -1
        self.ints[0, kernels.NEXT] = 0

    @property
    def root(self) -> RowNode:
        return RowNode(self, int(self.scratch[kernels.ROOT]))

    @property
    def size(self) -> int:
        return int(self.scratch[kernels.USED])

    @property
    def proved(self) -> bool:
        root = self.scratch[kernels.ROOT]
        return bool(
            self.floats[root, kernels.UPPER] - self.floats[root, kernels.LOWER]
            <= self.settings.epsilon
        )

    def _move_root(self, action: int, child_state: pyspiel.State) -> bool:
        kid = self.root.children().get(action)
        if kid is None:
            return False
        kernels.compact(self.floats, self.ints, self.edges, self.scratch, kid.row)
        self._forget_states()  # their rows have moved
        return True

    # -- simulations ---------------------------------------------------------------------------

    def _run(self, budget: Budget, cap: int | None) -> StopReason:
        _refuse_unsupported(self.info, self.evaluator, self.settings)  # a new evaluator?
        scratch = self.scratch
        scratch[kernels.CUTOFFS] = scratch[kernels.FALLBACKS] = scratch[kernels.DEPTH] = 0
        try:
            return self._simulations(budget, cap)
        finally:
            self._cutoffs += int(scratch[kernels.CUTOFFS])
            self._depth = max(self._depth, int(scratch[kernels.DEPTH]))
            self.fallbacks += int(scratch[kernels.FALLBACKS])

    def _simulations(self, budget: Budget, cap: int | None) -> StopReason:
        """The reference's `simulate` loop without chance nodes and priors: its Python half.

        States are kept rather than rebuilt where it pays: a leaf's state (the state the
        evaluator was given, which it leaves unchanged) until the leaf is expanded, and an
        expanded node's state until its last child is created. Otherwise the selected path is
        replayed on a clone of the root state. At most `_MAX_KEPT_STATES` of each are kept.
        """
        select, step = kernels.select, kernels.step
        params, scratch = self.params, self.scratch
        path, actions = kernels.path(scratch), kernels.path_actions(scratch)
        root_state = self.root_state
        getrandbits = self._random.getrandbits
        evaluate = self._evaluate
        evaluator = self.evaluator
        rollout = (
            evaluator.first_player_value
            if isinstance(evaluator, RolloutEvaluator) and evaluator.fast
            else None
        )
        leaf_states, open_states = self._leaf_states, self._open_states
        max_nodes = self.settings.max_nodes
        remaining = -1 if cap is None else cap
        if self.proved:
            return STOPPED_BY_SOLVED
        if remaining == 0:
            return STOPPED_BY_SIMULATIONS
        used = int(scratch[kernels.USED])
        edges = int(scratch[kernels.EDGES])
        no_legal = _NO_LEGAL
        floats, ints = self.floats, self.ints
        tree_edges = self.edges
        rows_room, edges_room = floats.shape[0], tree_edges.shape[0]
        k = select(floats, ints, tree_edges, params, scratch)
        while True:
            if k < 0:
                raise AssertionError("an open node without an open child: the bounds are corrupt")
            edge = scratch.item(kernels.LEAF_EDGE)
            node = path.item(k)
            legal = no_legal
            word = -1
            if edge >= 0:  # create the child at `edge` of an expanded node
                kept = open_states.get(node)
                if kept is None:
                    state = root_state.clone()
                    for action in actions[: k + 1].tolist():
                        state.apply_action(action)
                else:
                    state = kept[0].child(actions.item(k))
                    kept[1] -= 1
                    if kept[1] == 0:
                        del open_states[node]
            else:  # expand a leaf and create its first child
                state = leaf_states.pop(node, None)
                if state is None:
                    state = root_state.clone()
                    for action in actions[:k].tolist():
                        state.apply_action(action)
                moves = state.legal_actions()
                count = len(moves)
                # The reference's expansion order from the same random stream: in compiled code
                # when one word drives the shuffle, whose first digit is the first child.
                plan = shuffle_plan(count)
                if len(plan) == 1:
                    word = shuffle_word(plan[0][2], getrandbits)
                    first = moves[word % count]
                else:
                    shuffle_actions(moves, getrandbits)
                    first = moves[0]
                legal = np.array(moves, dtype=np.int64)
                edges += count
                if count > 1 and len(open_states) < _MAX_KEPT_STATES:
                    open_states[node] = [state, count - 1]
                state = state.child(first)
            try:
                budget.countdown -= 1
                if budget.countdown <= 0:
                    budget.checkpoint()
                if used >= max_nodes:
                    raise SearchStopped(STOPPED_BY_NODES)
            except SearchStopped:
                if edge < 0:  # the reference expands the node before it stops
                    if word >= 0:
                        kernels.shuffle_one_word(legal, word)
                    self._expand(node, legal)
                raise
            player = state.current_player()
            if player < 0:  # terminal: no chance nodes here
                value = float(state.player_return(0))
            elif rollout is not None:  # `_evaluate`, inlined for the fast rollouts
                value = rollout(state, player)
                self.evaluations += 1  # (attribute updates cost little next to a playout)
            else:
                value = evaluate(state)
                if len(leaf_states) < _MAX_KEPT_STATES:
                    leaf_states[used] = state  # the row `step` gives the child
            used += 1
            if used > rows_room or edges > edges_room:
                self._grow(used, edges)
                floats, ints, tree_edges = self.floats, self.ints, self.edges
                rows_room, edges_room = floats.shape[0], tree_edges.shape[0]
            remaining -= 1
            k = step(
                floats, ints, tree_edges, params, scratch, legal, word, player, value, remaining
            )
            self.simulations += 1
            if k == kernels.SOLVED:
                return STOPPED_BY_SOLVED
            if k == kernels.DONE:
                return STOPPED_BY_SIMULATIONS


@functools.cache
def warm_up() -> None:
    """Loads every kernel now (from numba's cache, ~0.3 s; compiling them, ~2 s, when the cache
    is missing), once per process, so that no timed move pays for it."""
    game = pyspiel.load_game("tic_tac_toe")
    tree = CompiledBABMCTSTree(
        game.new_initial_state(),
        evaluator=ZeroEvaluator(game),
        settings=BABMCTSSettings(simulations=30),
    )
    tree.search(Limits(nodes=3))  # stops inside a simulation: the expansion on its own
    tree.search()
    tree.advance(tree.best_action())  # the compaction


def _refuse_unsupported(info: GameInfo, evaluator: Evaluator, settings: BABMCTSSettings) -> None:
    reasons = compiled_reasons(info, evaluator, settings)
    if reasons:
        raise ValueError(
            f"the compiled {ALGORITHM} tree cannot search {info.description}: " + "; ".join(reasons)
        )


def _resized(array: np.ndarray, rows: int) -> np.ndarray:
    """A copy of `array` with `rows` rows (the first ones kept)."""
    bigger = np.zeros((rows, *array.shape[1:]), dtype=array.dtype)
    bigger[: array.shape[0]] = array
    return bigger
