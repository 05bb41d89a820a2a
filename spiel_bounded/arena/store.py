"""Storage that loses nothing: games.csv (append-only, one fsynced line per game) and run.json.

Each row is written with a single `write` on a file opened with O_APPEND and then fsynced, before
the next game's result is accepted; so a process killed at any moment leaves every finished game
on disk and at worst no trace of the game being written. Should a torn tail ever appear (a
partial line without its newline, e.g. after a full disk), readers ignore it and opening the store
for appending cuts it off before anything else is written.

run.json holds the fingerprint of the tournament settings: resuming with a changed config is
refused (`ConfigChangedError`) unless the old results are archived first (`archive`).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from spiel_bounded.arena.records import GameRecord, header_line, parse_lines

GAMES_CSV: Final = "games.csv"
MANIFEST: Final = "run.json"
FORMAT: Final = 1


class StoreError(RuntimeError):
    """games.csv or run.json cannot be used as they are; the message says why and what to do."""


class ConfigChangedError(StoreError):
    """The output directory holds games of a different tournament config."""


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


class Appender:
    """Appends records to games.csv: one `write` per row, then `fsync`."""

    def __init__(self, fd: int) -> None:
        self._fd = fd

    def append(self, record: GameRecord) -> None:
        """Writes `record` and returns only once it is on disk."""
        _write_all(self._fd, record.to_line().encode())
        os.fsync(self._fd)


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

    def read_records(self) -> list[GameRecord]:
        """Every complete row of games.csv (a torn last line is ignored)."""
        if not self.games_path.exists():
            return []
        lines = self.games_path.read_bytes().decode("utf-8", errors="replace").split("\n")
        # The element after the last newline is "" unless the tail is torn; drop it either way.
        complete = lines[:-1]
        if not complete:
            return []
        if complete[0] + "\n" != header_line():
            raise StoreError(
                f"{self.games_path}: the header is not that of this version's games.csv; use "
                "another output directory or --force_new (which archives the old results)"
            )
        try:
            return parse_lines([line for line in complete[1:] if line])
        except ValueError as error:
            raise StoreError(f"{self.games_path}: {error}") from None

    def repair(self) -> int:
        """Cuts a torn tail (bytes after the last newline); returns the bytes removed."""
        if not self.games_path.exists():
            return 0
        data = self.games_path.read_bytes()
        keep = data.rfind(b"\n") + 1
        if keep == len(data):
            return 0
        with open(self.games_path, "r+b") as handle:
            handle.truncate(keep)
            handle.flush()
            os.fsync(handle.fileno())
        return len(data) - keep

    @contextmanager
    def appending(self) -> Iterator[Appender]:
        """Opens games.csv for appending (header written first when new; torn tail cut)."""
        self.directory.mkdir(parents=True, exist_ok=True)
        self.repair()
        self.read_records()  # refuses a foreign or corrupt file before appending to it
        fd = os.open(self.games_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            if os.fstat(fd).st_size == 0:
                _write_all(fd, header_line().encode())
                os.fsync(fd)
                _fsync_directory(self.directory)
            yield Appender(fd)
        finally:
            os.close(fd)

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
        if not self.manifest_path.exists():
            return None
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        target = self.manifest_path.with_name(f"{MANIFEST}.damaged-{stamp}")
        suffix = 0
        while target.exists():
            suffix += 1
            target = self.manifest_path.with_name(f"{MANIFEST}.damaged-{stamp}.{suffix}")
        os.replace(self.manifest_path, target)
        _fsync_directory(self.directory)
        return target

    def write_manifest(self, manifest: Manifest) -> None:
        """Writes run.json atomically (a temporary file renamed over it)."""
        self.directory.mkdir(parents=True, exist_ok=True)
        temporary = self.manifest_path.with_suffix(".json.tmp")
        with open(temporary, "w") as handle:
            handle.write(manifest.to_json())
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, self.manifest_path)
        _fsync_directory(self.directory)

    def check_same_tournament(self, manifest: Manifest) -> None:
        """Raises `ConfigChangedError` when stored games belong to another tournament config."""
        stored = self.read_manifest()
        if stored is None:
            if self.has_games():
                raise ConfigChangedError(
                    f"{self.games_path} holds games but {self.manifest_path.name} is missing, "
                    "so they cannot be matched to this config; use another output directory or "
                    "--force_new (which archives the old results)"
                )
            return
        if stored.fingerprint == manifest.fingerprint or not self.has_games():
            return
        changed = sorted(
            key
            for key in set(stored.tournament) | set(manifest.tournament)
            if stored.tournament.get(key) != manifest.tournament.get(key)
        )
        raise ConfigChangedError(
            f"{self.directory} holds games of a different tournament config (from "
            f"{stored.config_source}, started {stored.created}); changed: "
            f"{', '.join(changed) or 'the fingerprint'}. Resume with the old config, use "
            "another output directory, or pass --force_new to archive the old results under "
            f"{self.directory / 'previous'}/ and start over"
        )

    def archive(self, patterns: tuple[str, ...] = ()) -> Path | None:
        """Moves games.csv, run.json and files matching `patterns` (the report) into
        previous/<UTC time>/; returns that directory, or None when there was nothing to move.
        """
        paths = {self.games_path, self.manifest_path}
        for pattern in patterns:
            paths.update(self.directory.glob(pattern))
        paths = {path for path in paths if path.is_file()}
        if not paths:
            return None
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        target = self.directory / "previous" / stamp
        suffix = 0
        while target.exists():
            suffix += 1
            target = self.directory / "previous" / f"{stamp}.{suffix}"
        target.mkdir(parents=True)
        for path in sorted(paths):
            os.replace(path, target / path.name)
        _fsync_directory(self.directory)
        return target


def usable_directory(directory: str | Path) -> Path:
    """`directory`, created if missing; `StoreError` saying why when it cannot be.

    Whether it can be written is found out by the first file written into it.
    """
    directory = Path(directory)
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        in_the_way = next(
            (path for path in (directory, *directory.parents) if path.exists()), directory
        )
        raise StoreError(
            f"{directory}: cannot be used as the output directory: {in_the_way} is a file, not "
            "a directory; accepted: a directory (created if missing)"
        ) from None
    except OSError as error:
        raise StoreError(
            f"{directory}: cannot create the output directory ({error.strerror}); accepted: a "
            "directory that exists or can be created"
        ) from None
    return directory


def utc_now() -> str:
    """The current UTC time, ISO 8601 to the second."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _fsync_directory(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
