"""Suite `before_after`: bots at a time limit and at a fixed depth, the code before a change and
after.

Each bot (`name`, or `name:key=value;key=value`) makes one move from each of a set of seeded
random positions of each game (`game` or `game@depth`), at its defaults with `seconds` set, as
the arena would call it: the depth its iterative deepening completed and its nodes. Each bot
also searches the same positions to the fixed depth: nodes and seconds, and whether the move and
value stayed the same (a change that only speeds a search up must keep them). A bot that refuses
a game is left out of that game, and so is a bot whose evaluator is a network of another game
(`evaluator=net:PATH`, a path in the working tree), so that one list of bots can hold each
game's network. Before: a git revision (`--before_after_revision`; its native engine built
where the working tree's is); after: the working tree; each measured in a subprocess, one after
the other for each row.
"""

from __future__ import annotations

import json
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

from absl import flags

from benchmarks import revisions
from spiel_bounded.registry import get_spec

_GAMES = flags.DEFINE_list(
    "before_after_games",
    ["chinese_checkers(players=3)"],
    "Games to measure, each `game` or `game@depth` (a fixed depth of its own).",
)
_BOTS = flags.DEFINE_list(
    "before_after_bots",
    ["brs_plus", "maxn:pruning=speculative", "paranoid"],
    "Bots: a registered name, optionally `:key=value` parameters joined by `;`.",
)
_SECONDS = flags.DEFINE_float("before_after_seconds", 1.0, "Time limit of a move.")
_DEPTH = flags.DEFINE_integer(
    "before_after_depth", 3, "The fixed depth of the second search (games without @depth)."
)
_POSITIONS = flags.DEFINE_integer("before_after_positions", 10, "Positions per game.")
_PLIES = flags.DEFINE_list("before_after_plies", ["20", "120"], "Random plies before a position.")
_SEED = flags.DEFINE_integer("before_after_seed", 2026, "Seed of the random positions.")
_REVISION = flags.DEFINE_string(
    "before_after_revision", "HEAD", "Git revision of the code before the change."
)


def bot_parameters(spec: str) -> tuple[str, dict[str, object]]:
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


def _network_path(parameters: dict[str, object]) -> Path | None:
    """The bot's network where its evaluator is `net:PATH` (a path in the working tree)."""
    evaluator = parameters.get("evaluator")
    if isinstance(evaluator, str) and evaluator.startswith("net:"):
        return revisions.ROOT / evaluator.removeprefix("net:")
    return None


def _fits(network: Path, game: object) -> bool:
    """Whether `network` is a network of `game` (a missing or corrupt file is an error)."""
    from spiel_bounded.evaluators.value_net.checkpoint import check_fits, load_checkpoint

    checkpoint = load_checkpoint(network)
    try:
        check_fits(checkpoint, game)
    except ValueError:
        return False
    return True


def measure(
    game: str, bot: str, seconds: float, depth: int, positions: int, plies: list[int], seed: int
) -> dict:
    """Runs in the subprocess: one timed move and one fixed-depth search per position."""
    import pyspiel

    import spiel_bounded

    loaded = pyspiel.load_game(game)
    name, parameters = bot_parameters(bot)
    network = _network_path(parameters)
    if network is not None:
        parameters["evaluator"] = f"net:{network}"  # this subprocess runs elsewhere
    if name not in spiel_bounded.bots_for(loaded) or not (
        network is None or _fits(network, loaded)
    ):
        return {"refused": game}
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


def _run_version(pythonpath: Path, game: str, depth: int, bot: str) -> Moves | None:
    """The bot's moves under the code at `pythonpath`; None when it refuses the game."""
    plies = [int(value) for value in _PLIES.value]
    arguments = [game, bot, _SECONDS.value, depth, _POSITIONS.value, plies, _SEED.value]
    data = revisions.run_json(pythonpath, __file__, arguments)
    return None if "refused" in data else Moves.of(data)


def _game_and_depth(entry: str) -> tuple[str, int]:
    game, _, depth = entry.partition("@")
    return game, int(depth) if depth else _DEPTH.value


def run(repeats: int) -> list[str]:
    """Runs the suite; returns its Markdown section (`repeats` is not used: every move counts)."""
    revision = revisions.short_revision(_REVISION.value)
    for bot in _BOTS.value:
        get_spec(bot_parameters(bot)[0])  # an unknown bot is an error, not a refused game
    lines = [
        "## Bots at a time limit and at a fixed depth, before and after",
        "",
        f"Settings: {_POSITIONS.value} positions per game (after {_PLIES.value[0]}-"
        f"{_PLIES.value[1]} random plies, seed {_SEED.value}), one move each at "
        f"{_SECONDS.value:g} s, bots at their defaults with `seconds` set. Depth: the last "
        "depth iterative deepening completed, median [min, max]; nodes per move: median. "
        "Fixed depth: the same positions searched to the depth given, nodes and seconds "
        "summed; 'same': every move and value agreed before and after. Before: revision "
        f"{revision}; after: the working tree.",
        "",
        "| game | bot | depth before | depth after | nodes per move before | after | "
        "fixed depth | nodes before | after | seconds before | after | time after / before "
        "| same |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    with revisions.exported(revision) as before_dir:
        for game, depth in map(_game_and_depth, _GAMES.value):
            for bot in _BOTS.value:
                old = _run_version(before_dir, game, depth, bot)
                new = _run_version(revisions.ROOT, game, depth, bot)
                if old is None or new is None:
                    continue
                same = "yes" if old.fixed_results == new.fixed_results else "NO"
                lines.append(
                    f"| {game} | {bot} | {old.depth_cell()} | {new.depth_cell()} | "
                    f"{statistics.median(old.nodes):,.0f} | {statistics.median(new.nodes):,.0f} | "
                    f"{depth} | {old.fixed_nodes:,} | {new.fixed_nodes:,} | "
                    f"{old.fixed_seconds:.2f} | {new.fixed_seconds:.2f} | "
                    f"{new.fixed_seconds / old.fixed_seconds:.2f} | {same} |"
                )
    return [*lines, ""]


if __name__ == "__main__":
    print(json.dumps(measure(*json.loads(sys.argv[1]))))
