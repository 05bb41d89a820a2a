"""A tournament killed with SIGKILL loses no finished game, writes no torn row, and resumes.

The tournament runs in a subprocess (its own process group, so the kill takes its workers too).
The tests wait for rows to appear in games.csv (with a generous deadline that only guards
against a hang); what they check never depends on timing.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from spiel_bounded.arena import GameStore, make_schedule, parse_config
from spiel_bounded.arena.records import header_line
from tests.arena_bots import BLOCK_ENV, EXTRA_BOTS

ROOT = Path(__file__).resolve().parents[1]
DEADLINE = 120.0


def write_config(path: Path, output: Path, games_per_pairing: int, bots: list[str]) -> Path:
    text = (
        f'[tournament]\ngames = ["tic_tac_toe"]\ngames_per_pairing = {games_per_pairing}\n'
        f'[run]\noutput = "{output}"\n'
    )
    for index, bot in enumerate(bots):
        text += f'[[bots]]\nlabel = "b{index}"\nbot = "{bot}"\n'
    path.write_text(text)
    return path


def start(config: Path, executor: str, *, block: bool) -> subprocess.Popen[bytes]:
    env = {key: value for key, value in os.environ.items() if key != BLOCK_ENV}
    if block:
        env[BLOCK_ENV] = "1"
    code = f"from tests.arena_bots import drive; drive({str(config)!r}, {executor!r})"
    return subprocess.Popen(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=env,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


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
