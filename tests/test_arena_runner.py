"""Running tournaments: resume, refusal of a changed config, errors and crashes, Dask."""

from __future__ import annotations

import errno
import importlib.util
import os
import re
import signal
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from spiel_bounded import native
from spiel_bounded.arena import (
    ConfigChangedError,
    DaskExecutor,
    GameRecord,
    GameStore,
    InlineExecutor,
    ProcessExecutor,
    Progress,
    StoreError,
    Terminated,
    make_schedule,
    parse_config,
    report_from_directory,
    run_tournament,
)
from spiel_bounded.arena.store import Manifest, ManifestError
from tests.arena_bots import EXTRA_BOTS, FAIL_BUILD_ENV

TREE = "bounded_random_tree(branching=2,depth=3,seed=1)"


def config(output: Path, *, games_per_pairing: int = 2, bots: str = "", workers: int = 1):
    text = f"""
[tournament]
games = ["tic_tac_toe", "{TREE}"]
games_per_pairing = {games_per_pairing}

[run]
output = "{output}"
workers = {workers}

[report]
bootstrap = 20

[[bots]]
label = "ab"
bot = "bounded_ab"
params = {{ depth = 2 }}

[[bots]]
label = "rand"
bot = "random"
{bots}
"""
    return parse_config(text, source="test.toml", extra_bots=EXTRA_BOTS)


def test_run_resume_and_nothing_replayed(tmp_path: Path) -> None:
    first = config(tmp_path)
    seen: list[Progress] = []
    result = run_tournament(
        first, executor=InlineExecutor(), on_progress=lambda record, progress: seen.append(progress)
    )
    assert (result.scheduled, result.resumed, result.played, result.errors) == (4, 0, 4, 0)
    assert [progress.done for progress in seen] == [1, 2, 3, 4]
    assert all(progress.total == 4 for progress in seen)
    store = GameStore(tmp_path)
    ids = sorted(record.game_id for record in store.read_records())
    assert ids == sorted(match.game_id for match in make_schedule(first.tournament))
    before = store.games_path.read_bytes()

    again = run_tournament(first, executor=InlineExecutor())
    assert (again.resumed, again.played) == (4, 0)
    assert store.games_path.read_bytes() == before

    # Changing how it runs is not changing the tournament.
    other_run = config(tmp_path, workers=2)
    assert run_tournament(other_run, executor=InlineExecutor()).played == 0


def test_a_changed_config_is_refused_unless_force_new(tmp_path: Path) -> None:
    run_tournament(config(tmp_path), executor=InlineExecutor())
    changed = config(tmp_path, games_per_pairing=4)
    with pytest.raises(ConfigChangedError, match=r"changed: games_per_pairing\. .*--force_new"):
        run_tournament(changed, executor=InlineExecutor())
    result = run_tournament(changed, executor=InlineExecutor(), force_new=True)
    assert result.archived is not None and (result.archived / "games.csv").exists()
    assert (result.resumed, result.played) == (0, 8)
    assert len(GameStore(tmp_path).read_records()) == 8


def test_erroring_bots_are_recorded_and_the_tournament_goes_on(tmp_path: Path) -> None:
    bots = '[[bots]]\nlabel = "bad"\nbot = "test_raising"\n'
    bots += '[[bots]]\nlabel = "illegal"\nbot = "test_illegal"\n'
    tournament = config(tmp_path, bots=bots, workers=2)
    result = run_tournament(tournament, executor=ProcessExecutor(2), extra_bots=EXTRA_BOTS)
    # 6 tables per game, 2 games each: 24 games; 5 tables per game involve a broken bot.
    assert (result.played, result.errors) == (24, 20)
    records = GameStore(tmp_path).read_records()
    assert len(records) == 24
    for record in records:
        broken = {"bad", "illegal"} & set(record.seats)
        assert record.ok == (not broken)
        if broken:
            assert record.seats[record.error_seat] in broken
    report = report_from_directory(tmp_path)
    assert len(report.errors) == 20
    assert set(report.errors["raised_by"]) == {"bad", "illegal"}
    assert "deliberate failure in the raising bot" in report.markdown


def test_errors_of_play_count_as_finished_unless_retried(tmp_path: Path) -> None:
    bots = '[[bots]]\nlabel = "bad"\nbot = "test_raising"\n'
    tournament = config(tmp_path, bots=bots)
    first = run_tournament(tournament, executor=InlineExecutor(), extra_bots=EXTRA_BOTS)
    assert (first.played, first.errors) == (12, 8)
    kinds = {record.error_kind for record in GameStore(tmp_path).read_records() if not record.ok}
    assert kinds == {"play"}
    again = run_tournament(tournament, executor=InlineExecutor(), extra_bots=EXTRA_BOTS)
    assert (again.resumed, again.played) == (12, 0)
    retried = run_tournament(
        tournament, executor=InlineExecutor(), extra_bots=EXTRA_BOTS, retry_errors=True
    )
    assert (retried.resumed, retried.played, retried.errors) == (4, 8, 8)


def test_a_game_whose_bot_could_not_be_built_is_played_again_on_resume(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bots = '[[bots]]\nlabel = "flaky"\nbot = "test_flaky_factory"\n'
    tournament = config(tmp_path, bots=bots)
    # The bot can be built when the config is checked, then not (a file went missing, say).
    monkeypatch.setenv(FAIL_BUILD_ENV, "1")
    first = run_tournament(tournament, executor=InlineExecutor(), extra_bots=EXTRA_BOTS)
    assert (first.played, first.errors) == (12, 8)
    failed = [record for record in GameStore(tmp_path).read_records() if not record.ok]
    assert {record.error_kind for record in failed} == {"setup"}
    assert all(record.seats[record.error_seat] == "flaky" for record in failed)
    assert not any(record.finished for record in failed)

    monkeypatch.delenv(FAIL_BUILD_ENV)
    second = run_tournament(tournament, executor=InlineExecutor(), extra_bots=EXTRA_BOTS)
    assert (second.resumed, second.played, second.errors) == (4, 8, 0)
    report = report_from_directory(tmp_path)
    assert report.errors.empty
    assert int(report.pairings["games"].sum()) == 12


def test_a_changed_config_is_accepted_when_no_game_was_finished(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    flaky = 'params = { depth = 2 }\n[[bots]]\nlabel = "flaky"\nbot = "test_flaky_factory"\n'
    text = config(tmp_path).text.replace('bot = "random"', 'bot = "test_flaky_factory"')
    broken = parse_config(text, source="t.toml", extra_bots=EXTRA_BOTS)
    monkeypatch.setenv(FAIL_BUILD_ENV, "1")
    first = run_tournament(broken, executor=InlineExecutor(), extra_bots=EXTRA_BOTS)
    assert first.errors == first.played == 4
    monkeypatch.delenv(FAIL_BUILD_ENV)
    fixed = parse_config(
        text.replace("params = { depth = 2 }\n", flaky), source="t.toml", extra_bots=EXTRA_BOTS
    )
    result = run_tournament(fixed, executor=InlineExecutor(), extra_bots=EXTRA_BOTS)
    assert result.archived is not None and (result.archived / "games.csv").exists()
    assert (result.resumed, result.played, result.errors) == (0, 12, 0)
    assert all(record.ok for record in GameStore(tmp_path).read_records())


def test_a_game_that_kills_its_worker_is_recorded_with_the_signal_and_seat(
    tmp_path: Path,
) -> None:
    bots = '[[bots]]\nlabel = "crash"\nbot = "test_crashing"\n'
    bots += '[[bots]]\nlabel = "build"\nbot = "test_crashing_factory"\n'
    tournament = config(tmp_path, bots=bots)
    tournament = parse_config(
        tournament.text.replace(f', "{TREE}"', ""), source="t", extra_bots=EXTRA_BOTS
    )
    result = run_tournament(tournament, executor=ProcessExecutor(2), extra_bots=EXTRA_BOTS)
    records = GameStore(tmp_path).read_records()
    assert result.played == len(records) == 12
    for record in records:
        crashing = [seat for seat, label in enumerate(record.seats) if label in ("crash", "build")]
        if not crashing:
            assert record.ok, record.error
            continue
        assert record.error_kind == "crash"
        assert record.error.startswith("the game killed its worker process twice")
        # Every bot is built before the first move: the crash while building comes first.
        label = "build" if "build" in record.seats else "crash"
        seat = record.seats.index(label)
        assert record.error_seat == seat
        if label == "build":
            expected = f"killed by SIGKILL while seat {seat} (build) was being built"
        else:
            assert record.moves == seat  # seat 0 moves at ply 0, seat 1 at ply 1
            expected = (
                f"killed by SIGKILL while seat {seat} (crash) was choosing a move at ply {seat}"
            )
        assert expected in record.error
        assert record.error.count(expected) == 2  # the second death, then the first


@pytest.mark.skipif(not native.available(), reason="the native engine is not built")
def test_a_native_search_that_crashes_costs_no_finished_game(tmp_path: Path) -> None:
    bots = '[[bots]]\nlabel = "native"\nbot = "test_native_crashing"\n'
    tournament = parse_config(
        config(tmp_path, bots=bots).text.replace(f', "{TREE}"', ""),
        source="t",
        extra_bots=EXTRA_BOTS,
    )
    result = run_tournament(tournament, executor=ProcessExecutor(2), extra_bots=EXTRA_BOTS)
    records = GameStore(tmp_path).read_records()
    assert result.played == len(records) == 6
    for record in records:
        if "native" not in record.seats:
            assert record.ok, record.error
            continue
        seat = record.seats.index("native")
        assert record.error_kind == "crash" and record.error_seat == seat
        expected = f"killed by SIGSEGV while seat {seat} (native) was choosing a move at ply {seat}"
        assert record.error.count(expected) == 2  # replayed once, then recorded


def test_a_worker_that_exits_by_itself_is_a_runner_error_replayed_on_resume(
    tmp_path: Path,
) -> None:
    bots = '[[bots]]\nlabel = "exit"\nbot = "test_exiting"\n'
    tournament = config(tmp_path, bots=bots)
    tournament = parse_config(
        tournament.text.replace(f', "{TREE}"', ""), source="t", extra_bots=EXTRA_BOTS
    )
    first = run_tournament(tournament, executor=ProcessExecutor(1), extra_bots=EXTRA_BOTS)
    assert (first.played, first.errors) == (6, 4)
    failed = [record for record in GameStore(tmp_path).read_records() if not record.ok]
    for record in failed:
        assert record.error_kind == "runner"
        assert "exited with status 3 while seat" in record.error
        assert record.seats[record.error_seat] == "exit"
    again = run_tournament(tournament, executor=ProcessExecutor(1), extra_bots=EXTRA_BOTS)
    assert (again.resumed, again.played) == (2, 4)


@pytest.mark.skipif(
    importlib.util.find_spec("distributed") is None,
    reason="the Dask executor needs the cluster extra (pip install -e '.[cluster]'; make test "
    "installs it)",
)
def test_the_dask_executor_on_a_local_cluster(tmp_path: Path) -> None:
    from distributed import LocalCluster

    bots = '[[bots]]\nlabel = "bad"\nbot = "test_raising"\n'
    tournament = config(tmp_path, bots=bots)
    with LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        executor = DaskExecutor(1, cluster.scheduler_address)
        result = run_tournament(tournament, executor=executor, extra_bots=EXTRA_BOTS)
    assert (result.played, result.errors) == (12, 8)
    records = GameStore(tmp_path).read_records()
    assert sorted(record.game_id for record in records) == sorted(
        match.game_id for match in make_schedule(tournament.tournament, EXTRA_BOTS)
    )
    assert all(record.ok == ("bad" not in record.seats) for record in records)


def test_progress_rate_and_time_left() -> None:
    progress = Progress(done=10, total=40, resumed=5, errors=1, elapsed=20.0)
    assert progress.rate == 0.5
    assert progress.seconds_left == 60.0
    assert Progress(done=0, total=4, resumed=0, errors=0, elapsed=0.0).seconds_left is None


def test_sigterm_raises_terminated_keeps_finished_games_and_releases_the_lock(
    tmp_path: Path,
) -> None:
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signal handlers can only be set in the main thread")
    tournament = config(tmp_path)
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL

    def progress(record: GameRecord, progress: Progress) -> None:
        if progress.done == 2:
            os.kill(os.getpid(), signal.SIGTERM)

    with pytest.raises(Terminated, match="stopped by SIGTERM") as stopped:
        run_tournament(tournament, executor=InlineExecutor(), on_progress=progress)
    assert stopped.value.signum == signal.SIGTERM
    assert isinstance(stopped.value, KeyboardInterrupt)
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    assert len(GameStore(tmp_path).read_records()) == 2
    resumed = run_tournament(tournament, executor=InlineExecutor())  # not locked any more
    assert (resumed.resumed, resumed.played) == (2, 2)


@pytest.mark.parametrize("where", ["file", "under_a_file"])
def test_an_output_path_that_is_a_file_is_refused_clearly(tmp_path: Path, where: str) -> None:
    (tmp_path / "taken").write_text("not a directory")
    output = tmp_path / "taken" if where == "file" else tmp_path / "taken" / "out"
    with pytest.raises(
        StoreError,
        match=rf"^{re.escape(str(output))}: cannot be used as the output directory: "
        rf"{re.escape(str(tmp_path / 'taken'))} is a file, not a directory; accepted: a directory",
    ):
        run_tournament(config(output), executor=InlineExecutor())


def test_an_output_directory_that_cannot_be_written_is_refused_clearly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_open = os.open

    def read_only_open(path: Any, flags: int, *args: Any) -> int:
        if flags & os.O_CREAT and Path(path).parent == tmp_path:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
        return real_open(path, flags, *args)

    monkeypatch.setattr(os, "open", read_only_open)  # root ignores chmod: a read-only mount
    with pytest.raises(
        StoreError,
        match=rf"^{re.escape(str(tmp_path))}: cannot be used as the output directory: cannot "
        r"create run\.lock there \(Permission denied\); accepted: a directory this user can write",
    ):
        run_tournament(config(tmp_path), executor=InlineExecutor())


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only directories")
def test_a_read_only_output_directory_is_refused_clearly(tmp_path: Path) -> None:
    tmp_path.chmod(0o555)
    try:
        with pytest.raises(StoreError, match=r"cannot be used as the output directory"):
            run_tournament(config(tmp_path), executor=InlineExecutor())
    finally:
        tmp_path.chmod(0o755)


@pytest.mark.parametrize(
    ("damage", "reason"),
    [
        (lambda text: text[: len(text) // 2], r"not JSON: "),
        (lambda text: text.replace('"tournament"', '"tournamnet"'), r"missing key 'tournament'"),
        (lambda text: "[]", r"a JSON list, not an object"),
        (None, None),  # deleted
    ],
    ids=["partial", "key", "list", "deleted"],
)
def test_a_damaged_or_missing_run_json_is_rebuilt_from_the_config_that_played_the_games(
    tmp_path: Path, damage: Callable[[str], str] | None, reason: str | None
) -> None:
    tournament = config(tmp_path, games_per_pairing=4)
    # Half the games are played: the resumed run must play exactly the others.
    half = parse_config(
        tournament.text.replace("games_per_pairing = 4", "games_per_pairing = 2"),
        source="test.toml",
    )
    run_tournament(half, executor=InlineExecutor())
    store = GameStore(tmp_path)
    original = store.manifest_path.read_text()
    if damage is None:
        store.manifest_path.unlink()
    else:
        store.manifest_path.write_text(damage(original))
        with pytest.raises(
            ManifestError,
            match=rf"run\.json: unreadable \({reason}.*\): the file is partial or corrupt\. It "
            r"records .* can be rebuilt from the config that played them: run that config again "
            r"\(--config FILE.*--report_only --config FILE",
        ):
            report_from_directory(tmp_path)
    damaged = store.manifest_path.read_bytes() if damage is not None else None

    result = run_tournament(half, executor=InlineExecutor())
    assert result.manifest_rebuilt and (result.resumed, result.played) == (4, 0)
    if damaged is None:
        assert result.damaged_manifest is None
    else:
        assert result.damaged_manifest is not None
        assert result.damaged_manifest.name.startswith("run.json.damaged-")
        assert result.damaged_manifest.read_bytes() == damaged  # nothing is lost
    rebuilt = store.read_manifest()
    assert rebuilt is not None
    assert rebuilt.fingerprint == Manifest.from_json(original).fingerprint
    assert len(report_from_directory(tmp_path).pairings) == 2
    # Now the config with more games resumes as from any other change: refused until forced.
    with pytest.raises(ConfigChangedError, match="changed: games_per_pairing"):
        run_tournament(tournament, executor=InlineExecutor())


def test_a_damaged_run_json_is_not_rebuilt_from_a_config_that_did_not_play_the_games(
    tmp_path: Path,
) -> None:
    run_tournament(config(tmp_path), executor=InlineExecutor())
    store = GameStore(tmp_path)
    store.manifest_path.write_text("{")
    other = config(tmp_path).text.replace("depth = 2", "depth = 3")
    with pytest.raises(
        ConfigChangedError,
        match=r"run\.json is unreadable \(not JSON: .*\), and games\.csv holds 4 game\(s\) that "
        r"t\.toml does not schedule \(e\.g\. .*: other parameters for ab \(bounded_ab: \w{10} in "
        r"games\.csv, \w{10} now\)\); parameters changed for ab: a parameter hash covers every "
        r"parameter of the bot, its defaults filled in, .*, so run\.json cannot be "
        r"rebuilt from it.*--force_new",
    ):
        run_tournament(parse_config(other, source="t.toml"), executor=InlineExecutor())
    assert store.manifest_path.read_text() == "{"  # left as it was


def test_resuming_games_played_with_other_bot_defaults_is_refused(tmp_path: Path) -> None:
    # The config is unchanged, but a bot's defaults changed since its games were played (as
    # bounded_ab gained endgame_plies after results/round_robin was played): the stored
    # parameter hash is not the one the config gives now.
    first = config(tmp_path)
    run_tournament(first, executor=InlineExecutor())
    store = GameStore(tmp_path)
    (ab_hash,) = {
        seat.params_hash
        for match in make_schedule(first.tournament)
        for seat in match.seats
        if seat.label == "ab"
    }
    store.games_path.write_text(store.games_path.read_text().replace(ab_hash, "0123456789"))
    before = store.games_path.read_bytes()
    with pytest.raises(
        ConfigChangedError,
        match=r"games\.csv holds games played with other parameters for ab than test\.toml gives "
        r"now \(a parameter hash covers every parameter of the bot, its defaults filled in, .*"
        r"--force_new to archive",
    ):
        run_tournament(first, executor=InlineExecutor())
    assert store.games_path.read_bytes() == before
    result = run_tournament(first, executor=InlineExecutor(), force_new=True)
    assert (result.resumed, result.played) == (0, 4)
