"""The one engine for long jobs: tournaments, epsilon sweeps and self-play run on it.

A job (`executors.Job`) says what a task is and how its record is made; an executor runs the
tasks inline, in worker processes that may die (the task is run again in a fresh process, then
recorded as crashed) or on a Dask cluster; each finished record is appended durably to a journal
(`journal.Journal`), the directory's manifest is written atomically and its config checked
(`records`, for jobs of one record per task), one run at a time holds the directory's lock
(`lock`), and SIGTERM or Ctrl-C stop a run with every finished record kept (`control`). Every
job's config has the same `[run]` section (`settings`).
"""

from spiel_bounded.runs.cluster import ClusterError, dask_client
from spiel_bounded.runs.control import Progress, Terminated, sigterm_stops_the_run
from spiel_bounded.runs.executors import (
    EXECUTORS,
    DaskExecutor,
    Death,
    Executor,
    InlineExecutor,
    Job,
    ProcessExecutor,
    make_executor,
)
from spiel_bounded.runs.journal import ConfigChangedError, Journal, StoreError, write_atomic
from spiel_bounded.runs.lock import LockHolder, RunLockedError, locked
from spiel_bounded.runs.settings import RunSettings, read_run_section, with_run

__all__ = [
    "EXECUTORS",
    "ClusterError",
    "ConfigChangedError",
    "DaskExecutor",
    "Death",
    "Executor",
    "InlineExecutor",
    "Job",
    "Journal",
    "LockHolder",
    "ProcessExecutor",
    "Progress",
    "RunLockedError",
    "RunSettings",
    "StoreError",
    "Terminated",
    "dask_client",
    "locked",
    "make_executor",
    "read_run_section",
    "sigterm_stops_the_run",
    "with_run",
    "write_atomic",
]
