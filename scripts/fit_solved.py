"""How learnable a game's values are: networks fit to exactly solved positions.

    python scripts/fit_solved.py --game=clobber --models=mlp,conv --sizes=2000,4000,8000,16000

Draws positions of random games (`--plies` random moves) and solves them with `bounded_ab`
(`evaluator_accuracy.py` does the same): `--test` of them to score, and as many as the largest
of `--sizes` to train on, from the next seed (a test position equal to a training one is left
out, and counted). Each network shape of `--models` (`mlp`, `conv`, or `KIND:INPUTS` such as
`mlp:contacts`; the package's default widths) is trained on the first N training positions for
each N of `--sizes`, every label the exact value (the default training settings, but at most 60
epochs and a patience of 6, with symmetric images where the package knows the game's symmetry),
and scored on the test positions (`spiel_bounded.training.learnability`). Prints a Markdown
table: how often each network's value of a decided position has the exact value's sign, and
the correlation of its values with the exact ones, beside the commoner sign's share. With
`--save=DIR`, each network is written there as `KIND_INPUTS_N.npz`, an evaluator
(`net:DIR/KIND_INPUTS_N.npz`). Two-player zero-sum games without chance nodes; needs the jax
extra. Exit status: 0 done; 1 the jax extra missing; 2 a bad flag or game, or too few
positions solved (and unseen) to fit the smallest size and score.
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Sequence
from dataclasses import asdict, replace
from pathlib import Path

from absl import app, flags

from spiel_bounded import commandline
from spiel_bounded.evaluators.value_net.config import ModelConfig, as_mapping
from spiel_bounded.evaluators.value_net.extra import (
    jax_available,
    missing_jax,
    quiet_backend_probe,
)
from spiel_bounded.evaluators.value_net.layout import layout_for
from spiel_bounded.games import load_game
from spiel_bounded.training.accuracy import PositionDraw, check_solvable, solved_positions
from spiel_bounded.training.config import TrainConfig

_GAME = flags.DEFINE_string("game", None, "Game string (two players, zero-sum, no chance).")
_MODELS = flags.DEFINE_list("models", ["mlp", "conv"], "Network shapes: KIND or KIND:INPUTS.")
_SIZES = flags.DEFINE_list("sizes", ["4000"], "Training positions of each fit.")
_TEST = flags.DEFINE_integer("test", 1000, "Solved positions to score on.")
_PLIES = flags.DEFINE_list("plies", ["8", "14"], "Fewest and most random plies before one.")
_SOLVE_NODES = flags.DEFINE_integer("solve_nodes", 3_000_000, "Node budget of each solve.")
_SEED = flags.DEFINE_integer("seed", 0, "Seed of the test games (training: seed + 1) and fits.")
_SAVE = flags.DEFINE_string("save", None, "Directory to write each network to (optional).")


def model_config(spec: str) -> ModelConfig:
    """`KIND` or `KIND:INPUTS` as a model config; `ValueError` naming what is accepted."""
    kind, _, inputs = spec.partition(":")
    return ModelConfig(kind=kind, inputs=inputs or "observation")


def main(argv: Sequence[str]) -> None:
    commandline.refuse_arguments(argv)
    if _GAME.value is None:
        raise app.UsageError("--game is required", exitcode=commandline.USAGE_ERROR)
    sizes = sorted(set(commandline.integers("sizes", _SIZES.value)))
    plies = commandline.integers("plies", _PLIES.value)
    for name, given in (("sizes", sizes), ("models", _MODELS.value)):
        if not given:
            raise app.UsageError(f"--{name} is empty", exitcode=commandline.USAGE_ERROR)
    for name, number in (("test", _TEST.value), ("solve_nodes", _SOLVE_NODES.value)):
        if number < 1:
            raise app.UsageError(
                f"--{name} must be positive; got {number}", exitcode=commandline.USAGE_ERROR
            )
    if len(plies) != 2:
        raise app.UsageError(
            f"--plies must be two numbers, the fewest and the most; got {','.join(_PLIES.value)}",
            exitcode=commandline.USAGE_ERROR,
        )
    if not jax_available():
        sys.stderr.write(f"error: {missing_jax(ImportError('jax'))}\n")
        sys.exit(1)
    quiet_backend_probe()
    from spiel_bounded.training import learnability

    if min(sizes) < learnability.FEWEST_TRAINING_POSITIONS:
        raise app.UsageError(
            f"--sizes must be at least {learnability.FEWEST_TRAINING_POSITIONS} each (a tenth "
            f"of a fit's positions is held out); got {','.join(_SIZES.value)}",
            exitcode=commandline.USAGE_ERROR,
        )
    try:
        models = [model_config(spec) for spec in _MODELS.value]
        game = load_game(_GAME.value)
        check_solvable(game)
        for model in models:
            layout_for(game, model)  # a shape the game's observation cannot feed: before solving
        config = TrainConfig(max_epochs=60, patience=6, mirror=True, seed=_SEED.value)
        draw = PositionDraw(
            game=_GAME.value,
            positions=_TEST.value,
            plies=(plies[0], plies[1]),
            solve_nodes=_SOLVE_NODES.value,
            seed=_SEED.value,
        )
        train_draw = replace(draw, positions=max(sizes), seed=draw.seed + 1)
        drawn_test = solved_positions(draw)
        train = solved_positions(train_draw)
        test = learnability.unseen(drawn_test, train)
        fitted = [size for size in sizes if size <= len(train)]
        if not fitted or not test:
            raise ValueError(
                f"solved {len(train)} training positions and {len(drawn_test)} test positions "
                f"({len(drawn_test) - len(test)} of them training positions too) within "
                f"--solve_nodes={draw.solve_nodes:,}: too few to fit {min(sizes)} and score; raise "
                "--solve_nodes, choose --plies that reach more (and fewer ended) positions, or "
                "lower --sizes"
            )
        datasets = {size: learnability.solved_dataset(draw.game, train[:size]) for size in fitted}
        scores = [
            learnability.fit_solved(game, datasets[size], test, model, config)
            for model in models
            for size in fitted
        ]
    except ValueError as error:
        sys.stderr.write(f"error: {error}\n")
        sys.exit(commandline.USAGE_ERROR)
    saved = []
    if _SAVE.value is not None:
        directory = Path(_SAVE.value)
        directory.mkdir(parents=True, exist_ok=True)
        record = {
            "labels": "exact values of solved positions (scripts/fit_solved.py)",
            "training_draw": asdict(train_draw),
            "test_draw": asdict(draw),
            "test_positions": len(test),
            "train": as_mapping(config),
            "command": shlex.join(["python", *sys.argv]),
        }
        for score in scores:
            name = f"{score.model.kind}_{score.model.inputs}_{score.train_positions}.npz"
            fit = {
                "train_positions": score.train_positions,
                "best_epoch": score.best_epoch,
                "validation_loss": score.validation_loss,
                "test_sign_agreement": score.sign_agreement,
                "test_correlation": score.correlation,
            }
            saved.append(
                learnability.save_network(directory / name, draw.game, score, {**record, **fit})
            )
    left_out = len(drawn_test) - len(test)
    print(
        f"{draw.game}: networks fit to positions after {plies[0]}-{plies[1]} random plies "
        f"solved by bounded_ab within {draw.solve_nodes:,} nodes (seed {train_draw.seed}: "
        f"{len(train):,} solved), scored on {len(test):,} others (seed {draw.seed}; "
        f"{left_out} equal to a training position left out; {scores[0].drawn} drawn, in the "
        "correlation only); values for the player to move.\n"
    )
    if len(fitted) < len(sizes):
        print(f"Sizes above the {len(train):,} positions solved are left out.\n")
    print("| network | inputs | training positions | epoch kept | sign agrees | correlation |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    print(f"| the commoner sign | | | | {100 * learnability.majority_sign(test):.1f}% | |")
    for score in scores:
        print(
            f"| {score.model.kind} | {score.model.inputs} | {score.train_positions:,} | "
            f"{score.best_epoch} | {100 * score.sign_agreement:.1f}% | {score.correlation:.2f} |"
        )
    if saved:
        print("\nsaved " + ", ".join(str(path) for path in saved))


if __name__ == "__main__":
    commandline.run(main, program="python scripts/fit_solved.py")
