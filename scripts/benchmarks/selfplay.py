"""Suite `selfplay`: self-play games per second for value-network data, Python against native.

The self-play of `scripts/train_value_net.py` (`training.selfplay.play_selfplay_game`):
connect_four, `bounded_ab` at depth 6 in both seats, 4 random opening plies and 10% random moves,
with the hand-written heuristic and with the committed value network as evaluator. Three ways:
the Python loop on the Python engine, the Python loop with each search native, and the whole
game native (`training.native_selfplay`). All play the same games (checked: the same positions
and search values; a network's twin equals numpy within 1e-6, so a game may part there).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Final

import numpy as np
from absl import flags

from spiel_bounded.training.config import DataConfig
from spiel_bounded.training.selfplay import play_selfplay_game

_GAMES = flags.DEFINE_integer("selfplay_games", 20, "Self-play games per engine and evaluator.")
_NETWORK = flags.DEFINE_string(
    "selfplay_network", "results/models/connect_four", "Value network checkpoint directory."
)


WAYS: Final = (("python", False), ("native", False), ("native", True))
"""(engine, whole_game) of the three columns: Python, per move, whole game."""


def _config(evaluator: str, engine: str, games: int) -> DataConfig:
    return DataConfig(
        game="connect_four",
        games=games,
        bot="bounded_ab",
        bot_params={"depth": 6, "evaluator": evaluator, "engine": engine},
        opening_moves=4,
        epsilon=0.1,
        seed=13,
    )


def _timed(config: DataConfig, whole_game: bool) -> tuple[float, list[np.ndarray]]:
    """Process seconds of the config's games, and their rows."""
    start = time.process_time()
    played = [
        play_selfplay_game(config, index, whole_game=whole_game) for index in range(config.games)
    ]
    seconds = time.process_time() - start
    return seconds, [
        np.concatenate([game.features.ravel(), game.search.ravel()]) for game in played
    ]


def _rounds(evaluator: str, games: int, repeats: int) -> tuple[np.ndarray, list[list]]:
    """`[repeats, ways]` seconds, the ways timed in turn in every round (so that a drift of the
    machine's speed hits them alike), and each way's rows."""
    configs = [_config(evaluator, engine, games) for engine, _ in WAYS]
    for config, (_, whole_game) in zip(configs, WAYS, strict=True):
        # Untimed: loads the evaluator, compiles what it compiles.
        play_selfplay_game(config, games, whole_game=whole_game)
    seconds = np.zeros((repeats, len(WAYS)))
    rows: list[list] = [[] for _ in WAYS]
    for repeat in range(repeats):
        for way, (config, (_, whole_game)) in enumerate(zip(configs, WAYS, strict=True)):
            seconds[repeat, way], rows[way] = _timed(config, whole_game)
    return seconds, rows


def run(repeats: int) -> list[str]:
    """Runs the suite (`repeats` rounds); returns its Markdown section."""
    games = _GAMES.value
    lines = [
        "## Self-play for value-network data: Python against native",
        "",
        f"connect_four, bounded_ab depth 6 in both seats, {games} games per row (the same games in "
        "every column: positions and search values checked equal); process CPU time. Per move: "
        "the Python loop with each search native; whole game: the native engine plays the game "
        "(`training.native_selfplay`). Each round times the three in turn; the speed-up is the "
        "median of the rounds' Python / whole game ratios [their min, max], the seconds the "
        "medians of each column.",
        "",
        "| evaluator | Python s | per move s | whole game s | Python games/s | whole game games/s "
        "| speed-up |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    evaluators = ["heuristic"]
    if Path(_NETWORK.value, "model.npz").exists():
        evaluators.append(f"net:{_NETWORK.value}")
    for evaluator in evaluators:
        seconds, (python_games, move_games, whole_games) = _rounds(evaluator, games, repeats)
        python_seconds, move_seconds, whole_seconds = np.median(seconds, axis=0)
        speed_up = float(np.median(seconds[:, 0] / seconds[:, 2]))
        same = all(
            a.shape == b.shape and np.allclose(a, b, atol=1e-5, equal_nan=True)
            for a, b in zip(python_games, whole_games, strict=True)
        )
        assert same or evaluator.startswith("net:"), evaluator
        assert all(
            np.array_equal(a, b, equal_nan=True)
            for a, b in zip(move_games, whole_games, strict=True)
        ), evaluator
        note = "" if same else " (networks agree to 1e-6: a game may part)"
        lines.append(
            f"| {evaluator}{note} | {python_seconds:.2f} | {move_seconds:.2f} | "
            f"{whole_seconds:.2f} | {games / python_seconds:.2f} | {games / whole_seconds:.2f} | "
            f"{speed_up:.1f}x [{np.min(seconds[:, 0] / seconds[:, 2]):.1f}, "
            f"{np.max(seconds[:, 0] / seconds[:, 2]):.1f}] |"
        )
    return [*lines, ""]
