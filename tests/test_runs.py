"""The shared engine for long jobs (`spiel_bounded.runs`): executors that survive dying workers,
the journal that loses nothing, and the cluster helper's refusals."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Hashable
from dataclasses import dataclass
from pathlib import Path

import pytest

from spiel_bounded.runs import (
    ClusterError,
    Death,
    InlineExecutor,
    Journal,
    ProcessExecutor,
    dask_client,
    make_executor,
)
from spiel_bounded.runs.executors import Watch


@dataclass(frozen=True)
class Toy:
    """Squares numbers; some tasks kill their worker process (always, or only the first time:
    a marker file says whether they already did)."""

    marks: str
    always: frozenset[int] = frozenset()
    once: frozenset[int] = frozenset()
    raises: frozenset[int] = frozenset()
    watch_size: int = 2

    def work(self, task: int, watch: Watch | None) -> tuple[str, int, int]:
        if watch is not None:
            watch[0], watch[1] = task, 7
        marker = Path(self.marks) / str(task)
        if task in self.always or (task in self.once and not marker.exists()):
            marker.touch()
            os.kill(os.getpid(), signal.SIGKILL)
        if task in self.raises:
            raise RuntimeError(f"task {task} cannot be run")
        return ("ok", task, task * task)

    def key(self, task: int) -> Hashable:
        return task

    def describe(self, task: int, death: Death) -> str:
        return f"{death.how} at {death.watch}"

    def crashed(self, task: int, death: Death) -> tuple[str, int, int]:
        return (f"crashed: {self.describe(task, death)}; first: {death.first}", task, 0)

    def failed(self, task: int, message: str) -> tuple[str, int, int]:
        return (f"failed: {message}", task, 0)


def test_a_dying_worker_is_replaced_its_task_replayed_then_recorded(tmp_path: Path) -> None:
    job = Toy(str(tmp_path), always=frozenset({3}), once=frozenset({5}), raises=frozenset({6}))
    records: list[tuple[str, int, int]] = []
    ProcessExecutor(2).run(job, list(range(8)), records.append)
    by_task = {task: (what, value) for what, task, value in records}
    assert sorted(by_task) == list(range(8)) and len(records) == 8  # each once, none lost
    assert by_task[5] == ("ok", 25)  # killed once: replayed in a fresh process
    what, _ = by_task[3]
    assert what.startswith("crashed: killed by SIGKILL at (3, 7); first: killed by SIGKILL")
    assert by_task[6][0].startswith("failed: could not run in a worker process")
    assert all(by_task[task] == ("ok", task * task) for task in (0, 1, 2, 4, 7))


def test_inline_and_process_executors_give_the_same_records(tmp_path: Path) -> None:
    job = Toy(str(tmp_path))
    inline: list[tuple[str, int, int]] = []
    process: list[tuple[str, int, int]] = []
    InlineExecutor().run(job, list(range(6)), inline.append)
    make_executor("process", 2).run(job, list(range(6)), process.append)
    assert sorted(inline) == sorted(process)
    with pytest.raises(ValueError, match="unknown executor 'threads'; accepted: process, dask"):
        make_executor("threads", 1)


def test_the_journal_keeps_every_finished_line_and_cuts_a_torn_tail(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "records.csv", header="a,b\n")
    with journal.appending() as out:
        out.append("1,2\n")
        out.append("3,4\n")
    with open(journal.path, "ab") as handle:
        handle.write(b"5,")  # a write torn by a crash
    assert journal.lines() == ["1,2", "3,4"]
    with journal.appending() as out:
        out.append("5,6\n")
    assert journal.path.read_text() == "a,b\n1,2\n3,4\n5,6\n"
    foreign = Journal(journal.path, header="x,y\n")
    with pytest.raises(Exception, match="header is not that of this version"):
        foreign.lines()


def test_an_unreachable_scheduler_stops_the_run_with_one_clear_message() -> None:
    pytest.importorskip("distributed")
    started = time.monotonic()
    with (
        pytest.raises(
            ClusterError, match=r"cannot reach the Dask scheduler at tcp://127\.0\.0\.1:9"
        ),
        dask_client(1, "tcp://127.0.0.1:9", connect_seconds=2),
    ):
        pass
    assert time.monotonic() - started < 30
