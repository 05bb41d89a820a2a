"""Calibrates the arena's bots without a time limit to a target time per move.

    python scripts/calibrate_arena.py --games=tic_tac_toe,connect_four,breakthrough \
        --seconds=0.1 --output=results/round_robin/calibration.md

`bounded_ab` and OpenSpiel's C++ `mcts` take a time limit per move (`seconds`); OpenSpiel's
Python `MCTSBot` (`python_mcts`) and `alpha_beta_search` (`openspiel_ab`) do not, so for an
equal-time tournament they are given, per game, the simulations and the depth that take about
the same time. On positions sampled by random play (up to a quarter of the longest game, at most
20 plies):

- python_mcts: the mean seconds per simulation at 100 simulations per move; the calibrated count
  is target / that, checked by timing the calibrated bot on the same positions.
- openspiel_ab: mean seconds per move at depth 1, 2, ... (until a depth takes 3x the target,
  or the game's longest length); the calibrated depth is the deepest one within the target, or
  the next one if its time is closer to the target by ratio. A depth is
  all-or-nothing, one more ply costing several times more, so this bot thinks up to a few times
  more or less than the others: the report's time table shows by how much.

The result is a Markdown table and the `per_game` lines for the config. Timings depend on the
machine and its load: calibrate on the machine, and while it is as quiet, as the tournament.
"""

from __future__ import annotations

import os
import platform
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pyspiel
from absl import flags

from spiel_bounded import commandline, load_bot
from spiel_bounded.testing import random_positions

_GAMES = flags.DEFINE_list(
    "games", ["tic_tac_toe", "connect_four", "breakthrough"], "Game strings."
)
_SECONDS = flags.DEFINE_float("seconds", 0.1, "Target seconds per move.")
_POSITIONS = flags.DEFINE_integer("positions", 24, "Positions sampled per game.")
_MAX_DEPTH = flags.DEFINE_integer("max_depth", 10, "Deepest openspiel_ab depth tried.")
_SEED = flags.DEFINE_integer("seed", 2026, "Seed of the sampled positions.")
_OUTPUT = flags.DEFINE_string("output", None, "Markdown file to write (default: print only).")


def sample_positions(
    game: pyspiel.Game, count: int, rng: np.random.Generator
) -> list[pyspiel.State]:
    """Non-terminal positions after 0 .. min(a quarter of the longest game, 20) random plies.

    Early positions, where rollouts and trees are largest, are where the bots spend most of
    their moves in a tournament; random play later on reaches positions no strong player would.
    """
    horizon = max(2, min(game.max_game_length() // 4, 20))
    return random_positions(game, count, plies=(0, horizon), seed=rng)


def mean_seconds(game: pyspiel.Game, name: str, positions: list, **params: object) -> float:
    """Mean wall-clock seconds of one `step()` over `positions` (a fresh bot per position)."""
    total = 0.0
    for index, state in enumerate(positions):
        bot = load_bot(name, game, state.current_player(), seed=index, **params)
        tick = time.perf_counter()
        bot.step(state)
        total += time.perf_counter() - tick
    return total / len(positions)


def calibrate(game_name: str, target: float, rng: np.random.Generator) -> dict:
    game = pyspiel.load_game(game_name)
    positions = sample_positions(game, _POSITIONS.value, rng)
    per_simulation = mean_seconds(game, "python_mcts", positions, simulations=100, solve=True) / 100
    simulations = max(1, round(target / per_simulation))
    check = mean_seconds(game, "python_mcts", positions, simulations=simulations, solve=True)
    depths = {}
    depth = 0
    for depth in range(1, min(_MAX_DEPTH.value, game.max_game_length()) + 1):
        depths[depth] = mean_seconds(game, "openspiel_ab", positions, depth=depth)
        if depths[depth] > 3 * target:
            break
    # The deepest depth within the target, or the next one if it is closer by ratio.
    under = max([d for d, seconds in depths.items() if seconds <= target], default=None)
    over = min([d for d, seconds in depths.items() if seconds > target], default=None)
    if under is None or (
        over is not None and depths[over] / target < target / max(depths[under], 1e-9)
    ):
        chosen = over
    else:
        chosen = under
    return {
        "game": game_name,
        "simulations": simulations,
        "mcts_seconds": check,
        "depth": chosen,
        "depth_seconds": depths,
    }


def main(argv: Sequence[str]) -> None:
    del argv
    rng = np.random.default_rng(_SEED.value)
    target = _SECONDS.value
    load = os.getloadavg()[0]
    results = [calibrate(name, target, rng) for name in _GAMES.value]
    lines = [
        "# Calibration of the bots without a time limit",
        "",
        f"Command: `python scripts/calibrate_arena.py --games={','.join(_GAMES.value)} "
        f"--seconds={target:g} --positions={_POSITIONS.value} --seed={_SEED.value}`",
        f"Machine: {platform.machine()}, Python {platform.python_version()}, run "
        f"{time.strftime('%Y-%m-%d')}. Target: {target:g} s per move; "
        f"{_POSITIONS.value} positions per game sampled by random play. Load average (1 min) "
        f"at the start: {load:.2f} on {os.cpu_count()} cores.",
        "",
        "| game | python_mcts simulations | its s/move | openspiel_ab depth "
        "| its s/move at depth 1, 2, ... |",
        "| --- | ---: | ---: | ---: | --- |",
    ]
    for item in results:
        times = ", ".join(f"{seconds:.4f}" for seconds in item["depth_seconds"].values())
        lines.append(
            f"| {item['game']} | {item['simulations']} | {item['mcts_seconds']:.3f} | "
            f"{item['depth']} | {times} |"
        )
    lines += ["", "Config lines (`per_game` of the two bots):", "", "```toml"]
    lines.append(
        "per_game = { "
        + ", ".join(
            f"{item['game']} = {{ simulations = {item['simulations']} }}" for item in results
        )
        + " }  # python_mcts"
    )
    lines.append(
        "per_game = { "
        + ", ".join(f"{item['game']} = {{ depth = {item['depth']} }}" for item in results)
        + " }  # openspiel_ab"
    )
    lines += ["```", ""]
    text = "\n".join(lines)
    if _OUTPUT.value:
        Path(_OUTPUT.value).parent.mkdir(parents=True, exist_ok=True)
        Path(_OUTPUT.value).write_text(text)
    print(text)


if __name__ == "__main__":
    commandline.run(main, program="python scripts/calibrate_arena.py")
