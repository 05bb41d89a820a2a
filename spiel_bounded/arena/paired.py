"""Paired (pentanomial) statistics of two-player pairings, as fishtest reports them.

The arena plays every seating of a table with the same seed, hence the same opening and the
same chance outcomes: the two seat-swapped games of one round are a *pair*. A pair scores 0,
0.5, 1, 1.5 or 2 points for a bot, and the five counts (`Ptnml(0-2)`) are the pentanomial
result. The pairs are independent; the games of a pair are not (a lopsided opening or dice tend
to give each side one win), so the variance of the mean score is estimated from the pairs:

    per-game score of a pair   x = points / 2        in {0, 1/4, 1/2, 3/4, 1}
    score                      mu = mean of x over the pairs
    variance of one pair       var = mean of (x - mu)^2, half a pair of each outcome added
    standard error             se = sqrt(var / pairs)

The half pairs (a Jeffreys prior on the five outcomes) keep identical pairs from reading as
certainty: 25 drawn pairs have no spread, yet nothing shows that the 26th will be drawn too.
The 95% interval of the score is Wilson's (`stats.wilson`) with the pairs' effective size,
`pairs * mu (1 - mu) / var` games of a binomial with the same variance (Kish's design effect;
`pairs` at a score of 0 or 1), so that it stays inside [0, 1] and never collapses to a point:
25 drawn pairs give [45.8, 54.2], where the normal interval gave [50.0, 50.0]; one pair won
2-0 and three lost 0-2, [4.6, 69.9] instead of [0.0, 67.4] (an Elo of -inf at its foot).
Elo is the logistic Elo of the score, `400 log10(mu / (1 - mu))`, and its interval maps the
score's. LOS, the likelihood of superiority, is `Phi((mu - 1/2) / se)`. The draw ratio counts
drawn games in the pairs. A game whose pair is incomplete (its partner is unplayed or raised)
is left out of these figures and counted as `unpaired`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from spiel_bounded.arena.records import GameRecord, pair_order
from spiel_bounded.stats import wilson

if TYPE_CHECKING:  # pandas is imported on first use: workers that only play games never pay it
    import pandas as pd

PAIR_SCORES: Final = (0.0, 0.25, 0.5, 0.75, 1.0)
"""Per-game score of a pair that made 0, 0.5, 1, 1.5 or 2 points."""
PRIOR_PAIRS: Final = 0.5
"""Pairs of each outcome added to the observed ones for the variance (module docstring)."""


def score_to_elo(score: float) -> float:
    """Logistic Elo difference of an expected score (+-inf at 1 and 0)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return 400.0 * math.log10(score / (1.0 - score))  # 0.0 at 0.5, not -0.0


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
    def pair_variance(self) -> float:
        """The variance of one pair's per-game score about `score`, half a pair of each
        outcome added (module docstring)."""
        if not self.pairs:
            return math.nan
        mu = self.score
        counts = [n + PRIOR_PAIRS for n in self.counts]
        spread = sum(n * (x - mu) ** 2 for n, x in zip(counts, PAIR_SCORES, strict=True))
        return spread / sum(counts)

    @property
    def standard_error(self) -> float:
        """Standard error of `score`: `sqrt(pair_variance / pairs)`."""
        return math.sqrt(self.pair_variance / self.pairs) if self.pairs else math.nan

    @property
    def score_interval(self) -> tuple[float, float]:
        """95% Wilson interval of `score` with the pairs' effective size (module docstring)."""
        if not self.pairs:
            return math.nan, math.nan
        mu = self.score
        effective = (
            self.pairs if mu in (0.0, 1.0) else self.pairs * mu * (1.0 - mu) / self.pair_variance
        )
        return wilson(mu * effective, effective)

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
        return 0.5 * math.erfc(-(self.score - 0.5) / self.standard_error / math.sqrt(2.0))

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


PairingKey = tuple[str, str, str]
"""(game, bot, opponent): bot before opponent in the tournament's label order
(`records.pair_order`)."""


@dataclass(frozen=True)
class PairResult:
    """What `bot` made in the two seat-swapped games of one round."""

    points: float
    draws: int


def pair_result(games: Sequence[GameRecord], bot: str) -> PairResult | None:
    """`bot`'s points in a round's games; None unless they are a complete pair: two finished
    games without error, `bot` once in each seat."""
    if len(games) != 2 or not all(game.ok for game in games):
        return None
    if sorted(game.seats.index(bot) for game in games if bot in game.seats) != [0, 1]:
        return None
    points, draws = 0.0, 0
    for game in games:
        mine = game.returns[game.seats.index(bot)]
        theirs = game.returns[1 - game.seats.index(bot)]
        points += 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
        draws += mine == theirs
    return PairResult(points, draws)


@dataclass(frozen=True)
class Pairs:
    """The complete pairs of one pairing, in round order.

    Attributes:
        points: The points `bot` made in each pair (0, 0.5, 1, 1.5 or 2).
        draws: The drawn games in each pair.
        unpaired: Games without error whose partner is unplayed or raised.
    """

    points: tuple[float, ...]
    draws: tuple[int, ...]
    unpaired: int

    def pentanomial(self) -> Pentanomial:
        counts = [0] * len(PAIR_SCORES)
        for points in self.points:
            counts[round(2 * points)] += 1
        return Pentanomial(tuple(counts), sum(self.draws))  # type: ignore[arg-type]


def pairs_of(records: Sequence[GameRecord], order: Sequence[str]) -> dict[PairingKey, Pairs]:
    """(game, bot, opponent) -> the pairs of `bot` against `opponent`, for every pairing of two
    distinct bots in a two-player game."""
    rounds: dict[PairingKey, dict[int, list[GameRecord]]] = {}
    for record in records:
        if len(record.seats) != 2 or record.seats[0] == record.seats[1]:
            continue
        bot, opponent = pair_order(record.seats, order)
        key = (record.game, bot, opponent)
        rounds.setdefault(key, {}).setdefault(record.round, []).append(record)
    found = {}
    for key, games_by_round in rounds.items():
        points, draws = [], []
        unpaired = 0
        for _, games in sorted(games_by_round.items()):
            result = pair_result(games, key[1])
            if result is None:
                unpaired += sum(game.ok for game in games)
                continue
            points.append(result.points)
            draws.append(result.draws)
        found[key] = Pairs(tuple(points), tuple(draws), unpaired)
    return found


def paired_table(records: Sequence[GameRecord], order: Sequence[str]) -> pd.DataFrame:
    """One row per two-player pairing and game: `PAIRED_COLUMNS` (ptnml: the five counts
    joined by spaces, fishtest's `Ptnml(0-2)`)."""
    import pandas as pd

    rows = []
    for (game, bot, opponent), pairs in pairs_of(records, order).items():
        result, unpaired = pairs.pentanomial(), pairs.unpaired
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


GAIN_RESAMPLES: Final = 2000
"""Bootstrap resamples of the rounds behind a `PairedGain` interval."""


@dataclass(frozen=True)
class PairedGain:
    """How much more `bot` scored than `control` against the same `opponent` on the same
    rounds (the same openings, seeds and chance outcomes).

    Attributes:
        rounds: Rounds where both played a complete pair against `opponent`.
        bot_score, control_score: Their per-game scores on those rounds.
        gain: `bot_score - control_score`, in score (0.05 is five points in a hundred games).
        low, high: Its 95% interval from resampling the rounds.
    """

    game: str
    bot: str
    control: str
    opponent: str
    rounds: int
    bot_score: float
    control_score: float
    gain: float
    low: float
    high: float


def paired_gain(
    records: Sequence[GameRecord],
    *,
    game: str,
    bot: str,
    control: str,
    opponent: str,
    seed: int = 0,
) -> PairedGain:
    """`bot`'s score against `opponent` minus `control`'s, paired by round: a tournament that
    seats both against the same opponent plays each round's opening and seed for both, so the
    difference per round leaves the openings' spread out.

    Raises:
        ValueError: No round where both played a complete pair against `opponent`.
    """
    import numpy as np

    def per_round(label: str) -> dict[int, float]:
        by_round: dict[int, list[GameRecord]] = {}
        for record in records:
            if record.game == game and sorted(record.seats) == sorted((label, opponent)):
                by_round.setdefault(record.round, []).append(record)
        scores = {}
        for number, games in by_round.items():
            result = pair_result(games, label)
            if result is not None:
                scores[number] = result.points / 2
        return scores

    mine, theirs = per_round(bot), per_round(control)
    shared = sorted(mine.keys() & theirs.keys())
    if not shared:
        raise ValueError(
            f"{bot!r} and {control!r} share no round with a complete pair against "
            f"{opponent!r} in {game!r}"
        )
    a = np.array([mine[number] for number in shared])
    b = np.array([theirs[number] for number in shared])
    picks = np.random.default_rng(seed).integers(len(a), size=(GAIN_RESAMPLES, len(a)))
    low, high = np.quantile((a[picks] - b[picks]).mean(axis=1), [0.025, 0.975])
    return PairedGain(
        game,
        bot,
        control,
        opponent,
        len(shared),
        float(a.mean()),
        float(b.mean()),
        float(a.mean() - b.mean()),
        float(low),
        float(high),
    )
