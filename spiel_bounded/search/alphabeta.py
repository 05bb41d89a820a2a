"""The bounded alpha-beta engine.

Every node returns an interval `(pess, opti)` that contains its depth-limited minimax value, in
the utility of the maximizing player (the player to move at the root). A node stops searching
its children as soon as its window closes to within epsilon, `beta <= alpha + epsilon`
(Atzmon, Stern & Saffidine, "Bounded Suboptimal Game Tree Search", SoCS 2018, Theorem 1 and
Algorithm BoundedAB; epsilon = 0 is ordinary fail-soft alpha-beta).

Contract of a node searched with window (alpha, beta): its result `(lo, hi)` satisfies
`lo <= V <= hi` and at least one of `hi <= alpha + eps` (fail low), `lo >= beta - eps` (fail
high), `hi - lo <= eps` (resolved). At the root the window is the whole value range, so the root
interval is at most epsilon wide once its children are searched; the child with the best lower
bound is then epsilon-optimal.

MAX nodes are the root player's; every other player is MIN. For two-player zero-sum games that is
minimax; for n-player games it is the paranoid assumption (a coalition of MIN players).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pyspiel

from spiel_bounded.evaluators.base import Evaluator, check_values
from spiel_bounded.games import GameInfo, position_key, require
from spiel_bounded.limits import Budget, Limits, SearchStopped
from spiel_bounded.result import Interval, SearchResult, SearchStats
from spiel_bounded.search.tt import TranspositionTable

_HISTORY_LIMIT = 1 << 30


@dataclass(frozen=True, kw_only=True)
class AlphaBetaSettings:
    """Settings of the bounded alpha-beta engine.

    Attributes:
        epsilon: Absolute tolerance in utility units (>= 0). The root interval is at most this
            wide when an iteration completes; 0 is exact alpha-beta.
        transpositions: Use a transposition table keyed by (player to move, str(state)). Turn it
            off for games whose string omits part of the state (move counters, repetitions).
        move_ordering: Order moves by transposition-table move, killer moves and the history
            heuristic. Off searches in `legal_actions()` order.
        iterative_deepening: Search depth 1, 2, ... up to the depth limit, keeping the last
            completed iteration when a node or time limit stops the search. Off searches the
            depth limit directly (which then must be set, or the game is searched to the end).
        tt_capacity: Maximum number of transposition-table entries.
    """

    epsilon: float = 0.0
    transpositions: bool = True
    move_ordering: bool = True
    iterative_deepening: bool = True
    tt_capacity: int = 2_000_000

    def __post_init__(self) -> None:
        if not isinstance(self.epsilon, int | float) or not self.epsilon >= 0:
            raise ValueError(f"epsilon must be a number >= 0, got {self.epsilon!r}")
        if self.tt_capacity < 1:
            raise ValueError(f"tt_capacity must be >= 1, got {self.tt_capacity!r}")


class _Iteration:
    """The outcome of one completed root iteration."""

    __slots__ = ("children", "depth", "horizon", "lower", "order", "upper")

    def __init__(
        self,
        depth: int,
        lower: float,
        upper: float,
        children: dict[int, Interval],
        order: list[int],
        horizon: bool,
    ) -> None:
        self.depth = depth
        self.lower = lower
        self.upper = upper
        self.children = children
        self.order = order
        self.horizon = horizon


class _Engine:
    """State of one search call: bounds, tables, counters."""

    def __init__(
        self,
        game: pyspiel.Game,
        info: GameInfo,
        max_player: int,
        evaluator: Evaluator,
        settings: AlphaBetaSettings,
        budget: Budget,
    ) -> None:
        self.info = info
        self.max_player = max_player
        self.evaluator = evaluator
        self.vmin = info.min_utility
        self.vmax = info.max_utility
        self.eps = float(settings.epsilon)
        self.ordering = settings.move_ordering
        self.tt = TranspositionTable(settings.tt_capacity) if settings.transpositions else None
        self.budget = budget
        num_actions = game.num_distinct_actions()
        self.history = [[0] * num_actions for _ in range(info.num_players)]
        self.killers: list[list[int]] = []
        self.evaluations = 0
        self.cutoffs = 0
        self.tt_hits = 0
        self.horizon = False  # set when the evaluator is called below the current node

    # -- helpers -------------------------------------------------------------------------------

    def _evaluate(self, state: pyspiel.State) -> float:
        self.evaluations += 1
        self.horizon = True
        values = self.evaluator.evaluate(state)
        value = values[self.max_player]
        if not self.vmin <= value <= self.vmax or len(values) != self.info.num_players:
            check_values(values, self.evaluator, self.info)
        return float(value)

    def _ordered(self, state: pyspiel.State, player: int, ply: int, tt_move: int | None) -> list:
        """Legal moves: TT move, then killers, then by history score (all C-level list work)."""
        moves: list[int] = state.legal_actions()
        if not self.ordering or len(moves) < 2:
            return moves
        moves.sort(key=self.history[player].__getitem__, reverse=True)
        if ply < len(self.killers):
            for killer in reversed(self.killers[ply]):
                if killer in moves:
                    moves.remove(killer)
                    moves.insert(0, killer)
        if tt_move is not None and tt_move in moves:
            moves.remove(tt_move)
            moves.insert(0, tt_move)
        return moves

    def _record_cut(self, player: int, move: int, depth: int, ply: int, early: bool) -> None:
        """Credits `move` for closing the window; `early` when children were left unsearched."""
        self.cutoffs += early
        if not self.ordering:
            return
        row = self.history[player]
        row[move] += depth * depth
        if row[move] > _HISTORY_LIMIT:
            self.history[player] = [h >> 1 for h in row]
        while len(self.killers) <= ply:
            self.killers.append([])
        killers = self.killers[ply]
        if move not in killers:
            killers.insert(0, move)
            del killers[2:]

    # -- the recursion -------------------------------------------------------------------------

    def node(
        self, state: pyspiel.State, depth: int, alpha: float, beta: float, ply: int
    ) -> tuple[float, float]:
        """Searches `state` with `depth` plies left; returns (pess, opti) for the MAX player."""
        budget = self.budget
        budget.countdown -= 1
        if budget.countdown <= 0:
            budget.checkpoint()
        if state.is_terminal():
            value = state.player_return(self.max_player)
            return value, value
        if depth <= 0:
            value = self._evaluate(state)
            return value, value

        eps = self.eps
        tt = self.tt
        key: object = None
        tt_move = None
        tt_lo = self.vmin
        tt_hi = self.vmax
        player = state.current_player()
        if tt is not None:
            key = (player, str(state))  # position_key, inlined on the hot path
            entry = tt.get(key)
            if entry is not None:
                tt_move = entry.move
                if entry.usable_at(depth):
                    tt_lo, tt_hi = entry.lower, entry.upper
                    if tt_hi <= alpha + eps or tt_lo >= beta - eps or tt_hi - tt_lo <= eps:
                        self.tt_hits += 1
                        if entry.horizon:
                            self.horizon = True
                        return tt_lo, tt_hi
                    # Narrowing the window by the stored interval is safe because the result is
                    # intersected with that interval below.
                    alpha = max(alpha, tt_lo)
                    beta = min(beta, tt_hi)

        outer_horizon = self.horizon
        self.horizon = False
        moves = self._ordered(state, player, ply, tt_move)
        last = len(moves) - 1
        child_depth = depth - 1
        best_move = moves[0]
        if player == self.max_player:
            lo, hi, best_lo = self.vmin, self.vmin, -math.inf
            for i, move in enumerate(moves):
                c_lo, c_hi = self.node(state.child(move), child_depth, alpha, beta, ply + 1)
                if c_hi > hi:
                    hi = c_hi
                if c_lo > best_lo:
                    best_lo, best_move = c_lo, move
                    if c_lo > lo:
                        lo = c_lo
                        if lo > alpha:
                            alpha = lo
                if beta <= alpha + eps:
                    if i < last:
                        hi = self.vmax  # unexplored children may still reach vmax
                    self._record_cut(player, move, depth, ply, i < last)
                    break
        else:
            lo, hi, best_hi = self.vmax, self.vmax, math.inf
            for i, move in enumerate(moves):
                c_lo, c_hi = self.node(state.child(move), child_depth, alpha, beta, ply + 1)
                if c_lo < lo:
                    lo = c_lo
                if c_hi < best_hi:
                    best_hi, best_move = c_hi, move
                    if c_hi < hi:
                        hi = c_hi
                        if hi < beta:
                            beta = hi
                if beta <= alpha + eps:
                    if i < last:
                        lo = self.vmin
                    self._record_cut(player, move, depth, ply, i < last)
                    break

        lo = max(lo, tt_lo)
        hi = min(hi, tt_hi)
        horizon = self.horizon
        self.horizon = outer_horizon or horizon
        if tt is not None:
            tt.store(key, lo, hi, depth, best_move, horizon)
        return lo, hi

    def root(self, state: pyspiel.State, depth: int, previous: _Iteration | None) -> _Iteration:
        """Searches every root action with a window open above the best lower bound so far."""
        self.budget.tick()
        self.horizon = False
        eps = self.eps
        moves = self._ordered(state, self.max_player, 0, None)
        if previous is not None:
            rank = {m: i for i, m in enumerate(previous.order)}
            moves.sort(key=lambda m: rank.get(m, len(rank)))
        children: dict[int, Interval] = {}
        lo = hi = self.vmin
        for move in moves:
            alpha = lo
            c_lo, c_hi = self.node(state.child(move), depth - 1, alpha, self.vmax, 1)
            children[move] = Interval(c_lo, c_hi)
            lo = max(lo, c_lo)
            hi = max(hi, c_hi)
            if self.vmax <= lo + eps:
                hi = self.vmax if len(children) < len(moves) else hi
                break
        order = sorted(children, key=lambda m: (-children[m].lower, -children[m].upper))
        order += [m for m in moves if m not in children]
        return _Iteration(depth, lo, hi, children, order, self.horizon)

    def principal_variation(self, state: pyspiel.State, first: int, depth: int) -> tuple[int, ...]:
        """Follows stored best moves from the root action (only the root action without a TT)."""
        pv = [first]
        if self.tt is None:
            return tuple(pv)
        seen = set()
        current = state.child(first)
        while len(pv) < depth and not current.is_terminal():
            key = position_key(current)
            entry = self.tt.get(key)
            if entry is None or entry.move is None or key in seen:
                break
            seen.add(key)
            if entry.move not in current.legal_actions():
                break
            pv.append(entry.move)
            current = current.child(entry.move)
        return tuple(pv)


def bounded_ab(
    state: pyspiel.State,
    *,
    evaluator: Evaluator,
    limits: Limits | None = None,
    settings: AlphaBetaSettings | None = None,
    algorithm: str = "bounded_ab",
) -> SearchResult:
    """Bounded alpha-beta from `state` for the player to move.

    Args:
        state: A non-terminal decision state of a two-player zero-sum deterministic
            perfect-information game.
        evaluator: Values non-terminal states at the depth limit.
        limits: Depth / nodes / seconds. With iterative deepening the last completed iteration
            is returned when a node or time limit stops the search.
        settings: Engine settings (epsilon, transpositions, ordering, ...).
        algorithm: Name used in error messages.

    Returns:
        A `SearchResult` whose `[lower, upper]` contains the depth-limited minimax value of the
        root for the player to move and is at most epsilon wide when `stats.depth > 0`.

    Raises:
        ValueError: The game is unsupported or the state is terminal or a chance node.
    """
    limits = limits or Limits()
    settings = settings or AlphaBetaSettings()
    game = state.get_game()
    info = require(game, algorithm)
    if state.is_terminal() or state.is_chance_node():
        raise ValueError(f"{algorithm} needs a decision state of {info.description}, got:\n{state}")
    budget = Budget(limits)
    max_player = state.current_player()
    engine = _Engine(game, info, max_player, evaluator, settings, budget)

    final_depth = limits.depth if limits.depth is not None else game.max_game_length()
    first_depth = 1 if settings.iterative_deepening else final_depth
    best: _Iteration | None = None
    stopped_by = "depth"
    try:
        for depth in range(first_depth, final_depth + 1):
            best = engine.root(state, depth, best)
            if not best.horizon:
                stopped_by = "solved"
                break
    except SearchStopped as stop:
        stopped_by = stop.reason

    seconds = budget.elapsed()
    stats = SearchStats(
        nodes=budget.nodes,
        evaluations=engine.evaluations,
        cutoffs=engine.cutoffs,
        tt_hits=engine.tt_hits,
        depth=best.depth if best is not None else 0,
        seconds=seconds,
        stopped_by=stopped_by,
    )
    if best is None:
        fallback = engine._ordered(state, max_player, 0, None)[0]
        return SearchResult(
            action=fallback,
            lower=info.min_utility,
            upper=info.max_utility,
            pv=(fallback,),
            stats=stats,
        )
    action = best.order[0]
    return SearchResult(
        action=action,
        lower=best.lower,
        upper=best.upper,
        children=dict(best.children),
        pv=engine.principal_variation(state, action, best.depth),
        stats=stats,
    )
