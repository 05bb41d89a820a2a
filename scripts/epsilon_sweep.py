"""Epsilon sweep: what bounding buys (issue 16, questions Q1 and Q5 of the source notes).

    python scripts/epsilon_sweep.py --config configs/epsilon_sweep.toml
    python scripts/epsilon_sweep.py --config configs/epsilon_sweep.toml --workers=2
    python scripts/epsilon_sweep.py --config ... --executor=dask --scheduler=tcp://host:8786
    python scripts/epsilon_sweep.py --config configs/epsilon_sweep.toml --report_only

Writes the position sets (JSON) into the config's positions_directory, runs every task that
OUTPUT/records.jsonl does not hold yet (so rerunning resumes: a run stopped by Ctrl-C, SIGTERM or
a kill loses no finished task), shows progress on stderr, then writes OUTPUT/report.md and the
PNG plots. Exit status: 0 done; 2 a config, output-directory or command-line error; 130 after
Ctrl-C, 143 after SIGTERM.
"""

from __future__ import annotations

import shlex
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from absl import flags

from spiel_bounded import commandline
from spiel_bounded.experiments.config import SweepConfigError, load_sweep_config
from spiel_bounded.experiments.positions import write_positions
from spiel_bounded.experiments.report import build_report, write_report
from spiel_bounded.experiments.runner import run_sweep
from spiel_bounded.experiments.tasks import TaskRecord
from spiel_bounded.runs import ClusterError, Progress, StoreError

_CONFIG = flags.DEFINE_string("config", None, "Sweep config (TOML).")
_REPORT_ONLY = flags.DEFINE_bool("report_only", False, "Rebuild the report; run nothing.")
_QUIET = flags.DEFINE_bool("quiet", False, "No progress display.")
_RUN = commandline.define_run_flags()


class _Display:
    """A progress line on stderr every `every` seconds (and at the end)."""

    def __init__(self, every: float = 10.0) -> None:
        self.every = every
        self.last = -float("inf")

    def __call__(self, record: TaskRecord, progress: Progress) -> None:
        if not record.ok:
            last = record.error.strip().splitlines()[-1]
            sys.stderr.write(f"error in {record.task_id}: {last}\n")
        now = time.monotonic()
        if now - self.last < self.every and progress.done < progress.total:
            return
        self.last = now
        left = progress.seconds_left
        sys.stderr.write(
            f"{progress.done}/{progress.total} tasks ({progress.resumed} resumed), "
            f"{progress.rate:.2f}/s, elapsed {progress.elapsed:.0f} s, "
            f"left ~{'?' if left is None else f'{left:.0f} s'}, errors {progress.errors}\n"
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
    program = "python scripts/epsilon_sweep.py"
    try:
        with commandline.native_errors_said_once():  # OpenSpiel's line about a bad game string
            config = load_sweep_config(_CONFIG.value, overrides=overrides)
        if not _REPORT_ONLY.value:
            for position_set in config.sets:
                write_positions(config.positions_directory, position_set)
            command = " ".join([program, *(shlex.quote(arg) for arg in sys.argv[1:])])
            result = run_sweep(
                config,
                on_progress=None if _QUIET.value else _Display(),
                command=command,
                on_wait=None if _QUIET.value else commandline.WaitingLine(sys.stderr),
            )
            if result.settings_note:
                sys.stderr.write(f"note: {result.settings_note}; they were run again\n")
            sys.stderr.write(
                f"{result.done} tasks run in {result.seconds:.0f} s ({result.resumed} already "
                f"done, {result.errors} errors); records in {result.output}\n"
            )
    except (SweepConfigError, StoreError) as error:
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
    report = build_report(config, rebuild)
    written = write_report(report, Path(config.run.output))
    sys.stdout.write(report.markdown)
    sys.stdout.write(f"\nWrote {', '.join(str(path) for path in written)}\n")


if __name__ == "__main__":
    # --help exits 0, a flag that does not parse 2.
    commandline.run(main, program="python scripts/epsilon_sweep.py")
