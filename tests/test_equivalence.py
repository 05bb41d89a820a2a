"""The equivalence harness (`scripts/bench.py --suites=equivalence`): the alpha-beta engine, and
its readable reference (`AlphaBetaSettings(reference_engine=True)`), still give the committed
moves, bounds, principal variations and counts on a sample of the grid."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    ("engine", "stride", "searches"), [("fast", 4, 312), ("reference", 8, 156)]
)
def test_engine_searches_match_the_committed_fingerprints(
    tmp_path: Path, engine: str, stride: int, searches: int
) -> None:
    output = tmp_path / "equivalence.md"
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "bench.py"),
            "--suites=equivalence",
            f"--equivalence_engine={engine}",
            f"--equivalence_stride={stride}",
            f"--output={output}",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert f"{searches} searches compared" in done.stdout
    assert ": 0 differences." in done.stdout, done.stdout
