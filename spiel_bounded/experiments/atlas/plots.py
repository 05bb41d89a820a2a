"""The atlas's figures (matplotlib's object API, no pyplot), each None when it has no data.

- `savings_figure`: Q1 nodes at each epsilon relative to epsilon 0, one row per game.
- `branching_figure`: b_eff of the epsilon-0 search against the minimal tree's b_KM, by game.
- `intervals_figure`: the proven root interval against the node budget for `bounded_ab`,
  `babmcts` and `bounded_pns`, side by side on the traced positions: the picture of what a
  bounded search is.
- `tournaments_figure`: each pairing's score per game with 95% Wilson intervals, one panel per
  tournament.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
from matplotlib import colormaps
from matplotlib.figure import Figure

from spiel_bounded.experiments.atlas.config import AtlasConfig

_COLOURS = {"bounded_ab": "tab:blue", "babmcts": "tab:orange", "bounded_pns": "tab:green"}


def savings_figure(config: AtlasConfig, q1: pd.DataFrame) -> Figure | None:
    if q1.empty:
        return None
    positive = [f for f in config.settings["epsilon_fractions"] if f > 0]
    labels = [e.label for e in config.games if e.label in set(q1["label"])]
    medians = q1[q1["fraction"] > 0].groupby(["label", "fraction"])["nodes_ratio"].median()
    widest = positive[-1]
    labels.sort(key=lambda label: medians.get((label, widest), 1.0))
    figure = Figure(figsize=(8, 0.28 * len(labels) + 1.6), layout="constrained")
    axes = figure.subplots()
    colours = colormaps["viridis"](np.linspace(0.15, 0.85, len(positive)))
    y = np.arange(len(labels))
    for colour, fraction in zip(colours, positive, strict=True):
        values = [medians.get((label, fraction), np.nan) for label in labels]
        axes.plot(values, y, "o", color=colour, label=f"epsilon {100 * fraction:g}%")
    axes.axvline(1.0, color="grey", linewidth=0.8, linestyle=":")
    axes.set_yticks(y, labels, fontsize=8)
    axes.set_xscale("log")
    axes.set_xlabel("nodes relative to epsilon 0 (median over positions; log scale)")
    axes.grid(alpha=0.3)
    axes.legend(fontsize=8, loc="lower left")
    axes.set_title(
        "Q1: what epsilon saves, game by game (sorted by the widest epsilon)", fontsize=10
    )
    return figure


def branching_figure(beff: pd.DataFrame) -> Figure | None:
    if beff.empty:
        return None
    beff = beff.sort_values("b_eff")
    figure = Figure(figsize=(8, 0.28 * len(beff) + 1.6), layout="constrained")
    axes = figure.subplots()
    y = np.arange(len(beff))
    axes.plot(beff["full"], y, "|", color="grey", markersize=10, label="b (mean branching)")
    axes.plot(beff["b_km"], y, "s", color="tab:green", label="b_KM (minimal tree)")
    axes.plot(beff["b_eff"], y, "o", color="tab:blue", label="b_eff at epsilon 0")
    axes.set_yticks(y, [f"{r.label} (d={r.depth})" for r in beff.itertuples()], fontsize=8)
    axes.set_xscale("log")
    axes.set_xlabel("branching factor (log scale)")
    axes.grid(alpha=0.3)
    axes.legend(fontsize=8, loc="lower right")
    axes.set_title(
        "Effective branching at epsilon 0 against the minimal tree "
        "(Knuth-Moore; paranoid's with n players)",
        fontsize=10,
    )
    return figure


def intervals_figure(trace: pd.DataFrame) -> Figure | None:
    """One panel per traced variant (its first position): each search's proven interval as a
    band against the node budget; a search stops at the budget that solved the root, and its
    final interval is drawn on to the largest budget."""
    if trace.empty:
        return None
    trace = trace[trace["index"] == trace["index"].min()]
    games = list(dict.fromkeys(trace["game"]))
    columns = min(4, len(games))
    rows = -(-len(games) // columns)
    figure = Figure(figsize=(3.4 * columns, 2.3 * rows + 0.9), layout="constrained")
    panels = np.atleast_1d(figure.subplots(rows, columns, squeeze=False)).ravel()
    for axes, game in zip(panels, games, strict=False):
        mine = trace[trace["game"] == game]
        last = max(max(budgets) for budgets in mine["budgets"])
        for row in mine.itertuples():
            budgets = [*row.budgets, last] if row.budgets[-1] < last else list(row.budgets)
            lower = [*row.lower, row.lower[-1]][: len(budgets)]
            upper = [*row.upper, row.upper[-1]][: len(budgets)]
            colour = _COLOURS[row.algorithm]
            axes.fill_between(budgets, lower, upper, step="post", color=colour, alpha=0.18)
            axes.step(budgets, lower, where="post", color=colour, label=row.algorithm)
            axes.step(budgets, upper, where="post", color=colour)
        axes.set_xscale("log")
        axes.set_title(game, fontsize=8)
        axes.tick_params(labelsize=7)
        axes.grid(alpha=0.3)
    for axes in panels[len(games) :]:
        axes.set_visible(False)
    handles: dict[str, Any] = {}
    for axes in panels[: len(games)]:
        for handle, label in zip(*axes.get_legend_handles_labels(), strict=True):
            handles.setdefault(label, handle)
    figure.legend(
        handles=list(handles.values()),
        labels=list(handles),
        loc="outside lower center",
        ncols=3,
        fontsize=8,
    )
    figure.supxlabel("node budget (a fresh search per budget; log scale)", fontsize=8)
    figure.suptitle(
        "Proven root interval [lower, upper] on the mover's game value against the node budget",
        fontsize=9,
    )
    return figure


def tournaments_figure(scores: Mapping[str, pd.DataFrame]) -> Figure | None:
    """One panel per tournament: each pairing's score with its 95% Wilson interval, a row per
    game and pairing (`scores`: the pairings the report lists, each once)."""
    shown = {path: frame for path, frame in scores.items() if not frame.empty}
    if not shown:
        return None
    columns = min(2, len(shown))
    rows = -(-len(shown) // columns)
    figure = Figure(figsize=(6 * columns, 4.5 * rows), layout="constrained")
    panels = figure.subplots(rows, columns, squeeze=False).ravel()
    for axes in panels[len(shown) :]:
        axes.set_visible(False)
    for axes, (path, frame) in zip(panels, shown.items(), strict=False):
        pairs = list(zip(frame["bot"], frame["opponent"], strict=True))
        one_pairing = len(set(pairs)) == 1
        one_game = frame["game"].nunique() == 1
        labels = []
        for game, (bot, opponent), games in zip(frame["game"], pairs, frame["games"], strict=True):
            named = [str(game)] if not one_game else []
            named += [] if one_pairing else [f"{bot} vs {opponent}"]
            labels.append(" ".join([": ".join(named), f"(n={games})"]).strip())
        y = np.arange(len(frame))
        score = 100 * frame["score"].to_numpy(dtype=float)
        low = score - 100 * frame["score_low"].to_numpy(dtype=float)
        high = 100 * frame["score_high"].to_numpy(dtype=float) - score
        axes.errorbar(score, y, xerr=[low, high], fmt="o", capsize=3)
        axes.axvline(50, color="grey", linewidth=0.8, linestyle=":")
        axes.set_yticks(y, labels, fontsize=8)
        axes.set_ylim(-0.7, len(frame) - 0.3)
        axes.set_xlim(0, 100)
        scored = f"{pairs[0][0]} vs {pairs[0][1]}" if one_pairing else "the first bot named"
        axes.set_xlabel(f"score of {scored}, % (95% Wilson)")
        axes.set_title(f"{path}\n{frame['game'].iloc[0]}" if one_game else path, fontsize=9)
        axes.grid(alpha=0.3)
    return figure
