"""Runs a sweep on the shared engine (`spiel_bounded.runs`): lock the output directory, resume
or refuse, run the missing tasks (a `runs.records.RecordJob`) inline, in worker processes or on
Dask.

As for a tournament, every finished task is appended to OUTPUT/records.jsonl with one `write` and an
`fsync` before the next one is accepted, so a run killed at any moment loses no finished task
(a torn last line is ignored, and cut off before anything else is appended); OUTPUT/sweep.json
holds the config's fingerprint, and a run whose sets, runs or epsilons changed is refused
(`ConfigChangedError`). A task whose search raised, or whose worker died twice, is recorded with
what happened and run again on resume. Nothing here prints: progress goes to a callback.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from spiel_bounded.experiments.config import SweepConfig
from spiel_bounded.experiments.tasks import (
    Task,
    TaskRecord,
    error_record,
    run_task,
    settings_hash,
)
from spiel_bounded.runs.control import Progress, sigterm_stops_the_run
from spiel_bounded.runs.executors import Executor, make_executor
from spiel_bounded.runs.former_settings import before_engines
from spiel_bounded.runs.journal import (
    Journal,
    StoreError,
    differences,
    read_json_object,
)
from spiel_bounded.runs.lock import locked
from spiel_bounded.runs.records import (
    RecordJob,
    RecordKeeper,
    resumable_manifest,
    write_manifest,
)

RECORDS: Final = "records.jsonl"
MANIFEST: Final = "sweep.json"


@dataclass(frozen=True, kw_only=True)
class SweepResult:
    """What a run did.

    Attributes:
        output: The results directory.
        scheduled: Tasks in the config.
        resumed: Tasks found finished and skipped.
        done: Tasks run in this run.
        errors: Tasks of this run whose search raised.
        seconds: Wall-clock seconds of this run.
        other_settings: Finished records made with other settings, run again
            (`RecordCheck.describe` said what differs in `settings_note`).
        settings_note: That one line ("" when there were none).
    """

    output: Path
    scheduled: int
    resumed: int
    done: int
    errors: int
    seconds: float
    other_settings: int = 0
    settings_note: str = ""


def read_records(directory: str | Path) -> list[TaskRecord]:
    """Every complete record of OUTPUT/records.jsonl (a torn last line is ignored)."""
    path = Path(directory) / RECORDS
    try:
        return [TaskRecord.from_line(line) for line in Journal(path).lines()]
    except (ValueError, TypeError) as error:
        raise StoreError(f"{path}: not a sweep's records ({error})") from None


@dataclass(frozen=True)
class RecordCheck:
    """The records of a sweep's directory checked against its tasks: the one check that both
    resume and the report apply.

    Attributes:
        finished: The last record of each task that finished without an error and was made
            with the task's settings (`Task.settings_hash`, or, for a search pinned to the Python
            engine, the settings its records carried before `engine`: `runs.former_settings`),
            by task id.
        other_settings: For each task not finished so, its last record that finished with
            other settings (made before a default or the config changed): never counted as
            done, run again on resume.
    """

    finished: dict[str, TaskRecord]
    other_settings: dict[str, TaskRecord]

    def describe(self, tasks: Iterable[Task], known: Mapping[str, Any]) -> str:
        """What differs, in one line ("" when every finished record has its task's settings).

        Args:
            tasks: The config's tasks.
            known: Settings by hash, as the manifest keeps them (`MANIFEST`'s "settings").
        """
        if not self.other_settings:
            return ""
        changes: dict[str, set[str]] = {}
        for task in tasks:
            record = self.other_settings.get(task.task_id)
            if record is None:
                continue
            before = known.get(record.settings_hash)
            if before is None:
                what = {"settings not recorded (records written before settings were)"}
            else:
                what = {
                    f"{key} {before.get(key, '(none)')!r} -> {task.settings.get(key, '(none)')!r}"
                    for key in differences(before, task.settings)
                }
            changes.setdefault(task.algorithm, set()).update(what)
        said = "; ".join(
            f"{algorithm}: {', '.join(sorted(what))}" for algorithm, what in changes.items()
        )
        return (
            f"{len(self.other_settings)} finished record(s) were made with other settings than "
            f"this config's and do not count ({said})"
        )


def check_records(records: Iterable[TaskRecord], tasks: Iterable[Task]) -> RecordCheck:
    """Which tasks `records` finish (see `RecordCheck`); records of no task are ignored."""
    wanted = {task.task_id: _accepted_hashes(task) for task in tasks}
    finished: dict[str, TaskRecord] = {}
    other: dict[str, TaskRecord] = {}
    for record in records:
        if not record.ok or record.task_id not in wanted:
            continue
        if record.settings_hash in wanted[record.task_id]:
            finished[record.task_id] = record
        else:
            other[record.task_id] = record
    return RecordCheck(
        finished=finished,
        other_settings={key: record for key, record in other.items() if key not in finished},
    )


def _accepted_hashes(task: Task) -> tuple[str, ...]:
    """The settings hashes a record of `task` may carry: today's, and for a search pinned to
    the Python engine the one its records carried before searches gained `engine`."""
    before = before_engines(task.algorithm, task.settings)
    if before is None:
        return (task.settings_hash,)
    return (task.settings_hash, settings_hash(task.algorithm, before))


def known_settings(directory: str | Path) -> dict[str, Any]:
    """Settings by hash of every config that ran in `directory` (from its manifest)."""
    manifest = read_json_object(Path(directory) / MANIFEST)
    return dict(manifest.get("settings", {})) if manifest else {}


def run_sweep(
    config: SweepConfig,
    *,
    executor: Executor | None = None,
    on_progress: Callable[[TaskRecord, Progress], Any] | None = None,
    command: str | None = None,
    clock: Callable[[], float] = time.monotonic,
    on_wait: Callable[[str], None] | None = None,
) -> SweepResult:
    """Runs every task of `config` that OUTPUT/records.jsonl does not hold finished.

    `on_wait` is called with a line to show while the Dask executor waits for a worker.

    Raises:
        ConfigChangedError: The output directory holds records of a config whose sets, runs or
            epsilons differ.
        RunLockedError: Another run is using the output directory.
        StoreError: The output directory or its files cannot be used.
        Terminated, KeyboardInterrupt: SIGTERM or Ctrl-C; every finished task is kept.
    """
    with sigterm_stops_the_run(), locked(config.run.output):
        return _run(config, executor, on_progress, command, clock, on_wait)


def _run(
    config: SweepConfig,
    executor: Executor | None,
    on_progress: Callable[[TaskRecord, Progress], Any] | None,
    command: str | None,
    clock: Callable[[], float],
    on_wait: Callable[[str], None] | None = None,
) -> SweepResult:
    directory = Path(config.run.output)
    records = read_records(directory)
    manifest = resumable_manifest(
        directory / MANIFEST, config, has_records=bool(records), what="sweep"
    )
    tasks = config.tasks()
    check = check_records(records, tasks)
    settings_note = check.describe(tasks, manifest.get("settings", {}) if manifest else {})
    known = {
        **(manifest.get("settings", {}) if manifest else {}),
        **{task.settings_hash: dict(task.settings) for task in tasks},
    }
    write_manifest(directory / MANIFEST, config, manifest, command, settings=known)
    pending = [task for task in tasks if task.task_id not in check.finished]
    resumed = len(tasks) - len(pending)
    started = clock()
    with Journal(directory / RECORDS).appending() as journal:
        keeper = RecordKeeper(
            journal, total=len(pending), resumed=resumed, on_progress=on_progress, clock=clock
        )
        if pending:
            run = config.run
            chosen = executor or make_executor(
                run.executor, run.workers, run.scheduler, on_wait=on_wait
            )
            chosen.run(RecordJob(run_task, error_record), pending, keeper.done)
    return SweepResult(
        output=directory,
        scheduled=len(tasks),
        resumed=resumed,
        done=keeper.count,
        errors=keeper.errors,
        seconds=clock() - started,
        other_settings=len(check.other_settings),
        settings_note=settings_note,
    )
