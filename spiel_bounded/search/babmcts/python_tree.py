"""BABMCTS's reference tree: Monte-Carlo tree search whose nodes carry proven bounds, pruned by
alpha-beta windows.

Every node keeps UCT statistics and an interval `[lower, upper]` that provably contains its
exact game value, backed up from terminals only (score-bounded MCTS: Cazenave & Saffidine, CG
2010; MCTS-Solver: Winands, Björnsson & Saito, CG 2008); chance nodes take probability-weighted
bounds (Ballard's Star-1). Selection descends with alpha-beta windows and prunes a child whose
window collapses to within epsilon (BABMCTS: Atzmon, Stern & Saffidine's notes). An unpruned
node always keeps an unpruned child, so every simulation from an unproved root adds a node; once
`upper - lower <= epsilon` at the root, the child with the best `lower` is epsilon-optimal. The
windows and the proof are in the manual (docs/algorithms.md). Inside the tree every value is in
player 0's utility (a reused tree stays valid whoever moves at its new root); results are
converted to the utility of the player to move at the root.

This module holds the reference tree, `BABMCTSTree` over `MCTSNode` objects, whose `simulate`
runs the steps above one by one (`_select`, `_expand`, `_back_up`); the rest of the family is
beside it (`common`, `native_tree`, `search`).
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Iterator
from itertools import accumulate
from typing import Final

import pyspiel

from spiel_bounded.limits import STOPPED_BY_NODES, Budget, SearchStopped
from spiel_bounded.result import StopReason
from spiel_bounded.search.babmcts.common import (
    ALGORITHM,
    STOPPED_BY_SIMULATIONS,
    STOPPED_BY_SOLVED,
    BABMCTSTreeBase,
    shuffle_actions,
)

_CHANCE: Final = int(pyspiel.PlayerId.CHANCE)
_TERMINAL: Final = int(pyspiel.PlayerId.TERMINAL)


class MCTSNode:
    """A tree node. Every value here (`w`, `q`, `lower`, `upper`) is in player 0's utility,
    whoever moves at the node or at the root (player 0 is MAX, player 1 MIN), so that a tree
    reused after a move stays valid; `BABMCTSTreeBase.result` converts to the root mover's.

    Attributes:
        player: The player to move (0 or 1), or OpenSpiel's CHANCE / TERMINAL id.
        n: Simulations that went through the node.
        w: Sum of the values (player 0's) those simulations backed up.
        q: Mean backed-up value `w / n` (kept for selection speed; 0 before the first visit).
        rs: `1 / sqrt(n)` (kept for selection speed; 0 before the first visit).
        lower: Proven lower bound on the node's value, for player 0.
        upper: Proven upper bound on the node's value, for player 0.
        actions: The legal actions (chance outcomes) once the node is expanded, else None. Without
            priors, decision nodes keep them in a random order that is also their expansion
            order.
        kids: Children parallel to `actions`, None where not created yet (None before
            expansion).
        probs: Chance probabilities (chance nodes), priors (PUCT decision nodes) or None.
        cum: Cumulative chance probabilities (chance nodes only).
        next: Decision nodes without priors: `kids[:next]` are created, `kids[next:]` are not.
    """

    __slots__ = (
        "actions",
        "cum",
        "kids",
        "lower",
        "n",
        "next",
        "player",
        "probs",
        "q",
        "rs",
        "upper",
        "w",
    )

    def __init__(self, player: int, lower: float, upper: float) -> None:
        self.player = player
        self.n = 0
        self.w = 0.0
        self.q = 0.0
        self.rs = 0.0
        self.lower = lower
        self.upper = upper
        self.actions: list[int] | None = None
        self.kids: list[MCTSNode | None] | None = None
        self.probs: list[float] | None = None
        self.cum: list[float] | None = None
        self.next = 0

    def children(self) -> dict[int, MCTSNode]:
        """The created children by action (outcome at chance nodes)."""
        if self.actions is None or self.kids is None:
            return {}
        return {a: k for a, k in zip(self.actions, self.kids, strict=True) if k is not None}

    def walk(self) -> Iterator[MCTSNode]:
        """This node and all its descendants in the tree (iterative, depth-first)."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            if node.kids is not None:
                stack.extend(k for k in node.kids if k is not None)


class BABMCTSTree(BABMCTSTreeBase):
    """The reference BABMCTS tree: `MCTSNode` objects, every step in Python, chance nodes and priors
    included. Besides `search`, `simulate()` runs one simulation at a time (e.g. to check
    invariants between simulations)."""

    # -- tree management -----------------------------------------------------------------------

    def _reset(self, state: pyspiel.State) -> None:
        self.root_state = state
        self._history = state.history()
        self._root = self._new_node(state)
        if self._root.kids is not None:
            self._rebound(self._root)
        self._size = 1

    @property
    def root(self) -> MCTSNode:
        return self._root

    def _new_node(self, state: pyspiel.State) -> MCTSNode:
        """A node for a non-terminal state: a chance node is expanded at once; its bounds stay
        [vmin, vmax] until the caller recomputes them (rounding may make them slightly
        tighter)."""
        player = state.current_player()
        node = MCTSNode(player, self._vmin, self._vmax)
        if player == _CHANCE:
            self._expand_chance(node, state)
        return node

    def _move_root(self, action: int, child_state: pyspiel.State) -> bool:
        node = self._root
        if node.actions is None or node.kids is None or action not in node.actions:
            return False
        kid = node.kids[node.actions.index(action)]
        if kid is None:
            return False
        self._root = kid
        self._size = -1  # counted when next needed
        return True

    @property
    def size(self) -> int:
        """Nodes in the tree."""
        if self._size < 0:
            self._size = sum(1 for _ in self._root.walk())
        return self._size

    # -- expansion -----------------------------------------------------------------------------

    def _expand_chance(self, node: MCTSNode, state: pyspiel.State) -> None:
        outcomes = state.chance_outcomes()
        node.actions = [a for a, _ in outcomes]
        probs = [p for _, p in outcomes]
        node.probs = probs
        node.cum = list(accumulate(probs))
        node.kids = [None] * len(outcomes)

    def _expand_decision(self, node: MCTSNode, state: pyspiel.State) -> None:
        actions: list[int] = state.legal_actions()
        prior = getattr(self.evaluator, "prior", None) if self.settings.priors else None
        if callable(prior):
            weights = dict(prior(state))
            node.probs = [float(weights.get(a, 0.0)) for a in actions]
        else:  # expansion order, free of move-generation bias
            shuffle_actions(actions, self._random.getrandbits)
        node.actions = actions
        node.kids = [None] * len(actions)

    def _rebound(self, node: MCTSNode) -> bool:
        """Recomputes a node's bounds from its children; True when they changed."""
        kids = node.kids
        assert kids is not None
        vmin, vmax = self._vmin, self._vmax
        player = node.player
        if player == _CHANCE:
            assert node.probs is not None
            # Outcome order and plain left-to-right sums, as an expectimax oracle computes them:
            # rounding is monotone, so the bounds bracket the oracle's float value exactly.
            lower = upper = 0.0
            for p, kid in zip(node.probs, kids, strict=True):
                if kid is None:
                    lower += p * vmin
                    upper += p * vmax
                else:
                    lower += p * kid.lower
                    upper += p * kid.upper
        elif player == 0:
            lower = upper = vmin
            for kid in kids:
                if kid is None:
                    upper = vmax
                else:
                    if kid.lower > lower:
                        lower = kid.lower
                    if kid.upper > upper:
                        upper = kid.upper
        else:
            lower = upper = vmax
            for kid in kids:
                if kid is None:
                    lower = vmin
                else:
                    if kid.lower < lower:
                        lower = kid.lower
                    if kid.upper < upper:
                        upper = kid.upper
        if lower == node.lower and upper == node.upper:
            return False
        node.lower = lower
        node.upper = upper
        return True

    # -- one simulation ------------------------------------------------------------------------

    def _outcome_window(
        self,
        p: float,
        kid_lower: float,
        kid_upper: float,
        alpha: float,
        beta: float,
        lower: float,
        upper: float,
    ) -> tuple[float, float]:
        """The window, clipped to the value range, of a chance outcome of probability `p` and
        bounds [kid_lower, kid_upper] below a chance node with bounds [lower, upper] and window
        (alpha, beta)."""
        a = (alpha - upper + p * kid_upper) / p
        b = (beta - lower + p * kid_lower) / p
        return max(self._vmin, a), min(self._vmax, b)

    def _fallback(
        self, node: MCTSNode, alpha: float, beta: float, lower: float, upper: float
    ) -> tuple[int, float, float]:
        """The open child with the widest window (rounding broke docs/algorithms.md's lemma)."""
        self.fallbacks += 1
        assert node.kids is not None
        vmin, vmax = self._vmin, self._vmax
        best, best_gap, best_window = -1, -math.inf, (alpha, beta)
        for i, kid in enumerate(node.kids):
            kid_lower, kid_upper = (vmin, vmax) if kid is None else (kid.lower, kid.upper)
            if kid_upper <= kid_lower:
                continue
            a, b = alpha, beta
            if node.player == _CHANCE:
                assert node.probs is not None
                a, b = self._outcome_window(
                    node.probs[i], kid_lower, kid_upper, alpha, beta, lower, upper
                )
            gap = min(b, kid_upper) - max(a, kid_lower)
            if gap > best_gap:
                best, best_gap, best_window = i, gap, (a, b)
        if best < 0:
            raise AssertionError("an open node without an open child: the bounds are corrupt")
        return best, best_window[0], best_window[1]

    def _chance_slow(
        self, node: MCTSNode, alpha: float, beta: float, lower: float, upper: float, eps: float
    ) -> tuple[int, float, float]:
        """Samples an outcome among the unpruned ones, by probability."""
        kids, probs = node.kids, node.probs
        assert kids is not None and probs is not None
        vmin, vmax = self._vmin, self._vmax
        open_: list[tuple[int, float, float]] = []
        weights: list[float] = []
        for i, (p, kid) in enumerate(zip(probs, kids, strict=True)):
            kid_lower, kid_upper = (vmin, vmax) if kid is None else (kid.lower, kid.upper)
            a, b = self._outcome_window(p, kid_lower, kid_upper, alpha, beta, lower, upper)
            if min(b, kid_upper) <= max(a, kid_lower) + eps:
                self._cutoffs += 1
                continue
            open_.append((i, a, b))
            weights.append(p)
        if not open_:
            return self._fallback(node, alpha, beta, lower, upper)
        cum = list(accumulate(weights))
        j = bisect_right(cum, self._random.random() * cum[-1])
        return open_[min(j, len(open_) - 1)]

    def simulate(self, budget: Budget | None = None) -> None:
        """Runs one simulation: selection, expansion (one new node, more through chance nodes),
        evaluation and backup.

        Args:
            budget: Ticked once per node created, before the node is attached; when it raises
                `SearchStopped` the tree is left exactly as before the simulation.

        Raises:
            SearchStopped: The budget ran out, or the tree is full (`settings.max_nodes`).
            ValueError: The root is a chance node, or the evaluator returned a bad value.
        """
        if self._root.player == _CHANCE:
            raise ValueError(f"{ALGORITHM} searches from decision nodes, not chance nodes")
        state = self.root_state.clone()
        path, index = self._select(state)
        created, value, terminal = self._expand(path[-1], index, state, budget)
        for parent, i, child in created:
            assert parent.kids is not None
            parent.kids[i] = child
            if parent.player != _CHANCE and parent.probs is None:
                parent.next += 1
            path.append(child)
        self._size += len(created)
        self.simulations += 1
        if len(path) - 1 > self._depth:
            self._depth = len(path) - 1
        self._back_up(path, len(created), value, terminal)

    def _select(self, state: pyspiel.State) -> tuple[list[MCTSNode], int]:
        """Selection: descends from the root through created children, with the windows of
        docs/algorithms.md (`_outcome_window` at chance nodes), until the child chosen is one
        still to be created.

        Expands each decision node it reaches for the first time (`_expand_decision`) and adds
        the children its windows skip to `_cutoffs`.

        Args:
            state: A clone of the root state; the chosen actions are applied to it, so that it
                ends as the state of the child to create.

        Returns:
            The path from the root to the parent of the child to create, and the child's index
            among the parent's `kids`.
        """
        prune = self.settings.prune
        eps = self.settings.epsilon if prune else 0.0
        node = self._root
        path = [node]
        alpha = self._vmin
        beta = self._vmax
        cutoffs = 0
        while True:
            lower = node.lower
            upper = node.upper
            if prune:
                if lower > alpha:
                    alpha = lower
                if upper < beta:
                    beta = upper
            kids = node.kids
            if kids is None:
                self._expand_decision(node, state)
                kids = node.kids
                assert kids is not None
            if node.player == _CHANCE:
                i, alpha, beta = self._select_outcome(node, alpha, beta, lower, upper, eps)
                kid = kids[i]
            elif node.probs is None and node.next < len(kids):
                # UCT tries every child once first; a child not yet created is never pruned.
                i = node.next
                kid = None
            else:
                i, alpha, beta, skipped = self._select_move(node, alpha, beta, lower, upper, eps)
                cutoffs += skipped
                kid = kids[i]
            actions = node.actions
            assert actions is not None
            state.apply_action(actions[i])
            if kid is None:
                break
            node = kid
            path.append(kid)
        self._cutoffs += cutoffs
        return path, i

    def _select_outcome(
        self, node: MCTSNode, alpha: float, beta: float, lower: float, upper: float, eps: float
    ) -> tuple[int, float, float]:
        """A chance node's step of selection: samples an outcome by probability, and only when
        its window collapses samples again among the unpruned ones (`_chance_slow`).

        Returns:
            The outcome's index and its window.
        """
        kids, probs, cum = node.kids, node.probs, node.cum
        assert kids is not None and probs is not None and cum is not None
        vmin = self._vmin
        vmax = self._vmax
        i = bisect_right(cum, self._random.random() * cum[-1])
        if i >= len(kids):
            i = len(kids) - 1
        kid = kids[i]
        p = probs[i]
        if kid is None:
            kid_lower, kid_upper = vmin, vmax
        else:
            kid_lower, kid_upper = kid.lower, kid.upper
        if self.settings.prune:  # self._outcome_window, inlined on the hot path
            a = (alpha - upper + p * kid_upper) / p
            b = (beta - lower + p * kid_lower) / p
            if a < vmin:
                a = vmin
            if b > vmax:
                b = vmax
        else:
            a, b = vmin, vmax
        top = b if b < kid_upper else kid_upper
        bottom = a if a > kid_lower else kid_lower
        if top <= bottom + eps:
            return self._chance_slow(node, alpha, beta, lower, upper, eps)
        return i, a, b

    def _select_move(
        self, node: MCTSNode, alpha: float, beta: float, lower: float, upper: float, eps: float
    ) -> tuple[int, float, float, int]:
        """A decision node's step of selection once its children are created (or it has
        priors): UCT (PUCT with priors) among the children whose window does not collapse, else
        `_fallback`.

        Returns:
            The child's index, its window and the number of children skipped as pruned.
        """
        kids = node.kids
        assert kids is not None
        uct_c = self.settings.uct_c
        best = -math.inf
        i = -1
        cutoffs = 0
        sign = 1.0 if node.player == 0 else -1.0
        priors = node.probs
        if priors is None:
            explore = uct_c * math.sqrt(math.log(node.n))
            for j, kid in enumerate(kids):
                assert kid is not None
                kid_lower = kid.lower
                kid_upper = kid.upper
                top = beta if beta < kid_upper else kid_upper
                if top <= (alpha if alpha > kid_lower else kid_lower) + eps:
                    cutoffs += 1
                    continue
                score = sign * kid.q + explore * kid.rs
                if score > best:
                    best = score
                    i = j
        else:
            explore = uct_c * math.sqrt(node.n)
            for j, kid in enumerate(kids):
                if kid is None:
                    score = explore * priors[j]
                else:
                    kid_lower = kid.lower
                    kid_upper = kid.upper
                    top = beta if beta < kid_upper else kid_upper
                    if top <= (alpha if alpha > kid_lower else kid_lower) + eps:
                        cutoffs += 1
                        continue
                    score = sign * kid.q + explore * priors[j] / (1 + kid.n)
                if score > best:
                    best = score
                    i = j
        if i < 0:
            i, alpha, beta = self._fallback(node, alpha, beta, lower, upper)
        return i, alpha, beta, cutoffs

    def _expand(
        self, parent: MCTSNode, i: int, state: pyspiel.State, budget: Budget | None
    ) -> tuple[list[tuple[MCTSNode, int, MCTSNode]], float, bool]:
        """Expansion and evaluation: creates the child `i` of `parent`, whose state is `state`,
        and through chance nodes one sampled outcome after another, down to a terminal or a
        decision node, which the evaluator values. Nothing is attached to the tree yet, so
        that a budget stop leaves it untouched.

        Returns:
            The nodes created, as `(parent, index, child)` in the order of creation; the leaf's
            value (player 0's); and whether the leaf is terminal.

        Raises:
            SearchStopped: The budget ran out, or the tree would outgrow `settings.max_nodes`.
        """
        rand = self._random.random
        created: list[tuple[MCTSNode, int, MCTSNode]] = []
        room = self.settings.max_nodes - self.size
        while True:
            if budget is not None:
                budget.countdown -= 1
                if budget.countdown <= 0:
                    budget.checkpoint()
            if len(created) >= room:
                raise SearchStopped(STOPPED_BY_NODES)
            if state.is_terminal():
                value = float(state.player_return(0))
                child = MCTSNode(_TERMINAL, value, value)
                created.append((parent, i, child))
                return created, value, True
            child = self._new_node(state)
            created.append((parent, i, child))
            if child.player != _CHANCE:
                return created, self._evaluate(state), False
            assert child.cum is not None and child.actions is not None
            i = bisect_right(child.cum, rand() * child.cum[-1])
            if i >= len(child.actions):
                i = len(child.actions) - 1
            state.apply_action(child.actions[i])
            parent = child

    def _back_up(self, path: list[MCTSNode], created: int, value: float, terminal: bool) -> None:
        """Backup: adds `value` to the statistics along the whole path; recomputes the bounds
        of the `created` nodes at its end, then upwards while they keep changing (a leaf that
        is not terminal changes nothing, except that a created chance node's weighted sums of
        vmin / vmax may round off vmin / vmax)."""
        vmin = self._vmin
        vmax = self._vmax
        sqrt = math.sqrt
        changed = terminal
        last = len(path) - 1
        first_created = last - created + 1
        for k in range(last, -1, -1):
            node = path[k]
            n = node.n + 1
            node.n = n
            w = node.w + value
            node.w = w
            node.q = w / n
            node.rs = 1.0 / sqrt(n)
            if k < last:
                if k >= first_created:  # its parent saw it as an unexplored [vmin, vmax]
                    self._rebound(node)
                    changed = node.lower != vmin or node.upper != vmax
                elif changed:
                    changed = self._rebound(node)

    def _run(self, budget: Budget, cap: int | None) -> StopReason:
        start = self.simulations
        while True:
            if self.proved:
                return STOPPED_BY_SOLVED
            if cap is not None and self.simulations - start >= cap:
                return STOPPED_BY_SIMULATIONS
            self.simulate(budget)
