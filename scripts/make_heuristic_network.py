"""Writes a value network that starts as the amazons heuristic, for a training loop to improve on.

    python scripts/make_heuristic_network.py --output=runs/amazons_heuristic_start.npz

The network (`[model] inputs = "territory"`, `--width` units in each of `--depth` dense layers)
values every position as the heuristic does, up to the heuristic's factor 0.95 (the same order
of positions; `spiel_bounded/evaluators/value_net/heuristic_start.py` says how). A loop started
from it (`[generations] start = "net:FILE"` with the same [model], warm starts on) trains a
correction of the heuristic instead of a value from nothing:
`configs/loop_amazons_from_heuristic.toml`.
Exit status: 0 written; 2 a bad flag or a game without such a heuristic.
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Sequence

from absl import flags

from spiel_bounded import commandline
from spiel_bounded.evaluators.value_net.checkpoint import Checkpoint, save_checkpoint
from spiel_bounded.evaluators.value_net.config import ModelConfig
from spiel_bounded.evaluators.value_net.heuristic_start import heuristic_params
from spiel_bounded.evaluators.value_net.layout import layout_for
from spiel_bounded.games import game_description, load_game

_GAME = flags.DEFINE_string("game", "amazons", "OpenSpiel game string (amazons, any board size).")
_OUTPUT = flags.DEFINE_string("output", None, "The checkpoint file to write.")
_WIDTH = flags.DEFINE_integer("width", ModelConfig().width, "Units of each dense layer.")
_DEPTH = flags.DEFINE_integer("depth", ModelConfig().depth, "Dense layers.")
_SEED = flags.DEFINE_integer("seed", 0, "Seed of the units the heuristic does not use.")

PROGRAM = "python scripts/make_heuristic_network.py"


def main(argv: Sequence[str]) -> None:
    if len(argv) > 1 or _OUTPUT.value is None:
        sys.stderr.write(f"usage: {PROGRAM} --output=FILE [--game=amazons --width=W --depth=D]\n")
        sys.exit(2)
    game = load_game(_GAME.value)
    model = ModelConfig(width=_WIDTH.value, depth=_DEPTH.value, inputs="territory")
    try:
        layout = layout_for(game, model)
        params = heuristic_params(layout, _SEED.value)
    except ValueError as error:
        sys.stderr.write(f"{PROGRAM}: {error}\n")
        sys.exit(2)
    command = shlex.join([*PROGRAM.split(), *sys.argv[1:]])
    checkpoint = Checkpoint(
        game=game_description(game),
        observation_shape=layout.observation_shape,
        model=model,
        params=params,
        record={"command": command, "made": "the amazons heuristic as a network, untrained"},
    )
    sys.stdout.write(f"wrote {save_checkpoint(_OUTPUT.value, checkpoint)}\n")


if __name__ == "__main__":
    commandline.run(main, program=PROGRAM)
