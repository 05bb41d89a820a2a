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
        quiet = [move for move in state.legal_actions() if not state.child(move).is_terminal()]
        if not quiet:
            break
        state.apply_action(int(rng.choice(quiet)))
    return state


def _quiet_positions(
    game: pyspiel.Game, rng: np.random.Generator, plies: tuple[int, int], count: int
) -> list[pyspiel.State]:
    """`count` states between `plies[0]` and `plies[1]` moves in where no move ends the game at
    once (so a solver must search: no win in one decides them)."""
    found: list[pyspiel.State] = []
    for _ in range(100 * count):
        state = _line_free_position(game, rng, int(rng.integers(plies[0], plies[1] + 1)))
        if not state.is_terminal() and not any(
            state.child(move).is_terminal() for move in state.legal_actions()
        ):
            found.append(state)
            if len(found) == count:
                return found
    raise AssertionError(f"only {len(found)} quiet positions found")


@pytest.mark.parametrize(
    ("description", "plies", "kinds"),
    [
        ("connect_four", (30, 34), 2),
        ("connect_four(rows=4,columns=5)", (10, 13), 2),
        ("connect_four(rows=5,columns=6)", (19, 22), 2),
        # the tallest board: its lines' shifts reach bit 63, and no line of four fits across
        # 3 columns, so a quiet late position is a draw the solver must not turn into a win
        ("connect_four(rows=19,columns=3)", (48, 53), 1),
    ],
)
def test_values_equal_brute_force(description: str, plies: tuple[int, int], kinds: int) -> None:
    game = pyspiel.load_game(description)
    solver = ConnectFourSolver(game, table_bits=16)
    values = []
    for state in _quiet_positions(game, np.random.default_rng(11), plies, 25):
        exact = solve(state)[state.current_player()]
        assert solver.value(state) == exact
        values.append(exact)
    assert len(set(values)) >= kinds  # the positions are not all of one kind


def test_values_equal_exact_alphabeta_in_the_middle_game() -> None:
    game = pyspiel.load_game("connect_four")
    solver = ConnectFourSolver(game)
    zero = make_evaluator("zero", game)
    seen = set()
    for state in _quiet_positions(game, np.random.default_rng(5), (20, 24), 12):
        exact = bounded_ab(state, evaluator=zero, limits=Limits(nodes=20_000_000))
        assert exact.stats.stopped_by == "solved"
        assert solver.value(state) == exact.lower == exact.upper
        seen.add(exact.lower)
    assert len(seen) >= 2


def test_move_values_equal_exact_alphabeta_on_each_child() -> None:
    game = pyspiel.load_game("connect_four")
    solver = ConnectFourSolver(game)
    zero = make_evaluator("zero", game)
    differ = 0
    for state in _quiet_positions(game, np.random.default_rng(3), (24, 27), 8):
        values = solver.move_values(state)
        assert values is not None
        assert sorted(values) == state.legal_actions()
        assert max(values.values()) == solver.value(state)
        differ += len(set(values.values())) > 1
        for move, value in values.items():
            child = state.child(move)
            exact = bounded_ab(child, evaluator=zero, limits=Limits(nodes=20_000_000))
            assert exact.stats.stopped_by == "solved"
            assert value == -exact.lower
    assert differ >= 2  # some positions where a move is an error


def test_a_forced_block_and_a_double_threat() -> None:
    game = pyspiel.load_game("connect_four")
    solver = ConnectFourSolver(game)
    state = game.new_initial_state()
    for move in [0, 6, 0, 6, 0]:  # three in column 0 for x: o must block
        state.apply_action(move)
    for move in range(1, 7):  # every other move lets x win at once
        assert solver.value(state.child(move)) == 1
    state = game.new_initial_state()
    for move in [6, 2, 6, 3, 0, 4]:  # o holds columns 2-4 of the bottom row, open at both ends
        state.apply_action(move)
    assert not any(state.child(move).is_terminal() for move in state.legal_actions())
    assert solver.value(state) == -1  # x cannot block both ends
    values = solver.move_values(state)
    assert values is not None and set(values.values()) == {-1}


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
        ("connect_four(rows=20,columns=3)", "at most 19 rows"),
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


def test_the_bot_keeps_won_and_drawn_games_and_plays_legally() -> None:
    game = pyspiel.load_game("connect_four(rows=5,columns=6)")
    solver = ConnectFourSolver(game, table_bits=18)
    rng = np.random.default_rng(8)
    starts = []
    for trial, state in enumerate(_quiet_positions(game, rng, (10, 14), 30)):
        mover = state.current_player()
        start = solver.value(state)
        if start == -1:
            continue  # a lost game proves nothing about the bot
        starts.append(start)
        bot = load_bot("connect_four_solver", game, mover)
        opponent = load_bot("random", game, 1 - mover, seed=trial)
        while not state.is_terminal():
            player = bot if state.current_player() == mover else opponent
            move = player.step(state)
            assert move in state.legal_actions()
            state.apply_action(move)
        assert state.returns()[mover] >= start  # perfect play never ends below the value
    assert starts.count(1) >= 3  # won games that no win in one decided


def test_the_bot_with_a_node_budget_prefers_an_unsolved_move_to_a_known_loss() -> None:
    game = pyspiel.load_game("connect_four")
    state = game.new_initial_state()
    # o holds columns 0-2 of the second row, column 3 is empty: x playing the centre lets o
    # win at once above it, a loss known without search; every other move needs a search
    for move in [0, 0, 1, 1, 6, 2, 6, 2]:
        state.apply_action(move)
    assert not any(state.child(move).is_terminal() for move in state.legal_actions())
    assert state.child(3).child(3).is_terminal()
    bot = load_bot("connect_four_solver", game, state.current_player(), nodes=1)
    before = bot.solver.nodes
    move = bot.step(state)
    assert move != 3 and move in state.legal_actions()
    assert bot.solver.nodes - before <= 1  # the budget is exact


def test_the_bot_with_a_node_budget_answers_from_the_empty_board() -> None:
    game = pyspiel.load_game("connect_four")
    bot = load_bot("connect_four_solver", game, 0, nodes=5_000)
    before = bot.solver.nodes
    assert bot.step(game.new_initial_state()) == 3  # the centre: no move solved, none lost
    assert bot.solver.nodes - before <= 5_000


def _play_match(directory: Path, games: int, opening: str, seed: int, bots: dict[str, str]) -> None:
    """A connect_four tournament of `bots` (label: bot name) into `directory`, inline; `opening`
    is its opening line (`opening_moves = N` or `openings = "FILE"`)."""
    seats = "".join(f'[[bots]]\nlabel = "{label}"\nbot = "{bot}"\n' for label, bot in bots.items())
    config = f"""
[tournament]
games = ["connect_four"]
games_per_pairing = {games}
seconds_per_move = 1.0
{opening}
seed = {seed}
[run]
output = "{directory}"
executor = "inline"
{seats}"""
    run_tournament(parse_config(config))


def test_the_judge_finds_no_error_in_perfect_play(tmp_path: Path) -> None:
    bots = {"solver": "connect_four_solver", "random": "random"}
    _play_match(tmp_path / "match", 4, "opening_moves = 13", 5, bots)
    perfect, blind = judge_tournament(tmp_path / "match", ["solver", "random"])
    assert perfect.games == blind.games == 4 and perfect.moves > 0
    assert perfect.errors == 0 and perfect.low == perfect.high == 0.0
    assert perfect.score >= perfect.start_score  # it never ends worse than it started
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
    with pytest.raises(
        ValueError, match="'nobody' played no finished game of connect_four or clobber"
    ):
        judge_tournament(tmp_path / "match", ["nobody"])


def _errors_by_move_values(directory: Path, label: str) -> int:
    """The moves of `label` after the opening that were not of the best solved value."""
    errors = 0
    for record in GameStore(directory).read_records():
        game = pyspiel.load_game(record.game)
        solver = ConnectFourSolver(game)
        skip = record.opening_plies
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
    bots = {"first": "connect_four_solver", "second": "connect_four_solver"}
    _play_match(tmp_path / "match", 2, f'openings = "{openings}"', 1, bots)
    for result in judge_tournament(tmp_path / "match", ["first", "second"]):
        assert result.games == 2 and result.moves == 1  # one game won at once, one never moved
        assert result.outcomes == {("win", "win"): 1, ("loss", "loss"): 1}
        assert result.score == result.start_score == 0.5


def _first_legal(state: pyspiel.State) -> int:
    return int(state.legal_actions()[0])
