"""connect_four's native twin (`ConnectFourBoard`, which the alpha-beta engine searches in place of
OpenSpiel's state) answers every question as OpenSpiel's state does, over random games of several
board sizes, for each position, each child it plays and each move it takes back."""

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

ENGINE = native.engine_module("test_native_connect_four_board")


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
    ],
)
def test_the_twin_answers_as_openspiel(game_string: str, games: int, endings: int) -> None:
    game = pyspiel.load_game(game_string)
    rng = np.random.default_rng(7)
    outcomes = set()
    for _ in range(games):
        state = game.new_initial_state()
        while True:
            twin = ENGINE.connect_four_board(state)
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
        "tic_tac_toe",
    ],
)
def test_states_without_a_twin(game_string: str) -> None:
    state = pyspiel.load_game(game_string).new_initial_state()
    state.apply_action(state.legal_actions()[0])
    assert ENGINE.connect_four_board(state) is None


def test_a_state_built_from_a_board_has_no_twin() -> None:
    """Without the history that made it, the board cannot be replayed: OpenSpiel's state is
    searched instead."""
    game = pyspiel.load_game("connect_four")
    played = game.new_initial_state()
    for action in (3, 3, 4):
        played.apply_action(action)
    from_board = game.new_initial_state(played.to_struct().to_json())
    assert str(from_board) == str(played) and not from_board.history()
    assert ENGINE.connect_four_board(from_board) is None
    assert ENGINE.connect_four_board(played) is not None
