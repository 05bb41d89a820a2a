"""Files that lose nothing: an append-only journal of records and atomically written JSON.

A journal is a text file of one record per line (after an optional header line). Each line is
written with a single `write` on a file opened with O_APPEND and then fsynced, before the next
record is accepted; so a process killed at any moment leaves every finished record on disk and
at worst no trace of the one being written. Should a torn tail ever appear (a partial line
without its newline, e.g. after a full disk), readers ignore it and opening the journal for
appending cuts it off before anything else is written.

A manifest (the config a directory's records belong to) is written atomically: a temporary file
fsynced, then renamed over the old one.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any


class StoreError(RuntimeError):
    """A results directory or one of its files cannot be used as it is; the message says why
    and what to do."""


class ConfigChangedError(StoreError):
    """The output directory holds records of another config."""


class Appender:
    """Appends lines to a journal: one `write` per line, then `fsync`."""

    def __init__(self, fd: int) -> None:
        self._fd = fd

    def append(self, line: str) -> None:
        """Writes `line` (which ends with a newline) and returns only once it is on disk."""
        write_all(self._fd, line.encode())
        os.fsync(self._fd)


class Journal:
    """An append-only file of records, one a line, after `header` (when not empty).

    Attributes:
        path: The file.
        header: Its first line, newline included ("" for none).
    """

    def __init__(self, path: str | Path, header: str = "") -> None:
        self.path = Path(path)
        self.header = header

    def lines(self) -> list[str]:
        """Every complete line after the header (a torn last line is ignored; none when the
        file does not exist).

        Raises:
            StoreError: The file starts with another header.
        """
        if not self.path.exists():
            return []
        text = self.path.read_bytes().decode("utf-8", errors="replace")
        # The element after the last newline is "" unless the tail is torn; drop it either way.
        complete = text.split("\n")[:-1]
        if self.header and complete:
            if complete[0] + "\n" != self.header:
                raise StoreError(
                    f"{self.path}: the header is not that of this version's {self.path.name}; "
                    "use another output directory or start over (--force_new archives the "
                    "old results)"
                )
            complete = complete[1:]
        return [line for line in complete if line]

    def repair(self) -> int:
        """Cuts a torn tail (bytes after the last newline); returns the bytes removed."""
        if not self.path.exists():
            return 0
        data = self.path.read_bytes()
        keep = data.rfind(b"\n") + 1
        if keep == len(data):
            return 0
        with open(self.path, "r+b") as handle:
            handle.truncate(keep)
            handle.flush()
            os.fsync(handle.fileno())
        return len(data) - keep

    @contextmanager
    def appending(self) -> Iterator[Appender]:
        """Opens the journal for appending (header written first when new; torn tail cut)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.repair()
        self.lines()  # refuses a foreign file before appending to it
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            if os.fstat(fd).st_size == 0 and self.header:
                write_all(fd, self.header.encode())
                os.fsync(fd)
                fsync_directory(self.path.parent)
            yield Appender(fd)
        finally:
            os.close(fd)


def write_atomic(path: str | Path, text: str) -> None:
    """Writes `text` to `path` atomically (a temporary file fsynced, then renamed over it)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    with open(temporary, "w") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)
    fsync_directory(path.parent)


def differences(stored: Mapping[str, Any], wanted: Mapping[str, Any]) -> list[str]:
    """The keys whose values differ between two configs' canonical forms, sorted."""
    return sorted(key for key in set(stored) | set(wanted) if stored.get(key) != wanted.get(key))


def utc_stamp() -> str:
    """The current UTC time for file names, e.g. 20261125T093000Z."""
    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())


def free_path(parent: Path, name: str) -> Path:
    """PARENT/NAME, or PARENT/NAME.1, .2, ... when that exists already."""
    target = parent / name
    suffix = 0
    while target.exists():
        suffix += 1
        target = parent / f"{name}.{suffix}"
    return target


def set_aside(path: Path, why: str) -> Path | None:
    """Renames `path` to PATH.WHY-<UTC time> (e.g. a damaged manifest before it is rebuilt);
    returns the new path, or None when there is no such file."""
    if not path.exists():
        return None
    target = free_path(path.parent, f"{path.name}.{why}-{utc_stamp()}")
    os.replace(path, target)
    fsync_directory(path.parent)
    return target


def archive(directory: Path, paths: Iterable[Path]) -> Path | None:
    """Moves the existing files of `paths` into DIRECTORY/previous/<UTC time>/; returns that
    directory, or None when there was nothing to move."""
    files = sorted({path for path in paths if path.is_file()})
    if not files:
        return None
    target = free_path(directory / "previous", utc_stamp())
    target.mkdir(parents=True)
    for path in files:
        os.replace(path, target / path.name)
    fsync_directory(directory)
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


def read_json_object(path: str | Path) -> dict[str, Any] | None:
    """The JSON object in `path` (a manifest), or None when the file does not exist.

    Raises:
        StoreError: The file cannot be read or holds no JSON object.
    """
    path = Path(path)
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as error:
        raise StoreError(f"{path}: unreadable ({error})") from None
    if not isinstance(data, dict):
        raise StoreError(f"{path}: unreadable (not a JSON object)")
    return data


def utc_now() -> str:
    """The current UTC time, ISO 8601 to the second."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def fsync_directory(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
