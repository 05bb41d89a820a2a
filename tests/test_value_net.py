"""Value networks as evaluators: features, bounded outputs, checkpoints and inference.

The tests that run the network in JAX are skipped (with the reason) only when the jax extra is
absent; `make test` installs it, so CI runs them. Self-play, datasets and training:
`test_training.py`.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

import numpy as np
import pyspiel
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spiel_bounded import load_bot
from spiel_bounded.evaluators import make_evaluator
from spiel_bounded.evaluators.base import check_values
from spiel_bounded.evaluators.value_net import (
    Checkpoint,
    ModelConfig,
    ValueNetEvaluator,
    load_checkpoint,
    save_checkpoint,
)
from spiel_bounded.evaluators.value_net.compiled import numba_available
from spiel_bounded.evaluators.value_net.features import CHANCE_VIEWS, Features, next_mover
from spiel_bounded.evaluators.value_net.layout import Layout, layout_for
from spiel_bounded.evaluators.value_net.lifted import LIFTED_VIEWS
from spiel_bounded.evaluators.value_net.numpy_net import NumpyNetwork
from spiel_bounded.evaluators.value_net.outputs import output_form
from spiel_bounded.games import game_info
from spiel_bounded.testing import random_positions
from tests.markers import needs_jax

GAMES = (
    "connect_four",
    "tic_tac_toe",
    "breakthrough(rows=5,columns=5)",
    "backgammon",
    "pig",
    "pig(players=4)",
    "chinese_checkers(players=3)",
    "maedn(players=4)",
    "yacht(players=3)",
)


def random_params(layout: Layout, seed: int, scale: float = 0.5) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {
        name: (scale * rng.standard_normal(shape)).astype(np.float32)
        for name, shape in layout.shapes().items()
    }


def trained_scale_params(layout: Layout, seed: int) -> dict[str, np.ndarray]:
    """Random parameters of the scale training gives (weights ~ 1 / sqrt(fan in)), so raw
    outputs are of order 1, as a trained network's are."""
    rng = np.random.default_rng(seed)
    return {
        name: (rng.standard_normal(shape) / np.sqrt(np.prod(shape[:-1]) or 1)).astype(np.float32)
        for name, shape in layout.shapes().items()
    }


def write_checkpoint(
    path: Path,
    game: pyspiel.Game,
    model: ModelConfig,
    seed: int = 0,
    *,
    trained_scale: bool = False,
) -> Path:
    layout = layout_for(game, model)
    features = Features(game)
    make = trained_scale_params if trained_scale else random_params
    return save_checkpoint(
        path,
        Checkpoint(
            game=game_info(game).description,
            observation_shape=features.observation_shape,
            model=model,
            params=make(layout, seed),
        ),
    )


# -- outputs and features ------------------------------------------------------------------


@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=40, deadline=None)
@given(raw=st.lists(st.floats(-60, 60), min_size=4, max_size=4))
def test_outputs_stay_in_range_and_keep_the_constant_sum(name: str, raw: list[float]) -> None:
    game = pyspiel.load_game(name)
    form = output_form(game)
    values = form.values(np.asarray([raw[: form.outputs]], dtype=np.float64), np)[0]
    assert len(values) == game.num_players()
    assert np.all(values >= game.min_utility() - 1e-9)
    assert np.all(values <= game.max_utility() + 1e-9)
    assert abs(values.sum() - form.total) < 1e-9
    one = form.values_of_one(np.asarray(raw[: form.outputs]))
    assert np.allclose(one, values)


def test_shares_floor_is_the_smallest_the_range_allows() -> None:
    # pig with 4 players: the winner gets 1 and the rest -1/3 each; a floor of -1 (declared)
    # would let a share exceed 1.
    form = output_form(pyspiel.load_game("pig(players=4)"))
    assert form.form == "shares"
    assert form.low == pytest.approx(-1 / 3)
    assert output_form(pyspiel.load_game("connect_four")).form == "mirror"


def test_features_mark_the_mover_and_chance() -> None:
    game = pyspiel.load_game("pig")
    features = Features(game)
    assert features.chance_view == CHANCE_VIEWS[0] == "next_mover"
    state = game.new_initial_state()
    vector = features.of(state)
    assert vector.shape == (features.size,)
    assert vector[features.observation_size :].tolist() == [1.0, 0.0, 0.0]
    assert vector[: features.observation_size].tolist() == state.observation_tensor(0)
    state.apply_action(0)  # roll: a chance node
    assert state.is_chance_node()
    # The first outcome is a 1, which passes the turn: player 1 observes, with the chance bit.
    assert next_mover(state) == 1
    vector = features.of(state)
    assert vector[features.observation_size :].tolist() == [0.0, 1.0, 1.0]
    assert vector[: features.observation_size].tolist() == state.observation_tensor(1)
    out = np.zeros(features.size, np.float32)
    features.writer(out)(state)
    assert np.array_equal(out, features.of(state))
    old = Features(game, "player_0").of(state)
    assert old[features.observation_size :].tolist() == [0.0, 0.0, 1.0]
    assert old[: features.observation_size].tolist() == state.observation_tensor(0)


def test_backgammon_inputs_say_who_rolls_next() -> None:
    # The observation of a chance node has no turn or dice bits: without the next mover the
    # same board with either side about to roll would be one input.
    game = pyspiel.load_game("backgammon")
    features = Features(game)
    size = features.observation_size
    seen = set()
    for state in random_positions(game, 60, plies=(1, 80), seed=4, decisions_only=False):
        if not state.is_chance_node():
            continue
        previous = int(str(state).split("Previous player: ")[1].split("\n")[0])
        if previous < 0:
            continue
        roller = 1 - previous
        vector = features.of(state)
        assert vector[size:].tolist() == [float(roller == 0), float(roller == 1), 1.0]
        assert vector[:size].tolist() == state.observation_tensor(roller)
        seen.add(roller)
    assert seen == {0, 1}


@pytest.mark.parametrize("size", [6, 10])
def test_the_lifted_amazon_is_back_on_its_cell_in_the_restored_view(size: int) -> None:
    # After a turn's first action OpenSpiel's observation shows the chosen amazon's cell empty;
    # the restored view shows the board before it, the same mover: the parent's input.
    game = pyspiel.load_game(f"amazons(board_size={size})")
    restored, observed = Features(game), Features(game, lifted_view="observed")
    assert restored.lifted_view == LIFTED_VIEWS[0] == "restored"
    checked = 0
    for state in random_positions(game, 40, plies=(0, 60), seed=size):
        while len(state.history()) % 3 != 0:
            state.apply_action(state.legal_actions()[0])
        if state.is_terminal():
            continue
        for action in state.legal_actions()[:3]:
            lifted = state.child(action)
            assert np.array_equal(restored.of(lifted), restored.of(state))
            seen = observed.of(lifted)
            assert np.array_equal(seen[: observed.observation_size], lifted.observation_tensor(0))
            assert not np.array_equal(seen, observed.of(state))  # one amazon fewer
            moved = lifted.child(lifted.legal_actions()[0])  # the turn's later actions: as seen
            assert np.array_equal(restored.of(moved), observed.of(moved))
            checked += 1
    assert checked > 60


def test_the_lifted_view_changes_no_other_game() -> None:
    for name in ("breakthrough", "clobber", "hex(board_size=5)"):
        game = pyspiel.load_game(name)
        restored, observed = Features(game), Features(game, lifted_view="observed")
        for state in random_positions(game, 20, plies=(0, 20), seed=1):
            assert np.array_equal(restored.of(state), observed.of(state))


def test_an_unknown_lifted_view_is_refused(tmp_path: Path) -> None:
    game = pyspiel.load_game("amazons(board_size=6)")
    with pytest.raises(ValueError, match="unknown lifted view 'x'; accepted: restored, observed"):
        Features(game, lifted_view="x")
    checkpoint = load_checkpoint(write_checkpoint(tmp_path / "n.npz", game, ModelConfig(width=4)))
    save_checkpoint(tmp_path / "bad.npz", replace(checkpoint, lifted_view="x"))
    with pytest.raises(ValueError, match="unknown lifted view 'x'; accepted: restored, observed"):
        load_checkpoint(tmp_path / "bad.npz")


def test_amazons_checkpoints_from_before_lifted_views_keep_their_inputs() -> None:
    # The committed amazons networks were trained on OpenSpiel's observation as it is, the lifted
    # amazon missing: they are still fed that way.
    game = pyspiel.load_game("amazons")
    evaluator = ValueNetEvaluator(game, "results/models/amazons_heuristic", engine="numpy")
    assert evaluator.checkpoint.lifted_view == "observed"
    observed = Features(game, lifted_view="observed")
    network = NumpyNetwork(evaluator.layout, evaluator.checkpoint.params)
    states = random_positions(game, 12, plies=(1, 40), seed=5)
    assert any(len(state.history()) % 3 == 1 for state in states)
    for state in states:
        raw = network(observed.of(state)[None])[0]
        np.testing.assert_allclose(evaluator.raw(state), raw, rtol=1e-6, atol=1e-6)


def test_an_unknown_chance_view_is_refused(tmp_path: Path) -> None:
    game = pyspiel.load_game("pig")
    with pytest.raises(ValueError, match="unknown chance view 'x'; accepted: next_mover, player_0"):
        Features(game, "x")
    checkpoint = load_checkpoint(write_checkpoint(tmp_path / "n.npz", game, ModelConfig(width=4)))
    save_checkpoint(tmp_path / "bad.npz", replace(checkpoint, chance_view="x"))
    with pytest.raises(ValueError, match="unknown chance view 'x'; accepted: next_mover"):
        load_checkpoint(tmp_path / "bad.npz")


def test_game_without_observation_tensor_is_refused() -> None:
    with pytest.raises(ValueError, match="no observation tensor"):
        Features(pyspiel.load_game("morpion_solitaire"))


def naive_conv_network(layout: Layout, params: dict[str, np.ndarray], x: np.ndarray) -> np.ndarray:
    """The same network written as plain loops: the oracle for the gather-based convolution."""
    planes, rows, columns = layout.observation_shape
    size = layout.observation_size
    board = x[:size].reshape(planes, rows, columns).transpose(1, 2, 0)
    for index in range(layout.model.conv_layers):
        kernel, bias = params[f"conv_{index}/kernel"], params[f"conv_{index}/bias"]
        out = np.zeros((rows, columns, kernel.shape[3]))
        for r in range(rows):
            for c in range(columns):
                for kr in range(3):
                    for kc in range(3):
                        rr, cc = r + kr - 1, c + kc - 1
                        if 0 <= rr < rows and 0 <= cc < columns:
                            out[r, c] += board[rr, cc] @ kernel[kr, kc]
        board = np.maximum(out + bias, 0.0)
    hidden = np.concatenate([board.reshape(-1), x[size:]])
    for index in range(layout.model.depth):
        hidden = np.maximum(
            hidden @ params[f"dense_{index}/kernel"] + params[f"dense_{index}/bias"], 0.0
        )
    return hidden @ params["out/kernel"] + params["out/bias"]


def test_numpy_convolution_matches_plain_loops() -> None:
    game = pyspiel.load_game("connect_four")
    layout = layout_for(game, ModelConfig(kind="conv", channels=5, conv_layers=2, width=7, depth=1))
    params = random_params(layout, 3)
    network = NumpyNetwork(layout, params)
    features = Features(game)
    states = random_positions(game, 4, plies=(0, 20), seed=1)
    batch = np.stack([features.of(state) for state in states])
    expected = np.stack([naive_conv_network(layout, params, row) for row in batch])
    assert np.allclose(network(batch), expected, atol=1e-4)


def test_conv_needs_a_board_observation() -> None:
    with pytest.raises(ValueError, match="use kind = mlp"):
        layout_for(pyspiel.load_game("backgammon"), ModelConfig(kind="conv"))


# -- checkpoints ---------------------------------------------------------------------------


def test_checkpoint_round_trip(tmp_path: Path) -> None:
    game = pyspiel.load_game("connect_four")
    path = write_checkpoint(tmp_path / "net.npz", game, ModelConfig(width=8, depth=1))
    loaded = load_checkpoint(path, game)
    assert loaded.game == "connect_four"
    assert loaded.model == ModelConfig(width=8, depth=1)
    assert loaded.observation_shape == (3, 6, 7)
    assert loaded.chance_view == "next_mover"
    player_0 = save_checkpoint(tmp_path / "old.npz", replace(loaded, chance_view="player_0"))
    assert load_checkpoint(player_0).chance_view == "player_0"
    assert loaded.lifted_view == "restored"
    observed = save_checkpoint(tmp_path / "observed.npz", replace(loaded, lifted_view="observed"))
    assert load_checkpoint(observed).lifted_view == "observed"


def test_a_checkpoint_from_before_chance_views_keeps_its_inputs() -> None:
    # The committed backgammon network was trained before the field: player 0 observed every
    # chance node, and it is still fed that way.
    game = pyspiel.load_game("backgammon")
    evaluator = ValueNetEvaluator(game, "results/models/backgammon", engine="numpy")
    assert evaluator.checkpoint.chance_view == "player_0"
    old = Features(game, "player_0")
    network = NumpyNetwork(evaluator.layout, evaluator.checkpoint.params)
    states = random_positions(game, 30, plies=(1, 60), seed=5, decisions_only=False)
    assert any(state.is_chance_node() for state in states)
    for state in states:
        raw = network(old.of(state)[None])[0]
        np.testing.assert_allclose(evaluator.raw(state), raw, rtol=1e-6, atol=1e-6)


def test_checkpoint_for_another_game_or_shape_is_refused(tmp_path: Path) -> None:
    path = write_checkpoint(tmp_path / "net.npz", pyspiel.load_game("connect_four"), ModelConfig())
    with pytest.raises(ValueError, match="trained on connect_four, not on tic_tac_toe"):
        load_checkpoint(path, pyspiel.load_game("tic_tac_toe"))
    with pytest.raises(ValueError, match="trained on connect_four"):
        load_bot("bounded_ab", "tic_tac_toe", 0, evaluator=f"net:{path}", depth=1)
    other = pyspiel.load_game("connect_four(rows=5)")
    fake = load_checkpoint(path)
    with pytest.raises(ValueError, match="trained on connect_four"):
        ValueNetEvaluator(other, path)
    shifted = Checkpoint(
        game="connect_four(rows=5)",
        observation_shape=fake.observation_shape,
        model=fake.model,
        params=fake.params,
    )
    save_checkpoint(tmp_path / "shape.npz", shifted)
    with pytest.raises(ValueError, match="expects observations of shape"):
        load_checkpoint(tmp_path / "shape.npz", other)
    # The same game spelt with its defaults is the same game, either way round.
    spelt = pyspiel.load_game("connect_four(rows=6,columns=7)")
    assert load_checkpoint(path, spelt).game == "connect_four"
    assert ValueNetEvaluator(spelt, path).checkpoint.game == "connect_four"
    plain = save_checkpoint(tmp_path / "spelt.npz", replace(fake, game=str(spelt)))
    assert load_checkpoint(plain, pyspiel.load_game("connect_four")).game == str(spelt)


def test_truncated_corrupted_and_foreign_files_are_refused(tmp_path: Path) -> None:
    game = pyspiel.load_game("connect_four")
    path = write_checkpoint(tmp_path / "net.npz", game, ModelConfig(width=8, depth=1))
    data = path.read_bytes()
    (tmp_path / "truncated.npz").write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match="truncated, corrupted or of another kind"):
        load_checkpoint(tmp_path / "truncated.npz")
    # Change one parameter and keep the recorded checksum: the contents no longer match it.
    with np.load(path) as archive:
        arrays = {name: archive[name] for name in archive.files}
    arrays["out/bias"] = arrays["out/bias"] + 1.0
    np.savez_compressed(tmp_path / "tampered.npz", **arrays)
    with pytest.raises(ValueError, match="checksum does not match"):
        load_checkpoint(tmp_path / "tampered.npz")
    np.savez(tmp_path / "foreign.npz", weights=np.zeros(3))
    with pytest.raises(ValueError, match="not a readable value-network checkpoint"):
        load_checkpoint(tmp_path / "foreign.npz")
    with pytest.raises(ValueError, match="no such file"):
        make_evaluator(f"net:{tmp_path / 'missing.npz'}", game)


def test_an_unchanged_checkpoint_is_read_once_and_a_rewritten_one_again(tmp_path: Path) -> None:
    """Self-play loads the same network for every seat of every game: the second load of an
    unchanged file shares the first's read-only arrays; a file written since is read again."""
    game = pyspiel.load_game("tic_tac_toe")
    path = write_checkpoint(tmp_path / "net.npz", game, ModelConfig(width=4, depth=1))
    first = load_checkpoint(path, game)
    assert load_checkpoint(path, game).params is first.params
    assert not first.params["out/bias"].flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        first.params["out/bias"][0] = 1.0
    write_checkpoint(path, game, ModelConfig(width=6, depth=1))
    again = load_checkpoint(path, game)
    assert again.model == ModelConfig(width=6, depth=1)
    assert again.params["out/bias"].shape == (1,) and again.params is not first.params


def test_a_directory_is_the_training_run_that_holds_model_npz(tmp_path: Path) -> None:
    """Issue 23: a directory was reported as "(no such file)"; training writes DIR/model.npz."""
    game = pyspiel.load_game("tic_tac_toe")
    (tmp_path / "empty").mkdir()
    for spec in (f"net:{tmp_path / 'empty'}", f"net:{tmp_path}"):
        with pytest.raises(
            ValueError,
            match=r"is a directory, not a value-network checkpoint.*"
            r"training writes as model\.npz .* holds no model\.npz",
        ):
            load_bot("bounded_ab", game, 0, evaluator=spec, depth=1)
    path = write_checkpoint(tmp_path / "run" / "model.npz", game, ModelConfig(width=4, depth=1))
    evaluator = make_evaluator(f"net:{tmp_path / 'run'}", game)
    assert isinstance(evaluator, ValueNetEvaluator)
    assert evaluator.path == path
    assert load_checkpoint(tmp_path / "run", game).model == ModelConfig(width=4, depth=1)
    bot = load_bot("bounded_ab", game, 0, evaluator=f"net:{tmp_path / 'run'}", depth=1)
    state = game.new_initial_state()
    assert bot.step(state) in state.legal_actions()


def test_a_file_that_is_not_an_npz_archive_is_said_to_be_no_checkpoint(tmp_path: Path) -> None:
    """Issue 23: the error repeated numpy's advice to load pickled data with allow_pickle."""
    (tmp_path / "notes.txt").write_text("not a network\n")
    np.save(tmp_path / "array.npy", np.zeros(3))
    (tmp_path / "empty.npz").write_bytes(b"")
    for name in ("notes.txt", "array.npy", "empty.npz"):
        with pytest.raises(ValueError) as error:
            load_checkpoint(tmp_path / name)
        message = str(error.value)
        assert f"{name}' is not a value-network checkpoint" in message
        assert "a checkpoint is a .npz file" in message and "not an .npz archive" in message
        assert "pickle" not in message
    np.savez(tmp_path / "dataset.npz", features=np.zeros(2), meta=np.zeros(1))
    with pytest.raises(
        ValueError,
        match=r"an \.npz archive without a checkpoint's metadata \(its arrays: "
        r"features, meta\)",
    ):
        make_evaluator(f"net:{tmp_path / 'dataset.npz'}", pyspiel.load_game("tic_tac_toe"))


def test_every_flipped_byte_gives_the_clear_error(tmp_path: Path) -> None:
    game = pyspiel.load_game("tic_tac_toe")
    path = write_checkpoint(tmp_path / "net.npz", game, ModelConfig(width=4, depth=1))
    data = path.read_bytes()
    rng = np.random.default_rng(0)
    for offset in rng.choice(len(data), size=120, replace=False):
        broken = bytearray(data)
        broken[offset] ^= 0xFF
        (tmp_path / "broken.npz").write_bytes(bytes(broken))
        try:
            load_checkpoint(tmp_path / "broken.npz", game)
        except ValueError as error:
            assert "broken.npz" in str(error)
        # A flip in an unused byte (zip padding, a file comment) may leave the file intact.


def test_parameters_that_do_not_fit_the_config_are_refused(tmp_path: Path) -> None:
    game = pyspiel.load_game("connect_four")
    layout = layout_for(game, ModelConfig(width=8, depth=1))
    params = random_params(layout, 0)
    params["dense_0/kernel"] = params["dense_0/kernel"][:, :4]
    save_checkpoint(
        tmp_path / "net.npz",
        Checkpoint(
            game="connect_four",
            observation_shape=(3, 6, 7),
            model=ModelConfig(width=8, depth=1),
            params=params,
        ),
    )
    with pytest.raises(ValueError, match="mismatched dense_0/kernel"):
        ValueNetEvaluator(game, tmp_path / "net.npz")


def test_a_reserved_parameter_name_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="is reserved and cannot name a parameter"):
        save_checkpoint(
            tmp_path / "net.npz",
            Checkpoint(
                game="tic_tac_toe",
                observation_shape=(3, 3, 3),
                model=ModelConfig(),
                params={"__meta__": np.zeros(1)},
            ),
        )


def test_unknown_evaluator_names_the_accepted_ones() -> None:
    with pytest.raises(ValueError, match="net:PATH"):
        load_bot("bounded_ab", "connect_four", 0, evaluator="network")
    with pytest.raises(ValueError, match="net:PATH"):
        make_evaluator("net:", pyspiel.load_game("connect_four"))


# -- the evaluator in searches (numpy only) --------------------------------------------------


@pytest.mark.parametrize("name", GAMES)
def test_evaluator_values_are_in_range_with_constant_sum(name: str, tmp_path: Path) -> None:
    game = pyspiel.load_game(name)
    path = write_checkpoint(tmp_path / "net.npz", game, ModelConfig(width=16, depth=2), seed=5)
    evaluator = ValueNetEvaluator(game, path)
    info = game_info(game)
    form = output_form(game)
    states = random_positions(game, 12, plies=(0, 30), seed=2, decisions_only=False)
    for state in states:
        values = evaluator.evaluate(state)
        check_values(values, evaluator, info)
        if form.form != "independent":
            assert sum(values) == pytest.approx(form.total, abs=1e-5)
    batch = evaluator.evaluate_batch(states, use_jax=False)
    assert np.allclose(batch, [evaluator.evaluate(state) for state in states], atol=1e-6)


@pytest.mark.parametrize(
    ("bot", "name", "params"),
    [
        ("bounded_ab", "connect_four", {"depth": 2}),
        ("babmcts", "connect_four", {"simulations": 30}),
        ("bounded_star2", "pig", {"depth": 2}),
        ("maxn", "chinese_checkers(players=3)", {"depth": 2}),
        ("paranoid", "maedn(players=3)", {"depth": 1}),
        ("mp_mix", "pig(players=3)", {"depth": 2}),
    ],
)
def test_every_kind_of_bot_takes_a_network(
    bot: str, name: str, params: dict[str, int], tmp_path: Path
) -> None:
    game = pyspiel.load_game(name)
    path = write_checkpoint(tmp_path / "net.npz", game, ModelConfig(width=16, depth=1))
    player_bot = load_bot(bot, game, 0, evaluator=f"net:{path}", **params)
    states = random_positions(game, 30, plies=(0, 8), seed=4)
    state = next(state for state in states if state.current_player() == 0)
    assert player_bot.step(state) in state.legal_actions()


def test_committed_tournament_configs_are_valid() -> None:
    from spiel_bounded.arena.config import load_config

    for name in ("value_net_connect_four", "value_net_connect_four_nodes", "value_net_backgammon"):
        config = load_config(Path("configs") / f"{name}.toml")
        assert any("net:" in str(entry.params.get("evaluator")) for entry in config.tournament.bots)


# -- the compiled forward pass ------------------------------------------------------------------

needs_numba = pytest.mark.skipif(
    not numba_available(), reason="numba is not installed: pip install '.[fast]'"
)
COMPILED_CASES = [
    ("connect_four", ModelConfig(kind="conv", channels=6, conv_layers=2, width=12, depth=2)),
    ("breakthrough(rows=5,columns=5)", ModelConfig(kind="conv", channels=4, conv_layers=1)),
    ("tic_tac_toe", ModelConfig(kind="conv", channels=3, conv_layers=3, width=8, depth=0)),
    ("connect_four", ModelConfig(width=32, depth=3)),
    ("backgammon", ModelConfig(width=24, depth=2)),
    ("pig(players=4)", ModelConfig(width=16, depth=1)),
    ("chinese_checkers(players=3)", ModelConfig(width=16, depth=1)),
    ("yacht(players=3)", ModelConfig(width=16, depth=0)),
]


@needs_numba
@pytest.mark.parametrize(("name", "model"), COMPILED_CASES)
def test_compiled_and_numpy_inference_agree(name: str, model: ModelConfig, tmp_path: Path) -> None:
    game = pyspiel.load_game(name)
    path = write_checkpoint(tmp_path / "net.npz", game, model, seed=3, trained_scale=True)
    compiled = ValueNetEvaluator(game, path, engine="compiled")
    reference = ValueNetEvaluator(game, path, engine="numpy")
    assert (compiled.engine, reference.engine) == ("compiled", "numpy")
    states = random_positions(game, 40, plies=(0, 40), seed=6, decisions_only=False)
    for state in states:
        # float32 sums in another order: a few ulps of the raw output
        np.testing.assert_allclose(compiled.raw(state), reference.raw(state), rtol=1e-6, atol=1e-6)
        assert np.abs(np.subtract(compiled.evaluate(state), reference.evaluate(state))).max() < 1e-6


@pytest.mark.parametrize("engine", ["compiled", "numpy"])
@pytest.mark.parametrize(("name", "model"), COMPILED_CASES[:1] + COMPILED_CASES[4:6])
def test_leaf_value_is_evaluate_to_the_last_bit(
    engine: str, name: str, model: ModelConfig, tmp_path: Path
) -> None:
    if engine == "compiled" and not numba_available():
        pytest.skip("numba is not installed")
    game = pyspiel.load_game(name)
    evaluator = ValueNetEvaluator(
        game, write_checkpoint(tmp_path / "n.npz", game, model), engine=engine
    )
    leaf_values = [evaluator.leaf_value(player) for player in range(game.num_players())]
    for state in random_positions(game, 30, plies=(0, 30), seed=8):
        values = evaluator.evaluate(state)
        assert [leaf_value(state) for leaf_value in leaf_values] == list(values)


@needs_numba
@pytest.mark.parametrize("name", ["connect_four", "backgammon"])
def test_the_committed_networks_run_compiled_as_in_numpy(name: str) -> None:
    game = pyspiel.load_game(name)
    path = Path("results/models") / name
    compiled = ValueNetEvaluator(game, path)
    reference = ValueNetEvaluator(game, path, engine="numpy")
    assert compiled.engine == "compiled"  # "auto" with numba installed
    for state in random_positions(game, 100, plies=(0, 40), seed=12):
        assert np.abs(np.subtract(compiled.evaluate(state), reference.evaluate(state))).max() < 1e-6


@needs_numba
@pytest.mark.parametrize(
    ("name", "model", "plies"),
    [
        ("connect_four", ModelConfig(width=32, depth=2), 30),
        ("connect_four", ModelConfig(kind="conv", channels=4, conv_layers=1, width=8), 30),
        ("connect_four(rows=5,columns=6,x_in_row=3)", ModelConfig(width=16, depth=1), 12),
        # No line of 4 fits: every full board is a draw.
        ("connect_four(rows=3,columns=3,x_in_row=4)", ModelConfig(width=8, depth=0), 9),
        ("tic_tac_toe", ModelConfig(kind="conv", channels=3, conv_layers=2, width=8), 9),
        ("tic_tac_toe", ModelConfig(width=16, depth=2), 9),
        ("breakthrough", ModelConfig(width=16, depth=2), 60),
        ("breakthrough(rows=5,columns=4)", ModelConfig(kind="conv", channels=3, width=8), 30),
        ("breakthrough(rows=4,columns=3)", ModelConfig(width=8, depth=1), 20),
    ],
)
def test_children_from_the_parent_equal_evaluate_on_the_child(
    name: str, model: ModelConfig, plies: int, tmp_path: Path
) -> None:
    """Every move of many positions, for both players, terminal children (wins, draws on
    full boards) included."""
    game = pyspiel.load_game(name)
    path = write_checkpoint(tmp_path / "n.npz", game, model, seed=4, trained_scale=True)
    evaluator = ValueNetEvaluator(game, path, engine="compiled")
    assert evaluator.child_leaves is not None
    terminal = 0
    for state in random_positions(game, 150, plies=(0, plies), seed=21):
        for player in (0, 1):
            leaves = evaluator.child_leaves(state, player)
            for move in state.legal_actions():
                child = state.child(move)
                if child.is_terminal():
                    expected = (child.player_return(player), True)
                    terminal += 1
                else:
                    expected = (evaluator.evaluate(child)[player], False)
                assert leaves(move) == expected, (str(state), move, player)
    assert terminal > 10


@needs_numba
def test_a_search_is_the_same_with_and_without_children_from_the_parent(tmp_path: Path) -> None:
    from spiel_bounded import Limits, bounded_ab
    from spiel_bounded.search.alphabeta import AlphaBetaSettings

    game = pyspiel.load_game("connect_four")
    path = write_checkpoint(tmp_path / "n.npz", game, ModelConfig(width=16, depth=2), seed=2)
    evaluator = ValueNetEvaluator(game, path, engine="compiled")

    class WithoutChildren:  # the same network, leaves built and evaluated one by one
        name = evaluator.name
        evaluate = evaluator.evaluate
        leaf_value = evaluator.leaf_value

    # The Python engine: "auto" would run the network's C++ twin, which has no children.
    python = AlphaBetaSettings(engine="python")
    for state in random_positions(game, 4, plies=(2, 12), seed=5):
        fast = bounded_ab(state, evaluator=evaluator, limits=Limits(depth=5), settings=python)
        slow = bounded_ab(
            state, evaluator=WithoutChildren(), limits=Limits(depth=5), settings=python
        )
        assert (fast.lower, fast.upper, fast.action, fast.stats.nodes) == (
            slow.lower,
            slow.upper,
            slow.action,
            slow.stats.nodes,
        )


def test_children_from_the_parent_only_where_a_kernel_knows_the_game(tmp_path: Path) -> None:
    model = ModelConfig(width=4, depth=1)
    for name in ("othello", "connect_four(egocentric_obs_tensor=true)"):
        game = pyspiel.load_game(name)
        path = write_checkpoint(tmp_path / "n.npz", game, model)
        assert ValueNetEvaluator(game, path).child_leaves is None, name
    game = pyspiel.load_game("connect_four")
    path = write_checkpoint(tmp_path / "c.npz", game, model)
    assert ValueNetEvaluator(game, path, engine="numpy").child_leaves is None


def test_the_compiled_engine_without_numba_says_which_extra_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from spiel_bounded.evaluators.value_net import evaluator as evaluator_module

    game = pyspiel.load_game("tic_tac_toe")
    path = write_checkpoint(tmp_path / "n.npz", game, ModelConfig(width=4, depth=1))
    monkeypatch.setattr(evaluator_module, "numba_available", lambda: False)
    with pytest.raises(ImportError, match=r"needs numba: pip install 'spiel-bounded\[fast\]'"):
        ValueNetEvaluator(game, path, engine="compiled")
    assert ValueNetEvaluator(game, path).engine == "numpy"  # auto falls back


def test_an_unknown_engine_is_refused(tmp_path: Path) -> None:
    game = pyspiel.load_game("tic_tac_toe")
    path = write_checkpoint(tmp_path / "n.npz", game, ModelConfig(width=4, depth=1))
    with pytest.raises(ValueError, match="unknown engine 'gpu'; accepted: auto, compiled, numpy"):
        ValueNetEvaluator(game, path, engine="gpu")


# -- JAX: batched inference ---------------------------------------------------------------------


@needs_jax
@pytest.mark.parametrize(
    ("name", "model"),
    [
        ("connect_four", ModelConfig(kind="conv", channels=6, conv_layers=2, width=12, depth=1)),
        ("connect_four", ModelConfig(width=12, depth=1, inputs="threats")),
        ("hex(board_size=5)", ModelConfig(width=12, depth=1, inputs="connections")),
        ("amazons(board_size=6)", ModelConfig(width=12, depth=1, inputs="territory")),
        ("clobber", ModelConfig(width=12, depth=1, inputs="contacts")),
        ("backgammon", ModelConfig(width=24, depth=2)),
        ("chinese_checkers(players=3)", ModelConfig(width=16, depth=1)),
        ("yacht(players=3)", ModelConfig(width=16, depth=0)),
    ],
)
def test_numpy_and_jax_inference_agree(name: str, model: ModelConfig, tmp_path: Path) -> None:
    from flax import nnx

    from spiel_bounded.evaluators.value_net.model import ValueNetwork, export_params

    game = pyspiel.load_game(name)
    layout = layout_for(game, model)
    network = ValueNetwork(layout, rngs=nnx.Rngs(7))
    save_checkpoint(
        tmp_path / "net.npz",
        Checkpoint(
            game=game_info(game).description,
            observation_shape=layout.observation_shape,
            model=model,
            params=export_params(network),
        ),
    )
    evaluator = ValueNetEvaluator(game, tmp_path / "net.npz")
    states = random_positions(game, 16, plies=(0, 40), seed=9, decisions_only=False)
    with_jax = evaluator.evaluate_batch(states)
    one_by_one = np.asarray([evaluator.evaluate(state) for state in states])
    assert np.abs(with_jax - one_by_one).max() < 1e-5
    raw = np.asarray(network(evaluator.features(states)))
    assert np.allclose(
        output_form(game).values(raw, np), one_by_one, atol=1e-5
    )  # the Flax module itself, not only its exported parameters


def test_package_works_without_jax(tmp_path: Path) -> None:
    """Hides JAX, Flax and Optax: bots, and a network checkpoint in numpy, still work; training
    says which extra to install."""
    game = pyspiel.load_game("connect_four")
    path = write_checkpoint(tmp_path / "net.npz", game, ModelConfig(width=8, depth=1))
    program = textwrap.dedent(
        f"""
        import importlib.abc, sys
        class Hide(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in ("jax", "jaxlib", "flax", "optax"):
                    raise ImportError(f"hidden {{name}}")
        sys.meta_path.insert(0, Hide())
        import pyspiel
        from spiel_bounded import load_bot
        from spiel_bounded.evaluators.value_net import jax_available
        game = pyspiel.load_game("connect_four")
        bot = load_bot("bounded_ab", game, 0, evaluator="net:{path}", depth=2)
        print("move", bot.step(game.new_initial_state()))
        try:
            import spiel_bounded.training.train
        except ImportError as error:
            print("error", error)
        """
    )
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    done = subprocess.run(
        [sys.executable, "-c", program], check=True, capture_output=True, text=True, env=env
    )
    assert "move " in done.stdout
    assert "pip install 'spiel-bounded[jax]'" in done.stdout
