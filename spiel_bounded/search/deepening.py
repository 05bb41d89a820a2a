"""Iterative deepening at the root, shared by every depth-first search (the alpha-beta family,
max^n, BRS+).

A search supplies one function that searches every root move to a given depth (given the
iteration before, for move ordering) and returns its iteration; `deepen` calls it at each depth
in turn until the depth limit, a budget runs out, or an iteration evaluates no leaf (its values
are then the game's: deeper changes nothing). For the n-player searches `result_of` turns the
last completed `Iteration` into a `SearchResult`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol, TypeVar

from spiel_bounded.games import GameInfo
from spiel_bounded.limits import Budget, SearchStopped
from spiel_bounded.result import (
    GAME_VALUE,
    Interval,
    SearchResult,
    SearchStats,
    StopReason,
    depth_limited,
    solved,
)


@dataclass(frozen=True)
class Iteration:
    """One completed depth of a root search.

    Attributes:
        action: The move chosen.
        value: That move's value for the player to move at the root.
        children: The value (or bounds) after each root move, for the player to move at the
            root.
        depth: The depth searched.
        horizon: A leaf was valued by the evaluator (False: the values are the game's).
        values: The chosen move's value for every player, when the search computes them.
    """

    action: int
    value: float
    children: Mapping[int, Interval]
    depth: int
    horizon: bool
    values: tuple[float, ...] | None = None


class Deepened(Protocol):
    """What `deepen` reads of an iteration."""

    @property
    def horizon(self) -> bool:
        """A leaf was valued by the evaluator (False: the values are the game's)."""
        ...


Found = TypeVar("Found", bound=Deepened)


def deepen(
    search_to: Callable[[int, Found | None], Found], depths: Iterable[int], budget: Budget
) -> tuple[Found | None, StopReason]:
    """The last iteration completed (None: not even the first) and why the search stopped.

    Each iteration counts one node (the root) against `budget` before it starts.
    """
    best = None
    try:
        for depth in depths:
            budget.tick()
            best = search_to(depth, best)
            if not best.horizon:
                return best, "solved"
    except SearchStopped as stop:
        return best, stop.reason
    return best, "depth"


def result_of(
    best: Iteration | None,
    stopped_by: StopReason,
    *,
    moves: list[int],
    info: GameInfo,
    budget: Budget,
    evaluations: int,
    cutoffs: int,
    model: str,
    evaluator: object,
    exact: bool,
    researches: int = 0,
    research_nodes: int = 0,
    stats_type: Callable[..., SearchStats] = SearchStats,
    nodes: int | None = None,
    engine: str = "python",
) -> SearchResult:
    """The `SearchResult` of a deepened search.

    Args:
        best: The last completed iteration; None gives the first legal move and the whole
            value range.
        stopped_by: Why the search stopped.
        moves: The root's legal moves.
        info: The game.
        budget: The search's budget (nodes and time).
        evaluations: Evaluator calls.
        cutoffs: Nodes left before their last child.
        model: The search's model of play ("max^n", "best-reply"), named in `bounds_on`.
        evaluator: The evaluator of the leaves, named in `bounds_on`.
        exact: The search's model is optimal play when no leaf was evaluated (max^n), so that
            on a two-player zero-sum game its value is the game value; False for a model of
            play that is not (BRS+, directed offensive).
        researches: Speculatively pruned nodes searched again (max^n).
        research_nodes: Nodes visited by those re-searches (included in the budget's nodes).
        stats_type: Makes the stats from `SearchStats`'s fields (a subclass with more fields,
            those given, e.g. `functools.partial(MaxnStats, pruning="shallow")`).
        nodes: The nodes visited, when an engine other than `budget`'s counted them (None:
            `budget.nodes`).
        engine: The engine that ran ("python" or "native").
    """
    stats = stats_type(
        nodes=budget.nodes if nodes is None else nodes,
        evaluations=evaluations,
        cutoffs=cutoffs,
        researches=researches,
        research_nodes=research_nodes,
        depth=0 if best is None else best.depth,
        seconds=budget.elapsed(),
        stopped_by=stopped_by,
        engine=engine,
    )
    if best is None:
        return SearchResult(
            action=moves[0],
            lower=info.min_utility,
            upper=info.max_utility,
            pv=(moves[0],),
            stats=stats,
            bounds_on=GAME_VALUE,  # the whole value range
        )
    return SearchResult(
        action=best.action,
        lower=best.value,
        upper=best.value,
        children=best.children,
        pv=(best.action,),
        stats=stats,
        bounds_on=(
            depth_limited(model, best.depth, evaluator)
            if best.horizon
            else solved(model, game_value=exact and info.num_players == 2 and info.zero_sum)
        ),
        values=best.values,
    )
