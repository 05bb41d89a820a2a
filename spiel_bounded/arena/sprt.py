"""The sequential probability ratio test of an A/B pairing over game pairs, as fishtest runs it.

H0: the logistic Elo difference is `elo0`; H1: it is `elo1`. After every finished pair the
log-likelihood ratio of the pentanomial results is compared with Wald's bounds
`log(beta / (1 - alpha))` (accept H0 at or below) and `log((1 - beta) / alpha)` (accept H1 at
or above); in between, play on.

The likelihood is that of the generalised SPRT (Van den Bergh's, which fishtest uses): under
each hypothesis the pair distribution is the maximum-likelihood pentanomial with the expected
per-game score `s = 1 / (1 + 10^(-elo / 400))`, fitted to the observed one. With the observed
frequencies `p_i` of per-game scores `a_i` (`paired.PAIR_SCORES`), that distribution is
`q_i = p_i / (1 + lambda (a_i - s))`, with `lambda` the root of
`sum_i p_i (a_i - s) / (1 + lambda (a_i - s)) = 0` (a Lagrange multiplier; the sum falls
strictly in `lambda`, so bisection finds it). Then `LLR = sum_i n_i log(q1_i / q0_i)`. As in
fishtest, an outcome never seen counts as 1e-3 pairs, so that both hypotheses keep it possible.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np

from spiel_bounded.arena.paired import PAIR_SCORES, elo_to_score
from spiel_bounded.params import Number, check_fields, setting

UNSEEN: Final = 1e-3
"""Pairs counted for an outcome never observed (fishtest's regularisation)."""
_BISECTIONS: Final = 60
PROBABILITY: Final = Number(minimum=0.0, maximum=0.5, strict=True)
ELO: Final = Number(minimum=-1000.0, maximum=1000.0)
"""Elo differences a test can take: beyond 1,000 the expected score rounds to 0 or 1."""

H0: Final = "H0"
H1: Final = "H1"


@dataclass(frozen=True, kw_only=True)
class SPRTSettings:
    """The test of one pairing: `[tournament] sprt = { elo0, elo1, alpha, beta }`."""

    elo0: float = setting(0.0, "logistic Elo difference under H0", ELO)
    elo1: float = setting(5.0, "logistic Elo difference under H1 (more than elo0)", ELO)
    alpha: float = setting(0.05, "probability of accepting H1 when H0 holds", PROBABILITY)
    beta: float = setting(0.05, "probability of accepting H0 when H1 holds", PROBABILITY)

    def __post_init__(self) -> None:
        check_fields(self)
        if not self.elo1 > self.elo0:
            raise ValueError(f"elo1 must be more than elo0; got elo0 {self.elo0}, elo1 {self.elo1}")

    @property
    def lower(self) -> float:
        """LLR at or below which H0 is accepted."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        """LLR at or above which H1 is accepted."""
        return math.log((1.0 - self.beta) / self.alpha)


@dataclass(frozen=True)
class SPRTStatus:
    """Where a test stands.

    Attributes:
        llr: The log-likelihood ratio of H1 against H0.
        lower: Accept H0 at or below this.
        upper: Accept H1 at or above this.
        pairs: Pairs counted.
        decision: "H0", "H1", or None while undecided.
    """

    llr: float
    lower: float
    upper: float
    pairs: int
    decision: str | None


def _constrained(p: np.ndarray, scores: np.ndarray, s: np.ndarray) -> np.ndarray:
    """The maximum-likelihood distributions over `scores` with mean `s`, fitted to the
    frequencies `p` (`[..., 5]`; `s` `[...]`, strictly inside the scores' range)."""
    d = scores - s[..., None]
    # 1 + lambda d > 0 for every outcome: lambda in (-1 / max d, -1 / min d).
    low = -1.0 / d.max(axis=-1)
    high = -1.0 / d.min(axis=-1)
    for _ in range(_BISECTIONS):
        middle = 0.5 * (low + high)
        slope = (p * d / (1.0 + middle[..., None] * d)).sum(axis=-1)
        low = np.where(slope > 0.0, middle, low)
        high = np.where(slope > 0.0, high, middle)
    lam = 0.5 * (low + high)
    q: np.ndarray = p / (1.0 + lam[..., None] * d)
    return q / q.sum(axis=-1, keepdims=True)


def llr(counts: np.ndarray | list[int], elo0: float, elo1: float) -> np.ndarray:
    """The generalised SPRT's log-likelihood ratio of H1 (`elo1`) against H0 (`elo0`) for
    pentanomial counts `[..., 5]` (any leading shape: many tests at once). No pairs: 0."""
    n = np.asarray(counts, dtype=float)
    pairs = n.sum(axis=-1)
    regularised = np.where(n > 0, n, UNSEEN)
    p = regularised / regularised.sum(axis=-1, keepdims=True)
    scores = np.asarray(PAIR_SCORES)
    shape = p.shape[:-1]
    q0 = _constrained(p, scores, np.full(shape, elo_to_score(elo0)))
    q1 = _constrained(p, scores, np.full(shape, elo_to_score(elo1)))
    ratio: np.ndarray = (regularised * np.log(q1 / q0)).sum(axis=-1)
    return np.where(pairs > 0, ratio, 0.0)


def _status(value: float, pairs: int, settings: SPRTSettings) -> SPRTStatus:
    """The status of an LLR `value` after `pairs` pairs: decided when it reaches a bound."""
    decision = H1 if value >= settings.upper else H0 if value <= settings.lower else None
    return SPRTStatus(value, settings.lower, settings.upper, pairs, decision)


def status(counts: tuple[int, ...] | list[int], settings: SPRTSettings) -> SPRTStatus:
    """The test's state after the pairs `counts` (`paired.Pentanomial.counts`)."""
    value = float(llr(np.asarray(counts), settings.elo0, settings.elo1))
    return _status(value, int(sum(counts)), settings)


def replay(points: Sequence[float], settings: SPRTSettings) -> SPRTStatus:
    """The test run over a pairing's pairs in order (`paired.Pairs.points`): the status at the
    first pair whose LLR reaches a bound (its `pairs` counts the pairs up to it), or after the
    last pair while undecided. The runner stops a pairing where this decides, and the report
    replays it, so both name the same pair."""
    if not points:
        return _status(0.0, 0, settings)
    outcomes = np.rint(2 * np.asarray(points, dtype=float)).astype(int)
    cumulative = np.cumsum(np.eye(len(PAIR_SCORES))[outcomes], axis=0)
    values = llr(cumulative, settings.elo0, settings.elo1)
    crossed = np.flatnonzero((values >= settings.upper) | (values <= settings.lower))
    last = int(crossed[0]) if crossed.size else len(outcomes) - 1
    return _status(float(values[last]), last + 1, settings)
