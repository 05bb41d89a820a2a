"""The sweep's report: Markdown tables and PNG plots from records.jsonl.

Q1 (what epsilon saves), per run, position set and epsilon: the number of positions, how many
the search completed (`proved`), nodes, and per position the ratio of nodes, seconds and leaf
evaluations to the same search at epsilon 0, as medians with quartiles; the realised error
`reference - lower` in percent of the value range (median and maximum) and the number of
positions where the reference fell outside `[lower, upper]` or a completed search's interval
was wider than epsilon (bound violations: 0 is the guarantee). The reference is the epsilon-0
search of the same run (fixed-depth searches: the exact depth-limited value) or the exact game
value (`exact` tasks, for searches that prove the root).

Q5 (how work grows), for runs that feed it on synthetic trees: the effective branching factor
b_eff = nodes^(1/d) per tree (median and quartiles), next to the Knuth-Moore minimal tree's
N_KM = sum over levels k = 0..d of b^ceil(k/2) + b^floor(k/2) - 1 nodes and its b_KM =
N_KM^(1/d) (nodes, not leaves, because the searches count every node they visit; on a
best-first tree alpha-beta visits exactly N_KM).

Plots use matplotlib's object API (no pyplot), like the arena's.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final

import numpy as np
import pandas as pd

from spiel_bounded.experiments.config import SweepConfig
from spiel_bounded.experiments.runner import check_records, known_settings, read_records
from spiel_bounded.experiments.tasks import EXACT, Task, TaskRecord, swept_search
from spiel_bounded.games import load_game
from spiel_bounded.markdown import quartiles
from spiel_bounded.synthetic import SHORT_NAME

if TYPE_CHECKING:  # matplotlib is imported where a figure is drawn: ~0.7 s of every start
    from matplotlib.figure import Figure

TOLERANCE: Final = 1e-9
FAMILIES: Final = {
    "alphabeta": ("bounded_ab", "bounded_star1", "bounded_star2", "paranoid"),
    "babmcts": ("babmcts",),
    "bounded_pns": ("bounded_pns",),
}
"""Algorithm families, one savings plot each."""


@dataclass(frozen=True, kw_only=True)
class ReportFiles:
    """A report to write: its Markdown and its figures.

    Attributes:
        markdown: The tables, with the command that regenerates them.
        figures: File name to figure.
    """

    markdown: str
    figures: dict[str, Figure]


@dataclass(frozen=True, kw_only=True)
class SweepReport(ReportFiles):
    """The sweep's report.

    Attributes:
        frame: One row per finished search task, with its reference and ratios to epsilon 0.
    """

    frame: pd.DataFrame


def knuth_moore_nodes(branching: int, depth: int, players: int = 2) -> int:
    """Nodes of the minimal alpha-beta tree of uniform branching and depth, root included.

    With `players` > 2 it is the paranoid tree's (the root player against a coalition, players
    moving in turn): at level k the root player has made ceil(k / players) of the k moves, and
    the minimal tree holds b^(its moves) + b^(the others' moves) - 1 nodes there."""
    return sum(
        branching ** math.ceil(k / players) + branching ** (k - math.ceil(k / players)) - 1
        for k in range(depth + 1)
    )


def records_frame(
    finished: Mapping[str, TaskRecord], tasks: Sequence[Task], config: SweepConfig
) -> pd.DataFrame:
    """The finished search records (`RecordCheck.finished`: made with their task's settings)
    with their reference value, error and ratios to epsilon 0, in the config's task order (so
    tables and plots do not depend on the order tasks finished)."""
    frame = pd.DataFrame(
        [finished[task.task_id].__dict__ for task in tasks if task.task_id in finished]
    )
    if frame.empty:
        return frame
    exact = frame[frame["algorithm"] == EXACT].set_index(["set", "index"])["lower"]
    frame = frame[frame["algorithm"] != EXACT].copy()
    zero = frame[frame["fraction"] == 0.0].set_index(["run", "set", "index"])
    keys = list(zip(frame["run"], frame["set"], frame["index"], strict=True))
    for column in ("nodes", "seconds", "evaluations"):
        base = zero[column].reindex(keys).to_numpy(dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):
            frame[f"{column}_ratio"] = frame[column].to_numpy(dtype=float) / base
    proving = {name: swept_search(name).proves for name in frame["algorithm"].unique()}
    proves = frame["algorithm"].map(proving).to_numpy(dtype=bool)
    zero_ok = zero["proved"].reindex(keys).to_numpy(dtype=object)
    own = np.where(zero_ok == True, zero["lower"].reindex(keys).to_numpy(dtype=float), np.nan)  # noqa: E712
    game_value = exact.reindex(list(zip(frame["set"], frame["index"], strict=True)))
    frame["reference"] = np.where(proves, game_value.to_numpy(dtype=float), own)
    # The guarantee bounds the error of completed searches only (an unfinished proof keeps
    # proven but wide bounds).
    error = (frame["reference"] - frame["lower"]) / frame["value_range"]
    frame["error"] = error.where(frame["proved"])
    outside = (frame["reference"] < frame["lower"] - TOLERANCE) | (
        frame["reference"] > frame["upper"] + TOLERANCE
    )
    wide = frame["proved"] & (frame["upper"] - frame["lower"] > frame["epsilon"] + TOLERANCE)
    frame["violation"] = (frame["proved"] & outside) | wide
    frame["questions"] = frame["run"].map({s.label: ",".join(s.questions) for s in config.runs})
    return frame


def _q1_table(frame: pd.DataFrame, run: str) -> list[str]:
    mine = frame[frame["run"] == run]
    lines = [
        "| set | eps % of range | n | completed | nodes | nodes / eps 0 | seconds / eps 0 "
        "| evaluations / eps 0 | error % of range (completed): median, max | violations |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for (name, fraction), rows in mine.groupby(["set", "fraction"], sort=False):
        errors = rows["error"].dropna() * 100
        error = f"{errors.median():.2f}, {errors.max():.2f}" if not errors.empty else "-"
        lines.append(
            f"| {name} | {100 * fraction:g} | {len(rows)} | {int(rows['proved'].sum())} "
            f"| {quartiles(rows['nodes'], 0)} | {quartiles(rows['nodes_ratio'])} "
            f"| {quartiles(rows['seconds_ratio'])} | {quartiles(rows['evaluations_ratio'])} "
            f"| {error} | {int(rows['violation'].sum())} |"
        )
    return lines


def _tree_shape(game: str) -> tuple[int, int, bool]:
    params = load_game(game).get_parameters()
    return int(params["branching"]), int(params["depth"]), bool(params.get("ordered", 0))


def q5_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """Per run, synthetic set and epsilon: b_eff against the Knuth-Moore minimal tree."""
    rows = []
    mine = frame[frame["questions"].str.contains("Q5") & frame["game"].str.startswith(SHORT_NAME)]
    for (run, name, fraction), group in mine.groupby(["run", "set", "fraction"], sort=False):
        branching, depth, ordered = _tree_shape(group["game"].iloc[0])
        minimal = knuth_moore_nodes(branching, depth)
        b_eff = group["nodes"].to_numpy(dtype=float) ** (1.0 / depth)
        rows.append(
            {
                "run": run,
                "set": name,
                "ordered": ordered,
                "b": branching,
                "d": depth,
                "fraction": fraction,
                "n": len(group),
                "nodes": float(group["nodes"].median()),
                "b_eff": float(np.median(b_eff)),
                "b_eff_q1": float(np.percentile(b_eff, 25)),
                "b_eff_q3": float(np.percentile(b_eff, 75)),
                "km_nodes": minimal,
                "b_km": minimal ** (1.0 / depth),
                "nodes_over_km": float(group["nodes"].median()) / minimal,
                "below_km": int((group["nodes"] < minimal).sum()),
            }
        )
    return pd.DataFrame(rows)


def _q5_table(table: pd.DataFrame) -> list[str]:
    lines = [
        "| run | set | ordering | b | d | eps % of range | n | nodes (median) | b_eff [q1, q3] "
        "| N_KM | b_KM | nodes / N_KM | trees below N_KM |",
        "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in table.itertuples():
        lines.append(
            f"| {row.run} | {row.set} | {'best-first' if row.ordered else 'random'} | {row.b} "
            f"| {row.d} | {100 * row.fraction:g} | {row.n} | {row.nodes:,.0f} "
            f"| {row.b_eff:.2f} [{row.b_eff_q1:.2f}, {row.b_eff_q3:.2f}] | {row.km_nodes:,} "
            f"| {row.b_km:.2f} | {row.nodes_over_km:.2f} | {row.below_km}/{row.n} |"
        )
    return lines


def _savings_figure(frame: pd.DataFrame, family: str, caption: str) -> Figure | None:
    mine = frame[frame["algorithm"].isin(FAMILIES[family]) & frame["questions"].str.contains("Q1")]
    if mine.empty:
        return None
    from matplotlib import colormaps
    from matplotlib.figure import Figure

    figure = Figure(figsize=(11, 4.6), layout="constrained")
    panels = figure.subplots(1, 2, sharey=True)
    for axes, column, label in zip(
        panels, ("nodes_ratio", "seconds_ratio"), ("nodes", "seconds (process time)"), strict=True
    ):
        axes.set_prop_cycle(color=[colormaps["tab20"](i) for i in range(20)])
        for (run, name), group in mine.groupby(["run", "set"], sort=False):
            stats = group.groupby("fraction")[column].quantile([0.25, 0.5, 0.75]).unstack()
            x = 100 * stats.index.to_numpy(dtype=float)
            median = stats[0.5].to_numpy(dtype=float)
            low = median - stats[0.25].to_numpy(dtype=float)
            high = stats[0.75].to_numpy(dtype=float) - median
            axes.errorbar(
                x, median, yerr=[low, high], marker="o", capsize=3, label=f"{run}: {name}"
            )
        axes.axhline(1.0, color="grey", linewidth=0.8, linestyle=":")
        axes.set_xlabel("epsilon, % of the value range")
        axes.set_title(f"{label} relative to epsilon 0 (median, quartiles)", fontsize=10)
        axes.grid(alpha=0.3)
    panels[0].set_ylabel("ratio to epsilon 0")
    panels[1].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    figure.suptitle(f"Q1: savings of {family}. {caption}", fontsize=9)
    return figure


def _q5_figure(table: pd.DataFrame, caption: str) -> Figure | None:
    if table.empty:
        return None
    from matplotlib.figure import Figure

    figure = Figure(figsize=(11, 4.6), layout="constrained")
    panels = figure.subplots(1, 2, sharey=True)
    for axes, ordered in zip(panels, (True, False), strict=True):
        mine = table[table["ordered"] == ordered]
        for (run, name), group in mine.groupby(["run", "set"], sort=False):
            line = axes.plot(
                100 * group["fraction"], group["b_eff"], marker="o", label=f"{run}: {name}"
            )
            axes.axhline(group["b_km"].iloc[0], color=line[0].get_color(), linestyle=":")
        axes.set_xlabel("epsilon, % of the value range")
        axes.set_title(
            f"{'best-first' if ordered else 'random'} trees: b_eff (dotted: Knuth-Moore b_KM)",
            fontsize=10,
        )
        axes.grid(alpha=0.3)
        if not mine.empty:
            axes.legend(fontsize=7)
    panels[0].set_ylabel("b_eff = nodes^(1/d), median over trees")
    figure.suptitle(f"Q5: effective branching factor of bounded_ab. {caption}", fontsize=9)
    return figure


def build_report(config: SweepConfig, command: str) -> SweepReport:
    """The report of the records in `config.run.output`.

    Args:
        config: The sweep's config.
        command: The command that regenerates the report (named in every table and plot).
    """
    tasks = config.tasks()
    check = check_records(read_records(config.run.output), tasks)
    frame = records_frame(check.finished, tasks, config)
    settings_note = check.describe(tasks, known_settings(config.run.output))
    caption = f"Regenerate: {command}"
    lines = [
        f"# Epsilon sweep ({config.source})",
        "",
        f"Regenerate with `{command}` (config `{config.source}`, records in "
        f"`{config.run.output}/records.jsonl`). Position sets: "
        f"`{config.positions_directory}/`. Medians with [first, third quartile]; ratios are per "
        "position against the same search at epsilon 0; seconds are process time; errors are "
        "`reference - lower` in % of the value range (see `spiel_bounded/experiments/report.py`).",
    ]
    if settings_note:
        lines += ["", f"Not shown: {settings_note}."]
    figures: dict[str, Figure] = {}
    if frame.empty:
        lines += ["", "No finished task yet."]
        return SweepReport(markdown="\n".join(lines) + "\n", figures=figures, frame=frame)
    lines += ["", "## Q1: what epsilon saves", ""]
    for spec in config.runs:
        if "Q1" not in spec.questions or spec.label not in set(frame["run"]):
            continue
        reference = (
            "exact game value"
            if swept_search(spec.algorithm).proves
            else "its own epsilon-0 search"
        )
        params = ", ".join(f"{k}={v}" for k, v in spec.params.items()) or "defaults"
        lines += [
            f"### {spec.label} ({spec.algorithm}; {params}; reference: {reference})",
            "",
            *_q1_table(frame, spec.label),
            "",
        ]
    for family in FAMILIES:
        figure = _savings_figure(frame, family, caption)
        if figure is not None:
            figures[f"savings_{family}.png"] = figure
            lines += [f"![savings of {family}](savings_{family}.png)", ""]
    table = q5_frame(frame)
    if not table.empty:
        lines += [
            "## Q5: effective branching factor against the Knuth-Moore minimal tree",
            "",
            *_q5_table(table),
            "",
        ]
        figure = _q5_figure(table, caption)
        if figure is not None:
            figures["q5_branching.png"] = figure
            lines += ["![Q5](q5_branching.png)", ""]
    return SweepReport(markdown="\n".join(lines).rstrip() + "\n", figures=figures, frame=frame)


def write_report(report: ReportFiles, directory: str | Path, *, figures: bool = True) -> list[Path]:
    """Writes report.md and (with `figures`) the PNGs into `directory`; the paths written."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    written = [directory / "report.md"]
    written[0].write_text(report.markdown)
    for name, figure in report.figures.items() if figures else ():
        figure.savefig(directory / name, dpi=100)
        written.append(directory / name)
    return written
