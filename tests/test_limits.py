"""Limits validation and the budget clock."""

from __future__ import annotations

import pytest

from spiel_bounded.limits import Budget, Limits, SearchStopped


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
