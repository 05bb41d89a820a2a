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

import json
import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Final

from spiel_bounded.arena.config import load_config
from spiel_bounded.arena.runner import run_tournament
from spiel_bounded.experiments.atlas.config import AtlasConfig
from spiel_bounded.experiments.atlas.tasks import (
    AtlasRecord,
    AtlasTask,
    calibrated_depths,
    error_record,
    first_stage,
    run_atlas_task,
    second_stage,
)
from spiel_bounded.runs.control import Progress, sigterm_stops_the_run
from spiel_bounded.runs.executors import Death, Executor, Watch, make_executor
from spiel_bounded.runs.journal import (
    Appender,
    ConfigChangedError,
    Journal,
    StoreError,
    differences,
    read_json_object,
    utc_now,
    write_atomic,
)
from spiel_bounded.runs.lock import locked

RECORDS: Final = "records.jsonl"
MANIFEST: Final = "atlas.json"


class AtlasJob:
    """The atlas as a job of the shared engine: one task per measurement."""

    watch_size = 0

    def work(self, task: AtlasTask, watch: Watch | None) -> AtlasRecord:
        return run_atlas_task(task)

    def key(self, task: AtlasTask) -> Hashable:
        return task.task_id

    def describe(self, task: AtlasTask, death: Death) -> str:
        return f"its worker process {death.how}"

    def crashed(self, task: AtlasTask, death: Death) -> AtlasRecord:
        return error_record(
            task,
            f"the task killed its worker process twice: {self.describe(task, death)}; the "
            f"first time: {death.first}",
        )

    def failed(self, task: AtlasTask, message: str) -> AtlasRecord:
        return error_record(task, f"the task {message}")


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
    _write_manifest(config, directory, records, command)
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
            keeper = _Stage(
                journal=journal,
                records=records,
                total=len(pending),
                resumed=len(tasks) - len(pending),
                on_progress=on_progress,
                clock=clock,
            )
            chosen.run(AtlasJob(), pending, keeper.done)
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


class _Stage:
    """Keeps the records of one stage as they finish: the journal, the list, the progress."""

    def __init__(
        self,
        *,
        journal: Appender,
        records: list[AtlasRecord],
        total: int,
        resumed: int,
        on_progress: Callable[[AtlasRecord, Progress], Any] | None,
        clock: Callable[[], float],
    ) -> None:
        self.journal, self.records, self.total, self.resumed = journal, records, total, resumed
        self.on_progress, self.clock, self.started = on_progress, clock, clock()
        self.count = self.errors = 0

    def done(self, record: AtlasRecord) -> None:
        self.journal.append(record.to_line())
        self.records.append(record)
        self.count += 1
        self.errors += not record.ok
        if self.on_progress is not None:
            progress = Progress(
                done=self.count,
                total=self.total,
                resumed=self.resumed,
                errors=self.errors,
                elapsed=self.clock() - self.started,
            )
            self.on_progress(record, progress)


def read_manifest(directory: str | Path) -> dict[str, Any] | None:
    return read_json_object(Path(directory) / MANIFEST)


def _write_manifest(
    config: AtlasConfig, directory: Path, records: Sequence[AtlasRecord], command: str | None
) -> None:
    manifest = read_manifest(directory)
    fingerprint = config.fingerprint()
    if manifest is not None and manifest.get("fingerprint") != fingerprint and records:
        changed = differences(manifest.get("config", {}), config.canonical())
        raise ConfigChangedError(
            f"{directory} holds the records of another atlas config (from "
            f"{manifest.get('source')}, started {manifest.get('created')}); changed: "
            f"{', '.join(changed) or 'the fingerprint'}. Resume with that config, or use "
            "another output directory"
        )
    if manifest is None and records:
        raise ConfigChangedError(
            f"{directory / RECORDS} holds records but {MANIFEST} is missing, so they cannot be "
            "matched to this config; use another output directory"
        )
    commands = list(manifest.get("commands", [])) if manifest else []
    if command and command not in commands:
        commands.append(command)
    data = {
        "fingerprint": fingerprint,
        "config": config.canonical(),
        "source": config.source,
        "text": config.text,
        "created": manifest.get("created") if manifest else utc_now(),
        "commands": commands,
    }
    directory.mkdir(parents=True, exist_ok=True)
    write_atomic(directory / MANIFEST, json.dumps(data, indent=1, sort_keys=True) + "\n")
