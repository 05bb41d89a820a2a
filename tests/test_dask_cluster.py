"""The three command lines (tournament, sweep, self-play) on a real Dask cluster: a `dask
scheduler` and `dask worker` processes on 127.0.0.1 (tests/dask_cluster.py), each run a
subprocess (tests/stoppable.py).

- A Dask run gives the records of an inline run.
- Killing the scheduler mid-run stops the command with one line saying so and a non-zero exit
  (a run with unfinished work never exits 0); the finished records stay.
- An address with nothing behind it fails within the connect timeout, one line, non-zero exit.
- While no worker is connected, stderr says the run is waiting for one.

Every process the tests start is killed by them (the fixtures check that none is left).
"""

from __future__ import annotations

import dataclasses
import socket
import textwrap
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("distributed", reason="the cluster extra is not installed")

from spiel_bounded.arena import GameStore, load_config, make_schedule, run_tournament
from spiel_bounded.experiments.config import load_sweep_config
from spiel_bounded.experiments.runner import read_records, run_sweep
from spiel_bounded.runs import InlineExecutor
from spiel_bounded.runs.cluster import CONNECT_ENV
from spiel_bounded.training.game_files import finished_games
from spiel_bounded.training.generate import generate
from spiel_bounded.training.pipeline import read_run_config
from tests.dask_cluster import Cluster
from tests.helpers import selfplay_config, sweep_config
from tests.stoppable import (
    DEADLINE,
    assert_group_ends,
    blocked,
    kill_group,
    start_cli,
    wait_until,
)

pytestmark = pytest.mark.dask_cluster


def arena_config(directory: Path) -> Path:
    path = directory / "arena.toml"
    path.write_text(
        textwrap.dedent(
            f"""
            [tournament]
            games = ["tic_tac_toe"]
            games_per_pairing = 4
            [run]
            output = "{directory / "out"}"
            workers = 2
            executor = "process"
            [[bots]]
            label = "b0"
            bot = "random"
            [[bots]]
            label = "b1"
            bot = "random"
            """
        )
    )
    return path


def arena_records(directory: Path) -> dict[str, Any]:
    return {
        record.game_id: (record.returns, record.actions)
        for record in GameStore(directory / "out").read_records()
    }


def sweep_records(directory: Path) -> dict[str, Any]:
    timing = {"seconds", "wall_seconds"}
    return {
        record.task_id: {
            key: value for key, value in dataclasses.asdict(record).items() if key not in timing
        }
        for record in read_records(directory / "out")
    }


def selfplay_records(directory: Path) -> dict[int, Any]:
    games = {}
    for index in finished_games(directory / "data"):
        with np.load(directory / "data" / "games" / f"game_{index:06d}.npz") as archive:
            games[index] = {name: archive[name].tobytes() for name in archive.files}
    return games


@dataclass(frozen=True)
class Cli:
    """How a test runs one of the command lines and reads what it made."""

    script: str
    config: Callable[[Path], Path]
    args: tuple[str, ...]
    keys: Callable[[Path], list[Any]]  # the task keys of a config, in order
    records: Callable[[Path], dict[Any, Any]]  # task key -> what it made (timing left out)
    inline: Callable[[Path], object]  # runs a config inline, in this process


def _arena_inline(config: Path) -> object:
    return run_tournament(load_config(config), executor=InlineExecutor())


def _sweep_inline(config: Path) -> object:
    return run_sweep(load_sweep_config(config), executor=InlineExecutor())


def _selfplay_inline(config: Path) -> object:
    run = read_run_config(config)
    return generate(run.data, run.data_directory, executor="inline")


CLIS = {
    "tournament": Cli(
        "round_robin.py",
        arena_config,
        ("--quiet",),
        lambda config: [match.game_id for match in make_schedule(load_config(config).tournament)],
        arena_records,
        _arena_inline,
    ),
    "sweep": Cli(
        "epsilon_sweep.py",
        sweep_config,
        (),
        lambda config: [task.task_id for task in load_sweep_config(config).tasks()],
        sweep_records,
        _sweep_inline,
    ),
    "self-play": Cli(
        "train_value_net.py",
        selfplay_config,
        ("--stage=generate",),
        lambda config: list(range(4)),
        selfplay_records,
        _selfplay_inline,
    ),
}
EACH_CLI = pytest.mark.parametrize("name", sorted(CLIS))


def run(cli: Cli, directory: Path, *args: str, **kwargs: Any) -> tuple[int, str]:
    directory.mkdir(parents=True, exist_ok=True)
    process = start_cli(
        cli.script, [f"--config={cli.config(directory)}", *cli.args, *args], **kwargs
    )
    try:
        _, stderr = process.communicate(timeout=DEADLINE)
    finally:
        kill_group(process.pid)
    return process.returncode, stderr


def error_lines(stderr: str) -> list[str]:
    assert "Traceback" not in stderr, stderr
    return [line for line in stderr.splitlines() if line.startswith("error:")]


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    started = Cluster(tmp_path / "cluster")
    try:
        yield started
    finally:
        started.stop()


@pytest.fixture(scope="module")
def running_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The address of a scheduler with two single-threaded workers, shared by the module."""
    started = Cluster(tmp_path_factory.mktemp("cluster"))
    try:
        started.start_scheduler()
        started.start_workers(2)
        yield started.address
    finally:
        started.stop()


@EACH_CLI
def test_a_dask_run_gives_the_records_of_an_inline_run(
    tmp_path: Path, running_cluster: str, name: str
) -> None:
    cli = CLIS[name]
    status, stderr = run(
        cli, tmp_path / "dask", "--executor=dask", f"--scheduler={running_cluster}"
    )
    assert status == 0, stderr
    (tmp_path / "inline").mkdir()
    cli.inline(cli.config(tmp_path / "inline"))
    dask, inline = cli.records(tmp_path / "dask"), cli.records(tmp_path / "inline")
    assert sorted(dask) == sorted(inline) == sorted(cli.keys(cli.config(tmp_path / "inline")))
    assert dask == inline


@EACH_CLI
def test_waiting_for_a_worker_is_shown_and_killing_the_scheduler_stops_the_run_with_one_line(
    tmp_path: Path, cluster: Cluster, name: str
) -> None:
    cli = CLIS[name]
    address = cluster.start_scheduler()
    keys = cli.keys(cli.config(tmp_path))
    marks = tmp_path / "marks"
    stderr = tmp_path / "stderr"
    args = [arg for arg in cli.args if arg != "--quiet"]
    process = start_cli(
        cli.script,
        [f"--config={cli.config(tmp_path)}", *args, "--executor=dask", f"--scheduler={address}"],
        run=keys[:1],
        marks=marks,
        stderr=stderr,
    )
    try:
        # No worker yet: the progress display says what the run waits for.
        wait_until(
            lambda: (
                f"waiting for a Dask worker to connect to {address} (0 connected"
                in stderr.read_text()
            ),
            process,
            "the waiting line",
        )
        cluster.start_workers(1)
        # The first task runs, the second blocks: kill the scheduler.
        wait_until(
            lambda: len(cli.records(tmp_path)) == 1 and blocked(marks) == 1,
            process,
            "one task recorded and one blocked",
        )
        kept = cli.records(tmp_path)
        cluster.kill_scheduler()
        process.communicate(timeout=DEADLINE)
        assert_group_ends(process.pid)
    finally:
        kill_group(process.pid)
    said = stderr.read_text()
    assert process.returncode not in (0, None), said  # unfinished work never exits 0
    assert error_lines(said) == [
        f"error: lost the Dask scheduler {address}: the client could not reach it again and its "
        "tasks were cancelled; the tasks not finished run again on resume"
    ]
    assert said.rstrip("\n").splitlines()[-1] == error_lines(said)[0]
    assert cli.records(tmp_path) == kept
    assert sorted(kept, key=str) == sorted(keys[:1], key=str)


@EACH_CLI
def test_an_address_with_no_scheduler_fails_within_the_connect_timeout(
    tmp_path: Path, name: str
) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    address = f"tcp://127.0.0.1:{port}"
    status, stderr = run(
        CLIS[name],
        tmp_path,
        "--executor=dask",
        f"--scheduler={address}",
        env={CONNECT_ENV: "1"},
    )
    assert status not in (0, None), stderr
    (line,) = error_lines(stderr)
    assert line.startswith(f"error: cannot reach the Dask scheduler at {address} within 1 s"), line
