"""A Dask client for the jobs that can run on a cluster (tournaments, sweeps, self-play)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Final

CLUSTER_EXTRA: Final = "pip install 'spiel-bounded[cluster]'"
CONNECT_SECONDS: Final = 20.0
"""How long connecting to a scheduler may take before the run stops with `ClusterError`."""
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
    connect_seconds: float = CONNECT_SECONDS,
) -> Iterator[Any]:
    """A `distributed.Client` of the scheduler at `scheduler`, or of a local cluster of
    `workers` single-threaded processes when it is None; closed (cluster too) on exit.

    Waits until at least one worker is connected, telling `on_wait` every second meanwhile.

    Raises:
        RuntimeError: The cluster extra is not installed.
        ClusterError: The scheduler cannot be reached within `connect_seconds` (nothing
            listening there, or not a Dask scheduler).
    """
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
        _wait_for_a_worker(client, scheduler, on_wait)
        yield client
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def _wait_for_a_worker(
    client: Any, scheduler: str | None, on_wait: Callable[[str], None] | None
) -> None:
    started = time.monotonic()
    while not client.scheduler_info().get("workers"):
        if on_wait is not None:
            waited = time.monotonic() - started
            on_wait(
                f"waiting for a Dask worker to connect to {scheduler or 'the local cluster'} "
                f"({waited:.0f} s)"
            )
        time.sleep(WAIT_REPORT_SECONDS)
