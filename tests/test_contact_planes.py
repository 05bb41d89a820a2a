"""Contact inputs (`value_net.contacts`): clobber's capturing stones, contacts and live groups, by
hand, against OpenSpiel's own move rules, the native twin against the Python reference, mirror
images, and networks that read them."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pyspiel
import pytest

from spiel_bounded import native
from spiel_bounded.evaluators.value_net import ValueNetEvaluator
from spiel_bounded.evaluators.value_net.config import ModelConfig
from spiel_bounded.evaluators.value_net.contacts import (
    CONTACT_STEPS,
    ClobberBoard,
    clobber_board,
    contact_planes,
    groups,
    reference_planes,
)
from spiel_bounded.evaluators.value_net.features import Features
from spiel_bounded.evaluators.value_net.layout import layout_for
from spiel_bounded.evaluators.value_net.numpy_net import NumpyNetwork
from spiel_bounded.testing import random_positions
from spiel_bounded.training.symmetry import mirror_features, symmetry_of
from tests.helpers import write_network
from tests.markers import needs_native


def _observation(rows: list[str]) -> np.ndarray:
    """A clobber observation from rows of text, top row first: o is player 0, x player 1."""
    text = "".join(rows)
    planes = [[cell == mark for cell in text] for mark in "ox."]
    return np.array(planes, np.float32).ravel()


def _blocks(board: ClobberBoard) -> list[tuple[str, tuple[int, int]]]:
    """The inputs' blocks in order, named, with the board-shaped grid each one covers (a
    thermometer as one row)."""
    rows, columns = board.rows, board.columns
    return [
        ("capturers 0", (rows, columns)),
        ("capturers 1", (rows, columns)),
        ("across", (rows, columns - 1)),
        ("down", (rows - 1, columns)),
        ("groups of 2", (rows, columns)),
        ("groups of 3-4", (rows, columns)),
        ("groups of 5+", (rows, columns)),
        ("live groups", (1, 8)),
        ("live groups of 2", (1, 8)),
        ("contacts", (1, len(CONTACT_STEPS))),
    ]


def _split(planes: np.ndarray, board: ClobberBoard) -> dict[str, np.ndarray]:
    out, start = {}, 0
    for name, shape in _blocks(board):
        size = shape[0] * shape[1]
        out[name] = planes[start : start + size].reshape(shape)
        start += size
    assert start == board.size == len(planes)
    return out


def test_a_position_by_hand() -> None:
    """o x . .  /  . . o o  /  x . . x: o takes x across the top or x takes it; the o pair and
    the bottom right x form a live group of 3; the bottom left x is alone (dead)."""
    board = ClobberBoard(3, 4)
    planes = reference_planes(np.array([_observation(["ox..", "..oo", "x..x"])]), board)[0]
    blocks = _split(planes, board)
    assert np.flatnonzero(blocks["capturers 0"]).tolist() == [0, 7]
    assert np.flatnonzero(blocks["capturers 1"]).tolist() == [1, 11]
    assert np.flatnonzero(blocks["across"]).tolist() == [0]
    assert np.flatnonzero(blocks["down"]).tolist() == [7]
    assert np.flatnonzero(blocks["groups of 2"]).tolist() == [0, 1]
    assert np.flatnonzero(blocks["groups of 3-4"]).tolist() == [6, 7, 11]
    assert not blocks["groups of 5+"].any()
    assert blocks["live groups"].ravel().tolist() == [1, 1, 0, 0, 0, 0, 0, 0]
    assert blocks["live groups of 2"].ravel().tolist() == [1, 0, 0, 0, 0, 0, 0, 0]
    assert blocks["contacts"].ravel().tolist() == [1, 1] + [0] * (len(CONTACT_STEPS) - 2)


def test_group_sizes_by_hand() -> None:
    """o x o x . / . . . . . / x o . o x / o . x x o: live groups of 4 across the top, of 3 at the
    bottom left and of 5 at the bottom right (two x side by side join its halves), none of 2."""
    board = ClobberBoard(4, 5)
    planes = reference_planes(np.array([_observation(["oxox.", ".....", "xo.ox", "o.xxo"])]), board)
    blocks = _split(planes[0], board)
    assert np.flatnonzero(blocks["groups of 3-4"]).tolist() == [0, 1, 2, 3, 10, 11, 15]
    assert np.flatnonzero(blocks["groups of 5+"]).tolist() == [13, 14, 17, 18, 19]
    assert not blocks["groups of 2"].any()
    assert blocks["live groups"].ravel().tolist() == [1, 1, 1, 0, 0, 0, 0, 0]


def _from_cell(move: str, board: ClobberBoard) -> int:
    """The cell a clobber move ("a3b3") starts from: rows are labelled from the bottom."""
    column, row = re.match(r"([a-z])(\d+)", move).groups()  # type: ignore[union-attr]
    return (board.rows - int(row)) * board.columns + ord(column) - ord("a")


@pytest.mark.parametrize(
    "name", ["clobber", "clobber(rows=4,columns=5)", "clobber(rows=6,columns=6)"]
)
def test_the_capturers_and_contacts_are_openspiels_moves(name: str) -> None:
    """The mover's capturing stones are the cells OpenSpiel's moves start from, and each side has
    one move a contact (as many as the thermometer shows, up to its last step)."""
    game = pyspiel.load_game(name)
    board = clobber_board(game)
    assert board is not None
    states = [s for s in random_positions(game, 60, plies=(0, 30), seed=3) if not s.is_terminal()]
    assert len(states) > 40
    for state in states:
        blocks = _split(reference_planes(np.array([state.observation_tensor(0)]), board)[0], board)
        player = state.current_player()
        moves = [state.action_to_string(player, action) for action in state.legal_actions()]
        starts = {_from_cell(move, board) for move in moves}
        assert set(np.flatnonzero(blocks[f"capturers {player}"]).tolist()) == starts
        contacts = int(blocks["across"].sum() + blocks["down"].sum())
        assert contacts == len(moves)
        shown = [contacts >= step for step in CONTACT_STEPS]
        assert blocks["contacts"].ravel().tolist() == shown


def test_groups_never_merge_and_hold_every_capture() -> None:
    """Along random games: every group of a child lies within one group of its parent (a capture
    only empties a cell), every stone that can capture lies in a live group, and a finished
    game has none."""
    game = pyspiel.load_game("clobber")
    board = clobber_board(game)
    assert board is not None
    rng = np.random.default_rng(9)
    for _ in range(20):
        state = game.new_initial_state()
        parent: list[set[int]] = []
        while True:
            observation = np.array(state.observation_tensor(0))
            stones = observation[: 2 * board.cells].reshape(2, -1).any(axis=0)
            found = [set(group) for group in groups(stones, board)]
            assert not parent or all(any(group <= before for before in parent) for group in found)
            parent = found
            blocks = _split(reference_planes(np.array([observation]), board)[0], board)
            live = blocks["groups of 2"] + blocks["groups of 3-4"] + blocks["groups of 5+"]
            capturers = blocks["capturers 0"] + blocks["capturers 1"]
            assert live.max() <= 1 and (live[capturers > 0] == 1).all()
            if state.is_terminal():
                assert not live.any() and not blocks["live groups"].any()
                break
            state.apply_action(int(rng.choice(state.legal_actions())))


@needs_native
@pytest.mark.parametrize(
    "name",
    [
        "clobber",
        "clobber(rows=4,columns=5)",
        "clobber(rows=8,columns=8)",
        "clobber(rows=2,columns=9)",
    ],
)
def test_the_native_inputs_equal_the_reference(name: str) -> None:
    game = pyspiel.load_game(name)
    board = clobber_board(game)
    assert board is not None
    states = random_positions(game, 80, plies=(0, 40), seed=8)
    observations = np.array([state.observation_tensor(0) for state in states], np.float32)
    assert np.array_equal(
        contact_planes(observations, board), reference_planes(observations, board)
    )


@needs_native
def test_the_native_inputs_refuse_a_wrong_shape_or_board() -> None:
    engine = native.module()
    with pytest.raises(ValueError, match=r"observations must be \[batch, >= 60\] for a 5x6"):
        engine.contact_planes(np.zeros((2, 50), np.float32), 5, 6)
    with pytest.raises(
        ValueError, match="at least 2 rows and 2 columns and at most 64 cells; this one is 9x9"
    ):
        engine.contact_planes(np.zeros((2, 300), np.float32), 9, 9)
    with pytest.raises(ValueError, match="this one is 1x64"):  # no shift of 64 bits
        engine.contact_planes(np.zeros((2, 200), np.float32), 1, 64)


def test_contact_inputs_need_a_clobber_board_of_64_cells() -> None:
    with pytest.raises(ValueError, match=r"reads a clobber board; .*accepted: clobber"):
        layout_for(pyspiel.load_game("hex"), ModelConfig(inputs="contacts"))
    with pytest.raises(ValueError, match=r"at most 64 cells; .* is 9x9"):
        layout_for(pyspiel.load_game("clobber(rows=9,columns=9)"), ModelConfig(inputs="contacts"))
    with pytest.raises(ValueError, match=r"at least 2 rows and 2 columns.* is 1x6"):
        layout_for(pyspiel.load_game("clobber(rows=1,columns=6)"), ModelConfig(inputs="contacts"))


def test_a_contacts_network_reads_the_inputs_after_the_mover_bits(tmp_path: Path) -> None:
    """The first layer reads the observation, the mover bits, then the contact inputs: with the
    rows of those inputs zeroed the values change, so the network reads them."""
    game = pyspiel.load_game("clobber")
    board = clobber_board(game)
    assert board is not None
    model = ModelConfig(width=8, depth=1, inputs="contacts")
    layout = layout_for(game, model)
    plain = layout_for(game, ModelConfig(width=8, depth=1)).dense_input
    assert (plain, board.size, layout.dense_input) == (3 * 30 + 3, 225, 3 * 30 + 3 + 225)
    path = write_network(tmp_path / "model.npz", game, model, "next_mover", seed=2)
    evaluator = ValueNetEvaluator(game, path)
    states = [s for s in random_positions(game, 5, plies=(4, 12), seed=1) if not s.is_terminal()]
    params = dict(evaluator.checkpoint.params)
    kernel = params["dense_0/kernel"].copy()
    kernel[plain:] = 0.0
    without = NumpyNetwork(layout, {**params, "dense_0/kernel": kernel})
    inputs = evaluator.features(states)
    assert not np.allclose(without(inputs), [evaluator.raw(state) for state in states])


@pytest.mark.parametrize(
    "name", ["clobber", "clobber(rows=4,columns=5)", "clobber(rows=4,columns=4)"]
)
def test_a_mirror_image_mirrors_the_planes(name: str) -> None:
    """Training adds mirror images (`[train] mirror`): the inputs derived from an image are the
    image of the inputs, each block flipped as its grid is, the counts unchanged."""
    game = pyspiel.load_game(name)
    board = clobber_board(game)
    symmetry = symmetry_of(game)
    assert board is not None and symmetry is not None
    features = Features(game)
    rows = np.stack([features.of(s) for s in random_positions(game, 30, plies=(0, 20), seed=6)])
    size = features.observation_size
    planes = reference_planes(rows[:, :size], board)
    mirrored = reference_planes(mirror_features(game, rows)[:, :size], board)
    for plane, image in zip(planes, mirrored, strict=True):
        expected, got = _split(plane, board), _split(image, board)
        for name_, grid in expected.items():
            if name_ not in ("live groups", "live groups of 2", "contacts"):  # counts
                grid = grid[::-1] if symmetry.flip_rows else grid
                grid = grid[:, ::-1] if symmetry.flip_columns else grid
            assert np.array_equal(got[name_], grid), name_
