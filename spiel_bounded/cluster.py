"""A Dask client for the work that can run on a cluster (tournaments, self-play generation)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

CLUSTER_EXTRA = "pip install 'spiel-bounded[cluster]'"


@contextmanager
def dask_client(workers: int, scheduler: str | None) -> Iterator[Any]:
    """A `distributed.Client` of the scheduler at `scheduler`, or of a local cluster of
    `workers` single-threaded processes when it is None; closed (cluster too) on exit.

    Raises:
        RuntimeError: The cluster extra is not installed.
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
    client = Client(scheduler if cluster is None else cluster)
    try:
        yield client
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
