"""Datasets: self-play generation that resumes, deduplication, labels, and the split by game.

`generate` plays the games of a `DataConfig` in worker processes (or on a Dask cluster) and writes
each finished game at once to `<directory>/games/game_<index>.npz` (atomically), so an
interrupted run loses no finished game and the next run plays only the missing ones.
`assemble` merges the games into a `Dataset`: a position seen several times is kept once, in the
first game that reached it, with its labels averaged over its occurrences, so that a split by
game never puts the same position on both sides.

Each game file carries what made it (`teacher`: the game, the bot with every parameter, defaults
filled in, the opening moves, epsilon and the seed), as the arena's games.csv carries each
game's parameter hash. `check_games` is the one check, applied by `generate` before it counts a
game as done and by `assemble` before it reads one: a game made with other settings than the
config's (a bot default changed since, say) is refused, naming what differs. Game files written
before the field existed have none: they are taken as made with the config of `data.json`, which
`generate` only resumes when it equals the current config (less `games`); a bot default changed
since cannot be seen in them.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np

from spiel_bounded import registry
from spiel_bounded.evaluators.value_net.config import as_mapping
from spiel_bounded.evaluators.value_net.features import Features
from spiel_bounded.evaluators.value_net.files import decode_json, encode_json, write_npz
from spiel_bounded.games import game_description, load_game
from spiel_bounded.runs.control import sigterm_stops_the_run
from spiel_bounded.runs.executors import Death, Watch, make_executor
from spiel_bounded.runs.journal import differences, write_atomic
from spiel_bounded.runs.lock import locked
from spiel_bounded.training.config import DataConfig, TrainConfig
from spiel_bounded.training.selfplay import GamePositions, play_selfplay_game

_CONFIG_FILE: Final = "data.json"
_GAMES_DIR: Final = "games"
# The format name predates `training/`: kept, so datasets written before the move still load.
_DATASET_FORMAT: Final = "spiel_bounded.value_net.dataset/1"
_GAME_NAME: Final = re.compile(r"game_(\d+)\.npz")
_TEACHER: Final = "teacher"
"""The member of a game file that records what made it (`teacher`)."""

Progress = Callable[[int, int], None]
"""Called with (games done, games in the run) after each finished game."""


@dataclass(frozen=True)
class Dataset:
    """Deduplicated positions of a set of self-play games.

    Attributes:
        game: The game string.
        observation_shape: The game's observation shape.
        features: `[positions, size]` network inputs.
        outcome: `[positions, players]` final returns, averaged over the position's occurrences.
        search: `[positions, players]` search values, averaged likewise (NaN: never searched).
        games: `[positions]` the first game that reached the position (the split unit).
        occurrences: `[positions]` how often the position was reached.
        meta: What produced it (data config, command).
        exact: `[positions]` a search proved the position's game value (its `search` is then
            the value of a proved occurrence, not an average of estimates).
    """

    game: str
    observation_shape: tuple[int, ...]
    features: np.ndarray
    outcome: np.ndarray
    search: np.ndarray
    games: np.ndarray
    occurrences: np.ndarray
    meta: Mapping[str, Any]
    exact: np.ndarray | None = None

    def __len__(self) -> int:
        return int(self.features.shape[0])


def _game_path(directory: Path, index: int) -> Path:
    return directory / _GAMES_DIR / f"game_{index:06d}.npz"


def teacher(config: DataConfig) -> dict[str, Any]:
    """What makes the games of `config` besides their index, as plain JSON values: the game, the
    bot and all its parameters (defaults filled in; `seed` only when `bot_params` sets it, else
    each game seeds its seats), opening moves, epsilon and the base seed."""
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
    return json.loads(json.dumps(made, sort_keys=True, default=repr))


def _write_game(directory: Path, positions: GamePositions, made_by: Mapping[str, Any]) -> None:
    target = _game_path(directory, positions.index)
    write_npz(
        target,
        {
            "features": positions.features,
            "outcome": positions.outcome,
            "search": positions.search,
            "keys": positions.keys,
            "exact": positions.exact,
            _TEACHER: encode_json(made_by),
        },
    )


def _made_by(path: Path) -> dict[str, Any] | None:
    """The `teacher` a game file carries (None: written before games carried it)."""
    try:
        with np.load(path, allow_pickle=False) as archive:
            if _TEACHER not in archive.files:
                return None
            made: dict[str, Any] = decode_json(archive[_TEACHER])
            return made
    except Exception as error:
        raise ValueError(
            f"self-play game file {str(path)!r} is unreadable ({type(error).__name__}: {error}); "
            "delete it and run the generation again to replay that game"
        ) from None


def _flat(settings: Mapping[str, Any]) -> dict[str, Any]:
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
    wanted = _flat(teacher(config))
    wrong: list[tuple[int, list[str]]] = []
    for index in indices:
        made = _made_by(_game_path(root, index))
        if made is None:
            continue
        found = _flat(made)
        keys = sorted(key for key in set(found) | set(wanted) if found.get(key) != wanted.get(key))
        if keys:
            wrong.append((index, keys))
    if not wrong:
        return
    index, keys = wrong[0]
    found = _flat(_made_by(_game_path(root, index)) or {})
    differs = "; ".join(
        f"{key} {_shown(found, key)} in the game, {_shown(wanted, key)} in the config"
        for key in keys
    )
    names = ", ".join(_game_path(root, index).name for index, _ in wrong[:3])
    more = f" and {len(wrong) - 3} more" if len(wrong) > 3 else ""
    raise ValueError(
        f"{len(wrong)} self-play game(s) in {str(root)!r} were played with other settings than "
        f"the config's, so they cannot count as done ({names}{more}); "
        f"{_game_path(root, index).name}: {differs}. Delete them to play them again with these "
        "settings, or use another directory"
    )


def _shown(settings: Mapping[str, Any], key: str) -> str:
    return repr(settings[key]) if key in settings else "(absent)"


def _read_game(path: Path) -> dict[str, np.ndarray]:
    try:
        with np.load(path, allow_pickle=False) as archive:
            arrays = {name: archive[name] for name in ("features", "outcome", "search", "keys")}
            # Games written before proofs were recorded: none is marked exact.
            exact = archive["exact"] if "exact" in archive.files else None
    except Exception as error:
        raise ValueError(
            f"self-play game file {str(path)!r} is unreadable ({type(error).__name__}: {error}); "
            "delete it and run the generation again to replay that game"
        ) from None
    arrays["exact"] = exact if exact is not None else np.zeros(len(arrays["keys"]), dtype=bool)
    return arrays


def finished_games(directory: str | os.PathLike[str]) -> list[int]:
    """Indices of the games already written in `directory`."""
    games = Path(directory) / _GAMES_DIR
    if not games.is_dir():
        return []
    found = (_GAME_NAME.fullmatch(path.name) for path in games.iterdir())
    return sorted(int(match.group(1)) for match in found if match is not None)


def _check_config(directory: Path, config: DataConfig, command: str) -> None:
    """Records the config in a new directory, or refuses a directory holding another one."""
    recorded = directory / _CONFIG_FILE
    wanted = as_mapping(config)
    if recorded.exists():
        found = json.loads(recorded.read_text())["data"]
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
    Features(game)
    for player in range(game.num_players()):
        registry.load_bot(config.bot, game, player, **dict(config.bot_params))


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
        (root / _GAMES_DIR).mkdir(parents=True, exist_ok=True)
        done = set(finished_games(root))
        check_games(root, config, sorted(done))
        made_by = teacher(config)
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
            _write_game(root, record, made_by)
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


def assemble(directory: str | os.PathLike[str], *, games: int | None = None) -> Dataset:
    """The deduplicated dataset of the games in `directory` (the first `games` of them)."""
    root = Path(directory)
    recorded = json.loads((root / _CONFIG_FILE).read_text())
    config = DataConfig(**recorded["data"])
    indices = [index for index in finished_games(root) if games is None or index < games]
    if not indices:
        raise ValueError(f"no finished self-play game in {str(root)!r}")
    check_games(root, config, indices)
    game = load_game(config.game)
    first: dict[str, int] = {}
    rows: list[np.ndarray] = []
    outcome_sum: list[np.ndarray] = []
    search_sum: list[np.ndarray] = []
    search_count: list[np.ndarray] = []
    owner: list[int] = []
    seen: list[int] = []
    proved: dict[int, np.ndarray] = {}  # slot -> the value a search proved
    for index in indices:
        arrays = _read_game(_game_path(root, index))
        for row, key in enumerate(arrays["keys"].tolist()):
            slot = first.get(key)
            searched = ~np.isnan(arrays["search"][row])
            search = np.where(searched, arrays["search"][row], 0.0)
            if slot is None:
                first[key] = len(rows)
                rows.append(arrays["features"][row])
                outcome_sum.append(arrays["outcome"][row].astype(np.float64))
                search_sum.append(search.astype(np.float64))
                search_count.append(searched.astype(np.int64))
                owner.append(index)
                seen.append(1)
            else:
                outcome_sum[slot] += arrays["outcome"][row]
                search_sum[slot] += search
                search_count[slot] += searched
                seen[slot] += 1
            if arrays["exact"][row]:
                proved.setdefault(first[key], arrays["search"][row])
    occurrences = np.asarray(seen)
    counts = np.asarray(search_count)
    with np.errstate(invalid="ignore", divide="ignore"):
        search_mean = np.where(counts > 0, np.asarray(search_sum) / counts, np.nan)
    exact = np.zeros(len(rows), dtype=bool)
    for slot, value in proved.items():
        search_mean[slot] = value
        exact[slot] = True
    return Dataset(
        game=game_description(game),
        observation_shape=tuple(game.observation_tensor_shape()),
        features=np.asarray(rows, dtype=np.float32),
        outcome=(np.asarray(outcome_sum) / occurrences[:, None]).astype(np.float32),
        search=search_mean.astype(np.float32),
        games=np.asarray(owner, dtype=np.int64),
        occurrences=occurrences,
        meta={
            "data": as_mapping(config),
            "command": recorded.get("command", ""),
            "games": len(indices),
        },
        exact=exact,
    )


def save_dataset(path: str | os.PathLike[str], dataset: Dataset) -> Path:
    """Writes `dataset` as a compressed `.npz` with its metadata as JSON (atomically)."""
    target = Path(path)
    meta = {
        "format": _DATASET_FORMAT,
        "game": dataset.game,
        "observation_shape": list(dataset.observation_shape),
        "labels": ["outcome", "search"],
        **dataset.meta,
    }
    target.parent.mkdir(parents=True, exist_ok=True)
    write_npz(
        target,
        {
            "features": dataset.features,
            "outcome": dataset.outcome,
            "search": dataset.search,
            "games": dataset.games,
            "occurrences": dataset.occurrences,
            **({} if dataset.exact is None else {"exact": dataset.exact}),
            "meta": encode_json(meta),
        },
    )
    return target


def load_dataset(path: str | os.PathLike[str]) -> Dataset:
    """Reads a dataset written by `save_dataset`; `ValueError` for anything else."""
    try:
        with np.load(path, allow_pickle=False) as archive:
            arrays = {name: archive[name] for name in archive.files}
        meta = decode_json(arrays.pop("meta"))
        if meta.get("format") != _DATASET_FORMAT:
            raise ValueError(f"format {meta.get('format')!r}")
        return Dataset(
            game=meta["game"],
            observation_shape=tuple(meta["observation_shape"]),
            features=arrays["features"],
            outcome=arrays["outcome"],
            search=arrays["search"],
            games=arrays["games"],
            occurrences=arrays["occurrences"],
            meta=meta,
            exact=arrays.get("exact"),
        )
    except Exception as error:
        raise ValueError(
            f"{str(path)!r} is not a readable value-network dataset ({_DATASET_FORMAT}): "
            f"{type(error).__name__}: {error}"
        ) from None


@dataclass(frozen=True)
class Split:
    """Row indices of the training and validation positions (disjoint sets of games)."""

    train: np.ndarray
    validation: np.ndarray


def split_by_game(dataset: Dataset, fraction: float, seed: int) -> Split:
    """Holds out `ceil(fraction * games)` whole games (at least one, and never all)."""
    games = np.unique(dataset.games)
    if len(games) < 2:
        raise ValueError("splitting by game needs positions from at least 2 games")
    held = min(len(games) - 1, max(1, math.ceil(fraction * len(games))))
    rng = np.random.default_rng(seed)
    validation_games = rng.permutation(games)[:held]
    in_validation = np.isin(dataset.games, validation_games)
    return Split(train=np.flatnonzero(~in_validation), validation=np.flatnonzero(in_validation))


def targets(dataset: Dataset, config: TrainConfig) -> np.ndarray:
    """Target values `[positions, players]` for the config's labelling: "outcome", "search"
    (NaN rows where a position was never searched: those are left out), or "mix" (the outcome
    where a position was never searched). With "search" and "mix", a position whose game value
    a search proved (`Dataset.exact`) is labelled with that value alone: a proof teaches
    exactly, an outcome only what one game did."""
    searched = ~np.isnan(dataset.search).any(axis=1)
    if config.labelling == "outcome":
        return dataset.outcome
    if config.labelling == "search":
        if not searched.any():
            raise ValueError(
                "labelling 'search' needs search values, but the self-play bot reported none "
                "(use a search bot, or labelling = outcome)"
            )
        return dataset.search
    weight = config.outcome_weight
    mixed = np.where(
        searched[:, None], weight * dataset.outcome + (1 - weight) * dataset.search, dataset.outcome
    )
    if dataset.exact is not None:
        mixed = np.where(dataset.exact[:, None], dataset.search, mixed)
    return mixed.astype(np.float32)
