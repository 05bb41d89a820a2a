"""Suite `value_net`: what a trained network costs a search, against the heuristic it replaces.

(a) One leaf: `evaluate` of the heuristic, of the network in numpy (the reference) and of the
network compiled with numba, over a fixed set of positions of connect_four and backgammon.
(b) A search: `bounded_ab` at a fixed depth on connect_four positions with each evaluator, in
one run: nodes, process seconds, nodes per second and the ratio to the heuristic's rate (issue
25's target: at least 0.8x at depth 7). The committed networks (`results/models/<game>`) are
measured.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

import pyspiel
from absl import flags

from spiel_bounded import AlphaBetaSettings, Limits, bounded_ab, make_evaluator
from spiel_bounded.evaluators import Evaluator
from spiel_bounded.evaluators.value_net import ValueNetEvaluator
from spiel_bounded.evaluators.value_net.compiled import numba_available
from spiel_bounded.testing import random_positions

_POSITIONS = flags.DEFINE_integer("value_net_positions", 24, "connect_four search positions.")
_DEPTH = flags.DEFINE_integer("value_net_depth", 7, "connect_four search depth.")
_LEAVES = flags.DEFINE_integer("value_net_leaves", 300, "Positions timed per game in (a).")
_SEED = flags.DEFINE_integer("value_net_seed", 2026, "Seed of the positions.")

GAMES = ("connect_four", "backgammon")


def _evaluators(game: pyspiel.Game) -> dict[str, Evaluator]:
    path = f"results/models/{game.get_type().short_name}"
    chosen: dict[str, Evaluator] = {"heuristic": make_evaluator("heuristic", game)}
    chosen["net, numpy"] = ValueNetEvaluator(game, path, engine="numpy")
    if numba_available():
        chosen["net, compiled"] = ValueNetEvaluator(game, path, engine="compiled")
    return chosen


def _interleaved(runs: dict[str, Callable[[], object]], repeats: int) -> dict[str, float]:
    """Median process seconds of each run, the runs taking turns `repeats` times (so a change
    of the machine's speed during the measurement falls on all of them alike)."""
    times: dict[str, list[float]] = {label: [] for label in runs}
    for _ in range(repeats):
        for label, run in runs.items():
            started = time.process_time()
            run()
            times[label].append(time.process_time() - started)
    return {label: statistics.median(values) for label, values in times.items()}


def _leaves(repeats: int) -> list[str]:
    lines = [
        "### (a) One leaf: microseconds per `evaluate` (process time)",
        "",
        f"{_LEAVES.value} positions per game (seed {_SEED.value}); median of {repeats} passes, "
        "the evaluators taking turns.",
        "",
        "| game | evaluator | us per leaf | x heuristic |",
        "|---|---|---:|---:|",
    ]
    for name in GAMES:
        game = pyspiel.load_game(name)
        states = random_positions(game, _LEAVES.value, plies=(0, 40), seed=_SEED.value)
        evaluators = _evaluators(game)
        for evaluator in evaluators.values():
            evaluator.evaluate(states[0])  # compiles

        def timed(evaluator: Evaluator, states: list = states) -> Callable[[], None]:
            def run() -> None:
                for state in states:
                    evaluator.evaluate(state)

            return run

        seconds = _interleaved({label: timed(e) for label, e in evaluators.items()}, repeats)
        costs = {label: value / len(states) * 1e6 for label, value in seconds.items()}
        for label, cost in costs.items():
            ratio = cost / costs["heuristic"]
            lines.append(f"| {name} | {label} | {cost:.2f} | {ratio:.2f} |")
    return [*lines, ""]


def _search(repeats: int) -> list[str]:
    game = pyspiel.load_game("connect_four")
    states = random_positions(game, _POSITIONS.value, plies=(4, 12), seed=_SEED.value)
    limits = Limits(depth=_DEPTH.value)
    lines = [
        f"### (b) `bounded_ab` at depth {_DEPTH.value} on connect_four",
        "",
        f"{_POSITIONS.value} positions (4 to 12 plies, seed {_SEED.value}), epsilon 0, default "
        f"settings; process seconds, median of {repeats} runs of the whole set, the evaluators "
        "taking turns.",
        "",
        "| evaluator | nodes | seconds | nodes/s | x heuristic's rate |",
        "|---|---:|---:|---:|---:|",
    ]
    nodes: dict[str, int] = {}

    def timed(label: str, evaluator: Evaluator) -> Callable[[], None]:
        def run() -> None:
            nodes[label] = sum(
                bounded_ab(
                    state, evaluator=evaluator, limits=limits, settings=AlphaBetaSettings()
                ).stats.nodes
                for state in states
            )

        return run

    evaluators = _evaluators(game)
    seconds = _interleaved({label: timed(label, e) for label, e in evaluators.items()}, repeats)
    rates = {label: nodes[label] / seconds[label] for label in evaluators}
    for label in evaluators:
        ratio = rates[label] / rates["heuristic"]
        lines.append(
            f"| {label} | {nodes[label]:,} | {seconds[label]:.2f} | {rates[label]:,.0f} | "
            f"{ratio:.2f} |"
        )
    return [*lines, ""]


def run(repeats: int) -> list[str]:
    return ["## Value network against the heuristic", "", *_leaves(repeats), *_search(repeats)]
