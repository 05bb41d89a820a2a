"""The equivalence grid (`spiel_bounded.testing.equivalence_cases`), compared in-process with the
fingerprints committed in `results/equivalence/alphabeta.json`: the alpha-beta engine on every
4th search, and the readable oracle (`tests/alphabeta_reference.py`, which has none of the
engine's speed-ups) on every 8th, give the committed moves, bounds, principal variations and
counts. `python scripts/bench.py --suites=equivalence` compares the whole grid (1,248 searches)."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import pytest

from spiel_bounded.testing import (
    EquivalenceCase,
    equivalence_cases,
    fingerprint_differences,
)
from tests import alphabeta_reference

FINGERPRINTS = Path(__file__).resolve().parents[1] / "results/equivalence/alphabeta.json"
GRID = equivalence_cases()


@functools.cache
def committed() -> dict[str, dict[str, Any]]:
    return json.loads(FINGERPRINTS.read_text())  # type: ignore[no-any-return]


def test_the_grid_is_the_committed_one() -> None:
    assert len(GRID) == 1248
    assert [case.key for case in GRID] == list(committed())


@pytest.mark.parametrize("case", GRID[::4], ids=lambda case: case.key)
def test_the_engine_gives_the_committed_fingerprint(case: EquivalenceCase) -> None:
    assert fingerprint_differences(case.key, committed().get(case.key), case.run()) == []


@pytest.mark.parametrize("case", GRID[::8], ids=lambda case: case.key)
def test_the_oracle_gives_the_committed_fingerprint(case: EquivalenceCase) -> None:
    found = case.run(functools.partial(alphabeta_reference.search, case.search))
    assert fingerprint_differences(case.key, committed().get(case.key), found) == []
