"""Round-robin tournaments between registered bots: config, schedule, runner, store, report.

    config = load_config("configs/quick.toml")
    result = run_tournament(config)            # resumes; plays what games.csv lacks
    report = report_from_directory(config.run.output)
    write_report(report, config.run.output)

Modules, one job each: `config` (TOML -> validated frozen settings), `schedule` (tables, seats,
seeds), `play` (one game -> `GameRecord`), `job` (a game as a task of the shared engine,
`spiel_bounded.runs`, which runs it inline, in worker processes or on Dask), `runner` (resume,
refuse, progress), `records` and `store` (games.csv rows, run.json), `paired` (paired scores),
`ratings` (pairwise outcomes, Elo with bootstrap), `report` (the tables), `summary`
(summary.md), `report_files` (writing and rebuilding a report), `time_targets`, `plots` (PNG),
`cli` (the command line: the only module that writes to the terminal).

The report names are imported on first use, so that worker processes, which only play games,
do not pay for importing pandas and matplotlib.
"""

import importlib
from typing import TYPE_CHECKING, Any

from spiel_bounded.arena.config import ConfigError, load_config, parse_config
from spiel_bounded.arena.job import TournamentJob
from spiel_bounded.arena.play import play_match
from spiel_bounded.arena.records import GameRecord
from spiel_bounded.arena.runner import RunResult, run_tournament
from spiel_bounded.arena.schedule import Match, SeatBot, make_schedule
from spiel_bounded.arena.settings import (
    BotEntry,
    BotFactory,
    Config,
    ReportSettings,
    RunSettings,
    TournamentSettings,
)
from spiel_bounded.arena.store import GameStore
from spiel_bounded.runs import (
    ConfigChangedError,
    DaskExecutor,
    InlineExecutor,
    LockHolder,
    ProcessExecutor,
    Progress,
    RunLockedError,
    StoreError,
    Terminated,
)

if TYPE_CHECKING:
    from spiel_bounded.arena.report import build_report
    from spiel_bounded.arena.report_data import Report
    from spiel_bounded.arena.report_files import report_from_directory, write_report

_LAZY = {
    "Report": "spiel_bounded.arena.report_data",
    "build_report": "spiel_bounded.arena.report",
    "report_from_directory": "spiel_bounded.arena.report_files",
    "write_report": "spiel_bounded.arena.report_files",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "BotEntry",
    "BotFactory",
    "Config",
    "ConfigChangedError",
    "ConfigError",
    "DaskExecutor",
    "GameRecord",
    "GameStore",
    "InlineExecutor",
    "LockHolder",
    "Match",
    "ProcessExecutor",
    "Progress",
    "Report",
    "ReportSettings",
    "RunLockedError",
    "RunResult",
    "RunSettings",
    "SeatBot",
    "StoreError",
    "Terminated",
    "TournamentJob",
    "TournamentSettings",
    "build_report",
    "load_config",
    "make_schedule",
    "parse_config",
    "play_match",
    "report_from_directory",
    "run_tournament",
    "write_report",
]
