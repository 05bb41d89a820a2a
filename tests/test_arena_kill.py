"""A tournament killed with SIGKILL loses no finished game, writes no torn row, and resumes;
SIGTERM and Ctrl-C stop it at once, workers included, with the same guarantees.

The tournament runs in a subprocess (its own process group, so the kill takes its workers too).
The tests wait for rows to appear in games.csv, or for a blocked bot to say so (with a generous
deadline that only guards against a hang); what they check never depends on timing.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from contextlib import suppress
from pathlib import Path

import pytest

from spiel_bounded.arena import GameStore, make_schedule, parse_config
from spiel_bounded.arena.records import header_line
from tests.arena_bots import BLOCKED_DIR_ENV, DEADLINE, EXTRA_BOTS, start, write_config
from tests.stoppable import assert_group_ends


def rows(path: Path) -> int:
    return path.read_bytes().count(b"\n") - 1 if path.exists() else 0


def kill_after(process: subprocess.Popen[bytes], games: Path, count: int) -> None:
    """SIGKILLs the process group once games.csv holds `count` rows (or the run ended)."""
    deadline = time.monotonic() + DEADLINE
    while rows(games) < count and process.poll() is None:
        assert time.monotonic() < deadline, "the tournament made no progress"
        time.sleep(0.01)
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=DEADLINE)


def check_no_torn_row(games: Path) -> list[str]:
    data = games.read_text()
    assert data.startswith(header_line())
    assert data.endswith("\n"), "a torn row"
    store = GameStore(games.parent)
    records = store.read_records()  # every line parses
    ids = [record.game_id for record in records]
    assert len(ids) == len(set(ids)), "a game was recorded twice"
    return ids


def test_kill_while_a_game_is_in_flight_then_resume(tmp_path: Path) -> None:
    # Tables (b0,b1), (b0,b2), (b1,b2): one worker plays the two (b0,b1) games, then blocks
    # in the first game of b2, the blocking bot.
    config = write_config(
        tmp_path / "t.toml", tmp_path / "out", 2, ["test_random", "test_random", "test_blocking"]
    )
    games = tmp_path / "out" / "games.csv"
    process = start(config, "process", block=True)
    kill_after(process, games, 2)
    assert process.returncode == -signal.SIGKILL
    ids = check_no_torn_row(games)
    assert len(ids) == 2
    before = games.read_bytes()

    resumed = start(config, "process", block=False)
    _, stderr = resumed.communicate(timeout=DEADLINE)
    assert resumed.returncode == 0, stderr.decode()
    assert games.read_bytes().startswith(before), "a finished game was lost or changed"
    schedule = make_schedule(
        parse_config(config.read_text(), extra_bots=EXTRA_BOTS).tournament, EXTRA_BOTS
    )
    assert sorted(check_no_torn_row(games)) == sorted(match.game_id for match in schedule)


def test_kills_while_rows_stream_lose_nothing(tmp_path: Path) -> None:
    config = write_config(tmp_path / "t.toml", tmp_path / "out", 600, ["random", "random"])
    games = tmp_path / "out" / "games.csv"
    kept = b""
    for target in (30, 150, 300):
        process = start(config, "inline", block=False)
        kill_after(process, games, target)
        assert process.returncode == -signal.SIGKILL
        data = games.read_bytes()
        assert data.startswith(kept), "a finished game was lost or changed"
        check_no_torn_row(games)
        kept = data
    process = start(config, "inline", block=False)
    _, stderr = process.communicate(timeout=DEADLINE)
    assert process.returncode == 0, stderr.decode()
    assert games.read_bytes().startswith(kept)
    assert len(check_no_torn_row(games)) == 600


@pytest.mark.parametrize(
    ("signum", "group"),
    [
        (signal.SIGTERM, False),  # `timeout`, `docker stop`, `kill PID`: the main process only
        (signal.SIGTERM, True),  # SLURM: every process of the job
        (signal.SIGINT, True),  # Ctrl-C at a terminal: the foreground process group
    ],
    ids=["sigterm", "sigterm-group", "ctrl-c"],
)
def test_sigterm_and_ctrl_c_end_the_workers_keep_finished_games_and_resume(
    tmp_path: Path, signum: int, group: bool
) -> None:
    # As in the SIGKILL test, the one worker blocks in the first game of b2 after two games.
    config = write_config(
        tmp_path / "t.toml", tmp_path / "out", 2, ["test_random", "test_random", "test_blocking"]
    )
    games = tmp_path / "out" / "games.csv"
    blocked = tmp_path / "blocked"
    blocked.mkdir()
    process = start(config, "process", block=True, env={BLOCKED_DIR_ENV: str(blocked)})
    try:
        deadline = time.monotonic() + DEADLINE
        while not any(blocked.iterdir()):
            assert process.poll() is None, process.communicate()[1].decode()
            assert time.monotonic() < deadline, "the blocking bot was never reached"
            time.sleep(0.01)
        (worker,) = (int(path.name) for path in blocked.iterdir())
        assert worker != process.pid
        if group:
            os.killpg(process.pid, signum)
        else:
            process.send_signal(signum)
        _, stderr = process.communicate(timeout=DEADLINE)
        assert process.returncode == 128 + signum, stderr.decode()
        with pytest.raises(ProcessLookupError):
            os.kill(worker, 0)  # the blocked worker was ended, not left running
        assert_group_ends(process.pid)  # nor any other process (resource tracker, ...)
    finally:
        with suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
    ids = check_no_torn_row(games)
    assert len(ids) == 2
    before = games.read_bytes()

    resumed = start(config, "process", block=False)
    _, stderr = resumed.communicate(timeout=DEADLINE)
    assert resumed.returncode == 0, stderr.decode()
    assert games.read_bytes().startswith(before), "a finished game was lost or changed"
    assert len(check_no_torn_row(games)) == 6
