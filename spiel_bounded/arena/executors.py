"""Executors play `Match`es and hand back `GameRecord`s one by one, in the order games finish.

- `ProcessExecutor`: local worker processes (spawn start method), one game at a time each. A
  game that kills its worker process (a crash in native code) is played again in a fresh
  process; if it kills that one too it is recorded as a `crash` error naming the signal and the
  seat that was acting (kept by the game loop in shared memory, `play.WATCH_SIZE`), and the
  tournament goes on. A worker that exits with a status instead (a failure of the worker
  itself, e.g. it cannot import the package) gives a `runner` error: replayed on resume. When
  the run is stopped (Ctrl-C, SIGTERM: any exception while games are in flight) the workers are
  killed at once: a game in flight is lost (and played on resume), never waited for.
- `DaskExecutor`: a Dask distributed cluster at an address, or a local one (`cluster` extra).
- `InlineExecutor`: one game at a time in this process (debugging, tests).
"""

from __future__ import annotations

import signal
import traceback
from collections import deque
from collections.abc import Callable, Sequence
from contextlib import suppress
from dataclasses import dataclass
from multiprocessing import get_context
from multiprocessing.connection import Connection, wait
from multiprocessing.context import SpawnProcess
from typing import Any, Protocol

from spiel_bounded.arena.play import (
    BUILDING,
    IDLE,
    STEPPING,
    WATCH_SIZE,
    error_record,
    play_match,
)
from spiel_bounded.arena.records import CRASH, RUNNER, GameRecord
from spiel_bounded.arena.schedule import Match
from spiel_bounded.arena.settings import Config
from spiel_bounded.cluster import dask_client

Done = Callable[[GameRecord], None]


class Executor(Protocol):
    """Plays matches and calls `done` with each record, in the order games finish."""

    def run(self, matches: Sequence[Match], done: Done) -> None: ...


class InlineExecutor:
    """Plays each game in this process, one after the other."""

    def run(self, matches: Sequence[Match], done: Done) -> None:
        for match in matches:
            done(play_match(match))


@dataclass(frozen=True)
class _Failure:
    """What a worker sends back when it could not play a match (not an error of the game)."""

    trace: str


@dataclass
class _Worker:
    """A worker process, the parent's end of its pipe, and the game it is playing."""

    process: SpawnProcess
    connection: Connection
    watch: Any
    match: Match | None = None

    def start(self, match: Match) -> bool:
        """Hands `match` to the worker; False when the worker is gone (`answer` then says
        `_Dead`)."""
        self.match = match
        try:
            self.connection.send(match)
        except OSError:
            return False
        return True

    def answer(self) -> GameRecord | _Failure | _Dead | None:
        """The worker's answer if it sent one, `_Dead` if it died, None while it plays."""
        try:
            if self.connection.poll():
                answer: Any = self.connection.recv()
                if isinstance(answer, GameRecord | _Failure):
                    return answer
                return _Failure(f"unexpected answer from the worker: {answer!r}")
        except (EOFError, OSError):
            return _Dead()
        return None if self.process.is_alive() else _Dead()

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


@dataclass(frozen=True)
class _Dead:
    """The worker process ended without answering."""


class ProcessExecutor:
    """Plays games in local worker processes, at most `workers` at a time."""

    def __init__(self, workers: int) -> None:
        self.workers = workers

    def run(self, matches: Sequence[Match], done: Done) -> None:
        queue = deque(matches)
        first_deaths: dict[str, str] = {}
        workers: list[_Worker] = []
        try:
            while queue or workers:
                self._hand_out(queue, workers)
                if not workers:
                    break
                wait(
                    [worker.connection for worker in workers]
                    + [worker.process.sentinel for worker in workers]
                )
                for worker in list(workers):
                    match = worker.match
                    assert match is not None
                    answer = worker.answer()
                    if answer is None:
                        continue
                    if isinstance(answer, _Dead):
                        # Its game killed it, or it was killed: the game is played again in a
                        # fresh process, and recorded as a crash if that one dies too.
                        worker.kill()
                        workers.remove(worker)
                        death = _Death.of(worker, match)
                        first = first_deaths.pop(match.game_id, None)
                        if first is None:
                            first_deaths[match.game_id] = death.describe()
                            queue.appendleft(match)
                        else:
                            done(death.record(first))
                        continue
                    worker.match = None
                    if isinstance(answer, _Failure):
                        message = f"the game could not be run in a worker process:\n{answer.trace}"
                        done(error_record(match, message, kind=RUNNER))
                    else:
                        done(answer)
        finally:
            # Normal end: no worker is left. Stopped (Ctrl-C, SIGTERM, an error in `done`):
            # the games in flight are abandoned and their workers killed, not waited for.
            for worker in workers:
                worker.kill()

    def _hand_out(self, queue: deque[Match], workers: list[_Worker]) -> None:
        """Gives every idle worker a game, starts workers up to `workers`, stops the rest."""
        for worker in list(workers):
            if worker.match is not None:
                continue
            if not queue:
                worker.stop()
                workers.remove(worker)
            elif worker.start(queue[0]):
                queue.popleft()
            else:
                worker.kill()  # died between two games: the game goes to another worker
                workers.remove(worker)
        while queue and len(workers) < self.workers:
            worker = _spawn()
            workers.append(worker)
            worker.start(queue.popleft())  # if it failed, `answer` reports the death


def _spawn() -> _Worker:
    context = get_context("spawn")
    mine, theirs = context.Pipe()
    # Plain shared memory, no lock: the game loop writes the phase last (see `play._marker`),
    # and it is read only once the worker is dead.
    watch = context.Array("i", [-1, IDLE, 0], lock=False)
    process = context.Process(target=_serve, args=(theirs, watch), daemon=True)
    process.start()
    theirs.close()  # so that the parent sees the pipe close when the worker dies
    return _Worker(process=process, connection=mine, watch=watch)


def _serve(connection: Connection, watch: Any) -> None:
    """A worker's loop: receive a match, send back its record, until told to stop (None)."""
    # Ctrl-C at a terminal reaches the whole process group: the main process decides what
    # happens to the games in flight (it kills this process), so no traceback is printed here.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        try:
            match = connection.recv()
        except EOFError:
            return  # the main process is gone
        except Exception:
            connection.send(_Failure(traceback.format_exc()))
            continue
        if match is None:
            return
        connection.send(play_match(match, watch=watch))


@dataclass(frozen=True, kw_only=True)
class _Death:
    """How a worker process ended while playing `match`, and what its game was doing."""

    match: Match
    exitcode: int
    seat: int
    phase: int
    moves: int

    @classmethod
    def of(cls, worker: _Worker, match: Match) -> _Death:
        seat, phase, moves = worker.watch[:WATCH_SIZE]
        exitcode = worker.process.exitcode
        return cls(
            match=match,
            exitcode=exitcode if exitcode is not None else 0,
            seat=seat,
            phase=phase,
            moves=moves,
        )

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
    def acting(self) -> int | None:
        """The seat whose bot was being built or choosing a move, None when none was."""
        return self.seat if self.phase in (BUILDING, STEPPING) and self.seat >= 0 else None

    def describe(self) -> str:
        how = (
            f"killed by {self.signal_name}"
            if self.signal_name is not None
            else f"exited with status {self.exitcode}"
        )
        if self.acting is not None:
            who = f"seat {self.acting} ({self.match.labels[self.acting]})"
            doing = (
                f"was choosing a move at ply {self.moves}"
                if self.phase == STEPPING
                else "was being built"
            )
            return f"{how} while {who} {doing}"
        return f"{how} while no bot was acting (ply {self.moves})"

    def record(self, first: str) -> GameRecord:
        """The error record of the game, `first` describing its first worker's death."""
        if self.signal_name is not None:
            message = (
                f"the game killed its worker process twice (a crash in native code, or "
                f"killed from outside): {self.describe()}; the first time: {first}"
            )
            kind = CRASH
        else:
            message = (
                f"the worker process ended without a result, twice (a failure of the worker, "
                f"not of the game): {self.describe()}; the first time: {first}"
            )
            kind = RUNNER
        return error_record(
            self.match, message, kind=kind, seat=self.acting, moves=max(self.moves, 0)
        )


class DaskExecutor:
    """Plays games on a Dask distributed cluster (`pip install 'spiel-bounded[cluster]'`).

    Args:
        workers: Worker processes of the local cluster started when `scheduler` is None.
        scheduler: Address of a running scheduler, e.g. "tcp://10.0.0.5:8786".
    """

    def __init__(self, workers: int, scheduler: str | None = None) -> None:
        self.workers = workers
        self.scheduler = scheduler

    def run(self, matches: Sequence[Match], done: Done) -> None:
        with dask_client(self.workers, self.scheduler) as client:
            from distributed import as_completed

            futures = client.map(play_match, list(matches), pure=False)
            by_key = {future.key: match for future, match in zip(futures, matches, strict=True)}
            for future in as_completed(futures):
                match = by_key[future.key]
                if future.status == "finished":
                    done(future.result())
                else:
                    error = future.exception()
                    text = "".join(traceback.format_exception(error))
                    # KilledWorker: the task killed the workers that ran it (a crash, a result);
                    # anything else is the cluster's failure and the game is replayed on resume.
                    kind = CRASH if type(error).__name__ == "KilledWorker" else RUNNER
                    done(error_record(match, f"the Dask task failed:\n{text}", kind=kind))
                future.release()


def make_executor(config: Config) -> Executor:
    """The executor the config's [run] section asks for."""
    if config.run.executor == "inline":
        return InlineExecutor()
    if config.run.executor == "dask":
        return DaskExecutor(config.run.workers, config.run.scheduler)
    return ProcessExecutor(config.run.workers)
