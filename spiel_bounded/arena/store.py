"""A tournament's results directory: games.csv (a `runs.journal.Journal` of `GameRecord` rows,
one fsynced line per game, so that a run killed at any moment loses no finished game) and
run.json (the manifest, written atomically).

run.json holds the fingerprint of the tournament settings: resuming with a changed config is
refused (`ConfigChangedError`) unless the old results are archived first (`archive`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from spiel_bounded.arena.records import GameRecord, header_line, parse_lines
from spiel_bounded.runs.journal import (
    Appender,
    Journal,
    StoreError,
    archive,
    set_aside,
    write_atomic,
)
from spiel_bounded.runs.records import StoredConfig, check_same_config

GAMES_CSV: Final = "games.csv"
MANIFEST: Final = "run.json"
FORMAT: Final = 1


class ManifestError(StoreError):
    """run.json is partial or corrupt.

    Attributes:
        reason: What is wrong with it, e.g. "missing key 'tournament'".
    """

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(
            f"{path}: unreadable ({reason}): the file is partial or corrupt. It records which "
            "tournament the games in games.csv belong to, and can be rebuilt from the config "
            "that played them: run that config again (--config FILE; games.csv is checked "
            f"against its schedule, the damaged file kept as {path.name}.damaged-<time>, nothing "
            "is replayed), or report with --report_only --config FILE, which does not need it"
        )
        self.reason = reason


@dataclass(frozen=True, kw_only=True)
class Manifest:
    """What run.json records about the tournament whose games are in games.csv.

    Attributes:
        fingerprint: `TournamentSettings.fingerprint()`.
        tournament: `TournamentSettings.canonical()`, to name what changed.
        labels: Bot labels in config order (the order of report tables).
        scheduled: Number of games in the schedule.
        config_source: Path of the config file.
        config_text: The config file's text.
        report: The [report] settings (anchor, bootstrap, seed) for `--report_only`.
        created: UTC time the first run started.
        commands: How the runs that played the games were started (command lines), oldest
            first, each once; kept so that a report rebuilt later can still say it.
    """

    fingerprint: str
    tournament: Mapping[str, Any]
    labels: tuple[str, ...]
    scheduled: int
    config_source: str
    config_text: str
    report: Mapping[str, Any]
    created: str
    commands: tuple[str, ...] = ()

    def to_json(self) -> str:
        data = {
            "format": FORMAT,
            **self.__dict__,
            "labels": list(self.labels),
            "commands": list(self.commands),
        }
        return json.dumps(data, indent=2, sort_keys=True) + "\n"

    @classmethod
    def from_json(cls, text: str) -> Manifest:
        data = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError(f"a JSON {type(data).__name__}, not an object")
        if data.get("format") != FORMAT:
            raise ValueError(f"format {data.get('format')!r}, expected {FORMAT}")
        return cls(
            fingerprint=data["fingerprint"],
            tournament=data["tournament"],
            labels=tuple(data["labels"]),
            scheduled=int(data["scheduled"]),
            config_source=data["config_source"],
            config_text=data["config_text"],
            report=data.get("report", {}),
            created=data["created"],
            commands=tuple(str(command) for command in data.get("commands", [])),
        )


class GameStore:
    """The results directory of one tournament."""

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)

    @property
    def games_path(self) -> Path:
        return self.directory / GAMES_CSV

    @property
    def manifest_path(self) -> Path:
        return self.directory / MANIFEST

    def has_games(self) -> bool:
        """True when games.csv holds at least one complete row."""
        return bool(self.read_records())

    @property
    def journal(self) -> Journal:
        """games.csv as a journal of records under their header."""
        return Journal(self.games_path, header_line())

    def read_records(self) -> list[GameRecord]:
        """Every complete row of games.csv (a torn last line is ignored)."""
        lines = self.journal.lines()
        try:
            return parse_lines(lines)
        except ValueError as error:
            raise StoreError(f"{self.games_path}: {error}") from None

    def repair(self) -> int:
        """Cuts a torn tail of games.csv (bytes after the last newline); returns the bytes
        removed."""
        return self.journal.repair()

    @contextmanager
    def appending(self) -> Iterator[Appender]:
        """Opens games.csv for appending `GameRecord.to_line()`s, each on disk before `append`
        returns (header written first when new; torn tail cut)."""
        self.directory.mkdir(parents=True, exist_ok=True)
        self.read_records()  # refuses a foreign or corrupt file before appending to it
        with self.journal.appending() as appender:
            yield appender

    def read_manifest(self) -> Manifest | None:
        """run.json, or None when there is none.

        Raises:
            ManifestError: run.json is partial or corrupt (the message says how to rebuild it).
        """
        if not self.manifest_path.exists():
            return None
        try:
            text = self.manifest_path.read_text()
        except (OSError, UnicodeDecodeError) as error:
            raise ManifestError(self.manifest_path, str(error)) from None
        try:
            return Manifest.from_json(text)
        except json.JSONDecodeError as error:
            raise ManifestError(self.manifest_path, f"not JSON: {error}") from None
        except KeyError as error:
            raise ManifestError(self.manifest_path, f"missing key {error}") from None
        except (ValueError, TypeError, AttributeError) as error:
            raise ManifestError(self.manifest_path, str(error)) from None

    def set_aside_manifest(self) -> Path | None:
        """Renames run.json to run.json.damaged-<UTC time> (before it is rebuilt); returns the
        new path, or None when there is no run.json."""
        return set_aside(self.manifest_path, "damaged")

    def write_manifest(self, manifest: Manifest) -> None:
        """Writes run.json atomically (a temporary file renamed over it)."""
        write_atomic(self.manifest_path, manifest.to_json())

    def check_same_tournament(self, manifest: Manifest) -> None:
        """Raises `ConfigChangedError` when stored games belong to another tournament config."""
        stored = self.read_manifest()
        if stored is not None and stored.fingerprint == manifest.fingerprint:
            return  # the same tournament: games.csv need not be read
        check_same_config(
            self.manifest_path,
            None
            if stored is None
            else StoredConfig(
                fingerprint=stored.fingerprint,
                canonical=stored.tournament,
                source=stored.config_source,
                created=stored.created,
            ),
            fingerprint=manifest.fingerprint,
            canonical=manifest.tournament,
            has_records=self.has_games(),
            what="tournament",
            remedy="use another output directory, or pass --force_new to archive the old "
            f"results under {self.directory / 'previous'}/ and start over",
        )

    def archive(self, patterns: tuple[str, ...] = ()) -> Path | None:
        """Moves games.csv, run.json and files matching `patterns` (the report) into
        previous/<UTC time>/; returns that directory, or None when there was nothing to move.
        """
        paths = [self.games_path, self.manifest_path]
        for pattern in patterns:
            paths.extend(self.directory.glob(pattern))
        return archive(self.directory, paths)
