"""Typed results every search returns."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final, Literal, NamedTuple, get_args

StopReason = Literal["solved", "depth", "simulations", "nodes", "seconds"]
"""Why a search ended: the root is proved (to within epsilon, or at every depth); its depth
limit or simulation count was completed; its node or time budget ran out."""
STOP_REASONS: Final[tuple[StopReason, ...]] = get_args(StopReason)


class Interval(NamedTuple):
    """Proven bounds `lower <= value <= upper` (pess and opti in the source notes)."""

    lower: float
    upper: float

    @property
    def width(self) -> float:
        return self.upper - self.lower

    @property
    def midpoint(self) -> float:
        return 0.5 * (self.lower + self.upper)


@dataclass(frozen=True, kw_only=True)
class SearchStats:
    """What a search did.

    Attributes:
        nodes: Nodes visited (every state the search stepped into, leaves included); None for
            a search that does not count them (a wrapped OpenSpiel search).
        evaluations: Calls to the evaluator at non-terminal leaves.
        cutoffs: Nodes left before their last child because the window closed.
        tt_hits: Transposition-table probes that ended a node without searching it.
        researches: Speculatively pruned nodes searched again (max^n speculative pruning).
        research_nodes: Nodes visited by those re-searches, included in `nodes`.
        depth: Deepest iteration completed (0 when none completed).
        seconds: Wall-clock seconds spent.
        stopped_by: Why the search ended (`StopReason`): "solved" (the result holds at every
            depth), "depth" (the depth limit was completed), "simulations" (MCTS: its count was
            completed), "nodes" or "seconds" (a budget ran out; an iterative search then returns
            its last completed iteration).
    """

    nodes: int | None = 0
    evaluations: int = 0
    cutoffs: int = 0
    tt_hits: int = 0
    researches: int = 0
    research_nodes: int = 0
    depth: int = 0
    seconds: float = 0.0
    stopped_by: StopReason = "depth"


@dataclass(frozen=True, kw_only=True)
class SearchResult:
    """The outcome of one search from a root state.

    Values are utilities for the player to move at the root (the maximizing player), in the
    game's own units.

    Attributes:
        action: The action the search recommends (its own default choice rule).
        lower: Lower bound on the root value (proven when `proven`).
        upper: Upper bound on the root value (proven when `proven`).
        children: Bounds on the value of every root action examined.
        pv: Principal variation, starting with `action`.
        stats: Search statistics.
        visits: Visits of the root actions, for searches that count them (MCTS); empty
            otherwise. Move-choice policies use them to break ties between equal bounds.
        proven: True when `lower`, `upper` and `children` are proven bounds on the value the
            search defines (depth-limited minimax, expectiminimax, the game value); False when
            they are estimates (a search that backs up heuristic values without bounds, like
            OpenSpiel's alpha-beta: then lower == upper is its estimate, not a proof).
        values: The root's value for every player, for searches that compute a vector (n-player
            searches); None when the value is the mover's alone (two-player zero-sum).
    """

    action: int
    lower: float
    upper: float
    children: Mapping[int, Interval] = field(default_factory=dict)
    pv: tuple[int, ...] = ()
    stats: SearchStats = field(default_factory=SearchStats)
    visits: Mapping[int, int] = field(default_factory=dict)
    proven: bool = True
    values: tuple[float, ...] | None = None

    @property
    def interval(self) -> Interval:
        return Interval(self.lower, self.upper)
