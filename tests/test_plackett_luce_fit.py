"""The maximum-likelihood Plackett-Luce fit: its likelihood against brute force, known answers,
recovery of known strengths, order-freedom, and its place in the tournament report."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from spiel_bounded.arena.plackett_luce_fit import (
    ELO_PER_NAT,
    RankingTerms,
    _group_log_probability,
    fit_plackett_luce,
    plackett_luce_fit_tables,
)
from spiel_bounded.arena.records import GameRecord
from spiel_bounded.arena.report import build_report
from spiel_bounded.arena.report_files import write_report
from spiel_bounded.arena.settings import ReportSettings
from tests.helpers import table_record


def brute_force_group_probability(
    weights: np.ndarray, group: tuple[int, ...], rest: list[int]
) -> float:
    """The probability that `group` takes the next places in some order: the sum over its
    orders of Plackett-Luce's place-by-place probabilities."""
    total = 0.0
    for order in itertools.permutations(group):
        left = [*group, *rest]
        probability = 1.0
        for bot in order:
            probability *= weights[bot] / weights[left].sum()
            left.remove(bot)
        total += probability
    return float(total)


@pytest.mark.parametrize("seed", range(6))
def test_a_groups_probability_is_the_sum_over_its_orders(seed: int) -> None:
    rng = np.random.default_rng(seed)
    weights = np.exp(rng.normal(scale=1.5, size=7))
    bots = list(rng.permutation(7))
    size = 1 + seed % 4
    group, rest = tuple(int(bot) for bot in bots[:size]), [int(bot) for bot in bots[size:]]
    log_p, _ = _group_log_probability(weights, group, float(weights[rest].sum()))
    assert math.exp(log_p) == pytest.approx(brute_force_group_probability(weights, group, rest))


def test_the_gradient_is_the_derivative_of_the_log_likelihood() -> None:
    rng = np.random.default_rng(3)
    rankings = [((0,), (1, 2), (3,)), ((2, 3), (0,), (1,)), ((1,), (0, 2, 3)), ((3, 0, 1), (2,))]
    counts = np.array([3.0, 2.0, 5.0, 1.0])
    theta = rng.normal(size=4)
    terms = RankingTerms.of(rankings, 4)
    _, gradient = terms.log_likelihood(theta, counts)
    step = 1e-6
    numeric = [
        (
            terms.log_likelihood(theta + step * np.eye(4)[bot], counts)[0]
            - terms.log_likelihood(theta - step * np.eye(4)[bot], counts)[0]
        )
        / (2 * step)
        for bot in range(4)
    ]
    np.testing.assert_allclose(gradient, numeric, rtol=1e-6, atol=1e-8)


def test_a_tie_is_an_order_not_observed() -> None:
    weights = np.array([1.0, 2.0, 3.0])
    # Winner 0, then 1 and 2 tied: the likelihood is the winner's share alone.
    terms = RankingTerms.of([((0,), (1, 2)), ((0, 1, 2),), ((1, 2), (0,))], 3)
    value, _ = terms.log_likelihood(np.log(weights), np.array([1.0, 0.0, 0.0]))
    assert value == pytest.approx(math.log(1.0 / 6.0))
    # Everyone tied says nothing.
    assert terms.log_likelihood(np.log(weights), np.array([0.0, 1.0, 0.0]))[0] == 0.0
    # 1 and 2 ahead of 0, in either order: 2/6 * 3/4 + 3/6 * 2/3.
    value, _ = terms.log_likelihood(np.log(weights), np.array([0.0, 0.0, 1.0]))
    assert value == pytest.approx(math.log(2 / 6 * 3 / 4 + 3 / 6 * 2 / 3))


def test_two_bots_known_answer() -> None:
    # a beats b 300 times of 400 (and they draw 50 times, which says nothing): the maximum of
    # 300 log p + 100 log(1 - p) is p = 3/4, 400 log10(3) Elo apart (the prior moves it by
    # about 0.04).
    records = [table_record(number, ("a", "b"), (1.0, -1.0)) for number in range(300)]
    records += [table_record(300 + number, ("b", "a"), (1.0, -1.0)) for number in range(100)]
    records += [table_record(400 + number, ("a", "b"), (0.0, 0.0)) for number in range(50)]
    fit = fit_plackett_luce(
        records, ["a", "b"], anchor="b", bootstrap=0, rng=np.random.default_rng()
    )
    assert fit.elo[fit.bots.index("b")] == 0.0
    assert fit.elo[fit.bots.index("a")] == pytest.approx(400 * math.log10(3), abs=0.1)
    assert fit.tables == (450, 450)
    assert all(math.isnan(bound) for bound in fit.interval("a"))


def simulated_tables(
    strengths: dict[str, float], games: int, rng: np.random.Generator
) -> list[GameRecord]:
    """Tables of three drawn from `strengths` (natural-log scale): a winner drawn by
    Plackett-Luce, the other two tied (as in chinese_checkers), or in every tenth game the
    full order."""
    names = list(strengths)
    records = []
    for number in range(games):
        seats = tuple(str(name) for name in rng.choice(names, size=3, replace=False))
        left, finish = list(seats), []
        while left:
            weights = np.exp([strengths[name] for name in left])
            finish.append(left.pop(rng.choice(len(left), p=weights / weights.sum())))
        if number % 10:
            returns = tuple(1.0 if name == finish[0] else -0.5 for name in seats)
        else:
            returns = tuple(float(len(seats) - finish.index(name)) for name in seats)
        records.append(table_record(number, seats, returns))
    return records


def test_known_strengths_are_recovered_within_their_intervals() -> None:
    strengths = {"s4": 1.0, "s3": 0.4, "s2": 0.0, "s1": -0.8}
    records = simulated_tables(strengths, 1200, np.random.default_rng(11))
    fit = fit_plackett_luce(
        records, ["s1", "s2", "s3", "s4"], anchor="s2", bootstrap=200, rng=np.random.default_rng(0)
    )
    assert fit.bots == ("s1", "s2", "s3", "s4") and sum(fit.tables) == 1200 * 3
    for bot, strength in strengths.items():
        truth = strength * ELO_PER_NAT
        low, high = fit.interval(bot)
        # within the 95% interval widened by half (one truth of three may fall outside the
        # 95% interval itself)
        assert 1.25 * low - 0.25 * high <= truth <= 1.25 * high - 0.25 * low, bot
        assert fit.elo[fit.bots.index(bot)] == pytest.approx(truth, abs=40.0)
    estimate, low, high = fit.difference("s4", "s1")
    assert low <= 1.8 * ELO_PER_NAT <= high and low < estimate < high
    assert fit.interval("s2") == (0.0, 0.0)  # the anchor


def test_the_fit_is_a_function_of_the_set_of_games() -> None:
    records = simulated_tables({"x": 0.5, "y": 0.0, "z": -0.5}, 90, np.random.default_rng(5))
    first = plackett_luce_fit_tables(records, ["x", "y", "z"], anchor=None, bootstrap=50, seed=1)
    shuffled = [records[index] for index in np.random.default_rng(2).permutation(len(records))]
    again = plackett_luce_fit_tables(shuffled, ["x", "y", "z"], anchor=None, bootstrap=50, seed=1)
    pd.testing.assert_frame_equal(first.ratings, again.ratings)
    pd.testing.assert_frame_equal(first.leads, again.leads)
    assert first.ratings["elo"].sum() == pytest.approx(0.0, abs=1e-6)  # centred without an anchor
    # each pair once, in display order, its lead the difference of the two strengths
    elo = first.ratings.set_index("bot")["elo"]
    assert [tuple(pair) for pair in first.leads[["bot", "opponent"]].to_numpy()] == [
        ("x", "y"),
        ("x", "z"),
        ("y", "z"),
    ]
    for row in first.leads.to_dict("records"):
        assert row["lead"] == pytest.approx(elo[row["bot"]] - elo[row["opponent"]])
        assert row["low"] <= row["lead"] <= row["high"]


def test_the_report_holds_the_fit_for_tables_of_three_only(tmp_path: Path) -> None:
    settings = ReportSettings(anchor="z", bootstrap=50)
    three = simulated_tables({"x": 0.5, "y": 0.0, "z": -0.5}, 60, np.random.default_rng(8))
    report = build_report(three, settings)
    assert list(report.plackett_luce_fit.ratings["bot"]) == ["x", "y", "z"]
    assert len(report.plackett_luce_fit.leads) == 3 and "| x | z |" in report.markdown
    assert "## Plackett-Luce by maximum likelihood" in report.markdown
    written = {path.name for path in write_report(report, tmp_path / "three")}
    assert {
        "plackett_luce_fit.csv",
        "plackett_luce_leads.csv",
        "ratings_plackett_luce_fit.png",
    } <= written
    two = [table_record(number, ("x", "y"), (1.0, -1.0)) for number in range(4)]
    report = build_report(two, settings)
    assert report.plackett_luce_fit.ratings.empty and report.plackett_luce_fit.leads.empty
    assert "maximum likelihood" not in report.markdown
    written = {path.name for path in write_report(report, tmp_path / "two", figures=False)}
    assert not {"plackett_luce_fit.csv", "plackett_luce_leads.csv"} & written


def test_a_bot_that_never_finished_ahead_is_marked_as_held_by_the_prior() -> None:
    records = simulated_tables({"x": 0.5, "y": 0.0, "z": -0.5}, 60, np.random.default_rng(8))
    # w sits with x and y twelve times and always finishes last (behind both).
    records += [
        table_record(100 + number, ("w", "x", "y"), (-1.0, 1.0 - number % 2, number % 2))
        for number in range(12)
    ]
    fit = fit_plackett_luce(
        records, ["w", "x", "y", "z"], anchor="x", bootstrap=20, rng=np.random.default_rng(0)
    )
    assert fit.bounded == (False, True, True, True)
    report = build_report(records, ReportSettings(anchor="x", bootstrap=20))
    assert "| w (prior) |" in report.markdown and "| x (prior) |" not in report.markdown
    assert "the prior of 1000 Elo holds it" in report.markdown
    assert fit_plackett_luce(
        records[:60], ["x", "y", "z"], anchor=None, bootstrap=0, rng=np.random.default_rng(0)
    ).bounded == (True, True, True)
