"""Transposition table of bound intervals: the one the alpha-beta engine reads and writes.

An entry says: searched with `depth` plies left, the node's value lies in `[lower, upper]`, and
`move` was the best (or cutting) move found. `horizon` records whether the evaluator was called
anywhere below; an entry without it was proved from terminal values alone, so its bounds hold for
every depth at least `depth`, not only for `depth` itself (`usable`). A chance node's entry also
keeps the bounds of each outcome (`outcomes`), so that a chance node met again with a wider window
resumes from them instead of starting over (the q-state cache of the expectimax notes).

Values are the maximizing player's (the player to move at the root of the one search call that
owns the table; `search.alphabeta` makes a table per call).

Entries are plain tuples, `(lower, upper, depth, move, horizon, outcomes)`: the engine unpacks
them on its hot path, where building a named tuple per lookup would cost more than the lookup.
"""

from __future__ import annotations

from typing import Final, TypeAlias

Outcomes: TypeAlias = tuple[tuple[float, float], ...]
"""A chance node's `(lower, upper)` per outcome, in `chance_outcomes()` order."""

Entry: TypeAlias = tuple[float, float, int, int | None, bool, Outcomes | None]
"""`(lower, upper, depth, move, horizon, outcomes)`; see the module docstring."""

DEFAULT_CAPACITY: Final = 500_000
"""Entries at most by default: about 166 MB on connect_four (333 bytes an entry,
`results/bench_memory.md`), so that several searches fit in a laptop's memory side by side."""


def usable(entry: Entry, depth: int) -> bool:
    """Whether `entry`'s bounds hold for the depth-limited value with `depth` plies left."""
    return entry[2] == depth or (not entry[4] and entry[2] <= depth)


class TranspositionTable(dict[object, Entry]):
    """A dictionary of entries with a capacity; when full, only existing keys are updated.

    Reading is the dictionary's own `get` (no Python frame on the engine's hot path); writing goes
    through `store`, which keeps the capacity and intersects entries of the same depth.

    Refusing new keys when full (instead of evicting) keeps every stored interval valid and the
    behaviour deterministic; a search that needs more entries gets a larger `capacity`.
    """

    __slots__ = ("capacity",)

    def __init__(self, capacity: int = DEFAULT_CAPACITY) -> None:
        super().__init__()
        if capacity < 1:
            raise ValueError(f"transposition table capacity must be >= 1, got {capacity}")
        self.capacity = capacity

    def store(
        self,
        key: object,
        lower: float,
        upper: float,
        depth: int,
        move: int | None,
        horizon: bool,
        outcomes: Outcomes | None = None,
    ) -> None:
        """Stores bounds, intersected with an entry of the same depth."""
        old = self.get(key)
        if old is None:
            if len(self) >= self.capacity:
                return
        elif old[2] == depth:
            # Both intervals bound the same value, so their intersection does too; it holds
            # beyond this depth only if neither search met the horizon.
            lower = max(lower, old[0])
            upper = min(upper, old[1])
            horizon = horizon or old[4]
            if move is None:
                move = old[3]
        self[key] = (lower, upper, depth, move, horizon, outcomes)
