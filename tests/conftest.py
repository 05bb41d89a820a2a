"""Fixtures shared by test modules."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from spiel_bounded.bots.alphazero import missing_extra
from tests.tiers import RECORD, Durations, slow_by_record


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--record-durations",
        metavar="PATH",
        help="write every test's seconds to PATH as JSON (tests/tiers.py; make durations)",
    )


class _DurationRecorder:
    """Adds up each test's reported phases; writes them when the session ends."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.durations = Durations()

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.durations.add(report.nodeid, report.duration)

    def pytest_sessionfinish(self) -> None:
        self.durations.write(self.path)


def pytest_configure(config: pytest.Config) -> None:
    path = config.getoption("record_durations")
    if path and not hasattr(config, "workerinput"):  # xdist's controller sees every report
        config.pluginmanager.register(_DurationRecorder(Path(path)), "duration-recorder")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Marks `slow` the tests `tests/durations.json` times at `tiers.SLOW_SECONDS` or more."""
    record = json.loads(RECORD.read_text()) if RECORD.exists() else {}
    slow = slow_by_record((item.nodeid for item in items), record)
    for item in items:
        if item.nodeid in slow:
            item.add_marker(pytest.mark.slow)


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
