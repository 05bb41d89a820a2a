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

    `Limits()` sets none: a search called directly with it runs until it has solved the root,
    which on most games does not end in useful time (the bots take `DEFAULT_SECONDS` per move
    when given no limit; a search function does not).
    """

    depth: int | None = setting(
        None, "depth limit in decision plies (None: unlimited)", OPTIONAL_POSITIVE_INT
    )
    # Chance nodes do not count.
    nodes: int | None = setting(
        None, "node limit per move (None: unlimited)", OPTIONAL_POSITIVE_INT
    )
    # Nodes visited by one search call (a bot makes one per move).
    seconds: float | None = setting(
        None, "time limit per move in seconds (None: unlimited)", OPTIONAL_POSITIVE
    )
    # Wall-clock seconds of one search call.

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
    itself and calls `checkpoint()` when it reaches zero. Both limits are checked at
    checkpoints: the node limit exactly (a checkpoint falls on the first node past it), the
    clock every `interval` nodes.

    The interval adapts to the cost of a node, estimated at every clock read as the larger of
    its mean since the last read and since the search started (so the estimate rises at once
    and falls slowly): as many nodes as are expected to take `gap` of the time limit (1%), or
    half the time left when that is less; at least 1, at most `clock_interval` and at most
    twice the last interval. A game whose leaves cost milliseconds (chess valued by random
    playouts) thus reads the clock at every node, one whose nodes cost microseconds every
    `clock_interval` nodes (a read costs about 0.1 µs, a node 2 µs or more), and every search
    reads it ever more often as the deadline nears. It stops as soon as less than half a node's
    expected time is left. So while node costs are steady a search ends within half a node's
    cost of its limit (one evaluation, at the leaves); when they jump, it overruns by at most
    one interval of nodes at the new cost. Without a time limit the clock is not read.
    """

    __slots__ = (
        "_chunk",
        "_clock",
        "_counted",
        "_deadline",
        "_gap",
        "_interval",
        "_last_read",
        "_max_interval",
        "_max_nodes",
        "_node_seconds",
        "countdown",
        "started",
    )

    def __init__(
        self,
        limits: Limits,
        *,
        clock: Callable[[], float] = time.perf_counter,
        clock_interval: int = 16,
        gap: float = 0.01,
    ) -> None:
        """Starts the clock.

        Args:
            limits: The node and time limits (`depth` is the search's business).
            clock: Seconds, monotonic (injected by tests).
            clock_interval: Most nodes between two clock reads (>= 1).
            gap: Time between two clock reads, as a fraction of the time limit, that the
                interval aims at (0 < gap <= 1).
        """
        if isinstance(clock_interval, bool) or not isinstance(clock_interval, int):
            raise ValueError(f"clock_interval must be an integer >= 1, got {clock_interval!r}")
        if clock_interval < 1:
            raise ValueError(f"clock_interval must be an integer >= 1, got {clock_interval!r}")
        if not 0 < gap <= 1:
            raise ValueError(f"gap must be in (0, 1], got {gap!r}")
        self._clock = clock
        self.started = clock()
        self._last_read = self.started
        self._deadline = math.inf if limits.seconds is None else self.started + limits.seconds
        self._gap = math.inf if limits.seconds is None else gap * limits.seconds
        self._max_nodes = math.inf if limits.nodes is None else limits.nodes
        # Until a node has been timed, read the clock after every node.
        self._interval = clock_interval if limits.seconds is None else 1
        self._node_seconds = 0.0
        self._counted = 0
        self._chunk = 0
        self.countdown = 0
        self._max_interval = clock_interval
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

    @property
    def interval(self) -> int:
        """Nodes between the last clock read and the next one."""
        return self._interval

    def tick(self) -> None:
        """Counts one node; raises `SearchStopped` when a limit is exhausted."""
        self.countdown -= 1
        if self.countdown <= 0:
            self.checkpoint()

    def checkpoint(self) -> None:
        """Accounts the ticks since the last checkpoint and checks both limits."""
        done = self._chunk - self.countdown
        self._counted += done
        self._chunk = self.countdown = 0
        if self._counted > self._max_nodes:
            self._counted = int(self._max_nodes)
            raise SearchStopped(STOPPED_BY_NODES)
        if self._deadline < math.inf:
            now = self._clock()
            if done > 0:
                # The larger of the last interval's cost per node (up at once when nodes get
                # dearer) and the whole search's (a run of cheap inner nodes must not open a
                # long interval over the leaves that follow, where the evaluator runs).
                self._node_seconds = max(
                    (now - self._last_read) / done, (now - self.started) / self._counted
                )
                self._last_read = now
            left = self._deadline - now
            if left <= 0.5 * self._node_seconds:
                raise SearchStopped(STOPPED_BY_SECONDS)
            self._interval = self.next_interval(left)
        self._next_chunk()

    def next_interval(self, left: float) -> int:
        """Nodes until the next clock read, with `left` seconds to the deadline.

        As many nodes as the estimated cost per node fits in `gap` of the time limit or in
        half the time left, whichever is less; at least 1, at most `clock_interval` and twice
        the last interval.
        """
        if self._node_seconds <= 0.0:
            return 1  # no node timed yet (the first checkpoint comes before its node's work)
        span = min(self._gap, 0.5 * left)
        # At most double the last interval: a few cheap nodes first timed must not open a
        # long interval before dearer ones have been seen.
        most = min(self._max_interval, 2 * self._interval)
        if self._node_seconds * most <= span:
            return most
        return max(1, int(span / self._node_seconds))

    def elapsed(self) -> float:
        """Seconds since the search started."""
        return self._clock() - self.started
