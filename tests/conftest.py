"""Fixtures shared by test modules."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from spiel_bounded.bots.alphazero import missing_extra


@pytest.fixture(scope="session")
def alphazero_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Tiny OpenSpiel AlphaZero training runs by game string (`tests/alphazero_runs.py`: about
    15 s, once per test process); skips without the alphazero extra."""
    reason = missing_extra()
    if reason:
        pytest.skip(f"the alphazero bot is refused here: {reason}")
    from tests.alphazero_runs import RUNS

    out = tmp_path_factory.mktemp("alphazero")
    completed = subprocess.run(
        [sys.executable, str(Path(__file__).with_name("alphazero_runs.py")), str(out)],
        capture_output=True,
        text=True,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    return {game: out / name for name, (game, _, _) in RUNS.items()}
