"""Runs a tournament: resume or refuse, then play the missing games on an executor.

Executors play `Match`es and hand back `GameRecord`s one by one, in the order they finish:

- `ProcessExecutor`: local worker processes (`concurrent.futures`, spawn start method). A game
  that kills its worker process (a crash in C++) is replayed alone in a fresh process; if it
  kills that one too it is recorded as an error, and the tournament goes on.
- `DaskExecutor`: a Dask distributed cluster at an address, or a local one (`cluster` extra).
- `InlineExecutor`: one game at a time in this process (debugging, tests).

Every record is appended to games.csv (and on disk) before the next one is accepted, and progress
is reported through a callback; nothing here prints.
"""

from __future__ import annotations

import signal
import time
import traceback
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass, replace
from multiprocessing import get_context
from pathlib import Path
from typing import Any, Protocol

from spiel_bounded.arena.config import BotFactory, Config
from spiel_bounded.arena.lock import LockHolder, locked
from spiel_bounded.arena.play import error_record, play_match
from spiel_bounded.arena.records import CRASH, RUNNER, GameRecord, latest
from spiel_bounded.arena.schedule import Match, make_schedule
from spiel_bounded.arena.store import GameStore, Manifest, utc_now

REPORT_PATTERNS = ("summary.md", "*.csv", "*.png")
"""Files of a results directory that `--force_new` archives along with games.csv and run.json."""

Done = Callable[[GameRecord], None]


class Executor(Protocol):
    """Plays matches and calls `done` with each record, in the order games finish."""

    def run(self, matches: Sequence[Match], done: Done) -> None: ...


@dataclass(frozen=True, kw_only=True)
class Progress:
    """Where a run stands.

    Attributes:
        done: Games finished in this run.
        total: Games this run set out to play.
        resumed: Games already finished by earlier runs (skipped).
        errors: Games of this run that ended in an error.
        elapsed: Seconds since this run started playing.
    """

    done: int
    total: int
    resumed: int
    errors: int
    elapsed: float

    @property
    def rate(self) -> float:
        """Games per second in this run (0 before the first game ends)."""
        return self.done / self.elapsed if self.elapsed > 0 else 0.0

    @property
    def seconds_left(self) -> float | None:
        """Estimated seconds until this run ends (None before the first game ends)."""
        if self.done == 0 or self.elapsed <= 0:
            return None
        return (self.total - self.done) / self.rate


@dataclass(frozen=True, kw_only=True)
class RunResult:
    """What a run did.

    Attributes:
        output: The results directory.
        scheduled: Games in the schedule.
        resumed: Games found finished and skipped.
        played: Games played in this run.
        errors: Games of this run that ended in an error.
        seconds: Wall-clock seconds of this run.
        archived: Where `force_new` moved earlier results, if it did.
        stale_lock: The run whose lock on the output directory this run took over (a run that
            was killed), if any.
    """

    output: Path
    scheduled: int
    resumed: int
    played: int
    errors: int
    seconds: float
    archived: Path | None = None
    stale_lock: LockHolder | None = None


class InlineExecutor:
    """Plays each game in this process, one after the other."""

    def run(self, matches: Sequence[Match], done: Done) -> None:
        for match in matches:
            done(play_match(match))


class ProcessExecutor:
    """Plays games in local worker processes, at most `workers` at a time."""

    def __init__(self, workers: int) -> None:
        self.workers = workers

    @contextmanager
    def _pool(self, workers: int) -> Iterator[ProcessPoolExecutor]:
        pool = ProcessPoolExecutor(
            max_workers=workers, mp_context=get_context("spawn"), initializer=_ignore_interrupts
        )
        try:
            yield pool
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown(wait=True)

    def run(self, matches: Sequence[Match], done: Done) -> None:
        queue = deque(matches)
        while queue:
            suspects = self._run_until_broken(queue, done)
            # A worker died: each game that was in flight is replayed alone, so that a game
            # that kills its process is identified and recorded, and the others are not lost.
            for match in suspects:
                with self._pool(1) as pool:
                    future = pool.submit(play_match, match)
                    wait([future])
                    done(_record_of(future, match, alone=True))

    def _run_until_broken(self, queue: deque[Match], done: Done) -> list[Match]:
        inflight: dict[Future[GameRecord], Match] = {}
        with self._pool(self.workers) as pool:
            while queue or inflight:
                while queue and len(inflight) < 2 * self.workers:
                    match = queue.popleft()
                    try:
                        inflight[pool.submit(play_match, match)] = match
                    except BrokenProcessPool:  # a worker died since the last wait
                        return [match, *inflight.values()]
                finished, _ = wait(inflight, return_when=FIRST_COMPLETED)
                broken = []
                for future in sorted(finished, key=lambda item: inflight[item].game_id):
                    match = inflight.pop(future)
                    if isinstance(future.exception(), BrokenProcessPool):
                        broken.append(match)
                    else:
                        done(_record_of(future, match, alone=False))
                if broken:
                    return broken + list(inflight.values())
        return []


def _ignore_interrupts() -> None:
    # Ctrl-C is for the main process, which stops handing out games; a worker finishes its
    # game (already accepted results are safe either way) instead of printing a traceback.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _record_of(future: Future[GameRecord], match: Match, *, alone: bool) -> GameRecord:
    error = future.exception()
    if error is None:
        return future.result()
    if isinstance(error, BrokenProcessPool):
        return error_record(
            match,
            "the worker process died while playing this game alone (a crash in native code, "
            f"or killed): {error!r}",
            kind=CRASH,
        )
    text = "".join(traceback.format_exception(error))
    return error_record(
        match, f"the game could not be run in a worker process:\n{text}", kind=RUNNER
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
        try:
            from distributed import Client, LocalCluster, as_completed
        except ImportError:
            raise RuntimeError(
                "the dask executor needs the cluster extra: pip install 'spiel-bounded[cluster]'"
            ) from None
        cluster = None
        if self.scheduler is None:
            cluster = LocalCluster(
                n_workers=self.workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
            )
        client = Client(self.scheduler if cluster is None else cluster)
        try:
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
        finally:
            client.close()
            if cluster is not None:
                cluster.close()


def make_executor(config: Config) -> Executor:
    """The executor the config's [run] section asks for."""
    if config.run.executor == "inline":
        return InlineExecutor()
    if config.run.executor == "dask":
        return DaskExecutor(config.run.workers, config.run.scheduler)
    return ProcessExecutor(config.run.workers)


def manifest_of(config: Config, scheduled: int, created: str | None = None) -> Manifest:
    """The run.json contents for `config`."""
    settings = config.tournament
    return Manifest(
        fingerprint=settings.fingerprint(),
        tournament=settings.canonical(),
        labels=tuple(entry.label for entry in settings.bots),
        scheduled=scheduled,
        config_source=config.source,
        config_text=config.text,
        report={
            "anchor": config.report.anchor,
            "bootstrap": config.report.bootstrap,
            "seed": config.report.seed,
        },
        created=created or utc_now(),
    )


def run_tournament(
    config: Config,
    *,
    executor: Executor | None = None,
    force_new: bool = False,
    retry_errors: bool = False,
    extra_bots: Mapping[str, BotFactory] | None = None,
    on_progress: Callable[[GameRecord, Progress], Any] | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> RunResult:
    """Plays every game of the config's schedule that games.csv does not hold finished yet.

    A game is finished when its last record has no error or an error that is a result (a bot
    raised, an illegal move, a crash: `GameRecord.finished`); a game whose bot could not be built
    or whose executor failed is played again. When the output directory holds no finished game
    but games of another config (e.g. all of them failed because of a config error since fixed),
    those are archived as `force_new` would.

    Only one run at a time may use an output directory: the run holds a lock on it (see
    `lock`), and a second run is refused with an error naming the first.

    Args:
        config: A validated config.
        executor: Where games are played (default: `make_executor(config)`).
        force_new: Archive earlier results (under OUTPUT/previous/) instead of resuming; the
            only way to reuse an output directory whose finished games came from another config.
        retry_errors: Also play again the games whose last record is an error that counts as
            finished (after fixing a bot, say); their old records stay in games.csv, the report
            counts the last record of each game.
        extra_bots: Factories of bots outside the registry (the same as given to
            `load_config`).
        on_progress: Called after each game is stored, with its record and the progress.
        clock: Seconds clock for progress (injectable for tests).

    Raises:
        RunLockedError: Another run is using the output directory.
        ConfigChangedError: The output directory holds games of another config (and not
            `force_new`).
        StoreError: games.csv or run.json is unreadable.
    """
    with locked(config.run.output) as lock:
        result = _run(
            config,
            executor=executor,
            force_new=force_new,
            retry_errors=retry_errors,
            extra_bots=extra_bots,
            on_progress=on_progress,
            clock=clock,
        )
    return replace(result, stale_lock=lock.stale)


def _run(
    config: Config,
    *,
    executor: Executor | None,
    force_new: bool,
    retry_errors: bool,
    extra_bots: Mapping[str, BotFactory] | None,
    on_progress: Callable[[GameRecord, Progress], Any] | None,
    clock: Callable[[], float],
) -> RunResult:
    schedule = make_schedule(config.tournament, extra_bots)
    store = GameStore(config.run.output)
    archived = store.archive(REPORT_PATTERNS) if force_new else None
    manifest = manifest_of(config, len(schedule))
    records = latest(store.read_records())
    if records and not any(record.finished for record in records):
        stored = store.read_manifest()
        if stored is None or stored.fingerprint != manifest.fingerprint:
            # Nothing here is a result: the other config's leftovers are archived, not mixed
            # with this config's games.
            archived = store.archive(REPORT_PATTERNS)
            records = []
    store.check_same_tournament(manifest)
    stored = store.read_manifest()
    if stored is not None:
        manifest = manifest_of(config, len(schedule), created=stored.created)
    store.write_manifest(manifest)

    finished = {
        record.game_id
        for record in records
        if record.finished and not (retry_errors and not record.ok)
    }
    pending = [match for match in schedule if match.game_id not in finished]
    resumed = len(schedule) - len(pending)
    started = clock()
    counts = {"done": 0, "errors": 0}

    with store.appending() as appender:

        def done(record: GameRecord) -> None:
            appender.append(record)
            counts["done"] += 1
            counts["errors"] += 0 if record.ok else 1
            if on_progress is not None:
                on_progress(
                    record,
                    Progress(
                        done=counts["done"],
                        total=len(pending),
                        resumed=resumed,
                        errors=counts["errors"],
                        elapsed=clock() - started,
                    ),
                )

        if pending:
            (executor or make_executor(config)).run(pending, done)

    return RunResult(
        output=store.directory,
        scheduled=len(schedule),
        resumed=resumed,
        played=counts["done"],
        errors=counts["errors"],
        seconds=clock() - started,
        archived=archived,
    )
