"""Networks fit to solved positions (`spiel_bounded.training.learnability`,
`scripts/fit_solved.py`)."""

from __future__ import annotations

import math
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from spiel_bounded import load_bot
from spiel_bounded.evaluators.value_net import (
    ModelConfig,
    ValueNetEvaluator,
    load_checkpoint,
)
from spiel_bounded.evaluators.value_net.features import Features
from spiel_bounded.evaluators.value_net.layout import layout_for
from spiel_bounded.evaluators.value_net.outputs import output_form
from spiel_bounded.games import load_game
from spiel_bounded.training import TrainConfig
from spiel_bounded.training.accuracy import PositionDraw, SolvedPosition, solved_positions
from tests.markers import needs_jax

ROOT = Path(__file__).resolve().parents[1]


def _position(moves: list[int], value: float) -> SolvedPosition:
    state = load_game("tic_tac_toe").new_initial_state()
    for move in moves:
        state.apply_action(move)
    return SolvedPosition(state, value)


@needs_jax
def test_a_solved_dataset_labels_each_player_with_the_exact_value() -> None:
    from spiel_bounded.training.learnability import solved_dataset

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
    with pytest.raises(ValueError, match="no solved position to learn from"):
        solved_dataset("tic_tac_toe", [])


@needs_jax
def test_the_floor_is_the_commoner_sign_of_the_decided_positions_and_unseen_drops_doubles() -> None:
    from spiel_bounded.training.learnability import majority_sign, unseen

    loses = _position([0], -1.0)  # (not tic_tac_toe's value: the rule reads the labels)
    wins = _position([0, 3, 1, 4], 1.0)
    drawn = _position([4], 0.0)
    assert majority_sign([loses, loses, wins, drawn]) == pytest.approx(2 / 3)
    assert majority_sign([wins, drawn, drawn]) == 1.0
    assert math.isnan(majority_sign([drawn]))
    same_as_wins = _position([1, 4, 0, 3], 1.0)  # another order, the same position
    assert unseen([wins, drawn, loses], [same_as_wins, loses]) == [drawn]


@needs_jax
def test_a_network_fit_to_exact_values_learns_them_and_is_saved_as_fit(tmp_path: Path) -> None:
    """On the decided positions it was fit to, an mlp knows tic_tac_toe's values better than
    the commoner sign; on 148 others its values correlate with the exact ones (a label or a
    player mixed up would not); the network saved is the network scored; bad fits are refused."""
    from spiel_bounded.evaluators.value_net.model import BatchValues
    from spiel_bounded.training.learnability import (
        fit_solved,
        majority_sign,
        save_network,
        solved_dataset,
        unseen,
    )

    game = load_game("tic_tac_toe")
    positions = solved_positions(PositionDraw("tic_tac_toe", positions=300, plies=(1, 6), seed=5))
    dataset = solved_dataset("tic_tac_toe", positions)
    config = TrainConfig(max_epochs=60, patience=60, seed=1)
    score = fit_solved(game, dataset, positions, ModelConfig(), config)
    decided = [position for position in positions if position.value != 0]
    assert (score.train_positions, score.test_positions) == (300, 300)
    assert score.drawn == 300 - len(decided) > 0 and len(decided) > 100
    assert score.sign_agreement > 0.95 > majority_sign(decided)
    assert score.correlation > 0.8 and score.validation_loss < 0.25

    train = solved_positions(PositionDraw("tic_tac_toe", positions=1500, plies=(1, 7), seed=5))
    drawn = solved_positions(PositionDraw("tic_tac_toe", positions=300, plies=(1, 7), seed=6))
    held_out = unseen(drawn, train)
    assert len(held_out) >= 100
    wider = fit_solved(
        game, solved_dataset("tic_tac_toe", train), held_out, ModelConfig(), TrainConfig(seed=1)
    )
    assert wider.correlation > 0.2

    path = save_network(tmp_path / "n.npz", "tic_tac_toe", score, {"k": 1})
    evaluator = ValueNetEvaluator(game, path, engine="numpy")
    fitted = BatchValues(layout_for(game, ModelConfig()), output_form(game), score.params)
    for position in positions[:20]:
        features = Features(game).of(position.state)[None, :]
        np.testing.assert_allclose(
            evaluator.evaluate(position.state), fitted(features)[0], atol=1e-5
        )

    with pytest.raises(ValueError, match="no solved position to score"):
        fit_solved(game, dataset, [], ModelConfig(), config)
    with pytest.raises(ValueError, match="at least 20 training positions"):
        fit_solved(
            game, solved_dataset("tic_tac_toe", positions[:19]), positions, ModelConfig(), config
        )


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
    assert "| the commoner sign |" in done.stdout
    for row in ("| mlp | observation | 40 |", "| conv | observation | 80 |"):
        assert row in done.stdout
    saved = sorted(path.name for path in tmp_path.iterdir())
    assert saved == [
        f"{kind}_observation_{size}.npz" for kind in ("conv", "mlp") for size in (40, 80)
    ]
    game = load_game("tic_tac_toe")
    record = load_checkpoint(tmp_path / "conv_observation_80.npz").record
    assert record["command"].startswith("python scripts/fit_solved.py --game=tic_tac_toe")
    assert record["train"]["max_epochs"] == 60 and record["train_positions"] == 80
    assert record["training_draw"]["seed"] == 1 and record["test_draw"]["seed"] == 0
    assert record["test_positions"] == int(re.search(r"scored on (\d+) others", done.stdout)[1])
    bot = load_bot("bounded_ab", game, 0, evaluator=f"net:{tmp_path / 'conv_observation_80.npz'}")
    state = game.new_initial_state()
    assert bot.step(state) in state.legal_actions()
    for flags, message in (
        (["--models=mlp:bogus"], "ModelConfig.inputs must be one of observation"),
        (["--models=tree"], "ModelConfig.kind must be one of mlp, conv"),
        (["--sizes=10"], "--sizes must be at least 20"),
        (["--sizes="], "--sizes is empty"),
        (["--models="], "--models is empty"),
        (["--test=0"], "--test must be positive"),
        (["--plies=3"], "--plies must be two numbers"),
        (["--plies=1,x"], "--plies must be integers"),
        (["--solve_nodes=1", "--sizes=20", "--test=5"], "too few to fit 20 and score"),
        (["--plies=9,14"], "solved 0 training positions"),
        (["--game=clobber", "--models=mlp:threats"], "clobber has none"),
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
