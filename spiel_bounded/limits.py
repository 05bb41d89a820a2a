"""Search limits and the budget clock every search consults."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from spiel_bounded.params import OPTIONAL_POSITIVE, OPTIONAL_POSITIVE_INT, check_fields, setting
from spiel_bounded.result import StopReason

STOPPED_BY_NODES: Final[StopReason] = "nodes"
STOPPED_BY_SECONDS: Final[StopReason] = "seconds"
DEFAULT_SECONDS: Final = 1.0
"""Seconds per move a registered bot takes when it is given no limit at all."""


@dataclass(frozen=True, kw_only=True)
class Limits:
    """How far a search may go. Every limit that is set is honoured; unset means unlimited.

    Attributes:
        depth: Maximum search depth in decision plies (chance nodes do not count).
        nodes: Maximum number of nodes visited by one search call.
        seconds: Maximum wall-clock seconds for one search call.
    """

    depth: int | None = setting(
        None, "depth limit in decision plies (None: unlimited)", OPTIONAL_POSITIVE_INT
    )
    nodes: int | None = setting(
        None, "node limit per move (None: unlimited)", OPTIONAL_POSITIVE_INT
    )
    seconds: float | None = setting(
        None, "time limit per move in seconds (None: unlimited)", OPTIONAL_POSITIVE
    )

    def __post_init__(self) -> None:
        check_fields(self)

    @property
    def unbounded(self) -> bool:
        """True when no limit at all is set."""
        return self.depth is None and self.nodes is None and self.seconds is None


class SearchStopped(Exception):
    """Raised inside a search when its budget runs out; carries the reason."""

    def __init__(self, reason: StopReason) -> None:
        super().__init__(reason)
        self.reason = reason


class Budget:
    """Counts nodes and watches the clock for one search call.

    A search calls `tick()` once per visited node, or, in a hot loop, decrements `countdown`
    itself and calls `checkpoint()` when it reaches zero. Both limits are checked at checkpoints:
    the node limit exactly (a checkpoint falls on the first node past it), the clock every
    `clock_interval` nodes. A clock read costs about as much as a node, and 16 nodes take a few
    tens of microseconds in Python, so a search overruns its time by far less than a percent
    (plus at most one evaluation).
    """

    __slots__ = (
        "_chunk",
        "_clock",
        "_counted",
        "_deadline",
        "_interval",
        "_max_nodes",
        "countdown",
        "started",
    )

    def __init__(
        self,
        limits: Limits,
        *,
        clock: Callable[[], float] = time.perf_counter,
        clock_interval: int = 16,
    ) -> None:
        self._clock = clock
        self.started = clock()
        self._deadline = math.inf if limits.seconds is None else self.started + limits.seconds
        self._max_nodes = math.inf if limits.nodes is None else limits.nodes
        self._interval = clock_interval
        self._counted = 0
        self._chunk = 0
        self.countdown = 0
        self._next_chunk()

    def _next_chunk(self) -> None:
        # One more than the nodes still allowed, so that the checkpoint falls on the first
        # node past the limit.
        self._chunk = int(min(self._interval, self._max_nodes - self._counted + 1))
        self.countdown = self._chunk

    @property
    def nodes(self) -> int:
        """Nodes counted so far."""
        return self._counted + self._chunk - self.countdown

    def tick(self) -> None:
        """Counts one node; raises `SearchStopped` when a limit is exhausted."""
        self.countdown -= 1
        if self.countdown <= 0:
            self.checkpoint()

    def checkpoint(self) -> None:
        """Accounts the ticks since the last checkpoint and checks both limits."""
        self._counted += self._chunk - self.countdown
        self._chunk = self.countdown = 0
        if self._counted > self._max_nodes:
            self._counted = int(self._max_nodes)
            raise SearchStopped(STOPPED_BY_NODES)
        if self._clock() >= self._deadline:
            raise SearchStopped(STOPPED_BY_SECONDS)
        self._next_chunk()

    def elapsed(self) -> float:
        """Seconds since the search started."""
        return self._clock() - self.started
