"""Plackett-Luce ratings by maximum likelihood over all finishing orders at once.

The Weng-Lin ratings (`plackett_luce`) update after each game, so they depend on the order the
games are taken in; here the model is fitted to every finishing order together, so the result
is a function of the set of games only. Each bot i has a strength theta_i; under
Plackett-Luce a table's finishing order is drawn place by place, the next place going to a bot
still unplaced with probability proportional to exp(theta). Equivalently (the exponential
race), each bot finishes at an independent time of rate exp(theta_i), so the probability that
bot i finishes ahead of bot j is exp(theta_i) / (exp(theta_i) + exp(theta_j)) whoever else sits
at the table: on the Elo scale (theta * 400 / ln 10, what is reported) a difference of D means
finishing ahead 1 / (1 + 10^(-D / 400)) of the time, as pairwise Elo.

Equal returns tie. A tie is read as an order that was not observed (in chinese_checkers the
game ends when one player finishes; the others' order is never decided): a finishing order with
tied groups G1 > G2 > ... has the probability that the first |G1| places go to G1 in any order,
the next |G2| to G2, and so on; the last group adds nothing. A draw between two bots therefore
says nothing about them (the pairwise Elo counts it half a win each). The probability that a
group takes the next places in some order is a sum over its orders, computed over its subsets
(`_group_log_probability`).

The fit maximises the log-likelihood plus a weak normal prior (standard deviation
`PRIOR_ELO`, on the Elo scale) on every strength, which keeps a bot that never lost finite and
changes the others by a fraction of a point; strengths are then shifted so the anchor bot is at
0 (or their mean is). The 95% intervals are percentile bootstrap intervals: the games of each
table (each set of bots seated together) are resampled with replacement, keeping the table's
number of games, and the model refitted. `difference` gives the interval of one bot's strength
minus another's from the same resamples, which is what says one bot is ahead of another.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Final

import numpy as np
import pandas as pd
from scipy.optimize import minimize
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

from spiel_bounded.arena.plackett_luce import finishing_order
from spiel_bounded.arena.ratings import ALL_GAMES
from spiel_bounded.arena.records import GameRecord

ELO_PER_NAT: Final = 400.0 / math.log(10.0)
"""Elo points per unit of theta (a natural-log odds)."""
PRIOR_ELO: Final = 1000.0
"""Standard deviation of the normal prior on every strength, in Elo."""
PLACKETT_LUCE_FIT_COLUMNS: Final = ("scope", "bot", "elo", "low", "high", "tables", "bounded")
PLACKETT_LUCE_LEAD_COLUMNS: Final = ("scope", "bot", "opponent", "lead", "low", "high")

Ranking = tuple[tuple[int, ...], ...]
"""A finishing order as groups of bot indices, the first place's group first."""


def ranking_of(record: GameRecord, index: dict[str, int]) -> Ranking:
    """The finishing order of a finished table as groups of tied bots (best first)."""
    bots, ranks = finishing_order(record)
    return tuple(
        tuple(sorted(index[bot] for bot, rank in zip(bots, ranks, strict=True) if rank == place))
        for place in sorted(set(ranks))
    )


def _group_log_probability(
    weights: np.ndarray, group: tuple[int, ...], rest: float
) -> tuple[float, np.ndarray]:
    """Log of the probability that `group` takes the next len(group) places in some order,
    the other unplaced bots weighing `rest` together, and its gradient with respect to the
    log-weights of the group's bots and (last entry) of `rest` as a whole.

    Over the subsets S of the group: p(S), the probability that the first |S| places go to S,
    is the sum over i in S of p(S - i) w_i / (rest + w(group - (S - i))); p(group) is the
    answer. Every term is positive (no cancellation); 2^|group| |group| terms.
    """
    size = len(group)
    members = weights[list(group)]
    total = float(members.sum()) + rest
    probability = np.zeros(1 << size)
    # derivative of p(S) with respect to log w of each member, and of log rest (last column)
    gradient = np.zeros((1 << size, size + 1))
    probability[0] = 1.0
    placed_weight = np.zeros(1 << size)
    for subset in range(1, 1 << size):
        low_bit = subset & -subset
        low = low_bit.bit_length() - 1
        placed_weight[subset] = placed_weight[subset ^ low_bit] + members[low]
    for subset in range(1, 1 << size):
        for member in range(size):
            bit = 1 << member
            if not subset & bit:
                continue
            before = subset ^ bit
            remaining = total - placed_weight[before]
            step = members[member] / remaining
            probability[subset] += probability[before] * step
            # d step / d log w_k = [k == member] step - step w_k / remaining for unplaced k
            step_gradient = np.zeros(size + 1)
            for other in range(size):
                if not before & (1 << other):
                    step_gradient[other] -= step * members[other] / remaining
            step_gradient[member] += step
            step_gradient[size] = -step * rest / remaining
            gradient[subset] += gradient[before] * step + probability[before] * step_gradient
    full = (1 << size) - 1
    return math.log(probability[full]), gradient[full] / probability[full]


@dataclass(frozen=True)
class RankingTerms:
    """The factors of the likelihood of a list of finishing orders, prepared once for a fit and
    its resamples (which change only how many games finished each way).

    Attributes:
        chosen: For each place taken by one bot (most places), that bot.
        pools: For each such place, 1 for every bot still unplaced then (`chosen` included).
        place_ranking: The ranking each such place belongs to.
        tied: (ranking, group, later bots) for each group of two or more tied bots taking
            places together, except a ranking's last group (which adds nothing).
    """

    chosen: np.ndarray
    pools: np.ndarray
    place_ranking: np.ndarray
    tied: tuple[tuple[int, tuple[int, ...], tuple[int, ...]], ...]

    @classmethod
    def of(cls, rankings: Sequence[Ranking], size: int) -> RankingTerms:
        """The terms of `rankings` over `size` bots."""
        chosen, pools, place_ranking, tied = [], [], [], []
        for number, ranking in enumerate(rankings):
            for position, group in enumerate(ranking[:-1]):
                later = tuple(bot for after in ranking[position + 1 :] for bot in after)
                if len(group) > 1:
                    tied.append((number, group, later))
                    continue
                pool = np.zeros(size)
                pool[[*group, *later]] = 1.0
                chosen.append(group[0])
                pools.append(pool)
                place_ranking.append(number)
        return cls(
            chosen=np.array(chosen, dtype=np.intp),
            pools=np.array(pools, dtype=float).reshape(-1, size),
            place_ranking=np.array(place_ranking, dtype=np.intp),
            tied=tuple(tied),
        )

    def log_likelihood(self, theta: np.ndarray, counts: np.ndarray) -> tuple[float, np.ndarray]:
        """The log-likelihood of `counts[k]` games finishing as ranking k under strengths
        `theta`, and its gradient."""
        log_weights = theta - theta.max()
        weights = np.exp(log_weights)
        games = counts[self.place_ranking]
        totals = self.pools @ weights
        value = float(games @ (log_weights[self.chosen] - np.log(totals)))
        gradient = np.bincount(self.chosen, weights=games, minlength=len(theta))
        gradient -= ((games / totals) @ self.pools) * weights
        for number, group, later in self.tied:
            count = counts[number]
            if count == 0:
                continue
            rest = float(weights[list(later)].sum())
            log_p, group_gradient = _group_log_probability(weights, group, rest)
            value += count * log_p
            gradient[list(group)] += count * group_gradient[:-1]
            gradient[list(later)] += count * group_gradient[-1] * weights[list(later)] / rest
        return value, gradient


def maximum_likelihood(
    terms: RankingTerms, counts: np.ndarray, size: int, start: np.ndarray | None = None
) -> np.ndarray:
    """Strengths (natural-log scale, mean about 0) of `size` bots maximising the
    log-likelihood plus the normal prior of `PRIOR_ELO`."""
    precision = (ELO_PER_NAT / PRIOR_ELO) ** 2

    def objective(theta: np.ndarray) -> tuple[float, np.ndarray]:
        value, gradient = terms.log_likelihood(theta, counts)
        value -= 0.5 * precision * float(theta @ theta)
        return -value, -(gradient - precision * theta)

    initial = np.zeros(size) if start is None else start
    result = minimize(objective, initial, jac=True, method="BFGS", options={"gtol": 1e-8})
    return np.asarray(result.x, dtype=float)


@dataclass(frozen=True)
class PlackettLuceFit:
    """A maximum-likelihood Plackett-Luce fit and its bootstrap.

    Attributes:
        bots: The rated bots, in display order.
        elo: Each bot's strength on the Elo scale, the anchor (or the mean) at 0.
        samples: The strengths refitted on each bootstrap resample (resamples x bots), shifted
            the same way; empty without a bootstrap.
        tables: The finished tables each bot sat at.
        bounded: Whether the games alone bound the bot's strength against the others': it is
            in the largest group of bots each of which finished ahead of, and behind, the rest
            of the group, directly or through others (Hunter's condition for a finite maximum,
            Ann. Statist. 32, 2004). A bot that never finished ahead of anyone has no finite
            strength by the games; the prior holds it, and its figures say little.
    """

    bots: tuple[str, ...]
    elo: np.ndarray
    samples: np.ndarray
    tables: tuple[int, ...]
    bounded: tuple[bool, ...]

    def interval(self, bot: str) -> tuple[float, float]:
        """The 95% percentile interval of `bot`'s strength (NaN without a bootstrap)."""
        return self._interval(self.samples[:, self.bots.index(bot)])

    def difference(self, bot: str, other: str) -> tuple[float, float, float]:
        """`bot`'s strength minus `other`'s, and its 95% interval from the same resamples."""
        first, second = self.bots.index(bot), self.bots.index(other)
        low, high = self._interval(self.samples[:, first] - self.samples[:, second])
        return float(self.elo[first] - self.elo[second]), low, high

    def _interval(self, values: np.ndarray) -> tuple[float, float]:
        if len(values) == 0:
            return math.nan, math.nan
        low, high = np.percentile(values, [2.5, 97.5])
        return float(low), float(high)


def fit_plackett_luce(
    records: Sequence[GameRecord],
    labels: Sequence[str],
    *,
    anchor: str | None,
    bootstrap: int,
    rng: np.random.Generator,
) -> PlackettLuceFit:
    """Fits the model to the finished tables of `records` with at least two distinct bots.

    Args:
        records: Game records (any order; errors are left out).
        labels: Bots in display order (bots not in it follow, alphabetically).
        anchor: The bot rated 0 (None, or a bot without games: the mean is 0).
        bootstrap: Resamples for the intervals (0: none).
        rng: Source of the resampling.
    """
    finished = [record for record in records if record.ok and len(set(record.seats)) >= 2]
    played = {bot for record in finished for bot in record.seats}
    bots = [label for label in labels if label in played] + sorted(played - set(labels))
    index = {bot: position for position, bot in enumerate(bots)}
    per_table: dict[tuple[int, ...], Counter[Ranking]] = {}
    for record in sorted(finished, key=lambda record: record.game_id):
        ranking = ranking_of(record, index)
        table = tuple(sorted(bot for group in ranking for bot in group))
        per_table.setdefault(table, Counter())[ranking] += 1
    rankings = [ranking for counter in per_table.values() for ranking in counter]
    counts = np.array(
        [count for counter in per_table.values() for count in counter.values()], dtype=float
    )
    tables = [0] * len(bots)
    for table, counter in per_table.items():
        for bot in table:
            tables[bot] += sum(counter.values())
    if not bots:
        return PlackettLuceFit((), np.zeros(0), np.zeros((0, 0)), (), ())
    anchor_index = index.get(anchor) if anchor is not None else None

    def shifted(theta: np.ndarray) -> np.ndarray:
        elo = theta * ELO_PER_NAT
        return elo - (elo[anchor_index] if anchor_index is not None else elo.mean())

    terms = RankingTerms.of(rankings, len(bots))
    theta = maximum_likelihood(terms, counts, len(bots))
    samples = np.zeros((bootstrap, len(bots)))
    # Each table's games resampled with replacement: its rankings' counts drawn from a
    # multinomial with the observed proportions.
    spans = []
    start = 0
    for counter in per_table.values():
        spans.append((start, start + len(counter)))
        start += len(counter)
    for sample in range(bootstrap):
        resampled = np.zeros_like(counts)
        for begin, end in spans:
            total = int(counts[begin:end].sum())
            resampled[begin:end] = rng.multinomial(total, counts[begin:end] / total)
        samples[sample] = shifted(maximum_likelihood(terms, resampled, len(bots), theta))
    return PlackettLuceFit(
        tuple(bots), shifted(theta), samples, tuple(tables), bounded_bots(rankings, len(bots))
    )


def bounded_bots(rankings: Sequence[Ranking], size: int) -> tuple[bool, ...]:
    """For each of `size` bots, whether it is in the largest strongly connected component of
    the graph with an edge from every bot to each bot it finished ahead of (ties add none)."""
    ahead = np.zeros((size, size))
    for ranking in rankings:
        for position, group in enumerate(ranking):
            for after in ranking[position + 1 :]:
                ahead[np.ix_(group, after)] = 1.0
    _, component = connected_components(csr_matrix(ahead), directed=True, connection="strong")
    largest = np.bincount(component).argmax()
    return tuple(bool(label == largest) for label in component)


@dataclass(frozen=True)
class PlackettLuceTables:
    """The fit's tables for a report.

    Attributes:
        ratings: `PLACKETT_LUCE_FIT_COLUMNS`: each bot's strength and interval, per scope.
        leads: `PLACKETT_LUCE_LEAD_COLUMNS`: for each pair of bots of a scope (`bot` before
            `opponent` in display order), `bot`'s strength minus `opponent`'s and its interval
            from the same resamples (what says one is ahead of the other).
    """

    ratings: pd.DataFrame
    leads: pd.DataFrame

    @classmethod
    def empty(cls) -> PlackettLuceTables:
        """No scope to fit (no table seated three or more bots)."""
        return cls(
            ratings=pd.DataFrame(columns=list(PLACKETT_LUCE_FIT_COLUMNS)),
            leads=pd.DataFrame(columns=list(PLACKETT_LUCE_LEAD_COLUMNS)),
        )


def plackett_luce_fit_tables(
    records: Sequence[GameRecord],
    order: Sequence[str],
    *,
    anchor: str | None,
    bootstrap: int,
    seed: int,
) -> PlackettLuceTables:
    """The fit per game whose tables seat three or more distinct bots (for two the pairwise Elo
    says it) and over all such games when there are several."""
    games = sorted({record.game for record in records if record.ok and len(set(record.seats)) >= 3})
    scopes = [(game, [record for record in records if record.game == game]) for game in games]
    if len(games) > 1:
        scopes.append((ALL_GAMES, [record for record in records if record.game in games]))
    ratings, leads = [], []
    for scope_index, (scope, chosen) in enumerate(scopes):
        rng = np.random.default_rng([seed, scope_index])
        fit = fit_plackett_luce(chosen, order, anchor=anchor, bootstrap=bootstrap, rng=rng)
        for position, bot in enumerate(fit.bots):
            low, high = fit.interval(bot)
            ratings.append(
                (
                    scope,
                    bot,
                    float(fit.elo[position]),
                    low,
                    high,
                    fit.tables[position],
                    fit.bounded[position],
                )
            )
        for bot, opponent in combinations(fit.bots, 2):
            leads.append((scope, bot, opponent, *fit.difference(bot, opponent)))
    return PlackettLuceTables(
        ratings=pd.DataFrame(ratings, columns=list(PLACKETT_LUCE_FIT_COLUMNS)),
        leads=pd.DataFrame(leads, columns=list(PLACKETT_LUCE_LEAD_COLUMNS)),
    )
