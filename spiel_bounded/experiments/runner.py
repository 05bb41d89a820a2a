"""Runs a sweep: lock the output directory, resume or refuse, run the missing tasks.

Like the tournament runner (`spiel_bounded.arena.runner`, whose lock, errors and SIGTERM handling
it reuses): every finished task is appended to OUTPUT/records.jsonl with one `write` and an
`fsync` before the next one is accepted, so a run killed at any moment loses no finished task
(a torn last line is ignored, and cut off before anything else is appended); OUTPUT/sweep.json
holds the config's fingerprint, and a run whose sets, runs or epsilons changed is refused
(`ConfigChangedError`). A task whose search raised is recorded with its traceback and run again
on resume. Nothing here prints: progress goes to a callback.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path
from typing import Any, Final, Protocol

from spiel_bounded.arena.lock import locked
from spiel_bounded.arena.runner import Progress, _sigterm_stops_the_run
from spiel_bounded.arena.store import ConfigChangedError, StoreError, utc_now
from spiel_bounded.cluster import dask_client
from spiel_bounded.experiments.config import SweepConfig
from spiel_bounded.experiments.tasks import Task, TaskRecord, run_task

RECORDS: Final = "records.jsonl"
MANIFEST: Final = "sweep.json"

Done = Callable[[TaskRecord], None]


class SweepExecutor(Protocol):
    """Runs tasks and calls `done` with each record, in the order they finish."""

    def run(self, tasks: Sequence[Task], done: Done) -> None: ...


class InlineExecutor:
    """One task at a time in this process."""

    def run(self, tasks: Sequence[Task], done: Done) -> None:
        for task in tasks:
            done(run_task(task))


class ProcessExecutor:
    """Local worker processes (spawn), one task at a time each; on any exception (Ctrl-C,
    SIGTERM) the workers are killed at once and the tasks in flight are run again on resume."""

    def __init__(self, workers: int) -> None:
        self.workers = workers

    def run(self, tasks: Sequence[Task], done: Done) -> None:
        pool = get_context("spawn").Pool(self.workers)
        try:
            for record in pool.imap_unordered(run_task, tasks, chunksize=1):
                done(record)
            pool.close()
        finally:
            pool.terminate()
            pool.join()


class DaskExecutor:
    """A Dask cluster at `scheduler`, or a local one of `workers` processes (cluster extra)."""

    def __init__(self, workers: int, scheduler: str | None = None) -> None:
        self.workers = workers
        self.scheduler = scheduler

    def run(self, tasks: Sequence[Task], done: Done) -> None:
        with dask_client(self.workers, self.scheduler) as client:
            from distributed import as_completed

            futures = client.map(run_task, list(tasks), pure=False)
            for future in as_completed(futures):
                done(future.result())
                future.release()


def make_executor(config: SweepConfig) -> SweepExecutor:
    """The executor the config's [run] section asks for."""
    if config.run.executor == "inline":
        return InlineExecutor()
    if config.run.executor == "dask":
        return DaskExecutor(config.run.workers, config.run.scheduler)
    return ProcessExecutor(config.run.workers)


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
    """

    output: Path
    scheduled: int
    resumed: int
    done: int
    errors: int
    seconds: float


def read_records(directory: str | Path) -> list[TaskRecord]:
    """Every complete record of OUTPUT/records.jsonl (a torn last line is ignored)."""
    path = Path(directory) / RECORDS
    if not path.exists():
        return []
    lines = path.read_bytes().decode("utf-8", errors="replace").split("\n")[:-1]
    try:
        return [TaskRecord.from_line(line) for line in lines if line]
    except (ValueError, TypeError) as error:
        raise StoreError(f"{path}: not a sweep's records ({error})") from None


def finished_records(records: Iterable[TaskRecord]) -> dict[str, TaskRecord]:
    """The last record of each task that finished without an error, by task id."""
    return {record.task_id: record for record in records if record.ok}


def _read_manifest(directory: str | Path) -> dict[str, Any] | None:
    path = Path(directory) / MANIFEST
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as error:
        raise StoreError(f"{path}: unreadable ({error})") from None
    if not isinstance(data, dict):
        raise StoreError(f"{path}: unreadable (not a JSON object)")
    return data


def run_sweep(
    config: SweepConfig,
    *,
    executor: SweepExecutor | None = None,
    on_progress: Callable[[TaskRecord, Progress], Any] | None = None,
    command: str | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> SweepResult:
    """Runs every task of `config` that OUTPUT/records.jsonl does not hold finished.

    Raises:
        ConfigChangedError: The output directory holds records of a config whose sets, runs or
            epsilons differ.
        RunLockedError: Another run is using the output directory.
        StoreError: The output directory or its files cannot be used.
        Terminated, KeyboardInterrupt: SIGTERM or Ctrl-C; every finished task is kept.
    """
    with _sigterm_stops_the_run(), locked(config.run.output):
        return _run(config, executor, on_progress, command, clock)


def _run(
    config: SweepConfig,
    executor: SweepExecutor | None,
    on_progress: Callable[[TaskRecord, Progress], Any] | None,
    command: str | None,
    clock: Callable[[], float],
) -> SweepResult:
    directory = Path(config.run.output)
    manifest = _read_manifest(directory)
    records = read_records(directory)
    fingerprint = config.fingerprint()
    if manifest is not None and manifest.get("fingerprint") != fingerprint and records:
        before = manifest.get("config", {})
        now = config.canonical()
        changed = sorted(key for key in set(before) | set(now) if before.get(key) != now.get(key))
        raise ConfigChangedError(
            f"{directory} holds the records of another sweep config (from "
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
    _write_json(
        directory / MANIFEST,
        {
            "fingerprint": fingerprint,
            "config": config.canonical(),
            "source": config.source,
            "text": config.text,
            "created": manifest.get("created") if manifest else utc_now(),
            "commands": commands,
        },
    )
    tasks = config.tasks()
    finished = finished_records(records)
    pending = [task for task in tasks if task.task_id not in finished]
    resumed = len(tasks) - len(pending)
    started = clock()
    counts = {"done": 0, "errors": 0}
    with _appending(directory / RECORDS) as append:

        def done(record: TaskRecord) -> None:
            append(record)
            counts["done"] += 1
            counts["errors"] += not record.ok
            if on_progress is not None:
                progress = Progress(
                    done=counts["done"],
                    total=len(pending),
                    resumed=resumed,
                    errors=counts["errors"],
                    elapsed=clock() - started,
                )
                on_progress(record, progress)

        if pending:
            (executor or make_executor(config)).run(pending, done)
    return SweepResult(
        output=directory,
        scheduled=len(tasks),
        resumed=resumed,
        done=counts["done"],
        errors=counts["errors"],
        seconds=clock() - started,
    )


@contextmanager
def _appending(path: Path) -> Iterator[Callable[[TaskRecord], None]]:
    """Appends records to `path`, one `write` and `fsync` each (a torn tail is cut first)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():
        data = path.read_bytes()
        keep = data.rfind(b"\n") + 1
        if keep < len(data):
            os.truncate(path, keep)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def append(record: TaskRecord) -> None:
        view = memoryview(record.to_line().encode())
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)

    try:
        yield append
    finally:
        os.close(fd)


def _write_json(path: Path, data: dict[str, Any]) -> None:
    """Writes `path` atomically (a temporary file renamed over it)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".json.tmp")
    with open(temporary, "w") as handle:
        handle.write(json.dumps(data, indent=1, sort_keys=True) + "\n")
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)
