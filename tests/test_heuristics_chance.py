"""Tests for the backgammon and pig heuristics: range, chance nodes, parsing, signs, symmetry."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pyspiel
import pytest

from spiel_bounded.evaluators import (
    HEURISTIC_GAMES,
    HeuristicEvaluator,
    check_values,
    has_heuristic,
    make_evaluator,
)
from spiel_bounded.evaluators.heuristics_chance import (
    BackgammonScorer,
    PigScorer,
    column,
    pig_turn_tables,
)
from spiel_bounded.games import game_info

# --------------------------------------------------------------------------- helpers


def sampled_positions(
    game: pyspiel.Game, games: int, seed: int, *, max_plies: int = 10_000
) -> list[pyspiel.State]:
    """Every non-terminal state of `games` seeded random playouts, chance nodes included."""
    rng = np.random.default_rng(seed)
    positions: list[pyspiel.State] = []
    for _ in range(games):
        state = game.new_initial_state()
        for _ in range(max_plies):
            if state.is_terminal():
                break
            positions.append(state.clone())
            if state.is_chance_node():
                actions, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rng.choice(actions, p=probs)))
            else:
                actions = state.legal_actions()
                state.apply_action(actions[int(rng.integers(len(actions)))])
    return positions


def mirror_backgammon(text: str) -> str:
    """`str(state)` of the position with the colours swapped (point p <-> 23 - p, x <-> o).

    Point p and point 23 - p are drawn in the same column, one on each half of the board, so the
    mirror flips the drawing upside down and swaps the checker letters (positions with stacks of
    10 or more, whose two digits read in a different order on each half, are not supported).
    """
    swap = str.maketrans("xo", "ox")
    lines = text.split("\n")
    board = [line.translate(swap) for line in reversed(lines[:13])]
    turn, previous, extra, dice, bar, scores = lines[13:19]
    turn = turn.translate(swap)
    previous = {"0": "Previous player: 1", "1": "Previous player: 0"}.get(previous[17:], previous)
    bar_line = "Bar:" + (" " if bar[4:] else "") + "x" * bar.count("o") + "o" * bar.count("x")
    x_score, o_score = scores[len("Scores, X: ") :].split(", O: ")
    tail = [turn, previous, extra, dice, bar_line, f"Scores, X: {o_score}, O: {x_score}", ""]
    return "\n".join(board + tail)


def pig_text(scores: list[int], total: int, player: int, rolling: bool = False) -> str:
    """`str(state)` of a pig position."""
    joined = " ".join(str(score) for score in scores)
    suffix = " (rolling)" if rolling else ""
    return f"Scores: {joined}, Turn total: {total}\nCurrent player: {player}{suffix}\n"


def scorer_of(evaluator: HeuristicEvaluator) -> BackgammonScorer | PigScorer:
    """The scorer object behind a backgammon or pig `HeuristicEvaluator`."""
    scorer = evaluator.scorer
    assert isinstance(scorer, BackgammonScorer | PigScorer)
    return scorer


CHANCE_GAMES = [
    ("backgammon", 12),
    ("backgammon(scoring_type=enable_gammons)", 6),
    ("backgammon(scoring_type=full_scoring)", 6),
    ("backgammon(hyper_backgammon=true)", 20),
    ("pig", 20),
    ("pig(winscore=20)", 60),
    ("pig(piglet=true,winscore=30)", 30),
    ("pig(diceoutcomes=4,winscore=40)", 30),
    ("pig(players=3,winscore=20)", 40),
    ("pig(players=4,diceoutcomes=3,winscore=15)", 40),
]

# --------------------------------------------------------------------------- registry


def test_games_listed_and_built_by_name() -> None:
    assert {"backgammon", "pig"} <= set(HEURISTIC_GAMES)
    for game_string in ("backgammon", "pig", "pig(players=5)", "backgammon(hyper_backgammon=true)"):
        game = pyspiel.load_game(game_string)
        assert has_heuristic(game)
        evaluator = make_evaluator("heuristic", game)
        assert isinstance(evaluator, HeuristicEvaluator)
        assert evaluator.name == "heuristic"
        assert evaluator.game_name == game.get_type().short_name


def test_pig_rejects_a_die_that_always_busts() -> None:
    game = pyspiel.load_game("pig(diceoutcomes=1)")
    with pytest.raises(
        ValueError, match=r"pig heuristic needs diceoutcomes >= 2.*pig\(diceoutcomes=1\)"
    ):
        HeuristicEvaluator(game)


# --------------------------------------------------------------------------- range


@pytest.mark.parametrize(("game_string", "games"), CHANCE_GAMES)
def test_values_strictly_inside_range_on_random_positions(game_string: str, games: int) -> None:
    game = pyspiel.load_game(game_string)
    evaluator = HeuristicEvaluator(game)
    info = game_info(game)
    positions = sampled_positions(game, games, seed=7)
    chance = sum(state.is_chance_node() for state in positions)
    assert chance > 50 and len(positions) - chance > 50  # both node types are covered
    for state in positions:
        before = (str(state), state.history())
        values = evaluator.evaluate(state)
        assert (str(state), state.history()) == before  # evaluation leaves the state alone
        check_values(values, evaluator, info)
        assert len(values) == game.num_players()
        assert all(info.min_utility < v < info.max_utility for v in values), (values, str(state))
        assert all(math.isfinite(v) for v in values)
        assert sum(values) == pytest.approx(0.0, abs=1e-9)  # zero-sum, like the games
        assert -1.0 <= evaluator.score(state) <= 1.0
        assert evaluator.score(state) == pytest.approx(
            (values[0] - 0.5 * (info.min_utility + info.max_utility))
            / (0.95 * 0.5 * info.value_range)
        )


def test_values_on_chance_nodes_match_the_mean_of_their_children() -> None:
    # expectiminimax evaluates chance nodes at the depth limit: their values should agree with
    # the probability-weighted values of the rolled positions below them.
    for game_string, games in (("pig", 20), ("backgammon", 4)):
        game = pyspiel.load_game(game_string)
        evaluator = HeuristicEvaluator(game)
        gaps = []
        for state in sampled_positions(game, games, seed=3):
            if not state.is_chance_node() or not state.history():
                continue
            expected = 0.0
            for action, probability in state.chance_outcomes():
                child = state.child(action)
                value = child.returns()[0] if child.is_terminal() else evaluator.evaluate(child)[0]
                expected += probability * value
            gaps.append(evaluator.evaluate(state)[0] - expected)
        assert len(gaps) > 100
        assert float(np.sqrt(np.mean(np.square(gaps)))) < 0.03, game_string
        assert abs(float(np.mean(gaps))) < 0.01, game_string


# --------------------------------------------------------------------------- backgammon


def test_backgammon_column_drawing() -> None:
    assert column("x", 0, top=True) == "....."
    assert column("x", 2, top=True) == "xx..."
    assert column("o", 5, top=False) == "ooooo"
    assert column("o", 7, top=False) == "7oooo"
    assert column("x", 12, top=True) == "12xxx"
    assert column("x", 12, top=False) == "21xxx"
    assert column("o", 10, top=False) == "01ooo"


def test_backgammon_board_layout_and_chance_text() -> None:
    game = pyspiel.load_game("backgammon")
    state = game.new_initial_state()
    lines = str(state).split("\n")
    assert lines[1] == "|o...x.|x....o|"  # points 12..23 on top, point 23 = x's 24-point
    assert lines[11] == "|x...o.|o....x|"  # points 11..0 at the bottom
    assert lines[13:19] == [
        "Turn: *",
        "Previous player: -1",
        "Extra turn: 0",
        "Dice: ",
        "Bar:",
        "Scores, X: 0, O: 0",
    ]
    state.apply_action(0)  # x starts with 1-2
    assert str(state).split("\n")[13] == "Turn: x"
    state.apply_action(state.legal_actions()[0])
    assert state.is_chance_node()
    assert str(state).split("\n")[13:15] == ["Turn: *", "Previous player: 0"]  # o rolls next


def test_backgammon_parsed_board_matches_the_state() -> None:
    game = pyspiel.load_game("backgammon")
    scorer = scorer_of(HeuristicEvaluator(game))
    assert isinstance(scorer, BackgammonScorer)
    assert scorer.checkers == 15
    tallest = 0
    for state in sampled_positions(game, 12, seed=21):
        text = str(state)
        board = [(state.board(0, point), state.board(1, point)) for point in range(24)]
        assert scorer.counts(text) == board, text
        x_bar, o_bar = state.board(0, 100), state.board(1, 100)  # kBarPos = 100
        x_pips = sum(x * (24 - point) for point, (x, _) in enumerate(board)) + 25 * x_bar
        o_pips = sum(o * (point + 1) for point, (_, o) in enumerate(board)) + 25 * o_bar
        assert scorer.pips(text) == (x_pips, o_pips), text
        tallest = max(tallest, *(max(pair) for pair in board))
    assert tallest >= 10  # stacks drawn with a count digit (6-9) and two digits (10+) occur


def test_backgammon_hyper_variant_has_three_checkers() -> None:
    game = pyspiel.load_game("backgammon(hyper_backgammon=true)")
    scorer = scorer_of(HeuristicEvaluator(game))
    assert isinstance(scorer, BackgammonScorer)
    assert scorer.checkers == 3
    assert scorer.pips(str(game.new_initial_state())) == (24 + 23 + 22, 24 + 23 + 22)


def test_backgammon_start_is_even_and_colour_symmetric() -> None:
    game = pyspiel.load_game("backgammon")
    evaluator = HeuristicEvaluator(game)
    start = game.new_initial_state()
    assert list(evaluator.evaluate(start)) == [0.0, 0.0]
    # Opening outcomes come in pairs: 2k lets x start and 2k + 1 lets o start, with the same dice.
    for roll in range(0, 30, 2):
        x_starts = start.child(roll)
        o_starts = start.child(roll + 1)
        assert str(x_starts).split("\n")[13] == "Turn: x"
        assert str(o_starts).split("\n")[13] == "Turn: o"
        assert sorted(str(x_starts).split("\n")[16]) == sorted(str(o_starts).split("\n")[16])
        x_values = evaluator.evaluate(x_starts)
        o_values = evaluator.evaluate(o_starts)
        assert x_values[0] == pytest.approx(o_values[1])
        assert x_values[1] == pytest.approx(o_values[0])


def test_backgammon_mirrored_positions_get_mirrored_values() -> None:
    for game_string in ("backgammon", "backgammon(scoring_type=full_scoring)"):
        game = pyspiel.load_game(game_string)
        scorer = scorer_of(HeuristicEvaluator(game))
        assert isinstance(scorer, BackgammonScorer)
        checked = 0
        for state in sampled_positions(game, 6, seed=9):
            if max(max(state.board(0, p), state.board(1, p)) for p in range(24)) >= 10:
                continue
            text = str(state)
            mirrored = mirror_backgammon(text)
            assert mirror_backgammon(mirrored) == text
            x_pips, o_pips = scorer.pips(text)
            assert scorer.pips(mirrored) == (o_pips, x_pips)
            values = scorer.values(text)
            assert scorer.values(mirrored) == pytest.approx(values[::-1], abs=1e-12), text
            checked += 1
        assert checked > 500


def rearmost(state: pyspiel.State) -> tuple[int, int]:
    """The points of x's and o's rearmost checkers (-1 and 24 for a checker on the bar)."""
    x_points = [p for p in range(24) if state.board(0, p)]
    o_points = [p for p in range(24) if state.board(1, p)]
    x_back = -1 if state.board(0, 100) else min(x_points, default=24)  # kBarPos = 100
    o_back = 24 if state.board(1, 100) else max(o_points, default=-1)
    return x_back, o_back


def test_backgammon_far_ahead_is_better() -> None:
    # With contact, blots and blocks can outweigh a lead of 50 pips (the largest seen on these
    # samples is 58); in a race only the dice about to be played can (up to 24 pips).
    game = pyspiel.load_game("backgammon")
    evaluator = HeuristicEvaluator(game)
    scorer = scorer_of(evaluator)
    assert isinstance(scorer, BackgammonScorer)
    counted = {"contact": 0, "race": 0}
    for state in sampled_positions(game, 20, seed=5):
        x_pips, o_pips = scorer.pips(str(state))
        x_back, o_back = rearmost(state)
        race = x_back > o_back
        lead = o_pips - x_pips
        if abs(lead) < (25 if race else 70):
            continue
        values = evaluator.evaluate(state)
        assert (values[0] > values[1]) == (lead > 0), str(state)
        counted["race" if race else "contact"] += 1
    assert counted["race"] > 100 and counted["contact"] > 100, counted


def test_backgammon_side_to_move_and_blots() -> None:
    game = pyspiel.load_game("backgammon")
    scorer = scorer_of(HeuristicEvaluator(game))
    assert isinstance(scorer, BackgammonScorer)
    start = str(game.new_initial_state())
    x_next = start.replace("Previous player: -1", "Previous player: 1")
    o_next = start.replace("Previous player: -1", "Previous player: 0")
    assert scorer.values(x_next)[0] > 0 > scorer.values(o_next)[0]  # being on roll is worth pips
    assert scorer.values(x_next)[0] == pytest.approx(-scorer.values(o_next)[0])
    # x to play a 6-6 (24 pips this turn) is better off than x to play a 2-1.
    big = x_next.replace("Turn: *", "Turn: x").replace("Dice: \n", "Dice: 66\n")
    small = x_next.replace("Turn: *", "Turn: x").replace("Dice: \n", "Dice: 12\n")
    assert scorer.values(big)[0] > scorer.values(small)[0] > scorer.values(o_next)[0]
    # With 2-1, splitting the back checkers (24/23: two blots deep in o's home board, cheap to
    # lose) beats slotting x's 5-point (6/5: a blot 4 pips in front of o's back checkers).
    game_state = game.new_initial_state()
    game_state.apply_action(0)  # x to play 1-2
    by_name = {  # action strings look like "11 - 24/23 13/11"
        game_state.action_to_string(a).split(" - ")[-1]: a for a in game_state.legal_actions()
    }
    split = game_state.child(by_name["24/23 13/11"])
    slot = game_state.child(by_name["13/11 6/5"])
    assert scorer.values(str(split))[0] > scorer.values(str(slot))[0]


def test_backgammon_gammon_scoring_uses_the_wider_range() -> None:
    game = pyspiel.load_game("backgammon(scoring_type=enable_gammons)")
    evaluator = HeuristicEvaluator(game)
    best = max(abs(evaluator.evaluate(state)[0]) for state in sampled_positions(game, 10, seed=8))
    assert 1.0 < best < 2.0  # some positions promise more than a single game, none a sure thing


# --------------------------------------------------------------------------- pig


def test_pig_turn_tables() -> None:
    hold, mean, variance = pig_turn_tables(100, 6, False)
    assert hold == 20  # the classic "hold at 20"
    assert mean[0] == 0.0 and variance[0] == 0.0
    assert mean[1] == pytest.approx(1.2) and mean[2] == pytest.approx(1.2)  # one roll, p = 5/6
    assert variance[1] == pytest.approx((1 / 6) / (5 / 6) ** 2)
    assert all(a <= b for a, b in itertools.pairwise(mean))
    assert 12.0 < mean[100] < 13.5  # about 8.14 points a turn
    hold, mean, _ = pig_turn_tables(30, 6, True)  # piglet: a point per non-bust roll
    assert hold == 5
    assert mean[1] == pytest.approx(1.2)


def test_pig_parse_and_text_layout() -> None:
    game = pyspiel.load_game("pig(players=3)")
    scorer = scorer_of(HeuristicEvaluator(game))
    assert isinstance(scorer, PigScorer)
    state = game.new_initial_state()
    state.apply_action(0)  # roll: a chance node
    assert state.is_chance_node()
    assert str(state) == pig_text([0, 0, 0], 0, 0, rolling=True)
    state.apply_action(4)  # rolled a 5
    assert scorer.parse(str(state)) == ([0, 0, 0], 5, 0, False)
    state.apply_action(1)  # stop
    assert scorer.parse(str(state)) == ([5, 0, 0], 0, 1, False)


def test_pig_signs() -> None:
    game = pyspiel.load_game("pig")
    evaluator = HeuristicEvaluator(game)
    scorer = scorer_of(evaluator)
    assert isinstance(scorer, PigScorer)

    def v0(scores: list[int], total: int, player: int, rolling: bool = False) -> float:
        return scorer.values(pig_text(scores, total, player, rolling))[0]

    start = evaluator.evaluate(game.new_initial_state())
    assert 0.0 < start[0] < 0.2 and start[1] == -start[0]  # moving first is a small edge
    assert v0([90, 10], 0, 1) > 0.5 > -0.5 > v0([10, 90], 0, 0)  # far ahead, even off turn
    assert v0([40, 50], 0, 0) < v0([50, 50], 0, 0) < v0([60, 50], 0, 0)
    assert v0([50, 50], 0, 0) > 0 > v0([50, 50], 0, 1)  # being on turn
    assert v0([50, 50], 15, 0) > v0([50, 50], 5, 0) > v0([50, 50], 0, 1)
    assert v0([95, 99], 5, 0) == pytest.approx(0.95)  # must stop and win: capped, not 1
    for scores, total in (([0, 0], 0), ([30, 70], 12), ([88, 91], 7)):
        held = v0([scores[0] + total, scores[1]], 0, 1)
        # Rolling risks the turn total: between losing it and keeping it plus a roll.
        bust = v0(scores, 0, 1)
        kept = v0(scores, total + 4, 0)
        assert min(bust, kept) < v0(scores, total, 0, rolling=True) < max(bust, kept)
        assert -0.95 < held < 0.95


def test_pig_swapping_the_players_swaps_the_values() -> None:
    game = pyspiel.load_game("pig")
    scorer = scorer_of(HeuristicEvaluator(game))
    assert isinstance(scorer, PigScorer)
    rng = np.random.default_rng(4)
    for _ in range(500):
        a, b = (int(x) for x in rng.integers(0, 100, size=2))
        total = int(rng.integers(0, 30))
        rolling = bool(rng.integers(2))
        values = scorer.values(pig_text([a, b], total, 0, rolling))
        swapped = scorer.values(pig_text([b, a], total, 1, rolling))
        assert swapped == pytest.approx(values[::-1], abs=1e-12)


def test_pig_two_player_fast_path_matches_the_general_formula() -> None:
    game = pyspiel.load_game("pig(winscore=50)")
    scorer = scorer_of(HeuristicEvaluator(game))
    assert isinstance(scorer, PigScorer)
    rng = np.random.default_rng(5)
    for _ in range(500):
        a, b = (int(x) for x in rng.integers(0, 50, size=2))
        text = pig_text(
            [a, b], int(rng.integers(0, 20)), int(rng.integers(2)), bool(rng.integers(2))
        )
        chances = scorer.chances(text)
        assert sum(chances) == pytest.approx(1.0)
        values = scorer.values(text)
        assert values[0] == pytest.approx(0.95 * (2 * chances[0] - 1), abs=1e-12)


def test_pig_many_players() -> None:
    game = pyspiel.load_game("pig(players=4,winscore=50)")
    scorer = scorer_of(HeuristicEvaluator(game))
    assert isinstance(scorer, PigScorer)
    values = scorer.values(pig_text([10, 40, 20, 20], 0, 0))
    assert max(values) == values[1]  # the leader
    assert sum(values) == pytest.approx(0.0)
    assert values[2] > values[3]  # same score: the earlier seat moves first
    assert all(-1.0 < v < 1.0 for v in values)
    # Rotating the seats along with the player on turn rotates the values.
    rotated = scorer.values(pig_text([20, 10, 40, 20], 0, 1))
    assert rotated == pytest.approx(values[-1:] + values[:-1], abs=1e-12)
    # A player who can stop at the goal is the (capped) favourite; the others share the loss.
    sure = scorer.values(pig_text([10, 48, 20, 20], 2, 1))
    assert sure[1] == pytest.approx(0.95)
    assert sure[0] == sure[2] == sure[3] == pytest.approx(-0.95 / 3)
