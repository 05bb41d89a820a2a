"""Suite `nplayer_time`: the n-player bots at a time limit, the code before a change and after.

Each bot (`name` or `name:key=value,...`) makes one move from each of a set of seeded random
positions of each game, at its defaults with `seconds` set, as the arena would call it: the
depth its iterative deepening completed and its nodes. Each bot also searches the same
positions to a fixed depth: nodes and seconds, and whether the move and value stayed the same
(a change that only speeds a search up must keep them). Before: a git
revision (`--nplayer_time_before`); after: the working tree; each measured in a subprocess, one
after the other for each row.
"""

from __future__ import annotations

import json
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

from absl import flags

from benchmarks import revisions

_GAMES = flags.DEFINE_list(
    "nplayer_time_games", ["chinese_checkers(players=3)"], "Games to measure."
)
_BOTS = flags.DEFINE_list(
    "nplayer_time_bots",
    ["brs_plus", "maxn:pruning=speculative", "paranoid"],
    "Bots: a registered name, optionally `:key=value` parameters joined by `;`.",
)
_SECONDS = flags.DEFINE_float("nplayer_time_seconds", 1.0, "Time limit of a move.")
_DEPTH = flags.DEFINE_integer("nplayer_time_depth", 3, "The fixed depth of the second search.")
_POSITIONS = flags.DEFINE_integer("nplayer_time_positions", 10, "Positions per game.")
_PLIES = flags.DEFINE_list("nplayer_time_plies", ["20", "120"], "Random plies before a position.")
_SEED = flags.DEFINE_integer("nplayer_time_seed", 2026, "Seed of the random positions.")
_BEFORE = flags.DEFINE_string(
    "nplayer_time_before", "HEAD", "Git revision of the code before the change."
)


def _bot_parameters(spec: str) -> tuple[str, dict[str, object]]:
    """`name:key=value;...` -> (name, parameters); a value is JSON where it parses, else text."""
    name, _, text = spec.partition(":")
    parameters: dict[str, object] = {}
    for item in filter(None, text.split(";")):
        key, _, value = item.partition("=")
        try:
            parameters[key] = json.loads(value)
        except json.JSONDecodeError:
            parameters[key] = value
    return name, parameters


def measure(
    game: str, bot: str, seconds: float, depth: int, positions: int, plies: list[int], seed: int
) -> dict:
    """Runs in the subprocess: one timed move and one fixed-depth search per position."""
    import pyspiel

    import spiel_bounded

    loaded = pyspiel.load_game(game)
    name, parameters = _bot_parameters(bot)
    states = revisions.random_positions(loaded, positions + 1, (plies[0], plies[1]), seed)
    timed: dict[str, list] = {"depth": [], "nodes": []}
    fixed: dict[str, list] = {"nodes": [], "seconds": [], "action": [], "value": []}
    for index, state in enumerate(states):
        player = state.current_player()
        bot_at_time = spiel_bounded.load_bot(name, loaded, player, seconds=seconds, **parameters)
        bot_at_time.step(state)
        bot_at_depth = spiel_bounded.load_bot(name, loaded, player, depth=depth, **parameters)
        bot_at_depth.step(state)
        if index == 0:
            continue  # warm-up: first use of the game's evaluator
        stats = bot_at_time.last_result.stats
        timed["depth"].append(stats.depth)
        timed["nodes"].append(stats.nodes)
        result = bot_at_depth.last_result
        fixed["nodes"].append(result.stats.nodes)
        fixed["seconds"].append(result.stats.seconds)
        fixed["action"].append(result.action)
        fixed["value"].append(result.lower)
    return {"timed": timed, "fixed": fixed}


@dataclass(frozen=True)
class Moves:
    """One (game, bot) under one version of the code, position by position."""

    depths: tuple[int, ...]
    nodes: tuple[int, ...]
    fixed_nodes: int
    fixed_seconds: float
    fixed_results: tuple[tuple[int, float], ...]

    @classmethod
    def of(cls, data: dict) -> Moves:
        timed, fixed = data["timed"], data["fixed"]
        return cls(
            tuple(timed["depth"]),
            tuple(timed["nodes"]),
            sum(fixed["nodes"]),
            sum(fixed["seconds"]),
            tuple(zip(fixed["action"], fixed["value"], strict=True)),
        )

    def depth_cell(self) -> str:
        return f"{statistics.median(self.depths):g} [{min(self.depths)}, {max(self.depths)}]"


def _run_version(pythonpath: Path, game: str, bot: str) -> Moves:
    plies = [int(value) for value in _PLIES.value]
    arguments = [game, bot, _SECONDS.value, _DEPTH.value, _POSITIONS.value, plies, _SEED.value]
    return Moves.of(revisions.run_json(pythonpath, __file__, arguments))


def run(repeats: int) -> list[str]:
    """Runs the suite; returns its Markdown section (`repeats` is not used: every move counts)."""
    revision = revisions.short_revision(_BEFORE.value)
    lines = [
        "## n-player bots at a time limit, before and after",
        "",
        f"Settings: {_POSITIONS.value} positions per game (after {_PLIES.value[0]}-"
        f"{_PLIES.value[1]} random plies, seed {_SEED.value}), one move each at "
        f"{_SECONDS.value:g} s, bots at their defaults with `seconds` set. Depth: the last "
        "depth iterative deepening completed, median [min, max]; nodes per move: median. "
        f"Fixed depth: the same positions searched to depth {_DEPTH.value}, nodes and "
        "seconds summed; 'same': every move and value agreed before and after. Before: "
        f"revision {revision}; after: the working tree.",
        "",
        "| game | bot | depth before | depth after | nodes per move before | after | "
        "fixed depth: nodes before | after | seconds before | after | time after / before "
        "| same |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    with revisions.exported(revision) as before_dir:
        for game in _GAMES.value:
            for bot in _BOTS.value:
                old = _run_version(before_dir, game, bot)
                new = _run_version(revisions.ROOT, game, bot)
                same = "yes" if old.fixed_results == new.fixed_results else "NO"
                lines.append(
                    f"| {game} | {bot} | {old.depth_cell()} | {new.depth_cell()} | "
                    f"{statistics.median(old.nodes):,.0f} | {statistics.median(new.nodes):,.0f} | "
                    f"{old.fixed_nodes:,} | {new.fixed_nodes:,} | {old.fixed_seconds:.2f} | "
                    f"{new.fixed_seconds:.2f} | {new.fixed_seconds / old.fixed_seconds:.2f} | "
                    f"{same} |"
                )
    return [*lines, ""]


if __name__ == "__main__":
    print(json.dumps(measure(*json.loads(sys.argv[1]))))
