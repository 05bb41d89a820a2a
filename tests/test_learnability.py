"""Networks fit to solved positions (`spiel_bounded.training.learnability`,
`scripts/fit_solved.py`)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from spiel_bounded import load_bot
from spiel_bounded.evaluators.value_net import ModelConfig, jax_available
from spiel_bounded.games import load_game
from spiel_bounded.training import TrainConfig
from spiel_bounded.training.accuracy import PositionDraw, SolvedPosition, solved_positions

needs_jax = pytest.mark.skipif(
    not jax_available(), reason="the jax extra is not installed: pip install '.[jax]'"
)
ROOT = Path(__file__).resolve().parents[1]


def _position(moves: list[int], value: float) -> SolvedPosition:
    state = load_game("tic_tac_toe").new_initial_state()
    for move in moves:
        state.apply_action(move)
    return SolvedPosition(state, value)


@needs_jax
def test_a_solved_dataset_labels_each_player_with_the_exact_value() -> None:
    from spiel_bounded.training.learnability import mover_wins, solved_dataset

    # x 0, o 3, x 1, o 4: x to move wins by 2; then o to move after x 8 wins by 5.
    x_wins = _position([0, 3, 1, 4], 1.0)
    o_wins = _position([0, 3, 1, 4, 8], 1.0)
    drawn = _position([4], 0.0)
    dataset = solved_dataset("tic_tac_toe", [x_wins, o_wins, drawn])
    expected = np.array([[1.0, -1.0], [-1.0, 1.0], [0.0, 0.0]])
    for labels in (dataset.outcome, dataset.search, dataset.lower, dataset.upper):
        np.testing.assert_array_equal(labels, expected)
    assert dataset.exact is not None and dataset.exact.all()
    assert list(dataset.games) == [0, 1, 2] and dataset.features.shape[0] == 3
    assert mover_wins([x_wins, o_wins, drawn]) == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match="no solved position to learn from"):
        solved_dataset("tic_tac_toe", [])
    with pytest.raises(ValueError, match="no solved position to score"):
        mover_wins([])


@needs_jax
def test_a_network_fit_to_exact_values_learns_them() -> None:
    """Scored on the decided positions it was fit to, an mlp knows tic_tac_toe's values better
    than the rule "the player to move wins" (a draw's sign is 0, which a network's value
    never is exactly, so drawn positions train but are not scored); scored on nothing, it is
    refused."""
    from spiel_bounded.training.learnability import fit_solved, mover_wins, solved_dataset

    game = load_game("tic_tac_toe")
    positions = solved_positions(PositionDraw("tic_tac_toe", positions=300, plies=(1, 6), seed=5))
    dataset = solved_dataset("tic_tac_toe", positions)
    config = TrainConfig(max_epochs=60, patience=60, seed=1)
    decided = [position for position in positions if position.value != 0]
    score = fit_solved(game, dataset, decided, ModelConfig(), config)
    assert (score.train_positions, score.test_positions) == (300, len(decided))
    assert len(decided) > 100
    assert score.sign_agreement > 0.95 > mover_wins(decided)
    assert score.correlation > 0.8 and score.validation_loss < 0.25
    with pytest.raises(ValueError, match="no solved position to score"):
        fit_solved(game, dataset, [], ModelConfig(), config)


@needs_jax
def test_the_script_prints_a_table_saves_evaluators_and_refuses_bad_flags(
    tmp_path: Path,
) -> None:
    command = [sys.executable, "scripts/fit_solved.py", "--game=tic_tac_toe"]
    done = subprocess.run(
        [
            *command,
            "--models=mlp,conv",
            "--sizes=40,80",
            "--test=20",
            "--plies=1,5",
            f"--save={tmp_path}",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "| the player to move wins |" in done.stdout
    for row in ("| mlp | observation | 40 |", "| conv | observation | 80 |"):
        assert row in done.stdout
    saved = sorted(path.name for path in tmp_path.iterdir())
    assert saved == [
        f"{kind}_observation_{size}.npz" for kind in ("conv", "mlp") for size in (40, 80)
    ]
    game = load_game("tic_tac_toe")
    bot = load_bot("bounded_ab", game, 0, evaluator=f"net:{tmp_path / 'conv_observation_80.npz'}")
    state = game.new_initial_state()
    assert bot.step(state) in state.legal_actions()
    for flags, message in (
        (["--models=mlp:bogus"], "ModelConfig.inputs must be one of observation"),
        (["--models=tree"], "ModelConfig.kind must be one of mlp, conv"),
        (["--sizes=0"], "--sizes positive"),
        (["--plies=3"], "--plies must be two numbers"),
    ):
        bad = subprocess.run(
            [*command, *flags], cwd=ROOT, capture_output=True, text=True, timeout=120
        )
        assert bad.returncode == 2 and message in bad.stderr, (flags, bad.stderr)
    pig = subprocess.run(
        [sys.executable, "scripts/fit_solved.py", "--game=pig"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert pig.returncode == 2 and "two-player zero-sum game without chance" in pig.stderr
