"""The native BABMCTS tree: the C++ tree of `spiel_bounded.native` behind `BABMCTSTreeBase`.

`NativeBABMCTSTree` runs whole searches in C++ (`native/src/babmcts.cc`): selection with the
windows, expansion through chance nodes, evaluation, backup, the budget. It follows the reference
tree (`python_tree.py`; the rules are in docs/algorithms.md) step for step and draws the same
random numbers (C++ reproduces Python's `random.Random`), so that under the same seed,
evaluator values and limits it holds the same nodes with the same statistics and bounds, and
returns the same `SearchResult` (`tests/test_native_mcts.py`). Chance nodes and priors included.

Its leaves are valued by the evaluator's C++ twin when it has one (`search/native_evaluators.py`:
random playouts, the zero and heuristic evaluators), else by calling the Python evaluator back
(checked as on the reference). Priors always come from Python (`evaluator.prior`), called back
once per expanded decision node. What the shared base does (moving the root, the move choice,
the `SearchResult`) reads the tree through `NativeNode` views.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Final

import numpy as np
import pyspiel

from spiel_bounded.evaluators.base import Evaluator
from spiel_bounded.limits import Budget, Limits
from spiel_bounded.native import engine_module
from spiel_bounded.result import SearchResult, StopReason
from spiel_bounded.search.babmcts.common import (
    ALGORITHM,
    DEFAULT_SIMULATIONS,
    BABMCTSSettings,
    BABMCTSTreeBase,
    MCTSStats,
    seed_from,
)
from spiel_bounded.search.native_evaluators import native_evaluator

ENGINE_NAME: Final = "native"
_CHANCE: Final = int(pyspiel.PlayerId.CHANCE)


class NativeNode:
    """A read-only view of one node of a `NativeBABMCTSTree` (the `TreeNode` protocol). Values
    (`w`, `lower`, `upper`) are in player 0's utility, as in `search.babmcts.python_tree.MCTSNode`.

    Attributes:
        index: The node's index in the C++ tree (valid until the root moves; the root is 0).
    """

    __slots__ = ("_engine", "index")

    def __init__(self, engine: Any, index: int) -> None:
        self._engine = engine
        self.index = index

    @property
    def player(self) -> int:
        return int(self._engine.node(self.index)[0])

    @property
    def n(self) -> int:
        return int(self._engine.node(self.index)[1])

    @property
    def w(self) -> float:
        return float(self._engine.node(self.index)[2])

    @property
    def lower(self) -> float:
        return float(self._engine.node(self.index)[3])

    @property
    def upper(self) -> float:
        return float(self._engine.node(self.index)[4])

    @property
    def actions(self) -> list[int] | None:
        """The legal actions (chance outcomes) in expansion order once expanded, else None."""
        actions = self._engine.actions(self.index)
        return None if actions is None else [int(a) for a in actions]

    def children(self) -> dict[int, NativeNode]:
        """The created children by action."""
        return {int(a): NativeNode(self._engine, k) for a, k in self._engine.children(self.index)}


class NativeBABMCTSTree(BABMCTSTreeBase):
    """A BABMCTS tree whose searches run in C++ (see the module docstring).

    Attributes (besides `BABMCTSTreeBase`'s):
        clock: The clock of the time limit (None: a steady clock in C++); tests inject one.
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
        """Builds a tree holding only its root (see `BABMCTSTree`).

        Raises:
            ValueError: The native engine is unavailable, the game is unsupported, the state is
                terminal, or `rng` is invalid.
        """
        self._module = engine_module(ALGORITHM)  # says why when the engine is unavailable
        self._seed = seed_from(rng)  # drawn once, as the reference draws it
        self._engine: Any = None
        self._native: tuple[Evaluator, Any] | None = None
        super().__init__(state, evaluator=evaluator, settings=settings, rng=self._seed, clock=clock)

    # -- what a storage provides ------------------------------------------------------------

    def _reset(self, state: pyspiel.State) -> None:
        self.root_state = state
        self._history = state.history()
        if self._engine is None:
            settings = self.settings
            self._engine = self._module.Babmcts(
                state,
                vmin=float(self._vmin),
                vmax=float(self._vmax),
                epsilon=float(settings.epsilon),
                uct_c=float(settings.uct_c),
                prune=settings.prune,
                max_nodes=settings.max_nodes,
                seed=self._seed,
            )
        else:
            self._engine.reset(state)

    @property
    def root(self) -> NativeNode:
        return NativeNode(self._engine, 0)

    @property
    def size(self) -> int:
        return int(self._engine.size)

    @property
    def proved(self) -> bool:
        return bool(self._engine.proved)

    def _move_root(self, action: int, child_state: pyspiel.State) -> bool:
        return bool(self._engine.move_root(action))

    def reseed(self, rng: np.random.Generator | int) -> None:
        self._engine.reseed(seed_from(rng))

    def _run(self, budget: Budget, cap: int | None) -> StopReason:
        raise NotImplementedError("the native tree runs whole searches in C++ (see search)")

    # -- searching ---------------------------------------------------------------------------

    def _leaf_evaluator(self) -> Any:
        """The C++ evaluator of `self.evaluator`: its twin, else a checked callback (built once
        per evaluator, so that a twin's random stream runs on across searches)."""
        evaluator = self.evaluator
        if self._native is None or self._native[0] is not evaluator:
            native = native_evaluator(
                ENGINE_NAME,
                ALGORITHM,
                evaluator,
                self.root_state.get_game(),
                lambda: self._evaluate,  # player 0's value, checked
            )
            self._native = (evaluator, native)
        return self._native[1]

    def _prior(self) -> Callable[[pyspiel.State], list[tuple[int, float]]] | None:
        prior = getattr(self.evaluator, "prior", None) if self.settings.priors else None
        if not callable(prior):
            return None

        def pairs(state: pyspiel.State) -> list[tuple[int, float]]:
            # As the reference reads them: through a dict (a repeated action keeps its last).
            return [(int(a), float(p)) for a, p in dict(prior(state)).items()]

        return pairs

    def search(self, limits: Limits | None = None) -> SearchResult:
        """Runs simulations in C++ until the root is proved or a limit is reached; see
        `BABMCTSTreeBase.search` (same limits, stats and errors; `stats.engine` is "native")."""
        limits = limits or Limits()
        if limits.depth is not None:
            raise ValueError(
                f"{ALGORITHM} does not take a depth limit (got depth={limits.depth}); limit "
                "simulations, nodes or seconds"
            )
        if self.root.player == _CHANCE:
            raise ValueError(f"{ALGORITHM} searches from decision nodes, not chance nodes")
        cap = self.settings.simulations
        if cap is None and limits.nodes is None and limits.seconds is None:
            cap = DEFAULT_SIMULATIONS
        native = self._leaf_evaluator()
        try:
            outcome = self._engine.search(
                native,
                prior=self._prior(),
                simulations=cap,
                max_nodes=limits.nodes,
                seconds=limits.seconds,
                clock=None if self.clock is time.perf_counter else self.clock,  # C++'s own clock
            )
        finally:
            self._sync_counters()
        stats = MCTSStats(
            nodes=outcome.nodes,
            evaluations=outcome.evaluations,
            cutoffs=outcome.cutoffs,
            depth=outcome.depth,
            seconds=outcome.seconds,
            stopped_by=outcome.stopped_by,
            engine=ENGINE_NAME,
            simulations=outcome.simulations,
            tree_nodes=outcome.tree_nodes,
            reused_nodes=outcome.reused_nodes,
        )
        return self.result(stats)

    def _sync_counters(self) -> None:
        """The tree's totals, as counted in C++ (a callback's own count is superseded)."""
        engine = self._engine
        self.simulations = int(engine.simulations)
        self.evaluations = int(engine.evaluations)
        self.fallbacks = int(engine.fallbacks)

    def visits(self) -> dict[int, int]:
        engine = self._engine
        return {int(a): int(engine.node(k)[1]) for a, k in engine.children(0)}
