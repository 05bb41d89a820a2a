"""Exact brute-force solvers: obviously-correct oracles for the searches' tests (plain recursion).

`solve` gives every player's exact value (expectation at chance nodes, max^n at decision nodes,
which is minimax / expectiminimax for two-player zero-sum games); `solve_depth_limited` the same
with an evaluator at a depth horizon; `action_values` and `optimal_actions` the solved value of
each move. They work on any perfect-information OpenSpiel game small enough to enumerate, and
memoise `bounded_random_tree` positions when its strings identify subtrees.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from spiel_bounded.synthetic import SHORT_NAME

__all__ = [
    "action_values",
    "optimal_actions",
    "solve",
    "solve_brs_plus",
    "solve_depth_limited",
    "solve_offensive",
    "solve_paranoid",
]


def _memo_for(state: Any) -> dict[Any, np.ndarray] | None:
    """A memo table when node strings identify subtrees shared by several paths, else None.

    That is the case for `bounded_random_tree` with `transpositions=1`, whose position string
    is the whole state (see `spiel_bounded.synthetic`).
    """
    game = state.get_game()
    if game.get_type().short_name == SHORT_NAME and game.get_parameters()["transpositions"]:
        return {}
    return None


def solve(state: Any, *, memoise: bool = True) -> np.ndarray:
    """Exact value of `state` for every player, by brute force.

    Chance nodes take the probability-weighted mean of their children (in outcome order).
    A decision node takes the value vector of the child that maximises the mover's own value
    (max^n); among ties, the first such child (lowest action). For two-player zero-sum games
    this is minimax / expectiminimax. Positions are memoised by their string when the game has
    transpositions (equal strings have identical subtrees there).

    Args:
        state: Any perfect-information OpenSpiel state (not modified).
        memoise: Memoise positions where strings identify subtrees; False is the plain
            recursion over every path (to check the memo).

    Returns:
        A float array with one value per player.
    """
    memo = _memo_for(state) if memoise else None
    return _solve_limited(state, math.inf, _never_evaluated, memo).copy()


def solve_depth_limited(
    state: Any, depth: int, evaluate: Callable[[Any], Sequence[float]]
) -> np.ndarray:
    """Value of `state` for every player when searching `depth` decision plies.

    Like `solve` (expectation at chance nodes, max^n with first-child tie-breaking), but a
    non-terminal node reached after `depth` decision plies is valued by `evaluate`. Chance nodes
    do not count towards the depth, and a chance node at the horizon is evaluated, not expanded -
    as in OpenSpiel's `minimax.expectiminimax`.

    Args:
        state: Any perfect-information OpenSpiel state (not modified).
        depth: Decision plies to search; 0 evaluates `state` itself unless it is terminal.
        evaluate: Maps a non-terminal state to per-player values.

    Returns:
        A float array with one value per player.

    Raises:
        ValueError: `depth` is negative.
    """
    if depth < 0:
        raise ValueError(f"solve_depth_limited: depth must be an integer >= 0; got {depth!r}")
    return _solve_limited(state, depth, evaluate, _memo_for(state)).copy()


def _never_evaluated(state: Any) -> Sequence[float]:
    raise AssertionError("an unlimited solve never reaches a horizon")


def _solve_limited(
    state: Any,
    depth: float,
    evaluate: Callable[[Any], Sequence[float]],
    memo: dict[Any, np.ndarray] | None,
) -> np.ndarray:
    if memo is not None:
        key = (str(state), depth)
        if key in memo:
            return memo[key]
    if state.is_terminal():
        value = np.asarray(state.returns(), dtype=np.float64)
    elif depth == 0:
        value = np.asarray(evaluate(state), dtype=np.float64)
    elif state.is_chance_node():
        value = np.zeros(state.num_players())
        for outcome, probability in state.chance_outcomes():
            child_value = _solve_limited(state.child(outcome), depth, evaluate, memo)
            value = value + probability * child_value
    else:
        player = state.current_player()
        best: np.ndarray | None = None
        for action in state.legal_actions():
            child_value = _solve_limited(state.child(action), depth - 1, evaluate, memo)
            if best is None or child_value[player] > best[player]:
                best = child_value
        assert best is not None, "a decision node without legal actions"
        value = best
    if memo is not None:
        memo[key] = value
    return value


def action_values(state: Any) -> dict[int, np.ndarray]:
    """Exact per-player value (`solve`) of each child of a decision node, by action.

    Args:
        state: A non-terminal, non-chance state.

    Returns:
        Action to the solved value vector of the child it leads to.

    Raises:
        ValueError: `state` is terminal or a chance node.
    """
    if state.is_terminal() or state.is_chance_node():
        raise ValueError("action_values: state must be a decision node")
    memo = _memo_for(state)
    return {
        a: _solve_limited(state.child(a), math.inf, _never_evaluated, memo).copy()
        for a in state.legal_actions()
    }


def optimal_actions(state: Any, tolerance: float = 0.0) -> list[int]:
    """The actions whose solved value for the mover is within `tolerance` of the best.

    Args:
        state: A non-terminal, non-chance state.
        tolerance: Allowed shortfall from the best value (0.0: exact ties only).

    Returns:
        The optimal actions, ascending.
    """
    player = state.current_player()
    values = action_values(state)
    best = max(v[player] for v in values.values())
    return [a for a, v in values.items() if v[player] >= best - tolerance]


def solve_paranoid(
    state: Any, player: int, depth: float, evaluate: Callable[[Any], Sequence[float]]
) -> float:
    """The paranoid value of `state` for `player`: it maximises, every other player minimises
    its value, chance nodes average; `depth` decision plies, then `evaluate` (as in
    `solve_depth_limited`; `math.inf` searches to the end).
    """
    if state.is_terminal():
        return float(state.returns()[player])
    if depth == 0:
        return float(evaluate(state)[player])
    if state.is_chance_node():
        return sum(
            probability * solve_paranoid(state.child(outcome), player, depth, evaluate)
            for outcome, probability in state.chance_outcomes()
        )
    values = [
        solve_paranoid(state.child(action), player, depth - 1, evaluate)
        for action in state.legal_actions()
    ]
    return max(values) if state.current_player() == player else min(values)


def solve_offensive(
    state: Any,
    attacker: int,
    target: int,
    depth: float,
    evaluate: Callable[[Any], Sequence[float]],
) -> np.ndarray:
    """The directed-offensive vector of `state`: `attacker` picks the child with the lowest
    value for `target`, every other player the child with its own highest value (the first
    child among ties, in legal order), chance nodes average; `depth` decision plies, then
    `evaluate` (as in `solve_depth_limited`).
    """
    if state.is_terminal():
        return np.asarray(state.returns(), dtype=np.float64)
    if depth == 0:
        return np.asarray(evaluate(state), dtype=np.float64)
    if state.is_chance_node():
        total = np.zeros(state.num_players())
        for outcome, probability in state.chance_outcomes():
            child = solve_offensive(state.child(outcome), attacker, target, depth, evaluate)
            total = total + probability * child
        return total
    player = state.current_player()
    best: np.ndarray | None = None
    for action in state.legal_actions():
        child = solve_offensive(state.child(action), attacker, target, depth - 1, evaluate)
        if best is None:
            best = child
        elif player == attacker:
            if child[target] < best[target]:
                best = child
        elif child[player] > best[player]:
            best = child
    assert best is not None, "a decision node without legal actions"
    return best


def solve_brs_plus(
    state: Any,
    root: int,
    depth: int,
    evaluate: Callable[[Any], Sequence[float]],
    *,
    in_segment: bool = False,
    searched: bool = False,
) -> float:
    """The BRS+ value of `state` for `root` by plain recursion (see `search.brs`): between two
    root moves exactly one opponent plays a searched move (minimising), the others the move
    whose child is best for themselves by `evaluate` (returns at terminals; first among ties);
    depth counts decision plies; chance nodes average.
    """
    if state.is_terminal():
        return float(state.returns()[root])
    if state.is_chance_node():
        return sum(
            p
            * solve_brs_plus(
                state.child(o), root, depth, evaluate, in_segment=in_segment, searched=searched
            )
            for o, p in state.chance_outcomes()
        )
    player = state.current_player()
    if player == root and in_segment and not searched:
        return math.inf
    if depth == 0:
        return float(evaluate(state)[root])
    if player == root:
        return max(
            solve_brs_plus(state.child(a), root, depth - 1, evaluate) for a in state.legal_actions()
        )

    def own(action: int) -> float:
        child = state.child(action)
        return float(child.returns()[player] if child.is_terminal() else evaluate(child)[player])

    actions = state.legal_actions()
    values = [own(a) for a in actions]
    preferred = actions[values.index(max(values))]
    deferred = solve_brs_plus(
        state.child(preferred), root, depth - 1, evaluate, in_segment=True, searched=searched
    )
    if searched:
        return deferred
    replies = [
        solve_brs_plus(state.child(a), root, depth - 1, evaluate, in_segment=True, searched=True)
        for a in actions
    ]
    return min([deferred, *replies])
