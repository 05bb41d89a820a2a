"""Suite `equivalence`: the alpha-beta engine gives identical searches after a speed change.

Every search of a fixed grid (seeded positions of tic_tac_toe, connect_four, breakthrough and
pig; epsilon 0, 0.1 and 0.4; iterative deepening, transpositions and move ordering each on and
off; no node limit and a 1,500-node limit; `bounded_ab`, and `bounded_star1` / `bounded_star2`
on pig) is reduced to its fingerprint: move, bounds, every root child's bounds, principal
variation and the counts (nodes, evaluations, cutoffs, transposition hits, depth, why it
stopped). `--equivalence_record` writes the fingerprints to `REFERENCE`; a normal run compares
with it and reports every search that differs. A change that only makes the engine faster must
report 0 differences.

    python scripts/bench.py --suites=equivalence --equivalence_record   # before the change
    python scripts/bench.py --suites=equivalence --output=/tmp/eq.md     # after it

`tests/test_equivalence.py` runs the suite on every 8th search (`--equivalence_stride=8`).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import pyspiel
from absl import flags

from spiel_bounded import (
    AlphaBetaSettings,
    Limits,
    SearchResult,
    bounded_ab,
    bounded_star1,
    bounded_star2,
    make_evaluator,
    paranoid,
)
from spiel_bounded.testing import random_positions

REFERENCE: Final = Path(__file__).resolve().parents[2] / "results/equivalence/alphabeta.json"
EPSILONS: Final = (0.0, 0.1, 0.4)
NODE_LIMITS: Final = (None, 1500)

_RECORD = flags.DEFINE_bool(
    "equivalence_record", False, f"Write the reference fingerprints to {REFERENCE} instead."
)
_ENGINE = flags.DEFINE_enum(
    "equivalence_engine",
    "fast",
    ["fast", "reference"],
    "The engine compared: the default one or the readable reference (`reference_engine`).",
)
_STRIDE = flags.DEFINE_integer(
    "equivalence_stride", 1, "Compare every n-th search of the grid only (the test uses 8)."
)


@dataclass(frozen=True)
class PositionSet:
    """Seeded positions of one game and the searches run on them."""

    game: str
    count: int
    plies: tuple[int, int]
    depth: int
    searches: tuple[str, ...]
    seed: int = 2026
    label: str = ""  # names the set in case keys when the game has several sets

    @property
    def name(self) -> str:
        return self.label or self.game


POSITION_SETS: Final = (
    PositionSet("tic_tac_toe", 4, (0, 4), 9, ("bounded_ab",)),
    PositionSet("connect_four", 6, (4, 14), 7, ("bounded_ab",)),
    PositionSet("breakthrough", 4, (2, 10), 3, ("bounded_ab",)),
    PositionSet("pig(winscore=20)", 3, (2, 12), 3, ("bounded_star1", "bounded_star2")),
    PositionSet("breakthrough", 2, (6, 16), 4, ("bounded_ab",), seed=7, label="breakthrough@4"),
    PositionSet("chinese_checkers(players=3)", 2, (6, 30), 2, ("paranoid",)),
    PositionSet("maedn(players=3)", 2, (10, 60), 2, ("paranoid",)),
)
_SEARCHES: Final[dict[str, Callable[..., SearchResult]]] = {
    "bounded_ab": bounded_ab,
    "bounded_star1": bounded_star1,
    "bounded_star2": bounded_star2,
    "paranoid": paranoid,
}


@dataclass(frozen=True)
class Case:
    """One search of the grid; `key` names it in the reference."""

    positions: PositionSet
    index: int
    search: str
    epsilon: float
    iterative_deepening: bool
    transpositions: bool
    move_ordering: bool
    nodes: int | None

    @property
    def key(self) -> str:
        return (
            f"{self.positions.name}#{self.index}|{self.search}|eps={self.epsilon:g}|"
            f"id={int(self.iterative_deepening)}|tt={int(self.transpositions)}|"
            f"order={int(self.move_ordering)}|nodes={self.nodes}"
        )


def cases() -> Iterator[Case]:
    """The whole grid, in a fixed order."""
    for positions in POSITION_SETS:
        for index, search in itertools.product(range(positions.count), positions.searches):
            for epsilon, deepening, table, ordering, nodes in itertools.product(
                EPSILONS, (True, False), (True, False), (True, False), NODE_LIMITS
            ):
                yield Case(positions, index, search, epsilon, deepening, table, ordering, nodes)


_STATES: dict[PositionSet, list[pyspiel.State]] = {}


def _state(case: Case) -> pyspiel.State:
    positions = case.positions
    if positions not in _STATES:
        game = pyspiel.load_game(positions.game)
        _STATES[positions] = random_positions(
            game, positions.count, plies=positions.plies, seed=positions.seed
        )
    return _STATES[positions][case.index]


def fingerprint(case: Case) -> dict[str, Any]:
    """Runs the case's search and returns what must not change."""
    state = _state(case)
    game = state.get_game()
    result = _SEARCHES[case.search](
        state,
        evaluator=make_evaluator("heuristic", game),
        limits=Limits(depth=case.positions.depth, nodes=case.nodes),
        settings=AlphaBetaSettings(
            epsilon=case.epsilon,
            iterative_deepening=case.iterative_deepening,
            transpositions=case.transpositions,
            move_ordering=case.move_ordering,
            **({"reference_engine": True} if _ENGINE.value == "reference" else {}),
        ),
    )
    stats = result.stats
    return {
        "action": result.action,
        "lower": result.lower,
        "upper": result.upper,
        "children": sorted([action, *bounds] for action, bounds in result.children.items()),
        "pv": list(result.pv),
        "nodes": stats.nodes,
        "evaluations": stats.evaluations,
        "cutoffs": stats.cutoffs,
        "tt_hits": stats.tt_hits,
        "depth": stats.depth,
        "stopped_by": stats.stopped_by,
    }


def load_reference() -> dict[str, dict[str, Any]]:
    return json.loads(REFERENCE.read_text())  # type: ignore[no-any-return]


def differences(reference: dict[str, dict[str, Any]], case: Case) -> list[str]:
    """What differs between the case's search now and its reference (empty: identical)."""
    expected = reference.get(case.key)
    if expected is None:
        return [f"{case.key}: not in the reference (run with --equivalence_record)"]
    found = json.loads(json.dumps(fingerprint(case)))  # the same float and list forms
    return [
        f"{case.key}: {name} {expected[name]!r} -> {found[name]!r}"
        for name in expected
        if expected[name] != found.get(name)
    ]


def run(repeats: int) -> list[str]:
    del repeats  # results, not timings
    grid = list(cases())
    if _RECORD.value:
        REFERENCE.parent.mkdir(parents=True, exist_ok=True)
        entries = [f"{json.dumps(case.key)}: {json.dumps(fingerprint(case))}" for case in grid]
        REFERENCE.write_text("{\n" + ",\n".join(entries) + "\n}\n")
        return [
            "## Equivalence (recorded)",
            "",
            f"Wrote the fingerprints of {len(grid)} searches to `{REFERENCE.name}`.",
            "",
        ]
    reference = load_reference()
    grid = grid[:: _STRIDE.value]
    found = [line for case in grid for line in differences(reference, case)]
    lines = [
        "## Equivalence",
        "",
        f"{len(grid)} searches compared with `results/equivalence/{REFERENCE.name}`: "
        f"{len(found)} differences.",
        "",
    ]
    return lines + [f"- {line}" for line in found[:50]] + ([""] if found else [])
