"""How often searches with given evaluators play a move that lowers the solved value (connect_four
and clobber).

    python scripts/perfect_play_accuracy.py \
        --tournament=results/round_robin_confirm_connect_four_threats64_fresh \
        --evaluators=heuristic,net:results/models/connect_four_threats64/model.npz

Draws `--count` positions of a tournament's games of a solved game (after each game's opening)
where the legal moves' solved values differ, solves every move of each
(`spiel_bounded.arena.perfect_play`), and lets `bounded_ab` with each evaluator choose a move in
each within `--nodes` nodes (a node budget, not a clock: the figures do not depend on the
machine). Prints a Markdown table (or writes it to --output): each evaluator's errors with a 95%
Wilson interval, and its error rate minus the previous row's on the same positions with a 95%
interval from resampling positions. Needs the native engine. Exit status: 0 done; 2 a bad flag,
directory or evaluator.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

import pyspiel
from absl import app, flags

from spiel_bounded import commandline
from spiel_bounded.arena.perfect_play import (
    critical_positions,
    move_accuracy,
    paired_difference,
)
from spiel_bounded.arena.store import StoreError
from spiel_bounded.evaluators import Evaluator, make_evaluator
from spiel_bounded.limits import Limits
from spiel_bounded.search.alphabeta import bounded_ab

_TOURNAMENT = flags.DEFINE_string("tournament", None, "Tournament output directory.")
_EVALUATORS = flags.DEFINE_list("evaluators", None, "Evaluator specs (net:PATH, heuristic...).")
_COUNT = flags.DEFINE_integer("count", 500, "Positions to ask.")
_NODES = flags.DEFINE_integer("nodes", 20_000, "bounded_ab's node budget a move.")
_SEED = flags.DEFINE_integer("seed", 0, "Seed of the draw of positions and of the resampling.")
_OUTPUT = flags.DEFINE_string("output", None, "Write the table here instead of printing it.")


def main(argv: Sequence[str]) -> None:
    commandline.refuse_arguments(argv)
    if _TOURNAMENT.value is None or not _EVALUATORS.value:
        raise app.UsageError(
            "--tournament and --evaluators are required", exitcode=commandline.USAGE_ERROR
        )
    if _COUNT.value < 1 or _NODES.value < 1:
        raise app.UsageError(
            "--count and --nodes must be at least 1", exitcode=commandline.USAGE_ERROR
        )
    try:
        game, positions, values = critical_positions(
            Path(_TOURNAMENT.value), _COUNT.value, seed=_SEED.value
        )
        evaluators = [(spec, make_evaluator(spec, game)) for spec in _EVALUATORS.value]
    except (StoreError, ValueError, OSError) as error:
        sys.stderr.write(f"error: {error}\n")
        sys.exit(commandline.USAGE_ERROR)
    limits = Limits(nodes=_NODES.value)
    results = []
    for spec, evaluator in evaluators:

        def choose(state: pyspiel.State, evaluator: Evaluator = evaluator) -> int:
            return bounded_ab(state, evaluator=evaluator, limits=limits).action

        results.append(move_accuracy(spec, choose, game, positions, values))
    lines = [
        f"Moves of `bounded_ab` ({_NODES.value:,} nodes a move) against perfect play on "
        f"{len(positions)} positions of `{_TOURNAMENT.value}` where a move can lower the solved "
        f"value (seed {_SEED.value}); 95% intervals.",
        "",
        "| evaluator | positions | errors | error rate | 95% interval | minus the row above |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for index, result in enumerate(results):
        change = ""
        if index:
            mean, low, high = paired_difference(result, results[index - 1], seed=_SEED.value)
            change = f"{mean:+.1%} [{low:+.1%}, {high:+.1%}]"
        lines.append(
            f"| {result.name} | {result.positions} | {result.errors} | {result.rate:.1%} | "
            f"[{result.low:.1%}, {result.high:.1%}] | {change} |"
        )
    text = "\n".join(lines) + "\n"
    commandline.write_or_print(text, _OUTPUT.value)


if __name__ == "__main__":
    commandline.run(main, program="python scripts/perfect_play_accuracy.py")
