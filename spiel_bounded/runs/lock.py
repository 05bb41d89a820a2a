"""One run at a time per output directory: an `fcntl.flock` on OUTPUT/run.lock.

Two runs appending to one games.csv would each play every missing game, so the results would
hold every game twice. A run holds an exclusive `flock` on run.lock for as long as it plays, and
keeps in the file who it is (pid, host, start time), so that a second run is refused with a
message naming the first one.

The kernel releases a `flock` when its holder dies, however it dies: a run killed with SIGKILL
(or a lost machine) cannot leave the directory locked. It does leave its pid in run.lock; a run
that gets the lock and finds a holder written there takes over that stale lock and says so
(`RunLock.stale`). A run that ends normally, or by an exception (Ctrl-C, SIGTERM), empties the
file. The file itself stays: removing a locked file lets a third run lock a new file of the
same name while the second still holds the old one.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from spiel_bounded.runs.journal import StoreError, usable_directory, utc_now

LOCK_FILE: Final = "run.lock"


class RunLockedError(StoreError):
    """Another run is using the output directory."""


@dataclass(frozen=True, kw_only=True)
class LockHolder:
    """Who holds (or held) a directory's lock.

    Attributes:
        pid: Process id of the run.
        host: Host name of the machine it runs on.
        started: UTC time it took the lock.
    """

    pid: int
    host: str
    started: str

    def describe(self) -> str:
        """E.g. "pid 1234 on host node7, started 2026-01-02T03:04:05Z"."""
        return f"pid {self.pid} on host {self.host}, started {self.started}"


@dataclass(frozen=True, kw_only=True)
class RunLock:
    """A lock held on an output directory.

    Attributes:
        path: The lock file.
        holder: This run.
        stale: The run that held the lock before and ended without releasing it (killed), if
            any: its lock was taken over.
    """

    path: Path
    holder: LockHolder
    stale: LockHolder | None


@contextmanager
def locked(directory: str | Path) -> Iterator[RunLock]:
    """Holds the lock of `directory` (created if missing) for the duration of the block.

    Raises:
        RunLockedError: Another run holds the lock; the message names it.
        StoreError: The directory cannot be created or written (a file, read-only, ...).
    """
    directory = usable_directory(directory)
    path = directory / LOCK_FILE
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as error:
        raise StoreError(
            f"{directory}: cannot be used as the output directory: cannot create {LOCK_FILE} "
            f"there ({error.strerror}); accepted: a directory this user can write"
        ) from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read_holder(fd)
            who = holder.describe() if holder is not None else "a run that is just starting"
            raise RunLockedError(
                f"{directory} is in use by another run ({who}); two runs into one directory "
                "would play every game twice. Wait for it to end (or stop it), or use another "
                "output directory"
            ) from None
        stale = _read_holder(fd)
        holder = LockHolder(pid=os.getpid(), host=socket.gethostname(), started=utc_now())
        _write(fd, json.dumps(holder.__dict__, sort_keys=True) + "\n")
        try:
            yield RunLock(path=path, holder=holder, stale=stale)
        finally:
            _write(fd, "")
    finally:
        os.close(fd)  # releases the flock


def read_holder(directory: str | Path) -> LockHolder | None:
    """The run written in `directory`'s lock file (holding it or stale), None when none is."""
    path = Path(directory) / LOCK_FILE
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        return _read_holder(fd)
    finally:
        os.close(fd)


def _read_holder(fd: int) -> LockHolder | None:
    text = os.pread(fd, 4096, 0).decode("utf-8", errors="replace")
    if not text.strip():
        return None
    try:
        data = json.loads(text)
        return LockHolder(pid=int(data["pid"]), host=str(data["host"]), started=data["started"])
    except (ValueError, KeyError, TypeError):
        return None  # not written by this module: nothing to name


def _write(fd: int, text: str) -> None:
    os.ftruncate(fd, 0)
    if text:
        os.pwrite(fd, text.encode(), 0)
    os.fsync(fd)
