"""Suite `alphabeta`: bounded alpha-beta against OpenSpiel's alpha_beta_search, in one run.

(a) Solving tic_tac_toe from the start. (b) connect_four from a fixed set of positions at depth 8
with the same heuristic for both searches, and the node rate of a bare depth-first walk over the
same positions: the ceiling for any Python search. (c) By depth on connect_four and breakthrough:
nodes against the Knuth-Moore minimal tree and time against OpenSpiel's alpha-beta. (Until issue
24, (c) also timed the readable reference engine, `reference_engine=True`; that engine is now the
test oracle `tests/alphabeta_reference.py`, no longer part of the package, and its columns went.)
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import pyspiel
from absl import flags
from open_spiel.python.algorithms import minimax

from spiel_bounded import AlphaBetaSettings, Limits, SearchResult, bounded_ab, make_evaluator
from spiel_bounded.evaluators import Evaluator
from spiel_bounded.testing import random_positions

_POSITIONS = flags.DEFINE_integer("ab_positions", 8, "Number of connect_four positions.")
_DEPTH = flags.DEFINE_integer("ab_depth", 8, "connect_four search depth.")
_WALK_DEPTH = flags.DEFINE_integer("ab_walk_depth", 6, "Depth of the bare walk per position.")
_SEED = flags.DEFINE_integer("ab_seed", 2026, "Seed of the random connect_four openings.")
_C4_DEPTHS = flags.DEFINE_list("ab_c4_depths", ["4", "5", "6", "7", "8", "9", "10"], "(c) depths.")
_BT_DEPTHS = flags.DEFINE_list("ab_bt_depths", ["2", "3", "4", "5", "6"], "(c) depths.")
_BT_POSITIONS = flags.DEFINE_integer("ab_bt_positions", 6, "(c) breakthrough positions.")
_OPENSPIEL_C4 = flags.DEFINE_integer(
    "ab_openspiel_c4_depth", 9, "(c) deepest connect_four depth OpenSpiel's search is run at."
)
_OPENSPIEL_BT = flags.DEFINE_integer(
    "ab_openspiel_bt_depth", 4, "(c) deepest breakthrough depth OpenSpiel's search is run at."
)


@dataclass(frozen=True)
class Row:
    """One measured configuration: totals over the position set."""

    name: str
    nodes: int
    seconds: float
    values: tuple[float, ...]
    evaluations: int | None = None

    @property
    def rate(self) -> float:
        return self.nodes / self.seconds


def _median_seconds(run: Callable[[], object], repeats: int) -> float:
    """Median process CPU time of `repeats` calls (everything measured runs in this process,
    so other processes' load changes it less than wall time)."""
    times = []
    for _ in range(repeats):
        start = time.process_time()
        run()
        times.append(time.process_time() - start)
    return statistics.median(times)


def _bare_walk(state: pyspiel.State, depth: int) -> int:
    if depth == 0 or state.is_terminal():
        return 1
    return 1 + sum(_bare_walk(state.child(a), depth - 1) for a in state.legal_actions())


class _CountingValue:
    """Counts OpenSpiel alpha-beta's nodes by wrapping its recursive helper."""

    def __init__(self) -> None:
        self.nodes = 0
        self._original = minimax._alpha_beta

    def __enter__(self) -> _CountingValue:
        original = self._original

        def counted(*args: object, **kwargs: object) -> object:
            self.nodes += 1
            return original(*args, **kwargs)

        minimax._alpha_beta = counted
        return self

    def __exit__(self, *exc: object) -> None:
        minimax._alpha_beta = self._original


def _openspiel_row(
    name: str,
    states: Sequence[pyspiel.State],
    depth: int,
    evaluator: Evaluator | None,
    repeats: int,
) -> Row:
    evaluations = [0]

    def run() -> list[float]:
        values = []
        for state in states:
            player = state.current_player()

            def value_function(leaf: pyspiel.State, p: int = player) -> float:
                evaluations[0] += 1
                assert evaluator is not None
                return float(evaluator.evaluate(leaf)[p])

            value, _ = minimax.alpha_beta_search(
                state.get_game(),
                state,
                value_function=None if evaluator is None else value_function,
                maximum_depth=depth,
                maximizing_player_id=player,
            )
            values.append(float(value))
        return values

    seconds = _median_seconds(run, repeats)
    evaluations[0] = 0
    with _CountingValue() as counter:
        values = run()
    return Row(name, counter.nodes, seconds, tuple(values), evaluations[0])


def _ours_row(
    name: str,
    states: Sequence[pyspiel.State],
    depth: int,
    evaluator: Evaluator,
    settings: AlphaBetaSettings,
    repeats: int,
) -> Row:
    results: list[SearchResult] = []

    def run() -> None:
        results.clear()
        for state in states:
            results.append(
                bounded_ab(
                    state, evaluator=evaluator, limits=Limits(depth=depth), settings=settings
                )
            )

    seconds = _median_seconds(run, repeats)
    for result in results:
        assert result.lower == result.upper, "epsilon 0 must give an exact value"
    return Row(
        name,
        sum(r.stats.nodes or 0 for r in results),  # our searches count nodes
        seconds,
        tuple(r.lower for r in results),
        sum(r.stats.evaluations for r in results),
    )


def _walk_row(states: Sequence[pyspiel.State], depth: int, repeats: int) -> Row:
    nodes = sum(_bare_walk(s, depth) for s in states)
    seconds = _median_seconds(lambda: [_bare_walk(s, depth) for s in states], repeats)
    return Row(f"bare depth-first walk, depth {depth}", nodes, seconds, ())


def _table(rows: Sequence[Row], reference: Row, ceiling: Row, per_eval: float) -> list[str]:
    """One line per row; the last column removes the evaluator's own time from the rate."""
    lines = [
        "| search | nodes | evaluations | seconds | nodes/s | nodes vs OpenSpiel | "
        "time vs OpenSpiel | nodes/s vs bare walk | same, evaluation time removed |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in rows:
        evaluations = row.evaluations or 0
        net_rate = row.nodes / max(row.seconds - evaluations * per_eval, 1e-9)
        lines.append(
            f"| {row.name} | {row.nodes:,} | {evaluations:,} | {row.seconds:.3f} | "
            f"{row.rate:,.0f} | {row.nodes / reference.nodes:.3f} | "
            f"{row.seconds / reference.seconds:.3f} | {row.rate / ceiling.rate:.0%} | "
            f"{net_rate / ceiling.rate:.0%} |"
        )
    return lines


def minimal_tree_nodes(branching: float, depth: int) -> float:
    """Nodes of the Knuth-Moore minimal tree of a uniform tree: level k holds
    b^ceil(k/2) + b^floor(k/2) - 1 nodes (Knuth & Moore 1975), summed over k = 0..depth."""
    return sum(branching ** ((k + 1) // 2) + branching ** (k // 2) - 1 for k in range(depth + 1))


def _depth_table(
    states: Sequence[pyspiel.State],
    depths: Sequence[int],
    openspiel_depth: int,
    evaluator: Evaluator,
    repeats: int,
) -> list[str]:
    """(c): one line per depth; OpenSpiel's search is timed once, its nodes counted apart."""
    branching = statistics.fmean(len(state.legal_actions()) for state in states)
    lines = [
        "| depth | nodes | minimal tree | nodes vs minimal | seconds | OpenSpiel nodes | "
        "OpenSpiel seconds | time vs OpenSpiel |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for depth in depths:
        runs = [
            _ours_row("ours", states, depth, evaluator, AlphaBetaSettings(), 1)
            for _ in range(max(repeats, 1))
        ]
        ours = replace(runs[0], seconds=statistics.median(run.seconds for run in runs))
        minimal = minimal_tree_nodes(branching, depth) * len(states)
        cells = [
            f"{depth}",
            f"{ours.nodes:,}",
            f"{minimal:,.0f}",
            f"{ours.nodes / minimal:.2f}",
            f"{ours.seconds:.3f}",
        ]
        if depth <= openspiel_depth:
            theirs = _openspiel_row("OpenSpiel", states, depth, evaluator, 1)
            assert theirs.values == ours.values, f"values differ from OpenSpiel at depth {depth}"
            cells += [
                f"{theirs.nodes:,}",
                f"{theirs.seconds:.3f}",
                f"{ours.seconds / theirs.seconds:.4f}",
            ]
        else:
            cells += ["not run", "", ""]
        lines.append("| " + " | ".join(cells) + " |")
    lines += [
        "",
        f"Minimal tree: the Knuth-Moore count for a uniform tree of branching {branching:.2f} "
        "(the mean number of legal moves at these positions), summed over levels 0..depth, times "
        "the number of positions. Our nodes count every iteration of iterative deepening (the "
        "bot's default) and terminal positions cut the real trees short, so the ratio is a guide, "
        "not a bound.",
        "",
    ]
    return lines


def run(repeats: int) -> list[str]:
    """Runs the suite; returns its Markdown section."""
    ttt = pyspiel.load_game("tic_tac_toe")
    zero = make_evaluator("zero", ttt)
    ttt_states = [ttt.new_initial_state()]
    exact = AlphaBetaSettings(iterative_deepening=False)
    ttt_rows = [
        _openspiel_row("OpenSpiel alpha_beta_search", ttt_states, 9, None, repeats),
        _ours_row("bounded_ab eps=0 (TT, ordering)", ttt_states, 9, zero, exact, repeats),
        _ours_row(
            "bounded_ab eps=0 (TT, ordering, iterative deepening from depth 1)",
            ttt_states,
            9,
            zero,
            AlphaBetaSettings(endgame_plies=0),
            repeats,
        ),
        _ours_row(
            "bounded_ab eps=0 (defaults: iterative deepening, endgame_plies=9)",
            ttt_states,
            9,
            zero,
            AlphaBetaSettings(),
            repeats,
        ),
        _ours_row(
            "bounded_ab eps=0 (no TT, no ordering)",
            ttt_states,
            9,
            zero,
            AlphaBetaSettings(transpositions=False, move_ordering=False, iterative_deepening=False),
            repeats,
        ),
    ]
    ttt_walk = _walk_row(ttt_states, 9, repeats)
    for row in ttt_rows[1:]:
        assert row.values == ttt_rows[0].values, (row.name, row.values, ttt_rows[0].values)

    c4 = pyspiel.load_game("connect_four")
    heuristic = make_evaluator("heuristic", c4)
    c4_states = random_positions(c4, _POSITIONS.value, plies=(4, 11), seed=_SEED.value)
    depth = _DEPTH.value
    c4_rows = [
        _openspiel_row("OpenSpiel alpha_beta_search", c4_states, depth, heuristic, repeats),
        _ours_row(
            "bounded_ab eps=0 (TT, ordering, ID)",
            c4_states,
            depth,
            heuristic,
            AlphaBetaSettings(),
            repeats,
        ),
        _ours_row(
            "bounded_ab eps=0 (TT, ordering, no ID)",
            c4_states,
            depth,
            heuristic,
            AlphaBetaSettings(iterative_deepening=False),
            repeats,
        ),
        _ours_row(
            "bounded_ab eps=0 (no TT, no ordering, no ID)",
            c4_states,
            depth,
            heuristic,
            AlphaBetaSettings(transpositions=False, move_ordering=False, iterative_deepening=False),
            repeats,
        ),
    ]
    for row in c4_rows[1:]:
        assert row.values == c4_rows[0].values, (row.name, row.values, c4_rows[0].values)
    c4_walk = _walk_row(c4_states, _WALK_DEPTH.value, repeats)
    # The heuristic's own cost on positions like the search's leaves (8 plies deeper), to
    # separate search overhead from evaluation cost.
    leaves = random_positions(c4, 200, plies=(4, 11), seed=_SEED.value + 1)
    per_eval = _median_seconds(lambda: [heuristic.evaluate(s) for s in leaves * 50], 3)
    per_eval /= len(leaves) * 50
    breakthrough = pyspiel.load_game("breakthrough")
    bt_heuristic = make_evaluator("heuristic", breakthrough)
    bt_states = random_positions(breakthrough, _BT_POSITIONS.value, plies=(2, 12), seed=_SEED.value)

    return [
        "## Bounded alpha-beta vs OpenSpiel's alpha_beta_search",
        "",
        f"Settings: positions={_POSITIONS.value}, depth={depth}, seed={_SEED.value}. OpenSpiel's "
        "nodes are counted in a separate untimed run. Seconds are process CPU time.",
        "",
        "### (a) Solving tic_tac_toe from the start",
        "",
        *_table(ttt_rows, ttt_rows[0], ttt_walk, 0.0),
        "",
        f"Bare walk of the whole tic_tac_toe tree: {ttt_walk.nodes:,} nodes in "
        f"{ttt_walk.seconds:.3f} s ({ttt_walk.rate:,.0f} nodes/s). All rows agree on the value "
        f"({ttt_rows[0].values[0]:+.0f}).",
        "",
        f"### (b) connect_four, {len(c4_states)} positions, depth {depth}, heuristic evaluator",
        "",
        *_table(c4_rows, c4_rows[0], c4_walk, per_eval),
        "",
        f"Bare walk to depth {_WALK_DEPTH.value} over the same positions: {c4_walk.nodes:,} nodes "
        f"in {c4_walk.seconds:.3f} s ({c4_walk.rate:,.0f} nodes/s). One heuristic evaluation: "
        f"{per_eval * 1e6:.2f} µs. All rows agree on every position's value.",
        "",
        "The last column divides nodes by the time left after subtracting evaluations x the "
        "measured cost of one evaluation: the search's own overhead against the bare walk.",
        "",
        f"### (c) By depth: connect_four ({len(c4_states)} positions) and breakthrough "
        f"({len(bt_states)} positions), heuristic evaluator, the bot's default settings",
        "",
        "Seconds (process CPU time) are the median of the repeats for our engine and one run for "
        "OpenSpiel's `alpha_beta_search`, whose values are checked equal to ours.",
        "",
        "connect_four:",
        "",
        *_depth_table(
            c4_states, [int(d) for d in _C4_DEPTHS.value], _OPENSPIEL_C4.value, heuristic, repeats
        ),
        "breakthrough:",
        "",
        *_depth_table(
            bt_states,
            [int(d) for d in _BT_DEPTHS.value],
            _OPENSPIEL_BT.value,
            bt_heuristic,
            repeats,
        ),
    ]
