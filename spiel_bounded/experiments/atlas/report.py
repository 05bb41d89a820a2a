"""The atlas's report: one Markdown file of tables (and the plots of `plots`) from the records.

Tables, each with its sample sizes:

- Facts: players, chance, branching factor and length of random playouts, terminal values,
  `child` and `apply_action` rates, whether `undo_action` is exact.
- Q1: per game, the depth the calibration chose, the epsilon-0 nodes, and per epsilon the
  ratio of nodes (and of seconds at the widest epsilon) to epsilon 0, median with quartiles;
  the largest realised error and the bound violations (the epsilon-0 value outside
  `[lower, upper]`, or an interval wider than epsilon: 0 is the guarantee).
- b_eff: the epsilon-0 search's effective branching factor nodes^(1/d) against the Knuth-Moore
  minimal tree's for the game's mean branching factor.
- Against OpenSpiel: the node and time ratios of our search to OpenSpiel's at the deepest depth
  it finished, and how many depths gave different values.
- Solving: per small variant, how many positions each solver proved within the cap, and with
  how many nodes (median over the positions all of them proved).
- Max^n pruning: nodes of each pruning mode relative to plain max^n, and value differences.
- Tournaments: the score of the first bot of each table against the other with 95% Wilson
  intervals, per game, and each tournament's own summary.
- Skipped measurements and errors, with reasons.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from spiel_bounded.arena.config import load_config
from spiel_bounded.arena.report import pairing_table
from spiel_bounded.arena.store import GameStore
from spiel_bounded.experiments.atlas import plots
from spiel_bounded.experiments.atlas.config import AtlasConfig
from spiel_bounded.experiments.atlas.measures import VALUE_TOLERANCE
from spiel_bounded.experiments.atlas.runner import finished, read_records
from spiel_bounded.experiments.atlas.tasks import (
    PRUNINGS,
    Q1_CAP,
    AtlasRecord,
    AtlasTask,
    Skip,
    calibrated_depths,
    first_stage,
    second_stage,
)
from spiel_bounded.experiments.report import ReportFiles, knuth_moore_nodes
from spiel_bounded.markdown import interval, number, quartiles, table
from spiel_bounded.runs.journal import StoreError


def _frame(records: Sequence[AtlasRecord], kind: str) -> pd.DataFrame:
    rows = [
        {"label": r.label, "game": r.game, "index": r.index, **r.params, **r.data}
        for r in records
        if r.kind == kind
    ]
    return pd.DataFrame(rows)


def q1_frame(records: Sequence[AtlasRecord]) -> pd.DataFrame:
    """One row per Q1 search, with its ratios to epsilon 0 and its error against the epsilon-0
    value (the exact depth-limited value); both NaN unless both searches completed."""
    frame = _frame(records, "q1")
    if frame.empty:
        return frame
    reference = frame[(frame["fraction"] == 0) & frame["proved"]].set_index(["label", "index"])
    keys = pd.MultiIndex.from_frame(frame[["label", "index"]])
    for column in ("nodes", "seconds", "lower"):
        frame[f"exact_{column}"] = reference[column].reindex(keys).to_numpy()
    completed = frame["proved"].astype(bool)
    frame["nodes_ratio"] = (frame["nodes"] / frame["exact_nodes"]).where(completed)
    frame["seconds_ratio"] = (frame["seconds"] / frame["exact_seconds"]).where(completed)
    frame["error"] = (frame["exact_lower"] - frame["lower"]) / frame["value_range"]
    outside = (frame["exact_lower"] < frame["lower"] - VALUE_TOLERANCE) | (
        frame["exact_lower"] > frame["upper"] + VALUE_TOLERANCE
    )
    wide = frame["upper"] - frame["lower"] > frame["epsilon"] + VALUE_TOLERANCE
    frame["violation"] = frame["proved"] & (outside | wide)
    return frame


def _facts_table(config: AtlasConfig, facts: pd.DataFrame) -> list[str]:
    rows = []
    for entry in config.games:
        mine = facts[facts["label"] == entry.label] if not facts.empty else facts
        if mine.empty:
            rows.append([entry.label, entry.kind, *["-"] * 8])
            continue
        f = mine.iloc[-1]
        values = ", ".join(f"{v:g}" for v in f["terminal_values"])
        if f["terminal_value_count"] > len(f["terminal_values"]):
            values += f" ... ({f['terminal_value_count']} values)"
        cut = f" ({f['cut']} cut)" if f["cut"] else ""
        rows.append(
            [
                entry.label,
                entry.kind,
                f"{f['branching_mean']:.1f} / {f['branching_max']}",
                f"{f['length_mean']:.0f} [{f['length_min']}, {f['length_max']}]{cut}",
                f"[{f['min_utility']:g}, {f['max_utility']:g}]",
                values or "-",
                f"{f['child_per_second'] / 1000:,.0f}k",
                f"{f['apply_per_second'] / 1000:,.0f}k",
                str(f["undo"]).replace("|", "/"),
                entry.evaluator,
            ]
        )
    header = [
        "game",
        "kind",
        "branching mean / max",
        "plies mean [min, max]",
        "declared range",
        "terminal values of player 0 seen",
        "child/s",
        "clone+apply/s",
        "undo_action",
        "leaf evaluator",
    ]
    return table(header, rows, "llrrllrrll")


def _q1_table(config: AtlasConfig, frame: pd.DataFrame, depths: Mapping[str, int]) -> list[str]:
    fractions = config.settings["epsilon_fractions"]
    positive = [f for f in fractions if f > 0]
    header = [
        "game",
        "search",
        "depth",
        "n",
        "completed",
        "nodes at eps 0",
        *[f"nodes at {100 * f:g}%" for f in positive],
        f"seconds at {100 * positive[-1]:g}%" if positive else "seconds",
        "max error %",
        "violations",
    ]
    rows = []
    for entry in config.games:
        mine = frame[frame["label"] == entry.label] if not frame.empty else frame
        if mine.empty:
            continue
        exact = mine[mine["fraction"] == 0]
        cells = [
            entry.label,
            entry.q1_algorithm,
            str(depths.get(entry.label, "-")),
            str(len(exact)),
            f"{int(mine['proved'].sum())} of {len(mine)}",
            quartiles(exact["nodes"], 0),
        ]
        for fraction in positive:
            cells.append(quartiles(mine[mine["fraction"] == fraction]["nodes_ratio"]))
        widest = mine[mine["fraction"] == positive[-1]] if positive else exact
        cells.append(quartiles(widest["seconds_ratio"]))
        errors = mine[mine["proved"]]["error"].dropna() * 100
        cells.append(f"{errors.max():.2f}" if not errors.empty else "-")
        cells.append(str(int(mine["violation"].sum())))
        rows.append(cells)
    return table(header, rows, "llrrrr" + "r" * len(positive) + "rrr")


def beff_frame(config: AtlasConfig, frame: pd.DataFrame, facts: pd.DataFrame) -> pd.DataFrame:
    """Per game: the epsilon-0 search's b_eff = nodes^(1/d) (median over the searches that
    reached depth d) against b_KM, the minimal tree's for the game's mean branching factor
    (rounded) at depth d (Knuth-Moore's, or paranoid's with more than two players)."""
    rows: list[dict[str, object]] = []
    if frame.empty or facts.empty:
        return pd.DataFrame(rows)
    for entry in config.games:
        exact = frame[
            (frame["label"] == entry.label)
            & (frame["fraction"] == 0)
            & (frame["stopped_by"] == "depth")  # not capped, not ended early by a proof
        ]
        mine = facts[facts["label"] == entry.label]
        if exact.empty or mine.empty or bool(mine.iloc[-1]["chance"]):
            continue  # chance nodes count as nodes: no uniform minimal tree to compare with
        depth = int(exact["depth"].median())
        if depth < 2:
            continue
        branching = max(2, round(float(mine.iloc[-1]["branching_mean"])))
        b_eff = (exact["nodes"].astype(float) ** (1.0 / exact["depth"])).median()
        players = int(mine.iloc[-1]["players"])
        b_km = knuth_moore_nodes(branching, depth, players) ** (1.0 / depth)
        rows.append(
            {
                "label": entry.label,
                "kind": entry.kind,
                "depth": depth,
                "branching": branching,
                "b_eff": b_eff,
                "b_km": b_km,
                "full": float(branching),
            }
        )
    return pd.DataFrame(rows)


def _beff_table(beff: pd.DataFrame) -> list[str]:
    rows = [
        [
            r.label,
            str(r.depth),
            str(r.branching),
            f"{r.b_eff:.2f}",
            f"{r.b_km:.2f}",
            f"{r.b_eff / r.b_km:.2f}",
        ]
        for r in beff.itertuples()
    ]
    header = ["game", "depth d", "mean branching b", "b_eff (median)", "b_KM", "b_eff / b_KM"]
    return table(header, rows, "lrrrrr")


def _openspiel_table(config: AtlasConfig, comparison: pd.DataFrame) -> list[str]:
    rows = []
    for entry in config.games:
        mine = (
            comparison[comparison["label"] == entry.label] if not comparison.empty else comparison
        )
        if mine.empty:
            continue
        nodes = mine["ours_nodes"] / mine["theirs_nodes"]
        seconds = mine["ours_seconds"] / mine["theirs_seconds"]
        rows.append(
            [
                entry.label,
                f"{entry.q1_algorithm} / {mine.iloc[0]['theirs']}",
                str(len(mine)),
                f"{int(mine['depth'].min())}-{int(mine['depth'].max())}",
                f"{nodes.median():.3f} [{nodes.min():.3f}, {nodes.max():.3f}]",
                f"{seconds.median():.2f} [{seconds.min():.2f}, {seconds.max():.2f}]",
                f"{int(mine['mismatches'].sum())} of {int(mine['depths'].sum())}",
            ]
        )
    header = [
        "game",
        "ours / OpenSpiel's",
        "positions",
        "depth",
        "nodes ratio: median [min, max]",
        "seconds ratio: median [min, max]",
        "depths with another value",
    ]
    return table(header, rows, "llrrrrr")


def _solve_table(solve: pd.DataFrame) -> list[str]:
    rows = []
    if solve.empty:
        return table(["variant"], [], "l")
    for game, mine in solve.groupby("game", sort=False):
        algorithms = [
            a for a in ("pns", "bounded_pns", "bounded_ab") if a in set(mine["algorithm"])
        ]
        positions = mine["index"].nunique()
        proved_by_all = set(mine["index"])
        for algorithm in algorithms:
            solved = mine[(mine["algorithm"] == algorithm) & mine["solved"]]
            proved_by_all &= set(solved["index"])
        cells = [str(game), str(positions)]
        for algorithm in ("pns", "bounded_pns", "bounded_ab"):
            rows_of = mine[mine["algorithm"] == algorithm]
            if rows_of.empty:
                cells.append("skipped")
                continue
            solved = rows_of[rows_of["solved"]]
            common = rows_of[rows_of["index"].isin(proved_by_all)]
            cells.append(
                f"{len(solved)} / {number(common['nodes'].median()) if not common.empty else '-'}"
            )
        rows.append(cells)
    header = [
        "variant",
        "positions",
        "pns: proved / nodes",
        "bounded_pns: proved / nodes",
        "bounded_ab: proved / nodes",
    ]
    return table(header, rows, "lrrrr")


def pruning_frame(pruning: pd.DataFrame) -> pd.DataFrame:
    if pruning.empty:
        return pruning
    plain = pruning[pruning["pruning"] == "none"].set_index(["label", "index"])
    keys = pd.MultiIndex.from_frame(pruning[["label", "index"]])
    pruning = pruning.copy()
    pruning["plain_completed"] = plain["completed"].reindex(keys).eq(True).to_numpy()
    pruning["plain_nodes"] = plain["nodes"].reindex(keys).to_numpy()
    pruning["ratio"] = pruning["nodes"] / pruning["plain_nodes"]
    plain_values = plain["values"].reindex(keys).to_list()
    pruning["same_value"] = [
        isinstance(other, list | tuple) and np.allclose(mine, other, atol=VALUE_TOLERANCE)
        for mine, other in zip(pruning["values"], plain_values, strict=True)
    ]
    return pruning


def _pruning_table(config: AtlasConfig, pruning: pd.DataFrame) -> list[str]:
    rows = []
    for entry in config.games:
        mine = pruning[pruning["label"] == entry.label] if not pruning.empty else pruning
        if mine.empty:
            continue
        plain = mine[mine["pruning"] == "none"]
        cells = [
            entry.label,
            str(entry.pruning_depth),
            f"{int(plain['completed'].sum())} of {len(plain)}",
            quartiles(plain["nodes"], 0),
        ]
        for mode in PRUNINGS[1:]:
            rows_of = mine[mine["pruning"] == mode]
            completed = rows_of[rows_of["completed"] & rows_of["plain_completed"]]
            cells.append(quartiles(completed["ratio"]) if not completed.empty else "-")
        both = mine["completed"] & mine["plain_completed"]
        differing = mine[(mine["pruning"] != "none") & both & ~mine["same_value"]]
        cells.append(str(len(differing)))
        rows.append(cells)
    header = [
        "game",
        "depth",
        "plain max^n completed",
        "plain max^n nodes",
        *[f"{mode} / plain" for mode in PRUNINGS[1:]],
        "root values differing from plain",
    ]
    return table(header, rows, "lrrrrrrr")


def tournament_scores(directory: str | Path) -> pd.DataFrame:
    """Every pairing's score with its 95% Wilson interval (`arena.report.pairing_table`) from a
    tournament's games.csv; empty when there is none yet."""
    store = GameStore(directory)
    try:
        records = [record for record in store.read_records() if record.finished]
        manifest = store.read_manifest()
    except StoreError:
        return pd.DataFrame()
    if not records or manifest is None:
        return pd.DataFrame()
    return pairing_table(records, manifest.labels)


def _tournament_lines(config: AtlasConfig) -> tuple[list[str], dict[str, pd.DataFrame]]:
    lines: list[str] = []
    scores: dict[str, pd.DataFrame] = {}
    for path in config.tournaments:
        arena = load_config(path)
        directory = Path(arena.run.output)
        frame = tournament_scores(directory)
        lines += ["", f"### {path}", "", f"Games and full report: `{directory}/summary.md`.", ""]
        if frame.empty:
            lines.append("No game played yet.")
            continue
        shown = frame
        if arena.tournament.tables:
            listed = listed_pairs(arena.tournament.tables)
            shown = frame[
                [pair in listed for pair in zip(frame["bot"], frame["opponent"], strict=True)]
            ]
        scores[path] = shown
        rows = [
            [
                str(r.game),
                f"{r.bot} vs {r.opponent}",
                str(int(r.games)),
                f"{int(r.wins)}-{int(r.draws)}-{int(r.losses)}",
                interval(r.score, r.score_low, r.score_high),
            ]
            for r in shown.itertuples()
        ]
        lines += table(["game", "pairing", "games", "W-D-L", "score % [95% Wilson]"], rows, "llrlr")
    return lines, scores


def listed_pairs(tables: Sequence[Sequence[str]]) -> set[tuple[str, str]]:
    """Each pairing of a listed table once, as the table orders it (the first bot of a two-bot
    table is the candidate)."""
    return {pair for table_ in tables for pair in itertools.combinations(table_, 2)}


def _skips_and_errors(skips: Sequence[Skip], records: Sequence[AtlasRecord]) -> list[str]:
    lines = ["", "## Skipped measurements", ""]
    rows = [[skip.label, skip.kind, skip.reason] for skip in skips]
    lines += table(["game", "measurement", "reason"], rows, "lll") if rows else ["None."]
    failing: dict[str, AtlasRecord] = {}
    for record in records:
        if record.ok:
            failing.pop(record.task_id, None)
        else:
            failing[record.task_id] = record
    lines += ["", "## Tasks whose last run raised (run again on resume)", ""]
    if not failing:
        return [*lines, "None."]
    rows = [
        [record.task_id, record.error.strip().splitlines()[-1][:160].replace("|", "/")]
        for record in failing.values()
    ]
    return lines + table(["task", "error"], rows, "ll")


@dataclass(frozen=True)
class _Plan:
    """What `config` asks for, given the calibrations finished so far."""

    depths: Mapping[str, int]
    tasks: list[AtlasTask]
    skips: list[Skip]

    def keep(self, records: Sequence[AtlasRecord]) -> list[AtlasRecord]:
        wanted = {task.task_id for task in self.tasks}
        return [record for record in records if record.task_id in wanted]


def _plan(config: AtlasConfig, records: Sequence[AtlasRecord]) -> _Plan:
    depths = calibrated_depths(config, records)
    second, skips = second_stage(config, depths)
    return _Plan(depths=depths, tasks=[*first_stage(config), *second], skips=skips)


def planned(config: AtlasConfig, records: Sequence[AtlasRecord]) -> list[AtlasRecord]:
    """The records of tasks `config` asks for (a changed row's old records are left out)."""
    return _plan(config, records).keep(records)


def build_atlas_report(config: AtlasConfig, command: str) -> ReportFiles:
    """The report of `config`'s records (finished tasks only; a task run twice counts once)."""
    records = read_records(config.run.output)
    last_finished = list(finished(records).values())
    plan = _plan(config, last_finished)
    done = plan.keep(last_finished)
    facts = _frame(done, "facts")
    q1 = q1_frame(done)
    comparison = _frame(done, "openspiel")
    solve = _frame(done, "solve")
    trace = _frame(done, "trace")
    pruning = pruning_frame(_frame(done, "pruning"))
    beff = beff_frame(config, q1, facts)
    seconds = sum(record.seconds for record in done)
    lines = [
        "# The catalogue atlas: what bounding buys, game by game",
        "",
        f"Regenerate: `{command}`. Config: `{config.source}` (fingerprint "
        f"{config.fingerprint()}). {len(done):,} of {len(plan.tasks):,} measurement tasks "
        f"finished, {seconds / 60:,.0f} minutes of process time. Rows: {len(config.games)} "
        "games. Intervals are quartiles [25%, 75%] unless marked as 95% intervals.",
        "",
        "## Facts (seeded random playouts)",
        "",
        f"{config.settings['facts_playouts']} uniformly random playouts per game, cut at "
        f"{config.settings['facts_max_plies']:,} decision plies; rates over up to 200 states "
        "sampled from them (16 actions each); undo checked on up to 400 (state, action) pairs.",
        "",
        *_facts_table(config, facts),
        "",
        "## Q1: what epsilon saves",
        "",
        "Each game's positions are searched at the depth where the epsilon-0 search of the "
        "first positions needs at most the game's node budget (median), with the bot's defaults "
        "(iterative deepening, transposition table, move ordering). Ratios are per position, "
        "to the same search at epsilon 0 (median [quartiles]); epsilons are fractions of the "
        "declared value range; error = epsilon-0 value - lower bound, in % of the range. n: "
        "positions; completed: searches (positions x epsilons) that finished their depth within "
        f"{Q1_CAP} x the node budget (the others count in no ratio's reference).",
        "",
        *_q1_table(config, q1, plan.depths),
        "",
        "## Effective branching against Knuth-Moore",
        "",
        "b_eff = (nodes at epsilon 0)^(1/d) at the Q1 depth, over the searches that ran to "
        "depth d (not capped, not ended early by a proof); b_KM = N_KM^(1/d) for the minimal "
        "tree of a uniform tree with the game's mean branching factor b (from the facts): "
        "N_KM = sum over k = 0..d of b^m + b^(k-m) - 1, m = ceil(k/n) the root player's moves "
        "among the first k with n players moving in turn (n = 2: Knuth and Moore's; n > 2: "
        "paranoid's). Iterative deepening's shallower iterations are included in the nodes. "
        "Games with chance are left out (their chance nodes count as nodes); so are games "
        "where no search ran to depth d.",
        "",
        *_beff_table(beff),
        "",
        "## Against OpenSpiel",
        "",
        "Our epsilon-0 search (bot defaults) against OpenSpiel's Python `alpha_beta_search` "
        "(or `expectiminimax`, which does not prune) with the same leaf evaluator, at depths "
        f"1, 2, ... up to the first at which OpenSpiel needs over "
        f"{config.settings['openspiel_seconds']:g} s (process time); ratios at that depth.",
        "",
        *_openspiel_table(config, comparison),
        "",
        "## Solving small variants",
        "",
        f"Each solver runs each position to the end within {config.settings['solve_nodes']:,} "
        "nodes: `pns` proving a win for the mover (an answer either way counts), `bounded_pns` "
        "at epsilon 0 (the exact value), `bounded_ab` with no depth limit and no iterative "
        "deepening. Cells: positions proved / median nodes over the positions every solver "
        "proved.",
        "",
        *_solve_table(solve),
        "",
        "## Max^n pruning",
        "",
        "Nodes of max^n with each pruning mode (each adds to the one before) relative to plain "
        "max^n at the same depth (iterative deepening, evaluator move ordering), over the "
        "positions where both completed; root values compared with plain max^n's.",
        "",
        *_pruning_table(config, pruning),
        "",
        "## Tournaments",
    ]
    tournament_lines, scores = _tournament_lines(config)
    lines += tournament_lines
    lines += _skips_and_errors(plan.skips, records)
    figures = {
        name: figure
        for name, figure in (
            ("savings.png", plots.savings_figure(config, q1)),
            ("branching.png", plots.branching_figure(beff)),
            ("intervals.png", plots.intervals_figure(trace)),
            ("tournaments.png", plots.tournaments_figure(scores)),
        )
        if figure is not None
    }
    if figures:
        lines += ["", "## Plots", ""] + [f"![{name}]({name})" for name in figures]
    return ReportFiles(markdown="\n".join(lines) + "\n", figures=figures)
