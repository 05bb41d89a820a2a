"""Value-network training: self-play, the dataset, labels, the run config and Flax training.

The tests that train in JAX are skipped (with the reason) only when the jax extra is absent;
`make test` installs it, so CI runs them.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pyspiel
import pytest

from spiel_bounded import load_bot
from spiel_bounded.evaluators.base import check_values
from spiel_bounded.evaluators.value_net import (
    ModelConfig,
    ValueNetEvaluator,
    load_checkpoint,
)
from spiel_bounded.evaluators.value_net.files import encode_json
from spiel_bounded.evaluators.value_net.layout import layout_for
from spiel_bounded.evaluators.value_net.outputs import output_form
from spiel_bounded.games import game_info
from spiel_bounded.result import GAME_VALUE, SearchResult
from spiel_bounded.runs import Death, InlineExecutor, RunLockedError, locked
from spiel_bounded.testing import random_positions
from spiel_bounded.training import DataConfig, TrainConfig
from spiel_bounded.training import generate as generate_module
from spiel_bounded.training.dataset import (
    assemble,
    finished_games,
    load_dataset,
    save_dataset,
)
from spiel_bounded.training.game_files import chance_search_values
from spiel_bounded.training.generate import SelfPlayJob, check_data_config, generate
from spiel_bounded.training.pipeline import read_run_config
from spiel_bounded.training.selfplay import search_values
from spiel_bounded.training.targets import split_by_game, targets
from tests.markers import needs_jax

# -- data ------------------------------------------------------------------------------------


def test_search_labels_give_each_player_its_value() -> None:
    game = pyspiel.load_game("tic_tac_toe")
    narrow = SearchResult(action=0, lower=0.25, upper=0.35, bounds_on=GAME_VALUE)
    assert search_values(narrow, 1, game) == pytest.approx([-0.3, 0.3])
    assert search_values(narrow, 0, game) == pytest.approx([0.3, -0.3])
    # MCTS or proof-number bounds, or an unfinished iteration: no label.
    wide = SearchResult(action=0, lower=-1.0, upper=1.0, bounds_on=GAME_VALUE)
    assert np.isnan(search_values(wide, 0, game)).all()
    assert np.isnan(search_values(None, 0, game)).all()
    vector = SearchResult(
        action=0, lower=-1.0, upper=2.0, values=(2.0, -1.0, -1.0), bounds_on=GAME_VALUE
    )
    three = pyspiel.load_game("chinese_checkers(players=3)")
    assert search_values(vector, 2, three) == [2.0, -1.0, -1.0]


def test_search_labels_of_an_mcts_bot_are_left_out(tmp_path: Path) -> None:
    generate(
        tiny_data(2, bot="babmcts", bot_params={"simulations": 20}, opening_moves=0),
        tmp_path,
        executor="inline",
    )
    dataset = assemble(tmp_path)
    solved = ~np.isnan(dataset.search).any(axis=1)
    # Only positions BABMCTS proved (bounds at most 10% of the range apart) carry a label.
    assert solved.sum() < len(dataset)


def tiny_data(games: int = 6, **overrides: object) -> DataConfig:
    values: dict[str, object] = {
        "game": "tic_tac_toe",
        "games": games,
        "bot": "bounded_ab",
        "bot_params": {"depth": 2},
        "opening_moves": 1,
        "epsilon": 0.2,
        "seed": 1,
    }
    values.update(overrides)
    return DataConfig(**values)  # type: ignore[arg-type]


def test_generation_resumes_without_replaying_finished_games(tmp_path: Path) -> None:
    calls: list[tuple[int, int]] = []
    assert generate(tiny_data(3), tmp_path, executor="inline") == 3
    first = {
        index: (tmp_path / "games" / f"game_{index:06d}.npz").stat().st_mtime_ns
        for index in range(3)
    }
    (tmp_path / "games" / "game_000004.npz.partial").write_bytes(b"half a game")
    played = generate(
        tiny_data(5), tmp_path, executor="inline", progress=lambda *done: calls.append(done)
    )
    assert played == 2
    assert finished_games(tmp_path) == [0, 1, 2, 3, 4]
    assert calls[0] == (3, 5) and calls[-1] == (5, 5)
    for index, stamp in first.items():
        assert (tmp_path / "games" / f"game_{index:06d}.npz").stat().st_mtime_ns == stamp


def test_generation_is_deterministic_across_executors(tmp_path: Path) -> None:
    generate(tiny_data(4), tmp_path / "inline", executor="inline")
    generate(tiny_data(4), tmp_path / "process", executor="process", workers=2)
    inline, process = assemble(tmp_path / "inline"), assemble(tmp_path / "process")
    assert np.array_equal(inline.features, process.features)
    for name in ("outcome", "search", "lower", "upper"):
        assert np.array_equal(getattr(inline, name), getattr(process, name), equal_nan=True)


def test_generation_on_a_dask_cluster(tmp_path: Path) -> None:
    pytest.importorskip("distributed", reason="the cluster extra is not installed")
    assert generate(tiny_data(3), tmp_path / "dask", executor="dask", workers=1) == 3
    generate(tiny_data(3), tmp_path / "inline", executor="inline")
    assert np.array_equal(
        assemble(tmp_path / "dask").features, assemble(tmp_path / "inline").features
    )


# Seeded runs whose games are pinned by fingerprints recorded before `training/` moved out of
# `evaluators/value_net/` (issue 24, at 76c5523): a deterministic search with random openings and
# moves, a seeded MCTS, a game with dice, and three players.
SEEDED_RUNS: dict[str, dict[str, object]] = {
    "bounded_ab_tic_tac_toe": {"games": 4},
    "babmcts_tic_tac_toe": {
        "games": 3,
        "bot": "babmcts",
        # The fingerprints were recorded with OpenSpiel's playouts (the Python and compiled
        # trees); the native tree's C++ playouts draw another random stream.
        "bot_params": {"simulations": 25, "engine": "python"},
        "opening_moves": 0,
    },
    "bounded_star2_pig": {
        "game": "pig(winscore=15)",
        "games": 2,
        "bot": "bounded_star2",
        "bot_params": {"depth": 1},
        "epsilon": 0.1,
    },
    "maxn_pig_3": {
        "game": "pig(players=3,winscore=10)",
        "games": 2,
        "bot": "maxn",
        "bot_params": {"depth": 1},
    },
}
FINGERPRINTS = Path(__file__).parent / "fixtures" / "selfplay_fingerprints.json"


def game_fingerprints(directory: Path) -> list[str]:
    """SHA-256 of each written game's arrays (dtype, shape and bytes; not the zip's own bytes,
    which carry timestamps; features as float32 values, however compactly stored), in game
    order."""
    digests = []
    for index in finished_games(directory):
        digest = hashlib.sha256()
        with np.load(directory / "games" / f"game_{index:06d}.npz") as archive:
            for name in ("features", "outcome", "search", "keys"):
                array = np.ascontiguousarray(archive[name])
                if name == "features":
                    array = array.astype(np.float32)
                digest.update(f"{name}|{array.dtype.str}|{array.shape}".encode())
                digest.update(array.tobytes())
        digests.append(digest.hexdigest())
    return digests


@pytest.mark.parametrize("run", sorted(SEEDED_RUNS))
def test_seeded_selfplay_writes_the_games_it_wrote_before_the_move(
    run: str, tmp_path: Path
) -> None:
    generate(tiny_data(**SEEDED_RUNS[run]), tmp_path, executor="inline")  # type: ignore[arg-type]
    recorded = json.loads(FINGERPRINTS.read_text())["runs"][run]
    assert game_fingerprints(tmp_path) == recorded


def test_two_generation_runs_into_one_directory_are_refused(tmp_path: Path) -> None:
    with locked(tmp_path), pytest.raises(RunLockedError, match="another run"):
        generate(tiny_data(2), tmp_path, executor="inline")
    assert generate(tiny_data(2), tmp_path, executor="inline") == 2  # lock released


def test_a_game_that_kills_its_worker_twice_is_reported_the_others_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def failing(job: SelfPlayJob, task: int, watch: Any) -> Any:
        if task == 1:
            return job.crashed(task, Death(exitcode=-9, first="killed by SIGKILL"))
        return job.work(task, watch)

    class Crashing(InlineExecutor):
        def run(self, job: Any, tasks: Any, done: Any) -> None:
            for task in tasks:
                done(failing(job, task, None))

    monkeypatch.setattr(generate_module, "make_executor", lambda *args, **kwargs: Crashing())
    with pytest.raises(
        RuntimeError, match=r"1 of 3 self-play game.*game 1's worker process killed"
    ):
        generate(tiny_data(3), tmp_path, executor="inline")
    assert finished_games(tmp_path) == [0, 2]  # the others are written; game 1 replays next run


def test_another_config_in_the_same_directory_is_refused(tmp_path: Path) -> None:
    generate(tiny_data(2), tmp_path, executor="inline")
    with pytest.raises(ValueError, match=r"another config .*epsilon"):
        generate(tiny_data(2, epsilon=0.5), tmp_path, executor="inline")


def test_bad_data_configs_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown bot"):
        generate(tiny_data(bot="no_such_bot"), tmp_path, executor="inline")
    with pytest.raises(ValueError, match="no observation tensor"):
        generate(tiny_data(game="morpion_solitaire", bot="random"), tmp_path, executor="inline")
    with pytest.raises(ValueError, match="unknown executor"):
        generate(tiny_data(), tmp_path, executor="threads")
    with pytest.raises(ValueError, match="epsilon"):
        tiny_data(epsilon=1.5)


def test_dataset_is_deduplicated_and_split_by_game(tmp_path: Path) -> None:
    generate(tiny_data(12), tmp_path, executor="inline")
    dataset = assemble(tmp_path)
    first_game: dict[str, int] = {}
    total = 0
    for index in finished_games(tmp_path):
        with np.load(tmp_path / "games" / f"game_{index:06d}.npz") as archive:
            total += len(archive["keys"])
            for key in archive["keys"].tolist() + archive["child_keys"].tolist():
                first_game.setdefault(key, index)
    assert len(dataset) == len(first_game)  # the empty board alone repeats in every game
    assert sorted(dataset.games.tolist()) == sorted(first_game.values())
    assert dataset.occurrences.sum() == total
    only_children = dataset.occurrences == 0
    assert only_children.any() and np.isnan(dataset.outcome[only_children]).all()
    rows = {row.tobytes() for row in dataset.features}
    assert len(rows) == len(dataset)
    split = split_by_game(dataset, 0.25, seed=0)
    assert set(dataset.games[split.train]).isdisjoint(dataset.games[split.validation])
    assert len(split.train) + len(split.validation) == len(dataset)
    mixed = targets(dataset, TrainConfig(labelling="mix", outcome_weight=0.5))
    searched = ~np.isnan(dataset.search).any(axis=1)
    assert np.array_equal(mixed.lower, mixed.upper, equal_nan=True)
    assert np.allclose(
        mixed.lower[searched], 0.5 * dataset.outcome[searched] + 0.5 * dataset.search[searched]
    )
    assert np.array_equal(mixed.lower[~searched], dataset.outcome[~searched], equal_nan=True)
    only_search = targets(dataset, TrainConfig(labelling="search"))
    assert np.isnan(only_search.lower[~searched]).all()


def test_dataset_file_round_trip_and_corruption(tmp_path: Path) -> None:
    generate(tiny_data(3), tmp_path / "data", executor="inline")
    dataset = assemble(tmp_path / "data")
    path = save_dataset(tmp_path / "dataset.npz", dataset)
    loaded = load_dataset(path)
    assert loaded.game == "tic_tac_toe" and loaded.observation_shape == (3, 3, 3)
    assert np.array_equal(loaded.features, dataset.features)
    assert np.array_equal(loaded.search, dataset.search, equal_nan=True)
    assert loaded.meta["data"]["bot"] == "bounded_ab"
    path.write_bytes(path.read_bytes()[:100])
    with pytest.raises(ValueError, match="not a readable value-network dataset"):
        load_dataset(path)


def test_run_config_errors_name_the_problem(tmp_path: Path) -> None:
    path = tmp_path / "run.toml"
    path.write_text('[data]\ngame = "connect_four"\n[modle]\nwidth = 3\n')
    with pytest.raises(ValueError, match=r"unknown section.*modle"):
        read_run_config(path)
    path.write_text('[model]\nwidht = 3\n[output]\ndirectory = "a"\ndata_directory = "b"\n')
    with pytest.raises(ValueError, match=r"\[model\] widht: unknown key; accepted: kind"):
        read_run_config(path)
    path.write_text('[model]\nkind = "rnn"\n[output]\ndirectory = "a"\ndata_directory = "b"\n')
    with pytest.raises(ValueError, match=r"\[model\] kind: must be one of mlp, conv; got 'rnn'"):
        read_run_config(path)
    path.write_text('[data]\nepsilon = 2\n[output]\ndirectory = "a"\ndata_directory = "b"\n')
    with pytest.raises(ValueError, match=r"\[data\] epsilon: must be"):
        read_run_config(path)


def test_a_config_error_is_one_line_naming_the_file_and_the_toml_key(tmp_path: Path) -> None:
    path = tmp_path / "run.toml"
    path.write_text('[model]\nkind = "x"\n[output]\ndirectory = "a"\ndata_directory = "b"\n')
    script = Path(__file__).resolve().parents[1] / "scripts" / "train_value_net.py"
    done = subprocess.run(
        [sys.executable, str(script), f"--config={path}"], capture_output=True, text=True
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"error: {str(path)!r}: [model] kind: must be one of mlp, conv; got 'x'"
    ]


def test_dataset_and_config_errors_name_the_problem(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="workers must be at least 1, got 0"):
        generate(tiny_data(), tmp_path / "a", executor="process", workers=0)
    generate(tiny_data(1), tmp_path / "one", executor="inline")
    dataset = assemble(tmp_path / "one")
    with pytest.raises(ValueError, match="needs positions from at least 2 games"):
        split_by_game(dataset, 0.5, seed=0)
    unsearched = dataclasses.replace(dataset, search=np.full_like(dataset.search, np.nan))
    with pytest.raises(ValueError, match="labelling 'search' needs search values"):
        targets(unsearched, TrainConfig(labelling="search"))
    with pytest.raises(ValueError, match="no finished self-play game"):
        assemble(tmp_path / "one", games=0)
    (tmp_path / "one" / "games" / "game_000000.npz").write_bytes(b"not a game")
    with pytest.raises(ValueError, match=r"game_000000\.npz.* is unreadable.*delete it"):
        assemble(tmp_path / "one")
    with pytest.raises(ValueError, match="cannot read training config"):
        read_run_config(tmp_path / "missing.toml")
    config = tmp_path / "run.toml"
    config.write_text('[output]\ndirectory = "a"\n')
    with pytest.raises(ValueError, match=r"\[output\] needs exactly directory and data_directory"):
        read_run_config(config)


def test_committed_configs_are_valid() -> None:
    configs = sorted(Path("configs").glob("train_value_net_*.toml"))
    assert configs
    for path in configs:
        run = read_run_config(path)
        layout_for(pyspiel.load_game(run.data.game), run.model)


def test_committed_checkpoints_load_and_their_records_read_as_training_configs() -> None:
    """A checkpoint stores its format name and plain mappings, no module path: the networks
    trained before `training/` left `evaluators/value_net/` still load and evaluate, and their
    record's data and training settings still read as `DataConfig` and `TrainConfig`."""
    paths = sorted(Path("results/models").glob("*/model.npz"))
    assert {path.parent.name for path in paths} >= {"connect_four", "backgammon"}
    for path in paths:
        checkpoint = load_checkpoint(path)
        game = pyspiel.load_game(checkpoint.game)
        evaluator = ValueNetEvaluator(game, path)
        for state in random_positions(game, 3, plies=(0, 10), seed=0):
            check_values(evaluator.evaluate(state), evaluator, game_info(game))
        assert DataConfig(**checkpoint.record["data"]).game == checkpoint.game
        TrainConfig(**checkpoint.record["train"])


# -- JAX: training -------------------------------------------------------------------------------


@needs_jax
def test_training_without_labelled_validation_positions_is_refused(tmp_path: Path) -> None:
    from spiel_bounded.training.train import train_network

    generate(tiny_data(4), tmp_path, executor="inline")
    dataset = assemble(tmp_path)
    game = pyspiel.load_game("tic_tac_toe")
    split = split_by_game(dataset, 0.25, seed=0)
    search = dataset.search.copy()
    search[split.validation] = np.nan
    unlabelled = dataclasses.replace(dataset, search=search)
    with pytest.raises(ValueError, match="no labelled position on one side of the split"):
        train_network(
            unlabelled,
            layout_for(game, ModelConfig(width=4, depth=1)),
            output_form(game),
            TrainConfig(labelling="search", validation_fraction=0.25, seed=0),
        )


@needs_jax
def test_tiny_end_to_end_run(tmp_path: Path) -> None:
    from spiel_bounded.training.pipeline import CHECKPOINT_FILE, RunConfig, fit_and_save

    data = tiny_data(40, bot_params={"depth": 3}, epsilon=0.3, opening_moves=2)
    generate(data, tmp_path / "data", executor="inline")
    dataset = assemble(tmp_path / "data")
    run = RunConfig(
        data=data,
        model=ModelConfig(width=32, depth=2),
        train=TrainConfig(batch_size=32, max_epochs=15, patience=15, learning_rate=3e-3),
        directory=tmp_path / "model",
        data_directory=tmp_path / "data",
    )
    record = fit_and_save(dataset, run, command="test")
    assert record["validation_loss"] < record["initial_validation_loss"]
    history = record["history"]
    assert history[-1]["train"] < history[0]["train"]
    assert (tmp_path / "model" / "loss_curve.png").stat().st_size > 1000
    saved = json.loads((tmp_path / "model" / "training.json").read_text())
    assert saved["best_epoch"] == record["best_epoch"]
    path = tmp_path / "model" / CHECKPOINT_FILE
    assert load_checkpoint(path).record["validation_loss"] == record["validation_loss"]
    game = pyspiel.load_game("tic_tac_toe")
    bot = load_bot("bounded_ab", game, 0, evaluator=f"net:{path}", depth=3)
    state = game.new_initial_state()
    assert bot.step(state) in state.legal_actions()
    assert bot.last_result.stats.evaluations > 0


@needs_jax
def test_training_script_runs_and_resumes(tmp_path: Path) -> None:
    config = tmp_path / "run.toml"
    config.write_text(
        textwrap.dedent(
            f"""
            [data]
            game = "tic_tac_toe"
            games = 8
            bot = "bounded_ab"
            bot_params = {{ depth = 1 }}
            [model]
            width = 8
            depth = 1
            [train]
            max_epochs = 2
            batch_size = 16
            [output]
            directory = "{tmp_path / "model"}"
            data_directory = "{tmp_path / "data"}"
            """
        )
    )
    script = Path(__file__).resolve().parents[1] / "scripts" / "train_value_net.py"
    command = [sys.executable, str(script), f"--config={config}", "--executor=inline", "--quiet"]
    early = subprocess.run([*command, "--stage=train"], capture_output=True, text=True)
    assert early.returncode == 2, early.stderr  # training before any self-play: one line
    assert early.stderr.strip().splitlines() == [
        f"error: no self-play data in {str(tmp_path / 'data')!r} (no data.json): generate it "
        "first (--stage=generate, or no --stage for both)"
    ]
    subprocess.run([*command, "--stage=generate", "--games=5"], check=True, capture_output=True)
    done = subprocess.run(command, check=True, capture_output=True, text=True)
    assert "played 3 games" in done.stdout
    # JAX's INFO line about the accelerators this machine lacks is not shown.
    assert "Unable to initialize backend" not in done.stderr
    assert (tmp_path / "model" / "model.npz").is_file()


def rewrite_game(path: Path, **members: Any) -> None:
    """Rewrites a game file with its members changed (None: left out)."""
    with np.load(path) as archive:
        arrays = {name: archive[name] for name in archive.files}
    for name, value in members.items():
        if value is None:
            arrays.pop(name, None)
        else:
            arrays[name] = value
    np.savez(path.with_suffix(""), **arrays)  # savez appends .npz


def test_a_game_made_with_other_bot_settings_never_counts_as_done(tmp_path: Path) -> None:
    config = tiny_data(3)
    generate(dataclasses.replace(config, games=2), tmp_path, executor="inline")
    made = generate_module.teacher(config)
    assert made["bot_params"]["depth"] == 2 and "evaluator" in made["bot_params"]  # defaults
    # Game 1 as a bot whose default depth was 3 would have made it (the config says nothing).
    older = {**made, "bot_params": {**made["bot_params"], "depth": 3}}
    game = tmp_path / "games" / "game_000001.npz"
    rewrite_game(game, teacher=encode_json(older))
    message = (
        r"1 self-play game\(s\) .* other settings than the config's, so they cannot count as done "
        r"\(game_000001\.npz\); game_000001\.npz: bot_params\.depth 3 in the game, 2 in the config"
    )
    with pytest.raises(ValueError, match=message):
        generate(config, tmp_path, executor="inline")  # resume: the one check
    with pytest.raises(ValueError, match=message):
        assemble(tmp_path)  # the dataset read: the same check
    game.unlink()
    assert generate(config, tmp_path, executor="inline") == 2  # game 1 played again
    assert assemble(tmp_path).meta["games"] == 3


def test_a_chance_node_is_labelled_by_the_search_of_the_position_it_led_to(
    tmp_path: Path,
) -> None:
    nan = [np.nan, np.nan]
    keys = np.asarray(["0|a", "-1|b", "-1|c", "1|d", "-1|e", "0|f", "-1|g"])
    search = np.asarray([[0.1, -0.1], nan, nan, [0.3, -0.3], nan, nan, nan])
    filled = chance_search_values(keys, search)
    expected = [[0.1, -0.1], [0.3, -0.3], [0.3, -0.3], [0.3, -0.3], nan, nan, nan]
    np.testing.assert_array_equal(filled, expected)  # f was not searched; g ended the game
    assert np.isnan(search[1]).all()  # the input is left alone
    # A real game: every chance node followed by a searched position gets that position's
    # values, and a decision node keeps its own.
    config = DataConfig(
        game="pig", games=1, bot="bounded_star1", bot_params={"depth": 1}, opening_moves=0
    )
    generate(config, tmp_path, executor="inline")
    with np.load(tmp_path / "games" / "game_000000.npz") as archive:
        keys, played = archive["keys"], archive["search"]
    chance = np.char.startswith(keys, "-1|")
    assert chance.any() and np.isnan(played[chance]).all()  # as self-play wrote it
    labelled = chance_search_values(keys, played)
    for row in np.flatnonzero(chance[:-1]):
        np.testing.assert_array_equal(labelled[row], labelled[row + 1])
    np.testing.assert_array_equal(labelled[~chance], played[~chance])
    assert not np.isnan(labelled[chance][:-1]).any()


def test_chance_games_record_the_view_of_chance_nodes_their_inputs_show(tmp_path: Path) -> None:
    # Backgammon inputs written with player 0 observing every chance node (before views were
    # recorded) are another input: such games are refused, not mixed in.
    config = DataConfig(game="pig", games=1, bot="bounded_star1", bot_params={"depth": 1})
    made = generate_module.teacher(config)
    assert made["chance_view"] == "next_mover"
    assert "chance_view" not in generate_module.teacher(tiny_data(1))  # no chance node
    generate(config, tmp_path, executor="inline")
    game = tmp_path / "games" / "game_000000.npz"
    rewrite_game(game, teacher=encode_json({**made, "chance_view": "player_0"}))
    with pytest.raises(ValueError, match="chance_view 'player_0' in the game, 'next_mover' in"):
        assemble(tmp_path)


def test_amazons_games_record_the_view_of_the_lifted_amazon(tmp_path: Path) -> None:
    # Games written before the lifted amazon was put back on its cell are another input.
    config = DataConfig(
        game="amazons(board_size=6)",
        games=1,
        bot="bounded_ab",
        bot_params={"depth": 1},
        opening_moves=2,
    )
    made = generate_module.teacher(config)
    assert made["lifted_view"] == "restored"
    assert "lifted_view" not in generate_module.teacher(tiny_data(1))  # not amazons
    generate(config, tmp_path, executor="inline")
    game = tmp_path / "games" / "game_000000.npz"
    without = {key: value for key, value in made.items() if key != "lifted_view"}
    rewrite_game(game, teacher=encode_json(without))
    with pytest.raises(ValueError, match="lifted_view"):
        assemble(tmp_path)


def test_root_children_are_kept_only_when_asked_and_old_directories_resume(
    tmp_path: Path,
) -> None:
    generate(tiny_data(1), tmp_path / "with", executor="inline")
    generate(tiny_data(1, root_children=False), tmp_path / "without", executor="inline")
    with np.load(tmp_path / "with" / "games" / "game_000000.npz") as kept:
        assert len(kept["child_keys"]) > 0
        played = kept["features"]
    with np.load(tmp_path / "without" / "games" / "game_000000.npz") as dropped:
        assert len(dropped["child_keys"]) == 0
        assert np.array_equal(dropped["features"], played)  # the same game otherwise
    # A directory made before the setting existed resumes with its default.
    recorded = tmp_path / "with" / "data.json"
    data = json.loads(recorded.read_text())
    del data["data"]["root_children"]
    recorded.write_text(json.dumps(data))
    assert generate(tiny_data(2), tmp_path / "with", executor="inline") == 1


def test_tree_labels_keep_every_position_the_tables_bounded(tmp_path: Path) -> None:
    """With `tree_labels` a game keeps its searches' table positions (`search.table_walk`)
    instead of the root children, per player, with the played positions unchanged, and
    `labelling = "interval"` trains on them; a bot without a table is refused by name."""
    from spiel_bounded.training.selfplay import play_selfplay_game

    config = tiny_data(1, bot_params={"depth": 4})
    children = play_selfplay_game(config, 0)
    tree = play_selfplay_game(dataclasses.replace(config, tree_labels=True), 0)
    deep = play_selfplay_game(dataclasses.replace(config, tree_labels=True, label_depth=3), 0)
    assert np.array_equal(tree.features, children.features)
    assert len(children.children.keys) < len(tree.children.keys)
    assert 0 < len(deep.children.keys) < len(tree.children.keys)
    # Two-player zero-sum: each player's bounds are the other's, negated and swapped.
    np.testing.assert_array_equal(tree.children.lower[:, 0], -tree.children.upper[:, 1])
    assert (tree.children.lower <= tree.children.upper).all()
    assert set(children.children.keys) <= set(tree.children.keys)
    generate(dataclasses.replace(config, tree_labels=True), tmp_path, executor="inline")
    dataset = assemble(tmp_path)
    assert len(dataset) == len(set(tree.keys) | set(tree.children.keys))
    assert targets(dataset, TrainConfig(labelling="interval")).usable.all()
    with pytest.raises(ValueError, match=r"tree_labels .*'babmcts'.*accepted: bounded_ab"):
        check_data_config(
            dataclasses.replace(config, bot="babmcts", bot_params={}, tree_labels=True)
        )
    tableless = {"depth": 4, "transpositions": False}
    with pytest.raises(ValueError, match=r"tree_labels .*transpositions on"):
        check_data_config(dataclasses.replace(config, bot_params=tableless, tree_labels=True))


def test_games_written_before_they_carried_their_settings_still_count(tmp_path: Path) -> None:
    # Migration: a game file without `teacher` counts as made with data.json's config, which a
    # resumed run must equal (less `games`).
    generate(tiny_data(2), tmp_path, executor="inline")
    before = assemble(tmp_path)
    for index in (0, 1):
        rewrite_game(tmp_path / "games" / f"game_{index:06d}.npz", teacher=None)
    assert generate(tiny_data(3), tmp_path, executor="inline") == 1
    assert np.array_equal(assemble(tmp_path, games=2).features, before.features)
    with pytest.raises(ValueError, match=r"another config .*epsilon"):
        generate(tiny_data(3, epsilon=0.5), tmp_path, executor="inline")


# -- proofs as labels -----------------------------------------------------------------------------


def test_a_proved_position_is_labelled_with_its_game_value(tmp_path: Path) -> None:
    """tic_tac_toe at depth 9 proves every searched position: each is marked exact, its value
    is a game value (win, draw or loss: -1, 0 or 1, where a heuristic estimate is fractional),
    and the outcome does not dilute its label."""
    from spiel_bounded.training.selfplay import play_selfplay_game

    config = tiny_data(2, bot_params={"depth": 9})
    positions = play_selfplay_game(config, 0)
    searched = ~np.isnan(positions.search).any(axis=1)
    assert searched.any() and (positions.exact == searched).all()
    assert set(np.unique(positions.search[searched])) <= {-1.0, 0.0, 1.0}
    generate(config, tmp_path, executor="inline")
    dataset = assemble(tmp_path)
    assert dataset.exact is not None and dataset.exact.any()
    labels = targets(dataset, TrainConfig(labelling="mix", outcome_weight=0.9)).lower
    assert np.array_equal(labels[dataset.exact], dataset.search[dataset.exact])
    mixed = ~dataset.exact & ~np.isnan(dataset.search).any(axis=1)
    expected = 0.9 * dataset.outcome[mixed] + 0.1 * dataset.search[mixed]
    assert np.allclose(labels[mixed], expected)


def test_a_depth_limited_value_is_not_exact() -> None:
    from spiel_bounded.training.selfplay import play_selfplay_game

    positions = play_selfplay_game(tiny_data(1, opening_moves=0, epsilon=0.0), 0)
    assert not np.isnan(positions.search[0]).any() and not positions.exact[0]  # depth 2, ply 0


def test_game_files_written_before_proofs_were_recorded_read_as_not_exact(tmp_path: Path) -> None:
    generate(tiny_data(2), tmp_path, executor="inline")
    for path in (tmp_path / "games").glob("game_*.npz"):
        with np.load(path) as archive:
            kept = {name: archive[name] for name in archive.files if name != "exact"}
        np.savez(path, **kept)
    dataset = assemble(tmp_path)
    assert dataset.exact is not None and not dataset.exact.any()


def test_a_position_keeps_the_narrowest_interval_and_its_owner_keeps_a_tie(
    tmp_path: Path,
) -> None:
    """Two games from the same first position: of equally wide intervals the first game's (the
    position's owner) is kept, whatever the order of the rows; a narrower one replaces it."""
    generate(tiny_data(2, opening_moves=0, epsilon=0.0), tmp_path, executor="inline")
    paths = [tmp_path / "games" / f"game_{index:06d}.npz" for index in (0, 1)]

    def first_row(path: Path, lower: list[float], upper: list[float]) -> None:
        with np.load(path) as archive:
            lowers, uppers, exact = (
                archive["lower"].copy(),
                archive["upper"].copy(),
                archive["exact"].copy(),
            )
        lowers[0], uppers[0], exact[0] = lower, upper, False
        rewrite_game(path, lower=lowers, upper=uppers, exact=exact)

    first_row(paths[0], [-0.5, -0.5], [0.5, 0.5])
    first_row(paths[1], [-0.25, -0.75], [0.75, 0.25])  # as wide: the owner's stays
    dataset = assemble(tmp_path)
    assert dataset.lower is not None and dataset.upper is not None
    root = int(np.flatnonzero(dataset.occurrences == 2)[0])
    assert dataset.lower[root].tolist() == [-0.5, -0.5]
    assert dataset.upper[root].tolist() == [0.5, 0.5]
    first_row(paths[1], [-0.25, -0.25], [0.25, 0.25])  # narrower: it replaces the owner's
    dataset = assemble(tmp_path)
    assert dataset.lower is not None and dataset.upper is not None
    assert dataset.lower[root].tolist() == [-0.25, -0.25]
    assert dataset.upper[root].tolist() == [0.25, 0.25]


@pytest.mark.parametrize(
    ("game", "bot"),
    [("chinese_checkers(players=3,max_moves=10)", "maxn"), ("tic_tac_toe", "bounded_ab")],
)
def test_a_drawn_game_teaches_the_heuristic_values_of_its_last_position(
    monkeypatch: pytest.MonkeyPatch, game: str, bot: str
) -> None:
    """`drawn_outcome = "heuristic"`: a game that ends with every return equal (chinese_checkers
    at its move cap ends 0 for all; a tic_tac_toe draw) is labelled with the heuristic's values
    of the position before the end; a won game keeps its returns, and the play is the same."""
    from spiel_bounded.evaluators.heuristics import HeuristicEvaluator
    from spiel_bounded.evaluators.value_net.features import Features
    from spiel_bounded.training import selfplay

    valued: list[pyspiel.State] = []

    class Recording(HeuristicEvaluator):
        def evaluate(self, state: pyspiel.State) -> Any:
            valued.append(state.clone())
            return super().evaluate(state)

    monkeypatch.setattr(selfplay, "HeuristicEvaluator", Recording)
    settings = dict(game=game, games=6, bot=bot, bot_params={"depth": 1}, epsilon=0.5, seed=3)
    loaded = pyspiel.load_game(game)
    features = Features(loaded)
    drawn = told_apart = 0
    for index in range(6):
        returns = selfplay.play_selfplay_game(DataConfig(**settings), index)
        valued.clear()
        taught = selfplay.play_selfplay_game(
            DataConfig(**settings, drawn_outcome="heuristic"), index
        )
        assert np.array_equal(returns.features, taught.features)
        assert np.array_equal(returns.search, taught.search, equal_nan=True)
        if np.ptp(returns.outcome[0]) > 0:
            assert not valued and np.array_equal(returns.outcome, taught.outcome)
            continue
        drawn += 1
        (last,) = valued
        assert not last.is_terminal()
        assert np.array_equal(features.of(last), taught.features[-1])
        expected = HeuristicEvaluator(loaded).evaluate(last)
        assert np.allclose(taught.outcome, np.tile(expected, (len(taught.outcome), 1)))
        told_apart += bool(np.ptp(taught.outcome[0]) > 0)
    assert drawn > 0 and told_apart > 0  # a draw that the heuristic tells the players apart


def test_drawn_outcome_heuristic_needs_a_game_with_one() -> None:
    with pytest.raises(ValueError, match=r"drawn_outcome = 'heuristic' needs .*othello"):
        DataConfig(game="othello", drawn_outcome="heuristic")
    with pytest.raises(ValueError, match=r"drawn_outcome.*returns, heuristic"):
        DataConfig(game="tic_tac_toe", drawn_outcome="score")
