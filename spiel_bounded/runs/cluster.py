"""A Dask client for the jobs that can run on a cluster (tournaments, sweeps, self-play)."""

from __future__ import annotations

import importlib.util
import logging
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Final

CLUSTER_EXTRA: Final = "pip install 'spiel-bounded[cluster]'"
CONNECT_SECONDS: Final = 20.0
"""How long connecting to a scheduler may take before the run stops with `ClusterError`
(default; the environment variable CONNECT_ENV overrides it)."""
CONNECT_ENV: Final = "SPIEL_BOUNDED_DASK_CONNECT_SECONDS"
WAIT_REPORT_SECONDS: Final = 1.0
"""How often `on_wait` hears that no worker is connected yet."""


class ClusterError(RuntimeError):
    """The Dask cluster cannot be used (unreachable, lost, or it failed a task): the run stops,
    keeping every finished record, and the tasks not finished run again on resume."""


@contextmanager
def dask_client(
    workers: int,
    scheduler: str | None,
    *,
    on_wait: Callable[[str], None] | None = None,
    connect_seconds: float | None = None,
) -> Iterator[Any]:
    """A `distributed.Client` of the scheduler at `scheduler`, or of a local cluster of
    `workers` single-threaded processes when it is None; closed (cluster too) on exit.

    Waits until at least one worker is connected, telling `on_wait` every second meanwhile.

    Raises:
        RuntimeError: The cluster extra is not installed.
        ClusterError: The scheduler cannot be reached within `connect_seconds` (nothing
            listening there, or not a Dask scheduler). None: CONNECT_ENV's value when set, else
            `CONNECT_SECONDS`.
    """
    if connect_seconds is None:
        connect_seconds = _connect_seconds()
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise RuntimeError(f"the dask executor needs the cluster extra: {CLUSTER_EXTRA}") from None
    cluster = None
    if scheduler is None:
        cluster = LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None
        )
    try:
        client = Client(scheduler if cluster is None else cluster, timeout=f"{connect_seconds}s")
    except (OSError, TimeoutError) as error:
        if cluster is not None:
            cluster.close()
        raise ClusterError(
            f"cannot reach the Dask scheduler at {scheduler} within {connect_seconds:g} s "
            f"({type(error).__name__}: {error}); is `dask scheduler` running there, and is this "
            "its scheduler port (8786 by default), not its dashboard?"
        ) from None
    try:
        with _distributed_logs_quiet():
            _wait_for_a_worker(client, scheduler, on_wait)
            yield client
    finally:
        with _distributed_logs_quiet():
            client.close()
            if cluster is not None:
                cluster.close()


@contextmanager
def _distributed_logs_quiet() -> Iterator[None]:
    """Holds back the log records that distributed (and tornado, under it) write below CRITICAL
    while the block runs.

    When the scheduler goes away, distributed logs the tracebacks of its attempts to reconnect
    (and of the cancellation that ends them), through loggers named after whatever module raised;
    the run then stops with one `ClusterError` saying what happened, so those would only bury
    it. The filter sits on the handlers of the root logger and of distributed's loggers for the
    duration of the block only.
    """
    quiet = _FromPackages(["distributed", "tornado"])
    manager = logging.Logger.manager
    loggers = [logging.getLogger()] + [
        logger
        for name, logger in list(manager.loggerDict.items())
        if isinstance(logger, logging.Logger) and name.split(".")[0] in ("distributed", "tornado")
    ]
    handlers = {handler for logger in loggers for handler in logger.handlers}
    for handler in handlers:
        handler.addFilter(quiet)
    try:
        yield
    finally:
        for handler in handlers:
            handler.removeFilter(quiet)


class _FromPackages(logging.Filter):
    """Drops records below CRITICAL logged from the source files of some packages."""

    def __init__(self, packages: list[str]) -> None:
        super().__init__()
        self.directories: tuple[str, ...] = ()
        for package in packages:
            spec = importlib.util.find_spec(package)
            if spec is not None and spec.origin is not None:
                self.directories += (os.path.dirname(spec.origin) + os.sep,)

    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno >= logging.CRITICAL or not record.pathname.startswith(
            self.directories
        )


def _connect_seconds() -> float:
    text = os.environ.get(CONNECT_ENV, "").strip()
    if not text:
        return CONNECT_SECONDS
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not seconds > 0:
        raise ClusterError(f"{CONNECT_ENV}={text!r}: accepted: a number of seconds above 0")
    return seconds


def _wait_for_a_worker(
    client: Any, scheduler: str | None, on_wait: Callable[[str], None] | None
) -> None:
    started = time.monotonic()
    while not client.scheduler_info().get("workers"):
        if on_wait is not None:
            waited = time.monotonic() - started
            on_wait(
                f"waiting for a Dask worker to connect to {scheduler or 'the local cluster'} "
                f"(0 connected, {waited:.0f} s)"
            )
        time.sleep(WAIT_REPORT_SECONDS)
