"""The bounded alpha-beta engine.

Every node returns an interval `(lower, upper)` (pess and opti in the bounded-search notes) that
contains its depth-limited minimax value, in the utility of the maximizing player (the player to
move at the root). A node stops searching its children as soon as its window closes to within
epsilon, `beta <= alpha + epsilon` (Atzmon, Stern & Saffidine, "Bounded Suboptimal Game Tree
Search", SoCS 2018, Theorem 1 and Algorithm BoundedAB; epsilon = 0 is ordinary fail-soft
alpha-beta).

Contract of a node searched with window (alpha, beta) and tolerance eps: its result `(lower,
upper)` satisfies `lower <= V <= upper` and at least one of `upper <= alpha + eps` (fail low),
`lower >= beta - eps` (fail high), `upper - lower <= eps` (resolved). The window may be closed on
entry (a chance node can hand a child one); a MAX node therefore cuts only when `lower >= beta -
eps` and a MIN node only when `upper <= alpha + eps`, which for an open window is the same as
`beta <= alpha + eps` and for a closed one still keeps the contract. At the root the window is
the whole value range, so the root interval is at most epsilon wide once its children are
searched; the child with the best lower bound is then epsilon-optimal.

Chance nodes (bounded Star-1 / Star-2; Ballard 1983, Hauk, Buro & Schaeffer 2004, conditions C6
and C7 of the bounded-search notes): bounds are probability-weighted sums of the outcomes'
bounds with the unexplored mass at vmin / vmax; outcome j with probability p is searched with

    alpha_j = max(vmin, (alpha - upper + p * upper_j) / p)
    beta_j = min(vmax, (beta - lower + p * lower_j) / p)

(the notes print `max(vmax, ...)` for beta_j; it must be `min`) and tolerance eps_j with
sum_j p_j eps_j <= eps. If outcome j fails low against an unclipped alpha_j, the chance node's
upper bound drops to at most alpha + p eps_j <= alpha + eps, so the node fails low; likewise
high; a clipped window makes the outcome resolved (e.g. upper_j <= vmin + eps_j). So a chance node
that does not cut ends with width sum_j p_j width_j <= sum_j p_j eps_j <= eps. Because only
`upper <= alpha + eps` is needed, alpha_j is raised (beta_j lowered) by (eps - p eps_j) / p beyond
the notes' windows: more outcomes fail, and each failure still closes the node. Star-2 first
probes each outcome with one move, which bounds a MAX outcome from below and a MIN outcome from
above.
Depth counts decision plies only, as in OpenSpiel's `expectiminimax`.

MAX nodes are the root player's; every other player is MIN. For two-player zero-sum games that is
minimax; for n-player games it is the paranoid assumption (a coalition of MIN players).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import pyspiel

from spiel_bounded.evaluators.base import ChildLeaves, Evaluator, player_value
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
from spiel_bounded.native import ENGINES, engine_module, time_arguments
from spiel_bounded.native.evaluators import native_evaluator
from spiel_bounded.params import (
    FLAG,
    NON_NEGATIVE,
    NON_NEGATIVE_INT,
    OPTIONAL_POSITIVE_INT,
    OneOf,
    check_fields,
    setting,
)
from spiel_bounded.result import (
    GAME_VALUE,
    Interval,
    SearchResult,
    SearchStats,
    TableLabels,
    depth_limited,
    solved,
)
from spiel_bounded.search.deepening import deepen
from spiel_bounded.search.keys import key_function, key_rule
from spiel_bounded.search.table_walk import LabelRequest, native_labels, walk_table
from spiel_bounded.search.tt import DEFAULT_CAPACITY, TranspositionTable, usable

_HISTORY_LIMIT = 1 << 30
_CHANCE = int(pyspiel.PlayerId.CHANCE)

CHANCE_EPSILON_POLICIES = ("uniform", "carry")
NATIVE_CAPACITY: Final = 1_500_000
"""Default table entries on the native engine: 2.14M slots of 48 bytes when full (103 MB), 153 MB
measured at the peak while it grows into them (the half-size slots still alive,
`results/bench_memory.md`): about the memory of the Python engine's 500,000 entries."""


@dataclass(frozen=True, kw_only=True)
class AlphaBetaSettings:
    """Settings of the bounded alpha-beta engine."""

    epsilon: float = setting(0.0, "tolerance in utility units (0: exact alpha-beta)", NON_NEGATIVE)
    # The root interval is at most this wide when an iteration completes.
    transpositions: bool = setting(True, "use a transposition table", FLAG)
    # Its key is chosen per game (`spiel_bounded.search.keys`): the player to move and the state's
    # string where that is the whole state, plus what the string omits (move counters, ...) where
    # that can be read, else the history of actions (then only iterative deepening and move
    # ordering benefit: different move orders never share an entry).
    move_ordering: bool = setting(True, "TT move, killer moves and history heuristic", FLAG)
    # Off: `legal_actions()` order.
    iterative_deepening: bool = setting(True, "search depth 1, 2, ... up to the limit", FLAG)
    # Keeps the last completed iteration when a node or time limit stops the search. Off searches
    # the depth limit directly (which then must be set, or the game is searched to the end).
    endgame_plies: int = setting(
        9,
        "with iterative deepening, search to the end at once when at most this many plies can "
        "remain (0: never)",
        NON_NEGATIVE_INT,
    )
    # In games without chance. The plies that can remain are `game.max_game_length() -
    # state.move_number()`, an upper bound on the rest of the game. A search that reaches every
    # terminal needs one iteration, and the shallower ones would only repeat work (tic_tac_toe
    # from the start: 2,863 nodes instead of 5,774).
    tt_capacity: int | None = setting(
        None,
        f"transposition-table entries at most (None: {DEFAULT_CAPACITY:,} on the Python engine, "
        f"about 330 bytes each on connect_four; {NATIVE_CAPACITY:,} on the native engine, 48 "
        "bytes a slot)",
        OPTIONAL_POSITIVE_INT,
    )
    chance_epsilon: str = setting(
        "uniform",
        "how a chance node shares epsilon among outcomes: " + ", ".join(CHANCE_EPSILON_POLICIES),
        OneOf(CHANCE_EPSILON_POLICIES),
    )
    # Keeping sum_j p_j eps_j <= eps: "uniform" gives every outcome eps; "carry" gives outcome j
    # the unused tolerance divided by the probability mass still to search, so slack an exact
    # outcome did not use flows to the outcomes after it.
    engine: str = setting(
        "auto",
        "auto (native when built and the evaluator has a C++ twin), native (a Python evaluator "
        "is called back) or python",
        OneOf(ENGINES),
    )
    # The native engine (`spiel_bounded.native`) follows this module step for step: at a fixed
    # depth, with a table that does not fill, both visit the same nodes and return the same
    # bounds, moves and principal variation.

    def capacity(self, *, native: bool) -> int:
        """The table capacity on the named engine (`tt_capacity`, or that engine's default)."""
        if self.tt_capacity is not None:
            return self.tt_capacity
        return NATIVE_CAPACITY if native else DEFAULT_CAPACITY

    def __post_init__(self) -> None:
        check_fields(self)


def _weighted(outcomes: list[tuple[int, float]], values: list[float]) -> float:
    """sum_j p_j * values[j], accumulated in outcome order like OpenSpiel's expectiminimax."""
    total = 0.0
    for (_, probability), value in zip(outcomes, values, strict=True):
        total += probability * value
    return total


@dataclass(slots=True)
class _Iteration:
    """The outcome of one completed root iteration: `lower`, `upper` and `children` are bounds
    for `max_player`, the player to move at the root."""

    depth: int
    lower: float
    upper: float
    children: dict[int, Interval]
    order: list[int]
    horizon: bool


def _checked_leaf_value(
    evaluator: Evaluator, info: GameInfo, player: int
) -> Callable[[pyspiel.State], float]:
    """`evaluator`'s value of a state for `player`, checked against the game's range.

    A function that holds no search engine: one stored on the engine as a bound method would
    make a reference cycle, and each search's table would then live on until the cyclic
    garbage collector freed dozens of them at once, in the middle of a later timed search
    (0.3 to 1.9 s on 3-player chinese_checkers).
    """
    vmin, vmax = info.min_utility, info.max_utility

    def value_of(state: pyspiel.State) -> float:
        values = evaluator.evaluate(state)
        try:  # check_values for two players, inlined: free unless something is wrong
            value = values[player]
            valid = len(values) == 2 and vmin <= values[0] <= vmax and vmin <= values[1] <= vmax
        except (TypeError, IndexError, KeyError):
            valid = False
        if not valid:  # raises, saying what is wrong
            value = player_value(values, player, evaluator, info)
        return float(value)

    return value_of


def _leaf_function(
    evaluator: Evaluator, info: GameInfo, player: int
) -> Callable[[pyspiel.State], float]:
    """The evaluator's `leaf_value(player)` where it has one, else its checked value."""
    fast_value = getattr(evaluator, "leaf_value", None)
    leaf_value = fast_value(player) if fast_value is not None else None
    return leaf_value or _checked_leaf_value(evaluator, info, player)


class _AlphaBeta:
    """State of one search call: bounds, table, ordering heuristics, counters. Every value
    (node results, windows, table entries) is in the utility of `max_player`, the player to move
    at the root; MIN is every other player.

    `node` is the one recursion. Besides calling the named helpers (`_ordered`, `_record_cut`,
    the table's `get` / `store`) it does three things for speed, none of which changes a node, a
    value, a bound or a move (the readable oracle `tests/alphabeta_reference.py` does none of
    them, and `tests/test_equivalence.py` compares the two; `results/equivalence/alphabeta.json`
    pins both):

    - the children at the depth limit are valued in the parent's loop, with no recursive call,
      through the evaluator's `leaf_value(player)` when it has one (a faster `evaluate(...)
      [player]`), and without building them when it has `child_leaves` (connect_four);
    - in games where `undo_action` is exact (`UNDO_EXACT_GAMES`), children are made by
      `apply_action` / `undo_action` on the node's own state instead of `child()`;
    - the table key `(player, str(state))` is written out where it is the game's key.
    """

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
        self.eps = float(settings.epsilon)
        self.has_chance = info.has_chance
        self.probing = probing
        self.carry = settings.chance_epsilon == "carry"
        self.max_player = max_player
        self.vmin = info.min_utility
        self.vmax = info.max_utility
        self.ordering = settings.move_ordering
        self.tt = (
            TranspositionTable(settings.capacity(native=False)) if settings.transpositions else None
        )
        self.key = key_function(game, root)
        # `string_key`, written out on the hot path where it is the game's key.
        self.string_keys = key_rule(game).kind == "string"
        self.budget = budget
        num_actions = game.num_distinct_actions()
        self.history = [[0] * num_actions for _ in range(info.num_players)]
        self.killers: list[list[int]] = []
        self.evaluations = 0
        self.cutoffs = 0
        self.tt_hits = 0
        self.horizon = False  # set when the evaluator is called below the current node
        self.leaf_value = _leaf_function(evaluator, info, max_player)
        self.child_leaves: ChildLeaves | None = (
            None if self.has_chance else getattr(evaluator, "child_leaves", None)
        )
        self.undo = game.get_type().short_name in UNDO_EXACT_GAMES

    # -- helpers -------------------------------------------------------------------------------

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
        max_player = self.max_player
        if state.is_terminal():
            value = state.player_return(max_player)
            return value, value
        if depth <= 0:
            self.evaluations += 1
            self.horizon = True
            value = self.leaf_value(state)
            return value, value
        if self.has_chance and state.is_chance_node():
            return self._chance(state, depth, alpha, beta, eps, ply)

        vmin, vmax = self.vmin, self.vmax
        tt = self.tt
        key: object = None
        tt_move = None
        tt_lower, tt_upper = vmin, vmax
        player = state.current_player()
        if tt is not None:
            key = (player, str(state)) if self.string_keys else self.key(state)
            entry = tt.get(key)
            if entry is not None:
                entry_lower, entry_upper, _, tt_move, e_horizon, _ = entry
                if usable(entry, depth):
                    if (
                        entry_upper <= alpha + eps
                        or entry_lower >= beta - eps
                        or entry_upper - entry_lower <= eps
                    ):
                        self.tt_hits += 1
                        if e_horizon:
                            self.horizon = True
                        return entry_lower, entry_upper
                    # Narrowing the window by the stored interval is safe because the result is
                    # intersected with that interval below.
                    tt_lower, tt_upper = entry_lower, entry_upper
                    alpha = max(alpha, tt_lower)
                    beta = min(beta, tt_upper)

        outer_horizon = self.horizon
        self.horizon = False
        moves = self._ordered(state, player, ply, tt_move)
        last = len(moves) - 1
        child_depth = depth - 1
        at_leaves = child_depth <= 0
        leaf_value = self.leaf_value
        leaves = None
        if at_leaves and self.child_leaves is not None:
            leaves = self.child_leaves(state, max_player)
        undo = self.undo
        node = self.node
        best_move = moves[0]
        cut = -1  # index of the move that closed the window
        child_lower = child_upper = 0.0
        is_max = player == max_player
        if is_max:
            lower, upper, best = vmin, vmin, -math.inf
        else:
            lower, upper, best = vmax, vmax, math.inf
        for i, move in enumerate(moves):
            if at_leaves:  # the child's own `node` call, written out: it would only evaluate
                budget.countdown -= 1
                if budget.countdown <= 0:
                    budget.checkpoint()
                if leaves is not None:
                    child_lower, terminal = leaves(move)
                    if not terminal:
                        self.evaluations += 1
                        self.horizon = True
                else:
                    if undo:
                        state.apply_action(move)
                        child = state
                    else:
                        child = state.child(move)
                    if child.is_terminal():
                        child_lower = child.player_return(max_player)
                    else:
                        self.evaluations += 1
                        self.horizon = True
                        child_lower = leaf_value(child)
                    if undo:
                        state.undo_action(player, move)
                child_upper = child_lower
            elif undo:
                state.apply_action(move)
                child_lower, child_upper = node(state, child_depth, alpha, beta, eps, ply + 1)
                state.undo_action(player, move)
            else:
                child_lower, child_upper = node(
                    state.child(move), child_depth, alpha, beta, eps, ply + 1
                )
            if is_max:
                if child_upper > upper:
                    upper = child_upper
                if child_lower > best:
                    best, best_move = child_lower, move
                    if child_lower > lower:
                        lower = child_lower
                        if lower > alpha:
                            alpha = lower
                if lower >= beta - eps:
                    if i < last:
                        upper = vmax  # unexplored children may still reach vmax
                    cut = i
                    break
            else:
                if child_lower < lower:
                    lower = child_lower
                if child_upper < best:
                    best, best_move = child_upper, move
                    if child_upper < upper:
                        upper = child_upper
                        if upper < beta:
                            beta = upper
                if upper <= alpha + eps:
                    if i < last:
                        lower = vmin
                    cut = i
                    break
        if cut >= 0:
            self._record_cut(player, moves[cut], depth, ply, cut < last)

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
            key = (_CHANCE, str(state)) if self.string_keys else self.key(state)
            entry = tt.get(key)
            if entry is not None and usable(entry, depth):
                lower, upper, _, _, e_horizon, e_outcomes = entry
                if upper <= alpha + eps or lower >= beta - eps or upper - lower <= eps:
                    self.tt_hits += 1
                    self.horizon = outer_horizon or e_horizon
                    return lower, upper
                if e_outcomes is not None:  # resume from the stored outcome bounds
                    lowers = [bounds[0] for bounds in e_outcomes]
                    uppers = [bounds[1] for bounds in e_outcomes]
                    self.horizon = e_horizon
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
                tt_move = None if entry is None else entry[3]
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
        """Searches every root action with a window open above the best lower bound so far (the
        root itself counted by `deepening.deepen`)."""
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
            move = None if entry is None else entry[3]
            if move is None or key in seen:
                break
            seen.add(key)
            if move not in current.legal_actions():
                break
            pv.append(move)
            current = current.child(move)
        return tuple(pv)


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
        probing=False,
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
        probing=False,
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
        probing=True,
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

    final_depth = limits.depth if limits.depth is not None else game.max_game_length()
    first_depth = 1 if settings.iterative_deepening else final_depth
    # Only without chance, where move numbers and the maximum length count the same plies.
    remaining = game.max_game_length() - state.move_number()
    if not info.has_chance and 0 < remaining <= min(settings.endgame_plies, final_depth):
        first_depth = final_depth
    native = native_evaluator(
        settings.engine,
        algorithm,
        evaluator,
        game,
        lambda: _leaf_function(evaluator, info, max_player),
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

    best: _Iteration | None
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
    engine = _AlphaBeta(
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
    game = state.get_game()
    outcome = engine_module("alpha-beta").alpha_beta(
        state,
        native,
        epsilon=float(settings.epsilon),
        transpositions=settings.transpositions,
        move_ordering=settings.move_ordering,
        tt_capacity=settings.capacity(native=True),
        carry=settings.chance_epsilon == "carry",
        probing=probing,
        undo=game.get_type().short_name in UNDO_EXACT_GAMES,
        key_kind=key_rule(game).kind,
        first_depth=depths[0],
        final_depth=depths[1],
        max_nodes=limits.nodes,
        **time_arguments(limits, budget, clock),
        **(
            {}
            if labels is None
            else {
                "label_chance_view": labels.features.chance_view,
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
    best = _Iteration(
        outcome.depth, outcome.lower, outcome.upper, children, list(outcome.order), outcome.horizon
    )
    return _Run(best=best, pv=tuple(outcome.pv), fallback=best.order[0], stats=stats, labels=walked)
