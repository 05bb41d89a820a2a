"""Pooling replicate tournaments: the games of several results directories that played the same
tournament under different seeds, as one set of records for one report.

Replicates are how a small effect gets a narrower interval without changing what was played:
rerun one config with `--seed=N --output=DIR`, then report all the runs together
(`round_robin.py --report_only --output POOLED --pool=DIR,DIR,...`). Every run's settings must
match but for its seed (and output); the runs' rounds are renumbered one after another, so that
paired statistics pair only the seatings of one run's round, and each game id is prefixed with
the index of its run, so that no two games share one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Final

from spiel_bounded.arena.records import GameRecord
from spiel_bounded.arena.store import GameStore, Manifest
from spiel_bounded.runs.journal import StoreError, differences

REPLICATE_KEYS: Final = frozenset({"seed"})
"""Tournament settings in which pooled runs may differ."""


class PoolError(StoreError):
    """The directories cannot be pooled: one is not a finished run's results, or two played
    different tournaments."""


@dataclass(frozen=True, kw_only=True)
class PooledRuns:
    """The games of several replicate runs, ready for `build_report`.

    Attributes:
        records: Every run's records, rounds renumbered run after run, game ids prefixed
            `"<run index>/"` (0 for the first directory).
        manifest: The first run's manifest with the schedules summed, every run's commands and
            the directories in `config_source`; never written to disk.
        directories: The pooled directories, in the order given.
    """

    records: tuple[GameRecord, ...]
    manifest: Manifest
    directories: tuple[Path, ...]


def pool_runs(directories: Sequence[str | Path]) -> PooledRuns:
    """Reads and pools the results directories of replicate runs.

    Raises:
        PoolError: Fewer than two directories, one given twice, one without games.csv or
            run.json, or runs whose tournaments differ beyond their seeds (the message names the
            settings and the directories).
        StoreError: A games.csv or run.json is unreadable.
    """
    paths = tuple(Path(directory) for directory in directories)
    if len(paths) < 2:
        raise PoolError(f"pooling needs two results directories or more, got {len(paths)}")
    resolved = [path.resolve() for path in paths]
    for index, path in enumerate(resolved):
        if path in resolved[:index]:
            raise PoolError(f"{paths[index]} is given twice: its games would count twice")
    runs = [_read_run(path) for path in paths]
    first_path, (first, _) = paths[0], runs[0]
    for path, (manifest, _) in zip(paths[1:], runs[1:], strict=True):
        # The canonical settings hold the bots with their labels, so labels differ there too.
        changed = [
            key
            for key in differences(first.tournament, manifest.tournament)
            if key not in REPLICATE_KEYS
        ]
        if changed:
            raise PoolError(
                f"{path} played another tournament than {first_path} (differs in "
                f"{', '.join(changed)}); "
                f"only runs that differ in {', '.join(sorted(REPLICATE_KEYS))} can be pooled"
            )
    records: list[GameRecord] = []
    offset = 0
    for index, (_, run_records) in enumerate(runs):
        records += [
            replace(record, game_id=f"{index}/{record.game_id}", round=record.round + offset)
            for record in run_records
        ]
        offset += 1 + max(record.round for record in run_records)
    commands = tuple(command for manifest, _ in runs for command in manifest.commands)
    manifest = replace(
        first,
        fingerprint="pooled",
        scheduled=sum(manifest.scheduled for manifest, _ in runs),
        config_source=f"{first.config_source}, {len(paths)} runs pooled: "
        + ", ".join(str(path) for path in paths),
        commands=tuple(dict.fromkeys(commands)),
    )
    return PooledRuns(records=tuple(records), manifest=manifest, directories=paths)


def _read_run(directory: Path) -> tuple[Manifest, list[GameRecord]]:
    store = GameStore(directory)
    if not store.games_path.exists():
        raise PoolError(f"{directory} holds no games.csv: not a tournament's results directory")
    manifest = store.read_manifest()
    if manifest is None:
        raise PoolError(
            f"{directory} holds no run.json, so its tournament cannot be matched to the "
            "others'; rebuild it by running its config again (nothing is replayed)"
        )
    records = store.read_records()
    if not records:
        raise PoolError(f"{directory}/games.csv holds no finished game")
    return manifest, records
