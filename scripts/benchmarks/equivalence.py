"""Suite `equivalence`: the alpha-beta engine gives identical searches after a speed change.

Every search of a fixed grid (`spiel_bounded.testing.equivalence_cases`: seeded positions of
tic_tac_toe, connect_four, breakthrough and pig, paranoid on 3-player chinese_checkers and maedn;
epsilon 0, 0.1 and 0.4; iterative deepening, transpositions and move ordering each on and off; no
node limit and a 1,500-node limit) is reduced to its fingerprint: move, bounds, every root child's
bounds, principal variation and the counts (nodes, evaluations, cutoffs, transposition hits,
depth, why it stopped). `--equivalence_record` writes the fingerprints to `REFERENCE`; a normal run
compares with it and reports every search that differs. A change that only makes the engine
faster must report 0 differences.

    python scripts/bench.py --suites=equivalence --equivalence_record   # before the change
    python scripts/bench.py --suites=equivalence --output=/tmp/eq.md     # after it

`tests/test_equivalence.py` compares a sample of the grid in-process, for the engine and for the
readable oracle `tests/alphabeta_reference.py`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

from absl import flags

from spiel_bounded.testing import equivalence_cases, fingerprint_differences

REFERENCE: Final = Path(__file__).resolve().parents[2] / "results/equivalence/alphabeta.json"

_RECORD = flags.DEFINE_bool(
    "equivalence_record", False, f"Write the reference fingerprints to {REFERENCE} instead."
)
_STRIDE = flags.DEFINE_integer(
    "equivalence_stride", 1, "Compare every n-th search of the grid only."
)


def load_reference() -> dict[str, dict[str, Any]]:
    return json.loads(REFERENCE.read_text())  # type: ignore[no-any-return]


def run(repeats: int) -> list[str]:
    del repeats  # results, not timings
    grid = equivalence_cases()
    if _RECORD.value:
        REFERENCE.parent.mkdir(parents=True, exist_ok=True)
        entries = [f"{json.dumps(case.key)}: {json.dumps(case.run())}" for case in grid]
        REFERENCE.write_text("{\n" + ",\n".join(entries) + "\n}\n")
        return [
            "## Equivalence (recorded)",
            "",
            f"Wrote the fingerprints of {len(grid)} searches to `{REFERENCE.name}`.",
            "",
        ]
    reference = load_reference()
    grid = grid[:: _STRIDE.value]
    found = [
        line
        for case in grid
        for line in fingerprint_differences(case.key, reference.get(case.key), case.run())
    ]
    lines = [
        "## Equivalence",
        "",
        f"{len(grid)} searches compared with `results/equivalence/{REFERENCE.name}`: "
        f"{len(found)} differences.",
        "",
    ]
    return lines + [f"- {line}" for line in found[:50]] + ([""] if found else [])
