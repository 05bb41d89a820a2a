"""Best-reply search BRS+ (Schadd & Winands 2011; Esser et al. 2013) for n-player games.

The root player maximises its value; between two of its turns, exactly one opponent plays a
searched move (all its moves are tried, and the opponents' choice is the one worst for the root
player), while every other opponent plays its preferred move: the move whose child is best for
that opponent by the evaluator (terminal returns count as they are), the first in legal order
among ties. OpenSpiel fixes the turn order, so the opponents between two root turns move in
that order: at each of them the search either makes it the searched one or lets it play its
preferred move and defers the choice to the next; a path on which no opponent was searched
before the root player moves again is not a candidate (unless the game ends first). Players
may move several times in a row: the mover is read at every node, and a run of root moves is
no segment.

Depth counts decision plies, every player's, as in the package's other searches (preferred
moves too: in pig, where a player may roll again and again through chance nodes, free moves
would make the tree unbounded); chance nodes average and do not count. The value is the root
player's; alpha-beta prunes between the root player and the opponents. Nodes (`stats.nodes`,
and the node budget) count every state the search makes, the children a preferred move is
chosen among included: those are most of BRS+'s work (3 to 10 states for each node of the
searched tree on 3-player chinese_checkers). A state's preferred move is chosen once per search
call and remembered (keyed by the history, which identifies the state in every game), so the
deeper iterations of iterative deepening do not choose again what the shallower ones chose.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import pyspiel

from spiel_bounded.evaluators.base import Evaluator, check_values
from spiel_bounded.games import (
    UNDO_EXACT_GAMES,
    GameInfo,
    Requirements,
    require_decision_state,
)
from spiel_bounded.limits import Budget, Limits
from spiel_bounded.native import ENGINES, engine_module, time_arguments
from spiel_bounded.params import OneOf, check_fields, setting
from spiel_bounded.result import Interval, SearchResult
from spiel_bounded.search.deepening import Iteration, deepen, result_of
from spiel_bounded.search.native_evaluators import native_values_evaluator

ALGORITHM: Final = "brs_plus"
BRS_GAMES: Final = Requirements(players=(2, None), chance=True, zero_sum=False)
_INVALID: Final = math.inf  # a path without a searched opponent: the minimiser never takes it


@dataclass(frozen=True, kw_only=True)
class BRSSettings:
    """Settings of BRS+."""

    engine: str = setting(
        "auto",
        "auto (native when built and the evaluator has a C++ twin), native (a Python evaluator "
        "is called back) or python",
        OneOf(ENGINES),
    )
    # The native engine (`spiel_bounded.native`) follows this module step for step: at a fixed
    # depth both visit the same nodes and return the same move, value and root children.

    def __post_init__(self) -> None:
        check_fields(self)


class BRSSearch:
    """The Python engine of BRS+: one search call's state (the root player, evaluator, budget,
    counters and the preferred moves chosen so far). Values are the root player's (`root`).
    `preferred` answers from the memo, `choose_preferred` chooses (once per state a search)."""

    def __init__(self, info: GameInfo, root: int, evaluator: Evaluator, budget: Budget) -> None:
        self.info = info
        self.root = root
        self.evaluator = evaluator
        self.budget = budget
        self.evaluations = 0
        self.cutoffs = 0
        self.horizon = False
        self._preferred: dict[tuple[int, ...], int] = {}

    def _values(self, state: pyspiel.State) -> list[float]:
        self.evaluations += 1
        values = check_values(self.evaluator.evaluate(state), self.evaluator, self.info)
        return [float(value) for value in values]

    def preferred(self, state: pyspiel.State) -> int:
        """The opponent's preferred move: best child for it by the evaluator (or returns)."""
        key = tuple(state.history())
        action = self._preferred.get(key)
        if action is None:
            action = self._preferred[key] = self.choose_preferred(state)
        return action

    def choose_preferred(self, state: pyspiel.State) -> int:
        """The move whose child is best for the player to move, by the evaluator (or returns)."""
        player = state.current_player()
        best_action, best_value = -1, -math.inf
        tick = self.budget.tick
        for action in state.legal_actions():
            tick()  # each child is a node: a node budget bounds this work too
            child = state.child(action)
            # Chance nodes included: the evaluator values them too.
            terminal = child.is_terminal()
            value = child.returns()[player] if terminal else self._values(child)[player]
            if value > best_value:
                best_action, best_value = action, value
        return best_action

    def value(
        self,
        state: pyspiel.State,
        depth: int,
        alpha: float,
        beta: float,
        in_segment: bool,
        searched: bool,
    ) -> float:
        """The root player's BRS+ value; `in_segment`: an opponent moved since the last root
        move; `searched`: one of them played a searched move."""
        self.budget.tick()
        if state.is_terminal():
            return float(state.returns()[self.root])
        if state.is_chance_node():
            total = 0.0
            for outcome, probability in state.chance_outcomes():
                child = state.child(outcome)
                total += probability * self.value(
                    child, depth, -math.inf, math.inf, in_segment, searched
                )
            return total
        player = state.current_player()
        if player == self.root:
            if in_segment and not searched:
                return _INVALID
            if depth == 0:
                self.horizon = True
                return self._values(state)[self.root]
            best = -math.inf
            for action in state.legal_actions():
                value = self.value(state.child(action), depth - 1, alpha, beta, False, False)
                best = max(best, value)
                alpha = max(alpha, value)
                if alpha >= beta:
                    self.cutoffs += 1
                    break
            return best
        if depth == 0:
            self.horizon = True
            return self._values(state)[self.root]
        if searched:  # another opponent already replied: this one plays its preferred move
            return self.value(
                state.child(self.preferred(state)), depth - 1, alpha, beta, True, True
            )
        # Either this opponent is the searched one, or it plays its preferred move and the
        # choice passes to the next opponent.
        best = self.value(state.child(self.preferred(state)), depth - 1, alpha, beta, True, False)
        beta = min(beta, best)
        if alpha >= beta:
            self.cutoffs += 1
            return best
        for action in state.legal_actions():
            value = self.value(state.child(action), depth - 1, alpha, beta, True, True)
            best = min(best, value)
            beta = min(beta, value)
            if alpha >= beta:
                self.cutoffs += 1
                break
        return best


def brs_plus(
    state: pyspiel.State,
    *,
    evaluator: Evaluator,
    limits: Limits | None = None,
    settings: BRSSettings | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> SearchResult:
    """BRS+ from `state` for the player to move, iterative deepening under `limits`.

    Args:
        state: A non-terminal decision state of a perfect-information game.
        evaluator: Values non-terminal states, one value per player.
        limits: Depth / nodes / seconds; the last completed depth is returned when a node or
            time limit stops the search.
        settings: The engine.
        clock: Seconds, monotonic, for the time limit (injected by tests).

    Returns:
        A `SearchResult` whose `lower` = `upper` is the root player's depth-limited BRS+ value
        (`bounds_on` names the depth and evaluator; never the game value), `children` the value
        after each root move examined in full.

    Raises:
        ValueError: An unsupported game, a terminal or chance state, or evaluator values out of
            range.
    """
    limits = limits or Limits()
    settings = settings or BRSSettings()
    info = require_decision_state(state, ALGORITHM, BRS_GAMES)
    root = state.current_player()
    budget = Budget(limits, clock=clock)
    game = state.get_game()
    final_depth = limits.depth if limits.depth is not None else game.max_game_length()
    native = native_values_evaluator(
        settings.engine,
        ALGORITHM,
        evaluator,
        game,
        lambda: (
            lambda leaf: [float(v) for v in check_values(evaluator.evaluate(leaf), evaluator, info)]
        ),
    )
    if native is not None:
        return _native_search(state, native, evaluator, limits, budget, info, final_depth, clock)
    engine = BRSSearch(info, root, evaluator, budget)
    moves = state.legal_actions()

    def search_to(depth: int, previous: Iteration | None) -> Iteration:
        engine.horizon = False
        children: dict[int, Interval] = {}
        chosen: tuple[int, float] | None = None
        for move in moves:
            alpha = -math.inf if chosen is None else chosen[1]
            value = engine.value(state.child(move), depth - 1, alpha, math.inf, False, False)
            if chosen is None or value > chosen[1]:
                chosen = (move, value)
                children[move] = Interval(value, value)
            else:  # failed low: at most the best so far
                children[move] = Interval(info.min_utility, min(value, chosen[1]))
        assert chosen is not None
        return Iteration(chosen[0], chosen[1], children, depth, engine.horizon)

    best, stopped_by = deepen(search_to, range(1, final_depth + 1), budget)
    return result_of(
        best,
        stopped_by,
        moves=moves,
        info=info,
        budget=budget,
        evaluations=engine.evaluations,
        cutoffs=engine.cutoffs,
        model="best-reply",
        evaluator=evaluator,
        exact=False,
    )


def _native_search(
    state: pyspiel.State,
    native: Any,
    evaluator: Evaluator,
    limits: Limits,
    budget: Budget,
    info: GameInfo,
    final_depth: int,
    clock: Callable[[], float],
) -> SearchResult:
    """The same search on the native engine (`spiel_bounded.native`), with the same rules."""
    outcome = engine_module(ALGORITHM).brs_plus(
        state,
        native,
        min_utility=float(info.min_utility),
        undo=state.get_game().get_type().short_name in UNDO_EXACT_GAMES,
        final_depth=final_depth,
        max_nodes=limits.nodes,
        **time_arguments(limits, budget, clock),
    )
    best = None
    if outcome.completed:
        children = {child.action: Interval(child.lower, child.upper) for child in outcome.children}
        best = Iteration(outcome.action, outcome.value, children, outcome.depth, outcome.horizon)
    return result_of(
        best,
        outcome.stopped_by,
        moves=state.legal_actions(),
        info=info,
        budget=budget,
        evaluations=outcome.evaluations,
        cutoffs=outcome.cutoffs,
        model="best-reply",
        evaluator=evaluator,
        exact=False,
        nodes=outcome.nodes,
        engine="native",
    )
