"""summary.md of a tournament: the markdown of every table of the report."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from spiel_bounded import markdown
from spiel_bounded.arena.records import GameRecord
from spiel_bounded.arena.report_data import Report
from spiel_bounded.arena.report_statistics import (
    paired_lines,
    plackett_luce_fit_lines,
    plackett_luce_lines,
    sprt_lines,
)
from spiel_bounded.arena.settings import ReportSettings
from spiel_bounded.arena.sprt import SPRTSettings
from spiel_bounded.arena.time_targets import TIME_TOLERANCE


def slug(game: str) -> str:
    """A file-name-safe form of a game string."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", game).strip("_")


def pairing_lines(pairings: pd.DataFrame, game: str) -> list[str]:
    """The markdown table of one game's pairings."""
    mine = pairings[pairings["game"] == game]
    seats = sorted(
        int(column.removeprefix("score_as_p"))
        for column in pairings.columns
        if column.startswith("score_as_p")
    )
    header = ["bot", "opponent", "games", "W", "D", "L", "win %", "draw %", "loss %", "score %"]
    header += ["ms/move", "opp. ms/move"]
    header += [f"as P{seat}" for seat in seats]
    rows = []
    for row in mine.to_dict("records"):
        cells = [
            row["bot"],
            row["opponent"],
            str(row["games"]),
            str(row["wins"]),
            str(row["draws"]),
            str(row["losses"]),
            markdown.interval(row["win_rate"], row["win_low"], row["win_high"]),
            markdown.interval(row["draw_rate"], row["draw_low"], row["draw_high"]),
            markdown.interval(row["loss_rate"], row["loss_low"], row["loss_high"]),
            markdown.interval(row["score"], row["score_low"], row["score_high"]),
            markdown.milliseconds(row["seconds_per_move"]),
            markdown.milliseconds(row["opponent_seconds_per_move"]),
        ]
        for seat in seats:
            count = row.get(f"games_as_p{seat}", 0)
            score = markdown.percent(row[f"score_as_p{seat}"])
            cells.append(f"{score} ({count})" if count else "-")
        rows.append(cells)
    return markdown.table(header, rows, "llrrrrrrrrrr" + "r" * len(seats))


def summary_markdown(
    report: Report,
    records: Sequence[GameRecord],
    settings: ReportSettings,
    games: Sequence[str],
    scheduled: int | None,
    title: str,
    command: str | None,
    sprt: SPRTSettings | None = None,
) -> str:
    errors = len(report.errors)
    lines = [f"# {title}", ""]
    if command:
        lines += [command, ""]
    done = f"{len(records):,} games in games.csv"
    if scheduled is not None:
        done += f" of {scheduled:,} scheduled"
    lines += [
        f"{done}; {errors} ended in an error (left out of the results, listed at the end).",
        "",
        "Win, draw, loss and score (a draw is half a win) are percentages for `bot` against "
        "`opponent`, with 95% Wilson intervals in brackets; `ms/move` and `opp. ms/move` are "
        "the mean milliseconds per move `bot` and `opponent` took in those games; `as Pn` is "
        "`bot`'s score when it sat in seat n (games in parentheses). In games of more than two "
        "players each pair at a table counts as one game, won by the higher return.",
        "",
    ]
    lines += _missed_lines(report.bots)
    for game in games:
        lines += [f"## {game}", ""]
        if not report.pairings.empty and game in set(report.pairings["game"]):
            lines += pairing_lines(report.pairings, game)
            paired = paired_lines(report.paired, game)
            if paired:
                lines += ["", *paired]
        else:
            lines.append("No finished games.")
        lines.append("")

    anchor = (
        f"{settings.anchor} is rated 0" if settings.anchor else "ratings are centred on their mean"
    )
    lines += [
        "## Elo ratings",
        "",
        "By OpenSpiel's `open_spiel.python.algorithms.elo.compute_ratings_from_matrices` "
        f"(Bradley-Terry, draws count half); {anchor}. Intervals: 95% percentile bootstrap "
        f"over {settings.bootstrap} resamples of each pairing's games.",
        "",
    ]
    if not report.ratings.empty:
        rows = [
            [
                row["scope"],
                row["bot"],
                f"{row['elo']:+.0f}",
                "-" if math.isnan(row["low"]) else f"[{row['low']:+.0f}, {row['high']:+.0f}]",
                str(row["games"]),
            ]
            for row in report.ratings.to_dict("records")
        ]
        lines += markdown.table(["scope", "bot", "Elo", "95% interval", "games"], rows, "llrrr")
        lines.append("")

    lines += sprt_lines(report.sprt, sprt)
    lines += plackett_luce_lines(report.plackett_luce)
    lines += plackett_luce_fit_lines(report.plackett_luce_fit, settings)
    lines += [
        "## Time and nodes per move",
        "",
        "Wall-clock seconds of each `step()`, measured by the arena for every bot; nodes as "
        "reported by our searches (`-`: the bot does not count nodes). `target ms` is the time "
        "per move the bot was meant to take: its time limit, or, for a bot calibrated to the "
        "tournament's time per move (a depth or simulation count in place of a time limit, "
        "`scripts/calibrate_arena.py`), that time; `!` marks a mean more than "
        f"{TIME_TOLERANCE:.0%} above the target (or below it, for a calibrated bot).",
        "",
    ]
    rows = [
        [
            row["game"],
            row["bot"],
            str(row["moves"]),
            markdown.milliseconds(row["seconds_per_move"]) + (" !" if row["missed_target"] else ""),
            markdown.milliseconds(row["max_seconds_per_move"]),
            _target_cell(row),
            markdown.number(row["nodes_per_move"]),
            markdown.number(row["nodes_per_second"]),
            str(row["errors"]),
        ]
        for row in report.bots.to_dict("records")
    ]
    lines += markdown.table(
        [
            "game",
            "bot",
            "moves",
            "ms/move",
            "max ms/move",
            "target ms",
            "nodes/move",
            "nodes/s",
            "errors",
        ],
        rows,
        "llrrrlrrr",
    )
    lines.append("")

    lines += ["## Errors", ""]
    if report.errors.empty:
        lines += ["None.", ""]
    else:
        rows = [
            [row["game_id"], row["raised_by"] or "-", row["error"].replace("|", "\\|")]
            for row in report.errors.to_dict("records")
        ]
        lines += markdown.table(
            ["game", "raised by", "error (last line; full trace in games.csv)"], rows, "lll"
        )
        lines.append("")
    return "\n".join(lines)


def _target_cell(row: Mapping[str, Any]) -> str:
    if not row["target"]:
        return "-"
    kind = f"calibrated: {row['calibrated_with']}" if row["target"] == "calibrated" else "limit"
    return f"{markdown.milliseconds(row['target_seconds_per_move'])} ({kind})"


def _missed_lines(bots: pd.DataFrame) -> list[str]:
    """A warning naming each bot whose time per move missed its target (none: no lines)."""
    if bots.empty or not bots["missed_target"].any():
        return []
    lines = [
        "**Time per move off target.** These bots took a mean time per move more than "
        f"{TIME_TOLERANCE:.0%} away from the time they were meant to take, so their scores "
        "are not at equal time:",
        "",
    ]
    for row in bots[bots["missed_target"]].to_dict("records"):
        kind = (
            f"calibrated to it with {row['calibrated_with']}"
            if row["target"] == "calibrated"
            else "its time limit"
        )
        lines.append(
            f"- {row['bot']} on {row['game']}: "
            f"{markdown.milliseconds(row['seconds_per_move'])} ms per move "
            f"(longest {markdown.milliseconds(row['max_seconds_per_move'])} ms) against "
            f"{markdown.milliseconds(row['target_seconds_per_move'])} ms ({kind}): "
            f"{row['time_ratio']:.2g}x"
        )
    return [*lines, ""]
