"""`training.openings.unseen_openings`: random openings no training game reached."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from spiel_bounded.games import load_game
from spiel_bounded.training.openings import unseen_openings


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
