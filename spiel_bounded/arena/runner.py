"""Runs a tournament on the shared engine (`spiel_bounded.runs`): lock the output directory,
resume or refuse, then play the missing games on an executor (`job.TournamentJob`).

Every record is appended to games.csv (and on disk) before the next one is accepted, and progress
is reported through a callback; nothing here prints. SIGTERM stops a run as Ctrl-C does
(`runs.control.Terminated`): the workers are killed, every finished game stays in games.csv, and
running again resumes.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from spiel_bounded.arena.job import TournamentJob
from spiel_bounded.arena.records import GameRecord, latest
from spiel_bounded.arena.schedule import (
    PARAMETERS_CHANGED,
    changed_parameters,
    make_schedule,
    mismatch,
)
from spiel_bounded.arena.settings import BotFactory, Config
from spiel_bounded.arena.sprt import SPRTStatus
from spiel_bounded.arena.stopping import PairingKey, SPRTStopper
from spiel_bounded.arena.store import GameStore, Manifest, ManifestError
from spiel_bounded.runs.control import Progress, sigterm_stops_the_run
from spiel_bounded.runs.executors import Executor, make_executor
from spiel_bounded.runs.journal import ConfigChangedError, utc_now
from spiel_bounded.runs.lock import LockHolder, locked
from spiel_bounded.runs.records import RecordKeeper

REPORT_PATTERNS = ("summary.md", "*.csv", "*.png")
"""Files of a results directory that `--force_new` archives along with games.csv and run.json."""


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
        manifest_rebuilt: run.json was missing or damaged, and was rebuilt from the config
            after every game in games.csv was found in its schedule.
        damaged_manifest: Where the damaged run.json was kept, if it was.
        decided: The pairings an SPRT decided, in this run or before (`[tournament] sprt`):
            (game, bot, opponent) -> the test's status at its decision.
        skipped: Scheduled games not played because their pairing was decided.
    """

    output: Path
    scheduled: int
    resumed: int
    played: int
    errors: int
    seconds: float
    archived: Path | None = None
    stale_lock: LockHolder | None = None
    manifest_rebuilt: bool = False
    damaged_manifest: Path | None = None
    decided: Mapping[PairingKey, SPRTStatus] = field(default_factory=dict)
    skipped: int = 0


def manifest_of(
    config: Config,
    scheduled: int,
    created: str | None = None,
    commands: tuple[str, ...] = (),
) -> Manifest:
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
        commands=commands,
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
    command: str | None = None,
    on_wait: Callable[[str], None] | None = None,
) -> RunResult:
    """Plays every game of the config's schedule that games.csv does not hold finished yet.

    A game is finished when its last record has no error or an error that is a result (a bot
    raised, an illegal move, a crash: `GameRecord.finished`); a game whose bot could not be built
    or whose executor failed is played again. When the output directory holds no finished game
    but games of another config (e.g. all of them failed because of a config error since fixed),
    those are archived as `force_new` would. When run.json is missing or damaged, it is rebuilt
    from `config` if every game in games.csv is one that `config` schedules (the damaged file is
    kept as run.json.damaged-<time>); otherwise the run is refused.

    Only one run at a time may use an output directory: the run holds a lock on it (see
    `lock`), and a second run is refused with an error naming the first.

    Args:
        config: A validated config.
        executor: Where games are played (default: the config's `[run]` executor).
        force_new: Archive earlier results (under OUTPUT/previous/) instead of resuming; the
            only way to reuse an output directory whose finished games came from another config.
        retry_errors: Also play again the games whose last record is an error that counts as
            finished (after fixing a bot, say); their old records stay in games.csv, the report
            counts the last record of each game.
        extra_bots: Factories of bots outside the registry (the same as given to
            `load_config`).
        on_progress: Called after each game is stored, with its record and the progress.
        on_wait: Called with a line to show while the Dask executor waits for a worker (the
            default executor only).
        clock: Seconds clock for progress (injectable for tests).
        command: How this run was started (the command line), kept in run.json
            (`Manifest.commands`) when the run has games to play, so that a report rebuilt
            later can say how the games were played.

    SIGTERM stops the run as Ctrl-C does: `Terminated` (a `KeyboardInterrupt`) is raised, the
    executor's workers are killed, and every finished game stays in games.csv.

    Raises:
        Terminated: The process received SIGTERM (unless the application handles SIGTERM).
        KeyboardInterrupt: Ctrl-C.
        RunLockedError: Another run is using the output directory.
        ConfigChangedError: The output directory holds games of another config (and not
            `force_new`), or run.json is missing or damaged and games.csv holds games that
            `config` does not schedule.
        StoreError: games.csv is unreadable, or the output directory cannot be used.
    """
    with sigterm_stops_the_run(), locked(config.run.output) as lock:
        result = _run(
            config,
            executor=executor,
            force_new=force_new,
            retry_errors=retry_errors,
            extra_bots=extra_bots,
            on_progress=on_progress,
            clock=clock,
            command=command,
            on_wait=on_wait,
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
    command: str | None,
    on_wait: Callable[[str], None] | None = None,
) -> RunResult:
    schedule = make_schedule(config.tournament, extra_bots)
    store = GameStore(config.run.output)
    archived = store.archive(REPORT_PATTERNS) if force_new else None
    manifest = manifest_of(config, len(schedule))
    every_record = store.read_records()
    records = latest(every_record)
    try:
        stored = store.read_manifest()
        damage = None
    except ManifestError as error:
        stored, damage = None, error
    if (
        records
        and not any(record.finished for record in records)
        and (stored is None or stored.fingerprint != manifest.fingerprint)
    ):
        # Nothing here is a result: the other config's leftovers are archived, not mixed
        # with this config's games.
        archived = store.archive(REPORT_PATTERNS)
        every_record, records, stored, damage = [], [], None, None
    rebuilt = False
    damaged = None
    if stored is not None:
        store.check_same_tournament(manifest)
        changed = changed_parameters(every_record, schedule)
        if changed:
            # The same config, but not the same bots: resuming would mix two bots' games.
            raise ConfigChangedError(
                f"{store.games_path} holds games played with other parameters for "
                f"{', '.join(changed)} than {config.source} gives now ({PARAMETERS_CHANGED}). "
                "Resume with the code that played them, use another output directory, or pass "
                f"--force_new to archive the old results under {store.directory / 'previous'}/ "
                "and start over"
            )
        manifest = manifest_of(
            config, len(schedule), created=stored.created, commands=stored.commands
        )
    elif every_record:
        # run.json is missing or damaged: it is rebuilt from this config, provided that every
        # game in games.csv is one this config schedules (same id, seed, bots, parameters).
        wrong = mismatch(every_record, schedule, config.source)
        if wrong:
            state = f"unreadable ({damage.reason})" if damage is not None else "missing"
            raise ConfigChangedError(
                f"{store.manifest_path} is {state}, and games.csv {wrong}, so "
                "run.json cannot be rebuilt from it. Run the config that played these games, "
                "use another output directory, or pass --force_new to archive the old results "
                f"under {store.directory / 'previous'}/ and start over"
            )
        rebuilt = True
    if damage is not None:
        damaged = store.set_aside_manifest()
    finished = {
        record.game_id
        for record in records
        if record.finished and not (retry_errors and not record.ok)
    }
    pending = [match for match in schedule if match.game_id not in finished]
    resumed = len(schedule) - len(pending)
    stopper = None
    if config.tournament.sprt is not None:
        finished_records = [record for record in records if record.game_id in finished]
        stopper = SPRTStopper(config.tournament.sprt, manifest.labels, schedule, finished_records)
        # A pairing decided in an earlier run plays nothing more.
        pending = [match for match in pending if stopper.wanted(match)]
    # Only a command that plays games is one that "played" them (a resume with nothing left
    # would otherwise be named as the command that played every game).
    if command and pending and command not in manifest.commands:
        manifest = replace(manifest, commands=(*manifest.commands, command))
    store.write_manifest(manifest)

    with store.appending() as appender:
        keeper: RecordKeeper[GameRecord] = RecordKeeper(
            appender, total=len(pending), resumed=resumed, on_progress=on_progress, clock=clock
        )

        def done(record: GameRecord) -> None:
            keeper.done(record)
            if stopper is not None:
                stopper.add(record)

        if pending:
            run = config.run
            chosen = executor or make_executor(
                run.executor, run.workers, run.scheduler, on_wait=on_wait
            )
            chosen.run(TournamentJob(), pending, done, stopper.wanted if stopper else None)

    return RunResult(
        output=store.directory,
        manifest_rebuilt=rebuilt,
        damaged_manifest=damaged,
        scheduled=len(schedule),
        resumed=resumed,
        played=keeper.count,
        errors=keeper.errors,
        seconds=clock() - keeper.started,
        archived=archived,
        decided=dict(stopper.decided) if stopper is not None else {},
        skipped=len(schedule) - resumed - keeper.count,
    )
