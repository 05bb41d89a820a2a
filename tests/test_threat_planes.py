"""Threat planes (`value_net.threats`): each player's empty cells that would complete a line,
against a brute-force reading of the board, and networks that read them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyspiel
import pytest

from spiel_bounded.evaluators.value_net import ValueNetEvaluator
from spiel_bounded.evaluators.value_net.config import ModelConfig
from spiel_bounded.evaluators.value_net.features import Features
from spiel_bounded.evaluators.value_net.layout import layout_for
from spiel_bounded.evaluators.value_net.numpy_net import NumpyNetwork
from spiel_bounded.evaluators.value_net.threats import line_game, threat_planes
from spiel_bounded.testing import random_positions
from spiel_bounded.training.symmetry import mirror_features
from tests.helpers import write_network

LINE_GAMES = [
    "connect_four",
    "connect_four(rows=5,columns=6,x_in_row=3)",
    "tic_tac_toe",
]


def brute_force_threats(game: pyspiel.Game, state: pyspiel.State) -> np.ndarray:
    """Player p's plane: 1 on each empty cell that, given to p, completes a line of x_in_row
    through it, read cell by cell from the board's planes."""
    lines = line_game(game)
    assert lines is not None
    planes = np.asarray(state.observation_tensor(0)).reshape(-1, lines.rows, lines.columns)
    empty = planes[lines.empty_plane]
    out = np.zeros((2, lines.rows, lines.columns), np.float32)
    for player, plane in enumerate(lines.player_planes):
        for row, column in zip(*np.nonzero(empty), strict=True):
            for step_row, step_column in ((0, 1), (1, 0), (1, 1), (1, -1)):
                for back in range(lines.in_row):
                    cells = [
                        (row + (k - back) * step_row, column + (k - back) * step_column)
                        for k in range(lines.in_row)
                    ]
                    inside = all(0 <= r < lines.rows and 0 <= c < lines.columns for r, c in cells)
                    others = [cell for cell in cells if cell != (row, column)]
                    if inside and all(planes[plane][cell] == 1.0 for cell in others):
                        out[player, row, column] = 1.0
    return out.reshape(-1)


@pytest.mark.parametrize("name", LINE_GAMES)
def test_threat_planes_equal_a_brute_force_reading_of_the_board(name: str) -> None:
    game = pyspiel.load_game(name)
    states = random_positions(game, 120, plies=(0, 30), seed=3)
    features = Features(game)
    observations = np.stack([features.of(state)[: features.observation_size] for state in states])
    planes = threat_planes(observations, line_game(game))
    expected = np.stack([brute_force_threats(game, state) for state in states])
    assert np.array_equal(planes, expected)
    assert expected.any(axis=1).sum() > 20  # positions with threats were checked


def test_a_board_no_line_fits_has_empty_planes() -> None:
    game = pyspiel.load_game("connect_four(rows=3,columns=3,x_in_row=4)")
    observations = np.stack(
        [state.observation_tensor(0) for state in random_positions(game, 20, plies=(0, 8), seed=3)]
    )
    planes = threat_planes(observations, line_game(game))
    assert planes.shape == (20, 18)
    assert not planes.any()


def test_a_known_connect_four_threat() -> None:
    game = pyspiel.load_game("connect_four")
    state = game.new_initial_state()
    for move in (0, 6, 1, 6, 2):  # player 0 has three in the bottom row, player 1 two in column 6
        state.apply_action(move)
    planes = threat_planes(np.asarray([state.observation_tensor(0)]), line_game(game))
    board = planes.reshape(2, 6, 7)
    (bottom,) = np.nonzero(np.asarray(state.observation_tensor(0)).reshape(3, 6, 7)[0, :, 0])[0]
    assert list(zip(*np.nonzero(board[0]), strict=True)) == [(bottom, 3)]
    assert not board[1].any()


@pytest.mark.parametrize("name", ["connect_four", "tic_tac_toe"])
def test_the_planes_of_a_mirror_image_are_the_mirrored_planes(name: str) -> None:
    game = pyspiel.load_game(name)
    features = Features(game)
    lines = line_game(game)
    assert lines is not None
    rows = np.stack([features.of(s) for s in random_positions(game, 60, plies=(0, 30), seed=4)])
    size = features.observation_size
    mirrored = threat_planes(mirror_features(game, rows)[:, :size], lines)
    planes = threat_planes(rows[:, :size], lines).reshape(-1, 2, lines.rows, lines.columns)
    assert np.array_equal(mirrored, planes[..., ::-1].reshape(len(rows), -1))


def test_threat_inputs_need_a_line_game() -> None:
    with pytest.raises(ValueError, match="othello has none; accepted: connect_four"):
        layout_for(pyspiel.load_game("othello"), ModelConfig(inputs="threats"))
    with pytest.raises(ValueError, match="inputs"):
        ModelConfig(inputs="lines")
    egocentric = pyspiel.load_game("connect_four(egocentric_obs_tensor=true)")
    with pytest.raises(ValueError, match="accepted: connect_four \\(absolute observation\\)"):
        layout_for(egocentric, ModelConfig(inputs="threats"))
    wide = pyspiel.load_game("connect_four(rows=8,columns=9)")
    with pytest.raises(ValueError, match=r"at most 64 cells.*has 72"):
        layout_for(wide, ModelConfig(inputs="threats"))


def test_a_threat_network_reads_the_planes_after_the_mover_bits(tmp_path: Path) -> None:
    game = pyspiel.load_game("connect_four")
    model = ModelConfig(width=8, depth=1, inputs="threats")
    layout = layout_for(game, model)
    assert layout.dense_input == 126 + 3 + 84
    path = write_network(tmp_path / "model.npz", game, model, "next_mover", seed=2)
    evaluator = ValueNetEvaluator(game, path)
    assert evaluator.engine == "numpy" and evaluator.child_leaves is None
    with pytest.raises(ValueError, match=r"reads the observation only.*accepted engines"):
        ValueNetEvaluator(game, path, engine="compiled")
    # The planes move the value: zeroing their rows of the first layer changes it.
    state = game.new_initial_state()
    for move in (0, 6, 1, 6, 2):
        state.apply_action(move)
    params = dict(evaluator.checkpoint.params)
    kernel = params["dense_0/kernel"].copy()
    kernel[129:] = 0.0
    without = NumpyNetwork(layout, {**params, "dense_0/kernel": kernel})
    inputs = evaluator.features([state])
    assert not np.allclose(without(inputs), evaluator.raw(state))
