"""`SearchBot`: any search as a `pyspiel.Bot`, and the rules that pick a move from root bounds."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Final, Protocol

import numpy as np
import pyspiel

from spiel_bounded.bots.checks import StateCheck
from spiel_bounded.result import Interval, SearchResult

if TYPE_CHECKING:
    from spiel_bounded.search.table_walk import LabelRequest

POLICIES: Final = ("pessimistic", "optimistic", "average")

# Each policy ranks a child by a primary score, then breaks ties by the other bound (the
# pessimistic side first): among children with the same upper bound, the one proved better
# below is never worse. A child proved worse than another (its upper bound below the other's
# lower bound) ranks below it under every policy.
_RANKS: Final[dict[str, Callable[[Interval], tuple[float, ...]]]] = {
    "pessimistic": lambda bounds: (bounds.lower, bounds.upper),
    "optimistic": lambda bounds: (bounds.upper, bounds.lower),
    "average": lambda bounds: (bounds.midpoint, bounds.lower),
}


def check_policy(policy: str) -> str:
    """Returns `policy`, or raises `ValueError` listing the accepted names."""
    if policy not in _RANKS:
        raise ValueError(f"unknown policy {policy!r}; accepted: {', '.join(POLICIES)}")
    return policy


def choose_action(result: SearchResult, policy: str, rng: np.random.Generator) -> int:
    """Picks the root action with the best rank under `policy`.

    `pessimistic` takes the best lower bound: when the root interval is at most epsilon wide,
    that action's value is within epsilon of the root value (it is epsilon-optimal).
    `optimistic` takes the best upper bound, `average` the best midpoint. Ties go, in order, to
    the better other bound (lower bound for `optimistic` and `average`, upper for
    `pessimistic`), then the more visited child (`result.visits`, for searches that count
    visits), then a draw from `rng`. So no policy ever picks a child proved worse than another
    (its upper bound below the other's lower bound). Falls back to `result.action` when no root
    action was examined.
    """
    children: Mapping[int, Interval] = result.children
    if not children:
        return result.action
    rank = _RANKS[policy]
    visits = result.visits
    ranks = {action: (*rank(bounds), visits.get(action, 0)) for action, bounds in children.items()}
    best = max(ranks.values())
    tied = sorted(action for action, value in ranks.items() if value == best)
    if len(tied) == 1:
        return tied[0]
    return int(tied[rng.integers(len(tied))])


def as_played(result: SearchResult, action: int) -> SearchResult:
    """`result` describing the move actually played.

    When a policy picks another move than the search's own choice, the principal variation
    beyond that move is unknown: it becomes `(action,)`.
    """
    if action == result.action:
        return result
    return replace(result, action=action, pv=(action,))


class Search(Protocol):
    """A search the bot adapter plays: a state in, a `SearchResult` out.

    A stateful search (one that keeps a tree between moves) also has `inform_action(state,
    player_id, action)` and `restart()`; `SearchBot` calls them when present.
    """

    def __call__(self, state: pyspiel.State, /) -> SearchResult: ...


class SearchBot(pyspiel.Bot):
    """Plays the move a search recommends, under any OpenSpiel driver.

    Works with `pyspiel.evaluate_bots` (C++) and `open_spiel.python.algorithms.evaluate_bots`.
    With a `policy`, the bot picks the move from the root children's bounds (`choose_action`);
    with None, it plays the search's own `action` (the search applied its own rule). A search
    with `inform_action` / `restart` methods is told of every action and of restarts, so it can
    keep a tree between moves. `last_result` holds the `SearchResult` of the most recent move,
    describing the move played (see `as_played`). Every state is checked (`state_check`) before
    the search sees it: a terminal state, a chance node, a state of another game or one where
    another player than `player_id` is to move is refused with `ValueError`.
    """

    def __init__(
        self,
        game: pyspiel.Game,
        player_id: int,
        search: Search,
        *,
        policy: str | None = "pessimistic",
        seed: int = 0,
    ) -> None:
        pyspiel.Bot.__init__(self)
        self._game = game
        self._player_id = player_id
        self._search = search
        self._policy = None if policy is None else check_policy(policy)
        self._rng = np.random.default_rng(seed)
        self.last_result: SearchResult | None = None
        self.state_check = StateCheck(game, type(self).__name__, player=player_id)

    @property
    def player_id(self) -> int:
        return self._player_id

    def step_with_policy(self, state: pyspiel.State) -> tuple[list[tuple[int, float]], int]:
        self.state_check(state)
        result = self._search(state)
        if self._policy is not None:
            result = as_played(result, choose_action(result, self._policy, self._rng))
        self.last_result = result
        return [(result.action, 1.0)], result.action

    def step(self, state: pyspiel.State) -> int:
        return self.step_with_policy(state)[1]

    def label_tables(self, request: LabelRequest) -> None:
        """Asks every later search for the positions its table bounded (`SearchResult.labels`,
        `search.table_walk`); `ValueError` for a bot whose search keeps no table of bounds."""
        if "labels" not in inspect.signature(self._search).parameters:
            raise ValueError(
                f"{type(self).__name__} keeps no table of bounds to label positions from; "
                "accepted: the alpha-beta family (bounded_ab, bounded_star1, bounded_star2)"
            )
        search: Callable[..., SearchResult] = self._search
        self._search = functools.partial(search, labels=request)

    def provides_policy(self) -> bool:
        return True

    def restart_at(self, state: pyspiel.State) -> None:
        self.restart()

    def restart(self) -> None:
        self.last_result = None
        restart = getattr(self._search, "restart", None)
        if restart is not None:
            restart()

    def inform_action(self, state: pyspiel.State, player_id: int, action: int) -> None:
        inform = getattr(self._search, "inform_action", None)
        if inform is not None:
            inform(state, player_id, action)
