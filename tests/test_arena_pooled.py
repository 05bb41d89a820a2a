"""Pooling replicate runs (`round_robin.py --report_only --pool`): every game once, rounds kept
apart by run, runs of another tournament refused."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from spiel_bounded.arena.pooled import PoolError, pool_runs
from spiel_bounded.arena.store import GameStore
from tests.helpers import run_cli

TREE = "bounded_random_tree(branching=2,depth=3,seed=1)"


def play(
    tmp_path: Path,
    name: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    *,
    seed: int,
    games: int = 4,
) -> Path:
    """A finished run of two random bots (seats swapped, `games` a pairing) in tmp_path/NAME."""
    output = tmp_path / name
    config = tmp_path / f"{name}.toml"
    config.write_text(
        f'[tournament]\ngames = ["{TREE}"]\ngames_per_pairing = {games}\nseed = {seed}\n'
        f'[run]\noutput = "{output}"\nexecutor = "inline"\n[report]\nbootstrap = 10\n'
        '[[bots]]\nlabel = "a"\nbot = "random"\n[[bots]]\nlabel = "b"\nbot = "random"\n'
    )
    code, _, err = run_cli([f"--config={config}"], capsys, monkeypatch)
    assert code == 0, err
    return output


@pytest.fixture
def replicates(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> list[Path]:
    return [play(tmp_path, f"run{seed}", capsys, monkeypatch, seed=seed) for seed in (1, 2, 3)]


def test_pooled_runs_hold_every_game_once_with_each_run_in_rounds_of_its_own(
    replicates: list[Path],
) -> None:
    pooled = pool_runs(replicates)
    runs = [GameStore(path).read_records() for path in replicates]
    assert len(pooled.records) == sum(len(records) for records in runs) == 12
    assert len({record.game_id for record in pooled.records}) == 12
    for index, records in enumerate(runs):
        mine = [record for record in pooled.records if record.game_id.startswith(f"{index}/")]
        assert [record.seed for record in mine] == [record.seed for record in records]
        assert [record.returns for record in mine] == [record.returns for record in records]
        # Each run's rounds stay together and apart from every other run's.
        others = {r.round for r in pooled.records if not r.game_id.startswith(f"{index}/")}
        assert not {record.round for record in mine} & others
    assert pooled.manifest.scheduled == 12
    assert len(pooled.manifest.commands) == 3
    assert "3 runs pooled" in pooled.manifest.config_source


def test_the_pooled_report_counts_every_run_and_pairs_seatings_only_within_a_run(
    tmp_path: Path,
    replicates: list[Path],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    output = tmp_path / "pooled"
    pool = f"--pool={','.join(str(path) for path in replicates)}"
    code, out, err = run_cli(["--report_only", f"--output={output}", pool], capsys, monkeypatch)
    assert code == 0, err
    assert "| a | b | 12 |" in out
    assert "12 games in games.csv of 12 scheduled" in out
    paired = pd.read_csv(output / "paired.csv")
    pairs = [pd.read_csv(path / "paired.csv") for path in replicates]
    row = paired[(paired["bot"] == "a") & (paired["opponent"] == "b")]
    assert int(row["pairs"].iloc[0]) == sum(
        int(table[(table["bot"] == "a") & (table["opponent"] == "b")]["pairs"].iloc[0])
        for table in pairs
    )
    # Only the report is written: the output holds no games of its own, so the command the
    # summary names rebuilds the same report.
    assert not (output / "games.csv").exists() and not (output / "run.json").exists()
    summary = (output / "summary.md").read_text()
    assert (
        f"report rebuilt with `python scripts/round_robin.py --report_only --output {output} "
        f"{pool}`" in summary
    )
    code, again, err = run_cli(["--report_only", f"--output={output}", pool], capsys, monkeypatch)
    assert (code, again) == (0, out), err


def test_runs_of_another_tournament_are_refused_by_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    first = play(tmp_path, "first", capsys, monkeypatch, seed=1)
    longer = play(tmp_path, "longer", capsys, monkeypatch, seed=2, games=6)
    with pytest.raises(
        PoolError,
        match=r"longer played another tournament than .*first "
        r"\(differs in games_per_pairing\); only runs that differ in seed",
    ):
        pool_runs([first, longer])
    code, out, err = run_cli(
        ["--report_only", f"--output={tmp_path / 'pooled'}", f"--pool={first},{longer}"],
        capsys,
        monkeypatch,
    )
    assert (code, out) == (2, "")
    assert "differs in games_per_pairing" in err
    assert not (tmp_path / "pooled").exists()


def test_what_cannot_be_pooled_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    run = play(tmp_path, "run", capsys, monkeypatch, seed=1)
    with pytest.raises(PoolError, match="needs two results directories or more, got 1"):
        pool_runs([run])
    with pytest.raises(PoolError, match="is given twice: its games would count twice"):
        pool_runs([run, tmp_path / "." / "run"])
    (tmp_path / "empty").mkdir()
    with pytest.raises(PoolError, match=r"empty holds no games\.csv"):
        pool_runs([run, tmp_path / "empty"])
    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / "games.csv").write_bytes((run / "games.csv").read_bytes())
    with pytest.raises(PoolError, match=r"copy holds no run\.json"):
        pool_runs([run, copy])
    (copy / "run.json").write_bytes((run / "run.json").read_bytes())
    header = (run / "games.csv").read_text().partition("\n")[0]
    (copy / "games.csv").write_text(header + "\n")
    with pytest.raises(PoolError, match=r"copy/games\.csv holds no finished game"):
        pool_runs([run, copy])


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ([], "--pool needs --output DIR"),
        (["--output=OUT", "--seed=4"], "--seed would do nothing"),
        (["--output=OUT", "--bots=a"], "--bots would do nothing"),
        (["--output=OUT", "--config=c.toml"], "--config would do nothing"),
    ],
)
def test_pool_refuses_what_it_would_ignore(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    extra: list[str],
    message: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = run_cli(["--report_only", "--pool=x,y", *extra], capsys, monkeypatch)
    assert code == 2
    assert message in err


def test_pool_plays_nothing_and_keeps_an_output_that_holds_games(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    runs = [play(tmp_path, f"run{seed}", capsys, monkeypatch, seed=seed) for seed in (1, 2)]
    pool = f"--pool={runs[0]},{runs[1]}"
    code, _, err = run_cli([f"--output={runs[0]}", pool], capsys, monkeypatch)
    assert code == 2 and "--pool only reports (with --report_only)" in err
    before = (runs[0] / "summary.md").read_text()
    code, _, err = run_cli(["--report_only", f"--output={runs[0]}", pool], capsys, monkeypatch)
    assert code == 2 and "holds a games.csv of its own" in err
    assert (runs[0] / "summary.md").read_text() == before
