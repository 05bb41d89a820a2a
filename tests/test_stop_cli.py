"""SIGTERM and Ctrl-C stop the sweep and self-play command lines cleanly: exit status 143 / 130
with `commandline.exit_stopped`'s one message, every finished record kept, no process left
behind (workers, multiprocessing's resource tracker), and a second run finishes the rest
without repeating anything. (The tournament's are in test_arena_kill.py.)

Each run is a subprocess in its own process group, with two worker processes: two tasks run,
the others block in the workers (`tests.stoppable`); the signal is sent once both are recorded
and two are blocked, so what is checked never depends on timing.
"""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest

from spiel_bounded.experiments.config import load_sweep_config
from spiel_bounded.experiments.runner import read_records
from spiel_bounded.training.game_files import finished_games
from tests.helpers import selfplay_config, sweep_config
from tests.stoppable import DEADLINE, assert_group_ends, blocked, kill_group, start_cli, wait_until

SIGNALS = pytest.mark.parametrize(
    ("signum", "group"),
    [
        (signal.SIGTERM, False),  # `timeout`, `kill PID`: the main process only
        (signal.SIGINT, True),  # Ctrl-C at a terminal: the whole foreground process group
    ],
    ids=["sigterm", "ctrl-c"],
)


def stop(process: object, signum: int, group: bool) -> tuple[int, str]:
    """Sends `signum` (to the group or to the main process); the exit status and stderr."""
    assert hasattr(process, "pid")
    try:
        if group:
            os.killpg(process.pid, signum)  # type: ignore[attr-defined]
        else:
            process.send_signal(signum)  # type: ignore[attr-defined]
        _, stderr = process.communicate(timeout=DEADLINE)  # type: ignore[attr-defined]
        assert_group_ends(process.pid)  # type: ignore[attr-defined]
    finally:
        kill_group(process.pid)  # type: ignore[attr-defined]
    return process.returncode, stderr  # type: ignore[attr-defined]


def check_stopped(status: int, stderr: str, signum: int, kept: str) -> None:
    assert status == 128 + signum, stderr
    name = "Ctrl-C" if signum == signal.SIGINT else "SIGTERM"
    said = [line for line in stderr.splitlines() if line.startswith("stopped by")]
    assert said == [f"stopped by {name}: {kept}; run the same command again to resume"], stderr
    assert "Traceback" not in stderr, stderr


@SIGNALS
def test_a_stopped_sweep_keeps_its_records_leaves_no_process_and_resumes(
    tmp_path: Path, signum: int, group: bool
) -> None:
    config = sweep_config(tmp_path)
    tasks = [task.task_id for task in load_sweep_config(config).tasks()]
    output = tmp_path / "out"
    marks = tmp_path / "marks"
    process = start_cli("epsilon_sweep.py", [f"--config={config}"], run=tasks[:2], marks=marks)
    wait_until(
        lambda: len(read_records(output)) == 2 and blocked(marks) == 2,
        process,
        "two tasks recorded and two blocked",
    )
    status, stderr = stop(process, signum, group)
    check_stopped(status, stderr, signum, "every finished task is in records.jsonl")
    assert sorted(record.task_id for record in read_records(output)) == sorted(tasks[:2])

    again = start_cli("epsilon_sweep.py", [f"--config={config}", "--executor=inline"])
    _, stderr = again.communicate(timeout=DEADLINE)
    assert again.returncode == 0, stderr
    assert "2 tasks run" in stderr and "(2 already done" in stderr
    ids = [record.task_id for record in read_records(output)]
    assert sorted(ids) == sorted(tasks), "a task was lost or recorded twice"


@SIGNALS
def test_stopped_self_play_keeps_its_games_leaves_no_process_and_resumes(
    tmp_path: Path, signum: int, group: bool
) -> None:
    config = selfplay_config(tmp_path)
    data = tmp_path / "data"
    marks = tmp_path / "marks"
    args = [f"--config={config}", "--stage=generate", "--workers=2", "--executor=process"]
    process = start_cli("train_value_net.py", args, run=[0, 1], marks=marks)
    wait_until(
        lambda: finished_games(data) == [0, 1] and blocked(marks) == 2,
        process,
        "two games written and two blocked",
    )
    status, stderr = stop(process, signum, group)
    check_stopped(status, stderr, signum, f"every finished game is kept in {data}")
    assert finished_games(data) == [0, 1]
    written = {index: (data / "games" / f"game_{index:06d}.npz").read_bytes() for index in (0, 1)}
    assert json.loads((data / "data.json").read_text())["data"]["games"] == 4

    again = start_cli("train_value_net.py", [*args[:-1], "--executor=inline"])
    stdout, stderr = again.communicate(timeout=DEADLINE)
    assert again.returncode == 0, stderr
    assert "played 2 games" in stdout
    assert finished_games(data) == [0, 1, 2, 3]
    for index, data_bytes in written.items():
        assert (data / "games" / f"game_{index:06d}.npz").read_bytes() == data_bytes
