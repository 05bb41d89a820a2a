"""Suite `selfplay`: self-play games per second for value-network data, Python against native.

The self-play of `scripts/train_value_net.py` (`training.selfplay.play_selfplay_game`):
connect_four, `bounded_ab` at depth 6 in both seats, 4 random opening plies and 10% random moves,
with the hand-written heuristic and with the committed value network as evaluator. Both engines
play the same games (checked: the same positions and search values).
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
from absl import flags

from spiel_bounded.training.config import DataConfig
from spiel_bounded.training.selfplay import play_selfplay_game

_GAMES = flags.DEFINE_integer("selfplay_games", 20, "Self-play games per engine and evaluator.")
_NETWORK = flags.DEFINE_string(
    "selfplay_network", "results/models/connect_four", "Value network checkpoint directory."
)


def _play(evaluator: str, engine: str, games: int) -> tuple[float, list[np.ndarray]]:
    config = DataConfig(
        game="connect_four",
        games=games,
        bot="bounded_ab",
        bot_params={"depth": 6, "evaluator": evaluator, "engine": engine},
        opening_moves=4,
        epsilon=0.1,
        seed=13,
    )
    play_selfplay_game(config, games)  # untimed: loads the evaluator, compiles what it compiles
    start = time.process_time()
    played = [play_selfplay_game(config, index) for index in range(games)]
    seconds = time.process_time() - start
    return seconds, [
        np.concatenate([game.features.ravel(), game.search.ravel()]) for game in played
    ]


def run(repeats: int) -> list[str]:
    """Runs the suite (one timed run per row); returns its Markdown section."""
    games = _GAMES.value
    lines = [
        "## Self-play for value-network data: Python against native",
        "",
        f"connect_four, bounded_ab depth 6 in both seats, {games} games per row (the same games on "
        "both engines: positions and search values checked equal); process CPU time.",
        "",
        "| evaluator | Python s | native s | Python games/s | native games/s | speed-up |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    evaluators = ["heuristic"]
    if Path(_NETWORK.value, "model.npz").exists():
        evaluators.append(f"net:{_NETWORK.value}")
    for evaluator in evaluators:
        python_seconds, python_games = _play(evaluator, "python", games)
        native_seconds, native_games = _play(evaluator, "native", games)
        same = all(
            a.shape == b.shape and np.allclose(a, b, atol=1e-5, equal_nan=True)
            for a, b in zip(python_games, native_games, strict=True)
        )
        assert same or evaluator.startswith("net:"), evaluator
        note = "" if same else " (networks agree to 1e-6: a game may part)"
        lines.append(
            f"| {evaluator}{note} | {python_seconds:.2f} | {native_seconds:.2f} | "
            f"{games / python_seconds:.2f} | {games / native_seconds:.2f} | "
            f"{python_seconds / native_seconds:.1f}x |"
        )
    return [*lines, ""]
