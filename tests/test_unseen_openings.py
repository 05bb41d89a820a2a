"""`training.openings.unseen_openings`: random openings no training game reached."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from functools import partial
from pathlib import Path

import numpy as np
import pytest

from spiel_bounded.arena.openings import read_openings
from spiel_bounded.games import load_game
from spiel_bounded.training.curve import opening_suite
from spiel_bounded.training.defaults import default_config
from spiel_bounded.training.generations import GenerationRecord, selfplay_directory
from spiel_bounded.training.openings import unseen_among, unseen_openings
from spiel_bounded.training.pipeline import run_config_from

ROOT = Path(__file__).resolve().parent.parent


def key_after(game_string: str, opening: tuple[int, ...]) -> str:
    state = load_game(game_string).new_initial_state()
    for action in opening:
        state.apply_action(action)
    return f"{state.current_player()}|{state}"


def write_keys(directory: Path, played: list[str], labelled: list[str]) -> Path:
    (directory / "games").mkdir(parents=True)
    np.savez(
        directory / "games" / "game_000000.npz",
        keys=np.array(played, dtype=str),
        child_keys=np.array(labelled, dtype=str),
    )
    return directory


def test_openings_a_training_game_played_or_labelled_are_left_out(tmp_path: Path) -> None:
    drawn = unseen_openings("tic_tac_toe", 3, 6, [], seed=5)
    assert drawn.plies == 3 and len(drawn.openings) == 6
    assert all(len(opening) == 3 for opening in drawn.openings)
    assert len({key_after("tic_tac_toe", opening) for opening in drawn.openings}) == 6
    seen = [key_after("tic_tac_toe", opening) for opening in drawn.openings[:2]]
    # One position played, the other a label (a root child, a tree label): neither is unseen.
    games = write_keys(tmp_path / "gen_01", seen[:1], seen[1:])
    again = unseen_openings("tic_tac_toe", 3, 6, [games], seed=5)
    assert not {key_after("tic_tac_toe", opening) for opening in again.openings} & set(seen)
    assert again.openings[:4] == drawn.openings[2:]


def test_too_few_unseen_openings_take_more_plies(tmp_path: Path) -> None:
    """tic_tac_toe has 9 positions after one ply: with 5 of them seen, 6 openings need two."""
    seen = [key_after("tic_tac_toe", (action,)) for action in range(5)]
    games = write_keys(tmp_path / "gen_01", seen, [])
    suite = unseen_openings("tic_tac_toe", 1, 6, [games], seed=0)
    assert suite.plies == 2 and len(suite.openings) == 6
    with pytest.raises(ValueError, match=r"only 4 openings of 1 random plies .*\(1 to 1 plies"):
        unseen_openings("tic_tac_toe", 1, 6, [games], seed=0, more_plies=0)


def test_unseen_among_keeps_the_openings_no_training_game_reached_in_order(tmp_path: Path) -> None:
    openings = [(0, 1), (4, 0), (1, 0), (8, 2), (4, 0, 1)]
    seen = [key_after("tic_tac_toe", (4, 0)), key_after("tic_tac_toe", (8, 2))]
    games = write_keys(tmp_path / "gen_01", seen[:1], seen[1:])
    assert unseen_among("tic_tac_toe", openings, [games]) == [(0, 1), (1, 0), (4, 0, 1)]
    # Two openings reaching one position count once, as the first of them.
    assert unseen_among("tic_tac_toe", [(0, 1, 2), (2, 1, 0)], []) == [(0, 1, 2)]


def make_openings(*flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "scripts/make_openings.py", *flags],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_make_openings_leaves_out_positions_of_a_training_loop(tmp_path: Path) -> None:
    flags = ["--game=connect_four", "--plies=1", "--count=7", "--depth=1", "--margin=1"]
    every = make_openings(*flags, "--candidates=200", f"--output={tmp_path / 'all.txt'}")
    assert every.returncode == 0, every.stderr
    seen = [key_after("connect_four", (column,)) for column in (2, 5)]
    # A loop's directory, laid out as the loop lays it out.
    write_keys(selfplay_directory(tmp_path / "run", 1), seen[:1], [])
    write_keys(selfplay_directory(tmp_path / "run", 2), [], seen[1:])
    run = str(tmp_path / "run")
    fewer = make_openings(
        *flags, "--count=5", f"--unseen={run}", f"--output={tmp_path / 'unseen.txt'}"
    )
    assert fewer.returncode == 0, fewer.stderr
    text = (tmp_path / "unseen.txt").read_text()
    lines = [line.split("#")[0].split() for line in text.splitlines() if line[:1].isdigit()]
    assert sorted(int(line[0]) for line in lines) == [0, 1, 3, 4, 6]
    assert f"None of them a position of the 2 self-play directories under {run}" in text
    empty = make_openings(*flags, f"--unseen={tmp_path}", f"--output={tmp_path / 'x.txt'}")
    assert empty.returncode == 2
    assert f"--unseen: {tmp_path} holds no self-play games" in empty.stderr


def test_a_resumed_runs_new_generations_are_checked_against_the_curves_suite(
    tmp_path: Path,
) -> None:
    """The suite drawn when the curve was first measured is used again after more generations
    only if none of their games reached one of its positions; its header then names them."""
    run = tmp_path / "run"
    raw = default_config("tic_tac_toe", str(run))
    config = run_config_from(raw, "--game=tic_tac_toe")
    settings = replace(config.curve, games=4)
    record = partial(
        GenerationRecord, teacher="rollout", games=4, positions=0, validation_loss=0.0,
        score=float("nan"), low=float("nan"), high=float("nan"), match_games=0,
        accepted=True, best=1, seconds=0.0, total_games=4,
    )  # fmt: skip
    write_keys(selfplay_directory(run, 1), [], [])
    suite = opening_suite(config, settings, [record(generation=1)])
    assert suite is not None
    drawn = read_openings(suite)
    assert suite.read_text().partition("\n")[0].endswith("generations 1-1")
    # Generation 2's games reached none of the suite's positions: the suite stays, its header
    # names generation 2.
    write_keys(selfplay_directory(run, 2), [key_after("tic_tac_toe", (4, 0))], [])
    records = [record(generation=1), record(generation=2)]
    assert opening_suite(config, settings, records) == suite
    assert read_openings(suite) == drawn
    assert suite.read_text().partition("\n")[0].endswith("generations 1-2")
    # Generation 3 played one of them: the suite is refused, and kept as it was.
    write_keys(selfplay_directory(run, 3), [], [key_after("tic_tac_toe", drawn[1])])
    with pytest.raises(ValueError, match=r"1 of the 2 openings of .* generations 3-3; delete"):
        opening_suite(config, settings, [*records, record(generation=3)])
    assert suite.read_text().partition("\n")[0].endswith("generations 1-2")
    # A header that names no generations (written by hand) has every generation checked.
    by_hand = "# 2 openings of 6 random plies for tic_tac_toe, by hand\n"
    suite.write_text(by_hand + suite.read_text().partition("\n")[2])
    assert opening_suite(config, settings, records) == suite
    assert suite.read_text().partition("\n")[0] == (
        "# 2 openings of 6 random plies for tic_tac_toe, by hand; none of them a position of the "
        "training games of generations 1-2"
    )
