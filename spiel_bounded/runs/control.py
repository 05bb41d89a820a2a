"""Stopping a long job cleanly, and where it stands.

SIGTERM (from `timeout`, SLURM, `docker stop`, `kill`) stops a job as Ctrl-C does: `Terminated`
is a `KeyboardInterrupt`, so the executors kill their workers and every finished record stays
in the journal. `Progress` is what a job tells its progress callback after every record.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import FrameType


class Terminated(KeyboardInterrupt):
    """The job received SIGTERM.

    Attributes:
        signum: The signal's number.
    """

    def __init__(self, signum: int) -> None:
        super().__init__(f"stopped by {signal.Signals(signum).name}")
        self.signum = signum


@contextmanager
def sigterm_stops_the_run() -> Iterator[None]:
    """Turns SIGTERM into `Terminated` while the block runs.

    Only in the main thread (the only one that may set handlers), and only when SIGTERM still
    has its default action: a handler the application set is left alone. A second SIGTERM
    while the run is stopping is ignored, so that it cannot cut the clean-up short.
    """
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL
    ):
        yield
        return

    def stop(signum: int, frame: FrameType | None) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        raise Terminated(signum)

    signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


@dataclass(frozen=True, kw_only=True)
class Progress:
    """Where a run stands.

    Attributes:
        done: Records finished in this run.
        total: Records this run set out to make.
        resumed: Records already finished by earlier runs (skipped).
        errors: Records of this run that are errors.
        elapsed: Seconds since this run started working.
    """

    done: int
    total: int
    resumed: int
    errors: int
    elapsed: float

    @property
    def rate(self) -> float:
        """Records per second in this run (0 before the first one)."""
        return self.done / self.elapsed if self.elapsed > 0 else 0.0

    @property
    def seconds_left(self) -> float | None:
        """Estimated seconds until this run ends (None before the first record)."""
        if self.done == 0 or self.elapsed <= 0:
            return None
        return (self.total - self.done) / self.rate
