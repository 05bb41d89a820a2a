"""How learnable a game's values are: networks fit to exactly solved positions.

    python scripts/fit_solved.py --game=clobber --models=mlp,conv --sizes=2000,4000,8000,16000

Draws positions of random games (`--plies` random moves) and solves them with `bounded_ab`
(`evaluator_accuracy.py` does the same): `--test` of them to score, and as many as the largest
of `--sizes` to train on, from another seed (a test position equal to a training one is left
out). Each network shape of `--models` (`mlp`, `conv`, or `KIND:INPUTS` such as
`mlp:contacts`; the package's default widths) is trained on the first N training positions for
each N of `--sizes`, every label the exact value (the default training settings, at most 60
epochs with a patience of 6, symmetric images where the package knows the game's symmetry),
and scored on the test positions
(`spiel_bounded.training.learnability`). Prints a Markdown table: how often each network's value
has the exact value's sign, and their correlation, beside the rule "the player to move wins".
With `--save=DIR`, each network is written there as `KIND_INPUTS_N.npz`, an evaluator
(`net:DIR/KIND_INPUTS_N.npz`).
Two-player zero-sum games without chance nodes; needs the `jax` extra. Exit status: 0 done; 2 a
bad flag or game.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from absl import app, flags

from spiel_bounded import commandline
from spiel_bounded.evaluators.value_net.checkpoint import Checkpoint, save_checkpoint
from spiel_bounded.evaluators.value_net.config import ModelConfig
from spiel_bounded.games import load_game
from spiel_bounded.training.accuracy import PositionDraw, SolvedPosition, solved_positions
from spiel_bounded.training.config import TrainConfig
from spiel_bounded.training.learnability import FitScore, fit_solved, mover_wins, solved_dataset

_GAME = flags.DEFINE_string("game", None, "Game string (two players, zero-sum, no chance).")
_MODELS = flags.DEFINE_list("models", ["mlp", "conv"], "Network shapes: KIND or KIND:INPUTS.")
_SIZES = flags.DEFINE_list("sizes", ["4000"], "Training positions of each fit.")
_TEST = flags.DEFINE_integer("test", 1000, "Solved positions to score on.")
_PLIES = flags.DEFINE_list("plies", ["8", "14"], "Fewest and most random plies before one.")
_SOLVE_NODES = flags.DEFINE_integer("solve_nodes", 3_000_000, "Node budget of each solve.")
_SEED = flags.DEFINE_integer("seed", 0, "Seed of the test games (training: seed + 1) and fits.")
_SAVE = flags.DEFINE_string("save", None, "Directory to write each network to (optional).")


def _integers(name: str, values: Sequence[str]) -> list[int]:
    """A list flag's integers; `app.UsageError` naming the flag for anything else."""
    try:
        return [int(value) for value in values]
    except ValueError:
        raise app.UsageError(
            f"--{name} must be integers separated by commas; got {','.join(values)}",
            exitcode=commandline.USAGE_ERROR,
        ) from None


def model_config(spec: str) -> ModelConfig:
    """`KIND` or `KIND:INPUTS` as a model config; `ValueError` naming what is accepted."""
    kind, _, inputs = spec.partition(":")
    return ModelConfig(kind=kind, inputs=inputs or "observation")


def _fingerprint(position: SolvedPosition) -> str:
    return str(position.state)


def _save(directory: Path, game: str, score: FitScore, draw: PositionDraw) -> Path:
    """Writes `score`'s network as an evaluator checkpoint; returns its path."""
    model = score.model
    path = directory / f"{model.kind}_{model.inputs}_{score.train_positions}.npz"
    record = {
        "labels": "exact values of solved positions (scripts/fit_solved.py)",
        "plies": list(draw.plies),
        "solve_nodes": draw.solve_nodes,
        "training_seed": draw.seed + 1,
        "train_positions": score.train_positions,
        "best_epoch": score.epochs,
        "validation_loss": score.validation_loss,
        "test_sign_agreement": score.sign_agreement,
        "test_correlation": score.correlation,
        "command": " ".join(sys.argv),
    }
    observation_shape = tuple(load_game(game).observation_tensor_shape())
    checkpoint = Checkpoint(
        game=game,
        observation_shape=observation_shape,
        model=model,
        params=score.params,
        record=record,
    )
    return save_checkpoint(path, checkpoint)


def main(argv: Sequence[str]) -> None:
    commandline.refuse_arguments(argv)
    if _GAME.value is None:
        raise app.UsageError("--game is required", exitcode=commandline.USAGE_ERROR)
    sizes = _integers("sizes", _SIZES.value)
    plies = _integers("plies", _PLIES.value)
    if len(plies) != 2 or min(sizes, default=0) < 1:
        raise app.UsageError(
            "--plies must be two numbers (the fewest and the most) and --sizes positive; got "
            f"--plies={','.join(_PLIES.value)} --sizes={','.join(_SIZES.value)}",
            exitcode=commandline.USAGE_ERROR,
        )
    try:
        models = [model_config(spec) for spec in _MODELS.value]
        game = load_game(_GAME.value)
        draw = PositionDraw(
            game=_GAME.value,
            positions=_TEST.value,
            plies=(plies[0], plies[1]),
            solve_nodes=_SOLVE_NODES.value,
            seed=_SEED.value,
        )
        test = solved_positions(draw)
        train = solved_positions(
            PositionDraw(
                game=draw.game,
                positions=max(sizes),
                plies=draw.plies,
                solve_nodes=draw.solve_nodes,
                seed=draw.seed + 1,
            )
        )
        seen = {_fingerprint(position) for position in train}
        test = [position for position in test if _fingerprint(position) not in seen]
        config = TrainConfig(max_epochs=60, patience=6, mirror=True, seed=_SEED.value)
        scores = [
            fit_solved(game, solved_dataset(draw.game, train[:size]), test, model, config)
            for model in models
            for size in sizes
        ]
    except ValueError as error:
        sys.stderr.write(f"error: {error}\n")
        sys.exit(commandline.USAGE_ERROR)
    saved = []
    if _SAVE.value is not None:
        Path(_SAVE.value).mkdir(parents=True, exist_ok=True)
        saved = [_save(Path(_SAVE.value), draw.game, score, draw) for score in scores]
    print(
        f"{draw.game}: networks fit to positions after {plies[0]}-{plies[1]} random plies "
        f"solved by bounded_ab within {draw.solve_nodes:,} nodes (training seed {draw.seed + 1}), "
        f"scored on {len(test)} others (seed {draw.seed}); values for the player to move.\n"
    )
    print("| network | inputs | training positions | epoch kept | sign agrees | correlation |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    print(f"| the player to move wins | | | | {100 * mover_wins(test):.1f}% | |")
    for score in scores:
        print(
            f"| {score.model.kind} | {score.model.inputs} | {score.train_positions:,} | "
            f"{score.epochs} | {100 * score.sign_agreement:.1f}% | {score.correlation:.2f} |"
        )
    if saved:
        print("\nsaved " + ", ".join(str(path) for path in saved))


if __name__ == "__main__":
    commandline.run(main, program="python scripts/fit_solved.py")
