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
"""

from __future__ import annotations

import functools
import importlib
import math
import random
from abc import ABC, abstractmethod
from bisect import bisect_right
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from itertools import accumulate
from typing import Final, Protocol

import numpy as np
import pyspiel

from spiel_bounded.evaluators.base import Evaluator, player_value
from spiel_bounded.games import (
    TWO_PLAYER_ZERO_SUM_CHANCE,
    GameInfo,
    check_epsilon,
    game_description,
    game_info,
    require,
)
from spiel_bounded.limits import STOPPED_BY_NODES, Budget, Limits, SearchStopped
from spiel_bounded.params import (
    FLAG,
    NON_NEGATIVE,
    OPTIONAL_POSITIVE_INT,
    POSITIVE_INT,
    OneOf,
    check_fields,
    setting,
)
from spiel_bounded.result import GAME_VALUE, Interval, SearchResult, SearchStats, StopReason

ALGORITHM: Final = "babmcts"
STOPPED_BY_SOLVED: Final[StopReason] = "solved"
STOPPED_BY_SIMULATIONS: Final[StopReason] = "simulations"
DEFAULT_SIMULATIONS: Final = 1000
"""Simulations per search when no count is given (OpenSpiel's MCTSBot's default too)."""

_CHANCE: Final = int(pyspiel.PlayerId.CHANCE)
_TERMINAL: Final = int(pyspiel.PlayerId.TERMINAL)
_SEED_BITS: Final = 63

ENGINE_AUTO: Final = "auto"
ENGINE_PYTHON: Final = "python"
ENGINE_COMPILED: Final = "compiled"
ENGINES: Final = (ENGINE_AUTO, ENGINE_PYTHON, ENGINE_COMPILED)


@dataclass(frozen=True, kw_only=True)
class BABMCTSSettings:
    """Settings of BABMCTS.

    Attributes:
        epsilon: Absolute tolerance in utility units (>= 0). The search stops once the root's
            interval is at most this wide, and prunes children whose window collapses to within
            it; 0 asks for the exact value.
        uct_c: Exploration constant c of UCT, `q + c * sqrt(ln N / n)` with q the mean value for
            the player to move (OpenSpiel's MCTSBot uses the same formula and units), or of PUCT,
            `q + c * prior * sqrt(N) / (1 + n)`, when priors are used.
        simulations: Maximum simulations per search call. None: no count when the search is
            given a node or time limit (it thinks for the time or nodes it is given), else
            `DEFAULT_SIMULATIONS`; the root being proved or the tree being full stops it too.
        max_nodes: Memory cap: the tree never holds more nodes. A search stops with
            `stopped_by == "nodes"` when the tree is full; a reused subtree that is already full
            is dropped (the search restarts from a fresh tree).
        prune: Use alpha-beta windows to prune children from selection. False keeps the bounds
            (score-bounded MCTS / MCTS-Solver) but skips only children whose value is known
            exactly; for ablations.
        priors: Use PUCT with the evaluator's priors when the evaluator has a
            `prior(state) -> [(action, probability), ...]` method (OpenSpiel's evaluator
            interface). Ignored for evaluators without one; UCT with a random expansion order is
            used then.
        engine: Which tree `make_tree` (and so `babmcts` and the `babmcts` bot) builds: "python"
            (`BABMCTSTree`, the reference), "compiled" (`CompiledBABMCTSTree`: selection and
            backup compiled by numba, the same search bit for bit; needs the `fast` extra and a
            game without chance nodes, and no priors), or "auto" (compiled when it can be, else
            python). The tree classes themselves ignore it.
    """

    epsilon: float = setting(
        0.0, "tolerance in utility units (0: prove the exact value)", NON_NEGATIVE
    )
    uct_c: float = setting(2.0, "UCT exploration constant", NON_NEGATIVE)
    simulations: int | None = setting(
        None,
        "simulations per move (None: no count when seconds or nodes is given, "
        f"else {DEFAULT_SIMULATIONS})",
        OPTIONAL_POSITIVE_INT,
    )
    max_nodes: int = setting(
        1_000_000,
        "memory cap in tree nodes (on connect_four about 190 bytes each in the compiled tree, "
        "300 in the Python one)",
        POSITIVE_INT,
    )
    prune: bool = setting(True, "prune children from selection with alpha-beta windows", FLAG)
    priors: bool = setting(True, "PUCT with the evaluator's priors when it has them", FLAG)
    engine: str = setting(
        ENGINE_AUTO,
        "tree engine: compiled (numba, no chance nodes or priors), python (the reference), or "
        "auto (compiled when numba is installed and the game and evaluator allow it)",
        OneOf(ENGINES),
    )

    def __post_init__(self) -> None:
        check_fields(self)


@dataclass(frozen=True, kw_only=True)
class MCTSStats(SearchStats):
    """`SearchStats` of a BABMCTS search, with what an MCTS adds.

    Field meanings for BABMCTS: `nodes` counts the tree nodes created by this call's simulations
    (the root of a fresh tree and nodes kept from an earlier move are not counted; `Limits.nodes`
    caps this number); `evaluations` the evaluator calls (simulations that ended at a
    non-terminal leaf); `cutoffs` the children skipped by selection because their window
    collapsed (summed over all selection steps); `depth` the longest simulation path, in tree
    edges; `stopped_by` is "solved" (the root interval is at most epsilon wide), "simulations",
    "nodes" (`Limits.nodes` or the memory cap `max_nodes`) or "seconds". `tt_hits` is 0.

    Attributes:
        simulations: Simulations completed by this call.
        tree_nodes: Nodes in the tree after the search (kept ones included).
        reused_nodes: Nodes the tree held when the search started (0 for a fresh tree).
    """

    simulations: int = 0
    tree_nodes: int = 0
    reused_nodes: int = 0


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


class TreeNode(Protocol):
    """What the shared tree code reads of a node, whatever stores it (values in player 0's
    utility; see `Node` for the fields)."""

    @property
    def player(self) -> int: ...

    @property
    def n(self) -> int: ...

    @property
    def w(self) -> float: ...

    @property
    def lo(self) -> float: ...

    @property
    def hi(self) -> float: ...

    @property
    def actions(self) -> list[int] | None: ...

    def children(self) -> Mapping[int, TreeNode]:
        """The created children by action."""
        ...


SHUFFLE_WORD_BITS: Final = 63
_WORD: Final = 1 << SHUFFLE_WORD_BITS


@functools.cache
def shuffle_plan(count: int) -> tuple[tuple[int, int, int], ...]:
    """How `shuffle_actions` shuffles `count` items: runs `(start, stop, limit)` of the positions
    i = 0 .. count-2 whose radices `count - i` multiply to at most 2**63, each with the largest
    multiple of that product not above 2**63 (a single run up to 20 items)."""
    plan = []
    i = 0
    while i < count - 1:
        product = 1
        j = i
        while j < count - 1 and product * (count - j) <= _WORD:
            product *= count - j
            j += 1
        plan.append((i, j, _WORD - _WORD % product))
        i = j
    return tuple(plan)


def shuffle_word(limit: int, getrandbits: Callable[[int], int]) -> int:
    """A uniform 63-bit word below `limit` (drawn again while it is not)."""
    word = getrandbits(SHUFFLE_WORD_BITS)
    while word >= limit:
        word = getrandbits(SHUFFLE_WORD_BITS)
    return word


def shuffle_actions(actions: list[int], getrandbits: Callable[[int], int]) -> None:
    """Shuffles `actions` in place, uniformly, with few random draws: the expansion order.

    Fisher-Yates from the front, swapping position i with a uniform j in [i, n-1] for
    i = 0 .. n-2, takes each j - i as a digit (radices n, n-1, ..., 2) of a uniform 63-bit word,
    one word per run of `shuffle_plan`; as a run's limit is a multiple of its radices' product,
    the digits are exactly uniform. One draw for up to 20 actions, where `random.shuffle` makes
    n-1 (about 3x cheaper for 7 actions), and the first action is the word's first digit, known
    before the rest are placed (`mcts_kernels.shuffle_one_word` places them in compiled code).
    """
    count = len(actions)
    for start, stop, limit in shuffle_plan(count):
        word = shuffle_word(limit, getrandbits)
        for i in range(start, stop):
            word, digit = divmod(word, count - i)
            j = i + digit
            actions[i], actions[j] = actions[j], actions[i]


def _seed_from(rng: np.random.Generator | int | None) -> int:
    """An integer seed: drawn from a generator, taken as given, or 0 for None."""
    if rng is None:
        return 0
    if isinstance(rng, np.random.Generator):
        return int(rng.integers(0, 1 << _SEED_BITS))
    if isinstance(rng, int | np.integer) and not isinstance(rng, bool) and rng >= 0:
        return int(rng)
    raise ValueError(f"rng must be a numpy.random.Generator or an integer >= 0, got {rng!r}")


class BABMCTSTreeBase(ABC):
    """What every BABMCTS tree shares, whatever stores its nodes: moving the root down the game,
    the search loop's limits and statistics, the move choice and the `SearchResult`.

    `BABMCTSTree` (below) stores `Node` objects and is the reference;
    `spiel_bounded.search.mcts_compiled.CompiledBABMCTSTree` stores arrays and runs selection and
    backup in compiled code. Build one with `make_tree`, which reads `settings.engine`.

    Build it at a decision state, run `search(limits)`, then `advance(action)` or `sync(state)`
    to move its root down the game and search again: the subtree below the new root is kept.

    Attributes:
        settings: The search settings.
        evaluator: Values the non-terminal leaves (may be replaced between searches).
        info: The game's facts.
        root: The root node (a `TreeNode`).
        root_state: The state at the root (do not modify).
        simulations: Simulations run on this tree since it was built.
        evaluations: Evaluator calls since it was built.
        fallbacks: Selection steps where rounding left an unpruned node without an unpruned
            child, so the widest open child was taken (see the module docstring).
    """

    def __init__(
        self,
        state: pyspiel.State,
        *,
        evaluator: Evaluator,
        settings: BABMCTSSettings | None = None,
        rng: np.random.Generator | int | None = None,
    ) -> None:
        """Builds a tree holding only its root.

        Args:
            state: The root: a non-terminal state (a decision node to search from; chance roots
                are accepted so that `advance` can pass through chance nodes) of a two-player
                zero-sum perfect-information game, with or without chance nodes.
            evaluator: Values non-terminal leaves; `values[0]` (player 0's value) is used.
            settings: The search settings.
            rng: Seeds selection: a generator (one seed is drawn from it) or an integer.

        Raises:
            ValueError: The game is unsupported, the state is terminal, or `rng` is invalid.
        """
        self.settings = settings or BABMCTSSettings()
        game = state.get_game()
        self.info: GameInfo = require(game, ALGORITHM, TWO_PLAYER_ZERO_SUM_CHANCE)
        check_epsilon(self.settings.epsilon, self.info, ALGORITHM)
        if state.is_terminal():
            raise ValueError(f"{ALGORITHM} needs a non-terminal state of {self.info.description}")
        self.evaluator = evaluator
        self._vmin = self.info.min_utility
        self._vmax = self.info.max_utility
        self._random = random.Random(_seed_from(rng))
        self.simulations = 0
        self.evaluations = 0
        self.fallbacks = 0
        self._cutoffs = 0
        self._depth = 0
        self.root_state: pyspiel.State  # set by _reset, as is _history
        self._history: list[int]
        self._reset(state.clone())

    # -- what a storage provides ------------------------------------------------------------

    @property
    @abstractmethod
    def root(self) -> TreeNode:
        """The root node."""

    @property
    @abstractmethod
    def size(self) -> int:
        """Nodes in the tree."""

    @abstractmethod
    def _reset(self, state: pyspiel.State) -> None:
        """Drops the tree and holds only a root at `state` (sets `root_state` and `_history`)."""

    @abstractmethod
    def _move_root(self, action: int, child_state: pyspiel.State) -> bool:
        """Moves the root to its child by `action` when that child is in the tree (True), else
        does nothing (False)."""

    @abstractmethod
    def _run(self, budget: Budget, cap: int | None) -> StopReason:
        """Runs simulations until the root is proved ("solved") or `cap` more simulations have
        run ("simulations"); `SearchStopped` from the budget or the memory cap passes through.
        Adds to `_cutoffs` and `_depth` (this search's) even when stopped."""

    # -- moving the root -----------------------------------------------------------------------

    def reseed(self, rng: np.random.Generator | int) -> None:
        """Reseeds selection (a generator: one seed is drawn from it)."""
        self._random = random.Random(_seed_from(rng))

    def advance(self, action: int) -> bool:
        """Moves the root to its child by `action`; returns True when that child was in the tree.

        Without the child in the tree, the tree restarts from the new root. (A kept subtree that
        fills the tree, `size >= max_nodes`, is dropped when the next search starts.)

        Raises:
            ValueError: `action` is not legal at the root, or the new root is terminal.
        """
        return self._descend(action)

    def sync(self, state: pyspiel.State) -> bool:
        """Moves the root to `state` when `state` lies below it in the tree.

        The root's history must be a prefix of `state.history()`, and every node on the way must
        be in the tree; informed actions and chance outcomes need not have been passed to
        `advance`.

        Returns:
            True when the root now stands at `state` with the kept subtree; False when the tree
            had to be rebuilt at `state` (after either outcome the root is `state`).

        Raises:
            ValueError: `state` is terminal or of another game.
        """
        given = game_description(state.get_game())
        if given != self.info.description:
            raise ValueError(f"a state of {given} was given to a tree of {self.info.description}")
        if state.is_terminal():
            raise ValueError(f"{ALGORITHM} needs a non-terminal state of {self.info.description}")
        history = state.history()
        base = self._history
        if len(history) < len(base) or history[: len(base)] != base:
            self._reset(state.clone())
            return False
        for action in history[len(base) :]:
            if not self._descend(action):
                self._reset(state.clone())
                return False
        return True

    def _descend(self, action: int) -> bool:
        """Moves the root to a child (rebuilding the tree there when it is missing)."""
        state = self.root_state
        legal = (
            [a for a, _ in state.chance_outcomes()]
            if state.is_chance_node()
            else state.legal_actions()
        )
        if action not in legal:
            raise ValueError(f"action {action} is not legal at the tree's root:\n{state}")
        child_state = state.child(action)
        if child_state.is_terminal():
            raise ValueError(f"action {action} ends the game; there is nothing to search")
        if not self._move_root(action, child_state):
            self._reset(child_state)
            return False
        self.root_state = child_state
        self._history.append(action)
        return True

    # -- evaluation and searching ------------------------------------------------------------

    def _evaluate(self, state: pyspiel.State) -> float:
        self.evaluations += 1
        values = self.evaluator.evaluate(state)
        vmin, vmax = self._vmin, self._vmax
        try:  # check_values for two players, inlined: free unless something is wrong
            value = values[0]
            valid = len(values) == 2 and vmin <= value <= vmax and vmin <= values[1] <= vmax
        except (TypeError, IndexError, KeyError):
            valid = False
        if not valid:  # raises, saying what is wrong
            value = player_value(values, 0, self.evaluator, self.info)
        return float(value)

    @property
    def proved(self) -> bool:
        """True when the root's interval is at most epsilon wide."""
        return self.root.hi - self.root.lo <= self.settings.epsilon

    def search(self, limits: Limits | None = None) -> SearchResult:
        """Runs simulations until the root is proved or a limit is reached.

        Args:
            limits: Node and time limits (`Limits.depth` is not supported); the simulation limit
                is `settings.simulations` (with neither limit nor count: `DEFAULT_SIMULATIONS`).

        Returns:
            The `SearchResult` (see `result`), with `MCTSStats`.

        Raises:
            ValueError: `limits.depth` is set, the root is a chance node, or the evaluator
                returned a bad value.
        """
        limits = limits or Limits()
        if limits.depth is not None:
            raise ValueError(
                f"{ALGORITHM} does not take a depth limit (got depth={limits.depth}); limit "
                "simulations, nodes or seconds"
            )
        if self.root.player == _CHANCE:
            raise ValueError(f"{ALGORITHM} searches from decision nodes, not chance nodes")
        if self.size >= self.settings.max_nodes:
            self._reset(self.root_state)  # a kept subtree that fills the tree is dropped
        budget = Budget(limits, clock_interval=1)
        cap = self.settings.simulations
        if cap is None and limits.nodes is None and limits.seconds is None:
            cap = DEFAULT_SIMULATIONS
        start_sims, start_evals, start_size = self.simulations, self.evaluations, self.size
        self._cutoffs = 0
        self._depth = 0
        stopped_by: StopReason
        try:
            stopped_by = self._run(budget, cap)
        except SearchStopped as stop:
            stopped_by = stop.reason
        stats = MCTSStats(
            nodes=self.size - start_size,
            evaluations=self.evaluations - start_evals,
            cutoffs=self._cutoffs,
            depth=self._depth,
            seconds=budget.elapsed(),
            stopped_by=stopped_by,
            simulations=self.simulations - start_sims,
            tree_nodes=self.size,
            reused_nodes=start_size,
        )
        return self.result(stats)

    def _to_root_units(self, lo: float, hi: float) -> Interval:
        if self.root.player == 0:
            return Interval(lo, hi)
        return Interval(0.0 - hi, 0.0 - lo)  # 0.0 - x: no negative zero in results

    def best_action(self) -> int:
        """The move: the best lower bound when the root is proved, else the most visited child
        among those its window does not prune (the children with the best lower bound always
        count); ties go to the better mean value, then to the lower action."""
        root = self.root
        if root.actions is None:
            return int(self.root_state.legal_actions()[0])
        made = list(root.children().items())
        if not made:
            return int(root.actions[0])
        sign = 1.0 if root.player == 0 else -1.0
        # In the mover's units: the best lower bound of a child is -hi for player 1.
        lows = {a: (k.lo if sign > 0 else -k.hi) for a, k in made}
        highs = {a: (k.hi if sign > 0 else -k.lo) for a, k in made}
        floor = max(lows.values())
        if self.proved:
            return min(a for a in lows if lows[a] == floor)
        eps = self.settings.epsilon if self.settings.prune else 0.0
        root_hi = root.hi if sign > 0 else -root.lo
        candidates = [
            (a, k)
            for a, k in made
            if lows[a] >= floor or min(root_hi, highs[a]) > max(floor, lows[a]) + eps
        ]
        best = max(candidates, key=lambda ak: (ak[1].n, sign * ak[1].w / ak[1].n, -ak[0]))
        return int(best[0])

    def principal_variation(self, first: int) -> tuple[int, ...]:
        """`first`, then the most visited child at each decision node below it."""
        pv = [first]
        node = self.root.children().get(first)
        while node is not None and node.player >= 0:
            kids = node.children()
            if not kids:
                break
            action = max(kids, key=lambda a: (kids[a].n, -a))
            pv.append(action)
            node = kids[action]
        return tuple(pv)

    def result(self, stats: SearchStats | None = None) -> SearchResult:
        """The `SearchResult` for the current tree, in the utility of the player to move at the
        root: root bounds, the bounds of every created root child, and the move."""
        root = self.root
        bounds = self._to_root_units(root.lo, root.hi)
        children = {a: self._to_root_units(k.lo, k.hi) for a, k in root.children().items()}
        action = self.best_action()
        return SearchResult(
            action=action,
            lower=bounds.lower,
            upper=bounds.upper,
            children=children,
            pv=self.principal_variation(action),
            stats=stats if stats is not None else SearchStats(),
            visits=self.visits(),
            bounds_on=GAME_VALUE,  # bounds change only at terminals
        )

    def visits(self) -> dict[int, int]:
        """Visit counts of the created root children, by action."""
        return {a: k.n for a, k in self.root.children().items()}

    def snapshot(self) -> dict[tuple[int, ...], tuple[int, int, float, float, float]]:
        """Every node's statistics and bounds, by its path of actions from the root:
        `(player, n, w, lo, hi)`, values in player 0's utility. Two trees built the same way
        (same seeds, evaluator values and budget) have equal snapshots whatever their storage."""
        table = {}
        stack: list[tuple[tuple[int, ...], TreeNode]] = [((), self.root)]
        while stack:
            path, node = stack.pop()
            table[path] = (node.player, node.n, node.w, node.lo, node.hi)
            stack.extend(((*path, a), kid) for a, kid in node.children().items())
        return table


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
        root = self._root
        if root.player == _CHANCE:
            raise ValueError(f"{ALGORITHM} searches from decision nodes, not chance nodes")
        settings = self.settings
        prune = settings.prune
        eps = settings.epsilon if prune else 0.0
        vmin = self._vmin
        vmax = self._vmax
        uct_c = settings.uct_c
        rand = self._random.random
        sqrt = math.sqrt
        state = self.root_state.clone()
        path = [root]
        node = root
        alpha = vmin
        beta = vmax
        cutoffs = 0
        # Selection: descend through created children until one is still to be created.
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
                probs = node.probs
                cum = node.cum
                assert probs is not None and cum is not None
                i = bisect_right(cum, rand() * cum[-1])
                if i >= len(kids):
                    i = len(kids) - 1
                kid = kids[i]
                p = probs[i]
                if kid is None:
                    k_lo, k_hi = vmin, vmax
                else:
                    k_lo, k_hi = kid.lo, kid.hi
                if prune:  # self._outcome_window, inlined on the hot path
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
                    i, a, b = self._chance_slow(node, alpha, beta, lo, hi, eps)
                    kid = kids[i]
                alpha = a
                beta = b
            elif node.probs is None and node.next < len(kids):
                # UCT tries every child once first; a child not yet created is never pruned.
                i = node.next
                kid = None
            else:
                best = -math.inf
                i = -1
                sign = 1.0 if node.player == 0 else -1.0
                priors = node.probs
                if priors is None:
                    explore = uct_c * sqrt(math.log(node.n))
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
                    explore = uct_c * sqrt(node.n)
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
                kid = kids[i]
            actions = node.actions
            assert actions is not None
            state.apply_action(actions[i])
            if kid is None:
                break
            node = kid
            path.append(kid)
        self._cutoffs += cutoffs

        # Expansion: create the child (and, through chance nodes, one sampled outcome after
        # another) before attaching anything, so that a budget stop leaves the tree untouched.
        parent = node
        created: list[tuple[Node, int, Node]] = []
        room = settings.max_nodes - self.size
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
                terminal = True
                break
            child = self._new_node(state)
            created.append((parent, i, child))
            if child.player != _CHANCE:
                value = self._evaluate(state)
                terminal = False
                break
            assert child.cum is not None and child.actions is not None
            i = bisect_right(child.cum, rand() * child.cum[-1])
            if i >= len(child.actions):
                i = len(child.actions) - 1
            state.apply_action(child.actions[i])
            parent = child

        for parent, index, child in created:
            assert parent.kids is not None
            parent.kids[index] = child
            if parent.player != _CHANCE and parent.probs is None:
                parent.next += 1
            path.append(child)
        self._size += len(created)
        self.simulations += 1
        if len(path) - 1 > self._depth:
            self._depth = len(path) - 1

        # Backup: statistics along the whole path; bounds of the created nodes, then upwards
        # while they keep changing (a leaf that is not terminal changes nothing, except that a
        # created chance node's weighted sums of vmin / vmax may round off vmin / vmax).
        changed = terminal
        last = len(path) - 1
        first_created = last - len(created) + 1
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


def compiled_reasons(info: GameInfo, evaluator: Evaluator, settings: BABMCTSSettings) -> list[str]:
    """Why the compiled engine cannot run a search (empty when it can).

    The compiled tree has no chance nodes: reproducing the reference's chance sampling, which
    draws from the same stream as the expansion order between the compiled steps, would cost a
    return to Python per chance node, and in the catalogue's chance games (backgammon, pig) the
    playouts, not the tree, take the time. PUCT priors are left to the reference as well.
    """
    reasons = []
    if info.has_chance:
        reasons.append("the game has chance nodes")
    if settings.priors and callable(getattr(evaluator, "prior", None)):
        reasons.append(
            f"the evaluator {getattr(evaluator, 'name', evaluator)!r} has priors (PUCT; "
            "priors=False selects by UCT)"
        )
    try:
        importlib.import_module("numba")
    except ImportError:
        reasons.append("numba is not installed (pip install 'spiel-bounded[fast]')")
    return reasons


def make_tree(
    state: pyspiel.State,
    *,
    evaluator: Evaluator,
    settings: BABMCTSSettings | None = None,
    rng: np.random.Generator | int | None = None,
) -> BABMCTSTreeBase:
    """The tree `settings.engine` asks for (see `BABMCTSSettings.engine`).

    Raises:
        ValueError: engine "compiled" cannot run this search (the message says why), or the
            tree refuses the state (see `BABMCTSTree`).
    """
    settings = settings or BABMCTSSettings()
    if settings.engine != ENGINE_PYTHON:
        info = game_info(state.get_game())
        reasons = compiled_reasons(info, evaluator, settings)
        if not reasons:
            from spiel_bounded.search.mcts_compiled import CompiledBABMCTSTree

            return CompiledBABMCTSTree(state, evaluator=evaluator, settings=settings, rng=rng)
        if settings.engine == ENGINE_COMPILED:
            raise ValueError(
                f"engine={ENGINE_COMPILED!r} cannot search {info.description}: "
                + "; ".join(reasons)
                + f" (engine={ENGINE_AUTO!r} falls back to {ENGINE_PYTHON!r})"
            )
    return BABMCTSTree(state, evaluator=evaluator, settings=settings, rng=rng)


def babmcts(
    state: pyspiel.State,
    *,
    evaluator: Evaluator,
    limits: Limits | None = None,
    settings: BABMCTSSettings | None = None,
    rng: np.random.Generator | int | None = None,
) -> SearchResult:
    """BABMCTS from `state` for the player to move, on a fresh tree.

    Args:
        state: A non-terminal decision state of a two-player zero-sum perfect-information game,
            with or without chance nodes.
        evaluator: Values non-terminal leaves (rollouts, a heuristic, any `Evaluator`).
        limits: Node and time limits (no depth limit); simulations are limited by
            `settings.simulations`.
        settings: Epsilon, UCT constant, simulation limit, memory cap, engine, ...
        rng: Seeds selection (expansion order, chance sampling): a generator or an integer.

    Returns:
        A `SearchResult` with `MCTSStats`: `[lower, upper]` contains the root's exact value for
        the player to move and is at most epsilon wide when `stats.stopped_by == "solved"`; the
        action is then epsilon-optimal.

    Raises:
        ValueError: The game is unsupported, the state is terminal or a chance node, `rng` or
            `limits` are invalid, `settings.engine` is "compiled" and cannot run this search,
            or the evaluator returned a value outside the game's range.
    """
    if state.is_chance_node():
        raise ValueError(
            f"{ALGORITHM} needs a decision state, got a chance node of "
            f"{game_description(state.get_game())}"
        )
    tree = make_tree(state, evaluator=evaluator, settings=settings, rng=rng)
    return tree.search(limits)
