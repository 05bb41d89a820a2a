"""The self-play game files: one `.npz` a game, and a bundle of a directory's games read once.

`generate` writes each finished game to `<directory>/games/game_<index>.npz` (atomically) with
what made it (`teacher`). A generations run assembles each generation's games once for its own
network and again for the next `window - 1` networks; opening a thousand small archives costs
most of that (connect_four with tree labels: 11 of 19 seconds for two generations). So the first
`load_games` of a directory's games also writes them, as read, into one archive beside them,
`<directory>/games.bundle.npz`, with each file's size and modification time; a later call for
the same games reads that archive instead, and any change to a file (or another set of games)
makes it read the files again and rewrite the bundle. The bundle is only a copy: deleting it
loses nothing, and an unreadable one is ignored. It is not compressed, so reading it is quick
and it is large (connect_four with tree labels: 256 MB for a generation whose game files take
14 MB; a window of 4 generations assembled in 8.7 s from bundles, 31.8 s from the files):
generations drop a generation's bundle once it leaves the window (`drop_bundle`).

Features are stored as bytes when every value is a whole number in [0, 255] (`compact`): most
observation tensors are planes of zeros and ones, and a hex position's 1,089 of them take 4,356
bytes as float32, which put a window of hex generations over the 4 GB the loop must fit in.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np

from spiel_bounded.evaluators.value_net.files import decode_json, encode_json, write_npz
from spiel_bounded.training.positions import GamePositions

GAMES_DIR: Final = "games"
BUNDLE_FILE: Final = "games.bundle.npz"
BUNDLE_FORMAT: Final = 2
"""Raised whenever what a bundle holds, or how `read_game` fills a game in, changes."""
TEACHER: Final = "teacher"
"""The member of a game file that records what made it (`generate.teacher`)."""
_GAME_NAME: Final = re.compile(r"game_(\d+)\.npz")
_ROWS: Final = ("features", "outcome", "search", "keys", "exact", "lower", "upper")
_CHILDREN: Final = ("child_features", "child_lower", "child_upper", "child_keys")


@dataclass(frozen=True)
class StoredGame:
    """One game as read: its index, what made it (None: a file written before games carried
    it) and its arrays (older files' missing members filled in, `read_game`)."""

    index: int
    made_by: dict[str, Any] | None
    arrays: Mapping[str, np.ndarray]


def game_path(directory: Path, index: int) -> Path:
    return directory / GAMES_DIR / f"game_{index:06d}.npz"


def finished_games(directory: str | os.PathLike[str]) -> list[int]:
    """Indices of the games already written in `directory`."""
    games = Path(directory) / GAMES_DIR
    if not games.is_dir():
        return []
    found = (_GAME_NAME.fullmatch(path.name) for path in games.iterdir())
    return sorted(int(match.group(1)) for match in found if match is not None)


def compact(features: np.ndarray) -> np.ndarray:
    """`features` as uint8 when that holds every value exactly, else as they are."""
    if features.dtype == np.uint8:
        return features
    small = features.astype(np.uint8)
    return small if np.array_equal(small, features) else features


def write_game(directory: Path, positions: GamePositions, made_by: Mapping[str, Any]) -> None:
    write_npz(
        game_path(directory, positions.index),
        {
            "features": compact(positions.features),
            "outcome": positions.outcome,
            "search": positions.search,
            "keys": positions.keys,
            "exact": positions.exact,
            "lower": positions.lower,
            "upper": positions.upper,
            "child_features": compact(positions.children.features),
            "child_lower": positions.children.lower,
            "child_upper": positions.children.upper,
            "child_keys": positions.children.keys,
            TEACHER: encode_json(made_by),
        },
    )


def _unreadable(path: Path, error: Exception) -> ValueError:
    return ValueError(
        f"self-play game file {str(path)!r} is unreadable ({type(error).__name__}: {error}); "
        "delete it and run the generation again to replay that game"
    )


def made_by(path: Path) -> dict[str, Any] | None:
    """The `teacher` a game file carries (None: written before games carried it)."""
    try:
        with np.load(path, allow_pickle=False) as archive:
            if TEACHER not in archive.files:
                return None
            made: dict[str, Any] = decode_json(archive[TEACHER])
            return made
    except Exception as error:
        raise _unreadable(path, error) from None


def chance_search_values(keys: np.ndarray, search: np.ndarray) -> np.ndarray:
    """`search` with every chance node of a game given the search value of the position its
    sampled outcome led to (the next row; through chains of chance nodes), where it had none.

    Self-play searches decision nodes only, and a searched position's depth-limited value at a
    chance node is the expectation over outcomes of its children's: the value of the child
    chance picked is an unbiased one-sample estimate of it, one ply deeper than an evaluator
    applied to the chance node itself, and the samples of a position reached in several games
    are averaged when they are merged. Backgammon needs it most: a depth-1 Star search values
    every move by the chance node after it.

    Args:
        keys: `[positions]` the game's position keys in the order played (a chance node's
            starts with "-1|": `selfplay.GamePositions.keys`).
        search: `[positions, players]` the search values (NaN: none).
    """
    filled = search.copy()
    chance = np.char.startswith(keys.astype(str), "-1|")
    for row in range(len(keys) - 2, -1, -1):
        if chance[row] and np.isnan(filled[row]).all():
            filled[row] = filled[row + 1]
    return filled


def read_game(directory: Path, index: int) -> StoredGame:
    """Game `index` of `directory`, its missing members (older files) filled in and its chance
    nodes' search values given (`chance_search_values`); `ValueError` naming an unreadable
    file."""
    path = game_path(directory, index)
    try:
        with np.load(path, allow_pickle=False) as archive:
            arrays = {name: archive[name] for name in archive.files}
        missing = {"features", "outcome", "search", "keys"} - set(arrays)
        if missing:
            raise KeyError(f"no {', '.join(sorted(missing))}")
    except Exception as error:
        raise _unreadable(path, error) from None
    teacher = arrays.pop(TEACHER, None)
    count, players = arrays["outcome"].shape
    # Games written before proofs were recorded: none is marked exact. Before intervals were:
    # the search value (the middle of a narrow interval) stands for its interval, no child.
    arrays.setdefault("exact", np.zeros(count, dtype=bool))
    arrays.setdefault("lower", arrays["search"])
    arrays.setdefault("upper", arrays["search"])
    arrays.setdefault("child_features", np.zeros((0, arrays["features"].shape[1]), np.float32))
    arrays.setdefault("child_lower", np.zeros((0, players), dtype=np.float32))
    arrays.setdefault("child_upper", np.zeros((0, players), dtype=np.float32))
    arrays.setdefault("child_keys", np.zeros(0, dtype=str))
    arrays["search"] = chance_search_values(arrays["keys"], arrays["search"])
    return StoredGame(index, None if teacher is None else decode_json(teacher), arrays)


def _signature(root: Path, indices: list[int]) -> np.ndarray:
    """`[games, 5]`: each game's index, file size, inode, and modification and status change
    times (ns); with the bundle's format in a first row of its own."""
    rows = [(BUNDLE_FORMAT, 0, 0, 0, 0)]
    for index in indices:
        found = game_path(root, index).stat()
        rows.append((index, found.st_size, found.st_ino, found.st_mtime_ns, found.st_ctime_ns))
    return np.asarray(rows, dtype=np.int64).reshape(len(indices) + 1, 5)


def _offsets(games: list[StoredGame], field: str) -> np.ndarray:
    return np.concatenate([[0], np.cumsum([len(game.arrays[field]) for game in games])])


def _write_bundle(root: Path, games: list[StoredGame], signature: np.ndarray) -> None:
    arrays: dict[str, np.ndarray] = {
        "signature": signature,
        "made_by": encode_json([game.made_by for game in games]),
        "row_offsets": _offsets(games, "keys"),
        "child_offsets": _offsets(games, "child_keys"),
    }
    for field in (*_ROWS, *_CHILDREN):
        arrays[field] = np.concatenate([game.arrays[field] for game in games])
    write_npz(root / BUNDLE_FILE, arrays, compressed=False)  # read often: no inflating


def _read_bundle(root: Path, signature: np.ndarray) -> list[StoredGame] | None:
    """The bundle's games when it holds exactly the games of `signature`, else None."""
    path = root / BUNDLE_FILE
    if not path.exists():
        return None
    try:
        with np.load(path, allow_pickle=False) as archive:
            if not np.array_equal(archive["signature"], signature):
                return None
            arrays = {name: archive[name] for name in archive.files}
        teachers = decode_json(arrays["made_by"])
        rows, children = arrays["row_offsets"], arrays["child_offsets"]
        games = []
        for number, index in enumerate(signature[1:, 0]):
            rows_of = slice(int(rows[number]), int(rows[number + 1]))
            children_of = slice(int(children[number]), int(children[number + 1]))
            game = {field: arrays[field][rows_of] for field in _ROWS}
            game.update({field: arrays[field][children_of] for field in _CHILDREN})
            games.append(StoredGame(int(index), teachers[number], game))
    except Exception:  # a torn or foreign bundle is a cache miss, never an error
        return None
    return games


def drop_bundle(root: Path) -> None:
    """Deletes `root`'s bundle (when no assembly will read those games again: it is large)."""
    (root / BUNDLE_FILE).unlink(missing_ok=True)


def load_games(root: Path, indices: list[int]) -> list[StoredGame]:
    """Games `indices` of directory `root`, from its bundle when that holds exactly these games
    as they are on disk, else from their files (then bundled for the next call); their keys as
    `key_digests`, all that merging them needs."""
    signature = _signature(root, indices)
    bundled = _read_bundle(root, signature)
    if bundled is not None:
        return bundled
    games = [_with_digests(read_game(root, index)) for index in indices]
    if games:
        _write_bundle(root, games, signature)
    return games


def key_digests(keys: np.ndarray) -> np.ndarray:
    """Position keys as 16-byte BLAKE2b digests (`S16`): a hex key is a 309-character board,
    1,236 bytes in a numpy string array."""
    digests = [hashlib.blake2b(str(key).encode(), digest_size=16).digest() for key in keys]
    return np.asarray(digests, dtype="S16").reshape(len(keys))


def _with_digests(game: StoredGame) -> StoredGame:
    arrays = dict(game.arrays)
    for field in ("keys", "child_keys"):
        arrays[field] = key_digests(arrays[field])
    return StoredGame(game.index, game.made_by, arrays)
