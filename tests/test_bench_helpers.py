"""The before/after benchmark helpers (`scripts/benchmarks/revisions.py`, `before_after.py`):
a failing measurement says which script failed and why, bot specifications parse as the
suite's flag help says, and an unknown bot is refused with the registered names."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))

from benchmarks import before_after, revisions  # after the path set-up


def test_a_failing_measurement_names_the_script_and_its_error(tmp_path: Path) -> None:
    script = tmp_path / "measure.py"
    script.write_text("raise ValueError('no such game: chess9')\n")
    with pytest.raises(RuntimeError, match=r"measure\.py \[1\] under .* failed:\n(.|\n)*chess9"):
        revisions.run_json(revisions.ROOT, str(script), [1])


def test_a_measurement_returns_its_last_json_line(tmp_path: Path) -> None:
    script = tmp_path / "measure.py"
    script.write_text(
        "import json, sys\nprint('noise')\nprint(json.dumps(json.loads(sys.argv[1])))\n"
    )
    assert revisions.run_json(revisions.ROOT, str(script), [1, "a"]) == [1, "a"]


def test_bot_specifications_parse_json_values_and_text() -> None:
    assert before_after.bot_parameters("maxn:pruning=speculative;depth=3") == (
        "maxn",
        {"pruning": "speculative", "depth": 3},
    )
    assert before_after.bot_parameters("paranoid") == ("paranoid", {})


def test_an_unknown_bot_is_refused_with_the_registered_names(tmp_path: Path) -> None:
    command = [
        sys.executable,
        str(revisions.ROOT / "scripts" / "bench.py"),
        "--suites=before_after",
        "--before_after_bots=maxn,nosuchbot",
        f"--output={tmp_path / 'bench.md'}",
    ]
    done = subprocess.run(command, cwd=revisions.ROOT, capture_output=True, text=True)
    assert done.returncode != 0
    assert "unknown bot 'nosuchbot'; registered bots: " in done.stderr
    assert not (tmp_path / "bench.md").exists()
