"""The n-player heuristics (chinese_checkers, maedn, yacht, synthetic trees): range, constant
sum, chance nodes, and that a player ahead is valued higher; maedn's tight lower bound and
apply/undo exactness where the searches rely on them."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

from spiel_bounded.evaluators import make_evaluator
from spiel_bounded.evaluators.heuristics_nplayer import MaednScorer, YachtScorer
from spiel_bounded.games import game_info
from spiel_bounded.search.maxn import TRUE_MINIMUM, pruning_bounds
from spiel_bounded.synthetic import make_game
from spiel_bounded.testing import random_positions

GAMES = [
    "chinese_checkers",
    "chinese_checkers(players=3)",
    "chinese_checkers(players=4)",
    "chinese_checkers(players=6)",
    "maedn",
    "maedn(players=3)",
    "maedn(players=4)",
    "yacht",
    "yacht(players=3)",
    "yacht(players=4)",
    "pig(players=3)",
    "pig(players=4)",
]


def _load(game_string: str) -> pyspiel.Game:
    if game_string.startswith("tree"):
        players, chance = game_string.split(":")[1:]
        return make_game(branching=3, depth=6, players=int(players), chance=float(chance), seed=4)
    return pyspiel.load_game(game_string)


@pytest.mark.parametrize("game_string", [*GAMES, "tree:3:0", "tree:4:0.5", "tree:2:0.5"])
def test_values_keep_range_and_constant_sum(game_string: str) -> None:
    game = _load(game_string)
    evaluator = make_evaluator("heuristic", game)
    bounds = pruning_bounds(game_info(game), game)
    # yacht's Python heuristic takes about 0.1 s a position (its C++ twin is held equal to it
    # on many more in test_native_heuristics.py).
    count = 12 if game_string.startswith("yacht") else 30
    positions = random_positions(
        game, count, plies=(0, 120), seed=11, count_chance=True, decisions_only=False
    )
    has_chance = not game_string.startswith(("chinese", "tree:3:0"))
    assert any(state.is_chance_node() for state in positions) == has_chance
    spread = set()
    for state in positions:
        values = np.asarray(evaluator.evaluate(state), dtype=float)
        assert values.shape == (game.num_players(),)
        assert values.min() >= bounds.lower and values.max() <= game.max_utility()
        assert abs(values.sum() - bounds.max_sum) < 1e-9
        assert evaluator.evaluate(state) == evaluator.evaluate(state.clone())
        spread.add(tuple(np.round(values, 6)))
    assert len(spread) > 5  # the heuristic tells positions apart


@pytest.mark.parametrize("game_string", ["maedn(players=3)", "maedn(players=4)"])
def test_maedn_values_follow_progress(game_string: str) -> None:
    game = pyspiel.load_game(game_string)
    scorer = MaednScorer(game)
    for state in random_positions(game, 20, plies=(40, 200), seed=5):
        progress, values = scorer.progress(state), scorer.values(state)
        assert np.argsort(progress).tolist() == np.argsort(values).tolist()
        assert max(progress) <= 1.0


def test_maedn_finished_player_has_progress_one() -> None:
    game = pyspiel.load_game("maedn(players=3)")
    state = _play_out(game, np.random.default_rng(0))
    winner = int(np.argmax(state.returns()))
    assert MaednScorer(game).progress(state)[winner] == pytest.approx(1.0)


def test_yacht_values_follow_expected_scores() -> None:
    game = pyspiel.load_game("yacht(players=3)")
    scorer = YachtScorer(game)
    for state in random_positions(game, 8, plies=(10, 150), seed=6):
        scores, _ = scorer.expected_scores(str(state))
        values = scorer.values(str(state))
        assert np.argsort(scores, kind="stable").tolist() == np.argsort(
            values, kind="stable"
        ).tolist() or len(set(scores)) < len(scores)


def test_yacht_heuristic_refuses_other_dice() -> None:
    with pytest.raises(ValueError, match=r"assumes 5 six-sided dice.*rollout"):
        make_evaluator("heuristic", pyspiel.load_game("yacht(num_dice=4)"))


def _play_out(game: pyspiel.Game, rng: np.random.Generator) -> pyspiel.State:
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=probabilities)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    return state


@pytest.mark.parametrize("players", [2, 3, 4])
def test_maedn_true_minimum_holds_at_terminals(players: int) -> None:
    game = pyspiel.load_game(f"maedn(players={players})")
    rng = np.random.default_rng(players)
    lowest = min(min(_play_out(game, rng).returns()) for _ in range(40))
    assert lowest == TRUE_MINIMUM["maedn"] > game.min_utility()
