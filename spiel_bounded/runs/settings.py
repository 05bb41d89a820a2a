"""The `[run]` section every long job's config has (a tournament, the epsilon sweep, the atlas):
where its records go and how its tasks run. It may change between resumed runs; the job's
fingerprint never includes it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeVar, cast

from spiel_bounded.params import POSITIVE_INT, OneOf, check_fields, read_table, setting
from spiel_bounded.runs.executors import EXECUTORS


@dataclass(frozen=True)
class _Directory:
    """Accepts a directory path: a non-empty string (or a `Path`), returned as a `Path`."""

    accepted: str = "a directory path"

    def __call__(self, value: Any) -> Path:
        if isinstance(value, Path) or (isinstance(value, str) and value):
            return Path(value)
        raise ValueError(f"must be {self.accepted}, got {value!r}")


@dataclass(frozen=True)
class _Address:
    """Accepts a Dask scheduler address or nothing (None or ""), returned as None."""

    accepted: str = "a Dask scheduler address, or empty"

    def __call__(self, value: Any) -> str | None:
        if value is None or value == "":
            return None
        if not isinstance(value, str):
            raise ValueError(f"must be {self.accepted}, got {value!r}")
        return value


@dataclass(frozen=True, kw_only=True)
class RunSettings:
    """How a job runs (the `[run]` section)."""

    output: Path = setting(
        Path("runs/output"), "directory of the job's records, manifest and report", _Directory()
    )
    workers: int = setting(2, "worker processes (local) or Dask workers", POSITIVE_INT)
    executor: str = setting(
        "process",
        "process: local worker processes; dask: a Dask cluster; inline: one task at a time in "
        "this process, for debugging",
        OneOf(EXECUTORS),
    )
    scheduler: str | None = setting(
        None, "address of a Dask scheduler (empty: a local Dask cluster)", _Address()
    )

    def __post_init__(self) -> None:
        check_fields(self)


def read_run_section(
    table: Any,
    fail: Callable[[str, str], Exception],
    *,
    overrides: Mapping[str, Any] | None = None,
) -> RunSettings:
    """The `[run]` section `table`, with the `overrides` that are not None (the command line's),
    every key checked as `RunSettings` declares it.

    Raises:
        The exception `fail(key, message)` makes for the first key refused (`key` is "" when
        the section itself is not a table).
    """
    if not isinstance(table, Mapping):
        raise fail("", "must be a table")
    given = {**table, **{k: v for k, v in (overrides or {}).items() if v is not None}}
    return RunSettings(**read_table(given, RunSettings, fail))


Config = TypeVar("Config")


def with_run(config: Config, **changes: Any) -> Config:
    """A job's config (a frozen dataclass with a `run: RunSettings` field) with `[run]` fields
    changed, each checked as declared (what a script's flags or a test change)."""
    settings = cast(Any, config)
    return cast(Config, replace(settings, run=replace(settings.run, **changes)))
