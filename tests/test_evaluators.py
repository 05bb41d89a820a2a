"""Tests for the leaf evaluators: range, determinism, reference agreement and signs."""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pyspiel
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spiel_bounded import testing
from spiel_bounded.evaluators import (
    EVALUATOR_NAMES,
    HEURISTIC_GAMES,
    Evaluator,
    HeuristicEvaluator,
    RolloutEvaluator,
    ZeroEvaluator,
    check_values,
    has_heuristic,
    make_evaluator,
)
from spiel_bounded.evaluators.heuristics import (
    BREAKTHROUGH_ADVANCE,
    BREAKTHROUGH_DEFENDED,
    BREAKTHROUGH_NEAR_PROMOTION,
    BREAKTHROUGH_PIECE,
    CONNECT_FOUR_CENTRE_BONUS,
    LINE_WEIGHT_BASE,
)
from spiel_bounded.evaluators.heuristics_nplayer import ChineseCheckersScorer
from spiel_bounded.games import game_info

# --------------------------------------------------------------------------- helpers


def random_positions(
    game: pyspiel.Game, count: int, seed: int, *, max_plies: int = 80
) -> list[pyspiel.State]:
    """Non-terminal positions after 0 .. max_plies random actions, chance nodes included."""
    return testing.random_positions(
        game, count, plies=(0, max_plies), seed=seed, count_chance=True, decisions_only=False
    )


def play(game: pyspiel.Game, moves: Sequence[int | str]) -> pyspiel.State:
    """The state after `moves`, given as action ids or action strings."""
    state = game.new_initial_state()
    for move in moves:
        if isinstance(move, str):
            by_name = {state.action_to_string(a): a for a in state.legal_actions()}
            state.apply_action(by_name[move])
        else:
            assert move in state.legal_actions(), (move, str(state))
            state.apply_action(move)
    return state


def assert_in_range(evaluator: Evaluator, game: pyspiel.Game, states: list[pyspiel.State]) -> None:
    info = game_info(game)
    for state in states:
        check_values(evaluator.evaluate(state), evaluator, info)


def assert_strictly_inside(values: Sequence[float], game: pyspiel.Game) -> None:
    assert all(game.min_utility() < v < game.max_utility() for v in values), values


def board(state: pyspiel.State) -> list[str]:
    """The board rows of a connect_four / tic_tac_toe state, top row first."""
    return str(state).strip("\n").split("\n")


# --------------------------------------------------------------------------- slow references


def reference_line_game_score(
    rows: list[str], window: int, centre_bonus: int, centre_columns: set[int]
) -> int:
    """Loops over every window of every direction; x = player 0, o = player 1."""
    height, width = len(rows), len(rows[0])
    total = 0
    for row in range(height):
        for column in range(width):
            for d_row, d_column in ((0, 1), (1, 0), (1, 1), (1, -1)):
                end_row = row + (window - 1) * d_row
                end_column = column + (window - 1) * d_column
                if not (0 <= end_row < height and 0 <= end_column < width):
                    continue
                cells = [rows[row + i * d_row][column + i * d_column] for i in range(window)]
                xs, os = cells.count("x"), cells.count("o")
                if xs and not os:
                    total += LINE_WEIGHT_BASE ** (xs - 1)
                elif os and not xs:
                    total -= LINE_WEIGHT_BASE ** (os - 1)
    for column in centre_columns:
        for row in range(height):
            total += centre_bonus * {"x": 1, "o": -1}.get(rows[row][column], 0)
    return total


def reference_connect_four(state: pyspiel.State, columns: int, window: int) -> int:
    centre = {(columns - 1) // 2, columns // 2}
    return reference_line_game_score(board(state), window, CONNECT_FOUR_CENTRE_BONUS, centre)


def reference_breakthrough(state: pyspiel.State, rows: int, columns: int) -> int:
    """Per-cell loop: black ('b', player 0) starts at the top and moves down."""
    lines = str(state).split("\n")[:rows]
    grid = [line[1 : 1 + columns] for line in lines]
    goal = rows - 1

    def weight(distance: int) -> int:
        if distance == goal:
            return BREAKTHROUGH_PIECE + 2 * (BREAKTHROUGH_ADVANCE + BREAKTHROUGH_NEAR_PROMOTION)
        quadratic = (BREAKTHROUGH_ADVANCE * distance * distance) // max(1, (goal - 1) ** 2)
        near = BREAKTHROUGH_NEAR_PROMOTION if distance == goal - 1 else 0
        return BREAKTHROUGH_PIECE + distance + quadratic + near

    def at(row: int, column: int) -> str:
        inside = 0 <= row < rows and 0 <= column < columns
        return grid[row][column] if inside else "."

    total = 0
    for row in range(rows):
        for column in range(columns):
            cell = grid[row][column]
            if cell == "b":
                total += weight(row)
                if "b" in (at(row - 1, column - 1), at(row - 1, column + 1)):
                    total += BREAKTHROUGH_DEFENDED
            elif cell == "w":
                total -= weight(goal - row)
                if "w" in (at(row + 1, column - 1), at(row + 1, column + 1)):
                    total -= BREAKTHROUGH_DEFENDED
    return total


# --------------------------------------------------------------------------- range

RANGE_CASES = [
    ("zero", "tic_tac_toe"),
    ("zero", "pig(players=3)"),
    ("rollout", "tic_tac_toe"),
    ("rollout", "connect_four"),
    ("rollout", "breakthrough(rows=6,columns=5)"),
    ("rollout", "pig(players=3,winscore=20)"),
    ("rollout", "kuhn_poker(players=3)"),
    ("heuristic", "tic_tac_toe"),
    ("heuristic", "connect_four"),
    ("heuristic", "connect_four(rows=5,columns=6,x_in_row=3)"),
    ("heuristic", "breakthrough"),
    ("heuristic", "breakthrough(rows=5,columns=4)"),
]


@pytest.mark.parametrize(("name", "game_string"), RANGE_CASES)
def test_values_in_range_on_random_positions(name: str, game_string: str) -> None:
    game = pyspiel.load_game(game_string)
    evaluator = make_evaluator(name, game, rollouts=2, seed=3)
    assert evaluator.name == name
    assert_in_range(evaluator, game, random_positions(game, 60, seed=11))


def test_heuristic_values_strictly_inside_range_and_mirrored() -> None:
    for game_string in ("tic_tac_toe", "connect_four", "breakthrough"):
        game = pyspiel.load_game(game_string)
        evaluator = HeuristicEvaluator(game)
        for state in random_positions(game, 100, seed=5):
            values = evaluator.evaluate(state)
            assert len(values) == 2
            assert_strictly_inside(values, game)
            assert values[0] == pytest.approx(-values[1])
            assert abs(values[0]) <= 0.95 * game.max_utility()


# --------------------------------------------------------------------------- rollout


def test_rollout_same_seed_same_values() -> None:
    game = pyspiel.load_game("connect_four")
    states = random_positions(game, 30, seed=1)
    first = RolloutEvaluator(game, seed=7)
    second = RolloutEvaluator(game, seed=7)
    assert [list(first.evaluate(s)) for s in states] == [list(second.evaluate(s)) for s in states]
    from_generator = RolloutEvaluator(game, seed=np.random.default_rng(7))
    again = RolloutEvaluator(game, seed=np.random.default_rng(7))
    assert [list(from_generator.evaluate(s)) for s in states] == [
        list(again.evaluate(s)) for s in states
    ]


def test_rollout_same_seed_same_values_with_chance_and_three_players() -> None:
    game = pyspiel.load_game("pig(players=3,winscore=20)")
    states = random_positions(game, 20, seed=2)
    first = RolloutEvaluator(game, rollouts=3, seed=9)
    second = RolloutEvaluator(game, rollouts=3, seed=9)
    assert [list(first.evaluate(s)) for s in states] == [list(second.evaluate(s)) for s in states]


def test_rollout_different_seeds_differ() -> None:
    game = pyspiel.load_game("connect_four")
    state = game.new_initial_state()
    states = random_positions(game, 10, seed=4)
    sequences = {
        tuple(tuple(RolloutEvaluator(game, seed=seed).evaluate(s)) for s in states)
        for seed in range(5)
    }
    assert len(sequences) == 5
    evaluator = RolloutEvaluator(game, seed=0)
    assert len({tuple(evaluator.evaluate(state)) for _ in range(30)}) > 1  # not a fixed playout


def test_rollout_chance_seed_is_drawn_per_call() -> None:
    # In pig the bots' moves and the dice both matter; repeated calls must not repeat the dice.
    game = pyspiel.load_game("pig(players=2,winscore=10)")
    evaluator = RolloutEvaluator(game, rollouts=1, seed=4)
    state = game.new_initial_state()
    assert len({tuple(evaluator.evaluate(state)) for _ in range(40)}) > 1


def test_rollout_mean_in_range_and_on_the_grid() -> None:
    game = pyspiel.load_game("tic_tac_toe")
    evaluator = RolloutEvaluator(game, rollouts=8, seed=0)
    for state in random_positions(game, 40, seed=3):
        values = evaluator.evaluate(state)
        check_values(values, evaluator, game_info(game))
        assert values[0] == pytest.approx(-values[1])
        assert (values[0] * 8) == pytest.approx(round(values[0] * 8))


@pytest.mark.parametrize("rollouts", [1, 5])
def test_rollout_forced_win_is_exact(rollouts: int) -> None:
    # x: 0 1 5 6, o: 3 4 7 8; x to move, the only empty cell 2 completes the top row.
    game = pyspiel.load_game("tic_tac_toe")
    state = play(game, [0, 3, 1, 4, 5, 7, 6, 8])
    assert state.legal_actions() == [2]
    evaluator = RolloutEvaluator(game, rollouts=rollouts, seed=1)
    for _ in range(5):
        assert list(evaluator.evaluate(state)) == [1.0, -1.0]


def test_rollout_forced_draw_is_exact() -> None:
    # x o x / x o o / o x . : x to move, the last cell 8 makes no line.
    game = pyspiel.load_game("tic_tac_toe")
    state = play(game, [0, 1, 2, 4, 3, 5, 7, 6])
    assert state.legal_actions() == [8]
    assert list(RolloutEvaluator(game, rollouts=3).evaluate(state)) == [0.0, 0.0]


def test_rollout_leaves_state_unchanged_and_handles_chance_nodes() -> None:
    game = pyspiel.load_game("pig(players=3,winscore=20)")
    state = play(game, [0])  # player 0 rolls: a chance node
    assert state.is_chance_node()
    before = str(state), state.history()
    values = RolloutEvaluator(game, rollouts=4, seed=2).evaluate(state)
    check_values(values, RolloutEvaluator(game), game_info(game))
    assert (str(state), state.history()) == before


def test_rollout_backgammon_from_the_opening_chance_node() -> None:
    game = pyspiel.load_game("backgammon")  # ~1 ms per playout: keep this small
    state = game.new_initial_state()
    assert state.is_chance_node()
    first = RolloutEvaluator(game, rollouts=2, seed=5)
    second = RolloutEvaluator(game, rollouts=2, seed=5)
    values = [list(first.evaluate(state)) for _ in range(4)]
    assert values == [list(second.evaluate(state)) for _ in range(4)]
    for value in values:
        check_values(value, first, game_info(game))


def test_rollout_on_terminal_state_returns_returns() -> None:
    game = pyspiel.load_game("tic_tac_toe")
    state = play(game, [0, 3, 1, 4, 2])
    assert state.is_terminal()
    assert list(RolloutEvaluator(game).evaluate(state)) == state.returns()


@pytest.mark.parametrize("rollouts", [0, -1, 1.5, True, "2"])
def test_rollout_rejects_bad_rollouts(rollouts: object) -> None:
    game = pyspiel.load_game("tic_tac_toe")
    with pytest.raises(ValueError, match=r"rollouts must be an integer >= 1, got"):
        RolloutEvaluator(game, rollouts=rollouts)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"rollouts must be an integer >= 1"):
        make_evaluator("rollout", game, rollouts=rollouts)  # type: ignore[arg-type]


@pytest.mark.parametrize("seed", [-1, None, 2.0, True])
def test_rollout_rejects_bad_seed(seed: object) -> None:
    game = pyspiel.load_game("tic_tac_toe")
    with pytest.raises(ValueError, match=r"seed must be a non-negative integer or a numpy"):
        RolloutEvaluator(game, seed=seed)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- connect four


def test_connect_four_board_layout() -> None:
    game = pyspiel.load_game("connect_four")
    state = play(game, [3, 3, 4, 0])
    assert board(state)[-1] == "o..xx.."  # bottom row printed last, x = player 0
    assert board(state)[-2] == "...o..."


@pytest.mark.parametrize(
    ("game_string", "columns", "window"),
    [
        ("connect_four", 7, 4),
        ("connect_four(rows=5,columns=6,x_in_row=3)", 6, 3),
        ("connect_four(rows=4,columns=9,x_in_row=5)", 9, 5),
    ],
)
def test_connect_four_fast_score_equals_reference(
    game_string: str, columns: int, window: int
) -> None:
    game = pyspiel.load_game(game_string)
    evaluator = HeuristicEvaluator(game)
    states = random_positions(game, 1000, seed=13, max_plies=game.max_game_length())
    for state in states:
        assert evaluator.score(state) == reference_connect_four(state, columns, window), str(state)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=6), max_size=42))
def test_connect_four_fast_score_equals_reference_hypothesis(choices: list[int]) -> None:
    game = pyspiel.load_game("connect_four")
    evaluator = HeuristicEvaluator(game)
    state = game.new_initial_state()
    for choice in choices:
        if state.is_terminal():
            break
        legal = state.legal_actions()
        state.apply_action(legal[choice % len(legal)])
    assert evaluator.score(state) == reference_connect_four(state, 7, 4)


def test_connect_four_lines_and_corner_piece() -> None:
    evaluator = HeuristicEvaluator(pyspiel.load_game("connect_four"))
    # 6 rows, 7 columns and 6 + 6 diagonals of length >= 4 hold the 69 windows.
    assert evaluator.scorer.lines == 6 + 7 + 6 + 6  # type: ignore[attr-defined]
    # One x in the corner: it lies in 3 windows (row, column, diagonal), each worth 1.
    state = play(pyspiel.load_game("connect_four"), [0])
    assert evaluator.score(state) == 3


def test_connect_four_signs() -> None:
    game = pyspiel.load_game("connect_four")
    evaluator = HeuristicEvaluator(game)
    assert evaluator.score(game.new_initial_state()) == 0
    x_three = play(game, [0, 6, 1, 6, 2])  # x on a1 b1 c1 (d1 open), o stacked on g
    o_three = play(game, [6, 0, 6, 1, 5, 2])  # the mirror: o holds a1 b1 c1
    assert evaluator.evaluate(x_three)[0] > 0.1 > 0 > -0.1 > evaluator.evaluate(x_three)[1]
    assert evaluator.evaluate(o_three)[1] > 0.1 > 0 > -0.1 > evaluator.evaluate(o_three)[0]
    # The centre column is worth more than the edge.
    assert evaluator.score(play(game, [3])) > evaluator.score(play(game, [0]))
    assert_strictly_inside(evaluator.evaluate(x_three), game)


# --------------------------------------------------------------------------- breakthrough


def test_breakthrough_board_layout() -> None:
    game = pyspiel.load_game("breakthrough")
    state = play(game, ["a7a6"])  # player 0 is black, starting at the top, moving down
    lines = str(state).split("\n")
    assert lines[1] == "7.bbbbbbb"
    assert lines[2] == "6b......."
    assert lines[8] == " abcdefgh"


@pytest.mark.parametrize(
    ("game_string", "rows", "columns"),
    [
        ("breakthrough", 8, 8),
        ("breakthrough(rows=6,columns=5)", 6, 5),
        ("breakthrough(rows=10,columns=3)", 10, 3),  # row label "10" prints as ":"
        ("breakthrough(rows=4,columns=12)", 4, 12),
    ],
)
def test_breakthrough_fast_score_equals_reference(
    game_string: str, rows: int, columns: int
) -> None:
    game = pyspiel.load_game(game_string)
    evaluator = HeuristicEvaluator(game)
    for state in random_positions(game, 150, seed=17, max_plies=150):
        assert evaluator.score(state) == reference_breakthrough(state, rows, columns), str(state)


def test_breakthrough_signs() -> None:
    game = pyspiel.load_game("breakthrough")
    evaluator = HeuristicEvaluator(game)
    assert evaluator.score(game.new_initial_state()) == 0  # symmetric start
    # Black (player 0) captures a white pawn on e4.
    capture = play(game, ["d7d6", "e2e3", "d6d5", "e3e4", "d5e4*"])
    values = evaluator.evaluate(capture)
    assert values[0] > 0.1 and values[1] < -0.1
    assert_strictly_inside(values, game)
    # White (player 1) captures on g7, one step from promotion: very good for white.
    runner = play(
        game, ["a7a6", "h2h3", "a6a5", "h3h4", "a5a4", "h4h5", "b7b6", "h5h6", "b6b5", "h6g7*"]
    )
    assert evaluator.evaluate(runner)[1] > 0.5
    assert_strictly_inside(evaluator.evaluate(runner), game)
    # Advancing improves a player's score.
    assert evaluator.score(play(game, ["d7d6", "a2a3"])) == 0
    assert evaluator.score(play(game, ["d7d6", "a2a3", "d6d5"])) > 0


# --------------------------------------------------------------------------- tic-tac-toe


def test_tic_tac_toe_fast_score_equals_reference() -> None:
    game = pyspiel.load_game("tic_tac_toe")
    evaluator = HeuristicEvaluator(game)
    for state in random_positions(game, 300, seed=19, max_plies=9):
        expected = reference_line_game_score(board(state), 3, 0, set())
        assert evaluator.score(state) == expected, str(state)


def test_tic_tac_toe_signs() -> None:
    game = pyspiel.load_game("tic_tac_toe")
    evaluator = HeuristicEvaluator(game)
    assert evaluator.score(game.new_initial_state()) == 0
    assert evaluator.score(play(game, [4])) == 4  # the centre lies on 4 lines
    assert evaluator.score(play(game, [0])) == 3
    two_open = play(game, [0, 4, 1])  # x threatens 2 (o in the centre)
    assert evaluator.evaluate(two_open)[0] > 0
    o_ahead = play(game, [0, 4, 8, 2])  # o threatens 6 and has the centre
    assert evaluator.evaluate(o_ahead)[1] > evaluator.evaluate(o_ahead)[0]
    assert_strictly_inside(evaluator.evaluate(two_open), game)


# --------------------------------------------------------------------------- factory and errors


def test_make_evaluator_by_name() -> None:
    game = pyspiel.load_game("tic_tac_toe")
    assert EVALUATOR_NAMES == ("zero", "rollout", "heuristic", "seeded_rollout")
    assert isinstance(make_evaluator("zero", game), ZeroEvaluator)
    rollout = make_evaluator("rollout", game, rollouts=3, seed=np.random.default_rng(1))
    assert isinstance(rollout, RolloutEvaluator) and rollout.rollouts == 3
    assert isinstance(make_evaluator("heuristic", game), HeuristicEvaluator)
    for name in EVALUATOR_NAMES:
        assert isinstance(make_evaluator(name, game), Evaluator)


def test_make_evaluator_passes_objects_through() -> None:
    game = pyspiel.load_game("tic_tac_toe")

    class Constant:
        name = "constant"

        def evaluate(self, state: pyspiel.State) -> Sequence[float]:
            return (0.0, 0.0)

    custom = Constant()
    assert make_evaluator(custom, game) is custom
    zero = ZeroEvaluator(game)
    assert make_evaluator(zero, game) is zero


def test_make_evaluator_rejects_unknown_name() -> None:
    game = pyspiel.load_game("tic_tac_toe")
    with pytest.raises(
        ValueError,
        match=(
            r"^unknown evaluator 'mcts'; accepted: zero, rollout, heuristic, seeded_rollout, "
            r"net:PATH \(a trained value network\), mix:W:FIRST\+SECOND \(weighted mean, SECOND "
            r"weighted W\)$"
        ),
    ):
        make_evaluator("mcts", game)


@pytest.mark.parametrize("spec", [42, None, object()])
def test_make_evaluator_rejects_non_evaluators(spec: object) -> None:
    game = pyspiel.load_game("tic_tac_toe")
    with pytest.raises(ValueError, match=type(spec).__name__):
        make_evaluator(spec, game)  # type: ignore[arg-type]


def test_heuristic_rejects_games_without_one() -> None:
    game = pyspiel.load_game("kuhn_poker")
    assert not has_heuristic(game)
    message = (
        r"^no heuristic for kuhn_poker; heuristics exist for: amazons, backgammon, "
        r"bounded_random_tree, breakthrough, chinese_checkers, connect_four, maedn, pig, "
    )
    with pytest.raises(ValueError, match=message + r"tic_tac_toe, yacht$"):
        HeuristicEvaluator(game)
    with pytest.raises(ValueError, match=message):
        make_evaluator("heuristic", game)


def test_heuristic_games_listed() -> None:
    assert set(HEURISTIC_GAMES) == {
        "amazons",
        "backgammon",
        "bounded_random_tree",
        "breakthrough",
        "chinese_checkers",
        "connect_four",
        "maedn",
        "pig",
        "tic_tac_toe",
        "yacht",
    }
    for name in HEURISTIC_GAMES:
        game = pyspiel.load_game(name)
        assert has_heuristic(game)
        assert HeuristicEvaluator(game).game_name == name


@pytest.mark.parametrize(
    ("game_string", "expected"),
    [("chinese_checkers(players=3)", (0.0, 0.0, 0.0)), ("tic_tac_toe", (0.0, 0.0))],
)
def test_zero_keeps_the_constant_sum(game_string: str, expected: tuple[float, ...]) -> None:
    game = pyspiel.load_game(game_string)
    assert tuple(ZeroEvaluator(game).evaluate(game.new_initial_state())) == expected


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_chinese_checkers_values_keep_the_sum_and_the_range(players: int) -> None:
    game = pyspiel.load_game(f"chinese_checkers(players={players})")
    evaluator = make_evaluator("heuristic", game)
    start = evaluator.evaluate(game.new_initial_state())
    assert start == pytest.approx([0.0] * players)  # symmetric start: no one ahead
    positions = testing.random_positions(game, 30, plies=(0, 400), seed=players)
    for state in positions:
        values = evaluator.evaluate(state)
        assert sum(values) == pytest.approx(0.0, abs=1e-12)
        assert all(-1.0 < value < players - 1 for value in values)


def test_chinese_checkers_rewards_progress() -> None:
    """A player one step further on than the others is ahead."""
    game = pyspiel.load_game("chinese_checkers(players=3)")
    state = game.new_initial_state()
    scorer = ChineseCheckersScorer(game)
    before = scorer.progress(str(state))
    best = max(
        state.legal_actions(), key=lambda action: scorer.progress(str(state.child(action)))[0]
    )
    after = scorer.progress(str(state.child(best)))
    assert after[0] > before[0] == 0.0 and after[1:] == before[1:]
    values = make_evaluator("heuristic", game).evaluate(state.child(best))
    assert values[0] > values[1] == pytest.approx(values[2])


def _uniform_playout_value(state: pyspiel.State) -> float:
    """Player 0's expected return when both players move uniformly at random (exact)."""
    if state.is_terminal():
        return float(state.returns()[0])
    actions = state.legal_actions()
    return sum(_uniform_playout_value(state.child(a)) for a in actions) / len(actions)


def test_fast_rollouts_have_the_right_sign_and_mean_for_both_movers() -> None:
    # The one-simulation MCTSBot reports the mover's return; the evaluator must turn it into
    # player 0's. Positions 3 to 6 plies deep, both players to move, some lopsided: the mean of
    # 1,500 playouts is within 5 standard errors of the exact uniform-playout value.
    game = pyspiel.load_game("tic_tac_toe")
    evaluator = RolloutEvaluator(game, seed=11)
    movers = set()
    checked = 0
    for plies in (3, 4, 5, 6):
        for state in testing.random_positions(game, 6, plies=plies, seed=plies):
            exact = _uniform_playout_value(state)
            values = [evaluator.evaluate(state) for _ in range(1500)]
            assert all(v1 == -v0 for v0, v1 in values)
            mean = float(np.mean([v0 for v0, _ in values]))
            assert abs(mean - exact) <= 5 * 1.0 / np.sqrt(1500), (str(state), mean, exact)
            if abs(exact) > 0.3:  # lopsided: a flipped sign would be far off
                checked += 1
            movers.add(state.current_player())
            assert values[0][0] in (-1.0, 0.0, 1.0)  # one playout: a return, not a mean
    assert movers == {0, 1} and checked >= 4


# --------------------------------------------------------------------------- search fast paths


@pytest.mark.parametrize(
    "game_string",
    ["connect_four", "connect_four(rows=5,columns=6,x_in_row=3)", "breakthrough", "tic_tac_toe"],
)
def test_leaf_value_is_evaluate_to_the_last_bit(game_string: str) -> None:
    """`leaf_value(p)(state)` is `evaluate(state)[p]` exactly, remembered boards included."""
    game = pyspiel.load_game(game_string)
    evaluator = HeuristicEvaluator(game)
    states = random_positions(game, 300, seed=5, max_plies=game.max_game_length())
    for player in (0, 1):
        value = evaluator.leaf_value(player)
        assert value is not None
        for state in states + states:  # the second pass reads the memo
            assert value(state) == evaluator.evaluate(state)[player], str(state)


def test_leaf_value_is_none_where_there_is_no_fast_path() -> None:
    for game_string in ("pig", "backgammon", "chinese_checkers(players=3)"):
        assert HeuristicEvaluator(pyspiel.load_game(game_string)).leaf_value(0) is None


def _check_child_leaves(evaluator: HeuristicEvaluator, state: pyspiel.State) -> Counter[str]:
    """Compares `child_leaves` with building every child; counts the kinds of children seen."""
    assert evaluator.child_leaves is not None
    seen: Counter[str] = Counter()
    for player in (0, 1):
        leaves = evaluator.child_leaves(state, player)
        for move in state.legal_actions():
            child = state.child(move)
            if child.is_terminal():
                expected = (child.player_return(player), True)
                seen["draw" if expected[0] == 0 else "win"] += 1
            else:
                expected = (evaluator.evaluate(child)[player], False)
                seen["open"] += 1
            assert leaves(move) == expected, (str(state), move, player)
    return seen


@pytest.mark.parametrize(
    ("game_string", "kinds"),
    [
        ("connect_four", {"win", "open"}),
        ("connect_four(rows=5,columns=6,x_in_row=3)", {"win", "open"}),
        ("connect_four(rows=4,columns=9,x_in_row=5)", {"win", "draw", "open"}),
        ("connect_four(rows=3,columns=3,x_in_row=4)", {"draw", "open"}),  # no win possible
    ],
)
def test_connect_four_child_leaves_equal_the_children(game_string: str, kinds: set[str]) -> None:
    """Wins in every direction, full boards (draws) and ordinary children all agree."""
    game = pyspiel.load_game(game_string)
    evaluator = HeuristicEvaluator(game)
    states = random_positions(game, 400, seed=9, max_plies=game.max_game_length())
    seen = sum((_check_child_leaves(evaluator, state) for state in states), Counter())
    assert set(seen) == kinds and min(seen.values()) >= 5, seen


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=6), max_size=42))
def test_connect_four_child_leaves_equal_the_children_hypothesis(choices: list[int]) -> None:
    game = pyspiel.load_game("connect_four")
    evaluator = HeuristicEvaluator(game)
    state = game.new_initial_state()
    for choice in choices:
        legal = state.legal_actions()
        child = state.child(legal[choice % len(legal)])
        if child.is_terminal():
            break
        state = child
    _check_child_leaves(evaluator, state)


def test_child_leaves_only_for_connect_four() -> None:
    for game_string in ("tic_tac_toe", "breakthrough", "pig"):
        assert HeuristicEvaluator(pyspiel.load_game(game_string)).child_leaves is None


# Data flows one way (DESIGN.md): search -> evaluators -> games/params/limits/result. Training
# (which plays self-play with registered bots) sits above the bots, outside `evaluators/`.
_ABOVE = {"registry", "bots", "search", "training", "arena", "experiments", "testing"}


def test_evaluators_import_nothing_above_them() -> None:
    package = Path(__file__).resolve().parents[1] / "spiel_bounded"
    upward = []
    for path in sorted((package / "evaluators").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and node.module is not None:
                names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            for name in names:
                parts = name.split(".")
                if parts[0] == "spiel_bounded" and len(parts) > 1 and parts[1] in _ABOVE:
                    upward.append(f"{path.relative_to(package)}: {name}")
    assert upward == []


# --------------------------------------------------------------------------- seeded rollouts


@pytest.mark.parametrize(
    "game_string", ["connect_four", "pig", "backgammon", "chinese_checkers(players=3)", "hex"]
)
def test_seeded_rollout_values_a_state_the_same_at_every_visit(game_string: str) -> None:
    game = pyspiel.load_game(game_string)
    states = testing.random_positions(game, 6, plies=(0, 10), seed=3)
    first = make_evaluator("seeded_rollout", game)
    values = [tuple(first.evaluate(state)) for state in states]
    second = make_evaluator("seeded_rollout", game)  # a new evaluator, visiting in reverse
    assert [tuple(second.evaluate(state)) for state in reversed(states)] == values[::-1]
    for state, value in zip(states, values, strict=True):
        assert len(value) == game.num_players()
        assert all(game.min_utility() <= v <= game.max_utility() for v in value)
        assert not state.is_terminal()  # left unchanged


def test_seeded_rollout_gives_different_states_different_playouts() -> None:
    game = pyspiel.load_game("connect_four")
    states = testing.random_positions(game, 40, plies=(2, 12), seed=5)
    evaluator = make_evaluator("seeded_rollout", game)
    assert len({tuple(evaluator.evaluate(state)) for state in states}) > 1


def test_seeded_rollout_averages_its_playouts_in_steps_of_one_over_their_number() -> None:
    game = pyspiel.load_game("othello")
    states = testing.random_positions(game, 5, plies=(2, 10), seed=9)
    eight = make_evaluator("seeded_rollout", game, rollouts=8)
    one = make_evaluator("seeded_rollout", game)
    for state in states:
        value = eight.evaluate(state)
        assert value == make_evaluator("seeded_rollout", game, rollouts=8).evaluate(state)
        assert (8 * value[0]).is_integer() and value[0] == -value[1]
        assert one.evaluate(state)[0] in (-1.0, 0.0, 1.0)
    with pytest.raises(ValueError, match="rollouts"):
        make_evaluator("seeded_rollout", game, rollouts=0)
