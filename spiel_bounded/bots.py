"""`SearchBot`: any search as a `pyspiel.Bot`, and the rules that pick a move from root bounds."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Final

import numpy as np
import pyspiel

from spiel_bounded.result import Interval, SearchResult

POLICIES: Final = ("pessimistic", "optimistic", "average")

_SCORES: Final[dict[str, Callable[[Interval], float]]] = {
    "pessimistic": lambda bounds: bounds.lower,
    "optimistic": lambda bounds: bounds.upper,
    "average": lambda bounds: bounds.midpoint,
}


def check_policy(policy: str) -> str:
    """Returns `policy`, or raises `ValueError` listing the accepted names."""
    if policy not in _SCORES:
        raise ValueError(f"unknown policy {policy!r}; accepted: {', '.join(POLICIES)}")
    return policy


def choose_action(result: SearchResult, policy: str, rng: np.random.Generator) -> int:
    """Picks the root action with the best score under `policy`; ties broken by `rng`.

    `pessimistic` takes the best lower bound: when the root interval is at most epsilon wide,
    that action's value is within epsilon of the root value (it is epsilon-optimal).
    `optimistic` takes the best upper bound, `average` the best midpoint. Falls back to
    `result.action` when no root action was examined.
    """
    children: Mapping[int, Interval] = result.children
    if not children:
        return result.action
    score = _SCORES[policy]
    scores = {action: score(bounds) for action, bounds in children.items()}
    best = max(scores.values())
    tied = sorted(action for action, value in scores.items() if value == best)
    if len(tied) == 1:
        return tied[0]
    return int(tied[rng.integers(len(tied))])


class SearchBot(pyspiel.Bot):
    """Plays the move a search recommends, under any OpenSpiel driver.

    Works with `pyspiel.evaluate_bots` (C++) and `open_spiel.python.algorithms.evaluate_bots`.
    The search is stateless between moves, so `restart_at` and `inform_action` have nothing to
    update. `last_result` holds the `SearchResult` of the most recent move; `counts_nodes` says
    whether its `stats.nodes` is a real count (False for a wrapped search that reports none).
    """

    def __init__(
        self,
        game: pyspiel.Game,
        player_id: int,
        search: Callable[[pyspiel.State], SearchResult],
        *,
        policy: str = "pessimistic",
        seed: int = 0,
        counts_nodes: bool = True,
    ) -> None:
        pyspiel.Bot.__init__(self)
        self._game = game
        self._player_id = player_id
        self._search = search
        self._policy = check_policy(policy)
        self._rng = np.random.default_rng(seed)
        self.counts_nodes = counts_nodes
        self.last_result: SearchResult | None = None

    @property
    def player_id(self) -> int:
        return self._player_id

    def step_with_policy(self, state: pyspiel.State) -> tuple[list[tuple[int, float]], int]:
        result = self._search(state)
        self.last_result = result
        action = choose_action(result, self._policy, self._rng)
        return [(action, 1.0)], action

    def step(self, state: pyspiel.State) -> int:
        return self.step_with_policy(state)[1]

    def provides_policy(self) -> bool:
        return True

    def restart_at(self, state: pyspiel.State) -> None:
        self.last_result = None

    def restart(self) -> None:
        self.last_result = None

    def inform_action(self, state: pyspiel.State, player_id: int, action: int) -> None:
        pass
