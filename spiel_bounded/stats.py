"""Confidence intervals for rates: Wilson score intervals."""

from __future__ import annotations

import math
from typing import Final

Z95: Final = 1.959963984540054
"""The standard normal quantile of a two-sided 95% interval."""


def wilson(successes: float, trials: float, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a rate `successes / trials` (NaNs when `trials == 0`).

    Unlike the normal (Wald) interval it stays inside [0, 1] and does not collapse to a point
    at 0 or 1 (E. B. Wilson, JASA 22, 1927). `successes` may be fractional (a score counting a
    draw as half a win); the interval then uses the binomial variance p(1 - p) / n, which is at
    least the variance of a score whose draws are half wins, so it errs on the wide side.
    """
    if trials <= 0:
        return (math.nan, math.nan)
    p = successes / trials
    z2 = z * z
    centre = (p + z2 / (2 * trials)) / (1 + z2 / trials)
    half = z / (1 + z2 / trials) * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials))
    # At p = 0 (or 1) the bound is 0 (or 1) exactly; computed, it can round to just inside.
    low = 0.0 if p <= 0.0 else max(0.0, centre - half)
    high = 1.0 if p >= 1.0 else min(1.0, centre + half)
    return (low, high)
