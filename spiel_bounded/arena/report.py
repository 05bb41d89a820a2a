"""The tournament report: pandas tables, summary.md, csv files and plots, from games.csv alone.

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

Plots: heatmap_<game>.png (score of each row bot against each column bot) and ratings.png.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final

import numpy as np
import pandas as pd

from spiel_bounded import markdown, registry
from spiel_bounded.arena import plots
from spiel_bounded.arena.paired import paired_table
from spiel_bounded.arena.plackett_luce import PLACKETT_LUCE_START, plackett_luce_table
from spiel_bounded.arena.ratings import ALL_GAMES, outcome_counts, pairwise_outcomes, rate
from spiel_bounded.arena.records import GameRecord, latest
from spiel_bounded.arena.report_statistics import (
    paired_lines,
    plackett_luce_lines,
    sprt_lines,
    sprt_table,
)
from spiel_bounded.arena.settings import ReportSettings, takes_seconds_per_move
from spiel_bounded.arena.sprt import SPRTSettings
from spiel_bounded.arena.store import GameStore, Manifest
from spiel_bounded.games import load_game
from spiel_bounded.stats import wilson

BUDGET_PARAMS: Final = ("depth", "simulations", "nodes")
"""Parameters that stand in for a time limit in a bot calibrated to `seconds_per_move`."""

TIME_TOLERANCE: Final = 0.5
"""A bot misses its time target when its mean time per move is more than this fraction above
it (a time limit or a calibration), or below it (a calibration only: a time limit is an upper
bound that a bot may well not need, e.g. once it has solved the position)."""


@dataclass(frozen=True, kw_only=True)
class TimeTarget:
    """The time per move a bot was meant to take in one game of a tournament.

    Attributes:
        seconds: Seconds per move.
        calibrated: False: the bot's own time limit (`seconds`). True: the bot takes no time
            limit, and its `budget` was calibrated to the tournament's `seconds_per_move`
            (`scripts/calibrate_arena.py`), so the arena cannot hold it to that time.
        budget: What stands in for the limit when calibrated, e.g. "depth 6".
        whole_game: The calibrated budget is a depth that reaches the end of every game (depth
            9 on tic_tac_toe): no budget could make it take longer, so taking less time than
            the target is no miss.
    """

    seconds: float
    calibrated: bool = False
    budget: str = ""
    whole_game: bool = False

    def missed(self, mean_seconds: float) -> bool:
        """True when `mean_seconds` per move is off this target by more than TIME_TOLERANCE."""
        if math.isnan(mean_seconds) or self.seconds <= 0:
            return False
        ratio = mean_seconds / self.seconds
        under = self.calibrated and not self.whole_game and ratio < 1 - TIME_TOLERANCE
        return ratio > 1 + TIME_TOLERANCE or under


def time_targets(tournament: Mapping[str, Any]) -> dict[tuple[str, str], TimeTarget]:
    """The time target of each (game, bot label) of a tournament, from its settings as stored
    in run.json (`TournamentSettings.canonical()`).

    A bot that sets `seconds` is held to it; one that takes `seconds` and sets none got the
    tournament's `seconds_per_move`; one without a `seconds` parameter whose `depth`,
    `simulations` or `nodes` is set was calibrated to `seconds_per_move` (`python_mcts`,
    `openspiel_ab`). Other bots (`random`, bots outside the registry) have no target.
    """
    per_move = tournament.get("seconds_per_move")
    registered = {spec.name for spec in registry.list_bots()}
    targets = {}
    for entry in tournament.get("bots", []):
        if entry["bot"] not in registered:
            continue  # a bot outside the registry
        for game in tournament.get("games", []):
            params = {**entry.get("params", {}), **entry.get("per_game", {}).get(game, {})}
            key = (game, entry["label"])
            if params.get("seconds") is not None:
                targets[key] = TimeTarget(seconds=float(params["seconds"]))
            elif per_move is None:
                continue
            elif takes_seconds_per_move(entry["bot"], params):
                targets[key] = TimeTarget(seconds=float(per_move))
            else:
                budget = [f"{name} {params[name]}" for name in BUDGET_PARAMS if name in params]
                if budget:
                    depth = params.get("depth")
                    targets[key] = TimeTarget(
                        seconds=float(per_move),
                        calibrated=True,
                        budget=", ".join(budget),
                        whole_game=depth is not None and depth >= _longest(game),
                    )
    return targets


def _longest(game: str) -> int:
    """The most plies a game can last (`max_game_length`)."""
    return int(load_game(game).max_game_length())


@dataclass(frozen=True, kw_only=True)
class Report:
    """Everything the report shows.

    Attributes:
        pairings: Per game and pair: W/D/L, rates with intervals, seat split.
        bots: Per game and bot: time and nodes per move, errors.
        ratings: Per scope (each game, then "all games") and bot: Elo with interval.
        errors: Games that raised.
        scores: Per game, the matrix of each row bot's score against each column bot.
        paired: Per two-player game and pair: pentanomial statistics (`paired.paired_table`).
        plackett_luce: Per scope and bot: ratings from finishing orders
            (`plackett_luce.plackett_luce_table`).
        sprt: Per two-bot pairing, the SPRT's result when the tournament has one
            (`report_statistics.sprt_table`).
        markdown: summary.md.
    """

    pairings: pd.DataFrame
    bots: pd.DataFrame
    ratings: pd.DataFrame
    errors: pd.DataFrame
    scores: dict[str, pd.DataFrame] = field(default_factory=dict)
    paired: pd.DataFrame = field(default_factory=pd.DataFrame)
    plackett_luce: pd.DataFrame = field(default_factory=pd.DataFrame)
    sprt: pd.DataFrame = field(default_factory=pd.DataFrame)
    markdown: str = ""


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
        sprt=sprt_table(records, order, sprt),
    )
    text = _markdown(report, records, settings, games, scheduled, title, command, sprt)
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


def write_report(report: Report, directory: str | Path, *, figures: bool = True) -> list[Path]:
    """Writes summary.md, the csv tables and (with `figures`) the PNG plots; returns the paths
    written."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, table in (
        ("pairings.csv", report.pairings),
        ("bots.csv", report.bots),
        ("ratings.csv", report.ratings),
        ("errors.csv", report.errors),
        ("paired.csv", report.paired),
        ("plackett_luce.csv", report.plackett_luce),
        ("sprt.csv", report.sprt),
    ):
        if name == "sprt.csv" and report.sprt.empty:
            continue
        path = directory / name
        table.to_csv(path, index=False, float_format="%.6g")
        written.append(path)
    if figures:
        written += _write_figures(report, directory)
    path = directory / "summary.md"
    path.write_text(report.markdown)
    written.append(path)
    return written


def _write_figures(report: Report, directory: Path) -> list[Path]:
    """The heatmaps and rating charts as PNGs in `directory`; returns their paths."""
    written = []
    for game, matrix in report.scores.items():
        path = directory / f"heatmap_{slug(game)}.png"
        plots.score_heatmap(matrix, f"{game}: score of row bot against column bot", path)
        written.append(path)
    if not report.ratings.empty:
        path = directory / "ratings.png"
        plots.rating_chart(report.ratings, path)
        written.append(path)
    if not report.plackett_luce.empty:
        path = directory / "ratings_plackett_luce.png"
        plots.rating_chart(
            report.plackett_luce,
            path,
            value="mu",
            label="Plackett-Luce mu (95% interval)",
            reference=PLACKETT_LUCE_START,
        )
        written.append(path)
    return written


def report_from_directory(
    directory: str | Path,
    settings: ReportSettings | None = None,
    *,
    command: str | None = None,
    manifest: Manifest | None = None,
) -> Report:
    """Builds the report of a results directory from games.csv (and run.json when present).

    Reads only: nothing in the directory is written.

    Args:
        directory: The results directory.
        settings: Elo anchor and bootstrap (default: the [report] settings in the manifest).
        command: How the results were produced (markdown), for summary.md.
        manifest: What run.json would say (e.g. rebuilt from the config); None: run.json.

    Raises:
        StoreError: games.csv or (when `manifest` is None) run.json is unreadable.
    """
    store = GameStore(directory)
    records = store.read_records()
    if manifest is None:
        manifest = store.read_manifest()
    if settings is None:
        stored = manifest.report if manifest is not None else {}
        settings = ReportSettings(
            anchor=stored.get("anchor"),
            bootstrap=int(stored.get("bootstrap", 1000)),
            seed=int(stored.get("seed", 0)),
        )
    title = "Round-robin tournament"
    if manifest is not None:
        title += f" ({manifest.config_source})"
    return build_report(
        records,
        settings,
        order=manifest.labels if manifest is not None else None,
        scheduled=manifest.scheduled if manifest is not None else None,
        title=title,
        command=command,
        targets=time_targets(manifest.tournament) if manifest is not None else None,
        games=manifest.tournament.get("games") if manifest is not None else None,
        tables=manifest.tournament.get("tables") if manifest is not None else None,
        sprt=SPRTSettings(**manifest.tournament["sprt"])
        if manifest is not None and manifest.tournament.get("sprt")
        else None,
    )


def provenance(played: Sequence[str], command: str, *, rebuilt: bool) -> str:
    """The summary.md sentence saying how the games were played and how to make the report.

    After a run (`rebuilt` False): "Games played with `A`, then `B`; rebuild this report with
    `C`."; after `--report_only` (`rebuilt` True): "...; report rebuilt with `C`.". `played`
    may be empty.
    """
    tail = (
        f"report rebuilt with `{command}`." if rebuilt else f"rebuild this report with `{command}`."
    )
    if not played:
        return tail[0].upper() + tail[1:]
    return f"Games played with {', then '.join(f'`{item}`' for item in played)}; {tail}"


_PLAYED: Final = re.compile(
    r"^Games played with (.+?); (?:report rebuilt|rebuild this report) with ", re.MULTILINE
)


def commands_in_summary(path: str | Path) -> tuple[str, ...]:
    """The commands that `provenance` wrote into an existing summary.md (none if it has none).

    For results whose run.json predates `Manifest.commands` (committed results): the line
    naming the command that played them survives a rebuilt report.
    """
    try:
        text = Path(path).read_text()
    except (OSError, UnicodeDecodeError):
        return ()
    found = _PLAYED.search(text)
    return tuple(re.findall(r"`([^`]+)`", found.group(1))) if found else ()


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


def _markdown(
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
