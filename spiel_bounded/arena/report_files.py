"""The tournament report's files: writing summary.md, the csv tables and the plots, rebuilding the
report of a results directory, and the provenance line that says how the games were played."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from spiel_bounded.arena.plackett_luce import PLACKETT_LUCE_START
from spiel_bounded.arena.records import GameRecord
from spiel_bounded.arena.report import build_report
from spiel_bounded.arena.report_data import Report
from spiel_bounded.arena.settings import ReportSettings, TournamentSettings
from spiel_bounded.arena.store import GameStore, Manifest
from spiel_bounded.arena.summary import slug
from spiel_bounded.arena.time_targets import time_targets
from spiel_bounded.params import pick


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
        ("plackett_luce_fit.csv", report.plackett_luce_fit.ratings),
        ("plackett_luce_leads.csv", report.plackett_luce_fit.leads),
        ("sprt.csv", report.sprt),
    ):
        if name in ("sprt.csv", "plackett_luce_fit.csv", "plackett_luce_leads.csv") and table.empty:
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
    """The heatmaps and rating charts as PNGs in `directory`; returns their paths. matplotlib
    is imported here, not with the command line: it costs about 0.7 s of every start."""
    from spiel_bounded.arena import plots

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
    if not report.plackett_luce_fit.ratings.empty:
        path = directory / "ratings_plackett_luce_fit.png"
        plots.rating_chart(
            report.plackett_luce_fit.ratings,
            path,
            label="Plackett-Luce fit, Elo scale (95% interval)",
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
    return report_of_records(records, manifest, settings, command=command)


def report_of_records(
    records: Sequence[GameRecord],
    manifest: Manifest | None,
    settings: ReportSettings | None = None,
    *,
    command: str | None = None,
) -> Report:
    """The report of `records` as the tournament `manifest` describes (None: no schedule, no
    time targets); `settings` None: the manifest's [report] settings."""
    if settings is None:
        stored = manifest.report if manifest is not None else {}
        settings = ReportSettings(**pick(ReportSettings, stored))
    if manifest is None:
        return build_report(records, settings, title="Round-robin tournament", command=command)
    tournament = TournamentSettings.from_canonical(manifest.tournament)
    return build_report(
        records,
        settings,
        order=manifest.labels,
        scheduled=manifest.scheduled,
        title=f"Round-robin tournament ({manifest.config_source})",
        command=command,
        targets=time_targets(tournament),
        games=tournament.games,
        tables=tournament.tables,
        sprt=tournament.sprt,
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
