"""One run at a time per output directory; a killed run's lock is taken over."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from spiel_bounded.arena import (
    GameStore,
    InlineExecutor,
    RunLockedError,
    load_config,
    run_tournament,
)
from spiel_bounded.runs.lock import LOCK_FILE, locked, read_holder
from tests.arena_bots import BLOCK_ENV, DEADLINE, EXTRA_BOTS, start, write_config


def test_a_second_lock_on_a_locked_directory_is_refused_naming_the_first(tmp_path: Path) -> None:
    config = load_config(write_config(tmp_path / "t.toml", tmp_path / "out", 2, ["random"] * 2))
    with locked(tmp_path / "out") as lock:
        assert lock.holder.pid == os.getpid() and lock.stale is None
        assert read_holder(tmp_path / "out") == lock.holder
        message = rf"in use by another run \(pid {os.getpid()} on host .*, started "
        message += rf"{lock.holder.started}\).*play every game twice"
        with pytest.raises(RunLockedError, match=message):
            run_tournament(config, executor=InlineExecutor())
        with pytest.raises(RunLockedError, match=message), locked(tmp_path / "out"):
            pass
    assert not GameStore(tmp_path / "out").games_path.exists()
    # Released: the file is emptied (not removed) and the next run goes ahead.
    assert (tmp_path / "out" / LOCK_FILE).read_text() == ""
    result = run_tournament(config, executor=InlineExecutor())
    assert (result.played, result.stale_lock) == (2, None)
    assert read_holder(tmp_path / "out") is None


def test_a_run_in_another_process_is_refused_and_its_stale_lock_taken_over_once_killed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_config(tmp_path / "t.toml", tmp_path / "out", 2, ["test_random", "test_blocking"])
    config = load_config(path, extra_bots=EXTRA_BOTS)
    first = start(path, "inline", block=True)  # holds the lock, blocked in its first game
    deadline = time.monotonic() + DEADLINE
    while read_holder(tmp_path / "out") is None:
        assert first.poll() is None, first.communicate()[1].decode()
        assert time.monotonic() < deadline, "the first run never took the lock"
        time.sleep(0.01)
    holder = read_holder(tmp_path / "out")
    assert holder is not None and holder.pid == first.pid
    monkeypatch.delenv(BLOCK_ENV, raising=False)
    with pytest.raises(RunLockedError, match=rf"pid {first.pid} on host .*{holder.started}"):
        run_tournament(config, executor=InlineExecutor(), extra_bots=EXTRA_BOTS)

    os.killpg(first.pid, signal.SIGKILL)
    first.wait(timeout=DEADLINE)
    result = run_tournament(config, executor=InlineExecutor(), extra_bots=EXTRA_BOTS)
    assert result.stale_lock == holder
    assert result.played == 2
    ids = [record.game_id for record in GameStore(tmp_path / "out").read_records()]
    assert len(ids) == len(set(ids)) == 2
