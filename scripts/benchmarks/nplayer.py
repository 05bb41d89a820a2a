"""Suite `nplayer`: max^n's pruning modes and move ordering against plain max^n, in one run.

On 3-player synthetic trees searched to their terminals and on chinese_checkers positions with
the heuristic evaluator, every mode must give the same root vector and move as
`pruning="none"` (checked here too); the tables report nodes expanded and seconds, summed over
the trees or positions of a row.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass

import pyspiel
from absl import flags

from spiel_bounded import Limits, MaxnSettings, make_evaluator, maxn
from spiel_bounded.evaluators import Evaluator, ZeroEvaluator
from spiel_bounded.native import available
from spiel_bounded.result import SearchResult
from spiel_bounded.search.alphabeta import AlphaBetaSettings, paranoid
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
_ENGINE_DEPTH = flags.DEFINE_integer(
    "nplayer_engine_depth",
    3,
    "Depth of the native-against-Python rows (3-player chinese_checkers).",
)


CONFIGURATIONS: tuple[tuple[str, str], ...] = (
    ("none", "none"),
    ("speculative", "none"),
    ("none", "evaluator"),
    ("shallow", "evaluator"),
    ("last_branch", "evaluator"),
    ("speculative", "evaluator"),
)
"""(pruning, ordering) pairs measured; the first is plain max^n, the baseline."""


def _search(
    state: pyspiel.State,
    pruning: str,
    ordering: str,
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
            settings=MaxnSettings(pruning=pruning, ordering=ordering),
        )
        times.append(time.perf_counter() - start)
    assert result is not None
    return result, statistics.median(times)


@dataclass
class _Total:
    nodes: int = 0
    research_nodes: int = 0
    seconds: float = 0.0


def _totals(
    states: list[pyspiel.State], depth: int, repeats: int, evaluator: Evaluator | None = None
) -> dict[tuple[str, str], _Total]:
    """Nodes and seconds of every configuration summed over `states`, each checked to give
    the move and vector of plain max^n with the same ordering (ties go to the first child
    searched)."""
    totals = {configuration: _Total() for configuration in CONFIGURATIONS}
    for state in states:
        plain: dict[str, SearchResult] = {}
        for pruning, ordering in CONFIGURATIONS:
            result, seconds = _search(state, pruning, ordering, depth, repeats, evaluator)
            if pruning == "none":
                plain[ordering] = result
            reference = plain[ordering]
            assert (result.action, result.values) == (reference.action, reference.values)
            total = totals[(pruning, ordering)]
            total.nodes += result.stats.nodes or 0
            total.research_nodes += result.stats.research_nodes
            total.seconds += seconds
    return totals


def _rows(label: str, totals: dict[tuple[str, str], _Total]) -> list[str]:
    base = totals[CONFIGURATIONS[0]]
    return [
        f"| {label} | {pruning} | {ordering} | {total.nodes:,} | {total.research_nodes:,} | "
        f"{total.nodes / base.nodes:.3f} | {base.nodes / total.nodes:.1f} | "
        f"{total.seconds:.2f} | {total.seconds / base.seconds:.3f} |"
        for (pruning, ordering), total in totals.items()
    ]


_HEADER = (
    "| pruning | ordering | nodes | of which re-search | nodes vs plain | fewer (x) | seconds "
    "| time vs plain |"
)


def run(repeats: int) -> list[str]:
    """Runs the suite; returns its Markdown section."""
    lines = [
        "## max^n pruning (shallow, last-branch, speculative) against plain max^n",
        "",
        "Plain max^n is `pruning=none, ordering=none`. Ordering `evaluator` searches the mover's "
        "best child first by the evaluator (at nodes whose children are not leaves); every "
        "configuration returned the same root vector and move as `pruning=none` with the same "
        "ordering on every tree and position. Nodes include the re-searches of speculatively "
        "pruned nodes.",
        "",
        f"Synthetic trees: {_PLAYERS.value}-player `bounded_random_tree`s, seeds "
        f"0..{_TREES.value - 1} per shape, zero-sum leaf values, searched to the terminals "
        "from the root by iterative deepening (the shallower iterations use the zero evaluator "
        "at their horizon and are included in the counts). Nodes and seconds are sums over the "
        "trees.",
        "",
        "| shape (b x d) " + _HEADER,
        "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
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
        f"{_SEED.value}), heuristic evaluator, iterative deepening to each depth up to "
        f"{_CC_DEPTH.value}; sums over the positions.",
        "",
        "| game | depth " + _HEADER,
        "| --- | ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for game_string in _CC_GAMES.value:
        game = pyspiel.load_game(game_string)
        evaluator = make_evaluator("heuristic", game)
        positions = random_positions(game, _CC_POSITIONS.value, plies=(10, 40), seed=_SEED.value)
        for depth in range(1, _CC_DEPTH.value + 1):
            totals = _totals(positions, depth, repeats, evaluator)
            lines += _rows(f"{game_string} | {depth}", totals)
    lines += ["", _four_player_note(), ""]
    if available():
        lines += engine_rows(_CC_POSITIONS.value, _ENGINE_DEPTH.value, _SEED.value, repeats)
    return lines


ENGINE_SEARCHES: tuple[tuple[str, str], ...] = (
    ("maxn", "none"),
    ("maxn", "speculative"),
    ("paranoid", ""),
)
"""(search, max^n pruning) rows of the native-against-Python table."""


def engine_rows(positions: int, depth: int, seed: int, repeats: int) -> list[str]:
    """Nodes/s of the native and the Python engine side by side on 3-player chinese_checkers,
    with the zero evaluator and the heuristic (both have C++ twins); both engines must visit the
    same nodes and return the same move (checked here)."""
    game = pyspiel.load_game("chinese_checkers(players=3)")
    states = random_positions(game, positions, plies=(10, 40), seed=seed)
    lines = [
        "## Native engine against the Python engine (3-player chinese_checkers)",
        "",
        f"{positions} random positions (10-40 plies, seed {seed}), iterative deepening to depth "
        f"{depth}, max^n with evaluator ordering; median of {repeats} runs per position, both "
        "engines in one process; the native engine runs the C++ twins of `zero` and "
        "`heuristic` (equal to the Python evaluators bit for bit). Both engines visited the same "
        "nodes and chose the same moves.",
        "",
        "| search | pruning | evaluator | nodes | python nodes/s | native nodes/s | speed-up |",
        "| --- | --- | --- | ---: | ---: | ---: | ---: |",
    ]
    for name, pruning in ENGINE_SEARCHES:
        for evaluator_name in ("zero", "heuristic"):
            evaluator = make_evaluator(evaluator_name, game)
            nodes = {"python": 0, "native": 0}
            seconds = {"python": 0.0, "native": 0.0}
            for state in states:
                found = {}
                for engine in ("python", "native"):
                    times = []
                    for _ in range(repeats):
                        start = time.perf_counter()
                        if name == "maxn":
                            result = maxn(
                                state,
                                evaluator=evaluator,
                                limits=Limits(depth=depth),
                                settings=MaxnSettings(pruning=pruning, engine=engine),
                            )
                        else:
                            result = paranoid(
                                state,
                                evaluator=evaluator,
                                limits=Limits(depth=depth),
                                settings=AlphaBetaSettings(engine=engine),
                            )
                        times.append(time.perf_counter() - start)
                    found[engine] = (result.action, result.stats.nodes)
                    nodes[engine] += result.stats.nodes or 0
                    seconds[engine] += statistics.median(times)
                assert found["python"] == found["native"], (name, pruning, found)
            python_rate = nodes["python"] / seconds["python"]
            native_rate = nodes["native"] / seconds["native"]
            lines.append(
                f"| {name} | {pruning or '-'} | {evaluator_name} | {nodes['native']:,} | "
                f"{python_rate:,.0f} | {native_rate:,.0f} | {native_rate / python_rate:.1f} |"
            )
    return [*lines, ""]


def _four_player_note() -> str:
    """Why nothing prunes with 4 players, with the heuristic's extremes measured here."""
    game = pyspiel.load_game("chinese_checkers(players=4)")
    evaluator = make_evaluator("heuristic", game)
    positions = random_positions(game, 3000, plies=(0, 600), seed=3)
    values = [sorted(evaluator.evaluate(state)) for state in positions]
    top_three = max(sum(v[1:]) for v in values)
    lowest = min(v[0] for v in values)
    return (
        "With 4 players the cuts need each player's bound of -1 on the values of three others: "
        "the sum condition `best_k + best_j + b + (n - 3) lb >= max_sum` becomes "
        "`best_k + best_j + b >= 1`, which the chinese_checkers heuristic's values (near 0, "
        "summing to 0) never meet, so no mode prunes there. No other sound max^n cut can "
        "either, a chain of three ancestors included: any cut at 4 players needs three players' "
        "values to reach 1 between them, that is the fourth player's value at the minimum -1, "
        "and the heuristic keeps every value strictly above it (it mixes in a uniform winning "
        f"chance; on {len(positions):,} seeded random positions of 0-600 plies the largest sum "
        f"of three values was {top_three:.3f} and the smallest value {lowest:.3f}). Only "
        "terminal wins (+3) can cut with 4 players."
    )
