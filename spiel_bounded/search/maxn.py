"""Max^n (Luckhardt & Irani 1986) for n-player games, with Korf's shallow pruning and
Sturtevant's last-branch and speculative pruning.

Every node is valued by a vector with one value per player: a decision node takes the vector
of the child that maximises its mover's own value (the first searched among equals), a chance
node the probability-weighted mean, a terminal its returns, a node at the depth horizon the
evaluator's values. Pruning needs a zero- or constant-sum game (a lower bound on every value and
an upper bound on their sum) and never changes the root vector or move. The rules of each
pruning and why they are sound are in the manual (docs/algorithms.md).
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final, NamedTuple

import numpy as np
import pyspiel

from spiel_bounded.evaluators.base import Evaluator, check_values
from spiel_bounded.games import (
    UNDO_EXACT_GAMES,
    GameInfo,
    Requirements,
    game_info,
    require_decision_state,
)
from spiel_bounded.limits import Budget, Limits
from spiel_bounded.native import ENGINES, engine_module, time_arguments
from spiel_bounded.params import OneOf, check_fields, setting
from spiel_bounded.result import Interval, SearchResult, SearchStats
from spiel_bounded.search.deepening import Iteration, deepen, result_of
from spiel_bounded.search.native_evaluators import native_values_evaluator

ALGORITHM: Final = "maxn"
PRUNINGS: Final = ("none", "shallow", "last_branch", "speculative")
AUTO_PRUNING: Final = "auto"
"""The pruning setting that picks "speculative" on constant-sum games and "none" elsewhere."""
ORDERINGS: Final = ("none", "evaluator")
TRUE_MINIMUM: Final = {"maedn": -1.0}
"""Per-game lower bounds on a player's return tighter than the declared minimum utility (maedn
declares -3; its losers get -1), checked against terminal returns by the tests."""
_CHANCE: Final = int(pyspiel.PlayerId.CHANCE)
N_PLAYER_GAMES: Final = Requirements(players=(2, None), chance=True, zero_sum=False)
"""Turn-based perfect-information games of any number of players, with or without chance."""
_SUM_TOLERANCE: Final = 1e-9


@dataclass(frozen=True, kw_only=True)
class MaxnSettings:
    """Settings of max^n."""

    pruning: str = setting(
        AUTO_PRUNING,
        "pruning: none, shallow, last_branch, or speculative (each adds to the one before; "
        "constant-sum games), or auto (speculative on constant-sum games, else none)",
        OneOf((AUTO_PRUNING, *PRUNINGS)),
    )
    # Pruning needs a constant-sum game (docs/algorithms.md); "auto" picks "speculative" on
    # a zero- or constant-sum game, "none" on a general-sum one. `MaxnStats.pruning` reports the
    # mode applied.
    ordering: str = setting(
        "evaluator",
        "move ordering: evaluator (the mover's best child first) or none (legal order)",
        OneOf(ORDERINGS),
    )
    # Ties go to the first child searched either way.
    engine: str = setting(
        "auto",
        "auto (native when built and the evaluator has a C++ twin), native (a Python evaluator "
        "is called back) or python",
        OneOf(ENGINES),
    )
    # The native engine (`spiel_bounded.native`) follows this module step for step: at a fixed
    # depth both visit the same nodes and return the same move, vector and root children.

    def __post_init__(self) -> None:
        check_fields(self)


@dataclass(frozen=True, kw_only=True)
class MaxnStats(SearchStats):
    """`SearchStats` of a max^n search, with the pruning it applied.

    Attributes:
        pruning: The pruning mode searched with ("auto" resolved for the game).
    """

    pruning: str = "none"


def applied_pruning(pruning: str, game: pyspiel.Game) -> str:
    """The pruning mode searched with: `pruning`, or for "auto" "speculative" on a zero- or
    constant-sum game and "none" on a general-sum one (where no max^n cut is sound)."""
    if pruning != AUTO_PRUNING:
        return pruning
    constant_sum = game.get_type().utility in (
        pyspiel.GameType.Utility.ZERO_SUM,
        pyspiel.GameType.Utility.CONSTANT_SUM,
    )
    return "speculative" if constant_sum else "none"


@dataclass(frozen=True)
class PruningBounds:
    """What pruning needs: every player's value >= `lower`, their sum <= `max_sum`."""

    lower: float
    max_sum: float


def pruning_bounds(info: GameInfo, game: pyspiel.Game) -> PruningBounds:
    """The bounds of a constant-sum game, or `ValueError` when it has none."""
    utility = game.get_type().utility
    lower = TRUE_MINIMUM.get(game.get_type().short_name, info.min_utility)
    if utility == pyspiel.GameType.Utility.ZERO_SUM:
        return PruningBounds(lower, 0.0)
    if utility == pyspiel.GameType.Utility.CONSTANT_SUM:
        return PruningBounds(lower, float(game.utility_sum()))
    raise ValueError(
        f"{ALGORITHM} pruning needs a bound on the sum of the players' values, and "
        f"{info.description} is not constant-sum; use pruning='none' (or 'auto', which "
        "picks it there)"
    )


class _Context(NamedTuple):
    """What a decision node knows of its parent P and grandparent G for pruning.

    Attributes:
        parent: P's player.
        parent_best: P's best value for itself so far (-inf before its first child).
        last: This node is P's last child.
        grand: G's player (None: no grandparent decision node, a chance node between, or a
            re-search, which prunes by the parent only).
        grand_best: G's best value for itself so far.
        parent_best_for_grand: G's player's value in P's best vector so far (-inf if none).
    """

    parent: int
    parent_best: float
    last: bool
    grand: int | None
    grand_best: float
    parent_best_for_grand: float


# What a node's returned vector is, read by its parent from `_MaxnSearch.status` after the call.
_EXACT: Final = 0  # the node's max^n vector
_CUT: Final = 1  # not exact, and the parent does not choose this node (nor would it, exact)
_GRAND: Final = 2  # last-branch pruned: the parent's vector is not exact, and the grandparent
# does not choose the parent
_PENDING: Final = 3  # speculatively pruned: the parent sets it aside and may re-search it


def checked_vector(
    evaluator: Evaluator, info: GameInfo, bounds: PruningBounds | None, state: pyspiel.State
) -> np.ndarray:
    """`evaluator`'s values of `state`, checked against the game's range and, when pruning,
    against `bounds` (`ValueError` otherwise)."""
    values = np.asarray(check_values(evaluator.evaluate(state), evaluator, info))
    if bounds is not None:
        broken = None
        if values.sum() > bounds.max_sum + _SUM_TOLERANCE:
            broken = f"whose sum exceeds the game's constant sum {bounds.max_sum}"
        elif values.min() < bounds.lower - _SUM_TOLERANCE:
            broken = f"below the lower bound {bounds.lower} of every player's value"
        if broken is not None:
            name = getattr(evaluator, "name", type(evaluator).__name__)
            raise ValueError(
                f"evaluator {name!r} returned {values.tolist()} on "
                f"{info.description}, {broken}; max^n pruning needs evaluator values "
                "that keep both bounds"
            )
    return values.astype(np.float64)


class _MaxnSearch:
    """One max^n search call's state (pruning mode, move ordering, the directed-offensive
    attacker and target) and its counters. Values are vectors, one entry per player."""

    def __init__(
        self,
        info: GameInfo,
        evaluator: Evaluator,
        bounds: PruningBounds | None,
        budget: Budget,
        pruning: str = "none",
        ordering: bool = False,
        undo: bool = False,
        attacker: int | None = None,
        target: int | None = None,
    ) -> None:
        self.grand_pruning = pruning in ("last_branch", "speculative")
        self.speculative = pruning == "speculative"
        self.ordering = ordering
        self.undo = undo  # apply_action / undo_action instead of child(): exact for this game
        self.attacker = attacker  # directed offensive: this player minimises `target`'s value
        self.target = target
        self.info = info
        self.evaluator = evaluator
        self.bounds = bounds
        self.budget = budget
        self.players = info.num_players
        self.evaluations = 0
        self.cutoffs = 0
        self.researches = 0  # speculatively pruned nodes searched again
        self.research_nodes = 0  # nodes visited by those re-searches
        self.researching = 0  # depth of nested re-searches in progress
        self.horizon = False
        self.status = _EXACT

    def _values(self, state: pyspiel.State) -> np.ndarray:
        self.evaluations += 1
        return checked_vector(self.evaluator, self.info, self.bounds, state)

    def value(self, state: pyspiel.State, depth: int, context: _Context | None) -> np.ndarray:
        """The node's vector; `context` carries the bounds of its parent and grandparent.

        Sets `self.status` to what the vector is (`_EXACT`, `_CUT` or `_PENDING`).
        """
        self.budget.tick()
        if self.researching:
            self.research_nodes += 1
        self.status = _EXACT
        if state.is_terminal():
            return np.asarray(state.returns(), dtype=np.float64)
        if depth == 0:
            self.horizon = True
            return self._values(state)
        if state.is_chance_node():
            total = np.zeros(self.players)
            for outcome, probability in state.chance_outcomes():
                total += probability * self.child_value(state, _CHANCE, outcome, depth, None)
            self.status = _EXACT  # chance children get no context: they are exact
            return total
        player = state.current_player()
        if player == self.attacker:
            return self._attack(state, depth)
        return self._decide(state, player, self.ordered_moves(state, player, depth), depth, context)

    def child_value(
        self, state: pyspiel.State, player: int, action: int, depth: int, context: _Context | None
    ) -> np.ndarray:
        """The vector of the child `action` leads to (`player` moved: the chance player's id at
        a chance node), by `child()` or by applying and undoing the action on `state`."""
        if not self.undo:
            return self.value(state.child(action), depth, context)
        state.apply_action(action)
        vector = self.value(state, depth, context)
        state.undo_action(player, action)
        return vector

    def _decide(
        self,
        state: pyspiel.State,
        player: int,
        actions: list[int],
        depth: int,
        context: _Context | None,
        first_pass: list[tuple[np.ndarray, int]] | None = None,
    ) -> np.ndarray:
        """A decision node: its children in `actions` order, the first strictly best kept.

        `first_pass` (a re-search): the children's vectors and statuses from the first pass;
        only the `_PENDING` ones are searched again, pruned by this node's bound only.
        """
        shallow, grand = self._limits(player, context)
        pruning = self.bounds is not None
        last = len(actions) - 1
        best: np.ndarray | None = None
        exact = True  # no child was last-branch pruned
        record: list[tuple[np.ndarray, int]] | None = [] if self.speculative else None
        pending = False
        for index, action in enumerate(actions):
            if first_pass is not None and first_pass[index][1] != _PENDING:
                child, status = first_pass[index]
            else:
                child_context = None
                if pruning:
                    child_context = _Context(
                        parent=player,
                        parent_best=-math.inf if best is None else float(best[player]),
                        last=index == last,
                        grand=None if context is None or first_pass is not None else context.parent,
                        grand_best=-math.inf if context is None else context.parent_best,
                        parent_best_for_grand=(
                            -math.inf
                            if best is None or context is None
                            else float(best[context.parent])
                        ),
                    )
                child = self.child_value(state, player, action, depth - 1, child_context)
                status = self.status
            if record is not None:
                record.append((child, status))
            if status == _PENDING:
                pending = True
                continue
            if status == _GRAND:
                exact = False
            if best is None or child[player] > best[player]:
                best = child
                if best[player] >= shallow:
                    self.cutoffs += 1
                    self.status = _CUT
                    return best
                if best[player] >= grand:
                    self.cutoffs += 1
                    self.status = _PENDING if self.speculative else _GRAND
                    return best
        assert best is not None, "a decision node without legal actions"
        self.status = _EXACT if exact else _CUT
        if pending:
            assert context is not None and record is not None
            if best[context.parent] <= context.parent_best:
                # The parent keeps an earlier child whatever the pruned children hold.
                self.status = _CUT
                return best
            self.researches += 1
            self.researching += 1
            best = self._decide(state, player, actions, depth, context, first_pass=record)
            self.researching -= 1
        return best

    def _attack(self, state: pyspiel.State, depth: int) -> np.ndarray:
        """The attacker's node: the child vector with the lowest value for the target (the
        first in legal order among ties); nothing is pruned (directed offensive allows no
        shallow pruning)."""
        target = self.target
        player = state.current_player()
        best: np.ndarray | None = None
        for action in state.legal_actions():
            child = self.child_value(state, player, action, depth - 1, None)
            if best is None or child[target] < best[target]:
                best = child
        assert best is not None, "a decision node without legal actions"
        self.status = _EXACT
        return best

    def ordered_moves(self, state: pyspiel.State, player: int, depth: int) -> list[int]:
        """The legal actions, best first for the mover by the evaluator when ordering and the
        children are interior (depth >= 2); stable, so equal values keep legal order."""
        actions = state.legal_actions()
        if not self.ordering or depth < 2 or len(actions) < 2:
            return actions
        keys = []
        for action in actions:
            if self.undo:
                state.apply_action(action)
                keys.append(self._order_value(state, player))
                state.undo_action(player, action)
            else:
                keys.append(self._order_value(state.child(action), player))
        order = sorted(range(len(actions)), key=lambda index: -keys[index])
        return [actions[index] for index in order]

    def _order_value(self, state: pyspiel.State, player: int) -> float:
        if state.is_terminal():
            return float(state.returns()[player])
        if state.is_chance_node():
            return 0.0 if self.bounds is None else self.bounds.max_sum / self.players
        return float(self._values(state)[player])

    def _limits(self, player: int, context: _Context | None) -> tuple[float, float]:
        """(shallow, grand): a best value for `player` at or above `shallow` means the parent
        will not choose this node; at or above `grand`, neither the parent nor the
        grandparent will, provided (last-branch) this is the parent's last child and the
        parent's best so far does not tempt the grandparent, or (speculative) checked later
        by the parent, which re-searches this node when it fails."""
        bounds = self.bounds
        if bounds is None or context is None or context.parent == player:
            return math.inf, math.inf
        n, lower, max_sum = self.players, bounds.lower, bounds.max_sum
        shallow = max_sum - (n - 2) * lower - context.parent_best  # Korf
        grand = context.grand
        if (
            not self.grand_pruning
            or grand is None
            or grand in (player, context.parent)
            or context.parent_best_for_grand > context.grand_best
            or not (self.speculative or context.last)
        ):
            return shallow, math.inf
        return shallow, max_sum - (n - 3) * lower - context.parent_best - context.grand_best


def maxn(
    state: pyspiel.State,
    *,
    evaluator: Evaluator,
    limits: Limits | None = None,
    settings: MaxnSettings | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> SearchResult:
    """Max^n from `state` with iterative deepening under `limits`.

    Args:
        state: A non-terminal decision state of a perfect-information game.
        evaluator: Values non-terminal states at the depth horizon, one value per player.
        limits: Depth / nodes / seconds; the last completed depth is returned when a node or
            time limit stops the search.
        settings: The pruning mode, move ordering and engine.
        clock: Seconds, monotonic, for the time limit (injected by tests).

    Returns:
        A `SearchResult` for the player to move: `values` is the root's max^n vector, `lower` =
        `upper` the mover's value in it, `children` the mover's value after each root move (an
        interval up to the best value found before it for a pruned move). `bounds_on` is the
        depth-limited max^n value under `evaluator` when a leaf was evaluated; otherwise the
        game value of a two-player zero-sum game, or the max^n value of the whole game.

    Raises:
        ValueError: An unsupported game, a terminal or chance state, pruning on a game that is
            not constant-sum, or evaluator values out of range or breaking the constant sum.
    """
    settings = settings or MaxnSettings()
    return _search(state, evaluator, limits or Limits(), settings, ALGORITHM, None, clock)


def leader(values: Sequence[float], exclude: int) -> int:
    """The player with the highest value other than `exclude` (the lowest index among ties)."""
    others = [player for player in range(len(values)) if player != exclude]
    return max(others, key=lambda player: (values[player], -player))


def directed_offensive(
    state: pyspiel.State,
    *,
    evaluator: Evaluator,
    limits: Limits | None = None,
    target: int | None = None,
    engine: str = "auto",
    clock: Callable[[], float] = time.perf_counter,
) -> SearchResult:
    """Directed offensive (Zuckerman, Felner & Kraus 2009) from `state`: the player to move
    minimises `target`'s value, the others play max^n (no pruning).

    Args:
        state: A non-terminal decision state of a perfect-information game with 3 or more
            players.
        evaluator: As for `maxn`.
        limits: As for `maxn`.
        target: The player attacked; None: the leader by the evaluator's values of `state`.
        engine: As `MaxnSettings.engine`.
        clock: As for `maxn`.

    Returns:
        As `maxn`; `children` gives the mover's own value after each root move.

    Raises:
        ValueError: As for `maxn`, or a target that is not another player.
    """
    player = state.current_player()
    if target is None:
        target = leader(_checked(evaluator, state), exclude=player)
    num_players = state.get_game().num_players()
    if isinstance(target, bool) or not isinstance(target, int) or not 0 <= target < num_players:
        raise ValueError(f"target must be a player 0..{num_players - 1}, got {target!r}")
    if target == player:
        raise ValueError(f"target must be another player than the mover {player}")
    settings = MaxnSettings(pruning="none", ordering="none", engine=engine)
    return _search(
        state, evaluator, limits or Limits(), settings, "directed_offensive", target, clock
    )


def _checked(evaluator: Evaluator, state: pyspiel.State) -> Sequence[float]:
    info = game_info(state.get_game())
    return check_values(evaluator.evaluate(state), evaluator, info)


def _search(
    state: pyspiel.State,
    evaluator: Evaluator,
    limits: Limits,
    settings: MaxnSettings,
    algorithm: str,
    target: int | None,
    clock: Callable[[], float] = time.perf_counter,
) -> SearchResult:
    game = state.get_game()
    info = require_decision_state(state, algorithm, N_PLAYER_GAMES)
    pruning = applied_pruning(settings.pruning, game)
    bounds = pruning_bounds(info, game) if pruning != "none" else None
    budget = Budget(limits, clock=clock)
    player = state.current_player()
    undo = game.get_type().short_name in UNDO_EXACT_GAMES
    final_depth = limits.depth if limits.depth is not None else game.max_game_length()
    native = native_values_evaluator(
        settings.engine,
        algorithm,
        evaluator,
        game,
        lambda: lambda leaf: checked_vector(evaluator, info, bounds, leaf).tolist(),
    )
    if native is not None:
        return _native_search(
            state,
            native,
            evaluator,
            limits,
            budget,
            _NativeSetup(info, pruning, bounds, settings.ordering == "evaluator", undo, target),
            final_depth,
            clock,
        )
    engine = _MaxnSearch(
        info,
        evaluator,
        bounds,
        budget,
        pruning=pruning,
        ordering=settings.ordering == "evaluator",
        undo=undo,
        attacker=None if target is None else player,
        target=target,
    )
    root = state.clone()  # apply / undo works on it; a stopped search leaves it mid-line
    lower = info.min_utility if bounds is None else bounds.lower

    def search_to(depth: int, previous: Iteration | None) -> Iteration:
        engine.horizon = False
        children: dict[int, Interval] = {}
        chosen: tuple[int, np.ndarray] | None = None
        moves = engine.ordered_moves(root, player, depth)
        last = len(moves) - 1
        for index, move in enumerate(moves):
            context = None
            if bounds is not None:
                best = -math.inf if chosen is None else float(chosen[1][player])
                context = _Context(player, best, index == last, None, -math.inf, -math.inf)
            vector = engine.child_value(root, player, move, depth - 1, context)
            value = float(vector[player])
            if engine.status == _EXACT:
                children[move] = Interval(value, value)
            else:  # a pruned child: the mover gets no more than its best so far there
                assert chosen is not None, "the first root move is never pruned"
                children[move] = Interval(lower, float(chosen[1][player]))
                continue
            if chosen is None or (
                vector[target] < chosen[1][target]
                if target is not None
                else vector[player] > chosen[1][player]
            ):
                chosen = (move, vector)
        assert chosen is not None
        action, values = chosen
        return Iteration(
            action,
            float(values[player]),
            {move: children[move] for move in root.legal_actions()},
            depth,
            engine.horizon,
            tuple(float(value) for value in values),
        )

    best, stopped_by = deepen(search_to, range(1, final_depth + 1), budget)
    return result_of(
        best,
        stopped_by,
        moves=state.legal_actions(),
        info=info,
        budget=budget,
        evaluations=engine.evaluations,
        cutoffs=engine.cutoffs,
        model="max^n" if target is None else f"directed-offensive (target {target})",
        evaluator=evaluator,
        exact=target is None,  # offensive's value is its model's, never the game's
        researches=engine.researches,
        research_nodes=engine.research_nodes,
        stats_type=functools.partial(MaxnStats, pruning=pruning),
    )


class _NativeSetup(NamedTuple):
    """What `_search` decided that the native engine needs."""

    info: GameInfo
    pruning: str
    bounds: PruningBounds | None
    ordering: bool
    undo: bool
    target: int | None


def _native_search(
    state: pyspiel.State,
    native: Any,
    evaluator: Evaluator,
    limits: Limits,
    budget: Budget,
    setup: _NativeSetup,
    final_depth: int,
    clock: Callable[[], float],
) -> SearchResult:
    """The same search on the native engine (`spiel_bounded.native`), with the same rules."""
    info, bounds, target = setup.info, setup.bounds, setup.target
    outcome = engine_module(ALGORITHM).maxn(
        state,
        native,
        pruning=setup.pruning,
        lower=0.0 if bounds is None else float(bounds.lower),
        max_sum=0.0 if bounds is None else float(bounds.max_sum),
        min_utility=float(info.min_utility),
        ordering=setup.ordering,
        undo=setup.undo,
        target=target,
        final_depth=final_depth,
        max_nodes=limits.nodes,
        **time_arguments(limits, budget, clock),
    )
    best = None
    if outcome.completed:
        player = state.current_player()
        values = tuple(outcome.values)
        best = Iteration(
            outcome.action,
            values[player],
            {child.action: Interval(child.lower, child.upper) for child in outcome.children},
            outcome.depth,
            outcome.horizon,
            values,
        )
    return result_of(
        best,
        outcome.stopped_by,
        moves=state.legal_actions(),
        info=info,
        budget=budget,
        evaluations=outcome.evaluations,
        cutoffs=outcome.cutoffs,
        model="max^n" if target is None else f"directed-offensive (target {target})",
        evaluator=evaluator,
        exact=target is None,
        researches=outcome.researches,
        research_nodes=outcome.research_nodes,
        stats_type=functools.partial(MaxnStats, pruning=setup.pruning),
        nodes=outcome.nodes,
        engine="native",
    )
