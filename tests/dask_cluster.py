"""A real Dask cluster on 127.0.0.1 for the tests: `dask scheduler` and `dask worker`
processes, each in its own process group, on free ports (written into a scheduler file);
`stop` kills every process it started."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from tests.stoppable import DEADLINE, ROOT, assert_group_ends, kill_group, python_env, wait_until


@dataclass
class Cluster:
    """Processes of a test cluster.

    Attributes:
        directory: Where the scheduler file and the workers' local directories are.
        scheduler: The `dask scheduler` process.
        workers: `dask worker` processes (each with its nanny and worker processes).
    """

    directory: Path
    scheduler: subprocess.Popen[bytes] | None = None
    workers: list[subprocess.Popen[bytes]] = field(default_factory=list)

    @property
    def scheduler_file(self) -> Path:
        return self.directory / "scheduler.json"

    @property
    def address(self) -> str:
        address = self._written_address()
        assert address is not None, f"{self.scheduler_file} holds no address"
        return address

    def _written_address(self) -> str | None:
        """The address in the scheduler file; None while the file is missing or only partly
        written (the scheduler creates it before it writes it)."""
        try:
            return str(json.loads(self.scheduler_file.read_text())["address"])
        except (FileNotFoundError, json.JSONDecodeError, KeyError):
            return None

    def start_scheduler(self) -> str:
        """Starts the scheduler; its address once it listens."""
        self.directory.mkdir(parents=True, exist_ok=True)
        self.scheduler_file.unlink(missing_ok=True)
        self.scheduler = _start(
            [
                "distributed.cli.dask_scheduler",
                "--host=127.0.0.1",
                "--port=0",
                "--no-dashboard",
                f"--scheduler-file={self.scheduler_file}",
            ],
            self.directory / "scheduler.log",
        )
        wait_until(
            lambda: self._written_address() is not None, None, "the scheduler wrote its address"
        )
        return self.address

    def start_workers(self, count: int) -> None:
        """Starts `count` single-threaded workers (one `dask worker` of `count` processes) and
        waits until they are connected."""
        self.workers.append(
            _start(
                [
                    "distributed.cli.dask_worker",
                    f"--scheduler-file={self.scheduler_file}",
                    "--host=127.0.0.1",
                    "--nthreads=1",
                    f"--nworkers={count}",
                    "--no-dashboard",
                    f"--local-directory={self.directory / 'workers'}",
                ],
                self.directory / f"workers{len(self.workers)}.log",
            )
        )
        wait_until(lambda: self.connected() >= count, None, f"{count} workers connected")

    def connected(self) -> int:
        """Workers connected to the scheduler."""
        from distributed import Client

        with Client(self.address, timeout="10s") as client:
            return len(client.scheduler_info()["workers"])

    def kill_scheduler(self) -> None:
        assert self.scheduler is not None
        kill_group(self.scheduler.pid)
        self.scheduler.wait(timeout=DEADLINE)

    def stop(self) -> None:
        """Kills every process started (and waits until each group is gone)."""
        for process in [*self.workers, *([self.scheduler] if self.scheduler else [])]:
            kill_group(process.pid)
            process.wait(timeout=DEADLINE)
            assert_group_ends(process.pid)


def _start(module_args: list[str], log: Path) -> subprocess.Popen[bytes]:
    with open(log, "wb") as output:
        return subprocess.Popen(
            [sys.executable, "-m", *module_args],
            cwd=ROOT,
            env=python_env(),
            start_new_session=True,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
