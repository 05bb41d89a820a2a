"""The fast tier's mechanism (`tests/tiers.py`): tests are slow by their recorded time."""

from __future__ import annotations

import json
from pathlib import Path

from tests.tiers import SLOW_SECONDS, Durations, slow_by_record


def test_tests_at_or_above_the_threshold_are_slow_and_unrecorded_ones_are_not() -> None:
    record = {"a::slow": SLOW_SECONDS, "a::fast": SLOW_SECONDS / 2}
    assert slow_by_record(["a::slow", "a::fast", "a::new"], record) == {"a::slow"}


def test_the_record_adds_a_tests_phases_and_writes_sorted_json(tmp_path: Path) -> None:
    durations = Durations()
    for seconds in (0.25, 1.0, 0.125):  # setup, call, teardown
        durations.add("t::x", seconds)
    durations.add("t::a", 0.5)
    path = tmp_path / "durations.json"
    durations.write(path)
    assert json.loads(path.read_text()) == {"t::a": 0.5, "t::x": 1.375}
    assert path.read_text().index("t::a") < path.read_text().index("t::x")


def test_the_committed_record_is_read_and_names_tests() -> None:
    record = json.loads((Path(__file__).parent / "durations.json").read_text())
    assert record and all("::" in name and seconds >= 0 for name, seconds in record.items())
