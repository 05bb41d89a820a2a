"""The Python engine of bounded alpha-beta: the readable-but-fast recursion that the native
engine follows step for step (`AlphaBetaEngine.node`), one completed root iteration at a time
(`AlphaBetaEngine.root`). The rules it keeps, windows and chance-node tolerances included, are
stated and proved in the manual (docs/algorithms.md); `tests/alphabeta_reference.py` is the
plainer oracle it is tested against."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import pyspiel

from spiel_bounded.evaluators.base import ChildLeaves, Evaluator, player_value
from spiel_bounded.games import (
    UNDO_EXACT_GAMES,
    GameInfo,
)
from spiel_bounded.limits import Budget
from spiel_bounded.result import (
    Interval,
)
from spiel_bounded.search.alphabeta.settings import AlphaBetaSettings
from spiel_bounded.search.keys import key_function, key_rule
from spiel_bounded.search.tt import TranspositionTable, usable

_HISTORY_LIMIT = 1 << 30
_CHANCE = int(pyspiel.PlayerId.CHANCE)


def _weighted(outcomes: list[tuple[int, float]], values: list[float]) -> float:
    """sum_j p_j * values[j], accumulated in outcome order like OpenSpiel's expectiminimax."""
    total = 0.0
    for (_, probability), value in zip(outcomes, values, strict=True):
        total += probability * value
    return total


@dataclass(slots=True)
class RootIteration:
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


def leaf_function(
    evaluator: Evaluator, info: GameInfo, player: int
) -> Callable[[pyspiel.State], float]:
    """The evaluator's `leaf_value(player)` where it has one, else its checked value."""
    fast_value = getattr(evaluator, "leaf_value", None)
    leaf_value = fast_value(player) if fast_value is not None else None
    return leaf_value or _checked_leaf_value(evaluator, info, player)


class AlphaBetaEngine:
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
        self.leaf_value = leaf_function(evaluator, info, max_player)
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
        """Bounded Star-1 (Star-2 with probing) at a chance node; the windows are stated and
        proved in the manual (docs/algorithms.md)."""
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

    def root(
        self, state: pyspiel.State, depth: int, previous: RootIteration | None
    ) -> RootIteration:
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
        return RootIteration(depth, lower, upper, children, order, self.horizon)

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
