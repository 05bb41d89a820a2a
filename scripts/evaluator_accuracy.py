"""How well evaluators know a game: their values of solved positions against the exact values.

    python scripts/evaluator_accuracy.py --game=clobber --depths=0,3 --rollouts=8 \
        --evaluators=net:results/models/clobber/model.npz,rollout

Draws positions of random games (`--plies` random moves), solves each with `bounded_ab`
(skipping those it cannot solve within `--solve_nodes`), and prints a Markdown table of each
evaluator at each depth (0: its own value; d: a `bounded_ab` search of d plies with it): how often
its value for the player to move has the exact value's sign, and their correlation
(`spiel_bounded.training.accuracy`). Two-player zero-sum games without chance nodes. Exit
status: 0 done; 2 a bad flag, game or evaluator.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from absl import app, flags

from spiel_bounded import commandline
from spiel_bounded.evaluators import make_evaluator
from spiel_bounded.games import load_game
from spiel_bounded.training.accuracy import PositionDraw, measure, solved_positions

_GAME = flags.DEFINE_string("game", None, "Game string (two players, zero-sum, no chance).")
_EVALUATORS = flags.DEFINE_list("evaluators", ["rollout"], "Evaluator specs (net:PATH, ...).")
_DEPTHS = flags.DEFINE_list("depths", ["0"], "0: the evaluator alone; d: bounded_ab at depth d.")
_ROLLOUTS = flags.DEFINE_integer("rollouts", 1, "Playouts per evaluation (rollout evaluator).")
_POSITIONS = flags.DEFINE_integer("positions", 100, "Solved positions to score.")
_PLIES = flags.DEFINE_list("plies", ["8", "21"], "Fewest and most random plies before one.")
_SOLVE_NODES = flags.DEFINE_integer("solve_nodes", 2_000_000, "Node budget of each solve.")
_SEED = flags.DEFINE_integer("seed", 0, "Seed of the random games and of the rollouts.")


def main(argv: Sequence[str]) -> None:
    commandline.refuse_arguments(argv)
    if _GAME.value is None:
        raise app.UsageError("--game is required", exitcode=commandline.USAGE_ERROR)
    depths = commandline.integers("depths", _DEPTHS.value)
    plies = commandline.integers("plies", _PLIES.value)
    if len(plies) != 2:
        raise app.UsageError(
            f"--plies must be two numbers, the fewest and the most; got {','.join(_PLIES.value)}",
            exitcode=commandline.USAGE_ERROR,
        )
    low, high = plies
    try:
        draw = PositionDraw(
            game=_GAME.value,
            positions=_POSITIONS.value,
            plies=(low, high),
            solve_nodes=_SOLVE_NODES.value,
            seed=_SEED.value,
        )
        game = load_game(draw.game)
        evaluators = [
            make_evaluator(spec, game, rollouts=_ROLLOUTS.value, seed=_SEED.value)
            for spec in _EVALUATORS.value
        ]
        positions = solved_positions(draw)
        rows = [
            measure(positions, evaluator, depth) for evaluator in evaluators for depth in depths
        ]
    except ValueError as error:
        sys.stderr.write(f"error: {error}\n")
        sys.exit(commandline.USAGE_ERROR)
    print(
        f"{draw.game}: {len(positions)} positions after {low}-{high} random plies (seed "
        f"{draw.seed}), solved by bounded_ab within {draw.solve_nodes:,} nodes; values for the "
        f"player to move (rollouts: {_ROLLOUTS.value} a leaf).\n"
    )
    print("| evaluator | depth | positions | sign agrees | correlation |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for row in rows:
        print(
            f"| {row.evaluator} | {row.depth} | {row.positions} | "
            f"{100 * row.sign_agreement:.1f}% | {row.correlation:.2f} |"
        )


if __name__ == "__main__":
    commandline.run(main, program="python scripts/evaluator_accuracy.py")
