"""Suite `native`: the native engine against the Python engine and OpenSpiel, in one run.

Every row searches the same positions with the same settings on both engines and checks that
they visit the same nodes and return the same values (the native engine follows the Python one
step for step). (a) connect_four at depth 8 with the heuristic, beside OpenSpiel's
`alpha_beta_search` and a bare Python depth-first walk (the ceiling of any Python search). (b)
Other games and searches, each with the C++ twin of its heuristic. (c) Solving late connect_four
positions with the zero evaluator, by `bounded_ab` and by `pns`. (d) `rivest` on connect_four.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import pyspiel
from absl import flags

from benchmarks.alphabeta import _bare_walk, _median_seconds, _openspiel_row
from spiel_bounded import AlphaBetaSettings, Limits, make_evaluator
from spiel_bounded.search import alphabeta, maxn, pns, rivest
from spiel_bounded.testing import random_positions

_POSITIONS = flags.DEFINE_integer("native_positions", 8, "connect_four positions of (a).")
_SEED = flags.DEFINE_integer("native_seed", 2026, "Seed of the random openings.")
_SOLVE = flags.DEFINE_list(
    "native_solve",
    ["2116203625606", "53013534642440", "44645510216603505", "434346133210250"],
    "(c) connect_four positions to solve, as 0-based column sequences.",
)


@dataclass(frozen=True)
class Measured:
    """Totals of one engine over a position set."""

    nodes: int
    seconds: float
    values: tuple[Any, ...]

    @property
    def rate(self) -> float:
        return self.nodes / self.seconds


def _measure(
    search: Callable[..., Any],
    states: Sequence[pyspiel.State],
    evaluator: str,
    limits: Limits,
    engine: str,
    repeats: int,
    settings_class: Callable[..., Any] = AlphaBetaSettings,
    **settings: Any,
) -> Measured:
    results: list[Any] = []

    def run() -> None:
        results.clear()
        for state in states:
            results.append(
                search(
                    state,
                    evaluator=make_evaluator(evaluator, state.get_game()),
                    limits=limits,
                    settings=settings_class(engine=engine, **settings),
                )
            )

    seconds = _median_seconds(run, repeats)
    assert all(result.stats.engine == engine for result in results)
    nodes = sum(result.stats.nodes for result in results)
    values = tuple(result.values or result.lower for result in results)
    return Measured(nodes, seconds, values)


def _pair(
    name: str,
    search: Callable[..., Any],
    states: Sequence[pyspiel.State],
    evaluator: str,
    limits: Limits,
    repeats: int,
    settings_class: Callable[..., Any] = AlphaBetaSettings,
    **settings: Any,
) -> tuple[str, Measured, Measured]:
    python = _measure(
        search, states, evaluator, limits, "python", repeats, settings_class, **settings
    )
    native = _measure(
        search, states, evaluator, limits, "native", repeats, settings_class, **settings
    )
    assert (python.nodes, python.values) == (native.nodes, native.values), name
    return name, python, native


def _pns(state: pyspiel.State, *, evaluator: Any, limits: Limits, settings: Any) -> Any:
    """`pns` called as the other searches are (it has no evaluator)."""
    return pns.pns(state, limits=limits, settings=settings)


def _pair_line(name: str, python: Measured, native: Measured) -> str:
    return (
        f"| {name} | {python.nodes:,} | {python.seconds:.3f} | {native.seconds:.3f} | "
        f"{python.rate:,.0f} | {native.rate:,.0f} | {python.seconds / native.seconds:.1f}x |"
    )


def run(repeats: int) -> list[str]:
    """Runs the suite; returns its Markdown section."""
    c4 = pyspiel.load_game("connect_four")
    c4_states = random_positions(c4, _POSITIONS.value, plies=(4, 11), seed=_SEED.value)
    depth8 = Limits(depth=8)
    heuristic = make_evaluator("heuristic", c4)
    openspiel = _openspiel_row("OpenSpiel", c4_states, 8, heuristic, 1)
    _, python, native = _pair(
        "bounded_ab", alphabeta.bounded_ab, c4_states, "heuristic", depth8, repeats
    )
    assert openspiel.values == native.values, "values differ from OpenSpiel"
    walk_nodes = sum(_bare_walk(state, 6) for state in c4_states)
    walk_seconds = _median_seconds(lambda: [_bare_walk(s, 6) for s in c4_states], repeats)
    walk_rate = walk_nodes / walk_seconds
    lines = [
        "## The native engine against the Python engine and OpenSpiel",
        "",
        "Seconds are process CPU time, the median of the repeats (OpenSpiel's search: one run). "
        "Every pair of rows visits the same nodes and gives the same values (checked).",
        "",
        f"### (a) connect_four, {len(c4_states)} positions, depth 8, heuristic evaluator",
        "",
        "| search | nodes | seconds | nodes/s | nodes/s vs bare Python walk | time vs OpenSpiel |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
        f"| OpenSpiel alpha_beta_search | {openspiel.nodes:,} | {openspiel.seconds:.3f} | "
        f"{openspiel.rate:,.0f} | {openspiel.rate / walk_rate:.2f}x | 1 |",
    ]
    for engine, row in (("Python", python), ("native", native)):
        lines.append(
            f"| bounded_ab, {engine} engine | {row.nodes:,} | {row.seconds:.3f} | "
            f"{row.rate:,.0f} | {row.rate / walk_rate:.2f}x | "
            f"1/{openspiel.seconds / row.seconds:,.0f} |"
        )
    lines += [
        "",
        f"Bare Python walk (`child()`, depth 6, same positions): {walk_nodes:,} nodes in "
        f"{walk_seconds:.3f} s ({walk_rate:,.0f} nodes/s).",
        "",
        "### (b) Other games and searches",
        "",
        "| search | nodes | Python s | native s | Python nodes/s | native nodes/s | speed-up |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    breakthrough = pyspiel.load_game("breakthrough")
    pig = pyspiel.load_game("pig")
    backgammon = pyspiel.load_game("backgammon")
    chinese = pyspiel.load_game("chinese_checkers(players=3)")
    ttt = pyspiel.load_game("tic_tac_toe")
    seed = _SEED.value
    pairs = [
        _pair(
            "bounded_ab, tic_tac_toe solved from the start, zero evaluator (C++ twin)",
            alphabeta.bounded_ab,
            [ttt.new_initial_state()],
            "zero",
            Limits(),
            repeats,
        ),
        _pair(
            "bounded_ab, breakthrough, 6 positions, depth 4, heuristic (C++ twin)",
            alphabeta.bounded_ab,
            random_positions(breakthrough, 6, plies=(2, 12), seed=seed),
            "heuristic",
            Limits(depth=4),
            repeats,
        ),
        _pair(
            "bounded_star2, pig, 6 positions, depth 5, heuristic (C++ twin)",
            alphabeta.bounded_star2,
            random_positions(pig, 6, plies=(2, 12), seed=seed),
            "heuristic",
            Limits(depth=5),
            repeats,
        ),
        _pair(
            "bounded_star2, backgammon, 4 positions, depth 2, heuristic (C++ twin)",
            alphabeta.bounded_star2,
            random_positions(backgammon, 4, plies=(4, 12), seed=seed),
            "heuristic",
            Limits(depth=2),
            repeats,
        ),
        _pair(
            "paranoid, chinese_checkers(players=3), 4 positions, depth 3, heuristic (C++ twin)",
            alphabeta.paranoid,
            random_positions(chinese, 4, plies=(6, 30), seed=seed),
            "heuristic",
            Limits(depth=3),
            repeats,
        ),
        _pair(
            "maxn (speculative), chinese_checkers(players=3), 4 positions, depth 3, heuristic "
            "(C++ twin)",
            maxn.maxn,
            random_positions(chinese, 4, plies=(6, 30), seed=seed),
            "heuristic",
            Limits(depth=3),
            repeats,
            maxn.MaxnSettings,
        ),
    ]
    lines += [_pair_line(*pair) for pair in pairs]
    lines += [
        "",
        "### (c) Solving late connect_four positions, zero evaluator, 2,000,000-entry tables",
        "",
        "| position | search | value | nodes | Python s | native s | speed-up |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for moves in _SOLVE.value:
        state = c4.new_initial_state()
        for move in moves:
            state.apply_action(int(move))
        for name, search, settings_class in (
            ("bounded_ab", alphabeta.bounded_ab, AlphaBetaSettings),
            ("pns (win)", _pns, pns.PNSSettings),
        ):
            _, python, native = _pair(
                moves, search, [state], "zero", Limits(), 1, settings_class, tt_capacity=2_000_000
            )
            lines.append(
                f"| `{moves}` | {name} | {native.values[0]:+.0f} | {native.nodes:,} | "
                f"{python.seconds:.2f} | {native.seconds:.2f} | "
                f"{python.seconds / native.seconds:.1f}x |"
            )
    rivest_states = random_positions(c4, 4, plies=(4, 11), seed=_SEED.value)
    lines += [
        "",
        "### (d) rivest on connect_four",
        "",
        "| search | nodes | Python s | native s | Python nodes/s | native nodes/s | speed-up |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
        _pair_line(
            *_pair(
                f"rivest (reverse), {len(rivest_states)} positions, 20,000 nodes, heuristic "
                "(C++ twin)",
                rivest.rivest,
                rivest_states,
                "heuristic",
                Limits(nodes=20_000),
                repeats,
                rivest.RivestSettings,
            )
        ),
        "",
        "BABMCTS against OpenSpiel's C++ MCTS: suite `mcts`; the n-player searches: suite "
        "`nplayer`.",
        "",
    ]
    return lines
