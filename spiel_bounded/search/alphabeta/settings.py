"""The settings of the bounded alpha-beta engine (both engines read them)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from spiel_bounded.native import ENGINES
from spiel_bounded.params import (
    FLAG,
    NON_NEGATIVE,
    NON_NEGATIVE_INT,
    OPTIONAL_POSITIVE_INT,
    OneOf,
    check_fields,
    setting,
)
from spiel_bounded.search.tt import DEFAULT_CAPACITY

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
    # The native engine (`spiel_bounded.native`) follows the Python one (`engine.py`) step for
    # step: at a fixed
    # depth, with a table that does not fill, both visit the same nodes and return the same
    # bounds, moves and principal variation.

    def capacity(self, *, native: bool) -> int:
        """The table capacity on the named engine (`tt_capacity`, or that engine's default)."""
        if self.tt_capacity is not None:
            return self.tt_capacity
        return NATIVE_CAPACITY if native else DEFAULT_CAPACITY

    def __post_init__(self) -> None:
        check_fields(self)
