"""Interval targets (the search's bounds at the positions searched and at their root children)
and mirror augmentation: checked against brute force."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyspiel
import pytest

from spiel_bounded.evaluators import make_evaluator
from spiel_bounded.evaluators.value_net.features import Features
from spiel_bounded.oracles import solve, solve_depth_limited
from spiel_bounded.training.config import DataConfig, TrainConfig
from spiel_bounded.training.dataset import Dataset, assemble
from spiel_bounded.training.generate import generate
from spiel_bounded.training.rows import Rows
from spiel_bounded.training.selfplay import play_selfplay_game
from spiel_bounded.training.symmetry import MIRRORS, check_mirror, mirror_features, symmetry_of
from spiel_bounded.training.targets import targets


def tic_tac_toe(depth: int, games: int = 2) -> DataConfig:
    return DataConfig(
        game="tic_tac_toe",
        games=games,
        bot="bounded_ab",
        bot_params={"depth": depth},
        opening_moves=1,
        epsilon=0.2,
        seed=3,
    )


def every_state(game: pyspiel.Game) -> dict[str, pyspiel.State]:
    """Every non-terminal position of a small game, by the key self-play gives it."""
    found: dict[str, pyspiel.State] = {}
    frontier = [game.new_initial_state()]
    while frontier:
        state = frontier.pop()
        key = f"{state.current_player()}|{state}"
        if state.is_terminal() or key in found:
            continue
        found[key] = state
        frontier.extend(state.child(action) for action in state.legal_actions())
    return found


def test_intervals_of_a_solving_search_hold_the_game_value() -> None:
    """Depth 9 solves tic_tac_toe: every interval recorded, at a position played or at a root
    child, holds that position's game value for both players."""
    game = pyspiel.load_game("tic_tac_toe")
    states = every_state(game)
    positions = play_selfplay_game(tic_tac_toe(9), 0)
    children = positions.children
    assert len(children.keys) > 0
    checked = 0
    for keys, lower, upper in (
        (positions.keys, positions.lower, positions.upper),
        (children.keys, children.lower, children.upper),
    ):
        for row, key in enumerate(keys.tolist()):
            if np.isnan(lower[row]).any():
                continue
            value = solve(states[key])
            assert (lower[row] <= value + 1e-6).all() and (value <= upper[row] + 1e-6).all()
            assert np.allclose(lower[row, 0], -upper[row, 1])  # zero-sum, player by player
            checked += 1
    assert checked > len(positions.keys) // 2


def test_depth_limited_intervals_hold_the_depth_limited_value() -> None:
    """At depth 2 the root's interval holds its depth-2 value under the heuristic, and each
    root child's its depth-1 value (children at the same depth as in the search)."""
    game = pyspiel.load_game("tic_tac_toe")
    states = every_state(game)
    heuristic = make_evaluator("heuristic", game)
    positions = play_selfplay_game(tic_tac_toe(2), 1)
    searched = ~np.isnan(positions.lower).any(axis=1)
    assert searched.any()
    for row in np.flatnonzero(searched):
        value = solve_depth_limited(states[positions.keys[row]], 2, heuristic.evaluate)
        assert (positions.lower[row] <= value + 1e-6).all()
        assert (value <= positions.upper[row] + 1e-6).all()
    children = positions.children
    for row, key in enumerate(children.keys.tolist()):
        value = solve_depth_limited(states[key], 1, heuristic.evaluate)
        assert (children.lower[row] <= value + 1e-6).all()
        assert (value <= children.upper[row] + 1e-6).all()


def test_children_join_the_dataset_with_an_interval_and_no_outcome(tmp_path: Path) -> None:
    generate(tic_tac_toe(2, games=4), tmp_path, executor="inline")
    dataset = assemble(tmp_path)
    assert dataset.lower is not None and dataset.upper is not None
    children_only = dataset.occurrences == 0
    assert children_only.any()
    assert np.isnan(dataset.outcome[children_only]).all()
    assert not np.isnan(dataset.lower[children_only]).any()
    assert (dataset.lower <= dataset.upper)[~np.isnan(dataset.lower)].all()
    interval = targets(dataset, TrainConfig(labelling="interval", outcome_weight=0.25))
    assert interval.usable.sum() > (~children_only).sum()
    # A root child: its interval alone.
    assert np.array_equal(interval.lower[children_only], dataset.lower[children_only])
    # A searched position with an outcome: the interval shifted towards the outcome.
    both = ~children_only & ~np.isnan(dataset.lower).any(axis=1) & ~dataset.exact
    expected = 0.25 * dataset.outcome[both] + 0.75 * dataset.lower[both]
    assert np.allclose(interval.lower[both], expected)
    # The point labellings leave the children out.
    assert not targets(dataset, TrainConfig(labelling="mix")).usable[children_only].any()


def test_a_point_target_is_an_interval_of_width_zero() -> None:
    dataset = Dataset(
        game="tic_tac_toe",
        observation_shape=(3, 3, 3),
        features=np.zeros((2, 30), dtype=np.float32),
        outcome=np.array([[1.0, -1.0], [0.0, 0.0]], dtype=np.float32),
        search=np.array([[0.5, -0.5], [np.nan, np.nan]], dtype=np.float32),
        games=np.array([0, 1]),
        occurrences=np.array([1, 1]),
        meta={},
    )
    mixed = targets(dataset, TrainConfig(labelling="mix", outcome_weight=0.5))
    assert np.array_equal(mixed.lower, mixed.upper)
    assert np.allclose(mixed.lower, [[0.75, -0.75], [0.0, 0.0]])
    with pytest.raises(ValueError, match="labelling 'interval' needs the searches' intervals"):
        targets(dataset, TrainConfig(labelling="interval"))


@pytest.mark.parametrize(
    "game_string",
    [
        "connect_four",
        "tic_tac_toe",
        "breakthrough(rows=5,columns=5)",
        "amazons",
        "clobber",
        "clobber(rows=4,columns=5)",
        "clobber(rows=4,columns=4)",
        "othello",
        "hex(num_rows=5,num_cols=5)",
        "hex(num_rows=4,num_cols=6)",
        "hex(num_rows=5,num_cols=5,plain_obs_tensor=true)",
    ],
)
def test_mirror_features_are_the_features_of_the_mirrored_position(game_string: str) -> None:
    """Brute force: replay random games on a second board, each move replaced by the legal
    move whose child's observation is the mirror image of the original child's (as OpenSpiel
    shows it: in amazons the input after choosing an amazon is its parent's, the lifted amazon
    back on its cell, whichever is chosen)."""
    game = pyspiel.load_game(game_string)
    assert game.get_type().short_name in MIRRORS
    assert symmetry_of(game) is not None
    features, observed = Features(game), Features(game, lifted_view="observed")
    rng = np.random.default_rng(0)
    for _ in range(5):
        state, mirror = game.new_initial_state(), game.new_initial_state()
        while not state.is_terminal():
            for view in (features, observed):
                original = view.of(state)[None, :]
                assert np.array_equal(mirror_features(game, original)[0], view.of(mirror))
            action = int(rng.choice(state.legal_actions()))
            state.apply_action(action)
            if state.is_terminal():
                break
            wanted = mirror_features(game, observed.of(state)[None, :])[0]
            matches = [
                move
                for move in mirror.legal_actions()
                if not mirror.child(move).is_terminal()
                and np.array_equal(observed.of(mirror.child(move)), wanted)
            ]
            assert len(matches) == 1
            mirror.apply_action(matches[0])


def test_mirror_is_refused_for_a_game_without_that_symmetry() -> None:
    with pytest.raises(ValueError, match="mirror = true needs a game whose positions have a"):
        check_mirror(pyspiel.load_game("chinese_checkers"))
    with pytest.raises(ValueError, match=r"hex\(.*swap=True.*\) is not one of"):
        check_mirror(pyspiel.load_game("hex(swap=true)"))


def test_training_on_intervals_with_mirror_images(tmp_path: Path) -> None:
    pytest.importorskip("jax", reason="the jax extra is not installed")
    from spiel_bounded.evaluators.value_net.config import ModelConfig
    from spiel_bounded.evaluators.value_net.layout import layout_for
    from spiel_bounded.evaluators.value_net.outputs import output_form
    from spiel_bounded.training.train import train_network

    game = pyspiel.load_game("tic_tac_toe")
    generate(tic_tac_toe(2, games=6), tmp_path, executor="inline")
    dataset = assemble(tmp_path)
    layout, form = layout_for(game, ModelConfig(kind="mlp", width=8, depth=1)), output_form(game)
    plain = TrainConfig(labelling="interval", max_epochs=3, validation_fraction=0.3, seed=1)
    mirrored = TrainConfig(**{**plain.__dict__, "mirror": True})
    once, twice = (train_network(dataset, layout, form, config) for config in (plain, mirrored))
    assert twice.train_positions == 2 * once.train_positions
    assert twice.validation_positions == once.validation_positions
    assert all(np.isfinite([epoch.train, epoch.validation]).all() for epoch in twice.history)


def test_batches_gather_rows_and_mirror_the_numbered_images() -> None:
    """`Rows` numbers the mirror of `rows[j]` after the dataset and mirrors it on gathering:
    the features `mirror_features` gives, the row's own bounds; plain rows come as they are."""
    game = pyspiel.load_game("connect_four")
    features = Features(game)
    rng = np.random.default_rng(7)
    states = [game.new_initial_state() for _ in range(6)]
    for state in states:
        for _ in range(int(rng.integers(1, 9))):
            state.apply_action(int(rng.choice(state.legal_actions())))
    table = np.stack([features.of(state) for state in states])
    lower, upper = rng.random((6, 2)), rng.random((6, 2)) + 1.0
    rows = Rows(table, lower, upper)
    chosen = np.array([4, 1, 5])
    numbers = rows.with_mirrors(game, chosen)
    np.testing.assert_array_equal(numbers, [4, 1, 5, 6, 7, 8])
    batch = np.array([7, 0, 6, 8, 5])
    got, low, high = rows.batch(batch)
    sources = np.array([1, 0, 4, 5, 5])
    wanted = table[sources].copy()
    wanted[[0, 2, 3]] = mirror_features(game, table[[1, 4, 5]])
    np.testing.assert_array_equal(got, wanted)
    assert not np.array_equal(got[0], table[1])  # a real mirror image, not the row itself
    np.testing.assert_array_equal(low, lower[sources])
    np.testing.assert_array_equal(high, upper[sources])
    np.testing.assert_array_equal(table, np.stack([features.of(state) for state in states]))
