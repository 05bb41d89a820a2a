"""A whole self-play game on the native engine equals the Python loop's (issue 38, item 9).

`training.native_selfplay` plays the alpha-beta family's games whole in C++; the Python loop
(`training.selfplay`, with `whole_game=False`) is its oracle. With the Python engine as well (the
heuristics and the zero evaluator equal to the last bit), every row must be the same: positions,
keys, search values, bounds, exact marks, outcomes and the labelled positions below them; with a
value network, the per-move native searches of the Python loop give the same games.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from spiel_bounded import native
from spiel_bounded.evaluators.value_net import ModelConfig
from spiel_bounded.games import load_game
from spiel_bounded.training.config import DataConfig
from spiel_bounded.training.native_selfplay import play_native_game
from spiel_bounded.training.positions import GamePositions
from spiel_bounded.training.selfplay import play_selfplay_game
from tests.helpers import write_network

if not native.available():
    pytest.skip(
        f"the native engine is unavailable: {native.unavailable_reason()}",
        allow_module_level=True,
    )

NETWORK = Path(__file__).resolve().parents[1] / "results/models/connect_four/model.npz"

CASES = [
    # tic_tac_toe solved: many moves tie, so the policy's tie draws matter.
    ("tic_tac_toe", "bounded_ab", {"depth": 9, "evaluator": "zero"}, {"opening_moves": 0}),
    ("tic_tac_toe", "bounded_ab", {"depth": 3, "policy": "optimistic"}, {"epsilon": 0.3}),
    ("tic_tac_toe", "bounded_ab", {"depth": 3, "policy": "average"}, {"tree_labels": True}),
    ("connect_four", "bounded_ab", {"depth": 4}, {"tree_labels": True, "label_depth": 2}),
    ("connect_four", "bounded_ab", {"depth": 3, "epsilon": 0.2}, {"root_children": False}),
    ("connect_four", "bounded_ab", {"nodes": 2000, "iterative_deepening": False}, {}),
    ("breakthrough(rows=6,columns=6)", "bounded_ab", {"depth": 2}, {"opening_moves": 2}),
    ("pig(winscore=20)", "bounded_star2", {"depth": 2}, {"tree_labels": True}),
    ("pig(winscore=20)", "bounded_star1", {"depth": 2}, {"opening_moves": 2}),
    ("backgammon", "bounded_star2", {"depth": 1}, {"epsilon": 0.0}),
    # amazons: a third of the rows mid-turn, where the lifted amazon is put back.
    ("amazons(board_size=6)", "bounded_ab", {"depth": 2}, {"tree_labels": True}),
]


def config(game: str, bot: str, params: dict[str, Any], **data: Any) -> DataConfig:
    return DataConfig(game=game, games=2, bot=bot, bot_params=params, seed=7, **data)


def assert_same(expected: GamePositions, found: GamePositions) -> None:
    for name in ("features", "outcome", "search", "keys", "exact", "lower", "upper"):
        np.testing.assert_array_equal(getattr(found, name), getattr(expected, name), err_msg=name)
    for name in ("features", "lower", "upper", "keys"):
        np.testing.assert_array_equal(
            getattr(found.children, name), getattr(expected.children, name), err_msg=name
        )


@pytest.mark.parametrize("case", CASES, ids=lambda case: f"{case[0]}-{case[1]}-{case[3]}")
def test_the_whole_native_game_is_the_python_engines_game(case: tuple) -> None:
    game, bot, params, data = case
    for index in range(2):
        python = config(game, bot, {**params, "engine": "python"}, **data)
        expected = play_selfplay_game(python, index)
        native_config = config(game, bot, {**params, "engine": "auto"}, **data)
        seeds = np.random.SeedSequence([native_config.seed, index]).generate_state(3)
        found = play_native_game(native_config, index, load_game(game), seeds)
        assert found is not None, "the native engine should play this game whole"
        assert_same(expected, found)
        assert_same(expected, play_selfplay_game(native_config, index))


@pytest.mark.skipif(not NETWORK.exists(), reason="no committed connect_four network")
@pytest.mark.parametrize("evaluator", [f"net:{NETWORK}", f"mix:0.3:net:{NETWORK}+seeded_rollout"])
def test_a_network_game_is_the_per_move_native_game(evaluator: str) -> None:
    """A network mixed with seeded playouts (`playout_weight`) plays whole natively too."""
    params = {"depth": 4, "evaluator": evaluator, "engine": "native"}
    chosen = config("connect_four", "bounded_ab", params, tree_labels=True, epsilon=0.2)
    seeds = np.random.SeedSequence([chosen.seed, 0]).generate_state(3)
    assert play_native_game(chosen, 0, load_game("connect_four"), seeds) is not None
    for index in range(2):
        expected = play_selfplay_game(chosen, index, whole_game=False)
        assert_same(expected, play_selfplay_game(chosen, index))


@pytest.mark.parametrize(
    ("bot", "params"),
    [
        ("bounded_ab", {"depth": 2, "engine": "python"}),
        ("bounded_ab", {"depth": 2, "evaluator": "rollout"}),  # a new seed every search
        ("bounded_ab", {"depth": 2, "evaluator": "mix:0.5:zero+rollout"}),
        ("paranoid", {"depth": 2}),
        ("bounded_ab", {"depth": 2, "epsilon": -1.0}),  # the Python loop raises the error
    ],
)
def test_the_python_loop_plays_what_the_whole_native_game_does_not(
    bot: str, params: dict[str, Any]
) -> None:
    chosen = config("tic_tac_toe", bot, params)
    seeds = np.random.SeedSequence([chosen.seed, 0]).generate_state(3)
    assert play_native_game(chosen, 0, load_game("tic_tac_toe"), seeds) is None


def test_tree_labels_without_a_table_are_refused_as_before() -> None:
    chosen = config("tic_tac_toe", "bounded_ab", {"depth": 2, "transpositions": False})
    chosen = DataConfig(**{**chosen.__dict__, "tree_labels": True})
    with pytest.raises(ValueError, match="tree_labels needs a bot whose search keeps a table"):
        play_selfplay_game(chosen, 0)


def test_a_rewritten_network_is_read_afresh(tmp_path: Path) -> None:
    """The whole native game keeps a network's twin for the process's later games: a checkpoint
    rewritten at the same path must not be played with the old one."""
    game = load_game("connect_four")
    path = tmp_path / "model.npz"
    params = {"depth": 2, "evaluator": f"net:{path}", "engine": "native"}
    chosen = config("connect_four", "bounded_ab", params, epsilon=0.0)
    for seed in (1, 2):
        write_network(path, game, ModelConfig(width=16, depth=1), "next_mover", seed=seed)
        expected = play_selfplay_game(chosen, 0, whole_game=False)
        assert_same(expected, play_selfplay_game(chosen, 0))
