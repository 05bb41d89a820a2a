"""Fixtures shared by test modules."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
from pathlib import Path

import pytest

from spiel_bounded.bots.alphazero import missing_extra


@pytest.fixture(scope="session")
def alphazero_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Tiny OpenSpiel AlphaZero training runs by game string (`tests/alphazero_runs.py`: about
    15 s); skips without the alphazero extra. Trained once per pytest run: xdist's workers share
    the runs through the run's common temporary directory, the first one training them under a
    lock while the others wait."""
    reason = missing_extra()
    if reason:
        pytest.skip(f"the alphazero bot is refused here: {reason}")
    from tests.alphazero_runs import RUNS

    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    out = shared / "alphazero"
    with open(shared / "alphazero.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (out / "trained").exists():
            out.mkdir(exist_ok=True)
            completed = subprocess.run(
                [sys.executable, str(Path(__file__).with_name("alphazero_runs.py")), str(out)],
                capture_output=True,
                text=True,
            )
            assert completed.returncode == 0, completed.stderr[-3000:]
            (out / "trained").touch()
    return {game: out / name for name, (game, _, _) in RUNS.items()}
