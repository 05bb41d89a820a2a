"""The fast test tier: a test is `slow` when its recorded time reaches `SLOW_SECONDS`.

`tests/durations.json` records every test's seconds (setup, call and teardown added) from a
full run: `make test` writes its run's record to `build/test-durations.json` (`pytest
--record-durations=PATH`), and `make durations` runs it and copies that record over.
`conftest.py` marks the tests it records at or above the threshold `slow`, so that
`make test-fast` (`pytest -m "not slow"`) runs the rest in under two minutes on two cores while
`make test` runs everything. A test the record does not know yet counts as fast until the
record is refreshed.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Final

SLOW_SECONDS: Final = 0.5
RECORD: Final = Path(__file__).with_name("durations.json")


def slow_by_record(names: Iterable[str], record: Mapping[str, float]) -> set[str]:
    """The test ids of `names` that `record` times at `SLOW_SECONDS` or more."""
    return {name for name in names if record.get(name, 0.0) >= SLOW_SECONDS}


class Durations:
    """Seconds per test id, its phases added, as a run reports them."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    def add(self, name: str, seconds: float) -> None:
        self.seconds[name] = self.seconds.get(name, 0.0) + seconds

    def write(self, path: Path) -> None:
        """Writes the record as JSON, sorted by test id, times rounded to milliseconds."""
        rounded = {name: round(self.seconds[name], 3) for name in sorted(self.seconds)}
        path.write_text(json.dumps(rounded, indent=0) + "\n")
