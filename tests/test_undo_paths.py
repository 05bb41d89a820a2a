"""In the games of `UNDO_EXACT_GAMES` the searches make children by `apply_action` /
`undo_action` instead of `child()`: that must change nothing. Each search is run both ways on
seeded positions of every listed game it plays, and the results (move, bounds, principal
variation, node and evaluation counts) must be equal."""

from __future__ import annotations

import pyspiel
import pytest

from spiel_bounded import (
    Limits,
    bounded_ab,
    bounded_star2,
    make_evaluator,
    maxn,
    paranoid,
)
from spiel_bounded.games import UNDO_EXACT_GAMES
from spiel_bounded.search import maxn as maxn_module
from spiel_bounded.search.alphabeta import engine as alphabeta_engine
from spiel_bounded.testing import random_positions

CASES = [
    ("amazons", bounded_ab, 5, "seeded_rollout"),
    ("banqi", bounded_star2, 2, "seeded_rollout"),
    ("breakthrough(rows=6,columns=5)", bounded_ab, 4, "heuristic"),
    ("nim", bounded_ab, 8, "seeded_rollout"),
    ("tic_tac_toe", bounded_ab, 9, "heuristic"),
    ("chinese_checkers(players=3)", maxn, 3, "heuristic"),
    ("chinese_checkers(players=3)", paranoid, 4, "heuristic"),
    ("maedn(players=3)", maxn, 4, "heuristic"),
    ("maedn(players=3)", paranoid, 4, "heuristic"),
]


def test_every_undo_game_is_searched_both_ways_here() -> None:
    short_names = {pyspiel.load_game(game).get_type().short_name for game, *_ in CASES}
    assert short_names == UNDO_EXACT_GAMES


def _fingerprint(result) -> tuple:
    stats = result.stats
    return (
        result.action,
        result.lower,
        result.upper,
        result.pv,
        getattr(result, "values", None),
        stats.nodes,
        stats.evaluations,
        stats.depth,
    )


@pytest.mark.parametrize(
    ("game_string", "search", "depth", "evaluator"),
    CASES,
    ids=[f"{game}-{search.__name__}" for game, search, *_ in CASES],
)
def test_undo_and_child_make_the_same_search(
    monkeypatch, game_string: str, search, depth: int, evaluator: str
) -> None:
    game = pyspiel.load_game(game_string)
    positions = random_positions(game, 3, plies=(2, 12), seed=5)
    with_undo = [
        _fingerprint(
            search(s, evaluator=make_evaluator(evaluator, game), limits=Limits(depth=depth))
        )
        for s in positions
    ]
    monkeypatch.setattr(alphabeta_engine, "UNDO_EXACT_GAMES", frozenset())
    monkeypatch.setattr(maxn_module, "UNDO_EXACT_GAMES", frozenset())
    with_child = [
        _fingerprint(
            search(s, evaluator=make_evaluator(evaluator, game), limits=Limits(depth=depth))
        )
        for s in positions
    ]
    assert with_undo == with_child
    assert all(nodes > 1 for *_, nodes, _, _ in with_undo)
