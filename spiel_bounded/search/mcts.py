"""BABMCTS: Monte-Carlo tree search whose nodes carry proven bounds, pruned by alpha-beta windows.

Every tree node keeps visit statistics for UCT and an interval `[lo, hi]` (pess and opti in the
source notes) that provably contains its exact game value:

- a terminal node has `lo = hi =` its return;
- a child that is not in the tree yet counts as `[vmin, vmax]`;
- a MAX node takes the max of its children's bounds, a MIN node the min;
- a chance node takes the probability-weighted sums, the outcomes not in the tree counted at
  vmin (for `lo`) and vmax (for `hi`) (Atzmon, Stern & Saffidine, "Bounded Suboptimal Game Tree
  Search", SoCS 2018, condition C6; Ballard's Star-1, 1983).

Bounds change only when a simulation reaches a terminal node; they are backed up along the
simulation's path and the backup stops at the first node whose bounds did not change. This is
score-bounded MCTS (Cazenave & Saffidine, "Score Bounded Monte-Carlo Tree Search", CG 2010) and,
for win/loss games, MCTS-Solver (Winands, Björnsson & Saito, "Monte-Carlo Tree Search Solver",
CG 2008), with the alpha-beta pruning of BABMCTS (Atzmon, Stern & Saffidine's notes, section
"Bounded Monte-Carlo Tree Search").

Units. Inside the tree every value is in player 0's utility: player 0 is MAX, player 1 is MIN.
That keeps a reused tree valid whoever moves at its new root. `SearchResult`s are converted to
the utility of the player to move at the root, as every search of this package reports them.

Selection with windows. A simulation descends from the root with the window
`(alpha, beta) = (vmin, vmax)`. At every node it first tightens the window with the node's own
bounds, `alpha = max(alpha, lo)`, `beta = min(beta, hi)`; a child `c` then gets the window

- at a MAX or MIN node: `(alpha, beta)`;
- at a chance node, where `c` has probability `p`: `alpha_c = max(vmin, (alpha - hi + p*c.hi)/p)`
  and `beta_c = min(vmax, (beta - lo + p*c.lo)/p)` (the Star-1 windows of the notes' condition
  C7; the draft's second formula prints `max(vmax, ...)`, which must be `min`): below `alpha_c`
  (above `beta_c`) the child's value cannot lift the chance node above `alpha` (below `beta`).

and `c` is *pruned* from selection when its window collapses,
`min(beta_c, c.hi) <= max(alpha_c, c.lo) + epsilon`. Among the children that are not pruned,
UCT picks at MAX and MIN nodes (PUCT when the evaluator offers priors) and chance nodes sample by
probability. Every child of a chance node receives the whole epsilon as its share
(sum_c p_c * epsilon = epsilon, the notes' condition on ComputeChildBound).

Lemma (an unpruned node keeps an unpruned child; the notes prove it for MAX nodes only). Let n be
a node that is not pruned, with tightened window (a, b) = (max(alpha, n.lo), min(beta, n.hi)), so
`b - a > epsilon` (that is the statement "n is not pruned": the root is not pruned exactly while
`root.hi - root.lo > epsilon`). Not-yet-created children count with bounds [vmin, vmax].

- MAX node: let c have `c.hi = n.hi` (it exists: n.hi is the max of its children's hi). As
  `c.lo <= n.lo <= a` and `c.hi = n.hi >= b`, the collapse test of c reads `b <= a + epsilon`:
  false.
- MIN node, the mirror image: let c have `c.lo = n.lo` (n.lo is the min of the children's lo).
  As `c.hi >= n.hi >= b` and `c.lo = n.lo <= a`, c's test again reads `b <= a + epsilon`: false.
- Chance node, W = n.hi - n.lo = sum_c p_c (c.hi - c.lo). For a child c with probability p, the
  gap `min(beta_c, c.hi) - max(alpha_c, c.lo)` is the smallest of (the vmin / vmax clamps never
  matter, since vmin <= c.lo and c.hi <= vmax):
  (i) `c.hi - c.lo`; (ii) `beta_c - c.lo = (b - n.lo)/p`; (iii) `c.hi - alpha_c = (n.hi - a)/p`;
  (iv) `beta_c - alpha_c = (b - a + W)/p - (c.hi - c.lo)`. Since `n.lo <= a < b <= n.hi` and
  `b - a > epsilon >= p * epsilon`, (ii) and (iii) exceed epsilon, and (iv) does as well because
  `W >= p (c.hi - c.lo)` makes it at least `(b - a)/p`. So c is pruned only if
  `c.hi - c.lo <= epsilon`, and if every child were, `W <= epsilon < b - a <= W` would follow.

So every simulation that starts at an unproved root reaches a child not yet in the tree and adds
it (terminals have zero width, so they are always pruned): with enough budget the root gets
proved. The same argument shows that a child not yet created is never pruned, which the fast path
of selection relies on. Rounding in the chance-node windows could in principle break the lemma by
an ulp; selection then falls back to the child with the widest window among those whose bounds
are still open (counted in `BABMCTSTree.fallbacks`; never observed in the tests).

Soundness does not depend on selection at all: the bounds are computed from the children's
bounds, never from windows or statistics. When `hi - lo <= epsilon` at the root, the child with
the best `lo` has a value within epsilon of the root's (it is epsilon-optimal).

This module holds the reference tree, `BABMCTSTree` over `Node` objects, whose `simulate` runs
the steps above one by one (`_select`, `_expand`, `_back_up`). What every tree shares (settings,
statistics, moving the root, the move choice) is in `search/mcts_base.py`; the compiled tree in
`search/mcts_compiled.py`; the entry point, `babmcts`, and the engine choice, `make_tree`, in
`search/babmcts.py`.
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
from spiel_bounded.search.mcts_base import (
    ALGORITHM,
    STOPPED_BY_SIMULATIONS,
    STOPPED_BY_SOLVED,
    BABMCTSTreeBase,
    shuffle_actions,
)

_CHANCE: Final = int(pyspiel.PlayerId.CHANCE)
_TERMINAL: Final = int(pyspiel.PlayerId.TERMINAL)


class Node:
    """A tree node. Values are in player 0's utility (player 0 is MAX, player 1 MIN).

    Attributes:
        player: The player to move (0 or 1), or OpenSpiel's CHANCE / TERMINAL id.
        n: Simulations that went through the node.
        w: Sum of the values those simulations backed up.
        q: Mean backed-up value `w / n` (kept for selection speed; 0 before the first visit).
        rs: `1 / sqrt(n)` (kept for selection speed; 0 before the first visit).
        lo: Proven lower bound on the node's value (pess).
        hi: Proven upper bound on the node's value (opti).
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
        "hi",
        "kids",
        "lo",
        "n",
        "next",
        "player",
        "probs",
        "q",
        "rs",
        "w",
    )

    def __init__(self, player: int, lo: float, hi: float) -> None:
        self.player = player
        self.n = 0
        self.w = 0.0
        self.q = 0.0
        self.rs = 0.0
        self.lo = lo
        self.hi = hi
        self.actions: list[int] | None = None
        self.kids: list[Node | None] | None = None
        self.probs: list[float] | None = None
        self.cum: list[float] | None = None
        self.next = 0

    def children(self) -> dict[int, Node]:
        """The created children by action (outcome at chance nodes)."""
        if self.actions is None or self.kids is None:
            return {}
        return {a: k for a, k in zip(self.actions, self.kids, strict=True) if k is not None}

    def walk(self) -> Iterator[Node]:
        """This node and all its descendants in the tree (iterative, depth-first)."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            if node.kids is not None:
                stack.extend(k for k in node.kids if k is not None)


class BABMCTSTree(BABMCTSTreeBase):
    """The reference BABMCTS tree: `Node` objects, every step in Python, chance nodes and priors
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
    def root(self) -> Node:
        return self._root

    def _new_node(self, state: pyspiel.State) -> Node:
        """A node for a non-terminal state: a chance node is expanded at once; its bounds stay
        [vmin, vmax] until the caller recomputes them (rounding may make them slightly
        tighter)."""
        player = state.current_player()
        node = Node(player, self._vmin, self._vmax)
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

    def _expand_chance(self, node: Node, state: pyspiel.State) -> None:
        outcomes = state.chance_outcomes()
        node.actions = [a for a, _ in outcomes]
        probs = [p for _, p in outcomes]
        node.probs = probs
        node.cum = list(accumulate(probs))
        node.kids = [None] * len(outcomes)

    def _expand_decision(self, node: Node, state: pyspiel.State) -> None:
        actions: list[int] = state.legal_actions()
        prior = getattr(self.evaluator, "prior", None) if self.settings.priors else None
        if callable(prior):
            weights = dict(prior(state))
            node.probs = [float(weights.get(a, 0.0)) for a in actions]
        else:  # expansion order, free of move-generation bias
            shuffle_actions(actions, self._random.getrandbits)
        node.actions = actions
        node.kids = [None] * len(actions)

    def _rebound(self, node: Node) -> bool:
        """Recomputes a node's bounds from its children; True when they changed."""
        kids = node.kids
        assert kids is not None
        vmin, vmax = self._vmin, self._vmax
        player = node.player
        if player == _CHANCE:
            assert node.probs is not None
            # Outcome order and plain left-to-right sums, as an expectimax oracle computes them:
            # rounding is monotone, so the bounds bracket the oracle's float value exactly.
            lo = hi = 0.0
            for p, kid in zip(node.probs, kids, strict=True):
                if kid is None:
                    lo += p * vmin
                    hi += p * vmax
                else:
                    lo += p * kid.lo
                    hi += p * kid.hi
        elif player == 0:
            lo = hi = vmin
            for kid in kids:
                if kid is None:
                    hi = vmax
                else:
                    if kid.lo > lo:
                        lo = kid.lo
                    if kid.hi > hi:
                        hi = kid.hi
        else:
            lo = hi = vmax
            for kid in kids:
                if kid is None:
                    lo = vmin
                else:
                    if kid.lo < lo:
                        lo = kid.lo
                    if kid.hi < hi:
                        hi = kid.hi
        if lo == node.lo and hi == node.hi:
            return False
        node.lo = lo
        node.hi = hi
        return True

    # -- one simulation ------------------------------------------------------------------------

    def _outcome_window(
        self, p: float, k_lo: float, k_hi: float, alpha: float, beta: float, lo: float, hi: float
    ) -> tuple[float, float]:
        """The window, clipped to the value range, of a chance outcome of probability `p` and
        bounds [k_lo, k_hi] below a chance node with bounds [lo, hi] and window (alpha, beta)."""
        a = (alpha - hi + p * k_hi) / p
        b = (beta - lo + p * k_lo) / p
        return max(self._vmin, a), min(self._vmax, b)

    def _fallback(
        self, node: Node, alpha: float, beta: float, lo: float, hi: float
    ) -> tuple[int, float, float]:
        """The open child with the widest window (rounding broke the lemma; see the docstring)."""
        self.fallbacks += 1
        assert node.kids is not None
        vmin, vmax = self._vmin, self._vmax
        best, best_gap, best_window = -1, -math.inf, (alpha, beta)
        for i, kid in enumerate(node.kids):
            k_lo, k_hi = (vmin, vmax) if kid is None else (kid.lo, kid.hi)
            if k_hi <= k_lo:
                continue
            a, b = alpha, beta
            if node.player == _CHANCE:
                assert node.probs is not None
                a, b = self._outcome_window(node.probs[i], k_lo, k_hi, alpha, beta, lo, hi)
            gap = min(b, k_hi) - max(a, k_lo)
            if gap > best_gap:
                best, best_gap, best_window = i, gap, (a, b)
        if best < 0:
            raise AssertionError("an open node without an open child: the bounds are corrupt")
        return best, best_window[0], best_window[1]

    def _chance_slow(
        self, node: Node, alpha: float, beta: float, lo: float, hi: float, eps: float
    ) -> tuple[int, float, float]:
        """Samples an outcome among the unpruned ones, by probability."""
        kids, probs = node.kids, node.probs
        assert kids is not None and probs is not None
        vmin, vmax = self._vmin, self._vmax
        open_: list[tuple[int, float, float]] = []
        weights: list[float] = []
        for i, (p, kid) in enumerate(zip(probs, kids, strict=True)):
            k_lo, k_hi = (vmin, vmax) if kid is None else (kid.lo, kid.hi)
            a, b = self._outcome_window(p, k_lo, k_hi, alpha, beta, lo, hi)
            if min(b, k_hi) <= max(a, k_lo) + eps:
                self._cutoffs += 1
                continue
            open_.append((i, a, b))
            weights.append(p)
        if not open_:
            return self._fallback(node, alpha, beta, lo, hi)
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

    def _select(self, state: pyspiel.State) -> tuple[list[Node], int]:
        """Selection: descends from the root through created children, with the windows of the
        module docstring, until the child chosen is one still to be created.

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
            lo = node.lo
            hi = node.hi
            if prune:
                if lo > alpha:
                    alpha = lo
                if hi < beta:
                    beta = hi
            kids = node.kids
            if kids is None:
                self._expand_decision(node, state)
                kids = node.kids
                assert kids is not None
            if node.player == _CHANCE:
                i, alpha, beta = self._select_outcome(node, alpha, beta, lo, hi, eps)
                kid = kids[i]
            elif node.probs is None and node.next < len(kids):
                # UCT tries every child once first; a child not yet created is never pruned.
                i = node.next
                kid = None
            else:
                i, alpha, beta, skipped = self._select_move(node, alpha, beta, lo, hi, eps)
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
        self, node: Node, alpha: float, beta: float, lo: float, hi: float, eps: float
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
            k_lo, k_hi = vmin, vmax
        else:
            k_lo, k_hi = kid.lo, kid.hi
        if self.settings.prune:  # self._outcome_window, inlined on the hot path
            a = (alpha - hi + p * k_hi) / p
            b = (beta - lo + p * k_lo) / p
            if a < vmin:
                a = vmin
            if b > vmax:
                b = vmax
        else:
            a, b = vmin, vmax
        top = b if b < k_hi else k_hi
        bottom = a if a > k_lo else k_lo
        if top <= bottom + eps:
            return self._chance_slow(node, alpha, beta, lo, hi, eps)
        return i, a, b

    def _select_move(
        self, node: Node, alpha: float, beta: float, lo: float, hi: float, eps: float
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
                k_lo = kid.lo
                k_hi = kid.hi
                top = beta if beta < k_hi else k_hi
                if top <= (alpha if alpha > k_lo else k_lo) + eps:
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
                    k_lo = kid.lo
                    k_hi = kid.hi
                    top = beta if beta < k_hi else k_hi
                    if top <= (alpha if alpha > k_lo else k_lo) + eps:
                        cutoffs += 1
                        continue
                    score = sign * kid.q + explore * priors[j] / (1 + kid.n)
                if score > best:
                    best = score
                    i = j
        if i < 0:
            i, alpha, beta = self._fallback(node, alpha, beta, lo, hi)
        return i, alpha, beta, cutoffs

    def _expand(
        self, parent: Node, i: int, state: pyspiel.State, budget: Budget | None
    ) -> tuple[list[tuple[Node, int, Node]], float, bool]:
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
        created: list[tuple[Node, int, Node]] = []
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
                child = Node(_TERMINAL, value, value)
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

    def _back_up(self, path: list[Node], created: int, value: float, terminal: bool) -> None:
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
                    changed = node.lo != vmin or node.hi != vmax
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
