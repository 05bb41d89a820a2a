"""Datasets: self-play generation that resumes, deduplication, labels, and the split by game.

`generate` plays the games of a `DataConfig` in worker processes (or on a Dask cluster) and writes
each finished game at once to `<directory>/games/game_<index>.npz` (atomically, `game_files`), so
an interrupted run loses no finished game and the next run plays only the missing ones.
`assemble` merges the games (of one directory, or of several: the generations' window) into a
`Dataset`: a position seen several times is kept once, in the first game that reached it, with
its labels averaged over its occurrences and the narrowest interval a search proved on it, so
that a split by game never puts the same position on both sides. The root children a game
keeps (`selfplay.ChildBounds`) join as positions with an interval and no outcome.

Each game file carries what made it (`teacher`: the game, the bot with every parameter, defaults
filled in, the opening moves, epsilon and the seed, and in a game with chance nodes the view of
them its inputs show, `features.CHANCE_VIEWS`), as the arena's games.csv carries each
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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np
import pyspiel

from spiel_bounded import registry
from spiel_bounded.evaluators.value_net.config import as_mapping
from spiel_bounded.evaluators.value_net.features import CHANCE_VIEWS, Features
from spiel_bounded.evaluators.value_net.files import decode_json, encode_json, write_npz
from spiel_bounded.games import game_description, load_game
from spiel_bounded.runs.control import sigterm_stops_the_run
from spiel_bounded.runs.executors import Death, Watch, make_executor
from spiel_bounded.runs.journal import differences, write_atomic
from spiel_bounded.runs.lock import locked
from spiel_bounded.search.table_walk import LabelRequest
from spiel_bounded.training.config import DataConfig, TrainConfig
from spiel_bounded.training.game_files import (
    GAMES_DIR,
    compact,
    finished_games,
    game_path,
    load_games,
    made_by,
    write_game,
)
from spiel_bounded.training.selfplay import GamePositions, label_tables, play_selfplay_game

_CONFIG_FILE: Final = "data.json"
# The format name predates `training/`: kept, so datasets written before the move still load.
_DATASET_FORMAT: Final = "spiel_bounded.value_net.dataset/1"
_GAMES_PER_DIRECTORY: Final = 1_000_000
"""Game numbers of the d-th directory of a merged dataset start at d times this."""

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
        search: `[positions, players]` search values, averaged likewise (NaN: never searched);
            at a chance node, those of the positions its sampled outcomes led to
            (`chance_search_values`).
        games: `[positions]` the first game that reached the position (the split unit).
        occurrences: `[positions]` how often the position was reached.
        meta: What produced it (data config, command).
        exact: `[positions]` a search proved the position's game value (its `search` is then
            the value of a proved occurrence, not an average of estimates).
        lower: `[positions, players]` the narrowest bounds a search proved on each player's
            value of the position (the position searched, or a root child); NaN: none.
        upper: `[positions, players]` likewise.

    A position only ever seen as a root child has no outcome (NaN) and 0 occurrences.
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
    lower: np.ndarray | None = None
    upper: np.ndarray | None = None

    def __len__(self) -> int:
        return int(self.features.shape[0])


def teacher(config: DataConfig) -> dict[str, Any]:
    """What makes the games of `config` besides their index, as plain JSON values: the game, the
    bot and all its parameters (defaults filled in; `seed` only when `bot_params` sets it, else
    each game seeds its seats), opening moves, epsilon and the base seed; in a game with chance
    nodes also the `chance_view` self-play writes its inputs with (the first of
    `CHANCE_VIEWS`), so that games written with another view are refused."""
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
    if load_game(config.game).get_type().chance_mode != pyspiel.GameType.ChanceMode.DETERMINISTIC:
        made["chance_view"] = CHANCE_VIEWS[0]
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
    _check_made(root, config, {index: made_by(game_path(root, index)) for index in indices})


def _check_made(
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
    recorded = directory / _CONFIG_FILE
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


class _Rows:
    """A 2-D array that grows by a quarter at a time: one row a position, no Python object per
    row. It grows in place (`ndarray.resize`, a `realloc` that the C library serves by
    remapping pages when the array is large), so growing never holds two copies: a window of
    hex generations (1.28M positions of 1,092 bytes) peaked at 3.8 GB with arrays that doubled
    into new copies."""

    GROWTH: Final = 1.25

    def __init__(self, width: int, dtype: type, fill: float) -> None:
        self.fill = fill
        self.data: np.ndarray = np.full((1024, width), fill, dtype=dtype)
        self.size = 0

    def grow_to(self, size: int) -> None:
        """Makes rows `[0, size)` exist (new ones filled)."""
        old = len(self.data)
        if size > old:
            self.data.resize(
                (max(size, int(self.GROWTH * old)), self.data.shape[1]), refcheck=False
            )
            self.data[old:] = self.fill
        self.size = max(self.size, size)

    def view(self) -> np.ndarray:
        return self.data[: self.size]

    def holding(self, values: np.ndarray) -> None:
        """Widens rows of bytes to float32 unless bytes hold `values` exactly (`compact`)."""
        if self.data.dtype == np.uint8 and compact(values).dtype != np.uint8:
            self.data = self.data.astype(np.float32)

    def trimmed(self) -> np.ndarray:
        """The rows, the spare capacity given back (in place: no second copy)."""
        self.data.resize((self.size, self.data.shape[1]), refcheck=False)
        return self.data


class _Merge:
    """Positions merged by key over games: the first game to reach one owns it."""

    def __init__(self, players: int) -> None:
        self.players = players
        self.first: dict[bytes, int] = {}  # by `game_files.key_digests`
        self.rows: _Rows | None = None  # features, made with the first game's width
        self.outcome_sum = _Rows(players, np.float64, 0.0)
        self.search_sum = _Rows(players, np.float64, 0.0)
        self.search_count = _Rows(players, np.int64, 0)
        self.lower = _Rows(players, np.float64, np.nan)
        self.upper = _Rows(players, np.float64, np.nan)
        self.owner = _Rows(1, np.int64, 0)
        self.seen = _Rows(1, np.int64, 0)
        self.proved: dict[int, np.ndarray] = {}  # slot -> the value a search proved

    def _slots(self, keys: list[bytes], features: np.ndarray, game: int) -> np.ndarray:
        """The slots of `keys` (rows of `features`), new positions appended, owned by `game`."""
        if self.rows is None:
            narrow = compact(features).dtype == np.uint8
            self.rows = _Rows(features.shape[1], np.uint8 if narrow else np.float32, 0.0)
        self.rows.holding(features)
        start = len(self.first)
        slots = np.empty(len(keys), dtype=np.int64)
        new_rows: list[int] = []
        for row, key in enumerate(keys):
            slot = self.first.get(key)
            if slot is None:
                slot = self.first[key] = start + len(new_rows)
                new_rows.append(row)
            slots[row] = slot
        end = start + len(new_rows)
        for column in (
            self.rows,
            self.outcome_sum,
            self.search_sum,
            self.search_count,
            self.lower,
            self.upper,
            self.owner,
            self.seen,
        ):
            column.grow_to(end)
        self.rows.data[start:end] = features[new_rows]
        self.owner.data[start:end, 0] = game
        return slots

    def _bound(self, slots: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> None:
        """Keeps, per slot, the narrowest of its interval and the rows' (`lower`, `upper`):
        the first narrowest row, and the slot's own on a tie (rows with a NaN left out)."""
        valid = ~(np.isnan(lower).any(axis=1) | np.isnan(upper).any(axis=1))
        rows = np.flatnonzero(valid)
        if rows.size == 0:
            return
        widths = (upper[rows] - lower[rows]).sum(axis=1)
        order = np.lexsort((rows, widths, slots[rows]))
        _, first = np.unique(slots[rows][order], return_index=True)
        best = rows[order[first]]
        targets = slots[best]
        old_lower, old_upper = self.lower.data[targets], self.upper.data[targets]
        old = np.nansum(old_upper - old_lower, axis=1)
        better = np.isnan(old_lower).any(axis=1) | (widths[order[first]] < old)
        self.lower.data[targets[better]] = lower[best[better]]
        self.upper.data[targets[better]] = upper[best[better]]

    def add_game(self, game: int, arrays: Mapping[str, np.ndarray]) -> None:
        slots = self._slots(arrays["keys"].tolist(), arrays["features"], game)
        search = arrays["search"]
        searched = ~np.isnan(search)
        np.add.at(self.outcome_sum.data, slots, arrays["outcome"])
        np.add.at(self.search_sum.data, slots, np.where(searched, search, 0.0))
        np.add.at(self.search_count.data, slots, searched)
        np.add.at(self.seen.data[:, 0], slots, 1)
        self._bound(slots, arrays["lower"], arrays["upper"])
        for row in np.flatnonzero(arrays["exact"]):
            self.proved.setdefault(int(slots[row]), search[row])
        children = self._slots(arrays["child_keys"].tolist(), arrays["child_features"], game)
        self._bound(children, arrays["child_lower"], arrays["child_upper"])

    def dataset(self, game: pyspiel.Game, meta: Mapping[str, Any]) -> Dataset:
        assert self.rows is not None
        occurrences = self.seen.view()[:, 0]
        counts = self.search_count.view()
        with np.errstate(invalid="ignore", divide="ignore"):
            search = np.where(counts > 0, self.search_sum.view() / counts, np.nan)
            outcome = self.outcome_sum.view() / occurrences[:, None]
        exact = np.zeros(len(occurrences), dtype=bool)
        for slot, value in self.proved.items():
            search[slot] = value
            exact[slot] = True
        return Dataset(
            game=game_description(game),
            observation_shape=tuple(game.observation_tensor_shape()),
            features=self.rows.trimmed(),
            outcome=outcome.astype(np.float32),
            search=search.astype(np.float32),
            games=self.owner.view()[:, 0].copy(),
            occurrences=occurrences.copy(),
            meta=meta,
            exact=exact,
            lower=self.lower.view().astype(np.float32),
            upper=self.upper.view().astype(np.float32),
        )


def assemble(
    directory: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    *,
    games: int | None = None,
) -> Dataset:
    """The deduplicated dataset of the games in `directory` (the first `games` of them), or of
    every directory of a sequence (deduplicated across them; game `i` of the `d`-th directory
    is numbered `d * 10**6 + i`, so that a split by game holds out whole games). The
    directories must hold the same game; the first one's data config is the dataset's."""
    if isinstance(directory, (str, os.PathLike)):
        roots = [Path(directory)]
    else:
        roots = [Path(root) for root in directory]
    if not roots:
        raise ValueError("assemble needs at least one self-play directory")
    merged: _Merge | None = None
    first_game: pyspiel.Game | None = None
    metas: list[dict[str, Any]] = []
    total = 0
    for number, root in enumerate(roots):
        recorded = json.loads((root / _CONFIG_FILE).read_text())
        config = DataConfig(**recorded["data"])
        indices = [index for index in finished_games(root) if games is None or index < games]
        if not indices:
            raise ValueError(f"no finished self-play game in {str(root)!r}")
        stored = load_games(root, indices)
        _check_made(root, config, {game.index: game.made_by for game in stored})
        game = load_game(config.game)
        if first_game is None:
            first_game, merged = game, _Merge(game.num_players())
        elif game_description(game) != game_description(first_game):
            raise ValueError(
                f"{str(root)!r} holds games of {game_description(game)}, not of "
                f"{game_description(first_game)} like {str(roots[0])!r}"
            )
        assert merged is not None
        for stored_game in stored:
            merged.add_game(number * _GAMES_PER_DIRECTORY + stored_game.index, stored_game.arrays)
        metas.append({"data": as_mapping(config), "command": recorded.get("command", "")})
        total += len(indices)
    assert merged is not None and first_game is not None
    return merged.dataset(first_game, {**metas[0], "games": total})


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
            **({} if dataset.lower is None else {"lower": dataset.lower}),
            **({} if dataset.upper is None else {"upper": dataset.upper}),
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
            lower=arrays.get("lower"),
            upper=arrays.get("upper"),
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


@dataclass(frozen=True)
class Targets:
    """What a network is trained towards: every player's value of each position lies in
    `[lower, upper]` (`[positions, players]`; equal for a point label; NaN rows are left out).
    The loss is the squared distance to the interval: zero inside it, so a wide interval
    teaches little and a point teaches exactly."""

    lower: np.ndarray
    upper: np.ndarray

    @classmethod
    def point(cls, values: np.ndarray) -> Targets:
        values = values.astype(np.float32)
        return cls(values, values)

    @property
    def usable(self) -> np.ndarray:
        """`[positions]` rows with a label."""
        return ~(np.isnan(self.lower).any(axis=1) | np.isnan(self.upper).any(axis=1))


def targets(dataset: Dataset, config: TrainConfig) -> Targets:
    """The training targets of the config's labelling.

    - "outcome": the game's returns.
    - "search": the search value (positions never searched are left out).
    - "mix": `outcome_weight` of the outcome plus the rest of the search value (the outcome
      alone where a position was never searched).
    - "interval": the search's interval (at the positions searched and at their root
      children, `Dataset.lower` / `upper`) mixed with the outcome the same way, as an
      interval: `[(1 - w) lower + w outcome, (1 - w) upper + w outcome]`; the interval alone
      at a root child (it has no outcome), the outcome alone where nothing was searched.

    With "search", "mix" and "interval", a position whose game value a search proved
    (`Dataset.exact`) is labelled with that value alone: a proof teaches exactly, an outcome
    only what one game did."""
    searched = ~np.isnan(dataset.search).any(axis=1)
    if config.labelling == "outcome":
        return Targets.point(dataset.outcome)
    if config.labelling == "search":
        if not searched.any():
            raise ValueError(
                "labelling 'search' needs search values, but the self-play bot reported none "
                "(use a search bot, or labelling = outcome)"
            )
        return Targets.point(dataset.search)
    weight = config.outcome_weight
    proved = dataset.exact if dataset.exact is not None else np.zeros(len(dataset), dtype=bool)
    exact = proved[:, None]
    if config.labelling == "mix":
        mixed = np.where(
            searched[:, None],
            weight * dataset.outcome + (1 - weight) * dataset.search,
            dataset.outcome,
        )
        return Targets.point(np.where(exact, dataset.search, mixed))
    if dataset.lower is None or dataset.upper is None:
        raise ValueError(
            "labelling 'interval' needs the searches' intervals, which this dataset does not "
            "carry (made before they were recorded): generate it again, or use labelling mix"
        )
    bounded = ~(np.isnan(dataset.lower).any(axis=1) | np.isnan(dataset.upper).any(axis=1))
    played = ~np.isnan(dataset.outcome).any(axis=1)
    both = (bounded & played)[:, None]
    lower = np.where(both, weight * dataset.outcome + (1 - weight) * dataset.lower, dataset.lower)
    upper = np.where(both, weight * dataset.outcome + (1 - weight) * dataset.upper, dataset.upper)
    lower = np.where(bounded[:, None], lower, dataset.outcome)
    upper = np.where(bounded[:, None], upper, dataset.outcome)
    lower = np.where(exact, dataset.search, lower)
    upper = np.where(exact, dataset.search, upper)
    return Targets(lower.astype(np.float32), upper.astype(np.float32))
