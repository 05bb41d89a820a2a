"""Max^n (Luckhardt & Irani 1986) for n-player games, with Korf's shallow pruning.

Every node is valued by a vector with one value per player: a decision node takes the vector
of the child that maximises its mover's own value, a chance node the probability-weighted mean
of its children's vectors, a terminal its returns, a node at the depth horizon the evaluator's
values. Depth counts decision plies (chance nodes do not count, and one at the horizon is
evaluated), as in `oracles.solve_depth_limited`. The mover is read at every node: the same
player may move several times in a row.

Ties: among children whose vectors give the mover the same value, the first in
`legal_actions()` order is kept (a later child replaces it only when strictly better). Ties
change max^n values, so this rule is the same in every pruning mode and in the oracle.

Shallow pruning (Korf 1991): it needs a lower bound `lb` on every player's value and an upper
bound `max_sum` on the sum of all of them (the game's constant sum). At a node of player i
whose parent, player j != i, already has `best_j` from an earlier child: once this node has a
child giving i the value `b`, j can get at most `max_sum - b - (n - 2) * lb` here, and when that
is not more than `best_j` the parent will not choose this node; its other children are skipped.
No bound is passed through a chance node or between two nodes of the same player. The root
vector and move are those of the unpruned search; pruned nodes are never chosen.

Last-branch pruning (Sturtevant 2003) adds the grandparent: at a node N of player i, with
parent P (player j) and grandparent G (player k), all three different, G having `best_k` and P
having `best_j` from earlier children, once N has a child giving i the value `b` with
`best_k + best_j + b + (n - 3) * lb >= max_sum`, neither P choosing N nor G choosing P can
follow, provided N is P's last child (no later sibling's choice can depend on N's partial value)
and P's best vector so far gives k no more than `best_k` (so G does not choose P through an
earlier child either). N's other children are skipped. Speculative pruning, which prunes before
the last branch and re-searches when needed, is the next step (issue 11).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, NamedTuple

import numpy as np
import pyspiel

from spiel_bounded.evaluators.base import Evaluator, check_values
from spiel_bounded.games import GameInfo, Requirements, game_info, require_decision_state
from spiel_bounded.limits import Budget, Limits
from spiel_bounded.params import OneOf, check_fields, setting
from spiel_bounded.result import Interval, SearchResult
from spiel_bounded.search.deepening import Iteration, deepen, result_of

ALGORITHM: Final = "maxn"
PRUNINGS: Final = ("none", "shallow", "last_branch")
N_PLAYER_GAMES: Final = Requirements(players=(2, None), chance=True, zero_sum=False)
"""Turn-based perfect-information games of any number of players, with or without chance."""
_SUM_TOLERANCE: Final = 1e-9


@dataclass(frozen=True, kw_only=True)
class MaxnSettings:
    """Settings of max^n.

    Attributes:
        pruning: "none", "shallow" or "last_branch" (both need a constant-sum game: see the
            module docstring).
    """

    pruning: str = setting(
        "shallow",
        "pruning: none, shallow, or last_branch (shallow plus last-branch; constant-sum games)",
        OneOf(PRUNINGS),
    )

    def __post_init__(self) -> None:
        check_fields(self)


@dataclass(frozen=True)
class PruningBounds:
    """What shallow pruning needs: every player's value >= `lower`, their sum <= `max_sum`."""

    lower: float
    max_sum: float


def pruning_bounds(info: GameInfo, game: pyspiel.Game) -> PruningBounds:
    """The bounds of a constant-sum game, or `ValueError` when it has none."""
    utility = game.get_type().utility
    if utility == pyspiel.GameType.Utility.ZERO_SUM:
        return PruningBounds(info.min_utility, 0.0)
    if utility == pyspiel.GameType.Utility.CONSTANT_SUM:
        return PruningBounds(info.min_utility, float(game.utility_sum()))
    raise ValueError(
        f"{ALGORITHM} pruning needs a bound on the sum of the players' values, and "
        f"{info.description} is not constant-sum; use pruning='none'"
    )


class _Context(NamedTuple):
    """What a decision node knows of its parent P and grandparent G for pruning.

    Attributes:
        parent: P's player.
        parent_best: P's best value for itself so far (-inf before its first child).
        last: This node is P's last child.
        grand: G's player (None: no grandparent decision node, or a chance node between).
        grand_best: G's best value for itself so far.
        parent_best_for_grand: G's player's value in P's best vector so far (-inf if none).
    """

    parent: int
    parent_best: float
    last: bool
    grand: int | None
    grand_best: float
    parent_best_for_grand: float


class _Engine:
    def __init__(
        self,
        info: GameInfo,
        evaluator: Evaluator,
        bounds: PruningBounds | None,
        budget: Budget,
        last_branch: bool = False,
        attacker: int | None = None,
        target: int | None = None,
    ) -> None:
        self.last_branch = last_branch
        self.attacker = attacker  # directed offensive: this player minimises `target`'s value
        self.target = target
        self.info = info
        self.evaluator = evaluator
        self.bounds = bounds
        self.budget = budget
        self.players = info.num_players
        self.evaluations = 0
        self.cutoffs = 0
        self.horizon = False

    def _evaluate(self, state: pyspiel.State) -> np.ndarray:
        self.evaluations += 1
        self.horizon = True
        values = np.asarray(check_values(self.evaluator.evaluate(state), self.evaluator, self.info))
        bounds = self.bounds
        if bounds is not None and values.sum() > bounds.max_sum + _SUM_TOLERANCE:
            name = getattr(self.evaluator, "name", type(self.evaluator).__name__)
            raise ValueError(
                f"evaluator {name!r} returned {values.tolist()} on {self.info.description}, "
                f"whose sum exceeds the game's constant sum {bounds.max_sum}; max^n pruning "
                "needs evaluator values that keep it"
            )
        return values.astype(np.float64)

    def value(self, state: pyspiel.State, depth: int, context: _Context | None) -> np.ndarray:
        """The node's vector; `context` carries the bounds of its parent and grandparent."""
        self.budget.tick()
        if state.is_terminal():
            return np.asarray(state.returns(), dtype=np.float64)
        if depth == 0:
            return self._evaluate(state)
        if state.is_chance_node():
            total = np.zeros(self.players)
            for outcome, probability in state.chance_outcomes():
                total = total + probability * self.value(state.child(outcome), depth, None)
            return total
        player = state.current_player()
        if player == self.attacker:
            return self._attack(state, depth)
        limit = self._limit(player, context)  # beyond it, no ancestor will choose this node
        actions = state.legal_actions()
        last = len(actions) - 1
        best: np.ndarray | None = None
        pruning = self.bounds is not None  # without pruning no node needs a context
        for index, action in enumerate(actions):
            child_context = None
            if pruning:
                child_context = _Context(
                    parent=player,
                    parent_best=-math.inf if best is None else float(best[player]),
                    last=index == last,
                    grand=None if context is None else context.parent,
                    grand_best=-math.inf if context is None else context.parent_best,
                    parent_best_for_grand=(
                        -math.inf
                        if best is None or context is None
                        else float(best[context.parent])
                    ),
                )
            child = self.value(state.child(action), depth - 1, child_context)
            if best is None or child[player] > best[player]:
                best = child
                if best[player] >= limit:
                    self.cutoffs += 1
                    break
        assert best is not None, "a decision node without legal actions"
        return best

    def _attack(self, state: pyspiel.State, depth: int) -> np.ndarray:
        """The attacker's node: the child vector with the lowest value for the target (the
        first in legal order among ties); nothing is pruned (directed offensive allows no
        shallow pruning)."""
        target = self.target
        best: np.ndarray | None = None
        for action in state.legal_actions():
            child = self.value(state.child(action), depth - 1, None)
            if best is None or child[target] < best[target]:
                best = child
        assert best is not None, "a decision node without legal actions"
        return best

    def _limit(self, player: int, context: _Context | None) -> float:
        bounds = self.bounds
        if bounds is None or context is None or context.parent == player:
            return math.inf
        n, lower, max_sum = self.players, bounds.lower, bounds.max_sum
        limit = max_sum - (n - 2) * lower - context.parent_best  # shallow (Korf)
        grand = context.grand
        if (
            self.last_branch
            and grand is not None
            and grand not in (player, context.parent)
            and context.last
            and context.parent_best_for_grand <= context.grand_best
        ):
            limit = min(limit, max_sum - (n - 3) * lower - context.parent_best - context.grand_best)
        return limit


def maxn(
    state: pyspiel.State,
    *,
    evaluator: Evaluator,
    limits: Limits | None = None,
    settings: MaxnSettings | None = None,
) -> SearchResult:
    """Max^n from `state` with iterative deepening under `limits`.

    Args:
        state: A non-terminal decision state of a perfect-information game.
        evaluator: Values non-terminal states at the depth horizon, one value per player.
        limits: Depth / nodes / seconds; the last completed depth is returned when a node or
            time limit stops the search.
        settings: The pruning mode.

    Returns:
        A `SearchResult` for the player to move: `values` is the root's max^n vector, `lower` =
        `upper` the mover's value in it, `children` the mover's value after each root move.
        `proven` is True only when no leaf was evaluated (the values are the game's).

    Raises:
        ValueError: An unsupported game, a terminal or chance state, pruning on a game that is
            not constant-sum, or evaluator values out of range or breaking the constant sum.
    """
    settings = settings or MaxnSettings()
    return _search(state, evaluator, limits or Limits(), settings.pruning, ALGORITHM, target=None)


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
) -> SearchResult:
    """Directed offensive (Zuckerman, Felner & Kraus 2009) from `state`: the player to move
    minimises `target`'s value, the others play max^n (no pruning).

    Args:
        state: A non-terminal decision state of a perfect-information game with 3 or more
            players.
        evaluator: As for `maxn`.
        limits: As for `maxn`.
        target: The player attacked; None: the leader by the evaluator's values of `state`.

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
    return _search(
        state, evaluator, limits or Limits(), "none", "directed_offensive", target=target
    )


def _checked(evaluator: Evaluator, state: pyspiel.State) -> Sequence[float]:
    info = game_info(state.get_game())
    return check_values(evaluator.evaluate(state), evaluator, info)


def _search(
    state: pyspiel.State,
    evaluator: Evaluator,
    limits: Limits,
    pruning: str,
    algorithm: str,
    target: int | None,
) -> SearchResult:
    game = state.get_game()
    info = require_decision_state(state, algorithm, N_PLAYER_GAMES)
    bounds = pruning_bounds(info, game) if pruning != "none" else None
    budget = Budget(limits)
    player = state.current_player()
    engine = _Engine(
        info,
        evaluator,
        bounds,
        budget,
        last_branch=pruning == "last_branch",
        attacker=None if target is None else player,
        target=target,
    )
    moves = state.legal_actions()

    def search_to(depth: int) -> Iteration:
        engine.horizon = False
        children: dict[int, Interval] = {}
        chosen: tuple[int, np.ndarray] | None = None
        for move in moves:
            vector = engine.value(state.child(move), depth - 1, None)
            children[move] = Interval(float(vector[player]), float(vector[player]))
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
            children,
            depth,
            engine.horizon,
            tuple(float(value) for value in values),
        )

    final_depth = limits.depth if limits.depth is not None else game.max_game_length()
    best, stopped_by = deepen(search_to, final_depth, budget)
    return result_of(
        best,
        stopped_by,
        moves=moves,
        info=info,
        budget=budget,
        evaluations=engine.evaluations,
        cutoffs=engine.cutoffs,
        exact=True,
    )
