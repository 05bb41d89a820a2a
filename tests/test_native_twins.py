"""The native twins of OpenSpiel's states (`twins.h`: connect_four, othello, breakthrough, clobber,
hex; the native searches step through them in place of OpenSpiel's states) answer every question
as OpenSpiel's state does, over random games of several board sizes, for each position, each
child they play and each move they take back."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel
import pytest

from spiel_bounded import native

if not native.available():
    pytest.skip(
        f"the native engine is unavailable: {native.unavailable_reason()}",
        allow_module_level=True,
    )

ENGINE = native.engine_module("test_native_twins")


def answers(state: pyspiel.State) -> dict[str, Any]:
    """What OpenSpiel's state answers, as the twin's binding reports it."""
    found: dict[str, Any] = {
        "player": state.current_player(),
        "terminal": state.is_terminal(),
        "returns": state.returns(),
        "legal": state.legal_actions(),
        "text": str(state),
        "history": state.history(),
        "move_number": state.move_number(),
    }
    if not state.is_terminal():
        player = state.current_player()
        if state.get_game().get_type().provides_information_state_string:
            found["information_state"] = state.information_state_string(player)
        found["observation_string"] = state.observation_string(player)
        found["observation"] = list(np.asarray(state.observation_tensor(player), np.float32))
        found["action_strings"] = [state.action_to_string(player, a) for a in state.legal_actions()]
    return found


@pytest.mark.parametrize(
    ("game_string", "games", "endings"),
    [
        ("connect_four", 40, 2),
        ("connect_four(rows=4,columns=5,x_in_row=4)", 60, 3),  # full boards: draws
        ("connect_four(rows=8,columns=8,x_in_row=5)", 10, 2),  # 64 cells: every bit
        ("connect_four(rows=3,columns=3,x_in_row=1)", 10, 1),  # the first piece wins
        ("othello", 12, 2),
        ("breakthrough", 12, 2),
        ("breakthrough(rows=5,columns=4)", 40, 2),  # one home row; some end with no piece left
        ("breakthrough(rows=8,columns=8)", 4, 2),
        ("clobber", 30, 2),
        ("clobber(rows=4,columns=3)", 60, 2),
        ("clobber(rows=16,columns=4)", 6, 2),  # 64 cells; row labels of two digits
        ("hex(board_size=7)", 30, 2),
        ("hex(board_size=5,swap=true,string_rep=explicit)", 40, 2),  # the pie rule
        ("hex(board_size=8,plain_obs_tensor=true)", 16, 2),  # 64 cells
        ("hex(board_size=2)", 20, 2),
    ],
)
def test_the_twin_answers_as_openspiel(game_string: str, games: int, endings: int) -> None:
    game = pyspiel.load_game(game_string)
    rng = np.random.default_rng(7)
    outcomes = set()
    for _ in range(games):
        state = game.new_initial_state()
        while True:
            twin = ENGINE.twin(state)
            assert twin is not None
            expected = answers(state)
            children = twin.pop("children")
            after_undo = twin.pop("after_undo")
            assert twin == expected
            assert after_undo == expected
            assert children == [answers(state.child(a)) for a in state.legal_actions()]
            if state.is_terminal():
                outcomes.add(tuple(state.returns()))
                break
            actions = state.legal_actions()
            state.apply_action(actions[int(rng.integers(len(actions)))])
    assert outcomes <= {(1.0, -1.0), (-1.0, 1.0), (0.0, 0.0)}
    assert len(outcomes) == endings  # wins of either side, and draws where boards fill


@pytest.mark.parametrize(
    "game_string",
    [
        "connect_four(egocentric_obs_tensor=true)",  # another observation
        "connect_four(rows=9,columns=8)",  # more than 64 cells
        "breakthrough(rows=9,columns=8)",
        "clobber(rows=13,columns=5)",
        "hex",  # 11 x 11
        "hex(num_cols=5,num_rows=4)",
        "tic_tac_toe",
    ],
)
def test_states_without_a_twin(game_string: str) -> None:
    state = pyspiel.load_game(game_string).new_initial_state()
    state.apply_action(state.legal_actions()[0])
    assert ENGINE.twin(state) is None


def test_a_state_built_from_a_board_has_no_twin() -> None:
    """Without the history that made it, the board cannot be replayed: OpenSpiel's state is
    searched instead."""
    game = pyspiel.load_game("connect_four")
    played = game.new_initial_state()
    for action in (3, 3, 4):
        played.apply_action(action)
    from_board = game.new_initial_state(played.to_struct().to_json())
    assert str(from_board) == str(played) and not from_board.history()
    assert ENGINE.twin(from_board) is None
    assert ENGINE.twin(played) is not None


def test_the_pie_rule_on_every_first_stone() -> None:
    """hex with `swap`: after each first stone, the second player's swap (the stone mirrored and
    made its own) answers as in OpenSpiel, and so does every reply to it."""
    game = pyspiel.load_game("hex(board_size=4,swap=true,string_rep=explicit)")
    swap = 16
    for first in range(16):
        state = game.new_initial_state()
        state.apply_action(first)
        assert swap in state.legal_actions()
        state.apply_action(swap)
        twin = ENGINE.twin(state)
        assert twin is not None
        children = twin.pop("children")
        twin.pop("after_undo")
        assert twin == answers(state)
        assert children == [answers(state.child(a)) for a in state.legal_actions()]
