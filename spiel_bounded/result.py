"""Typed results every search returns."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final, Literal, NamedTuple, get_args

import numpy as np

StopReason = Literal["solved", "depth", "simulations", "nodes", "seconds"]
"""Why a search ended: the root is proved (to within epsilon, or at every depth); its depth
limit or simulation count was completed; its node or time budget ran out."""
STOP_REASONS: Final[tuple[StopReason, ...]] = get_args(StopReason)


BoundsKind = Literal["game", "model", "depth_limited", "estimate"]
"""What a result's `[lower, upper]` is about: "game", the value of a two-player zero-sum game
(the bounds are a proof about the game); "model", the value of the search's model of play
(paranoid, max^n, best-reply, ...) over the whole game, no leaf evaluated: exact, but with more
than two players (or general-sum payoffs) a model's value, not one every player agrees on;
"depth_limited", the value of the search's model of play (minimax, expectiminimax, paranoid,
max^n, best-reply) cut off at `depth` decision plies with the leaves there valued by
`evaluator`, which may differ from the game value by any amount; "estimate", no bound at all
(a backed-up guess)."""
BOUNDS_KINDS: Final[tuple[BoundsKind, ...]] = get_args(BoundsKind)


@dataclass(frozen=True)
class BoundsOn:
    """The value a `SearchResult`'s bounds hold for, so that no result claims more than it holds.

    Attributes:
        kind: "game" (`lower <= game value <= upper`), "model" (the bounds hold for the value
            of `model` over the whole game), "depth_limited" (for the `depth`-ply value of
            `model` with leaves valued by `evaluator`, not for the game) or "estimate" (no
            bound: `lower` and `upper` are the search's estimate).
        model: The search's model of play for "model" and "depth_limited" ("minimax",
            "expectiminimax", "paranoid", "max^n", "best-reply"); empty otherwise.
        depth: The depth of that value, in decision plies; 0 otherwise.
        evaluator: The evaluator that valued the leaves ("depth_limited", "estimate"); empty
            for "game".
    """

    kind: BoundsKind
    model: str = ""
    depth: int = 0
    evaluator: str = ""

    def __post_init__(self) -> None:
        if self.kind not in BOUNDS_KINDS:
            raise ValueError(f"kind must be one of {', '.join(BOUNDS_KINDS)}; got {self.kind!r}")

    def __str__(self) -> str:
        if self.kind == "game":
            return "the game value"
        if self.kind == "model":
            return f"the {self.model} value of the whole game (no leaf evaluated)"
        if self.kind == "depth_limited":
            return (
                f"the depth-{self.depth} {self.model} value with leaves valued by "
                f"{self.evaluator!r}, not the game value"
            )
        return f"an estimate (leaves valued by {self.evaluator!r}), not a bound"


GAME_VALUE: Final = BoundsOn("game")
"""Bounds that hold for the game value."""


def solved(model: str, *, game_value: bool) -> BoundsOn:
    """`BoundsOn` a search that evaluated no leaf: the game value when `game_value` (its model
    is optimal play of a two-player zero-sum game), else the value of `model`."""
    return GAME_VALUE if game_value else BoundsOn("model", model)


def depth_limited(model: str, depth: int, evaluator: object) -> BoundsOn:
    """`BoundsOn` the `depth`-ply value of `model` under `evaluator` (named by its `name`)."""
    return BoundsOn("depth_limited", model, depth, evaluator_name(evaluator))


def estimate(evaluator: object) -> BoundsOn:
    """`BoundsOn` an estimate backed up from leaves valued by `evaluator`."""
    return BoundsOn("estimate", evaluator=evaluator_name(evaluator))


def evaluator_name(evaluator: object) -> str:
    """An evaluator's `name`, else its class name."""
    return str(getattr(evaluator, "name", type(evaluator).__name__))


class Interval(NamedTuple):
    """Proven bounds `lower <= value <= upper` (pess and opti in the source notes). Whose
    value it is, the type that carries the interval says (`SearchResult`: the player to move
    at the root)."""

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
        engine: The engine that ran: "python" or "native" (`spiel_bounded.native`).
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
    engine: str = "python"


@dataclass(frozen=True, kw_only=True, eq=False)
class TableLabels:
    """The positions below the root that a search's transposition table bounded: training
    labels for every position of a search tree (TreeStrap; Descent's tree learning), one row a
    position, in the order of `search.table_walk.walk_table`.

    Attributes:
        features: `[positions, size]` the positions' network inputs (`Features`).
        keys: The positions' identities, `f"{mover}|{state}"` as the self-play data keys them.
        lower: `[positions]` a lower bound on the root player's value of each position: the value
            with `depth` plies left under the search's evaluator, or the game value where
            `proven`.
        upper: `[positions]` the upper bound likewise.
        depth: `[positions]` the plies left when the bounds were stored (at least 1: leaves are
            not stored).
        proven: `[positions]` no evaluator was called below: the bounds hold for the game value
            (its model's value: expectiminimax with chance).
    """

    features: np.ndarray
    keys: tuple[str, ...]
    lower: np.ndarray
    upper: np.ndarray
    depth: np.ndarray
    proven: np.ndarray

    def __len__(self) -> int:
        return len(self.keys)


@dataclass(frozen=True, kw_only=True)
class SearchResult:
    """The outcome of one search from a root state.

    Values are utilities for the player to move at the root (the maximizing player), in the
    game's own units. `bounds_on` says which value `lower`, `upper` and `children` bound: the
    game value, or only a depth-limited value under an evaluator (which may exclude the game
    value), or nothing (an estimate).

    Attributes:
        action: The action the search recommends (its own default choice rule).
        lower: Lower bound on the root value named by `bounds_on`.
        upper: Upper bound on the root value named by `bounds_on`.
        children: Bounds on the value (the same one) of every root action examined.
        pv: Principal variation, starting with `action`.
        stats: Search statistics.
        visits: Visits of the root actions, for searches that count them (MCTS); empty
            otherwise. Move-choice policies use them to break ties between equal bounds.
        bounds_on: The value the bounds hold for (`BoundsOn`): the game value, a depth-limited
            value under a named evaluator, or none (an estimate).
        values: The root's value for every player, for searches that compute a vector (n-player
            searches); None when the value is the mover's alone (two-player zero-sum).
        labels: The positions the search's table bounded, when asked for (`TableLabels`; the
            alpha-beta family's `labels` argument); None otherwise.
    """

    action: int
    lower: float
    upper: float
    children: Mapping[int, Interval] = field(default_factory=dict)
    pv: tuple[int, ...] = ()
    stats: SearchStats = field(default_factory=SearchStats)
    visits: Mapping[int, int] = field(default_factory=dict)
    bounds_on: BoundsOn
    values: tuple[float, ...] | None = None
    labels: TableLabels | None = field(default=None, compare=False, repr=False)

    @property
    def interval(self) -> Interval:
        return Interval(self.lower, self.upper)

    @property
    def bounds_game_value(self) -> bool:
        """True when `lower <= game value <= upper` is proved (`bounds_on.kind == "game"`)."""
        return self.bounds_on.kind == "game"
