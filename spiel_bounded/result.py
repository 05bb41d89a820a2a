"""Typed results every search returns."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import NamedTuple


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
        nodes: Nodes visited (every state the search stepped into, leaves included).
        evaluations: Calls to the evaluator at non-terminal leaves.
        cutoffs: Nodes left before their last child because the window closed.
        tt_hits: Transposition-table probes that ended a node without searching it.
        depth: Deepest iteration completed (0 when none completed).
        seconds: Wall-clock seconds spent.
        stopped_by: Why the search ended: "solved" (the result holds at every depth),
            "depth" (the depth limit was completed), "nodes" or "seconds" (a budget ran out; the
            result is then the last completed iteration).
    """

    nodes: int = 0
    evaluations: int = 0
    cutoffs: int = 0
    tt_hits: int = 0
    depth: int = 0
    seconds: float = 0.0
    stopped_by: str = "depth"


@dataclass(frozen=True, kw_only=True)
class SearchResult:
    """The outcome of one search from a root state.

    Values are utilities for the player to move at the root (the maximizing player), in the
    game's own units.

    Attributes:
        action: The action the search recommends (its own default choice rule).
        lower: Proven lower bound on the root value.
        upper: Proven upper bound on the root value.
        children: Bounds on the value of every root action examined.
        pv: Principal variation, starting with `action`.
        stats: Search statistics.
        visits: Visits of the root actions, for searches that count them (MCTS); empty
            otherwise. Move-choice policies use them to break ties between equal bounds.
    """

    action: int
    lower: float
    upper: float
    children: Mapping[int, Interval] = field(default_factory=dict)
    pv: tuple[int, ...] = ()
    stats: SearchStats = field(default_factory=SearchStats)
    visits: Mapping[int, int] = field(default_factory=dict)

    @property
    def interval(self) -> Interval:
        return Interval(self.lower, self.upper)
