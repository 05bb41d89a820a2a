"""Jobs whose every task makes one record (the epsilon sweep, the atlas's measurements): the job
the executors run, the manifest that ties an output directory to its config, and the keeper that
journals each record as it finishes and reports progress.

The tournament keeps its games with the same keeper (`arena.runner`); its job (`arena.job`: a
game's watch names the seat that crashed it) and its directory (`arena.store`: games.csv and the
typed run.json that reports are rebuilt from) are its own.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

from spiel_bounded.runs.control import Progress
from spiel_bounded.runs.executors import Death, Watch
from spiel_bounded.runs.journal import (
    Appender,
    ConfigChangedError,
    differences,
    read_json_object,
    utc_now,
    write_atomic,
)


class KeyedTask(Protocol):
    @property
    def task_id(self) -> str: ...


class JobRecord(Protocol):
    @property
    def ok(self) -> bool: ...

    def to_line(self) -> str: ...


class JobConfig(Protocol):
    """What the manifest keeps of a job's config."""

    @property
    def source(self) -> str: ...

    @property
    def text(self) -> str: ...

    def fingerprint(self) -> str: ...

    def canonical(self) -> dict[str, Any]: ...


T = TypeVar("T", bound=KeyedTask)
R = TypeVar("R", bound=JobRecord)


@dataclass(frozen=True)
class RecordJob(Generic[T, R]):
    """A job of one record per task, keyed by `task_id`.

    Attributes:
        run: Runs a task in a worker process (a module-level function, so that it pickles).
        error: The record of a task that did not finish, from the task and what happened.
    """

    run: Callable[[T], R]
    error: Callable[[T, str], R]
    watch_size = 0

    def work(self, task: T, watch: Watch | None) -> R:
        return self.run(task)

    def key(self, task: T) -> Hashable:
        return task.task_id

    def describe(self, task: T, death: Death) -> str:
        return f"its worker process {death.how}"

    def crashed(self, task: T, death: Death) -> R:
        return self.error(
            task,
            f"the task killed its worker process twice: {self.describe(task, death)}; the "
            f"first time: {death.first}",
        )

    def failed(self, task: T, message: str) -> R:
        return self.error(task, f"the task {message}")


def resumable_manifest(
    path: Path, config: JobConfig, *, has_records: bool, what: str
) -> dict[str, Any] | None:
    """The manifest an earlier run wrote at `path` (None: no earlier run), once `config` is
    known to be the one that run had.

    Raises:
        ConfigChangedError: The directory holds records of another config (`what` names the
            kind of job in the message), or records without a manifest.
    """
    manifest = read_json_object(path)
    check_same_config(
        path,
        None
        if manifest is None
        else StoredConfig(
            fingerprint=manifest.get("fingerprint"),
            canonical=manifest.get("config", {}),
            source=manifest.get("source"),
            created=manifest.get("created"),
        ),
        fingerprint=config.fingerprint(),
        canonical=config.canonical(),
        has_records=has_records,
        what=what,
        remedy="use another output directory",
    )
    return manifest


@dataclass(frozen=True, kw_only=True)
class StoredConfig:
    """What a job's manifest says of the config whose records are in its directory."""

    fingerprint: Any
    canonical: Mapping[str, Any]
    source: Any
    created: Any


def check_same_config(
    path: Path,
    stored: StoredConfig | None,
    *,
    fingerprint: str,
    canonical: Mapping[str, Any],
    has_records: bool,
    what: str,
    remedy: str,
) -> None:
    """Refuses to add records of a config (`fingerprint`, `canonical`) to a directory whose
    records another config made (its manifest at `path` says `stored`), or whose manifest is
    missing (`stored` None) while it holds records; `what` names the kind of job, `remedy` what
    else to do (besides resuming with the stored config).

    Raises:
        ConfigChangedError: Naming the stored config and the keys that changed.
    """
    if not has_records:
        return
    if stored is None:
        raise ConfigChangedError(
            f"{path.parent} holds records but {path.name} is missing, so they cannot be "
            f"matched to this config; {remedy}"
        )
    if stored.fingerprint != fingerprint:
        changed = differences(stored.canonical, canonical)
        raise ConfigChangedError(
            f"{path.parent} holds the records of another {what} config (from "
            f"{stored.source}, started {stored.created}); changed: "
            f"{', '.join(changed) or 'the fingerprint'}. Resume with that config, or {remedy}"
        )


def write_manifest(
    path: Path,
    config: JobConfig,
    earlier: Mapping[str, Any] | None,
    command: str | None,
    **extra: Any,
) -> None:
    """Writes the manifest of a run of `config` atomically: its fingerprint, canonical form,
    source and text, when the directory's first run started, every command that ran it, and
    `extra` entries."""
    commands = list(earlier.get("commands", [])) if earlier else []
    if command and command not in commands:
        commands.append(command)
    data = {
        "fingerprint": config.fingerprint(),
        "config": config.canonical(),
        "source": config.source,
        "text": config.text,
        "created": earlier.get("created") if earlier else utc_now(),
        "commands": commands,
        **extra,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, json.dumps(data, indent=1, sort_keys=True) + "\n")


class RecordKeeper(Generic[R]):
    """Keeps the records of one batch of tasks as they finish: appends each to the journal,
    counts it, and reports progress.

    Attributes:
        count: Records kept.
        errors: Of those, records of tasks that did not finish.
    """

    def __init__(
        self,
        journal: Appender,
        *,
        total: int,
        resumed: int,
        on_progress: Callable[[R, Progress], Any] | None,
        clock: Callable[[], float],
        kept: list[R] | None = None,
    ) -> None:
        self.journal, self.total, self.resumed, self.kept = journal, total, resumed, kept
        self.on_progress, self.clock, self.started = on_progress, clock, clock()
        self.count = self.errors = 0

    def done(self, record: R) -> None:
        self.journal.append(record.to_line())
        if self.kept is not None:
            self.kept.append(record)
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
