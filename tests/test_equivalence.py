"""The equivalence harness (`scripts/bench.py --suites=equivalence`) on every 8th search: the
alpha-beta engine still gives the committed moves, bounds, principal variations and counts."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_engine_searches_match_the_committed_fingerprints(tmp_path: Path) -> None:
    output = tmp_path / "equivalence.md"
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "bench.py"),
            "--suites=equivalence",
            "--equivalence_stride=8",
            f"--output={output}",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "120 searches compared" in done.stdout
    assert ": 0 differences." in done.stdout, done.stdout
