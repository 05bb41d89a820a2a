"""The searches of the alpha-beta family (`bounded_ab`, `bounded_star1`, `bounded_star2`,
`paranoid`): checks, limits, the engine choice, iterative deepening and the typed result."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import pyspiel

from spiel_bounded.evaluators.base import Evaluator
from spiel_bounded.games import (
    TWO_PLAYER_ZERO_SUM,
    TWO_PLAYER_ZERO_SUM_CHANCE,
    UNDO_EXACT_GAMES,
    GameInfo,
    Requirements,
    check_epsilon,
    require_decision_state,
)
from spiel_bounded.limits import Budget, Limits
from spiel_bounded.native import engine_module, time_arguments
from spiel_bounded.result import (
    GAME_VALUE,
    Interval,
    SearchResult,
    SearchStats,
    TableLabels,
    depth_limited,
    solved,
)
from spiel_bounded.search.alphabeta.engine import AlphaBetaEngine, RootIteration, leaf_function
from spiel_bounded.search.alphabeta.settings import AlphaBetaSettings
from spiel_bounded.search.deepening import deepen
from spiel_bounded.search.keys import key_rule
from spiel_bounded.search.native_evaluators import native_evaluator
from spiel_bounded.search.table_walk import LabelRequest, native_labels, walk_table

PROBES: Final = {"bounded_ab": False, "bounded_star1": False, "bounded_star2": True}
"""Whether each two-player search of the family probes a chance node's outcomes (Star-2)."""


def bounded_ab(
    state: pyspiel.State,
    *,
    evaluator: Evaluator,
    limits: Limits | None = None,
    settings: AlphaBetaSettings | None = None,
    clock: Callable[[], float] = time.perf_counter,
    labels: LabelRequest | None = None,
) -> SearchResult:
    """Bounded alpha-beta from `state` for the player to move.

    Args:
        state: A non-terminal decision state of a two-player zero-sum deterministic
            perfect-information game.
        evaluator: Values non-terminal states at the depth limit.
        limits: Depth / nodes / seconds. With iterative deepening the last completed iteration
            is returned when a node or time limit stops the search. None (or `Limits()`) sets
            no limit at all: the search runs until the root is solved, which takes hours on
            connect_four (the bots take 1 s per move when given no limit).
        settings: Engine settings (epsilon, transpositions, ordering, ...).
        clock: Seconds for the time limit (tests inject a fake clock).
        labels: When given, the result's `labels` are the positions the transposition table
            bounded (`search.table_walk`), however the search ended (`ValueError` without a
            table).

    Returns:
        A `SearchResult` whose `[lower, upper]` contains the depth-limited minimax value of the
        root for the player to move and is at most epsilon wide when `stats.depth > 0`.

    Raises:
        ValueError: The game is unsupported (games with chance nodes: use `bounded_star1` or
            `bounded_star2`), or the state is terminal or a chance node.
    """
    return _search(
        state,
        evaluator,
        limits,
        settings,
        algorithm="bounded_ab",
        model="minimax",
        requirements=TWO_PLAYER_ZERO_SUM,
        probing=PROBES["bounded_ab"],
        hint="; for games with chance nodes use bounded_star1 or bounded_star2",
        clock=clock,
        labels=labels,
    )


def bounded_star1(
    state: pyspiel.State,
    *,
    evaluator: Evaluator,
    limits: Limits | None = None,
    settings: AlphaBetaSettings | None = None,
    clock: Callable[[], float] = time.perf_counter,
    labels: LabelRequest | None = None,
) -> SearchResult:
    """Bounded Star-1 (Ballard 1983) from `state`: bounded alpha-beta with chance nodes.

    Same contract as `bounded_ab`, with V the depth-limited expectiminimax value (depth counts
    decision plies only, as in OpenSpiel's `minimax.expectiminimax`). Accepts deterministic
    games too, where it is `bounded_ab`.
    """
    return _search(
        state,
        evaluator,
        limits,
        settings,
        algorithm="bounded_star1",
        model="expectiminimax",
        requirements=TWO_PLAYER_ZERO_SUM_CHANCE,
        probing=PROBES["bounded_star1"],
        clock=clock,
        labels=labels,
    )


def bounded_star2(
    state: pyspiel.State,
    *,
    evaluator: Evaluator,
    limits: Limits | None = None,
    settings: AlphaBetaSettings | None = None,
    clock: Callable[[], float] = time.perf_counter,
    labels: LabelRequest | None = None,
) -> SearchResult:
    """Bounded Star-2 (Ballard 1983; Hauk, Buro & Schaeffer 2004): Star-1 plus probing.

    Before searching a chance node's outcomes fully, searches one move of each (the first by
    move ordering) for cheap bounds and cuts as soon as they allow. Same contract as
    `bounded_star1`.
    """
    return _search(
        state,
        evaluator,
        limits,
        settings,
        algorithm="bounded_star2",
        model="expectiminimax",
        requirements=TWO_PLAYER_ZERO_SUM_CHANCE,
        probing=PROBES["bounded_star2"],
        clock=clock,
        labels=labels,
    )


PARANOID_GAMES: Final = Requirements(players=(2, None), chance=True, zero_sum=False)
"""Paranoid search plays any turn-based perfect-information game, chance included."""


def paranoid(
    state: pyspiel.State,
    *,
    evaluator: Evaluator,
    limits: Limits | None = None,
    settings: AlphaBetaSettings | None = None,
    probing: bool = True,
    clock: Callable[[], float] = time.perf_counter,
) -> SearchResult:
    """Paranoid search (Sturtevant & Korf 2000) from `state`: the player to move against the
    coalition of all the others, who are assumed to minimise its value.

    The game becomes a two-player zero-sum game between the root player and the coalition, so
    the bounded engine applies unchanged: epsilon, transpositions, move ordering, and Star-1
    (`probing=False`) or Star-2 (`probing=True`) at chance nodes. Same contract as `bounded_ab`,
    with V the depth-limited paranoid value of the root player; on a two-player zero-sum game
    it is `bounded_star2` (or `bounded_star1`).
    """
    return _search(
        state,
        evaluator,
        limits,
        settings,
        algorithm="paranoid",
        model="paranoid",
        requirements=PARANOID_GAMES,
        probing=probing,
        clock=clock,
    )


def _search(
    state: pyspiel.State,
    evaluator: Evaluator,
    limits: Limits | None,
    settings: AlphaBetaSettings | None,
    *,
    algorithm: str,
    model: str,
    requirements: Requirements,
    probing: bool,
    hint: str = "",
    clock: Callable[[], float] = time.perf_counter,
    labels: LabelRequest | None = None,
) -> SearchResult:
    limits = limits or Limits()
    budget = Budget(limits, clock=clock)  # from here on, setting up counts against the limit
    settings = settings or AlphaBetaSettings()
    if labels is not None and not settings.transpositions:
        raise ValueError(
            f"{algorithm}: labels come from the transposition table, which transpositions=False "
            "turns off; accepted: labels with transpositions=True (the default)"
        )
    game = state.get_game()
    info = require_decision_state(state, algorithm, requirements, hint=hint)
    check_epsilon(settings.epsilon, info, algorithm)
    max_player = state.current_player()

    first_depth, final_depth = search_depths(game, limits, settings)
    # Only without chance, where move numbers and the maximum length count the same plies.
    remaining = game.max_game_length() - state.move_number()
    if not info.has_chance and 0 < remaining <= min(settings.endgame_plies, final_depth):
        first_depth = final_depth
    native = native_evaluator(
        settings.engine,
        algorithm,
        evaluator,
        game,
        lambda: leaf_function(evaluator, info, max_player),
    )
    if native is not None:
        run = _native_run(
            state,
            native,
            settings,
            limits,
            budget,
            (first_depth, final_depth),
            probing,
            clock,
            labels,
        )
    else:
        run = _python_run(
            state, evaluator, settings, budget, (first_depth, final_depth), probing, info, labels
        )
    best, stats = run.best, run.stats
    if best is None:
        return SearchResult(
            action=run.fallback,
            lower=info.min_utility,
            upper=info.max_utility,
            pv=(run.fallback,),
            stats=stats,
            bounds_on=GAME_VALUE,  # the whole value range
            labels=run.labels,
        )
    return SearchResult(
        action=best.order[0],
        lower=best.lower,
        upper=best.upper,
        children=dict(best.children),
        pv=run.pv,
        stats=stats,
        bounds_on=(
            depth_limited(model, best.depth, evaluator)
            if best.horizon
            else solved(model, game_value=info.num_players == 2 and info.zero_sum)
        ),
        labels=run.labels,
    )


@dataclass(frozen=True, slots=True)
class _Run:
    """What one engine's search produced: the last completed iteration (None when none
    completed, and then `fallback` is the move to play), its principal variation, the stats,
    the table's labels when asked for."""

    best: RootIteration | None
    pv: tuple[int, ...]
    fallback: int
    stats: SearchStats
    labels: TableLabels | None = None


def _python_run(
    state: pyspiel.State,
    evaluator: Evaluator,
    settings: AlphaBetaSettings,
    budget: Budget,
    depths: tuple[int, int],
    probing: bool,
    info: GameInfo,
    labels: LabelRequest | None,
) -> _Run:
    max_player = state.current_player()
    engine = AlphaBetaEngine(
        state.get_game(), info, max_player, evaluator, settings, budget, probing, state
    )
    best, stopped_by = deepen(
        lambda depth, previous: engine.root(state, depth, previous),
        range(depths[0], depths[1] + 1),
        budget,
    )
    stats = SearchStats(
        nodes=budget.nodes,
        evaluations=engine.evaluations,
        cutoffs=engine.cutoffs,
        tt_hits=engine.tt_hits,
        depth=best.depth if best is not None else 0,
        seconds=budget.elapsed(),
        stopped_by=stopped_by,
    )
    walked = None
    if labels is not None:
        assert engine.tt is not None  # `_search` refuses labels without a table
        walked = walk_table(state, engine.tt, engine.key, labels)
    if best is None:
        fallback = engine._ordered(state, max_player, 0, None)[0]
        return _Run(best=None, pv=(fallback,), fallback=fallback, stats=stats, labels=walked)
    pv = engine.principal_variation(state, best.order[0], best.depth)
    return _Run(best=best, pv=pv, fallback=best.order[0], stats=stats, labels=walked)


def search_depths(
    game: pyspiel.Game, limits: Limits, settings: AlphaBetaSettings
) -> tuple[int, int]:
    """The first and the final depth of a search far from the end of the game (`_search` starts
    a deterministic game's last `endgame_plies` plies at the final depth)."""
    final_depth = limits.depth if limits.depth is not None else game.max_game_length()
    return (1 if settings.iterative_deepening else final_depth), final_depth


def native_arguments(
    game: pyspiel.Game, settings: AlphaBetaSettings, probing: bool, depths: tuple[int, int]
) -> dict[str, Any]:
    """The keywords of the native engine's search (`alpha_beta`, `self_play_game`) for
    `settings`, Star-2's `probing` and the (first, final) `depths`."""
    return {
        "epsilon": float(settings.epsilon),
        "transpositions": settings.transpositions,
        "move_ordering": settings.move_ordering,
        "tt_capacity": settings.capacity(native=True),
        "carry": settings.chance_epsilon == "carry",
        "probing": probing,
        "undo": game.get_type().short_name in UNDO_EXACT_GAMES,
        "key_kind": key_rule(game).kind,
        "first_depth": depths[0],
        "final_depth": depths[1],
    }


def _native_run(
    state: pyspiel.State,
    native: Any,
    settings: AlphaBetaSettings,
    limits: Limits,
    budget: Budget,
    depths: tuple[int, int],
    probing: bool,
    clock: Callable[[], float],
    labels: LabelRequest | None,
) -> _Run:
    """The same search on the native engine (`spiel_bounded.native`), with the same rules."""
    outcome = engine_module("alpha-beta").alpha_beta(
        state,
        native,
        **native_arguments(state.get_game(), settings, probing, depths),
        max_nodes=limits.nodes,
        **time_arguments(limits, budget, clock),
        **(
            {}
            if labels is None
            else {
                "label_chance_view": labels.features.chance_view,
                "label_lifted_view": labels.features.lifted_view,
                "label_min_depth": labels.min_depth,
            }
        ),
    )
    stats = SearchStats(
        nodes=outcome.nodes,
        evaluations=outcome.evaluations,
        cutoffs=outcome.cutoffs,
        tt_hits=outcome.tt_hits,
        depth=outcome.depth,
        seconds=budget.elapsed(),
        stopped_by=outcome.stopped_by,
        engine="native",
    )
    walked = None if outcome.labels is None else native_labels(outcome.labels)
    if not outcome.completed:
        return _Run(
            best=None,
            pv=(outcome.fallback,),
            fallback=outcome.fallback,
            stats=stats,
            labels=walked,
        )
    children = {child.action: Interval(child.lower, child.upper) for child in outcome.children}
    best = RootIteration(
        outcome.depth, outcome.lower, outcome.upper, children, list(outcome.order), outcome.horizon
    )
    return _Run(best=best, pv=tuple(outcome.pv), fallback=best.order[0], stats=stats, labels=walked)
