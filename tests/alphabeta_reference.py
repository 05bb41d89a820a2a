"""The readable alpha-beta engine: the test oracle of `spiel_bounded.search.alphabeta`.

Each node here calls named helpers (`_ordered`, `_record_cut`, `_evaluate`, the table's `get` /
`store` on `Entry` named tuples) and nothing else: no values of the depth-limit children in the
parent's loop, no `leaf_value` / `child_leaves` (every leaf goes through `evaluate`), no
`undo_action`, no written-out table key. It was the package's `reference_engine=True` until
issue 24 made the production engine one recursion; it stays here so that the tests can check that
engine's speed-ups change nothing (`tests/test_equivalence.py`: the same moves, bounds,
principal variations and counts) and test the node contract on the readable code
(`tests/test_star.py`). The manual states the rules (docs/algorithms.md: windows, epsilon,
Star-1 / Star-2); `search` mirrors the entry points of `spiel_bounded.search.alphabeta`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Final, NamedTuple

import pyspiel

from spiel_bounded.evaluators.base import Evaluator, player_value
from spiel_bounded.games import (
    TWO_PLAYER_ZERO_SUM,
    TWO_PLAYER_ZERO_SUM_CHANCE,
    GameInfo,
    Requirements,
    check_epsilon,
    require_decision_state,
)
from spiel_bounded.limits import Budget, Limits, SearchStopped
from spiel_bounded.result import (
    GAME_VALUE,
    Interval,
    SearchResult,
    SearchStats,
    StopReason,
    depth_limited,
    solved,
)
from spiel_bounded.search.alphabeta import PARANOID_GAMES, AlphaBetaSettings
from spiel_bounded.search.keys import key_function

_HISTORY_LIMIT = 1 << 30

ALGORITHMS: Final[dict[str, tuple[str, Requirements, bool, str]]] = {
    # name: (model, requirements, probing, hint)
    "bounded_ab": (
        "minimax",
        TWO_PLAYER_ZERO_SUM,
        False,
        "; for games with chance nodes use bounded_star1 or bounded_star2",
    ),
    "bounded_star1": ("expectiminimax", TWO_PLAYER_ZERO_SUM_CHANCE, False, ""),
    "bounded_star2": ("expectiminimax", TWO_PLAYER_ZERO_SUM_CHANCE, True, ""),
    "paranoid": ("paranoid", PARANOID_GAMES, True, ""),
}


class Entry(NamedTuple):
    """A table entry; `spiel_bounded.search.tt` says what its fields mean."""

    lower: float
    upper: float
    depth: int
    move: int | None
    horizon: bool
    outcomes: tuple[tuple[float, float], ...] | None = None

    def usable_at(self, depth: int) -> bool:
        """Whether the bounds hold for the depth-limited value with `depth` plies left."""
        return self.depth == depth or (not self.horizon and self.depth <= depth)


class ReferenceTable:
    """A dictionary of entries with a capacity; when full, only existing keys are updated.

    Refusing new keys when full (instead of evicting) keeps every stored interval valid and the
    behaviour deterministic; a search that needs more entries gets a larger `capacity`.
    """

    __slots__ = ("capacity", "entries")

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.entries: dict[object, Entry] = {}

    def __len__(self) -> int:
        return len(self.entries)

    def get(self, key: object) -> Entry | None:
        return self.entries.get(key)

    def store(
        self,
        key: object,
        lower: float,
        upper: float,
        depth: int,
        move: int | None,
        horizon: bool,
        outcomes: tuple[tuple[float, float], ...] | None = None,
    ) -> None:
        """Stores bounds, intersected with an entry of the same depth."""
        old = self.get(key)
        if old is None:
            if len(self.entries) >= self.capacity:
                return
        elif old.depth == depth:
            # Both intervals bound the same value, so their intersection does too; it holds
            # beyond this depth only if neither search met the horizon.
            lower = max(lower, old.lower)
            upper = min(upper, old.upper)
            horizon = horizon or old.horizon
            if move is None:
                move = old.move
        self.entries[key] = Entry(lower, upper, depth, move, horizon, outcomes)


def _weighted(outcomes: list[tuple[int, float]], values: list[float]) -> float:
    """sum_j p_j * values[j], accumulated in outcome order like OpenSpiel's expectiminimax."""
    total = 0.0
    for (_, probability), value in zip(outcomes, values, strict=True):
        total += probability * value
    return total


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


class ReferenceEngine:
    """State of one search call: bounds, table, counters; every node calls the named helpers."""

    def __init__(
        self,
        game: pyspiel.Game,
        info: GameInfo,
        max_player: int,
        evaluator: Evaluator,
        settings: AlphaBetaSettings,
        budget: Budget,
        probing: bool,
        root: pyspiel.State | None = None,
    ) -> None:
        self.info = info
        self.eps = float(settings.epsilon)
        self.has_chance = info.has_chance
        self.probing = probing
        self.carry = settings.chance_epsilon == "carry"
        self.max_player = max_player
        self.evaluator = evaluator
        self.vmin = info.min_utility
        self.vmax = info.max_utility
        self.ordering = settings.move_ordering
        self.tt = (
            ReferenceTable(settings.capacity(native=False)) if settings.transpositions else None
        )
        self.key = key_function(game, root)
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
        return self._checked_value(state)

    def _checked_value(self, state: pyspiel.State) -> float:
        """The evaluator's value of `state` for the MAX player, checked against the range."""
        values = self.evaluator.evaluate(state)
        vmin, vmax = self.vmin, self.vmax
        try:  # check_values for two players, inlined: free unless something is wrong
            value = values[self.max_player]
            valid = len(values) == 2 and vmin <= values[0] <= vmax and vmin <= values[1] <= vmax
        except (TypeError, IndexError, KeyError):
            valid = False
        if not valid:  # raises, saying what is wrong
            value = player_value(values, self.max_player, self.evaluator, self.info)
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
        self, state: pyspiel.State, depth: int, alpha: float, beta: float, eps: float, ply: int
    ) -> tuple[float, float]:
        """Searches `state` with `depth` plies left; returns (lower, upper) for the MAX player."""
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
        if self.has_chance and state.is_chance_node():
            return self._chance(state, depth, alpha, beta, eps, ply)

        tt = self.tt
        key: object = None
        tt_move = None
        tt_lower = self.vmin
        tt_upper = self.vmax
        player = state.current_player()
        if tt is not None:
            key = self.key(state)
            entry = tt.get(key)
            if entry is not None:
                tt_move = entry.move
                if entry.usable_at(depth):
                    tt_lower, tt_upper = entry.lower, entry.upper
                    if (
                        tt_upper <= alpha + eps
                        or tt_lower >= beta - eps
                        or tt_upper - tt_lower <= eps
                    ):
                        self.tt_hits += 1
                        if entry.horizon:
                            self.horizon = True
                        return tt_lower, tt_upper
                    # Narrowing the window by the stored interval is safe because the result is
                    # intersected with that interval below.
                    alpha = max(alpha, tt_lower)
                    beta = min(beta, tt_upper)

        outer_horizon = self.horizon
        self.horizon = False
        moves = self._ordered(state, player, ply, tt_move)
        last = len(moves) - 1
        child_depth = depth - 1
        best_move = moves[0]
        if player == self.max_player:
            lower, upper, best_lower = self.vmin, self.vmin, -math.inf
            cut_at = beta - eps
            for i, move in enumerate(moves):
                child_lower, child_upper = self.node(
                    state.child(move), child_depth, alpha, beta, eps, ply + 1
                )
                if child_upper > upper:
                    upper = child_upper
                if child_lower > best_lower:
                    best_lower, best_move = child_lower, move
                    if child_lower > lower:
                        lower = child_lower
                        if lower > alpha:
                            alpha = lower
                if lower >= cut_at:
                    if i < last:
                        upper = self.vmax  # unexplored children may still reach vmax
                    self._record_cut(player, move, depth, ply, i < last)
                    break
        else:
            lower, upper, best_upper = self.vmax, self.vmax, math.inf
            cut_at = alpha + eps
            for i, move in enumerate(moves):
                child_lower, child_upper = self.node(
                    state.child(move), child_depth, alpha, beta, eps, ply + 1
                )
                if child_lower < lower:
                    lower = child_lower
                if child_upper < best_upper:
                    best_upper, best_move = child_upper, move
                    if child_upper < upper:
                        upper = child_upper
                        if upper < beta:
                            beta = upper
                if upper <= cut_at:
                    if i < last:
                        lower = self.vmin
                    self._record_cut(player, move, depth, ply, i < last)
                    break

        lower = max(lower, tt_lower)
        upper = min(upper, tt_upper)
        horizon = self.horizon
        self.horizon = outer_horizon or horizon
        if tt is not None:
            tt.store(key, lower, upper, depth, best_move, horizon)
        return lower, upper

    def _chance(
        self, state: pyspiel.State, depth: int, alpha: float, beta: float, eps: float, ply: int
    ) -> tuple[float, float]:
        """Bounded Star-1 (Star-2 with probing) at a chance node; see the module docstring."""
        vmin, vmax = self.vmin, self.vmax
        outcomes = state.chance_outcomes()
        lowers = [vmin] * len(outcomes)
        uppers = [vmax] * len(outcomes)
        tt = self.tt
        key: object = None
        outer_horizon = self.horizon
        self.horizon = False
        if tt is not None:
            key = self.key(state)
            entry = tt.get(key)
            if entry is not None and entry.usable_at(depth):
                lower, upper = entry.lower, entry.upper
                if upper <= alpha + eps or lower >= beta - eps or upper - lower <= eps:
                    self.tt_hits += 1
                    self.horizon = outer_horizon or entry.horizon
                    return lower, upper
                if entry.outcomes is not None:  # resume from the stored outcome bounds
                    lowers = [bounds[0] for bounds in entry.outcomes]
                    uppers = [bounds[1] for bounds in entry.outcomes]
                    self.horizon = entry.horizon
        lower = _weighted(outcomes, lowers)
        upper = _weighted(outcomes, uppers)
        # Most probable outcomes first: they move the bounds most, so cuts come sooner.
        order = sorted(range(len(outcomes)), key=lambda j: -outcomes[j][1])
        cut = False
        if self.probing:
            lower, upper, cut = self._probe(
                state,
                depth,
                outcomes,
                order,
                lowers,
                uppers,
                (lower, upper),
                (alpha, beta),
                eps,
                ply,
            )
        if not cut:
            spent = 0.0
            mass = 1.0
            for rank, j in enumerate(order):
                action, p = outcomes[j]
                child_lower, child_upper = lowers[j], uppers[j]
                eps_j = max(0.0, eps - spent) / max(mass, p) if self.carry else eps
                if child_upper - child_lower > eps_j:
                    # Star-1 windows widened by the node's own tolerance: failing against a_j
                    # (new_upper <= a_j + eps_j) still brings upper down to alpha + eps.
                    slack = (eps - p * eps_j) / p
                    a_j = (alpha - upper + p * child_upper) / p + slack
                    b_j = (beta - lower + p * child_lower) / p - slack
                    new_lower, new_upper = self.node(
                        state.child(action),
                        depth,
                        a_j if a_j > vmin else vmin,
                        b_j if b_j < vmax else vmax,
                        eps_j,
                        ply + 1,
                    )
                    new_lower = max(new_lower, child_lower)
                    new_upper = min(new_upper, child_upper)
                    lower += p * (new_lower - child_lower)
                    upper += p * (new_upper - child_upper)
                    lowers[j], uppers[j] = new_lower, new_upper
                spent += p * (uppers[j] - lowers[j])
                mass -= p
                if upper <= alpha + eps or lower >= beta - eps or upper - lower <= eps:
                    cut = True
                    self.cutoffs += rank < len(order) - 1
                    break
        # Summed afresh in outcome order, as expectiminimax does, so that exact values agree to
        # the last bit instead of carrying the incremental updates' rounding.
        lower = _weighted(outcomes, lowers)
        upper = _weighted(outcomes, uppers)
        lower = min(max(lower, vmin), vmax)
        upper = max(min(upper, vmax), lower)
        horizon = self.horizon
        self.horizon = outer_horizon or horizon
        if tt is not None:
            stored = tuple(zip(lowers, uppers, strict=True))
            tt.store(key, lower, upper, depth, None, horizon, stored)
        return lower, upper

    def _probe(
        self,
        state: pyspiel.State,
        depth: int,
        outcomes: list[tuple[int, float]],
        order: list[int],
        lowers: list[float],
        uppers: list[float],
        bounds: tuple[float, float],
        window: tuple[float, float],
        eps: float,
        ply: int,
    ) -> tuple[float, float, bool]:
        """Star-2 probing: searches one move of each outcome; returns (lower, upper, cut).

        Searching a single move of a MAX outcome bounds it from below (its value is at least
        that move's), and of a MIN outcome from above. An outcome that is terminal or another
        chance node is not probed; the Star-1 pass searches it fully.
        """
        vmin, vmax = self.vmin, self.vmax
        lower, upper = bounds
        alpha, beta = window
        budget = self.budget
        for j in order:
            action, p = outcomes[j]
            child_lower, child_upper = lowers[j], uppers[j]
            if child_upper - child_lower <= eps:
                continue
            child = state.child(action)
            if child.is_terminal() or child.is_chance_node():
                continue
            budget.tick()
            player = child.current_player()
            tt_move = None
            if self.tt is not None:
                entry = self.tt.get(self.key(child))
                tt_move = None if entry is None else entry.move
            move = self._ordered(child, player, ply + 1, tt_move)[0]
            a_j = max(vmin, (alpha - upper + p * child_upper) / p)
            b_j = min(vmax, (beta - lower + p * child_lower) / p)
            probed_lower, probed_upper = self.node(
                child.child(move), depth - 1, a_j, b_j, eps, ply + 2
            )
            if player == self.max_player:
                if probed_lower > child_lower:
                    lower += p * (probed_lower - child_lower)
                    lowers[j] = probed_lower
            elif probed_upper < child_upper:
                upper += p * (probed_upper - child_upper)
                uppers[j] = probed_upper
            if upper <= alpha + eps or lower >= beta - eps or upper - lower <= eps:
                self.cutoffs += 1
                return lower, upper, True
        return lower, upper, False

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
        lower = upper = self.vmin
        for move in moves:
            alpha = lower
            child_lower, child_upper = self.node(
                state.child(move), depth - 1, alpha, self.vmax, eps, 1
            )
            children[move] = Interval(child_lower, child_upper)
            lower = max(lower, child_lower)
            upper = max(upper, child_upper)
            if self.vmax <= lower + eps:
                upper = self.vmax if len(children) < len(moves) else upper
                break
        order = sorted(children, key=lambda m: (-children[m].lower, -children[m].upper))
        order += [m for m in moves if m not in children]
        return _Iteration(depth, lower, upper, children, order, self.horizon)

    def principal_variation(self, state: pyspiel.State, first: int, depth: int) -> tuple[int, ...]:
        """Follows stored best moves from the root action (only the root action without a TT)."""
        pv = [first]
        if self.tt is None:
            return tuple(pv)
        seen = set()
        current = state.child(first)
        while len(pv) < depth and not current.is_terminal():
            key = self.key(current)
            entry = self.tt.get(key)
            if entry is None or entry.move is None or key in seen:
                break
            seen.add(key)
            if entry.move not in current.legal_actions():
                break
            pv.append(entry.move)
            current = current.child(entry.move)
        return tuple(pv)


def search(
    algorithm: str,
    state: pyspiel.State,
    *,
    evaluator: Evaluator,
    limits: Limits | None = None,
    settings: AlphaBetaSettings | None = None,
    probing: bool | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> SearchResult:
    """What `spiel_bounded.search.alphabeta.<algorithm>` returns, computed by `ReferenceEngine`.

    `algorithm` is one of `ALGORITHMS`; `probing` (paranoid only) defaults to True as there.
    """
    model, requirements, default_probing, hint = ALGORITHMS[algorithm]
    probing = default_probing if probing is None else probing
    limits = limits or Limits()
    budget = Budget(limits, clock=clock)  # from here on, setting up counts against the limit
    settings = settings or AlphaBetaSettings()
    game = state.get_game()
    info = require_decision_state(state, algorithm, requirements, hint=hint)
    check_epsilon(settings.epsilon, info, algorithm)
    max_player = state.current_player()
    engine = ReferenceEngine(game, info, max_player, evaluator, settings, budget, probing, state)

    final_depth = limits.depth if limits.depth is not None else game.max_game_length()
    first_depth = 1 if settings.iterative_deepening else final_depth
    # Only without chance, where move numbers and the maximum length count the same plies.
    remaining = game.max_game_length() - state.move_number()
    if not info.has_chance and 0 < remaining <= min(settings.endgame_plies, final_depth):
        first_depth = final_depth
    best: _Iteration | None = None
    stopped_by: StopReason = "depth"
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
            bounds_on=GAME_VALUE,  # the whole value range
        )
    action = best.order[0]
    return SearchResult(
        action=action,
        lower=best.lower,
        upper=best.upper,
        children=dict(best.children),
        pv=engine.principal_variation(state, action, best.depth),
        stats=stats,
        bounds_on=(
            depth_limited(model, best.depth, evaluator)
            if best.horizon
            else solved(model, game_value=info.num_players == 2 and info.zero_sum)
        ),
    )
