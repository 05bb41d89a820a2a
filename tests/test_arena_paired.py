"""Paired (pentanomial) statistics and the SPRT: hand-computed answers and simulations."""

from __future__ import annotations

import math
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from spiel_bounded.arena.paired import (
    PAIR_SCORES,
    Pentanomial,
    elo_to_score,
    paired_gain,
    paired_table,
    pairs_of,
    score_to_elo,
)
from spiel_bounded.arena.plackett_luce import finishing_order, plackett_luce_table
from spiel_bounded.arena.records import GameRecord
from spiel_bounded.arena.sprt import H0, H1, SPRTSettings, llr, replay, status
from spiel_bounded.stats import wilson
from tests.helpers import game_record, table_record

ROOT = Path(__file__).resolve().parents[1]


def pair(round_: int, first: float, second: float) -> list[GameRecord]:
    """Round `round_`: a's result as player 0, then as player 1 (1 win, 0 draw, -1 loss)."""
    return [
        game_record(round_, ("a", "b"), (first, -first)),
        game_record(round_, ("b", "a"), (-second, second)),
    ]


def test_pentanomial_counts_and_figures_by_hand() -> None:
    records = [
        *pair(0, 1, 1),  # 2 points
        *pair(1, 1, -1),  # 1
        *pair(2, 0, 0),  # 1, two draws
        *pair(3, 1, 0),  # 1.5, one draw
        *pair(4, -1, -1),  # 0
        game_record(5, ("a", "b"), (1.0, -1.0)),  # its partner is missing: unpaired
    ]
    pairs = pairs_of(records, ["a", "b"])["g", "a", "b"]
    result, unpaired = pairs.pentanomial(), pairs.unpaired
    assert result.counts == (1, 0, 2, 1, 1) and result.draws == 3 and unpaired == 1
    x = [1.0, 0.5, 0.5, 0.75, 0.0]
    mu = sum(x) / 5
    # Half a pair of each outcome is added for the variance: 7.5 pairs in all.
    spread = (sum((v - mu) ** 2 for v in x) + 0.5 * sum((v - mu) ** 2 for v in PAIR_SCORES)) / 7.5
    se = math.sqrt(spread / 5)
    assert result.score == pytest.approx(mu)
    assert result.standard_error == pytest.approx(se)
    assert result.elo == pytest.approx(-400 * math.log10(1 / mu - 1))
    effective = 5 * mu * (1 - mu) / spread  # binomial games of the same variance
    low, high = wilson(mu * effective, effective)
    assert result.score_interval == pytest.approx((low, high))
    assert result.elo_interval == pytest.approx((score_to_elo(low), score_to_elo(high)))
    assert result.los == pytest.approx(0.5 * math.erfc(-(mu - 0.5) / se / math.sqrt(2)))
    assert result.draw_ratio == pytest.approx(3 / 10)
    table = paired_table(records, ["a", "b"])
    row = table.iloc[0]
    assert (row["pairs"], row["ptnml"], row["unpaired"]) == (5, "1 0 2 1 1", 1)


def pair_of(bot: str, round_: int, first: float, second: float) -> list[GameRecord]:
    """Round `round_` of `bot` against "o": its result in each seat (1 win, 0 draw, -1 loss)."""
    return [
        game_record(round_, (bot, "o"), (first, -first)),
        game_record(round_, ("o", bot), (-second, second)),
    ]


def test_a_paired_gain_compares_two_bots_round_by_round() -> None:
    records = [
        *pair_of("new", 0, 1, 1),  # 1.0 against the control's 0.5: +0.5
        *pair_of("old", 0, 1, -1),
        *pair_of("new", 1, 1, 0),  # 0.75 against 0.75: 0
        *pair_of("old", 1, 0, 1),
        *pair_of("new", 2, -1, -1),  # 0.0 against 0.5: -0.5
        *pair_of("old", 2, 0, 0),
        *pair_of("new", 3, 1, 1),  # the control's pair is incomplete: left out
        game_record(3, ("old", "o"), (1.0, -1.0)),
        *pair_of("new", 4, 1, 1),  # the control played round 4 of another game: left out
        *[replace(record, game="h") for record in pair_of("old", 4, 1, 1)],
    ]
    gain = paired_gain(records, game="g", bot="new", control="old", opponent="o", seed=3)
    assert (gain.rounds, gain.bot_score, gain.control_score) == (3, 1.75 / 3, 1.75 / 3)
    assert gain.gain == pytest.approx(0.0) and gain.low < 0.0 < gain.high
    assert gain.low >= -0.5 and gain.high <= 0.5  # a mean of differences in [-0.5, 0.5]
    same = paired_gain(records, game="g", bot="new", control="new", opponent="o")
    assert (same.gain, same.low, same.high) == (0.0, 0.0, 0.0)
    with pytest.raises(ValueError, match="share no round"):
        paired_gain(records, game="g", bot="new", control="old", opponent="nobody")


def test_pairs_are_seen_from_the_bot_first_in_the_order() -> None:
    records = [*pair(0, 1, 1), *pair(1, 1, 0)]
    result = pairs_of(records, ["b", "a"])["g", "b", "a"].pentanomial()
    assert result.counts == (1, 1, 0, 0, 0)


def test_paired_error_is_smaller_when_pairs_split_and_larger_when_they_agree() -> None:
    # Same 50% score and same games; pairs that split 1-1 (an opening decides each game) show
    # the bots close, pairs won 2-0 and lost 0-2 are about twice as noisy as games.
    split = Pentanomial((0, 0, 10, 0, 0))
    agree = Pentanomial((5, 0, 0, 0, 5))
    assert split.score == agree.score == 0.5 and split.los == agree.los == 0.5
    trinomial = math.sqrt(0.25 / 20)  # 10 wins, 10 losses, games independent
    assert split.standard_error < trinomial / 2
    assert agree.standard_error == pytest.approx(trinomial * math.sqrt(2), rel=0.1)


@pytest.mark.parametrize(
    "counts",
    [(0, 0, 25, 0, 0), (0, 0, 0, 0, 25), (25, 0, 0, 0, 0), (3, 0, 0, 0, 1), (0, 1, 0, 0, 0)],
)
def test_no_sample_is_read_as_certainty(counts: tuple[int, int, int, int, int]) -> None:
    # Issue 40, item 11: 25 drawn pairs were reported as "50.0 [50.0, 50.0]", Elo "-0 [-0, -0]",
    # and a score near 0 as an Elo interval from -inf.
    result = Pentanomial(counts)
    low, high = result.score_interval
    assert 0.0 <= low <= result.score <= high <= 1.0 and high - low > 0.05
    assert (low > 0.0) == (result.score > 0.0) and (high < 1.0) == (result.score < 1.0)
    elo_low, elo_high = result.elo_interval
    assert math.isfinite(elo_low) == (result.score > 0.0)
    assert math.isfinite(elo_high) == (result.score < 1.0)
    assert result.standard_error > 0.0
    assert math.copysign(1.0, Pentanomial((0, 0, 25, 0, 0)).elo) == 1.0  # 0, not -0


def test_elo_and_score_are_inverse() -> None:
    for elo in (-300.0, -20.0, 0.0, 35.5, 400.0):
        assert score_to_elo(elo_to_score(elo)) == pytest.approx(elo)
    assert score_to_elo(1.0) == math.inf and score_to_elo(0.0) == -math.inf
    assert math.isnan(Pentanomial((0, 0, 0, 0, 0)).elo)


# -- SPRT ---------------------------------------------------------------------------------------


def test_settings_are_checked() -> None:
    with pytest.raises(ValueError, match="elo1 must be more than elo0"):
        SPRTSettings(elo0=5, elo1=0)
    with pytest.raises(ValueError, match="alpha must be a number > 0"):
        SPRTSettings(alpha=0.0)
    bounds = SPRTSettings(alpha=0.05, beta=0.1)
    assert bounds.lower == pytest.approx(math.log(0.1 / 0.95))
    assert bounds.upper == pytest.approx(math.log(0.9 / 0.05))


def direct_llr(counts: list[int], elo0: float, elo1: float) -> float:
    """The LLR with each hypothesis's distribution found by a general constrained optimiser
    (maximise sum n_i log q_i over the simplex with mean score s), not by the multiplier."""
    from scipy.optimize import minimize

    n = np.where(np.asarray(counts) > 0, counts, 1e-3).astype(float)
    a = np.asarray([0.0, 0.25, 0.5, 0.75, 1.0])

    def fit(s: float) -> np.ndarray:
        found = minimize(
            lambda q: -(n * np.log(q)).sum(),
            np.full(5, 0.2),
            method="SLSQP",
            bounds=[(1e-12, 1.0)] * 5,
            constraints=[
                {"type": "eq", "fun": lambda q: q.sum() - 1.0},
                {"type": "eq", "fun": lambda q: (q * a).sum() - s},
            ],
            options={"ftol": 1e-14, "maxiter": 1000},
        )
        return np.asarray(found.x)

    q0, q1 = fit(elo_to_score(elo0)), fit(elo_to_score(elo1))
    return float((n * np.log(q1 / q0)).sum())


@pytest.mark.parametrize("counts", [[3, 10, 40, 20, 7], [0, 5, 30, 50, 15], [12, 0, 3, 0, 1]])
def test_llr_matches_a_general_constrained_fit(counts: list[int]) -> None:
    assert float(llr(counts, 0.0, 20.0)) == pytest.approx(direct_llr(counts, 0.0, 20.0), abs=1e-4)


def test_llr_has_the_sign_of_the_evidence() -> None:
    assert float(llr([0, 0, 0, 0, 0], 0, 10)) == 0.0
    assert float(llr([1, 10, 50, 30, 9], 0, 20)) > 0  # score 0.59
    assert float(llr([9, 30, 50, 10, 1], 0, 20)) < 0
    assert status([1, 10, 50, 30, 9], SPRTSettings(elo0=0, elo1=20)).pairs == 100


def simulate(elo: float, settings: SPRTSettings, runs: int, seed: int) -> dict[str | None, int]:
    """`runs` SPRTs on pairs of games between bots `elo` apart, each stopped when it decides
    (or after 20,000 pairs). A pair's two games share an opening that favours one seat by 0.15
    of a game, as the arena's pairs do."""
    rng = np.random.default_rng(seed)
    expected = elo_to_score(elo)
    draw = 0.3
    bias = 0.15
    counts = np.zeros((runs, 5))
    decided: list[str | None] = [None] * runs
    active = np.ones(runs, dtype=bool)
    for _ in range(20_000):
        if not active.any():
            break
        favoured = rng.random(runs) < 0.5
        points = np.zeros(runs)
        for seat_bias in (bias, -bias):
            win = expected - draw / 2 + np.where(favoured, seat_bias, -seat_bias)
            u = rng.random(runs)
            points += np.where(u < win, 1.0, np.where(u < win + draw, 0.5, 0.0))
        counts[np.flatnonzero(active), (2 * points[active]).astype(int)] += 1
        values = llr(counts[active], settings.elo0, settings.elo1)
        for index, value in zip(np.flatnonzero(active), values, strict=True):
            if value >= settings.upper:
                decided[index] = H1
            elif value <= settings.lower:
                decided[index] = H0
        active = np.asarray([decision is None for decision in decided])
    return {key: decided.count(key) for key in (H0, H1, None)}


def test_the_sprt_accepts_each_hypothesis_at_about_the_stated_error_rates() -> None:
    settings = SPRTSettings(elo0=0.0, elo1=40.0, alpha=0.05, beta=0.05)
    runs = 300
    null = simulate(0.0, settings, runs, seed=1)
    alternative = simulate(40.0, settings, runs, seed=2)
    middle = simulate(20.0, settings, runs, seed=3)
    assert null[None] == alternative[None] == middle[None] == 0
    # 5% of 300 is 15 (sd 3.8): a test that ignored the pairing's correlation or the bounds
    # would be far off either way.
    assert 3 <= null[H1] <= 27
    assert 3 <= alternative[H0] <= 27
    assert 0.3 * runs <= middle[H1] <= 0.7 * runs  # halfway: a coin toss


# -- Plackett-Luce ratings from finishing orders ----------------------------------------------


def test_a_finishing_order_shares_ranks_on_ties_and_averages_copies() -> None:
    assert finishing_order(table_record(0, ("x", "y", "z"), (0.5, 0.5, -1.0))) == (
        ["x", "y", "z"],
        [1, 1, 3],
    )
    # y holds two seats: its mean return (0.0) is behind x's 1.0.
    assert finishing_order(table_record(1, ("y", "x", "y"), (-1.0, 1.0, 1.0))) == (
        ["y", "x"],
        [2, 1],
    )


def test_plackett_luce_recovers_the_order_of_known_strengths() -> None:
    rng = np.random.default_rng(7)
    strengths = {"s5": 2.0, "s4": 1.0, "s3": 0.0, "s2": -1.0, "s1": -2.0}
    names = list(strengths)
    records = []
    for number in range(600):
        seats = tuple(str(name) for name in rng.choice(names, size=3, replace=False))
        # Plackett-Luce: the winner is drawn with odds exp(strength), then the second, ...
        left, finish = list(seats), []
        while left:
            weights = np.exp([strengths[name] for name in left])
            finish.append(left.pop(rng.choice(len(left), p=weights / weights.sum())))
        returns = tuple(float(len(seats) - finish.index(name)) for name in seats)
        records.append(table_record(number, seats, returns))
    shuffled = ["s3", "s1", "s5", "s2", "s4"]
    ratings = plackett_luce_table(records, shuffled)
    assert set(ratings["scope"]) == {"g"}
    assert list(ratings["bot"]) == shuffled and ratings["tables"].sum() == 600 * 3
    by_mu = list(ratings.sort_values("mu", ascending=False)["bot"])
    assert by_mu == names
    assert (ratings["ordinal"] == ratings["mu"] - 3 * ratings["sigma"]).all()
    assert (ratings["low"] < ratings["mu"]).all() and (ratings["mu"] < ratings["high"]).all()
    best, worst = ratings.set_index("bot").loc["s5"], ratings.set_index("bot").loc["s1"]
    assert best["low"] > worst["high"]
    # The ratings depend on the set of games, not the order the file holds them in.
    again = plackett_luce_table(list(reversed(records)), shuffled)
    pd.testing.assert_frame_equal(ratings, again)


def test_replay_stops_at_the_first_pair_that_crosses_a_bound() -> None:
    settings = SPRTSettings(elo0=0.0, elo1=50.0)
    strong = [2.0, 1.5, 1.0, 2.0] * 30
    result = replay(strong, settings)
    assert result.decision == H1 and result.llr >= settings.upper
    earlier = [float(v) for v in llr(np.cumsum(np.eye(5)[[4, 3, 2, 4] * 30], axis=0), 0, 50)]
    first = next(index for index, value in enumerate(earlier) if value >= settings.upper)
    assert result.pairs == first + 1 and result.llr == pytest.approx(earlier[first])
    assert replay(strong[:first], settings).decision is None  # one pair short
    assert replay([0.0, 0.5, 1.0] * 40, settings).decision == H0
    assert replay([], settings) == status([0, 0, 0, 0, 0], settings)


def test_the_paired_gain_script_reads_a_committed_tournament() -> None:
    run = subprocess.run(
        [
            sys.executable,
            "scripts/paired_gain.py",
            "--tournament=results/round_robin_confirm_clobber_swindle_second",
            "--control=swindle_work",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    # The run's paired.csv: swindle_search 89.0% and swindle_work 86.0% against rollouts.
    assert "| clobber | rollout | swindle_search | 50 | 89.0% | 86.0% | +3.0 [" in run.stdout
    assert run.stdout.count("| clobber |") == 4  # two bots against two opponents
