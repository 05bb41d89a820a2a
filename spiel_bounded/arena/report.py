"""The tournament report's tables (pandas), from games.csv alone; `summary` renders summary.md
and `report_files` writes the csv files and the plots.

Tables (each also written as csv):

- pairings.csv: per game and pair of bots, wins / draws / losses of `bot` against `opponent`
  with 95% Wilson intervals for each rate and for the score (a draw is half a win), and the
  seat split: `bot`'s score and games in each seat.
- bots.csv: per game and bot, moves, mean and longest wall-clock seconds per move, mean nodes
  per move and nodes per second (blank for bots that do not count nodes), errors, and the time
  per move the bot was meant to take (`time_targets`): its time limit, or for a bot calibrated
  to the tournament's `seconds_per_move` (a depth or simulation count in place of a time limit)
  that time, with the ratio of the measured mean to it and whether it missed by more than
  `TIME_TOLERANCE`.
- pairings.csv also gives each side's mean seconds per move in the games of the pairing.
- ratings.csv: Elo per game and over all games, with 95% bootstrap intervals.
- errors.csv: every game that raised, with the bot that raised and the last line of the trace.

Plots (`report_files` writes them): heatmap_<game>.png (score of each row bot against each column
bot) and ratings.png.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace

import numpy as np
import pandas as pd

from spiel_bounded.arena.paired import paired_table
from spiel_bounded.arena.plackett_luce import plackett_luce_table
from spiel_bounded.arena.plackett_luce_fit import plackett_luce_fit_tables
from spiel_bounded.arena.ratings import ALL_GAMES, outcome_counts, pairwise_outcomes, rate
from spiel_bounded.arena.records import GameRecord, latest
from spiel_bounded.arena.report_data import Report
from spiel_bounded.arena.report_statistics import (
    sprt_table,
)
from spiel_bounded.arena.settings import ReportSettings
from spiel_bounded.arena.sprt import SPRTSettings
from spiel_bounded.arena.summary import summary_markdown
from spiel_bounded.arena.time_targets import TimeTarget
from spiel_bounded.stats import wilson


def _pair_seconds(records: Sequence[GameRecord]) -> dict[tuple[str, str, str], float]:
    """(game, bot, opponent) -> `bot`'s mean seconds per move in the finished games where it
    met `opponent`."""
    totals: dict[tuple[str, str, str], tuple[float, int]] = {}
    for record in records:
        if not record.ok or not record.seat_moves:
            continue
        for seat, label in enumerate(record.seats):
            moves = record.seat_moves[seat]
            if not moves:
                continue
            spent = record.seconds_per_move[seat] * moves
            for other in set(record.seats) - {label}:
                seconds, count = totals.get((record.game, label, other), (0.0, 0))
                totals[record.game, label, other] = (seconds + spent, count + moves)
    return {key: seconds / count for key, (seconds, count) in totals.items()}


def pairing_table(records: Sequence[GameRecord], order: Sequence[str]) -> pd.DataFrame:
    """W/D/L per game and pair, with 95% Wilson intervals, the seat split and each side's mean
    seconds per move in those games."""
    pair_seconds = _pair_seconds(records)
    outcomes = pairwise_outcomes(records, order)
    counts = outcome_counts(outcomes)
    seats = sorted(int(seat) for seat in outcomes["seat"].unique() if seat >= 0)
    rows = []
    for row in counts.itertuples(index=False):
        games = row.wins + row.draws + row.losses
        entry: dict[str, object] = {
            "game": row.game,
            "bot": row.bot,
            "opponent": row.opponent,
            "games": games,
            "wins": row.wins,
            "draws": row.draws,
            "losses": row.losses,
        }
        for name, count in (("win", row.wins), ("draw", row.draws), ("loss", row.losses)):
            entry[f"{name}_rate"] = count / games
            entry[f"{name}_low"], entry[f"{name}_high"] = wilson(count, games)
        score = row.wins + 0.5 * row.draws
        entry["score"] = score / games
        entry["score_low"], entry["score_high"] = wilson(score, games)
        entry["seconds_per_move"] = pair_seconds.get((row.game, row.bot, row.opponent), math.nan)
        entry["opponent_seconds_per_move"] = pair_seconds.get(
            (row.game, row.opponent, row.bot), math.nan
        )
        mine = outcomes[
            (outcomes["game"] == row.game)
            & (outcomes["bot"] == row.bot)
            & (outcomes["opponent"] == row.opponent)
        ]
        for seat in seats:
            in_seat = mine[mine["seat"] == seat]["score"]
            entry[f"games_as_p{seat}"] = len(in_seat)
            entry[f"score_as_p{seat}"] = float(in_seat.mean()) if len(in_seat) else math.nan
        rows.append(entry)
    return pd.DataFrame(rows)


def score_matrix(pairings: pd.DataFrame, game: str, order: Sequence[str]) -> pd.DataFrame:
    """Score of each row bot against each column bot in `game` (NaN: they did not meet)."""
    mine = pairings[pairings["game"] == game]
    present = set(mine["bot"]) | set(mine["opponent"])
    labels = [label for label in order if label in present]
    matrix = pd.DataFrame(np.nan, index=labels, columns=labels)
    for row in mine.itertuples(index=False):
        matrix.loc[row.bot, row.opponent] = row.score
        matrix.loc[row.opponent, row.bot] = 1.0 - row.score
    return matrix


def bot_table(
    records: Sequence[GameRecord],
    order: Sequence[str],
    targets: Mapping[tuple[str, str], TimeTarget] | None = None,
) -> pd.DataFrame:
    """Per game and bot: moves, seconds per move (mean, max), nodes per move, nodes/s, errors,
    and against the bot's `TimeTarget` (from `targets`; blank when it has none): the target's
    seconds, "limit" or "calibrated" (and with what), the mean's ratio to it and whether it
    missed."""
    targets = targets or {}
    totals: dict[tuple[str, str], dict[str, float]] = {}
    for record in records:
        for seat, label in enumerate(record.seats):
            entry = totals.setdefault(
                (record.game, label),
                {
                    "games": 0,
                    "moves": 0,
                    "seconds": 0.0,
                    "max_seconds": 0.0,
                    "counted_moves": 0,
                    "nodes": 0.0,
                    "counted_seconds": 0.0,
                    "errors": 0,
                },
            )
            entry["games"] += 1
            entry["errors"] += int(record.error_seat == seat)
            played = record.seat_moves[seat] if record.seat_moves else 0
            if played == 0:
                continue
            mean = record.seconds_per_move[seat]
            entry["moves"] += played
            entry["seconds"] += mean * played
            entry["max_seconds"] = max(entry["max_seconds"], record.max_seconds[seat])
            nodes = record.nodes_per_move[seat]
            if nodes is not None:
                entry["counted_moves"] += played
                entry["nodes"] += nodes * played
                entry["counted_seconds"] += mean * played
    rank = {label: index for index, label in enumerate(order)}
    games = list(dict.fromkeys(record.game for record in records))
    rows = []
    for (game, label), entry in sorted(
        totals.items(), key=lambda item: (games.index(item[0][0]), rank.get(item[0][1], 0))
    ):
        moves = entry["moves"]
        counted = entry["counted_moves"]
        mean = entry["seconds"] / moves if moves else math.nan
        target = targets.get((game, label))
        rows.append(
            {
                "game": game,
                "bot": label,
                "games": int(entry["games"]),
                "moves": int(moves),
                "seconds_per_move": mean,
                "max_seconds_per_move": entry["max_seconds"] if moves else math.nan,
                "nodes_per_move": entry["nodes"] / counted if counted else math.nan,
                "nodes_per_second": (
                    entry["nodes"] / entry["counted_seconds"]
                    if counted and entry["counted_seconds"] > 0
                    else math.nan
                ),
                "errors": int(entry["errors"]),
                "target_seconds_per_move": target.seconds if target else math.nan,
                "target": "" if target is None else "calibrated" if target.calibrated else "limit",
                "calibrated_with": target.budget if target else "",
                "time_ratio": mean / target.seconds if target and target.seconds > 0 else math.nan,
                "missed_target": bool(target and target.missed(mean)),
            }
        )
    return pd.DataFrame(rows)


def rating_table(
    records: Sequence[GameRecord], order: Sequence[str], settings: ReportSettings
) -> pd.DataFrame:
    """Elo per game and over all games, with 95% bootstrap intervals."""
    outcomes = pairwise_outcomes(records, order)
    frames = []
    games = list(dict.fromkeys(outcomes["game"]))
    scopes = [(game, outcomes[outcomes["game"] == game]) for game in games]
    if len(games) > 1:
        scopes.append((ALL_GAMES, outcomes))
    for scope, (name, subset) in enumerate(scopes):
        rng = np.random.default_rng([settings.seed, scope])
        table = rate(subset, order, anchor=settings.anchor, bootstrap=settings.bootstrap, rng=rng)
        frames.append(table.assign(scope=name))
    if not frames:
        return pd.DataFrame(columns=["scope", "bot", "elo", "low", "high", "games"])
    return pd.concat(frames, ignore_index=True)[["scope", "bot", "elo", "low", "high", "games"]]


def error_table(records: Sequence[GameRecord]) -> pd.DataFrame:
    """Every game that raised: id, game, bots, the bot that raised, last line of the error."""
    rows = []
    for record in records:
        if record.ok:
            continue
        lines = [line for line in record.error.strip().splitlines() if line.strip()]
        rows.append(
            {
                "game_id": record.game_id,
                "game": record.game,
                "seats": " vs ".join(record.seats),
                "raised_by": (
                    record.seats[record.error_seat] if record.error_seat is not None else ""
                ),
                "error": lines[-1].strip() if lines else "",
            }
        )
    return pd.DataFrame(rows, columns=["game_id", "game", "seats", "raised_by", "error"])


def build_report(
    records: Sequence[GameRecord],
    settings: ReportSettings,
    *,
    order: Sequence[str] | None = None,
    scheduled: int | None = None,
    title: str = "Round-robin tournament",
    command: str | None = None,
    targets: Mapping[tuple[str, str], TimeTarget] | None = None,
    games: Sequence[str] | None = None,
    tables: Sequence[Sequence[str]] | None = None,
    sprt: SPRTSettings | None = None,
) -> Report:
    """All tables and summary.md from game records: a function of the set of records, not of
    their order in games.csv (a Dask run writes them in the order games finish): they are put in
    `canonical_order` before anything is counted or resampled.

    `command` is a sentence (markdown) saying how the results and report were produced.

    Args:
        records: Rows of games.csv (a game id seen twice counts once, the last row).
        settings: Elo anchor and bootstrap.
        order: Bot labels in display order (default: order of first appearance).
        scheduled: Games in the schedule, to say how complete the results are.
        title: Heading of summary.md.
        command: How the results were produced, e.g. the commands (markdown), for summary.md.
        targets: The time per move each (game, bot label) was meant to take (`time_targets`);
            summary.md names the bots that missed theirs.
        games: Game strings in config order (the order of the report's sections; games not
            listed follow in alphabetical order).
        tables: The config's explicit tables (`pairing = "tables"`), in config order.
        sprt: The tournament's SPRT (`[tournament] sprt`), replayed for the report.
    """
    records = latest(records)
    seen = {label for record in records for label in record.seats}
    order = [label for label in (order or []) if label in seen] + sorted(seen - set(order or []))
    records = canonical_order(records, order, games, tables)
    pairings = pairing_table(records, order)
    games = list(dict.fromkeys(record.game for record in records))
    scores = {
        game: score_matrix(pairings, game, order)
        for game in games
        if not pairings.empty and game in set(pairings["game"])
    }
    report = Report(
        pairings=pairings,
        bots=bot_table(records, order, targets),
        ratings=rating_table(records, order, settings),
        errors=error_table(records),
        scores=scores,
        paired=paired_table(records, order),
        plackett_luce=plackett_luce_table(records, order),
        plackett_luce_fit=plackett_luce_fit_tables(
            records,
            order,
            anchor=settings.anchor,
            bootstrap=settings.bootstrap,
            seed=settings.seed,
        ),
        sprt=sprt_table(records, order, sprt),
    )
    text = summary_markdown(report, records, settings, games, scheduled, title, command, sprt)
    return replace(report, markdown=text)


def canonical_order(
    records: Sequence[GameRecord],
    order: Sequence[str],
    games: Sequence[str] | None = None,
    tables: Sequence[Sequence[str]] | None = None,
) -> list[GameRecord]:
    """`records` (one per game id) sorted by game (in the order of `games`, then alphabetical),
    table (in the order of `tables`, the config's explicit tables; then by its bots' places in
    `order`), round and game id: the schedule's order within a game, whatever order the games
    finished in. Every table, the bootstrap's draws and the sums behind the means follow this
    order, so the report depends only on the set of records."""
    game_rank = {game: index for index, game in enumerate(games or ())}
    table_rank: dict[tuple[str, ...], int] = {}
    for index, table in enumerate(tables or ()):
        table_rank.setdefault(tuple(sorted(table)), index)
    rank = {label: index for index, label in enumerate(order)}
    return sorted(
        records,
        key=lambda record: (
            game_rank.get(record.game, len(game_rank)),
            record.game,
            table_rank.get(tuple(sorted(record.seats)), len(table_rank)),
            tuple(sorted(rank.get(label, len(rank)) for label in record.seats)),
            record.round,
            record.game_id,
        ),
    )
