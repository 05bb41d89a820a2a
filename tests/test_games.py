"""Tests for games.py: loading game strings with clear errors, and game descriptions."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

from spiel_bounded.games import UNDO_EXACT_GAMES, game_description, game_info, load_game


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


def _observables(state: pyspiel.State) -> tuple[object, ...]:
    terminal = state.is_terminal()
    return (
        str(state),
        state.serialize(),
        tuple(state.history()),
        state.current_player(),
        state.move_number(),
        terminal,
        tuple(state.returns()),
        tuple(state.chance_outcomes()) if state.is_chance_node() else (),
        tuple(state.legal_actions()) if not terminal else (),
        tuple(state.observation_tensor(0)),
    )


@pytest.mark.parametrize(
    ("game_string", "games", "tried"),
    [
        ("breakthrough", 6, None),
        ("breakthrough(rows=6,columns=5)", 6, None),
        ("tic_tac_toe", 20, None),
        ("chinese_checkers(players=3)", 3, 8),
        ("chinese_checkers(players=6)", 3, 8),
        ("maedn(players=3)", 3, 8),
        ("maedn", 3, 8),
        ("amazons", 2, 8),
        ("banqi", 3, 8),
        ("nim", 20, None),
    ],
)
def test_undo_is_exact_where_searches_use_it(
    game_string: str, games: int, tried: int | None
) -> None:
    """Every action tried (all of them, or the first `tried`) is applied and undone at every
    position of seeded random games, winning moves included: nothing observable changes."""
    game = pyspiel.load_game(game_string)
    assert game.get_type().short_name in UNDO_EXACT_GAMES
    rng = np.random.default_rng(1)
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal() and state.move_number() < 400:
            player = state.current_player()
            actions = (
                [outcome for outcome, _ in state.chance_outcomes()]
                if state.is_chance_node()
                else state.legal_actions()
            )
            before = _observables(state)
            for action in actions[:tried]:
                state.apply_action(action)
                state.undo_action(player, action)
                assert _observables(state) == before
            state.apply_action(int(rng.choice(actions)))


def test_undo_exact_games_are_tested() -> None:
    tested = {"amazons", "banqi", "breakthrough", "chinese_checkers", "maedn", "nim", "tic_tac_toe"}
    assert tested == UNDO_EXACT_GAMES


def test_undo_is_not_exact_in_backgammon_and_clobber() -> None:
    """Why they are not in `UNDO_EXACT_GAMES` (OpenSpiel 2.0.2): undoing backgammon's opening
    roll allows doubles on the next (36 outcomes, not 30), and clobber's undo keeps the move
    number of the child."""
    backgammon = pyspiel.load_game("backgammon").new_initial_state()
    assert len(backgammon.chance_outcomes()) == 30
    backgammon.apply_action(0)
    backgammon.undo_action(pyspiel.PlayerId.CHANCE, 0)
    assert len(backgammon.chance_outcomes()) == 36
    clobber = pyspiel.load_game("clobber").new_initial_state()
    player, action = clobber.current_player(), clobber.legal_actions()[0]
    clobber.apply_action(action)
    clobber.undo_action(player, action)
    assert clobber.move_number() == 1
