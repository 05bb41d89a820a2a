"""Runs the atlas on the shared engine (`spiel_bounded.runs`): lock the output directory, check
its config, run the missing tasks of the first stage, then those of the second (which need the
first stage's depths), then the arena tournaments the config names.

Every finished task is appended to OUTPUT/records.jsonl with one `write` and an `fsync` before
the next is accepted, so a run killed at any moment loses no finished task; OUTPUT/atlas.json
holds the config's fingerprint, and a run whose `[atlas]` settings changed is refused
(`ConfigChangedError`); rows may be added or changed, and only their new tasks run. Each
tournament keeps its own directory (its config's `[run] output`) and resumes the same way.
Nothing here prints: progress goes to callbacks.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Final

from spiel_bounded.arena.config import load_config
from spiel_bounded.arena.runner import run_tournament
from spiel_bounded.experiments.atlas.config import AtlasConfig
from spiel_bounded.experiments.atlas.tasks import (
    AtlasRecord,
    calibrated_depths,
    error_record,
    first_stage,
    run_atlas_task,
    second_stage,
)
from spiel_bounded.runs.control import Progress, sigterm_stops_the_run
from spiel_bounded.runs.executors import Executor, make_executor
from spiel_bounded.runs.journal import (
    Journal,
    StoreError,
)
from spiel_bounded.runs.lock import locked
from spiel_bounded.runs.records import (
    RecordJob,
    RecordKeeper,
    resumable_manifest,
    write_manifest,
)

RECORDS: Final = "records.jsonl"
MANIFEST: Final = "atlas.json"


@dataclass(frozen=True)
class TournamentRun:
    """One tournament of the run: its directory (its config's `[run] output`) and wall
    seconds."""

    directory: str
    seconds: float


@dataclass(frozen=True, kw_only=True)
class AtlasRunResult:
    """What a run did.

    Attributes:
        output: The results directory.
        scheduled: Measurement tasks known at the end (both stages).
        resumed: Of those, found finished and skipped.
        done: Tasks run in this run.
        errors: Tasks of this run that raised.
        seconds: Wall-clock seconds of the measurements.
        tournaments: The tournaments run, in config order.
    """

    output: Path
    scheduled: int
    resumed: int
    done: int
    errors: int
    seconds: float
    tournaments: tuple[TournamentRun, ...] = ()


def read_records(directory: str | Path) -> list[AtlasRecord]:
    """Every complete record of OUTPUT/records.jsonl (a torn last line is ignored)."""
    path = Path(directory) / RECORDS
    try:
        return [AtlasRecord.from_line(line) for line in Journal(path).lines()]
    except (ValueError, TypeError, KeyError) as error:
        raise StoreError(f"{path}: not the atlas's records ({error})") from None


def finished(records: Sequence[AtlasRecord]) -> dict[str, AtlasRecord]:
    """The last record without error of every task id."""
    return {record.task_id: record for record in records if record.ok}


def run_atlas(
    config: AtlasConfig,
    *,
    executor: Executor | None = None,
    tournaments: bool = True,
    on_progress: Callable[[AtlasRecord, Progress], Any] | None = None,
    on_tournament: Callable[[str], Any] | None = None,
    tournament_progress: Callable[[Any, Progress], Any] | None = None,
    command: str | None = None,
    clock: Callable[[], float] = time.monotonic,
    on_wait: Callable[[str], None] | None = None,
) -> AtlasRunResult:
    """Runs every measurement of `config` not finished in OUTPUT/records.jsonl, then (with
    `tournaments`) every tournament of `[atlas] tournaments` (`on_tournament` is called with
    each config path before it starts).

    Raises:
        ConfigChangedError: The output directory holds records of another atlas config.
        RunLockedError: Another run is using the output directory.
        StoreError: The output directory or its files cannot be used.
        ConfigError: A tournament config is invalid.
        Terminated, KeyboardInterrupt: SIGTERM or Ctrl-C; every finished task is kept.
    """
    with sigterm_stops_the_run():
        with locked(config.run.output):
            result = _measure(config, executor, on_progress, command, clock, on_wait)
        played = []
        if tournaments:
            for path in config.tournaments:
                if on_tournament is not None:
                    on_tournament(path)
                started = clock()
                arena = load_config(path)
                run_tournament(arena, on_progress=tournament_progress, command=command)
                played.append(TournamentRun(str(arena.run.output), clock() - started))
    return replace(result, tournaments=tuple(played))


def _measure(
    config: AtlasConfig,
    executor: Executor | None,
    on_progress: Callable[[AtlasRecord, Progress], Any] | None,
    command: str | None,
    clock: Callable[[], float],
    on_wait: Callable[[str], None] | None,
) -> AtlasRunResult:
    directory = Path(config.run.output)
    records = read_records(directory)
    manifest = resumable_manifest(
        directory / MANIFEST, config, has_records=bool(records), what="atlas"
    )
    write_manifest(directory / MANIFEST, config, manifest, command)
    started = clock()
    totals = {"done": 0, "errors": 0, "resumed": 0, "scheduled": 0}
    chosen = executor
    with Journal(directory / RECORDS).appending() as journal:
        for stage in (1, 2):
            done_ids = finished(records)
            if stage == 1:
                tasks = first_stage(config)
            else:
                depths = calibrated_depths(config, list(done_ids.values()))
                tasks, _ = second_stage(config, depths)
            pending = [task for task in tasks if task.task_id not in done_ids]
            totals["scheduled"] += len(tasks)
            totals["resumed"] += len(tasks) - len(pending)
            if not pending:
                continue
            run = config.run
            chosen = chosen or make_executor(
                run.executor, run.workers, run.scheduler, on_wait=on_wait
            )
            keeper = RecordKeeper(
                journal,
                total=len(pending),
                resumed=len(tasks) - len(pending),
                on_progress=on_progress,
                clock=clock,
                kept=records,
            )
            chosen.run(RecordJob(run_atlas_task, error_record), pending, keeper.done)
            totals["done"] += keeper.count
            totals["errors"] += keeper.errors
    return AtlasRunResult(
        output=directory,
        scheduled=totals["scheduled"],
        resumed=totals["resumed"],
        done=totals["done"],
        errors=totals["errors"],
        seconds=clock() - started,
    )
