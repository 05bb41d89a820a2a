"""Self-play for value-network data, as a job of the shared engine (`spiel_bounded.runs`).

`generate` plays the games of a `DataConfig` in worker processes (or on a Dask cluster) and writes
each finished game at once to `<directory>/games/game_<index>.npz` (atomically, `game_files`), so
an interrupted run loses no finished game and the next run plays only the missing ones.

Each game file carries what made it (`teacher`: the game, the bot with every parameter, defaults
filled in, the opening moves, epsilon and the seed, and in a game with chance nodes the view of
them its inputs show, `features.CHANCE_VIEWS`), as the arena's games.csv carries each
game's parameter hash. `check_games` is the one check, applied by `generate` before it counts a
game as done and by `dataset.assemble` before it reads one: a game made with other settings than
the config's (a bot default changed since, say) is refused, naming what differs. Game files
written before the field existed have none: they are taken as made with the config of
`data.json`, which `generate` only resumes when it equals the current config (less `games`); a
bot default changed since cannot be seen in them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import pyspiel

from spiel_bounded import registry
from spiel_bounded.evaluators.value_net.config import as_mapping
from spiel_bounded.evaluators.value_net.features import CHANCE_VIEWS, Features
from spiel_bounded.evaluators.value_net.lifted import LIFTED_VIEWS
from spiel_bounded.evaluators.value_net.territory import amazons_board
from spiel_bounded.games import load_game
from spiel_bounded.runs.control import sigterm_stops_the_run
from spiel_bounded.runs.executors import Death, Watch, make_executor
from spiel_bounded.runs.journal import differences, write_atomic
from spiel_bounded.runs.lock import locked
from spiel_bounded.search.table_walk import LabelRequest
from spiel_bounded.training.config import DataConfig
from spiel_bounded.training.game_files import (
    GAMES_DIR,
    finished_games,
    game_path,
    made_by,
    write_game,
)
from spiel_bounded.training.positions import GamePositions
from spiel_bounded.training.selfplay import label_tables, play_selfplay_game

CONFIG_FILE: Final = "data.json"
"""The file in a self-play directory that records the config its games were played with."""

Progress = Callable[[int, int], None]
"""Called with (games done, games in the run) after each finished game."""


def teacher(config: DataConfig) -> dict[str, Any]:
    """What makes the games of `config` besides their index, as plain JSON values: the game, the
    bot and all its parameters (defaults filled in; `seed` only when `bot_params` sets it, else
    each game seeds its seats), opening moves, epsilon and the base seed; in a game with chance
    nodes also the `chance_view` self-play writes its inputs with (the first of
    `CHANCE_VIEWS`), and in amazons its `lifted_view` (the first of `LIFTED_VIEWS`), so that
    games written with another view are refused."""
    spec = registry.get_spec(config.bot)
    params = dict(config.bot_params)
    seeded = "seed" in spec.params and "seed" not in params
    if seeded:
        params["seed"] = 0
    full = registry.check_params(spec, params)
    if seeded:
        del full["seed"]
    made = {
        "game": config.game,
        "bot": config.bot,
        "bot_params": full,
        "opening_moves": config.opening_moves,
        "epsilon": config.epsilon,
        "seed": config.seed,
    }
    game = load_game(config.game)
    if game.get_type().chance_mode != pyspiel.GameType.ChanceMode.DETERMINISTIC:
        made["chance_view"] = CHANCE_VIEWS[0]
    if amazons_board(game) is not None:
        made["lifted_view"] = LIFTED_VIEWS[0]
    return json.loads(json.dumps(made, sort_keys=True, default=repr))


def flat_settings(settings: Mapping[str, Any]) -> dict[str, Any]:
    """`{"table.key": value}` for the tables of `settings` (one level), other keys as they are:
    what differs between two configs can then be named key by key."""
    flat: dict[str, Any] = {}
    for key, value in settings.items():
        if isinstance(value, Mapping):
            flat.update({f"{key}.{inner}": item for inner, item in value.items()})
        else:
            flat[key] = value
    return flat


def check_games(directory: str | os.PathLike[str], config: DataConfig, indices: list[int]) -> None:
    """`ValueError` unless every game `indices` of `directory` was made with `config`'s
    settings (`teacher`); the message names the games and what differs. Games without the
    record (older files) pass: see the module docstring."""
    root = Path(directory)
    check_made(root, config, {index: made_by(game_path(root, index)) for index in indices})


def check_made(
    root: Path, config: DataConfig, made: Mapping[int, Mapping[str, Any] | None]
) -> None:
    """`check_games` for games whose records (`made`, by index) are read already."""
    wanted = flat_settings(teacher(config))
    wrong: list[tuple[int, list[str]]] = []
    for index, record in made.items():
        if record is None:
            continue
        found = flat_settings(record)
        keys = sorted(key for key in set(found) | set(wanted) if found.get(key) != wanted.get(key))
        if keys:
            wrong.append((index, keys))
    if not wrong:
        return
    index, keys = wrong[0]
    found = flat_settings(made[index] or {})
    differs = "; ".join(
        f"{key} {_shown(found, key)} in the game, {_shown(wanted, key)} in the config"
        for key in keys
    )
    names = ", ".join(game_path(root, index).name for index, _ in wrong[:3])
    more = f" and {len(wrong) - 3} more" if len(wrong) > 3 else ""
    raise ValueError(
        f"{len(wrong)} self-play game(s) in {str(root)!r} were played with other settings than "
        f"the config's, so they cannot count as done ({names}{more}); "
        f"{game_path(root, index).name}: {differs}. Delete them to play them again with these "
        "settings, or use another directory"
    )


def _shown(settings: Mapping[str, Any], key: str) -> str:
    return repr(settings[key]) if key in settings else "(absent)"


def _check_config(directory: Path, config: DataConfig, command: str) -> None:
    """Records the config in a new directory, or refuses a directory holding another one."""
    recorded = directory / CONFIG_FILE
    wanted = as_mapping(config)
    if recorded.exists():
        # Through DataConfig: a setting added since the directory was made takes its default.
        found = as_mapping(DataConfig(**json.loads(recorded.read_text())["data"]))
        # More games extend a run; anything else would mix different data.
        different = [key for key in differences(found, wanted) if key != "games"]
        if different:
            raise ValueError(
                f"{str(directory)!r} holds self-play data of another config (differs in "
                f"{', '.join(different)}); use another directory or the same config"
            )
        return
    write_atomic(recorded, json.dumps({"data": wanted, "command": command}, indent=2) + "\n")


def check_data_config(config: DataConfig) -> None:
    """`ValueError` unless the config's game, bot and parameters can be played."""
    game = load_game(config.game)
    features = Features(game)
    bots = [
        registry.load_bot(config.bot, game, player, **dict(config.bot_params))
        for player in range(game.num_players())
    ]
    if config.tree_labels:
        label_tables(
            bots, LabelRequest(features, config.label_depth), config.bot, config.bot_params
        )


@dataclass(frozen=True)
class GameFailure:
    """A self-play game that could not be played (its worker died twice, or could not run it);
    nothing is written for it, so the next run plays it again."""

    index: int
    message: str


@dataclass(frozen=True)
class SelfPlayJob:
    """Self-play as a job of the shared engine (`spiel_bounded.runs`): one task per game index."""

    config: DataConfig
    watch_size: int = 0

    def work(self, task: int, watch: Watch | None) -> GamePositions:
        return play_selfplay_game(self.config, task)

    def key(self, task: int) -> int:
        return task

    def describe(self, task: int, death: Death) -> str:
        return f"game {task}'s worker process {death.how}"

    def crashed(self, task: int, death: Death) -> GameFailure:
        first = f"; the first time: {death.first}" if death.first else ""
        return GameFailure(task, f"{self.describe(task, death)}, twice{first}")

    def failed(self, task: int, message: str) -> GameFailure:
        return GameFailure(task, f"game {task} {message}")


def generate(
    config: DataConfig,
    directory: str | os.PathLike[str],
    *,
    executor: str = "process",
    workers: int = 1,
    scheduler: str | None = None,
    command: str = "",
    progress: Progress | None = None,
    on_wait: Callable[[str], None] | None = None,
) -> int:
    """Plays the games of `config` not yet in `directory`; returns how many it played.

    `on_wait` is called with a line to show while the Dask executor waits for a worker.

    Raises:
        ValueError: A bad config (unknown game or bot, bad parameters, a game without
            observation tensor), an unknown executor, or a directory holding another config.
        RunLockedError: Another run is generating into `directory`.
        ClusterError: The Dask cluster was lost or cannot be reached.
        RuntimeError: Some games could not be played (the others are written).
        Terminated, KeyboardInterrupt: SIGTERM or Ctrl-C; every finished game is kept.
    """
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    chosen = make_executor(executor, workers, scheduler, on_wait=on_wait)
    check_data_config(config)
    root = Path(directory)
    with sigterm_stops_the_run(), locked(root):
        _check_config(root, config, command)
        (root / GAMES_DIR).mkdir(parents=True, exist_ok=True)
        done = set(finished_games(root))
        check_games(root, config, sorted(done))
        recorded = teacher(config)
        todo = [index for index in range(config.games) if index not in done]
        finished = config.games - len(todo)
        failures: list[GameFailure] = []
        if progress is not None:
            progress(finished, config.games)

        def store(record: GamePositions | GameFailure) -> None:
            nonlocal finished
            if isinstance(record, GameFailure):
                failures.append(record)
                return
            write_game(root, record, recorded)
            finished += 1
            if progress is not None:
                progress(finished, config.games)

        if todo:
            chosen.run(SelfPlayJob(config), todo, store)
    if failures:
        raise RuntimeError(
            f"{len(failures)} of {len(todo)} self-play game(s) could not be played and were not "
            f"written (run again to play them): {failures[0].message}"
        )
    return len(todo)
