"""What every BABMCTS tree shares, whatever stores its nodes: the settings, the statistics, what
a node shows (`TreeNode`), the expansion-order shuffle and `BABMCTSTreeBase` (moving the root, the
search loop's limits, the move choice, the `SearchResult`).

`python_tree.BABMCTSTree` is the reference tree; `native_tree.NativeBABMCTSTree` runs the same
search in C++ (`spiel_bounded.native`); `search` chooses between them (`tree_engine`,
`make_tree`) and is the entry point (`babmcts`). Both trees build on this module, neither
imports the other; the rules are in the manual (docs/algorithms.md).

Units. Inside a tree every value is in player 0's utility (player 0 is MAX, player 1 MIN), so a
reused tree stays valid whoever moves at its new root; `SearchResult`s are in the utility of the
player to move at the root.
"""

from __future__ import annotations

import functools
import random
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Final, Protocol

import numpy as np
import pyspiel

from spiel_bounded.evaluators.base import Evaluator, player_value
from spiel_bounded.games import (
    TWO_PLAYER_ZERO_SUM_CHANCE,
    GameInfo,
    check_epsilon,
    game_description,
    require,
)
from spiel_bounded.limits import Budget, Limits, SearchStopped
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
_SEED_BITS: Final = 63

ENGINE_AUTO: Final = "auto"
ENGINE_NATIVE: Final = "native"
ENGINE_PYTHON: Final = "python"
ENGINES: Final = (ENGINE_AUTO, ENGINE_NATIVE, ENGINE_PYTHON)
REMOVED_ENGINES: Final = (
    (
        "compiled",
        "the numba tree (engine='compiled') was removed in issue 38; native, the C++ tree, "
        "replaces it",
    ),
)
"""Engines `BABMCTSSettings.engine` no longer accepts, each with what to say instead."""


@dataclass(frozen=True, kw_only=True)
class BABMCTSSettings:
    """Settings of BABMCTS."""

    epsilon: float = setting(
        0.0, "tolerance in utility units (0: prove the exact value)", NON_NEGATIVE
    )
    # The search stops once the root's interval is at most this wide, and prunes children whose
    # window collapses to within it.
    uct_c: float = setting(2.0, "UCT exploration constant", NON_NEGATIVE)
    # c of UCT, `q + c * sqrt(ln N / n)` with q the mean value for the player to move (OpenSpiel's
    # MCTSBot uses the same formula and units), or of PUCT, `q + c * prior * sqrt(N) / (1 + n)`.
    simulations: int | None = setting(
        None,
        "simulations per move (None: no count when seconds or nodes is given, "
        f"else {DEFAULT_SIMULATIONS})",
        OPTIONAL_POSITIVE_INT,
    )
    # Per search call. None with a node or time limit: the search thinks for the time or nodes it
    # is given. The root being proved or the tree being full stops it too.
    max_nodes: int = setting(
        1_000_000,
        "memory cap in tree nodes (on connect_four about 130 bytes each in the native tree, "
        "300 in the Python one)",
        POSITIVE_INT,
    )
    # The tree never holds more nodes. A search stops with `stopped_by == "nodes"` when the tree
    # is full; a reused subtree that is already full is dropped (the search restarts from a fresh
    # tree).
    prune: bool = setting(True, "prune children from selection with alpha-beta windows", FLAG)
    # False keeps the bounds (score-bounded MCTS / MCTS-Solver) but skips only children whose
    # value is known exactly; for ablations.
    priors: bool = setting(True, "PUCT with the evaluator's priors when it has them", FLAG)
    # Priors come from the evaluator's `prior(state) -> [(action, probability), ...]` method
    # (OpenSpiel's evaluator interface); without one, UCT with a random expansion order.
    engine: str = setting(
        ENGINE_AUTO,
        "tree engine: native (C++, spiel_bounded.native; a Python evaluator is called back), "
        "python (the reference), or auto (native when it is built and the evaluator has a C++ "
        "twin, else python)",
        OneOf(ENGINES, removed=REMOVED_ENGINES),
    )
    # Which tree `search.babmcts.make_tree` (and so `babmcts` and the `babmcts` bot) builds:
    # `BABMCTSTree` (python) or `NativeBABMCTSTree` (native); both run the same search bit for
    # bit. The tree classes themselves ignore it.

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


class TreeNode(Protocol):
    """What the shared tree code reads of a node, whatever stores it. Values (`w`, `lower`,
    `upper`) are in player 0's utility, whoever moves at the root; see
    `python_tree.MCTSNode` for the fields."""

    @property
    def player(self) -> int: ...

    @property
    def n(self) -> int: ...

    @property
    def w(self) -> float: ...

    @property
    def lower(self) -> float: ...

    @property
    def upper(self) -> float: ...

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
    n-1 (about 3x cheaper for 7 actions). The native tree draws the same words
    (`native/src/py_random.cc`).
    """
    count = len(actions)
    for start, stop, limit in shuffle_plan(count):
        word = shuffle_word(limit, getrandbits)
        for i in range(start, stop):
            word, digit = divmod(word, count - i)
            j = i + digit
            actions[i], actions[j] = actions[j], actions[i]


def seed_from(rng: np.random.Generator | int | None) -> int:
    """An integer seed: drawn from a generator, taken as given, or 0 for None (what seeds a
    tree's `random.Random`)."""
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

    `python_tree.BABMCTSTree` stores `MCTSNode` objects and is the reference;
    `native_tree.NativeBABMCTSTree` runs whole searches in C++. Build one with
    `spiel_bounded.search.babmcts.make_tree`, which reads `settings.engine`.

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
            child, so the widest open child was taken (see docs/algorithms.md).
    """

    def __init__(
        self,
        state: pyspiel.State,
        *,
        evaluator: Evaluator,
        settings: BABMCTSSettings | None = None,
        rng: np.random.Generator | int | None = None,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        """Builds a tree holding only its root.

        Args:
            state: The root: a non-terminal state (a decision node to search from; chance roots
                are accepted so that `advance` can pass through chance nodes) of a two-player
                zero-sum perfect-information game, with or without chance nodes.
            evaluator: Values non-terminal leaves; `values[0]` (player 0's value) is used.
            settings: The search settings.
            rng: Seeds selection: a generator (one seed is drawn from it) or an integer.
            clock: Seconds for the time limit, monotonic (tests inject a fake clock).

        Raises:
            ValueError: The game is unsupported, the state is terminal, or `rng` is invalid.
        """
        self.clock = clock
        self.settings = settings or BABMCTSSettings()
        game = state.get_game()
        self.info: GameInfo = require(game, ALGORITHM, TWO_PLAYER_ZERO_SUM_CHANCE)
        check_epsilon(self.settings.epsilon, self.info, ALGORITHM)
        if state.is_terminal():
            raise ValueError(f"{ALGORITHM} needs a non-terminal state of {self.info.description}")
        self.evaluator = evaluator
        self._vmin = self.info.min_utility
        self._vmax = self.info.max_utility
        self._random = random.Random(seed_from(rng))
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
        self._random = random.Random(seed_from(rng))

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
        return self.root.upper - self.root.lower <= self.settings.epsilon

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
        budget = Budget(limits, clock=self.clock, clock_interval=1)
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

    def _to_root_units(self, lower: float, upper: float) -> Interval:
        if self.root.player == 0:
            return Interval(lower, upper)
        return Interval(0.0 - upper, 0.0 - lower)  # 0.0 - x: no negative zero in results

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
        # In the mover's units: the best lower bound of a child is -upper for player 1.
        lowers = {a: (k.lower if sign > 0 else -k.upper) for a, k in made}
        uppers = {a: (k.upper if sign > 0 else -k.lower) for a, k in made}
        floor = max(lowers.values())
        if self.proved:
            return min(a for a in lowers if lowers[a] == floor)
        eps = self.settings.epsilon if self.settings.prune else 0.0
        root_upper = root.upper if sign > 0 else -root.lower
        candidates = [
            (a, k)
            for a, k in made
            if lowers[a] >= floor or min(root_upper, uppers[a]) > max(floor, lowers[a]) + eps
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
        bounds = self._to_root_units(root.lower, root.upper)
        children = {a: self._to_root_units(k.lower, k.upper) for a, k in root.children().items()}
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
        `(player, n, w, lower, upper)`, values in player 0's utility. Two trees built the same way
        (same seeds, evaluator values and budget) have equal snapshots whatever their storage."""
        table = {}
        stack: list[tuple[tuple[int, ...], TreeNode]] = [((), self.root)]
        while stack:
            path, node = stack.pop()
            table[path] = (node.player, node.n, node.w, node.lower, node.upper)
            stack.extend(((*path, a), kid) for a, kid in node.children().items())
        return table
