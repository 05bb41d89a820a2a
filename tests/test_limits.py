"""Limits validation and the budget clock."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spiel_bounded.limits import Budget, Limits, SearchStopped
from tests.helpers import FakeClock


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"depth": 0}, "Limits.depth must be an integer >= 1 or None"),
        ({"depth": 2.5}, "Limits.depth must be an integer >= 1 or None"),
        ({"nodes": -3}, "Limits.nodes must be an integer >= 1 or None"),
        ({"nodes": True}, "Limits.nodes must be an integer >= 1 or None"),
        ({"seconds": 0}, "Limits.seconds must be a number > 0 or None"),
        ({"seconds": float("inf")}, "Limits.seconds must be a number > 0 or None"),
        ({"seconds": "1"}, "Limits.seconds must be a number > 0 or None"),
    ],
)
def test_bad_limits(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Limits(**kwargs)


def test_limits_are_keyword_only() -> None:
    with pytest.raises(TypeError):
        Limits(3)  # type: ignore[misc]


def test_node_budget_stops_exactly_at_the_limit() -> None:
    budget = Budget(Limits(nodes=5))
    for _ in range(5):
        budget.tick()
    with pytest.raises(SearchStopped) as stop:
        budget.tick()
    assert stop.value.reason == "nodes"
    assert budget.nodes == 5


def test_time_budget_uses_the_injected_clock() -> None:
    now = [0.0]
    budget = Budget(Limits(seconds=1.0), clock=lambda: now[0], clock_interval=1)
    budget.tick()
    now[0] = 1.0
    with pytest.raises(SearchStopped) as stop:
        budget.tick()
    assert stop.value.reason == "seconds"
    assert budget.elapsed() == 1.0


def test_unlimited_budget_never_stops() -> None:
    budget = Budget(Limits())
    for _ in range(10_000):
        budget.tick()
    assert budget.nodes == 10_000


def run_nodes(seconds: float, costs: Iterable[float], **options: int) -> tuple[float, FakeClock]:
    """Visits nodes of the given costs (a search ticks on entering a node, then works) until
    the budget stops; returns the time at the stop and the clock."""
    clock = FakeClock()
    budget = Budget(Limits(seconds=seconds), clock=clock, **options)
    with pytest.raises(SearchStopped) as stop:
        for cost in costs:
            budget.tick()
            clock.now += cost
    assert stop.value.reason == "seconds"
    return clock.now, clock


@pytest.mark.parametrize("cost", [1e-6, 1e-4, 2e-3, 1e-2, 0.03])
def test_steady_nodes_stop_within_half_a_node_of_the_limit(cost: float) -> None:
    stopped, _ = run_nodes(0.05, itertools.repeat(cost))
    assert 0.05 - cost / 2 - 1e-12 <= stopped <= 0.05 + cost / 2 + 1e-12


def test_fast_nodes_read_the_clock_every_clock_interval_nodes() -> None:
    stopped, clock = run_nodes(0.05, itertools.repeat(1e-6), clock_interval=16)
    nodes = round(stopped / 1e-6)
    assert clock.reads <= nodes / 16 + 40  # a few more while the cost is first measured and
    assert stopped <= 0.05 + 1e-6  # near the deadline, where the interval shrinks


def test_slow_nodes_read_the_clock_every_node() -> None:
    """A chess leaf valued by a random playout costs milliseconds: 16 of them between two clock
    reads overran a 50 ms limit by up to 30%."""
    stopped, clock = run_nodes(0.05, itertools.repeat(3e-3))
    assert clock.reads >= round(stopped / 3e-3)
    assert stopped <= 0.05 + 1.5e-3


@pytest.mark.parametrize("jump_at", [0.001, 0.02, 0.045])
def test_a_jump_in_node_cost_costs_at_most_one_interval(jump_at: float) -> None:
    """Nodes of 1 µs, then of 1 ms: the interval opened for the cheap nodes (at most
    `clock_interval`) is paid at the new cost once, then the clock is read every node."""

    def costs() -> Iterator[float]:
        elapsed = 0.0
        while True:
            cost = 1e-6 if elapsed < jump_at else 1e-3
            elapsed += cost
            yield cost

    stopped, _ = run_nodes(0.05, costs(), clock_interval=16)
    assert stopped <= 0.05 + 16 * 1e-3
    if jump_at < 0.05 - 16 * 1e-3:  # room to adapt before the deadline
        assert stopped <= 0.05 + 0.5e-3


@settings(max_examples=200, deadline=None)
@given(
    leaves=st.lists(st.integers(min_value=1, max_value=40), min_size=1, max_size=20),
    inner=st.floats(min_value=1e-6, max_value=1e-4),
    leaf=st.floats(min_value=1e-4, max_value=5e-3),
    seconds=st.sampled_from([0.05, 0.2, 1.0]),
)
def test_search_like_costs_stop_within_two_leaves(
    leaves: list[int], inner: float, leaf: float, seconds: float
) -> None:
    """Cheap inner nodes, then runs of costly leaves (where the evaluator runs), as a
    depth-first search visits them: the overshoot stays under two leaves, and the search does
    not stop more than one leaf early."""

    def costs() -> Iterator[float]:
        for run in itertools.cycle(leaves):
            yield inner
            yield from itertools.repeat(leaf, run)

    stopped, _ = run_nodes(seconds, costs())
    assert seconds - leaf <= stopped <= seconds + 2 * leaf


@settings(max_examples=200, deadline=None)
@given(
    costs=st.lists(st.floats(min_value=1e-6, max_value=2e-3), min_size=1, max_size=50),
    seconds=st.sampled_from([0.05, 0.2, 1.0]),
    interval=st.integers(min_value=1, max_value=32),
)
def test_any_costs_stop_within_one_interval_of_the_dearest_node(
    costs: list[float], seconds: float, interval: int
) -> None:
    stopped, _ = run_nodes(seconds, itertools.cycle(costs), clock_interval=interval)
    assert seconds - max(costs) <= stopped <= seconds + interval * max(costs)


def test_no_clock_reads_without_a_time_limit() -> None:
    clock = FakeClock()
    budget = Budget(Limits(nodes=1000), clock=clock)
    for _ in range(1000):
        budget.tick()
    assert clock.reads == 1  # the start


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"clock_interval": 0}, "clock_interval must be an integer >= 1"),
        ({"clock_interval": 2.5}, "clock_interval must be an integer >= 1"),
        ({"gap": 0.0}, "gap must be in"),
        ({"gap": 1.5}, "gap must be in"),
    ],
)
def test_bad_budget_options(options: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Budget(Limits(seconds=1.0), **options)
