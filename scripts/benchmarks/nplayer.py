"""Suite `nplayer`: max^n's pruning modes against plain max^n, in one run.

On 3-player synthetic trees searched to their terminals and on chinese_checkers positions with
the heuristic evaluator, every mode must give the same root vector and move as
`pruning="none"` (checked here too); the tables report nodes expanded and seconds, summed over
the trees or positions of a row.
"""

from __future__ import annotations

import statistics
import time

import pyspiel
from absl import flags

from spiel_bounded import Limits, MaxnSettings, make_evaluator, maxn
from spiel_bounded.evaluators import Evaluator, ZeroEvaluator
from spiel_bounded.result import SearchResult
from spiel_bounded.search.maxn import PRUNINGS
from spiel_bounded.synthetic import make_game
from spiel_bounded.testing import random_positions

_TREES = flags.DEFINE_integer("nplayer_trees", 5, "Synthetic trees per row (seeds 0..n-1).")
_SHAPES = flags.DEFINE_list(
    "nplayer_shapes", ["4x6", "6x6", "8x6", "4x8"], "Tree shapes, branching x depth."
)
_PLAYERS = flags.DEFINE_integer("nplayer_players", 3, "Players of the synthetic trees.")
_CC_GAMES = flags.DEFINE_list(
    "nplayer_cc_games",
    ["chinese_checkers(players=3)", "chinese_checkers(players=4)"],
    "Catalogue games searched from random positions with the heuristic evaluator.",
)
_CC_POSITIONS = flags.DEFINE_integer("nplayer_cc_positions", 4, "Positions per catalogue game.")
_CC_DEPTH = flags.DEFINE_integer("nplayer_cc_depth", 3, "Depth limit on the catalogue games.")
_SEED = flags.DEFINE_integer("nplayer_seed", 2026, "Seed of the catalogue positions.")


def _search(
    state: pyspiel.State,
    mode: str,
    depth: int,
    repeats: int,
    evaluator: Evaluator | None = None,
) -> tuple[SearchResult, float]:
    game = state.get_game()
    # The zero evaluator only meets the horizons of the shallower iterations on the trees.
    evaluator = evaluator or ZeroEvaluator(game)
    times = []
    result = None
    for _ in range(repeats):
        start = time.perf_counter()
        result = maxn(
            state,
            evaluator=evaluator,
            limits=Limits(depth=depth),
            settings=MaxnSettings(pruning=mode),
        )
        times.append(time.perf_counter() - start)
    assert result is not None
    return result, statistics.median(times)


def _totals(
    states: list[pyspiel.State], depth: int, repeats: int, evaluator: Evaluator | None = None
) -> dict[str, tuple[int, float]]:
    """Nodes and seconds of every pruning mode summed over `states`, each mode checked to give
    plain max^n's move and vector."""
    totals = dict.fromkeys(PRUNINGS, (0, 0.0))
    for state in states:
        plain, _ = _search(state, "none", depth, 1, evaluator)
        for mode in PRUNINGS:
            result, seconds = _search(state, mode, depth, repeats, evaluator)
            assert (result.action, result.values) == (plain.action, plain.values), mode
            nodes, total = totals[mode]
            totals[mode] = (nodes + (result.stats.nodes or 0), total + seconds)
    return totals


def _rows(label: str, totals: dict[str, tuple[int, float]]) -> list[str]:
    base_nodes, base_seconds = totals["none"]
    return [
        f"| {label} | {mode} | {nodes:,} | {nodes / base_nodes:.3f} | {seconds:.2f} | "
        f"{seconds / base_seconds:.3f} |"
        for mode, (nodes, seconds) in totals.items()
    ]


def run(repeats: int) -> list[str]:
    """Runs the suite; returns its Markdown section."""
    lines = [
        "## max^n pruning (shallow, last-branch) against plain max^n",
        "",
        f"Settings: {_PLAYERS.value}-player `bounded_random_tree`s, seeds 0..{_TREES.value - 1} "
        "per shape, zero-sum leaf values uniform in [-1, 1], searched to the terminals from the "
        "root by iterative deepening (the shallower iterations use the zero evaluator at their "
        "horizon and are included in the counts). Nodes and "
        "seconds are sums over the trees; every mode returned the same root vector and move as "
        "`none` on every tree.",
        "",
        "| shape (b x d) | mode | nodes | nodes vs none | seconds | time vs none |",
        "| --- | --- | ---: | ---: | ---: | ---: |",
    ]
    for shape in _SHAPES.value:
        branching, depth = (int(part) for part in shape.split("x"))
        trees = [
            make_game(
                branching=branching, depth=depth, players=_PLAYERS.value, seed=seed
            ).new_initial_state()
            for seed in range(_TREES.value)
        ]
        lines += _rows(f"{branching} x {depth}", _totals(trees, depth, repeats))
    lines += [
        "",
        f"Catalogue games: {_CC_POSITIONS.value} random positions per game (10-40 plies, seed "
        f"{_SEED.value}), heuristic evaluator, iterative deepening to depth {_CC_DEPTH.value}; "
        "sums over the positions, same vector and move in every mode.",
        "",
        "| game | depth | mode | nodes | nodes vs none | seconds | time vs none |",
        "| --- | ---: | --- | ---: | ---: | ---: | ---: |",
    ]
    for game_string in _CC_GAMES.value:
        game = pyspiel.load_game(game_string)
        evaluator = make_evaluator("heuristic", game)
        positions = random_positions(game, _CC_POSITIONS.value, plies=(10, 40), seed=_SEED.value)
        for depth in range(1, _CC_DEPTH.value + 1):
            totals = _totals(positions, depth, repeats, evaluator)
            lines += _rows(f"{game_string} | {depth}", totals)
    lines += [
        "",
        "Speculative pruning (Sturtevant 2003) and its 5x target at the deepest depth are the "
        "next step of issue 11.",
        "",
    ]
    return lines
