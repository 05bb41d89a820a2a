"""Transposition table of bound intervals.

An entry says: searched with `depth` plies left, the node's value lies in `[lower, upper]`, and
`move` was the best (or cutting) move found. `horizon` records whether the evaluator was called
anywhere below; an entry without it was proved from terminal values alone, so its bounds hold for
every depth at least `depth`, not only for `depth` itself. A chance node's entry also keeps the
bounds of each outcome (`outcomes`), so that a chance node met again with a wider window resumes
from them instead of starting over (the q-state cache of the expectimax notes).
"""

from __future__ import annotations

from typing import Final, NamedTuple


class Entry(NamedTuple):
    lower: float
    upper: float
    depth: int
    move: int | None
    horizon: bool
    outcomes: tuple[tuple[float, float], ...] | None = None

    def usable_at(self, depth: int) -> bool:
        """Whether the bounds hold for the depth-limited value with `depth` plies left."""
        return self.depth == depth or (not self.horizon and self.depth <= depth)


DEFAULT_CAPACITY: Final = 500_000
"""Entries at most by default: about 166 MB on connect_four (333 bytes an entry,
`results/bench_memory.md`), so that several searches fit in a laptop's memory side by side."""


class TranspositionTable:
    """A dictionary of entries with a capacity; when full, only existing keys are updated.

    `entries` holds plain tuples with `Entry`'s fields in order (the alpha-beta engine's hot
    path reads and writes them directly); `get` returns them as an `Entry`.

    Refusing new keys when full (instead of evicting) keeps every stored interval valid and the
    behaviour deterministic; a search that needs more entries gets a larger `capacity`.
    """

    __slots__ = ("capacity", "entries")

    def __init__(self, capacity: int = DEFAULT_CAPACITY) -> None:
        if capacity < 1:
            raise ValueError(f"transposition table capacity must be >= 1, got {capacity}")
        self.capacity = capacity
        self.entries: dict[object, tuple] = {}

    def __len__(self) -> int:
        return len(self.entries)

    def get(self, key: object) -> Entry | None:
        entry = self.entries.get(key)
        return None if entry is None else Entry._make(entry)

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
        self.entries[key] = (lower, upper, depth, move, horizon, outcomes)

    def clear(self) -> None:
        self.entries.clear()
