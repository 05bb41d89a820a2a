"""Suite `chance`: bounded Star-1 / Star-2 against OpenSpiel's expectiminimax, in one run.

For fixed sets of backgammon and pig positions and each depth: leaf evaluations, nodes and
seconds of expectiminimax and of Star-1 / Star-2 at epsilon 0 and two positive epsilons (with
both chance-epsilon policies), and the realized error |value - exact| of the positive epsilons
(the exact value is expectiminimax's). Every search uses the same heuristic evaluator.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pyspiel
from absl import flags
from open_spiel.python.algorithms import minimax

from spiel_bounded import (
    AlphaBetaSettings,
    Limits,
    SearchResult,
    bounded_star1,
    bounded_star2,
    make_evaluator,
)
from spiel_bounded.evaluators import Evaluator
from spiel_bounded.testing import random_positions

_BACKGAMMON_DEPTHS = flags.DEFINE_list(
    "chance_backgammon_depths", ["1", "2", "3"], "Backgammon depths."
)
_BACKGAMMON_POSITIONS = flags.DEFINE_integer(
    "chance_backgammon_positions", 4, "Backgammon positions (depth 3 uses the first of them)."
)
_DEEP_POSITIONS = flags.DEFINE_integer(
    "chance_backgammon_deep_positions", 1, "Backgammon positions searched at depth 3."
)
_PIG_DEPTHS = flags.DEFINE_list("chance_pig_depths", ["2", "4", "6"], "Pig depths.")
_PIG_POSITIONS = flags.DEFINE_integer("chance_pig_positions", 8, "Pig positions.")
_EPSILONS = flags.DEFINE_list(
    "chance_epsilons", ["0.025", "0.1"], "Positive epsilons, as fractions of the value range."
)
_SEED = flags.DEFINE_integer("chance_seed", 7, "Seed of the random positions.")

Search = Callable[..., SearchResult]
SEARCHES: dict[str, Search] = {"Star-1": bounded_star1, "Star-2": bounded_star2}


@dataclass(frozen=True)
class Measurement:
    """Totals over a position set for one search configuration."""

    name: str
    evaluations: int
    nodes: int | None
    seconds: float
    values: tuple[float, ...]


class _Counting:
    """An evaluator wrapper that counts calls."""

    def __init__(self, inner: Evaluator) -> None:
        self.inner = inner
        self.name = inner.name
        self.calls = 0

    def evaluate(self, state: pyspiel.State) -> Sequence[float]:
        self.calls += 1
        return self.inner.evaluate(state)


def _positions(game: pyspiel.Game, count: int, plies: tuple[int, int], seed: int) -> list:
    """Decision positions after `plies` random actions, chance outcomes counted."""
    return random_positions(game, count, plies=plies, seed=seed, count_chance=True)


def _expectiminimax(
    states: Sequence[pyspiel.State], depth: int, evaluator: Evaluator, repeats: int
) -> Measurement:
    counting = _Counting(evaluator)
    values: list[float] = []
    times = []
    for _ in range(repeats):
        values.clear()
        counting.calls = 0
        start = time.perf_counter()
        for state in states:
            player = state.current_player()
            value, _ = minimax.expectiminimax(
                state, depth, lambda leaf, p=player: counting.evaluate(leaf)[p], player
            )
            values.append(float(value))
        times.append(time.perf_counter() - start)
    return Measurement(
        "expectiminimax", counting.calls, None, statistics.median(times), tuple(values)
    )


def _ours(
    name: str,
    search: Search,
    states: Sequence[pyspiel.State],
    depth: int,
    evaluator: Evaluator,
    settings: AlphaBetaSettings,
    repeats: int,
) -> Measurement:
    results: list[SearchResult] = []
    times = []
    for _ in range(repeats):
        results.clear()
        start = time.perf_counter()
        for state in states:
            results.append(
                search(state, evaluator=evaluator, limits=Limits(depth=depth), settings=settings)
            )
        times.append(time.perf_counter() - start)
    return Measurement(
        name,
        sum(r.stats.evaluations for r in results),
        sum(r.stats.nodes or 0 for r in results),  # our searches count nodes
        statistics.median(times),
        tuple(r.lower for r in results),
    )


def _section(
    game_name: str,
    states: Sequence[pyspiel.State],
    depth: int,
    evaluator: Evaluator,
    value_range: float,
    repeats: int,
) -> list[str]:
    reference = _expectiminimax(states, depth, evaluator, repeats)
    rows = [reference]
    epsilons = [0.0] + [float(f) * value_range for f in _EPSILONS.value]
    for epsilon in epsilons:
        policies = ("uniform",) if epsilon == 0 else ("uniform", "carry")
        for policy in policies:
            settings = AlphaBetaSettings(
                epsilon=epsilon, chance_epsilon=policy, iterative_deepening=False
            )
            for label, search in SEARCHES.items():
                name = f"{label} eps={epsilon:g}" + ("" if epsilon == 0 else f" ({policy})")
                rows.append(_ours(name, search, states, depth, evaluator, settings, repeats))
    lines = [
        f"### {game_name}, depth {depth}, {len(states)} position(s)",
        "",
        "| search | evaluations | vs expectiminimax | nodes | seconds | time vs expectiminimax "
        "| max realized error |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in rows:
        error = max(abs(a - b) for a, b in zip(row.values, reference.values, strict=True))
        nodes = "-" if row.nodes is None else f"{row.nodes:,}"
        lines.append(
            f"| {row.name} | {row.evaluations:,} | {row.evaluations / reference.evaluations:.3f} "
            f"| {nodes} | {row.seconds:.3f} | {row.seconds / reference.seconds:.3f} "
            f"| {error:.4f} |"
        )
    return [*lines, ""]


def _range(game: pyspiel.Game) -> float:
    return float(game.max_utility() - game.min_utility())


def run(repeats: int) -> list[str]:
    """Runs the suite; returns its Markdown section."""
    lines = [
        "## Bounded Star-1 / Star-2 vs OpenSpiel's expectiminimax",
        "",
        f"Settings: seed={_SEED.value}, positive epsilons {', '.join(_EPSILONS.value)} of the "
        "value range, heuristic evaluator, one iteration at the given depth (no iterative "
        "deepening), transposition table on. Depth counts decision plies. Expectiminimax "
        "evaluates every leaf of the depth-limited tree; its value is the exact value the "
        "error column compares against. Timing repeats are limited to 1 for expectiminimax "
        "at backgammon depth 3.",
        "",
    ]
    backgammon = pyspiel.load_game("backgammon")
    heuristic = make_evaluator("heuristic", backgammon)
    positions = _positions(backgammon, _BACKGAMMON_POSITIONS.value, (10, 30), _SEED.value)
    for depth in map(int, _BACKGAMMON_DEPTHS.value):
        states = positions if depth < 3 else positions[: _DEEP_POSITIONS.value]
        lines += _section(
            "backgammon", states, depth, heuristic, _range(backgammon), repeats if depth < 3 else 1
        )
    pig = pyspiel.load_game("pig")
    pig_heuristic = make_evaluator("heuristic", pig)
    pig_positions = _positions(pig, _PIG_POSITIONS.value, (10, 60), _SEED.value)
    for depth in map(int, _PIG_DEPTHS.value):
        lines += _section("pig", pig_positions, depth, pig_heuristic, _range(pig), repeats)
    return lines
