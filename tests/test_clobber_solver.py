"""The clobber solver and the `clobber_solver` bot: values equal to brute force, moves of the
best value, budgets, clear refusals, and the fallback where the solver runs out of time."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyspiel
import pytest

from spiel_bounded import native
from spiel_bounded.arena.config import parse_config
from spiel_bounded.arena.perfect_play import critical_positions, judge_tournament, move_accuracy
from spiel_bounded.arena.runner import run_tournament
from spiel_bounded.arena.store import GameStore
from spiel_bounded.judges.clobber import ClobberSolver, check_clobber
from spiel_bounded.judges.exact import check_solvable, exact_solver
from spiel_bounded.registry import load_bot
from tests.markers import needs_native

pytestmark = needs_native


def _quiet_positions(game: pyspiel.Game, seed: int, plies: int, count: int) -> list[pyspiel.State]:
    """`count` states `plies` random moves in where no move ends the game at once (so the
    solver must search)."""
    rng = np.random.default_rng(seed)
    found: list[pyspiel.State] = []
    for _ in range(200 * count):
        state = game.new_initial_state()
        for _ in range(plies):
            if state.is_terminal():
                break
            state.apply_action(int(rng.choice(state.legal_actions())))
        if not state.is_terminal() and not any(
            state.child(move).is_terminal() for move in state.legal_actions()
        ):
            found.append(state)
            if len(found) == count:
                return found
    raise AssertionError(f"only {len(found)} quiet positions found")


def _exact(state: pyspiel.State, memo: dict[tuple[str, int], int] | None = None) -> int:
    """The value for the player to move by brute force (every move tried), positions memoised
    by their board and player (`oracles.solve` memoises no clobber position)."""
    memo = {} if memo is None else memo
    key = (str(state), state.current_player())
    if key not in memo:
        memo[key] = max(
            1 if (child := state.child(move)).is_terminal() else -_exact(child, memo)
            for move in state.legal_actions()
        )
    return memo[key]


BOARDS = [
    ("clobber(rows=3,columns=4)", 0),
    ("clobber(rows=2,columns=7)", 0),
    ("clobber(rows=3,columns=5)", 2),
    ("clobber(rows=4,columns=4)", 4),
    ("clobber(rows=4,columns=5)", 8),
    ("clobber", 14),  # 5 x 6, OpenSpiel's default
    ("clobber(rows=8,columns=8)", 44),  # 64 cells, every bit of the word
]


@pytest.mark.parametrize(("game_string", "plies"), BOARDS)
def test_values_and_move_values_equal_brute_force(game_string: str, plies: int) -> None:
    game = pyspiel.load_game(game_string)
    solver = ClobberSolver(game)
    states = (
        [game.new_initial_state()]
        if plies == 0
        else _quiet_positions(game, seed=plies, plies=plies, count=4)
    )
    memo: dict[tuple[str, int], int] = {}
    for state in states:
        assert solver.value(state) == _exact(state, memo), str(state)
        move_values = solver.move_values(state)
        assert move_values is not None
        assert list(move_values) == state.legal_actions()  # OpenSpiel's order
        for move, value in move_values.items():
            child = state.child(move)
            expected = 1 if child.is_terminal() else -_exact(child, memo)
            assert value == expected, (str(state), move)


def test_values_at_the_end_of_the_game() -> None:
    """A move that makes the last capture wins; a position with one capture left is won."""
    game = pyspiel.load_game("clobber(rows=3,columns=4)")
    rng = np.random.default_rng(3)
    memo: dict[tuple[str, int], int] = {}
    checked = 0
    for _ in range(30):
        state = game.new_initial_state()
        while not state.is_terminal():
            solver = ClobberSolver(game, table_bits=10)
            assert solver.value(state) == _exact(state, memo)
            state.apply_action(int(rng.choice(state.legal_actions())))
            checked += 1
    assert checked > 150


def test_best_move_is_a_move_of_perfect_play() -> None:
    values = []
    for game_string, plies in (("clobber(rows=4,columns=5)", 6), ("clobber", 14)):
        game = pyspiel.load_game(game_string)
        solver = ClobberSolver(game)
        memo: dict[tuple[str, int], int] = {}
        for state in _quiet_positions(game, seed=7, plies=plies, count=8):
            found = solver.best_move(state)
            assert found is not None
            move, value = found
            assert move in state.legal_actions()
            assert value == _exact(state, memo)
            values.append(value)
            if value == 1:
                assert _exact(state.child(move), memo) == -1  # the move keeps the win
    assert set(values) == {1, -1}  # both kinds of position were tested


def test_a_solver_keeps_its_table_across_questions() -> None:
    game = pyspiel.load_game("clobber")
    solver = ClobberSolver(game)
    (state,) = _quiet_positions(game, seed=11, plies=10, count=1)
    first = solver.value(state)
    spent = solver.nodes
    assert solver.value(state) == first
    assert solver.nodes == spent + 1  # the root, found in the table


def test_budgets_that_run_out_answer_none() -> None:
    game = pyspiel.load_game("clobber")
    state = game.new_initial_state()  # far beyond a few positions
    solver = ClobberSolver(game)
    assert solver.value(state, nodes=100) is None
    assert solver.move_values(state, nodes=100) is None
    assert solver.best_move(state, nodes=100) is None


def test_refusals_name_what_is_wrong() -> None:
    assert check_clobber(pyspiel.load_game("clobber")) == ""
    assert "clobber only, not connect_four" in check_clobber(pyspiel.load_game("connect_four"))
    too_big = pyspiel.load_game("clobber(rows=9,columns=8)")
    assert "<= 64 cells with fewer than 64 columns, not 9 x 8" in check_clobber(too_big)
    with pytest.raises(ValueError, match="<= 64 cells"):
        ClobberSolver(too_big)
    game = pyspiel.load_game("clobber(rows=2,columns=2)")
    state = game.new_initial_state()
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    with pytest.raises(ValueError, match="terminal clobber state"):
        ClobberSolver(game).value(state)
    engine = native.module()
    solver = engine.ClobberSolver(5, 6, 10)
    with pytest.raises(ValueError, match=r"move 0 \(action 0\) is not legal"):
        solver.solve([0])  # the top-left piece cannot capture upwards
    with pytest.raises(ValueError, match=r"move 1 \(action 7\) is not legal"):
        solver.solve([1, 7])  # the piece the first move captured cannot capture back
    with pytest.raises(ValueError, match=r"move 0 \(action 999\) is not legal"):
        solver.solve([999])
    with pytest.raises(ValueError, match="rows \\* columns <= 64"):
        engine.ClobberSolver(9, 8, 10)
    with pytest.raises(ValueError, match="fewer than 64 columns, got 1 x 64"):
        engine.ClobberSolver(1, 64, 10)
    with pytest.raises(ValueError, match="got 65536 x 65536"):
        engine.ClobberSolver(65536, 65536, 10)
    with pytest.raises(ValueError, match="table_bits"):
        engine.ClobberSolver(5, 6, 40)
    other = pyspiel.load_game("clobber(rows=5,columns=5)").new_initial_state()
    with pytest.raises(ValueError, match=r"solver of clobber.* was given a state of clobber"):
        ClobberSolver(pyspiel.load_game("clobber(rows=4,columns=5)")).value(other)


def test_the_bot_keeps_every_won_position_against_a_random_opponent() -> None:
    game = pyspiel.load_game("clobber")
    judge = ClobberSolver(game)
    rng = np.random.default_rng(5)
    won = 0
    for state in _quiet_positions(game, seed=21, plies=12, count=12):
        player = state.current_player()
        if judge.value(state) != 1:
            continue
        bot = load_bot("clobber_solver", game, player)
        while not state.is_terminal():
            if state.current_player() == player:
                state.apply_action(bot.step(state))
            else:
                state.apply_action(int(rng.choice(state.legal_actions())))
        assert state.returns()[player] == 1
        won += 1
    assert won >= 3


def test_the_bot_falls_back_to_bounded_ab_when_its_budget_runs_out() -> None:
    game = pyspiel.load_game("clobber")
    state = game.new_initial_state()  # far beyond 100 positions
    bot = load_bot("clobber_solver", game, 0, nodes=100, evaluator="zero")
    assert bot.step(state) in state.legal_actions()
    assert (bot.solved, bot.searched) == (0, 1)
    (late,) = _quiet_positions(game, seed=3, plies=20, count=1)
    bot = load_bot("clobber_solver", game, late.current_player(), nodes=100_000)
    assert bot.step(late) in late.legal_actions()
    assert (bot.solved, bot.searched) == (1, 0)
    timed = load_bot("clobber_solver", game, 0, seconds=0.1, solve_share=0.25)
    assert timed.seconds == pytest.approx(0.025)  # the solver's share; bounded_ab has the rest
    assert timed.fallback is not None
    assert load_bot("clobber_solver", game, 0).fallback is None  # perfect play needs none
    for bad in ({"solve_share": 1.0}, {"solve_share": 0.0}, {"seconds": -1.0}):
        with pytest.raises(ValueError, match=r"solve_share|seconds"):
            load_bot("clobber_solver", game, 0, **bad)
    with pytest.raises(ValueError, match="clobber only"):
        load_bot("clobber_solver", "connect_four", 0)


def _lost_positions(game: pyspiel.Game, count: int) -> list[pyspiel.State]:
    """`count` quiet positions lost for the player to move, with more than one move."""
    judge = ClobberSolver(game)
    found = [
        state
        for state in _quiet_positions(game, seed=8, plies=7, count=8 * count)
        if len(state.legal_actions()) > 1 and judge.value(state) == -1
    ]
    assert len(found) >= count
    return found[:count]


def test_in_lost_positions_the_swindles_play_what_they_promise() -> None:
    game = pyspiel.load_game("clobber(rows=4,columns=5)")
    memo: dict[tuple[str, int], int] = {}
    mattered = ties = 0
    for state in _lost_positions(game, 30):
        player = state.current_player()

        def losing_share(move: int, state: pyspiel.State = state) -> float:
            child = state.child(move)  # the opponent's replies that lose, by brute force
            replies = [child.child(reply) for reply in child.legal_actions()]
            lose = [not reply.is_terminal() and _exact(reply, memo) == 1 for reply in replies]
            return sum(lose) / len(lose)

        shares = {move: losing_share(move) for move in state.legal_actions()}
        mattered += max(shares.values()) > min(shares.values())
        errors = load_bot("clobber_solver", game, player, swindle="errors")
        assert shares[errors.step(state)] == max(shares.values())
        work = load_bot("clobber_solver", game, player).step(state)
        tied = load_bot("clobber_solver", game, player, swindle="errors", nodes=10**6)
        best = [move for move in state.legal_actions() if shares[move] == max(shares.values())]
        if work in best[1:]:  # ties keep the work move, not the first in OpenSpiel's order
            assert tied.step(state) == work
            ties += 1
        search = load_bot("clobber_solver", game, player, swindle="search", nodes=10**6)
        reference = load_bot("bounded_ab", game, player, nodes=10**6, evaluator="zero")
        assert search.step(state) == reference.step(state)
        assert (search.solved, search.searched) == (1, 0)
    assert mattered >= 2 and ties >= 1  # positions where the choice and the tie matter
    with pytest.raises(ValueError, match="swindle='search' needs seconds or nodes"):
        load_bot("clobber_solver", game, 0, swindle="search")
    with pytest.raises(ValueError, match="work, errors, search"):
        load_bot("clobber_solver", game, 0, swindle="luck")


def test_the_judge_finds_no_error_in_perfect_play_and_counts_the_others(tmp_path: Path) -> None:
    directory = tmp_path / "match"
    config = f"""
[tournament]
games = ["clobber(rows=4,columns=5)"]
games_per_pairing = 6
opening_moves = 2
seed = 9
[run]
output = "{directory}"
executor = "inline"
[[bots]]
label = "solver"
bot = "clobber_solver"
[[bots]]
label = "random"
bot = "random"
"""
    run_tournament(parse_config(config))
    perfect, blind = judge_tournament(directory, ["solver", "random"])
    assert perfect.games == blind.games == 6 and perfect.moves > 0
    assert perfect.errors == 0 and perfect.low == perfect.high == 0.0
    assert perfect.score >= perfect.start_score
    errors = 0  # the random bot's moves not of the best solved value, counted independently
    for record in GameStore(directory).read_records():
        game = pyspiel.load_game(record.game)
        solver = ClobberSolver(game)
        state = game.new_initial_state()
        for ply, action in enumerate(record.actions):
            if ply >= record.opening_plies and record.seats[state.current_player()] == "random":
                values = solver.move_values(state)
                assert values is not None
                errors += values[action] < max(values.values())
            state.apply_action(action)
    assert blind.errors == errors > 0

    game, positions, values = critical_positions(directory, 20, seed=1)
    assert positions and all(len(set(moves.values())) > 1 for moves in values)
    seats = [load_bot("clobber_solver", game, player) for player in range(2)]
    accuracy = move_accuracy(
        "solver", lambda state: seats[state.current_player()].step(state), game, positions, values
    )
    assert accuracy.errors == 0


def test_the_games_with_an_exact_solver() -> None:
    assert isinstance(exact_solver(pyspiel.load_game("clobber")), ClobberSolver)
    assert check_solvable(pyspiel.load_game("connect_four")) == ""
    assert "connect_four and clobber only, not hex" in check_solvable(pyspiel.load_game("hex"))
    with pytest.raises(ValueError, match="not hex"):
        exact_solver(pyspiel.load_game("hex"))
