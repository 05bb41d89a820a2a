"""Connection inputs (`value_net.connections`): each hex side's cheapest paths and distance,
against a brute-force search for the fewest cells that join a side's edges, against OpenSpiel's
own win rule, the native twin against the Python reference, and networks that read them."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pyspiel
import pytest

from spiel_bounded import native
from spiel_bounded.evaluators.value_net import ValueNetEvaluator
from spiel_bounded.evaluators.value_net.config import ModelConfig
from spiel_bounded.evaluators.value_net.connections import (
    HexBoard,
    connection_planes,
    hex_board,
    reference_planes,
)
from spiel_bounded.evaluators.value_net.features import Features
from spiel_bounded.evaluators.value_net.layout import layout_for
from spiel_bounded.evaluators.value_net.numpy_net import NumpyNetwork
from spiel_bounded.testing import random_positions
from spiel_bounded.training.symmetry import mirror_features
from tests.helpers import write_network
from tests.markers import needs_native

BOARDS = ["hex(board_size=3)", "hex(board_size=4)", "hex(num_rows=3,num_cols=4)"]


def _stones(observation: np.ndarray, board: HexBoard, planes: tuple[int, ...]) -> set[int]:
    cells = board.cells
    return {
        cell for cell in range(cells) if any(observation[plane * cells + cell] for plane in planes)
    }


def _joined(stones: set[int], side: int, board: HexBoard) -> bool:
    """Whether `stones` join the side's edges (a flood fill, independent of the search)."""
    rows, columns = board.rows, board.columns
    start = [cell for cell in stones if (cell // columns if side == 0 else cell % columns) == 0]
    seen, frontier = set(start), list(start)
    while frontier:
        cell = frontier.pop()
        for next_cell in board.neighbours(cell):
            if next_cell in stones and next_cell not in seen:
                seen.add(next_cell)
                frontier.append(next_cell)
    last = rows - 1 if side == 0 else columns - 1
    return any((cell // columns if side == 0 else cell % columns) == last for cell in seen)


def _brute_force(observation: np.ndarray, board: HexBoard) -> np.ndarray:
    """The inputs by trying every set of empty cells: a side's distance is the size of the
    smallest set that joins its edges, its plane the cells of the sets of that size."""
    x = _stones(observation, board, board.x_planes)
    o = _stones(observation, board, board.o_planes)
    empty = [cell for cell in range(board.cells) if cell not in x | o]
    planes, thermometers = [], []
    for side, own in enumerate((x, o)):
        plane = np.zeros(board.cells, np.float32)
        distance = None
        for size in range(len(empty) + 1):
            joining = [
                s for s in itertools.combinations(empty, size) if _joined(own | set(s), side, board)
            ]
            if joining:
                distance = size
                for cells in joining:
                    plane[list(cells)] = 1.0
                break
        planes.append(plane)
        steps = np.arange(1, board.thermometer + 1)
        thermometers.append(
            np.zeros(board.thermometer, np.float32)
            if distance is None
            else (distance <= steps).astype(np.float32)
        )
    return np.concatenate(planes + thermometers)


@pytest.mark.parametrize("name", BOARDS)
def test_the_inputs_are_the_fewest_cells_that_join_a_sides_edges(name: str) -> None:
    game = pyspiel.load_game(name)
    board = hex_board(game)
    assert board is not None
    states = [game.new_initial_state()]
    states += random_positions(game, 40, plies=(1, board.cells - 2), seed=3)
    observations = np.array([state.observation_tensor(0) for state in states], np.float32)
    expected = np.stack([_brute_force(row, board) for row in observations])
    assert np.array_equal(reference_planes(observations, board), expected)


def test_the_empty_board() -> None:
    game = pyspiel.load_game("hex(num_rows=3,num_cols=5)")
    board = hex_board(game)
    assert board is not None and board.size == 2 * (15 + 5)
    planes = reference_planes(np.array([game.new_initial_state().observation_tensor()]), board)[0]
    # x crosses 3 rows, o 5 columns; every cell lies on a cheapest path of each.
    assert planes[:30].tolist() == [1.0] * 30
    assert planes[30:35].tolist() == [0, 0, 1, 1, 1]
    assert planes[35:].tolist() == [0, 0, 0, 0, 1]


@pytest.mark.parametrize(
    "name", ["hex(board_size=5)", "hex(num_rows=4,num_cols=6)", "hex(num_rows=6,num_cols=3)"]
)
def test_a_side_is_at_distance_0_exactly_when_openspiel_says_it_won(name: str) -> None:
    """The board's neighbours and edges are OpenSpiel's: over random games, the winner's
    distance is 0 at the end (every thermometer entry, no empty cell left on its path) and the
    other side's path is cut (no entry); before the end, each side has empty cells on its
    cheapest paths."""
    game = pyspiel.load_game(name)
    board = hex_board(game)
    assert board is not None
    cells, length = board.cells, board.thermometer
    rng = np.random.default_rng(5)
    for _ in range(30):
        state = game.new_initial_state()
        while not state.is_terminal():
            planes = reference_planes(np.array([state.observation_tensor(0)]), board)[0]
            assert planes[:cells].any() and planes[cells : 2 * cells].any()
            state.apply_action(int(rng.choice(state.legal_actions())))
        planes = reference_planes(np.array([state.observation_tensor(0)]), board)[0]
        winner = 0 if state.returns()[0] > 0 else 1
        thermometers = planes[2 * cells :].reshape(2, length)
        assert not planes[winner * cells : (winner + 1) * cells].any()
        assert thermometers[winner].all() and not thermometers[1 - winner].any()


@needs_native
@pytest.mark.parametrize(
    "name",
    [
        "hex",
        "hex(board_size=5)",
        "hex(num_rows=3,num_cols=7)",
        "hex(board_size=7,plain_obs_tensor=true)",
        "hex(num_rows=8,num_cols=16)",  # 128 cells: the last board of bitboards
        "hex(board_size=12)",  # 144 cells: a breadth-first search
    ],
)
def test_the_native_inputs_equal_the_reference(name: str) -> None:
    game = pyspiel.load_game(name)
    board = hex_board(game)
    assert board is not None
    states = random_positions(game, 50, plies=(0, board.cells - 1), seed=8)
    observations = np.array([state.observation_tensor(0) for state in states], np.float32)
    assert np.array_equal(
        connection_planes(observations, board), reference_planes(observations, board)
    )


@needs_native
def test_the_native_inputs_refuse_a_wrong_shape() -> None:
    engine = native.module()
    with pytest.raises(ValueError, match=r"observations must be \[batch, >= 50\] for a 5x5 board"):
        engine.connection_planes(np.zeros((2, 49), np.float32), 5, 5, [1], [0])
    with pytest.raises(ValueError, match="rows and columns must be >= 1"):
        engine.connection_planes(np.zeros((2, 9), np.float32), 0, 5, [1], [0])


def test_connection_inputs_need_hex() -> None:
    with pytest.raises(ValueError, match=r"reads a hex board; .*accepted: hex \(any size\)"):
        layout_for(pyspiel.load_game("connect_four"), ModelConfig(inputs="connections"))
    with pytest.raises(ValueError, match="observation, threats, connections"):
        ModelConfig(inputs="paths")


def test_a_connection_network_reads_the_inputs_after_the_mover_bits(tmp_path: Path) -> None:
    game = pyspiel.load_game("hex(board_size=5)")
    model = ModelConfig(width=8, depth=1, inputs="connections")
    layout = layout_for(game, model)
    assert layout.dense_input == 9 * 25 + 3 + 2 * (25 + 5)
    path = write_network(tmp_path / "model.npz", game, model, "next_mover", seed=2)
    evaluator = ValueNetEvaluator(game, path)
    assert evaluator.engine == "numpy"
    with pytest.raises(ValueError, match=r"model inputs = connections.*accepted engines"):
        ValueNetEvaluator(game, path, engine="compiled")
    # The inputs move the value: zeroing their rows of the first layer changes it.
    state = game.new_initial_state()
    for move in (12, 6, 17):
        state.apply_action(move)
    params = dict(evaluator.checkpoint.params)
    kernel = params["dense_0/kernel"].copy()
    kernel[9 * 25 + 3 :] = 0.0
    without = NumpyNetwork(layout, {**params, "dense_0/kernel": kernel})
    inputs = evaluator.features([state])
    assert not np.allclose(without(inputs), evaluator.raw(state))


def test_a_half_turn_turns_the_plane_and_keeps_the_distance() -> None:
    """Training adds half-turned boards (`[train] mirror`): the inputs a network derives from a
    turned board are the turned inputs, so the images teach the same thing."""
    game = pyspiel.load_game("hex(board_size=5)")
    board = hex_board(game)
    assert board is not None
    features = Features(game)
    rows = np.stack([features.of(s) for s in random_positions(game, 40, plies=(0, 20), seed=6)])
    size, cells = features.observation_size, board.cells
    inputs = reference_planes(rows[:, :size], board)
    turned = reference_planes(mirror_features(game, rows)[:, :size], board)
    planes = inputs[:, : 2 * cells].reshape(-1, 2, cells)
    assert np.array_equal(turned[:, : 2 * cells].reshape(-1, 2, cells), planes[..., ::-1])
    assert np.array_equal(turned[:, 2 * cells :], inputs[:, 2 * cells :])
