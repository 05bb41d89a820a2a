"""The connect_four solver and the `connect_four_solver` bot: values equal to brute force and to
the exact alpha-beta search, moves of the best value, clear refusals."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pyspiel
import pytest

from spiel_bounded.arena.config import parse_config
from spiel_bounded.arena.perfect_play import (
    critical_positions,
    judge_tournament,
    move_accuracy,
    paired_difference,
)
from spiel_bounded.arena.runner import run_tournament
from spiel_bounded.arena.store import GameStore
from spiel_bounded.evaluators import make_evaluator
from spiel_bounded.judges.connect_four import ConnectFourSolver, check_connect_four
from spiel_bounded.limits import Limits
from spiel_bounded.oracles import solve
from spiel_bounded.registry import load_bot
from spiel_bounded.search.alphabeta import bounded_ab
from tests.markers import needs_native

pytestmark = needs_native


def _line_free_position(game: pyspiel.Game, rng: np.random.Generator, plies: int) -> pyspiel.State:
    """A state `plies` moves in, reached by random moves that complete no line (so the board
    fills without the game ending), or an earlier one where every move would end it."""
    state = game.new_initial_state()
    for _ in range(plies):
        quiet = []
        for move in state.legal_actions():
            child = state.child(move)
            if not child.is_terminal():
                quiet.append(move)
        if not quiet:
            break
        state.apply_action(int(rng.choice(quiet)))
    return state


@pytest.mark.parametrize(
    ("description", "plies"),
    [
        ("connect_four", 31),
        ("connect_four(rows=4,columns=5)", 11),
        ("connect_four(rows=5,columns=6)", 19),
    ],
)
def test_values_equal_brute_force(description: str, plies: int) -> None:
    game = pyspiel.load_game(description)
    solver = ConnectFourSolver(game, table_bits=16)
    rng = np.random.default_rng(11)
    values = []
    for _ in range(25):
        state = _line_free_position(game, rng, plies + int(rng.integers(0, 4)))
        exact = solve(state)[state.current_player()]
        assert solver.value(state) == exact
        values.append(exact)
    assert len(set(values)) >= 2  # the positions are not all of one kind


def test_values_equal_exact_alphabeta_in_the_middle_game() -> None:
    game = pyspiel.load_game("connect_four")
    solver = ConnectFourSolver(game)
    zero = make_evaluator("zero", game)
    rng = np.random.default_rng(5)
    seen = set()
    for _ in range(12):
        state = _line_free_position(game, rng, 22)
        exact = bounded_ab(state, evaluator=zero, limits=Limits(nodes=20_000_000))
        assert exact.stats.stopped_by == "solved"
        assert solver.value(state) == exact.lower == exact.upper
        seen.add(exact.lower)
    assert len(seen) >= 2


def test_move_values_agree_with_the_children() -> None:
    game = pyspiel.load_game("connect_four")
    solver = ConnectFourSolver(game)
    rng = np.random.default_rng(3)
    for _ in range(10):
        state = _line_free_position(game, rng, 24)
        values = solver.move_values(state)
        assert values is not None
        assert sorted(values) == state.legal_actions()
        assert max(values.values()) == solver.value(state)
        for move, value in values.items():
            child = state.child(move)
            expected = (
                child.returns()[state.current_player()]
                if child.is_terminal()
                else -solver.value(child)
            )
            assert value == expected


def test_a_win_in_one_and_a_forced_loss() -> None:
    game = pyspiel.load_game("connect_four")
    solver = ConnectFourSolver(game)
    state = game.new_initial_state()
    for move in [0, 6, 0, 6, 0]:  # three in column 0 for x, o to move must block
        state.apply_action(move)
    for move in range(1, 7):  # every move but the block loses at once
        assert solver.value(state.child(move)) == 1
    state.apply_action(6)  # o does not block: x wins at once
    assert solver.value(state) == 1


def test_a_run_out_budget_answers_none() -> None:
    game = pyspiel.load_game("connect_four")
    solver = ConnectFourSolver(game)
    assert solver.value(game.new_initial_state(), seconds=0.01) is None
    assert solver.move_values(game.new_initial_state(), seconds=0.01) is None


@pytest.mark.parametrize(
    ("description", "message"),
    [
        ("tic_tac_toe", "connect_four only"),
        ("connect_four(x_in_row=3)", "four in a row only"),
        ("connect_four(rows=8,columns=8)", "(rows + 1) * columns <= 64"),
        ("connect_four(rows=2,columns=20)", "at most 16 columns"),
    ],
)
def test_other_games_are_refused(description: str, message: str) -> None:
    game = pyspiel.load_game(description)
    assert message in check_connect_four(game)
    with pytest.raises(ValueError, match=re.escape(message)):
        ConnectFourSolver(game)
    with pytest.raises(ValueError, match="cannot play"):
        load_bot("connect_four_solver", game, 0)


def test_a_terminal_state_is_refused() -> None:
    game = pyspiel.load_game("connect_four")
    state = game.new_initial_state()
    for move in [0, 1, 0, 1, 0, 1, 0]:
        state.apply_action(move)
    with pytest.raises(ValueError, match="terminal"):
        ConnectFourSolver(game).value(state)


def test_the_native_solver_refuses_illegal_moves() -> None:
    game = pyspiel.load_game("connect_four")
    engine = ConnectFourSolver(game)._solver
    with pytest.raises(ValueError, match="column 7"):
        engine.solve([3, 7])
    with pytest.raises(ValueError, match="not legal"):
        engine.solve([0] * 7)
    with pytest.raises(ValueError, match="over"):
        engine.solve([0, 1, 0, 1, 0, 1, 0, 2])


def test_the_bot_keeps_a_won_game_won_and_plays_legally() -> None:
    game = pyspiel.load_game("connect_four(rows=5,columns=6)")
    solver = ConnectFourSolver(game, table_bits=18)
    rng = np.random.default_rng(8)
    for trial in range(6):
        state = _line_free_position(game, rng, 14)
        if state.is_terminal():
            continue
        mover = state.current_player()
        start = solver.value(state)
        bot = load_bot("connect_four_solver", game, mover)
        opponent = load_bot("random", game, 1 - mover, seed=trial)
        while not state.is_terminal():
            player = bot if state.current_player() == mover else opponent
            move = player.step(state)
            assert move in state.legal_actions()
            state.apply_action(move)
        assert state.returns()[mover] >= start  # perfect play never does worse than the value


def test_the_bot_with_a_node_budget_answers_from_the_empty_board() -> None:
    game = pyspiel.load_game("connect_four")
    bot = load_bot("connect_four_solver", game, 0, nodes=5_000)
    before = bot.solver.nodes
    assert bot.step(game.new_initial_state()) == 3  # the centre: no move solved, none lost
    assert bot.solver.nodes - before <= 5_000 + 7  # each solve stops at its first node past


def test_the_judge_finds_no_error_in_perfect_play(tmp_path: Path) -> None:
    config = parse_config(
        f"""
[tournament]
games = ["connect_four"]
games_per_pairing = 4
seconds_per_move = 1.0
opening_moves = 14
seed = 5
[run]
output = "{tmp_path / "match"}"
executor = "inline"
[[bots]]
label = "solver"
bot = "connect_four_solver"
[[bots]]
label = "random"
bot = "random"
"""
    )
    run_tournament(config)
    perfect, blind = judge_tournament(tmp_path / "match", ["solver", "random"])
    assert perfect.games == blind.games == 4 and perfect.moves > 0
    assert perfect.errors == 0 and perfect.low == perfect.high == 0.0
    assert perfect.score() >= perfect.start_score()  # it never ends worse than it started
    assert sum(perfect.outcomes.values()) == 4
    assert blind.moves > 0 and blind.low <= blind.error_rate <= blind.high
    assert blind.errors == _errors_by_move_values(tmp_path / "match", "random") > 0

    game, positions, values = critical_positions(tmp_path / "match", 30, seed=2)
    assert 0 < len(positions) <= 30 and len(set(positions)) == len(positions)
    assert all(len(set(moves.values())) > 1 for moves in values)
    seats = [load_bot("connect_four_solver", game, player) for player in range(2)]
    first = move_accuracy(
        "solver", lambda state: seats[state.current_player()].step(state), game, positions, values
    )
    assert first.errors == 0 and first.positions == len(positions)
    centre = move_accuracy("centre", _first_legal, game, positions, values)
    assert centre.errors > 0 and centre.low <= centre.rate <= centre.high
    mean, low, high = paired_difference(centre, first)
    assert mean == centre.rate and low <= mean <= high
    with pytest.raises(ValueError, match="'nobody' played no finished connect_four game"):
        judge_tournament(tmp_path / "match", ["nobody"])


def _errors_by_move_values(directory: Path, label: str) -> int:
    """The moves of `label` after the opening that were not of the best solved value."""
    errors = 0
    for record in GameStore(directory).read_records():
        game = pyspiel.load_game(record.game)
        solver = ConnectFourSolver(game)
        skip = record.moves - sum(record.seat_moves)
        state = game.new_initial_state()
        for ply, action in enumerate(record.actions):
            if ply >= skip and record.seats[state.current_player()] == label:
                values = solver.move_values(state)
                assert values is not None
                errors += values[action] < max(values.values())
            state.apply_action(action)
    return errors


def test_the_judge_counts_a_game_the_opening_decided_before_a_bot_moved(tmp_path: Path) -> None:
    openings = tmp_path / "openings.txt"
    openings.write_text("0 1 0 1 0 1\n")  # x to move completes column 0
    config = parse_config(
        f"""
[tournament]
games = ["connect_four"]
games_per_pairing = 2
seconds_per_move = 1.0
openings = "{openings}"
seed = 1
[run]
output = "{tmp_path / "match"}"
executor = "inline"
[[bots]]
label = "first"
bot = "connect_four_solver"
[[bots]]
label = "second"
bot = "connect_four_solver"
"""
    )
    run_tournament(config)
    for result in judge_tournament(tmp_path / "match", ["first", "second"]):
        assert result.games == 2 and result.moves == 1  # one game won at once, one never moved
        assert result.outcomes == {("win", "win"): 1, ("loss", "loss"): 1}
        assert result.score() == result.start_score() == 0.5


def _first_legal(state: pyspiel.State) -> int:
    return int(state.legal_actions()[0])
