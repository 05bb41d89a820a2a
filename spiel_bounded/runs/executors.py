"""Executors run the tasks of a job and hand back one record per task, in the order tasks finish.

A `Job` says what a task is and how its record is made: `work(task, watch)` runs one task (a
module-level function, so that worker processes and Dask can import it), `crashed` and `failed`
make the record of a task whose worker died or could not run it. Three executors run a job:

- `InlineExecutor`: one task at a time in this process (debugging, tests).
- `ProcessExecutor`: local worker processes (spawn start method), one task at a time each. A
  task that kills its worker process (a crash in native code, or a kill from outside) is run
  again in a fresh process; if it kills that one too, `Job.crashed` makes its record, with the
  signal and what the task had written into its `watch` (shared memory that outlives the
  process: the arena keeps the acting seat there). A worker that could not run a task at all
  (it cannot import the package, say) gives `Job.failed`'s record. When the run is stopped
  (Ctrl-C, SIGTERM: any exception while tasks are in flight) the workers are killed at once: a
  task in flight is lost, and run again on resume, never waited for.
- `DaskExecutor`: a Dask distributed cluster at an address, or a local one (`cluster` extra).
  A task whose worker died is rescheduled by Dask itself; one that killed its workers
  `allowed-failures` times (`KilledWorker`) gets `Job.crashed`'s record. A lost scheduler, or
  one that cannot be reached, stops the run with `ClusterError`: the tasks not finished are run
  again on resume, never recorded as failed.
"""

from __future__ import annotations

import signal
import traceback
from collections import deque
from collections.abc import Callable, Hashable, MutableSequence, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from multiprocessing import get_context
from multiprocessing.connection import Connection, wait
from multiprocessing.context import SpawnProcess
from typing import Any, Generic, Protocol, TypeVar

from spiel_bounded.runs.cluster import ClusterError, dask_client

Task = TypeVar("Task")
TaskIn = TypeVar("TaskIn", contravariant=True)
RecordOut = TypeVar("RecordOut", covariant=True)
Watch = MutableSequence[int]
"""Integers a task may keep up to date while it runs; read after its worker process died."""


@dataclass(frozen=True, kw_only=True)
class Death:
    """How a worker process ended while it ran a task.

    Attributes:
        exitcode: The process's exit status (negative: the signal that killed it).
        watch: What the task had written into its watch (empty when it has none).
        first: The job's description of the first death, when this is the second one.
    """

    exitcode: int
    watch: tuple[int, ...] = ()
    first: str = ""

    @property
    def signal_name(self) -> str | None:
        """E.g. "SIGSEGV" when the process was killed by a signal, else None."""
        if self.exitcode >= 0:
            return None
        try:
            return signal.Signals(-self.exitcode).name
        except ValueError:
            return f"signal {-self.exitcode}"

    @property
    def how(self) -> str:
        """ "killed by SIGSEGV" or "exited with status 3"."""
        name = self.signal_name
        return f"killed by {name}" if name is not None else f"exited with status {self.exitcode}"


class Job(Protocol[TaskIn, RecordOut]):
    """What an executor needs to know of a job.

    `work` is called in worker processes: it must be picklable (a module-level function, or a
    method of a picklable object). `crashed` and `failed` are called in the main process.
    """

    @property
    def watch_size(self) -> int:
        """Integers of shared memory each task gets as its `watch` (0: none)."""
        ...

    def work(self, task: TaskIn, watch: Watch | None) -> RecordOut:
        """Runs `task`; with a `watch`, keeps it up to date for `describe`."""
        ...

    def key(self, task: TaskIn) -> Hashable:
        """The task's identity (two deaths of the same key make a crash)."""
        ...

    def describe(self, task: TaskIn, death: Death) -> str:
        """One line saying how the task's worker died and what the task was doing."""
        ...

    def crashed(self, task: TaskIn, death: Death) -> RecordOut:
        """The record of a task that killed its worker twice (`death.first`: the first time)."""
        ...

    def failed(self, task: TaskIn, message: str) -> RecordOut:
        """The record of a task that could not be run: an error of the runner, not the task."""
        ...


Done = Callable[[Any], None]
Wanted = Callable[[Any], bool]
"""Asked, in the main process, before a task starts: False skips it (no record). A run that
stops part of its work once it has seen enough (a tournament's SPRT) answers from the records
`done` has received. The inline and process executors ask just before starting each task and
let running tasks finish; the Dask executor, which queues every task on the cluster at once,
asks after each finished task and cancels the unwanted ones not yet finished (the caller should
leave out tasks it already knows it does not want)."""


class Executor(Protocol):
    """Runs tasks of a job and calls `done` with each record, in the order tasks finish;
    with `wanted`, a task it refuses when its turn comes is skipped."""

    def run(
        self, job: Job[Any, Any], tasks: Sequence[Any], done: Done, wanted: Wanted | None = None
    ) -> None: ...


def _always(task: Any) -> bool:
    return True


class InlineExecutor:
    """Runs each task in this process, one after the other."""

    def run(
        self, job: Job[Any, Any], tasks: Sequence[Any], done: Done, wanted: Wanted | None = None
    ) -> None:
        wanted = wanted or _always
        for task in tasks:
            if wanted(task):
                done(job.work(task, None))


@dataclass(frozen=True)
class _Failure:
    """What a worker sends back when it could not run a task (not an error of the task)."""

    trace: str


@dataclass(frozen=True)
class _Dead:
    """The worker process ended without answering."""


@dataclass
class _Worker(Generic[Task]):
    """A worker process, the parent's end of its pipe, its watch, and the task it runs."""

    process: SpawnProcess
    connection: Connection
    watch: Any
    task: Task | None = field(default=None)

    def start(self, task: Task) -> bool:
        """Hands `task` to the worker; False when the worker is gone (`answer` then says
        `_Dead`)."""
        self.task = task
        try:
            self.connection.send(task)
        except OSError:
            return False
        return True

    def answer(self) -> Any:
        """The worker's answer if it sent one, `_Dead` if it died, None while it works."""
        try:
            if self.connection.poll():
                return self.connection.recv()
        except (EOFError, OSError):
            return _Dead()
        return None if self.process.is_alive() else _Dead()

    def death(self, first: str = "") -> Death:
        exitcode = self.process.exitcode
        watch = tuple(self.watch[:]) if self.watch is not None else ()
        return Death(exitcode=exitcode if exitcode is not None else 0, watch=watch, first=first)

    def stop(self) -> None:
        """Lets an idle worker end."""
        with suppress(OSError):  # already gone
            self.connection.send(None)
        self.process.join()
        self.connection.close()

    def kill(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join()
        self.connection.close()


class ProcessExecutor:
    """Runs tasks in local worker processes, at most `workers` at a time."""

    def __init__(self, workers: int) -> None:
        self.workers = workers

    def run(
        self, job: Job[Any, Any], tasks: Sequence[Any], done: Done, wanted: Wanted | None = None
    ) -> None:
        queue = deque(tasks)
        wanted = wanted or _always
        first_deaths: dict[Hashable, str] = {}
        workers: list[_Worker[Any]] = []
        try:
            while queue or workers:
                self._hand_out(job, queue, workers, wanted)
                if not workers:
                    break
                wait(
                    [worker.connection for worker in workers]
                    + [worker.process.sentinel for worker in workers]
                )
                for worker in list(workers):
                    task = worker.task
                    answer = worker.answer()
                    if answer is None:
                        continue
                    if isinstance(answer, _Dead):
                        # Its task killed it, or it was killed: the task runs again in a fresh
                        # process, and its record says it crashed if that one dies too.
                        worker.kill()
                        workers.remove(worker)
                        first = first_deaths.pop(job.key(task), None)
                        if first is None:
                            first_deaths[job.key(task)] = job.describe(task, worker.death())
                            queue.appendleft(task)
                        else:
                            done(job.crashed(task, worker.death(first)))
                        continue
                    worker.task = None
                    if isinstance(answer, _Failure):
                        done(
                            job.failed(task, f"could not run in a worker process:\n{answer.trace}")
                        )
                    else:
                        done(answer)
        finally:
            # Normal end: no worker is left. Stopped (Ctrl-C, SIGTERM, an error in `done`):
            # the tasks in flight are abandoned and their workers killed, not waited for.
            for worker in workers:
                worker.kill()

    def _hand_out(
        self, job: Job[Any, Any], queue: deque[Any], workers: list[_Worker[Any]], wanted: Wanted
    ) -> None:
        """Gives every idle worker a wanted task, starts workers up to `workers`, stops the
        rest."""
        for worker in list(workers):
            while queue and not wanted(queue[0]):
                queue.popleft()
            if worker.task is not None:
                continue
            if not queue:
                worker.stop()
                workers.remove(worker)
            elif worker.start(queue[0]):
                queue.popleft()
            else:
                worker.kill()  # died between two tasks: the task goes to another worker
                workers.remove(worker)
        while queue and len(workers) < self.workers:
            if not wanted(queue[0]):
                queue.popleft()
                continue
            worker = _spawn(job)
            workers.append(worker)
            worker.start(queue.popleft())  # if it failed, `answer` reports the death


def _spawn(job: Job[Any, Any]) -> _Worker[Any]:
    context = get_context("spawn")
    mine, theirs = context.Pipe()
    # Plain shared memory, no lock: a task writes it in an order that keeps it consistent
    # (the arena writes the phase last), and it is read only once the worker is dead.
    watch = context.Array("i", [-1] * job.watch_size, lock=False) if job.watch_size else None
    process = context.Process(target=_serve, args=(job, theirs, watch), daemon=True)
    process.start()
    theirs.close()  # so that the parent sees the pipe close when the worker dies
    return _Worker(process=process, connection=mine, watch=watch)


def _serve(job: Job[Any, Any], connection: Connection, watch: Watch | None) -> None:
    """A worker's loop: receive a task, send back its record, until told to stop (None)."""
    # Ctrl-C at a terminal reaches the whole process group: the main process decides what
    # happens to the tasks in flight (it kills this process), so no traceback is printed here.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        try:
            task = connection.recv()
        except EOFError:
            return  # the main process is gone
        except Exception:
            connection.send(_Failure(traceback.format_exc()))
            continue
        if task is None:
            return
        try:
            record = job.work(task, watch)
        except Exception:
            connection.send(_Failure(traceback.format_exc()))
            continue
        connection.send(record)


class DaskExecutor:
    """Runs tasks on a Dask distributed cluster (`pip install 'spiel-bounded[cluster]'`).

    Args:
        workers: Worker processes of the local cluster started when `scheduler` is None.
        scheduler: Address of a running scheduler, e.g. "tcp://10.0.0.5:8786".
        on_wait: Called with a line to show while no worker is connected (progress display).
    """

    def __init__(
        self,
        workers: int,
        scheduler: str | None = None,
        *,
        on_wait: Callable[[str], None] | None = None,
    ) -> None:
        self.workers = workers
        self.scheduler = scheduler
        self.on_wait = on_wait

    def run(
        self, job: Job[Any, Any], tasks: Sequence[Any], done: Done, wanted: Wanted | None = None
    ) -> None:
        with dask_client(self.workers, self.scheduler, on_wait=self.on_wait) as client:
            from distributed import as_completed

            futures = client.map(_dask_work, [job] * len(tasks), list(tasks), pure=False)
            by_key = {future.key: task for future, task in zip(futures, tasks, strict=True)}
            pending = dict(zip((future.key for future in futures), futures, strict=True))
            dropped: set[Hashable] = set()
            killed_once: set[Hashable] = set()
            try:
                finished = as_completed(futures)
                for future in finished:
                    task = by_key.pop(future.key)
                    pending.pop(future.key, None)
                    if future.key in dropped and future.status != "finished":
                        continue
                    if future.status == "finished":
                        done(future.result())
                        future.release()
                        if wanted is not None:
                            # Tasks no longer wanted and not finished are cancelled, running
                            # ones included (Dask cannot let them end); a finished one's record
                            # is kept when its turn comes.
                            unwanted = [
                                other
                                for key, other in pending.items()
                                if key not in dropped
                                and other.status == "pending"
                                and not wanted(by_key[key])
                            ]
                            dropped.update(other.key for other in unwanted)
                            client.cancel(unwanted)
                        continue
                    if future.status == "cancelled":
                        # Not by us: the client lost its scheduler (killed, or the network
                        # broke) and gave up reconnecting, which cancels every future.
                        raise ClusterError(
                            f"lost the Dask scheduler {self.scheduler or '(local)'}: the client "
                            "could not reach it again and its tasks were cancelled; the tasks "
                            "not finished run again on resume"
                        )
                    error = future.exception()
                    future.release()
                    if type(error).__name__ != "KilledWorker":
                        # The cluster's failure, not the task's: stop, and run the task again
                        # on resume rather than record it.
                        raise ClusterError(
                            f"the Dask task of {job.key(task)!r} failed: "
                            + "".join(traceback.format_exception_only(error)).strip()
                        )
                    # Its workers died (a crash in native code, or killed from outside): run
                    # it once more, as the process executor does; a crash if it kills again.
                    if job.key(task) in killed_once:
                        death = Death(exitcode=-int(signal.SIGKILL), first="killed its workers")
                        done(job.crashed(task, death))
                        continue
                    killed_once.add(job.key(task))
                    if wanted is not None and not wanted(task):
                        continue
                    again = client.submit(_dask_work, job, task, pure=False)
                    by_key[again.key] = task
                    pending[again.key] = again
                    finished.add(again)
            except OSError as error:  # CommClosedError and the like: the scheduler is gone
                raise ClusterError(
                    f"lost the Dask scheduler {self.scheduler or '(local)'}: {error}; the tasks "
                    "not finished run again on resume"
                ) from None


def _dask_work(job: Job[Any, Any], task: Any) -> Any:
    return job.work(task, None)


EXECUTORS = ("process", "dask", "inline")
"""The executors a config's `[run] executor` may name."""


def make_executor(
    executor: str,
    workers: int,
    scheduler: str | None = None,
    *,
    on_wait: Callable[[str], None] | None = None,
) -> Executor:
    """The executor named `executor` ("process", "dask" or "inline")."""
    if executor == "inline":
        return InlineExecutor()
    if executor == "dask":
        return DaskExecutor(workers, scheduler, on_wait=on_wait)
    if executor == "process":
        return ProcessExecutor(workers)
    raise ValueError(f"unknown executor {executor!r}; accepted: {', '.join(EXECUTORS)}")
