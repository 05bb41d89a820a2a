"""Territory inputs (`value_net.territory`): the amazons cells each side reaches first by queen
moves, against OpenSpiel's own move rules, the native twin against the Python reference, and
networks that read them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyspiel
import pytest

from spiel_bounded import native
from spiel_bounded.evaluators.value_net import ValueNetEvaluator
from spiel_bounded.evaluators.value_net.config import ModelConfig
from spiel_bounded.evaluators.value_net.features import Features
from spiel_bounded.evaluators.value_net.layout import layout_for
from spiel_bounded.evaluators.value_net.numpy_net import NumpyNetwork
from spiel_bounded.evaluators.value_net.territory import (
    amazons_board,
    reference_planes,
    territory_planes,
)
from spiel_bounded.testing import random_positions
from spiel_bounded.training.symmetry import mirror_features
from tests.helpers import write_network
from tests.markers import needs_native


def _destinations(state: pyspiel.State) -> set[int]:
    """The cells the mover's amazons can move to, by OpenSpiel's rules: every "To" move after
    each "From" move (a turn is three moves: an amazon, where it goes, where it shoots)."""
    cells = set()
    for lift in state.legal_actions():
        lifted = state.child(lift)
        cells.update(lifted.legal_actions())
    return cells


@pytest.mark.parametrize("name", ["amazons(board_size=6)", "amazons"])
def test_the_reach_in_one_move_is_openspiels_moves(name: str) -> None:
    """At the start of a turn, the mover's plane of cells one queen move away holds exactly the
    cells OpenSpiel lets its amazons move to (so the board, its directions and its blocking are
    OpenSpiel's)."""
    game = pyspiel.load_game(name)
    board = amazons_board(game)
    assert board is not None
    rng = np.random.default_rng(4)
    checked = 0
    for _ in range(12):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.move_number() % 3 == 0:  # the first move of a turn
                planes = reference_planes(np.array([state.observation_tensor(0)]), board)[0]
                mover = state.current_player()
                reach = planes[(3 + mover) * board.cells : (4 + mover) * board.cells]
                assert set(np.flatnonzero(reach).tolist()) == _destinations(state)
                checked += 1
            state.apply_action(int(rng.choice(state.legal_actions())))
    assert checked > 100


def test_the_cells_split_by_who_reaches_them_first() -> None:
    """Every empty cell a side reaches lies in exactly one of the three territory planes, and no
    other cell does; one move away is reached first or tied."""
    game = pyspiel.load_game("amazons(board_size=8)")
    board = amazons_board(game)
    assert board is not None
    states = random_positions(game, 30, plies=(0, 60), seed=5)
    observations = np.array([state.observation_tensor(0) for state in states], np.float32)
    planes = reference_planes(observations, board).reshape(len(states), 5, board.cells)
    empty = observations.reshape(len(states), -1, board.cells)[:, 0] != 0
    territory = planes[:, :3].sum(axis=1)
    assert territory.max() <= 1 and not (territory[~empty]).any()
    for player in (0, 1):
        near = planes[:, 3 + player] > 0
        assert (planes[:, player][near] + planes[:, 2][near] == 1).all()
    # The initial position is symmetric: as many cells reached first by each side.
    initial = reference_planes(np.array([game.new_initial_state().observation_tensor()]), board)
    first = initial[0].reshape(5, board.cells)
    assert first[0].sum() == first[1].sum() and first[3].sum() == first[4].sum()


@needs_native
@pytest.mark.parametrize("name", ["amazons(board_size=6)", "amazons(board_size=8)", "amazons"])
def test_the_native_inputs_equal_the_reference(name: str) -> None:
    game = pyspiel.load_game(name)
    board = amazons_board(game)
    assert board is not None
    states = random_positions(game, 50, plies=(0, 80), seed=8)
    observations = np.array([state.observation_tensor(0) for state in states], np.float32)
    expected = reference_planes(observations, board)
    assert np.array_equal(territory_planes(observations, board), expected)


@needs_native
def test_the_native_inputs_refuse_a_wrong_shape_or_board() -> None:
    engine = native.module()
    with pytest.raises(ValueError, match=r"observations must be \[batch, >= 108\] for a 6x6"):
        engine.territory_planes(np.zeros((2, 100), np.float32), 6, 0, [2, 1])
    with pytest.raises(ValueError, match="boards of 1 to 128 cells; this one has 144"):
        engine.territory_planes(np.zeros((2, 600), np.float32), 12, 0, [2, 1])


def test_territory_inputs_need_amazons() -> None:
    with pytest.raises(ValueError, match=r"reads an amazons board; .*accepted: amazons"):
        layout_for(pyspiel.load_game("hex"), ModelConfig(inputs="territory"))


def test_a_territory_network_reads_the_inputs_after_the_mover_bits(tmp_path: Path) -> None:
    game = pyspiel.load_game("amazons(board_size=6)")
    model = ModelConfig(width=8, depth=1, inputs="territory")
    layout = layout_for(game, model)
    assert layout.dense_input == 4 * 36 + 3 + 5 * 36
    path = write_network(tmp_path / "model.npz", game, model, "next_mover", seed=2)
    evaluator = ValueNetEvaluator(game, path)
    with pytest.raises(ValueError, match=r"model inputs = territory.*accepted engines"):
        ValueNetEvaluator(game, path, engine="compiled")
    state = random_positions(game, 1, plies=9, seed=1)[0]
    params = dict(evaluator.checkpoint.params)
    kernel = params["dense_0/kernel"].copy()
    kernel[4 * 36 + 3 :] = 0.0
    without = NumpyNetwork(layout, {**params, "dense_0/kernel": kernel})
    inputs = evaluator.features([state])
    assert not np.allclose(without(inputs), evaluator.raw(state))


def test_a_mirror_image_mirrors_the_planes() -> None:
    """Training adds left-right images (`[train] mirror`): the inputs derived from an image are
    the image of the inputs."""
    game = pyspiel.load_game("amazons(board_size=8)")
    board = amazons_board(game)
    assert board is not None
    features = Features(game)
    rows = np.stack([features.of(s) for s in random_positions(game, 30, plies=(0, 50), seed=6)])
    size = features.observation_size
    planes = reference_planes(rows[:, :size], board).reshape(-1, 5, board.rows, board.rows)
    mirrored = reference_planes(mirror_features(game, rows)[:, :size], board)
    assert np.array_equal(mirrored, planes[..., ::-1].reshape(len(rows), -1))
