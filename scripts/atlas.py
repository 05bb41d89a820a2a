"""The catalogue atlas: what bounding buys over OpenSpiel's catalogue, one row per game (issue 27).

    python scripts/atlas.py --config configs/atlas.toml                  # run / resume, report
    python scripts/atlas.py --config configs/atlas.toml --report_only    # report only
    python scripts/atlas.py --config configs/atlas.toml --report_only --nofigures  # no PNGs
    python scripts/atlas.py --config configs/atlas.toml --tournaments=false  # measurements only
    python scripts/atlas.py --config ... --executor=dask --scheduler=tcp://host:8786

Runs every measurement that OUTPUT/records.jsonl does not hold yet (facts and depth calibration
first, then Q1, OpenSpiel comparisons, solving, interval traces and max^n pruning), then the
arena tournaments of `[atlas] tournaments`, each resuming in its own directory; so rerunning
resumes, and a run stopped by Ctrl-C, SIGTERM or a kill loses no finished task or game. Shows
progress on stderr, then writes report.md and the PNG plots into the parent of OUTPUT (for
configs/atlas.toml: results/atlas/) and each tournament's own report (summary.md, tables, plots)
into its directory. Exit status: 0 done; 2 a config, output-directory or
command-line error; 130 after Ctrl-C, 143 after SIGTERM.
"""

from __future__ import annotations

import shlex
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from absl import flags

from spiel_bounded import commandline
from spiel_bounded.arena.config import ConfigError, load_config
from spiel_bounded.arena.report_files import report_from_directory, write_report
from spiel_bounded.experiments.atlas.config import AtlasConfigError, load_atlas_config
from spiel_bounded.experiments.atlas.report import build_atlas_report
from spiel_bounded.experiments.atlas.runner import run_atlas
from spiel_bounded.experiments.report import write_report as write_files
from spiel_bounded.runs import ClusterError, Progress, StoreError

_CONFIG = flags.DEFINE_string("config", None, "Atlas config (TOML).")
_REPORT_ONLY = flags.DEFINE_bool("report_only", False, "Rebuild the report; run nothing.")
_TOURNAMENTS = flags.DEFINE_bool("tournaments", True, "Run the config's tournaments too.")
_FIGURES = flags.DEFINE_bool(
    "figures",
    True,
    "Write the PNG plots (--nofigures: skip the PNG files, which report.md still links; faster).",
)
_QUIET = flags.DEFINE_bool("quiet", False, "No progress display.")
_RUN = commandline.define_run_flags()


class _Display:
    """A progress line on stderr every `every` seconds (and at the end of each stage)."""

    def __init__(self, every: float = 15.0) -> None:
        self.every = every
        self.last = -float("inf")

    def __call__(self, record: Any, progress: Progress) -> None:
        error = getattr(record, "error", "")
        if error:
            name = getattr(record, "task_id", "a game")
            sys.stderr.write(f"error in {name}: {error.strip().splitlines()[-1]}\n")
        now = time.monotonic()
        if now - self.last < self.every and progress.done < progress.total:
            return
        self.last = now
        left = progress.seconds_left
        sys.stderr.write(
            f"{progress.done}/{progress.total} ({progress.resumed} resumed), "
            f"elapsed {progress.elapsed:.0f} s, left ~{'?' if left is None else f'{left:.0f} s'}, "
            f"errors {progress.errors}\n"
        )
        sys.stderr.flush()


def main(argv: Sequence[str]) -> None:
    if len(argv) > 1:
        sys.stderr.write(f"error: unexpected arguments: {' '.join(argv[1:])}\n")
        sys.exit(2)
    if _CONFIG.value is None:
        sys.stderr.write("error: --config FILE is required\n")
        sys.exit(2)
    overrides = {
        **{name: holder.value for name, holder in _RUN.items()},
    }
    program = "python scripts/atlas.py"
    try:
        with commandline.native_errors_said_once():  # OpenSpiel's line about a bad game string
            config = load_atlas_config(_CONFIG.value, overrides=overrides)
        if not _REPORT_ONLY.value:
            command = " ".join([program, *(shlex.quote(arg) for arg in sys.argv[1:])])
            display = None if _QUIET.value else _Display()
            result = run_atlas(
                config,
                tournaments=_TOURNAMENTS.value,
                on_progress=display,
                on_tournament=None
                if _QUIET.value
                else lambda path: sys.stderr.write(f"tournament {path}\n"),
                tournament_progress=display,
                command=command,
                on_wait=None if _QUIET.value else commandline.WaitingLine(sys.stderr),
            )
            sys.stderr.write(
                f"{result.done} measurement tasks run in {result.seconds:.0f} s "
                f"({result.resumed} already done, {result.errors} errors); records in "
                f"{result.output}\n"
            )
            for tournament in result.tournaments:
                sys.stderr.write(f"tournament {tournament.directory}: {tournament.seconds:.0f} s\n")
    except (AtlasConfigError, ConfigError, StoreError) as error:
        sys.stderr.write(f"error: {error}\n")
        sys.exit(2)
    except ClusterError as error:
        sys.stderr.write(f"error: {error}\n")
        sys.exit(1)
    except KeyboardInterrupt as error:
        commandline.exit_stopped(error, "every finished task is in records.jsonl")
    rebuild = f"{program} --config {shlex.quote(_CONFIG.value)} --report_only"
    if _RUN["output"].value:
        rebuild += f" --output {shlex.quote(_RUN['output'].value)}"
    report = build_atlas_report(config, rebuild)
    written = write_files(report, Path(config.run.output).parent, figures=_FIGURES.value)
    for path in config.tournaments:  # each tournament's own report, as round_robin.py writes it
        directory = load_config(path).run.output
        if (Path(directory) / "games.csv").exists():
            command = f"python scripts/round_robin.py --config {path} --report_only"
            tournament_report = report_from_directory(directory, command=command)
            write_report(tournament_report, directory, figures=_FIGURES.value)
    sys.stdout.write(report.markdown)
    sys.stdout.write(f"\nWrote {', '.join(str(path) for path in written)}\n")


if __name__ == "__main__":
    # --help exits 0, a flag that does not parse 2.
    commandline.run(main, program="python scripts/atlas.py")
