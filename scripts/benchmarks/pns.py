"""Suite `pns`: proof-number search, bounded multi-outcome PNS and bounded alpha-beta, solving
the same positions side by side in one run.

Position sets are drawn by `spiel_bounded.testing.random_positions` from `--pns_seed` (uniformly
random moves from the start; no hand-picked positions): tic_tac_toe, connect_four at several
move numbers, breakthrough 5x5 and hex 4x4. Every search gets the same node cap per position;
a position counts as solved by a search when it answered its question within the cap
(`stopped_by == "solved"`). Totals compare the searches on the positions every search solved.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import pyspiel
from absl import flags

from spiel_bounded import (
    AlphaBetaSettings,
    BoundedPNSSettings,
    Limits,
    PNSSettings,
    SearchResult,
    bounded_ab,
    bounded_pns,
    make_evaluator,
    pns,
)
from spiel_bounded.testing import random_positions

_POSITIONS = flags.DEFINE_integer("pns_positions", 10, "Positions per set (tic_tac_toe: +1).")
_NODES = flags.DEFINE_integer("pns_nodes", 1_000_000, "Node cap per search and position.")
_SEED = flags.DEFINE_integer("pns_seed", 2026, "Seed of the random positions.")
_TT_CAPACITY = flags.DEFINE_integer(
    "pns_tt_capacity",
    2_000_000,
    "Table entries of every search (the searches' default before it became 500,000).",
)

# (label, game, plies from the start)
SETS: tuple[tuple[str, str, int | tuple[int, int]], ...] = (
    ("tic_tac_toe, plies 0-3", "tic_tac_toe", (0, 4)),
    ("connect_four, ply 12", "connect_four", 12),
    ("connect_four, ply 16", "connect_four", 16),
    ("connect_four, ply 20", "connect_four", 20),
    ("connect_four, ply 24", "connect_four", 24),
    ("breakthrough 5x5, ply 6", "breakthrough(rows=5,columns=5)", 6),
    ("hex 4x4, ply 2", "hex(board_size=4)", 2),
    ("hex 4x4, ply 4", "hex(board_size=4)", 4),
)

Search = Callable[[pyspiel.State, Limits], SearchResult]


def _searches(game: pyspiel.Game) -> dict[str, Search]:
    zero = make_evaluator("zero", game)
    capacity = _TT_CAPACITY.value
    return {
        "bounded_ab eps=0": lambda s, limits: bounded_ab(
            s, evaluator=zero, limits=limits, settings=AlphaBetaSettings(tt_capacity=capacity)
        ),
        "pns (win)": lambda s, limits: pns(
            s, limits=limits, settings=PNSSettings(tt_capacity=capacity)
        ),
        "pns (draw)": lambda s, limits: pns(
            s, limits=limits, settings=PNSSettings(goal="draw", tt_capacity=capacity)
        ),
        "bounded_pns eps=0": lambda s, limits: bounded_pns(
            s, limits=limits, settings=BoundedPNSSettings(tt_capacity=capacity)
        ),
        "bounded_pns eps=1": lambda s, limits: bounded_pns(
            s, limits=limits, settings=BoundedPNSSettings(epsilon=1.0, tt_capacity=capacity)
        ),
    }


@dataclass
class Tally:
    """One search over one position set."""

    solved: list[bool] = field(default_factory=list)
    nodes: list[int] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    results: list[SearchResult] = field(default_factory=list)


def _run(search: Search, state: pyspiel.State, limits: Limits, repeats: int) -> tuple:
    times = []
    result = None
    for _ in range(repeats):
        start = time.perf_counter()
        result = search(state, limits)
        times.append(time.perf_counter() - start)
    assert result is not None
    return result, statistics.median(times)


def _consistent(name: str, result: SearchResult, value: float) -> bool:
    """Whether a solved result agrees with the exact value found by bounded_ab."""
    if not result.lower <= value <= result.upper:
        return False
    if name == "pns (win)":
        return (result.lower > 0) == (value > 0)
    if name == "pns (draw)":
        return (result.lower >= 0) == (value >= 0)
    return True


def _set_section(
    label: str, game_string: str, plies: int | tuple[int, int], repeats: int
) -> list[str]:
    game = pyspiel.load_game(game_string)
    count = _POSITIONS.value + (1 if game_string == "tic_tac_toe" else 0)
    states = random_positions(game, count, plies=plies, seed=_SEED.value)
    limits = Limits(nodes=_NODES.value)
    searches = _searches(game)
    tallies = {name: Tally() for name in searches}
    for state in states:
        for name, search in searches.items():
            result, seconds = _run(search, state, limits, repeats)
            tally = tallies[name]
            tally.solved.append(result.stats.stopped_by == "solved")
            tally.nodes.append(result.stats.nodes or 0)
            tally.seconds.append(seconds)
            tally.results.append(result)
    common = [i for i in range(len(states)) if all(t.solved[i] for t in tallies.values())]
    reference = tallies["bounded_ab eps=0"]
    disagreements = 0
    for i in range(len(states)):
        if not reference.solved[i]:
            continue
        value = reference.results[i].lower
        for name, tally in tallies.items():
            if tally.solved[i] and not _consistent(name, tally.results[i], value):
                disagreements += 1
    ref_nodes = sum(reference.nodes[i] for i in common)
    ref_seconds = sum(reference.seconds[i] for i in common)
    fewest = {name: 0 for name in tallies}
    for i in common:
        least = min(t.nodes[i] for t in tallies.values())
        for name, tally in tallies.items():
            fewest[name] += tally.nodes[i] == least
    values = [reference.results[i].lower for i in range(len(states)) if reference.solved[i]]
    lines = [
        f"### {label} ({len(states)} positions)",
        "",
        f"Exact values (bounded_ab): {_value_counts(values)}. Totals over the {len(common)} "
        "positions every search solved.",
        "",
        "| search | solved | nodes | seconds | nodes vs bounded_ab | time vs bounded_ab "
        "| fewest nodes on |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, tally in tallies.items():
        nodes = sum(tally.nodes[i] for i in common)
        seconds = sum(tally.seconds[i] for i in common)
        lines.append(
            f"| {name} | {sum(tally.solved)}/{len(states)} | {nodes:,} | {seconds:.3f} | "
            f"{_ratio(nodes, ref_nodes)} | {_ratio(seconds, ref_seconds)} | "
            f"{fewest[name]}/{len(common)} |"
        )
    lines += [
        "",
        "All solved results agree with bounded_ab's exact values."
        if disagreements == 0
        else f"**{disagreements} solved results disagree with bounded_ab's exact values.**",
        "",
    ]
    return lines


def _ratio(value: float, reference: float) -> str:
    return f"{value / reference:.2f}" if reference > 0 else "-"


def _value_counts(values: Sequence[float]) -> str:
    if not values:
        return "none solved"
    counts = {v: values.count(v) for v in sorted(set(values))}
    return ", ".join(f"{v:+g} x{n}" for v, n in counts.items())


def run(repeats: int) -> list[str]:
    lines = [
        "## Proof-number search vs bounded alpha-beta: solving positions",
        "",
        f"Settings: positions={_POSITIONS.value} per set (tic_tac_toe one more), node cap "
        f"{_NODES.value:,} per search and position, seed={_SEED.value}, table capacity "
        f"{_TT_CAPACITY.value:,} entries. Nodes are states stepped "
        "into (df-pn's re-expansions included). bounded_ab: the `bounded_ab` bot's engine "
        "(iterative deepening, transposition table, move ordering) with the zero evaluator, "
        "solved when no leaf was evaluated. pns (win) / (draw): df-pn proving or disproving "
        "'the mover wins' / 'at least draws'. bounded_pns: the root value to within epsilon "
        "(values are -1, 0, +1, so eps=1 needs one threshold answered, eps=0 up to two).",
        "",
    ]
    for label, game_string, plies in SETS:
        lines += _set_section(label, game_string, plies, repeats)
    return lines
