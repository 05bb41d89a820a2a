"""Paired (pentanomial) statistics of two-player pairings, as fishtest reports them.

The arena plays every seating of a table with the same seed, hence the same opening and the
same chance outcomes: the two seat-swapped games of one round are a *pair*. A pair scores 0,
0.5, 1, 1.5 or 2 points for a bot, and the five counts (`Ptnml(0-2)`) are the pentanomial
result. The pairs are independent; the games of a pair are not (a lopsided opening or dice tend
to give each side one win), so the variance of the mean score is estimated from the pairs:

    per-game score of a pair   x = points / 2        in {0, 1/4, 1/2, 3/4, 1}
    score                      mu = mean of x over the pairs
    variance of one pair       var = mean of (x - mu)^2
    standard error             se = sqrt(var / pairs)

Elo is the logistic Elo of the score, `-400 log10(1 / mu - 1)`; its 95% interval maps
`mu -/+ 1.96 se` the same way (infinite where that leaves (0, 1)). LOS, the likelihood of
superiority, is `Phi((mu - 1/2) / se)`. The draw ratio counts drawn games in the pairs. A game
whose pair is incomplete (its partner is unplayed or raised) is left out of these figures and
counted as `unpaired`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import pandas as pd

from spiel_bounded.arena.ratings import pairwise_outcomes
from spiel_bounded.arena.records import GameRecord
from spiel_bounded.arena.stats import Z95

PAIR_SCORES: Final = (0.0, 0.25, 0.5, 0.75, 1.0)
"""Per-game score of a pair that made 0, 0.5, 1, 1.5 or 2 points."""


def score_to_elo(score: float) -> float:
    """Logistic Elo difference of an expected score (+-inf at 1 and 0)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def elo_to_score(elo: float) -> float:
    """Expected score of a logistic Elo difference."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


@dataclass(frozen=True)
class Pentanomial:
    """A bot's pairs against one opponent: how many scored 0, 0.5, 1, 1.5 and 2 points.

    Attributes:
        counts: Pairs per outcome, in `PAIR_SCORES` order.
        draws: Drawn games in those pairs.
    """

    counts: tuple[int, int, int, int, int]
    draws: int = 0

    @property
    def pairs(self) -> int:
        return sum(self.counts)

    @property
    def score(self) -> float:
        """Mean per-game score (NaN without pairs)."""
        if not self.pairs:
            return math.nan
        return sum(n * x for n, x in zip(self.counts, PAIR_SCORES, strict=True)) / self.pairs

    @property
    def standard_error(self) -> float:
        """Standard error of `score` from the variance of the pairs."""
        if not self.pairs:
            return math.nan
        mu = self.score
        variance = (
            sum(n * (x - mu) ** 2 for n, x in zip(self.counts, PAIR_SCORES, strict=True))
            / self.pairs
        )
        return math.sqrt(variance / self.pairs)

    @property
    def score_interval(self) -> tuple[float, float]:
        """95% normal interval of `score`, clipped to [0, 1]."""
        half = Z95 * self.standard_error
        return max(0.0, self.score - half), min(1.0, self.score + half)

    @property
    def elo(self) -> float:
        return score_to_elo(self.score) if self.pairs else math.nan

    @property
    def elo_interval(self) -> tuple[float, float]:
        if not self.pairs:
            return math.nan, math.nan
        low, high = self.score_interval
        return score_to_elo(low), score_to_elo(high)

    @property
    def los(self) -> float:
        """Likelihood of superiority: the probability that the bot is the stronger one."""
        if not self.pairs:
            return math.nan
        se = self.standard_error
        if se == 0.0:
            return 0.5 if self.score == 0.5 else float(self.score > 0.5)
        return 0.5 * math.erfc(-(self.score - 0.5) / se / math.sqrt(2.0))

    @property
    def draw_ratio(self) -> float:
        return self.draws / (2 * self.pairs) if self.pairs else math.nan


PAIRED_COLUMNS: Final = (
    "game",
    "bot",
    "opponent",
    "pairs",
    "ptnml",
    "unpaired",
    "paired_score",
    "paired_low",
    "paired_high",
    "elo",
    "elo_low",
    "elo_high",
    "los",
    "draw_ratio",
)


@dataclass(frozen=True)
class Pairs:
    """The finished pairs of one pairing, in round order.

    Attributes:
        rounds: The round of each pair.
        points: The points `bot` made in each pair (0, 0.5, 1, 1.5 or 2).
        draws: The drawn games in each pair.
        unpaired: Finished games whose partner is unplayed or raised.
    """

    rounds: tuple[int, ...]
    points: tuple[float, ...]
    draws: tuple[int, ...]
    unpaired: int

    def pentanomial(self, count: int | None = None) -> Pentanomial:
        """The pentanomial of the first `count` pairs (None: all)."""
        counts = [0] * len(PAIR_SCORES)
        for points in self.points[:count]:
            counts[round(2 * points)] += 1
        return Pentanomial(tuple(counts), sum(self.draws[:count]))  # type: ignore[arg-type]


def pairs_of(
    records: Sequence[GameRecord], order: Sequence[str]
) -> dict[tuple[str, str, str], Pairs]:
    """(game, bot, opponent) -> the pairs of `bot` against `opponent`, for every pairing of two
    distinct bots in a two-player game (bot before opponent in `order`)."""
    two_player = [record for record in records if len(record.seats) == 2]
    outcomes = pairwise_outcomes(two_player, order)
    found: dict[tuple[str, str, str], Pairs] = {}
    if outcomes.empty:
        return found
    for (game, bot, opponent), games in outcomes.groupby(["game", "bot", "opponent"], sort=False):
        rounds, points, draws = [], [], []
        unpaired = 0
        for number, pair in sorted(games.groupby("round", sort=False), key=lambda item: item[0]):
            if len(pair) != 2 or set(pair["seat"]) != {0, 1}:
                unpaired += len(pair)
                continue
            rounds.append(number)
            points.append(float(pair["score"].sum()))
            draws.append(int((pair["score"] == 0.5).sum()))
        found[game, bot, opponent] = Pairs(tuple(rounds), tuple(points), tuple(draws), unpaired)
    return found


def pentanomials(
    records: Sequence[GameRecord], order: Sequence[str]
) -> dict[tuple[str, str, str], tuple[Pentanomial, int]]:
    """(game, bot, opponent) -> the pentanomial of `bot` and the games left unpaired (see
    `pairs_of`)."""
    return {
        key: (pairs.pentanomial(), pairs.unpaired)
        for key, pairs in pairs_of(records, order).items()
    }


def paired_table(records: Sequence[GameRecord], order: Sequence[str]) -> pd.DataFrame:
    """One row per two-player pairing and game: `PAIRED_COLUMNS` (ptnml: the five counts
    joined by spaces, fishtest's `Ptnml(0-2)`)."""
    rows = []
    for (game, bot, opponent), (result, unpaired) in pentanomials(records, order).items():
        low, high = result.score_interval
        elo_low, elo_high = result.elo_interval
        rows.append(
            (
                game,
                bot,
                opponent,
                result.pairs,
                " ".join(map(str, result.counts)),
                unpaired,
                result.score,
                low,
                high,
                result.elo,
                elo_low,
                elo_high,
                result.los,
                result.draw_ratio,
            )
        )
    return pd.DataFrame(rows, columns=list(PAIRED_COLUMNS))
