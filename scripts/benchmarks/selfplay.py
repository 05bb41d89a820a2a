"""Suite `selfplay`: self-play games per second for value-network data, Python against native.

The self-play of `scripts/train_value_net.py` (`training.selfplay.play_selfplay_game`):
connect_four, `bounded_ab` at depth 6 in both seats, 4 random opening plies and 10% random moves,
with the hand-written heuristic and with the committed value network as evaluator. Three ways:
the Python loop on the Python engine, the Python loop with each search native, and the whole
game native (`training.native_selfplay`). All play the same games (checked: the same positions
and search values; a network's twin equals numpy within 1e-6, so a game may part there).

Issue 38 asks for 10x the self-play speed of the day it was filed. The Python loop has grown
faster since (numba, lazier imports), so each round also times the Python loop of that day's code
(`--selfplay_filing_revision`, exported by `revisions` and run in a subprocess) on the same
games, beside today's three ways.
"""

from __future__ import annotations

import contextlib
import json
import sys
import time
from pathlib import Path
from typing import Final

import numpy as np
from absl import flags

from benchmarks import revisions
from spiel_bounded.training.config import DataConfig
from spiel_bounded.training.selfplay import play_selfplay_game

_GAMES = flags.DEFINE_integer("selfplay_games", 20, "Self-play games per engine and evaluator.")
_NETWORK = flags.DEFINE_string(
    "selfplay_network", "results/models/connect_four", "Value network checkpoint directory."
)
_FILING = flags.DEFINE_string(
    "selfplay_filing_revision",
    "5e0209a",
    "Git revision whose Python loop is also timed (issue 38 was filed at 5e0209a); empty: none.",
)


WAYS: Final = (("python", False), ("native", False), ("native", True))
"""(engine, whole_game) of the three columns: Python, per move, whole game."""


def _config(evaluator: str, engine: str | None, games: int) -> DataConfig:
    """The suite's games; `engine` None: no such parameter (code older than the native one)."""
    engine_param = {} if engine is None else {"engine": engine}
    return DataConfig(
        game="connect_four",
        games=games,
        bot="bounded_ab",
        bot_params={"depth": 6, "evaluator": evaluator, **engine_param},
        opening_moves=4,
        epsilon=0.1,
        seed=13,
    )


def _python_loop_then(evaluator: str, games: int) -> tuple[float, int]:
    """Run as a script under older code: process seconds of the suite's games by the Python
    loop of that code, after an untimed game, and the positions they made."""
    config = _config(evaluator, None, games)
    play_selfplay_game(config, games)
    start = time.process_time()
    played = [play_selfplay_game(config, index) for index in range(games)]
    return time.process_time() - start, sum(len(game.features) for game in played)


def _evaluator_path(evaluator: str) -> str:
    """`evaluator` with a network's directory made absolute (the subprocess runs elsewhere)."""
    prefix = "net:"
    if not evaluator.startswith(prefix):
        return evaluator
    return prefix + str(Path(evaluator[len(prefix) :]).resolve())


def _timed(config: DataConfig, whole_game: bool) -> tuple[float, list[np.ndarray], int]:
    """Process seconds of the config's games, their rows, and their positions."""
    start = time.process_time()
    played = [
        play_selfplay_game(config, index, whole_game=whole_game) for index in range(config.games)
    ]
    seconds = time.process_time() - start
    rows = [np.concatenate([game.features.ravel(), game.search.ravel()]) for game in played]
    return seconds, rows, sum(len(game.features) for game in played)


def _rounds(
    evaluator: str, games: int, repeats: int, filing: Path | None
) -> tuple[np.ndarray, list[list], np.ndarray]:
    """`[repeats, ways]` seconds, the ways timed in turn in every round (so that a drift of the
    machine's speed hits them alike), each way's rows, and `[repeats]` seconds of the filing
    day's Python loop (code at `filing`; NaN without it), timed first in each round."""
    configs = [_config(evaluator, engine, games) for engine, _ in WAYS]
    for config, (_, whole_game) in zip(configs, WAYS, strict=True):
        # Untimed: loads the evaluator, compiles what it compiles.
        play_selfplay_game(config, games, whole_game=whole_game)
    seconds = np.zeros((repeats, len(WAYS)))
    then = np.full(repeats, np.nan)
    rows: list[list] = [[] for _ in WAYS]
    for repeat in range(repeats):
        if filing is not None:
            then[repeat], counted = revisions.run_json(
                filing, __file__, [_evaluator_path(evaluator), games]
            )
        for way, (config, (_, whole_game)) in enumerate(zip(configs, WAYS, strict=True)):
            seconds[repeat, way], rows[way], positions = _timed(config, whole_game)
        # The same games then and now (a network's float rounding may part one).
        assert filing is None or counted == positions or evaluator.startswith("net:"), (
            counted,
            positions,
        )
    return seconds, rows, then


def _ratio_cell(before: np.ndarray, after: np.ndarray) -> str:
    """The median of the rounds' `before / after` ratios [their min, max]."""
    ratios = before / after
    return f"{np.median(ratios):.1f}x [{np.min(ratios):.1f}, {np.max(ratios):.1f}]"


def run(repeats: int) -> list[str]:
    """Runs the suite (`repeats` rounds); returns its Markdown section."""
    games = _GAMES.value
    filing = revisions.short_revision(_FILING.value) if _FILING.value else None
    lines = [
        "## Self-play for value-network data: Python against native",
        "",
        f"connect_four, bounded_ab depth 6 in both seats, {games} games per row (the same games in "
        "every column: positions and search values checked equal); process CPU time. Per move: "
        "the Python loop with each search native; whole game: the native engine plays the game "
        "(`training.native_selfplay`). Each round times the ways in turn; a speed-up is the "
        "median of the rounds' ratios [their min, max], the seconds the medians of each column.",
    ]
    if filing:
        lines[-1] += (
            f" Filing day: the Python loop of revision {filing}, the code issue 38 was filed "
            "at (its 'today'), on the same games in a subprocess."
        )
    lines += [
        "",
        "| evaluator | Python s | per move s | whole game s | Python games/s | whole game games/s "
        "| speed-up |" + (" filing day s | speed-up on the filing day |" if filing else ""),
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |" + (" ---: | ---: |" if filing else ""),
    ]
    evaluators = ["heuristic"]
    if Path(_NETWORK.value, "model.npz").exists():
        evaluators.append(f"net:{_NETWORK.value}")
    with revisions.exported(filing) if filing else contextlib.nullcontext() as filing_dir:
        for evaluator in evaluators:
            seconds, rows, then = _rounds(evaluator, games, repeats, filing_dir)
            lines.append(_row(evaluator, games, seconds, rows, then if filing else None))
    return [*lines, ""]


def _row(
    evaluator: str,
    games: int,
    seconds: np.ndarray,
    rows: list[list],
    then: np.ndarray | None,
) -> str:
    """One evaluator's line of the table (checks the ways played the same games)."""
    python_games, move_games, whole_games = rows
    python_seconds, move_seconds, whole_seconds = np.median(seconds, axis=0)
    same = all(
        a.shape == b.shape and np.allclose(a, b, atol=1e-5, equal_nan=True)
        for a, b in zip(python_games, whole_games, strict=True)
    )
    assert same or evaluator.startswith("net:"), evaluator
    assert all(
        np.array_equal(a, b, equal_nan=True) for a, b in zip(move_games, whole_games, strict=True)
    ), evaluator
    note = "" if same else " (networks agree to 1e-6: a game may part)"
    line = (
        f"| {evaluator}{note} | {python_seconds:.2f} | {move_seconds:.2f} | "
        f"{whole_seconds:.2f} | {games / python_seconds:.2f} | {games / whole_seconds:.2f} | "
        f"{_ratio_cell(seconds[:, 0], seconds[:, 2])} |"
    )
    if then is not None:
        line += f" {np.median(then):.2f} | {_ratio_cell(then, seconds[:, 2])} |"
    return line


if __name__ == "__main__":
    print(json.dumps(_python_loop_then(*json.loads(sys.argv[1]))))
