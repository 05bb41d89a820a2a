"""Tests for games.py: loading game strings with clear errors, and game descriptions."""

from __future__ import annotations

import pyspiel
import pytest

from spiel_bounded.games import game_description, game_info, load_game


def test_loads_strings_with_parameters_and_passes_games_through() -> None:
    go = load_game("go(board_size=9,komi=7.5)")
    assert go.get_parameters()["board_size"] == 9
    loaded = pyspiel.load_game("tic_tac_toe")
    assert load_game(loaded) is loaded


@pytest.mark.parametrize(
    ("game", "message"),
    [
        ("conect_four", r"unknown game 'conect_four' \(did you mean 'connect_four'\?\)"),
        ("tic_tac_to", r"did you mean 'tic_tac_toe'"),
        ("zzzz", r"unknown game 'zzzz'; pyspiel.registered_names\(\) lists all \d+ games"),
        ("connect_four(rowz=3)", r"unknown parameter 'rowz' .*did you mean 'rows'.*accepted"),
        ("connect_four(rows=abc)", r"cannot load game 'connect_four\(rows=abc\)': Wrong type"),
        ("go(board_size=9", r"malformed game string 'go\(board_size=9'"),
        (3, r"must be a pyspiel.Game or a game string, got 3"),
    ],
)
def test_bad_game_strings_are_clear_errors(game: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        load_game(game)  # type: ignore[arg-type]


def test_unknown_game_does_not_dump_the_catalogue(capfd: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ValueError) as error:
        load_game("conect_four")
    assert "Available games are" not in capfd.readouterr().err
    assert "\n" not in str(error.value)


def test_descriptions_drop_empty_parentheses() -> None:
    assert game_description(pyspiel.load_game("backgammon")) == "backgammon"
    assert game_info(pyspiel.load_game("connect_four(rows=4)")).description == (
        "connect_four(rows=4)"
    )
