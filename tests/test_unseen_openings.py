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


def test_openings_a_training_game_played_or_labelled_are_left_out(tmp_path: Path) -> None:
    drawn = unseen_openings("tic_tac_toe", 3, 6, [], seed=5)
    assert len(drawn) == 6 and all(len(opening) == 3 for opening in drawn)
    assert len({key_after("tic_tac_toe", opening) for opening in drawn}) == 6
    seen = [key_after("tic_tac_toe", opening) for opening in drawn[:2]]
    (tmp_path / "gen_01" / "games" / "games").mkdir(parents=True)
    # One position played, the other a label (a root child, a tree label): neither is unseen.
    np.savez(
        tmp_path / "gen_01" / "games" / "games" / "game_000000.npz",
        keys=np.array(seen[:1]),
        child_keys=np.array(seen[1:]),
    )
    again = unseen_openings("tic_tac_toe", 3, 6, [tmp_path / "gen_01" / "games"], seed=5)
    assert not {key_after("tic_tac_toe", opening) for opening in again} & set(seen)
    assert again[:4] == drawn[2:]


def test_too_few_unseen_openings_is_an_error_naming_them() -> None:
    with pytest.raises(
        ValueError, match=r"only 9 openings of 1 random plies .*\(9 distinct ones drawn.*20 wanted"
    ):
        unseen_openings("tic_tac_toe", 1, 20, [], seed=0)
