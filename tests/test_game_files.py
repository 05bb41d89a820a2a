"""`training.game_files`: a directory's games bundled once, the bundle only ever a copy."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from spiel_bounded.training import DataConfig, game_files
from spiel_bounded.training.dataset import Dataset, assemble
from spiel_bounded.training.game_files import BUNDLE_FILE, game_path, load_games
from spiel_bounded.training.generate import generate


def same(first: Dataset, second: Dataset) -> bool:
    fields = ("features", "outcome", "search", "games", "occurrences", "exact", "lower", "upper")
    return all(
        np.array_equal(getattr(first, name), getattr(second, name), equal_nan=True)
        for name in fields
    )


@pytest.fixture(name="games")
def fixture_games(tmp_path: Path) -> Path:
    config = DataConfig(
        game="tic_tac_toe",
        games=4,
        bot="bounded_ab",
        bot_params={"depth": 2},
        opening_moves=1,
        epsilon=0.2,
        seed=3,
        tree_labels=True,
    )
    generate(config, tmp_path, executor="inline")
    return tmp_path


def test_a_second_assembly_reads_the_bundle_and_gets_the_same_dataset(
    games: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = assemble(games)
    assert (games / BUNDLE_FILE).exists()

    def no_file(directory: Path, index: int) -> None:
        raise AssertionError(f"game {index} of {directory} was read although it is bundled")

    monkeypatch.setattr(game_files, "read_game", no_file)
    assert same(assemble(games), first)


def test_a_changed_game_or_another_set_of_games_reads_the_files_again(games: Path) -> None:
    whole = assemble(games)
    fewer = assemble(games, games=2)
    assert len(fewer) < len(whole)
    assert same(assemble(games), whole)
    # Game 3 replaced by game 0's file: the bundle's record of it no longer matches.
    game_path(games, 3).write_bytes(game_path(games, 0).read_bytes())
    changed = load_games(games, [0, 1, 2, 3])
    assert np.array_equal(changed[3].arrays["keys"], changed[0].arrays["keys"])


def test_an_unreadable_bundle_is_a_miss_and_is_rewritten(games: Path) -> None:
    expected = assemble(games)
    (games / BUNDLE_FILE).write_bytes(b"not an archive")
    assert same(assemble(games), expected)
    # One that loads but is not what this version writes (a member missing): a miss too.
    with np.load(games / BUNDLE_FILE) as archive:
        members = {name: archive[name] for name in archive.files if name != "made_by"}
    np.savez(games / BUNDLE_FILE, **members)
    assert same(assemble(games), expected)
    with np.load(games / BUNDLE_FILE) as archive:
        assert archive["signature"][1:, 0].tolist() == [0, 1, 2, 3]


def _rewrite_features(path: Path, change: object) -> None:
    with np.load(path) as archive:
        members = {name: archive[name] for name in archive.files}
    for name in ("features", "child_features"):
        members[name] = change(members[name])  # type: ignore[operator]
    np.savez_compressed(path, **members)


def test_planes_of_zeros_and_ones_are_stored_as_bytes_and_assemble_to_the_same_values(
    games: Path,
) -> None:
    with np.load(game_path(games, 0)) as archive:
        assert archive["features"].dtype == np.uint8
        assert archive["child_features"].dtype == np.uint8
    narrow = assemble(games)
    assert narrow.features.dtype == np.uint8
    for index in range(4):  # the same games written as float32, as before
        _rewrite_features(game_path(games, index), lambda f: f.astype(np.float32))
    wide = assemble(games)
    assert np.array_equal(wide.features, narrow.features)


def test_a_game_whose_features_do_not_fit_in_bytes_widens_the_whole_dataset(games: Path) -> None:
    before = assemble(games)
    _rewrite_features(game_path(games, 3), lambda f: f.astype(np.float32) + 0.5)
    after = assemble(games)
    assert after.features.dtype == np.float32
    earlier = after.games < 3
    assert np.array_equal(after.features[earlier], before.features[earlier])
    assert np.array_equal(after.features[~earlier], before.features[~earlier] + 0.5)
    assert (~earlier).any()
