"""PNG plots of a tournament with matplotlib's object API.

A bare `Figure` renders to PNG through the Agg canvas without pyplot, so plotting touches no
global state (no backend switch, no open figures).

`score_heatmap`: one game's pairwise scores; `rating_chart`: ratings (Elo, or Plackett-Luce mu)
with 95% intervals per scope.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure


def score_heatmap(matrix: pd.DataFrame, title: str, path: Path) -> None:
    """Writes `heatmap_figure(matrix, title)` as a PNG."""
    heatmap_figure(matrix, title).savefig(path, dpi=110)


def heatmap_figure(matrix: pd.DataFrame, title: str) -> Figure:
    """Heatmap of `matrix` (score of row bot against column bot, 0..1; NaN: did not meet).

    Cells, their labels and the colour bar are all in percent, so the numbers agree.
    """
    size = len(matrix)
    figure = Figure(figsize=(1.2 + 0.9 * size, 0.9 + 0.75 * size), layout="constrained")
    axes = figure.add_subplot()
    percent = 100.0 * matrix.to_numpy(dtype=float)
    image = axes.imshow(
        np.ma.masked_invalid(percent), cmap="RdYlGn", vmin=0.0, vmax=100.0, aspect="equal"
    )
    axes.set_xticks(range(size), labels=list(matrix.columns), rotation=35, ha="right")
    axes.set_yticks(range(size), labels=list(matrix.index))
    axes.set_xlabel("opponent")
    axes.set_ylabel("bot")
    for row in range(size):
        for column in range(size):
            value = percent[row, column]
            if not math.isnan(value):
                axes.text(column, row, f"{value:.0f}", ha="center", va="center", fontsize=9)
    off_diagonal = percent[~np.eye(size, dtype=bool)]
    if np.isnan(off_diagonal).any():
        title += "\n(blank: the two bots were not paired)"
    axes.set_title(title, fontsize=10)
    figure.colorbar(image, ax=axes, label="score % (a draw is half a win)", shrink=0.8)
    return figure


def rating_chart(
    ratings: pd.DataFrame,
    path: Path,
    *,
    value: str = "elo",
    label: str = "Elo (95% interval)",
    reference: float = 0.0,
) -> None:
    """Every bot's rating (column `value`, Elo by default) with its 95% interval (`low`,
    `high`), one panel per scope (game or all games); a dotted line at `reference`."""
    scopes = list(dict.fromkeys(ratings["scope"]))
    bots = list(dict.fromkeys(ratings["bot"]))
    figure = Figure(figsize=(1.5 + 3.2 * len(scopes), 1.2 + 0.45 * len(bots)), layout="constrained")
    panels = figure.subplots(1, len(scopes), sharey=True, squeeze=False)[0]
    for axes, scope in zip(panels, scopes, strict=True):
        mine = ratings[ratings["scope"] == scope].set_index("bot")
        positions = [bots.index(bot) for bot in mine.index]
        elo = mine[value].to_numpy(dtype=float)
        low = mine["low"].to_numpy(dtype=float)
        high = mine["high"].to_numpy(dtype=float)
        errors = None
        if not np.isnan(low).all():
            errors = np.vstack([np.maximum(elo - low, 0), np.maximum(high - elo, 0)])
        axes.errorbar(elo, positions, xerr=errors, fmt="o", capsize=4, color="tab:blue")
        axes.axvline(reference, color="grey", linewidth=0.8, linestyle=":")
        axes.set_title(scope, fontsize=10)
        axes.set_xlabel(label)
        axes.grid(axis="x", alpha=0.3)
    panels[0].set_yticks(range(len(bots)), labels=bots)
    panels[0].invert_yaxis()
    figure.savefig(path, dpi=110)
