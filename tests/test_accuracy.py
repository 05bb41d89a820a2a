"""An evaluator measured against exact game values (`training.accuracy`,
`scripts/evaluator_accuracy.py`)."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest
from open_spiel.python.algorithms import minimax

from spiel_bounded.evaluators import make_evaluator
from spiel_bounded.games import load_game
from spiel_bounded.training.accuracy import PositionDraw, measure, solved_positions

ROOT = Path(__file__).resolve().parents[1]
DRAW = PositionDraw("tic_tac_toe", positions=25, plies=(0, 6), seed=3)


def test_solved_positions_carry_the_exact_value_for_the_player_to_move() -> None:
    positions = solved_positions(DRAW)
    assert len(positions) == 25
    assert len({str(position.state) for position in positions}) > 5
    for position in positions:
        state = position.state
        assert not state.is_terminal() and 0 <= len(state.history()) <= 6
        value, _ = minimax.alpha_beta_search(
            state.get_game(), state, maximizing_player_id=state.current_player()
        )
        assert position.value == value


def test_a_search_that_solves_agrees_everywhere_and_one_ply_less_does_not() -> None:
    positions = solved_positions(DRAW)
    zero = make_evaluator("zero", load_game(DRAW.game))
    exact = measure(positions, zero, depth=9)
    assert (exact.positions, exact.sign_agreement, exact.correlation) == (25, 1.0, 1.0)
    alone = measure(positions, zero)
    assert alone.depth == 0 and alone.evaluator == "zero" and math.isnan(alone.correlation)
    draws = sum(position.value == 0 for position in positions)
    assert alone.sign_agreement == draws / 25 < 1.0


def test_games_without_exact_values_and_bad_draws_are_refused() -> None:
    with pytest.raises(ValueError, match=r"two-player zero-sum game without chance.*pig"):
        solved_positions(PositionDraw("pig"))
    with pytest.raises(ValueError, match="plies"):
        PositionDraw("tic_tac_toe", plies=(5, 2))
    with pytest.raises(ValueError, match="positions and solve_nodes must be positive"):
        PositionDraw("tic_tac_toe", positions=0)
    with pytest.raises(ValueError, match="depth"):
        measure([], make_evaluator("zero", load_game("tic_tac_toe")), depth=-1)


def test_the_script_prints_a_table_and_refuses_an_unknown_evaluator() -> None:
    command = [sys.executable, "scripts/evaluator_accuracy.py", "--game=tic_tac_toe"]
    done = subprocess.run(
        [*command, "--evaluators=zero,heuristic", "--depths=0,9", "--positions=10", "--plies=0,4"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "| zero | 9 | 10 | 100.0% | 1.00 |" in done.stdout
    assert "| heuristic | 0 | 10 |" in done.stdout
    bad = subprocess.run(
        [*command, "--evaluators=bogus"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert bad.returncode == 2 and "unknown evaluator 'bogus'" in bad.stderr


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        ([], "--game is required"),
        (["--game=tic_tac_toe", "extra"], "unexpected arguments: extra"),
        (["--game=tic_tac_toe", "--plies=3"], "--plies must be two numbers, the fewest and the"),
        (["--game=tic_tac_toe", "--depths=0,x"], "--depths must be integers separated by commas"),
        (["--game=pig"], "error: exact values need a two-player zero-sum game"),
    ],
)
def test_the_script_refuses_bad_flags_naming_them(flags: list[str], message: str) -> None:
    done = subprocess.run(
        [sys.executable, "scripts/evaluator_accuracy.py", *flags],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and message in done.stderr, done.stderr
