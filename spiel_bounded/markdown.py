"""Markdown building blocks of every report (tournaments, the sweep, the atlas, training):
tables, number formats and quartiles."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd


def percent(value: float) -> str:
    """A rate as a percentage with one decimal ("-": none)."""
    return "-" if value is None or math.isnan(value) else f"{100 * value:.1f}"


def interval(rate: float, low: float, high: float) -> str:
    """A rate and its interval, in percent: `50.0 [40.2, 59.8]`."""
    return f"{percent(rate)} [{percent(low)}, {percent(high)}]"


def number(value: float, digits: int = 3) -> str:
    """A count or measure: thousands separated, else `digits` significant digits."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    return f"{value:.{digits}g}"


def milliseconds(seconds: float) -> str:
    """Seconds shown as milliseconds."""
    return "-" if seconds is None or math.isnan(seconds) else f"{1000 * seconds:,.2f}"


def table(header: Sequence[str], rows: Sequence[Sequence[str]], align: str) -> list[str]:
    """A markdown table; `align` has one letter per column, "r" right-aligned, else left."""
    lines = ["| " + " | ".join(header) + " |"]
    lines.append("| " + " | ".join("---:" if a == "r" else "---" for a in align) + " |")
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def quartiles(values: pd.Series, digits: int = 2, scale: float = 1.0) -> str:
    """The median and quartiles of `values` (NaNs left out) times `scale`: `0.61 [0.57, 0.75]`
    ("-": none)."""
    values = values.dropna() * scale
    if values.empty:
        return "-"
    low, median, high = np.percentile(values, [25, 50, 75])
    return f"{median:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"
