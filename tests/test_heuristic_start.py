"""A network that starts as the amazons heuristic (`value_net.heuristic_start`): its values are
the heuristic's over 0.95 on every position, mid-turn included, its native searches choose what
the heuristic's choose, and it is refused for any other model or game."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pyspiel
import pytest

from spiel_bounded import AlphaBetaSettings, Limits, bounded_ab, make_evaluator
from spiel_bounded.evaluators.value_net.config import ModelConfig
from spiel_bounded.evaluators.value_net.heuristic_start import heuristic_params
from spiel_bounded.evaluators.value_net.layout import layout_for
from spiel_bounded.testing import random_positions
from tests.markers import needs_native

ROOT = Path(__file__).resolve().parent.parent


def made_network(game_string: str, directory: Path, *flags: str) -> str:
    """The evaluator name of a network written by scripts/make_heuristic_network.py."""
    path = directory / "start.npz"
    subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "make_heuristic_network.py"),
            f"--game={game_string}",
            f"--output={path}",
            *flags,
        ],
        check=True,
        capture_output=True,
        cwd=ROOT,
    )
    return f"net:{path}"


@pytest.fixture(scope="module")
def small_network(tmp_path_factory: pytest.TempPathFactory) -> str:
    return made_network("amazons(board_size=6)", tmp_path_factory.mktemp("net"))


def test_its_values_are_the_heuristics_on_every_position(small_network: str) -> None:
    game = pyspiel.load_game("amazons(board_size=6)")
    network, heuristic = make_evaluator(small_network, game), make_evaluator("heuristic", game)
    states = random_positions(game, 60, seed=5, plies=(0, 60))
    assert any(len(state.history()) % 3 for state in states)  # mid-turn positions too
    for state in states:
        values = np.asarray(network.evaluate(state))
        np.testing.assert_allclose(0.95 * values, heuristic.evaluate(state), atol=1e-5)


def test_a_deeper_network_on_the_full_board(tmp_path: Path) -> None:
    game = pyspiel.load_game("amazons")
    name = made_network("amazons", tmp_path, "--depth=3", "--width=16")
    network, heuristic = make_evaluator(name, game), make_evaluator("heuristic", game)
    for state in random_positions(game, 10, seed=2, plies=(0, 120)):
        values = np.asarray(network.evaluate(state))
        np.testing.assert_allclose(0.95 * values, heuristic.evaluate(state), atol=1e-5)


@needs_native
def test_native_searches_with_it_choose_the_heuristics_moves(small_network: str) -> None:
    game = pyspiel.load_game("amazons(board_size=6)")
    network, heuristic = make_evaluator(small_network, game), make_evaluator("heuristic", game)
    for state in random_positions(game, 6, seed=9, plies=(0, 30)):
        with_network, with_heuristic = (
            bounded_ab(
                state,
                evaluator=evaluator,
                limits=Limits(depth=2),
                settings=AlphaBetaSettings(engine="native"),
            )
            for evaluator in (network, heuristic)
        )
        assert with_network.stats.engine == "native"
        assert with_network.action == with_heuristic.action
        # the same leaf backs both values up: the heuristic's is 0.95 of the network's
        np.testing.assert_allclose(
            0.95 * np.asarray(with_network.interval), with_heuristic.interval, atol=1e-5
        )


@pytest.mark.parametrize(
    ("game_string", "model"),
    [
        ("amazons(board_size=6)", ModelConfig(inputs="observation")),
        ("amazons(board_size=6)", ModelConfig(inputs="territory", width=1)),
        ("amazons(board_size=6)", ModelConfig(inputs="territory", kind="conv")),
        ("connect_four", ModelConfig(inputs="threats")),
    ],
)
def test_other_models_are_refused(game_string: str, model: ModelConfig) -> None:
    layout = layout_for(pyspiel.load_game(game_string), model)
    with pytest.raises(ValueError, match=r'only the amazons heuristic.*inputs = "territory"'):
        heuristic_params(layout, 0)


def test_the_script_refuses_another_game(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "make_heuristic_network.py"),
            "--game=hex",
            f"--output={tmp_path / 'x.npz'}",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert done.returncode == 2 and "territory" in done.stderr
    assert not (tmp_path / "x.npz").exists()
