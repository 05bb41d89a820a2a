"""Datasets: the games of one directory or of several (the generations' window) merged into a
`Dataset`, and its file format.

`assemble` keeps a position seen several times once, in the first game that reached it, with
its labels averaged over its occurrences and the narrowest interval a search proved on it, so
that a split by game (`targets.split_by_game`) never puts the same position on both sides. The
root children a game keeps (`selfplay.ChildBounds`) join as positions with an interval and no
outcome. The games are played by `generate`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np
import pyspiel

from spiel_bounded.evaluators.value_net.config import as_mapping
from spiel_bounded.evaluators.value_net.files import decode_json, encode_json, write_npz
from spiel_bounded.games import game_description, load_game
from spiel_bounded.training.config import DataConfig
from spiel_bounded.training.game_files import (
    compact,
    finished_games,
    load_games,
)
from spiel_bounded.training.generate import CONFIG_FILE, check_made

# The format name predates `training/`: kept, so datasets written before the move still load.
_DATASET_FORMAT: Final = "spiel_bounded.value_net.dataset/1"
_GAMES_PER_DIRECTORY: Final = 1_000_000
"""Game numbers of the d-th directory of a merged dataset start at d times this."""


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
        if not (root / CONFIG_FILE).is_file():
            raise ValueError(
                f"no self-play data in {str(root)!r} (no {CONFIG_FILE}): generate it first "
                "(--stage=generate, or no --stage for both)"
            )
        recorded = json.loads((root / CONFIG_FILE).read_text())
        config = DataConfig(**recorded["data"])
        indices = [index for index in finished_games(root) if games is None or index < games]
        if not indices:
            raise ValueError(f"no finished self-play game in {str(root)!r}")
        stored = load_games(root, indices)
        check_made(root, config, {game.index: game.made_by for game in stored})
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
