"""Tiny training runs of OpenSpiel's JAX AlphaZero, for the `alphazero` bot's tests.

`python tests/alphazero_runs.py OUT` writes, for each run of `RUNS`, what
`python -m open_spiel.python.examples.alpha_zero --path=OUT/<name>` writes (config.json,
checkpoint-0, then a checkpoint per learning step: checkpoint--1, OpenSpiel's "latest", after
steps 1 and 2, and checkpoint-1 after step 1, older than checkpoint--1), through the trainer's own
pieces: its `Config`, `_init_model_from_config`, self-play games by `_play_game` with its actors'
bots (`_init_bot`, Dirichlet noise on), the learner's `TrainInput`s, `Model.update` and
`save_checkpoint`. About 15 s in all, where the example's processes and defaults would take
minutes: a tiny network, 4 simulations, one game a step, 2 steps on tic_tac_toe (Flax NNX) and
none on pig (Flax linen, checkpoint-0 only: a run stopped as it started).

It runs in its own process because importing `alpha_zero` forces multiprocessing's start method
to "spawn" for the whole process and patches `multiprocessing.set_start_method` to do nothing.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, Final

RUNS: Final = {
    # directory name: (game, Flax API, learning steps)
    "tic_tac_toe": ("tic_tac_toe", "nnx", 2),
    "pig": ("pig(winscore=30)", "linen", 0),
}
CHECKPOINT_FREQ: Final = 1_000  # so step 2 goes to checkpoint--1, as most steps of a real run


class _Silent:
    def opt_print(self, *args: Any) -> None:
        pass

    def print(self, *args: Any) -> None:
        pass


def train(path: Path, game_string: str, api: str, steps: int) -> None:
    import jax.numpy as jnp
    import pyspiel
    from open_spiel.python.algorithms.alpha_zero import alpha_zero, utils
    from open_spiel.python.algorithms.alpha_zero import evaluator as evaluator_lib

    game = pyspiel.load_game(game_string)
    config = alpha_zero.Config(
        game=game_string,
        path=str(path),
        learning_rate=1e-2,
        weight_decay=1e-4,
        decouple_weight_decay=False,
        train_batch_size=8,
        replay_buffer_size=64,
        replay_buffer_reuse=1,
        max_steps=steps,
        checkpoint_freq=CHECKPOINT_FREQ,
        actors=1,
        evaluators=0,
        uct_c=1.41,
        max_simulations=4,
        policy_alpha=1.0,
        policy_epsilon=0.25,
        temperature=1.0,
        temperature_drop=2,
        evaluation_window=4,
        eval_levels=2,
        nn_model="mlp",
        nn_width=16,
        nn_depth=1,
        observation_shape=game.observation_tensor_shape(),
        output_size=game.num_distinct_actions(),
        verbose=False,
        quiet=True,
        nn_api_version=api,
    )
    path.mkdir(parents=True)
    # As alpha_zero.alpha_zero writes it.
    (path / "config.json").write_text(json.dumps(config.__dict__, indent=2, sort_keys=True) + "\n")
    model = alpha_zero._init_model_from_config(config)
    model.save_checkpoint(0)
    az_evaluator = evaluator_lib.AlphaZeroEvaluator(game, model)
    bots = [alpha_zero._init_bot(config, game, az_evaluator, False) for _ in range(2)]
    for step in range(1, steps + 1):
        trajectory = alpha_zero._play_game(_Silent(), step, game, bots, 1.0, 2)
        inputs = [
            utils.TrainInput(
                observation=jnp.asarray(state.observation, dtype=jnp.float32),
                legals_mask=jnp.asarray(state.legals_mask, dtype=jnp.bool),
                policy=jnp.asarray(state.policy, dtype=jnp.float32),
                value=jnp.asarray(trajectory.returns[0], dtype=jnp.float32),
            )
            for state in trajectory.states
        ]
        model.update(utils.TrainInput.stack(inputs[: config.train_batch_size]))
        model.save_checkpoint(step if step % config.checkpoint_freq == 0 else -1)
        if step == 1:
            model.save_checkpoint(1)  # a numbered checkpoint older than checkpoint--1
        az_evaluator.clear_cache()


def main(out: str) -> None:
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    for name, (game, api, steps) in RUNS.items():
        train(Path(out) / name, game, api, steps)


if __name__ == "__main__":
    main(sys.argv[1])
