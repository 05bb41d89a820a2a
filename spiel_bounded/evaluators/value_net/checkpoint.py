"""Checkpoints: the parameters with everything needed to refuse the wrong one.

A checkpoint is one `.npz` file: each parameter as an array, and `__meta__` holding JSON with the
format, the package version, the game string, the observation shape, the model config, the
view of chance nodes its inputs were made with (`features.CHANCE_VIEWS`; a checkpoint written
before the field is "player_0"), the training record, and a SHA-256 checksum over the
metadata and every parameter's bytes. Loading refuses, with a `ValueError` that names the file
and what was wrong: a file that is not a checkpoint, a truncated or corrupted file, a checksum
mismatch, a checkpoint for another game or observation shape, an unknown chance view, and
parameters that do not fit the model config. Loading needs numpy only.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any, Final

import numpy as np
import pyspiel

from spiel_bounded.evaluators.value_net.config import ModelConfig, as_mapping
from spiel_bounded.evaluators.value_net.features import CHANCE_VIEWS
from spiel_bounded.evaluators.value_net.files import decode_json, encode_json, write_npz
from spiel_bounded.evaluators.value_net.lifted import LIFTED_VIEWS
from spiel_bounded.games import game_description, game_key, load_game
from spiel_bounded.params import settings_from_table

FORMAT: Final = "spiel_bounded.value_net/1"
CHECKPOINT_FILE: Final = "model.npz"
"""The checkpoint's name in a training run's output directory (`spiel_bounded.training.pipeline`);
`load_checkpoint` given that directory loads it."""
_META: Final = "__meta__"
_ZIP_MAGIC: Final = b"PK"  # every .npz is a zip archive: local header PK\3\4, empty PK\5\6


def package_version() -> str:
    try:
        return metadata.version("spiel-bounded")
    except metadata.PackageNotFoundError:
        return "unknown"


@dataclass(frozen=True, kw_only=True)
class Checkpoint:
    """A trained network.

    Attributes:
        game: The game string it was trained on (`game_description`).
        observation_shape: That game's observation shape.
        model: The architecture settings.
        params: Parameter name -> float32 array.
        record: How it was trained (data, labelling, losses, command, backend): free-form JSON.
        version: The package version that wrote it.
        chance_view: How its inputs show a chance node (`features.CHANCE_VIEWS`).
        lifted_view: How its inputs show an amazon lifted mid-turn (`lifted.LIFTED_VIEWS`).
    """

    game: str
    observation_shape: tuple[int, ...]
    model: ModelConfig
    params: Mapping[str, np.ndarray]
    record: Mapping[str, Any] = field(default_factory=dict)
    version: str = field(default_factory=package_version)
    chance_view: str = CHANCE_VIEWS[0]
    lifted_view: str = LIFTED_VIEWS[0]


_OLD_CHANCE_VIEW: Final = "player_0"
"""The chance view of checkpoints written before the field existed."""
_OLD_LIFTED_VIEW: Final = "observed"
"""The lifted view of checkpoints written before the field existed."""


def _checksum(meta: Mapping[str, Any], params: Mapping[str, np.ndarray]) -> str:
    digest = hashlib.sha256(json.dumps(meta, sort_keys=True).encode())
    for name in sorted(params):
        array = np.ascontiguousarray(params[name])
        digest.update(f"{name}|{array.dtype.str}|{array.shape}".encode())
        digest.update(array.tobytes())
    return digest.hexdigest()


def save_checkpoint(path: str | os.PathLike[str], checkpoint: Checkpoint) -> Path:
    """Writes `checkpoint` to `path` (atomically: a crash leaves the old file or none)."""
    target = Path(path)
    params = {
        name: np.asarray(value, dtype=np.float32) for name, value in checkpoint.params.items()
    }
    if _META in params:
        raise ValueError(f"{_META!r} is reserved and cannot name a parameter")
    meta: dict[str, Any] = {
        "format": FORMAT,
        "version": checkpoint.version,
        "game": checkpoint.game,
        "observation_shape": list(checkpoint.observation_shape),
        "model": as_mapping(checkpoint.model),
        "chance_view": checkpoint.chance_view,
        "lifted_view": checkpoint.lifted_view,
        "record": dict(checkpoint.record),
    }
    meta["checksum"] = _checksum(meta, params)
    target.parent.mkdir(parents=True, exist_ok=True)
    write_npz(target, {**params, _META: encode_json(meta)})
    return target


def checkpoint_file(path: str | os.PathLike[str]) -> Path:
    """The checkpoint file `path` names: `path` itself, or `path/model.npz` for the output
    directory of a training run.

    Raises:
        ValueError: Nothing at `path`, or a directory that holds no `model.npz`.
    """
    source = Path(path)
    if source.is_dir():
        inside = source / CHECKPOINT_FILE
        if inside.is_file():
            return inside
        raise ValueError(
            f"{str(source)!r} is a directory, not a value-network checkpoint: a checkpoint is a "
            f".npz file, which training writes as {CHECKPOINT_FILE} in its output directory, "
            f"and this directory holds no {CHECKPOINT_FILE}"
        )
    if not source.is_file():
        raise ValueError(f"no value-network checkpoint at {str(source)!r} (no such file)")
    return source


def load_checkpoint(path: str | os.PathLike[str], game: pyspiel.Game | None = None) -> Checkpoint:
    """Reads and verifies a checkpoint; with `game`, also that it was trained on that game.

    A file read before and unchanged since (same size and modification time) is not read
    again: self-play loads the same network for every seat of every game. Its parameter arrays
    are read-only, since the loads share them.

    Args:
        path: The checkpoint (`.npz`) file, or a training run's output directory holding it as
            `model.npz`.
        game: The game it must have been trained on (None: not checked).

    Raises:
        ValueError: Missing file; a directory without `model.npz`; a file that is not an `.npz`
            archive; a truncated, corrupted or foreign archive; checksum mismatch; another game
            or observation shape; parameters that do not match the model config.
    """
    source = checkpoint_file(path)
    status = source.stat()
    stamp = (status.st_ino, status.st_size, status.st_mtime_ns)
    checkpoint = _read_checkpoint(source, source.resolve(), stamp)
    if game is not None:
        check_fits(checkpoint, game, source)
    return checkpoint


@functools.lru_cache(maxsize=8)
def _read_checkpoint(source: Path, resolved: Path, stamp: tuple[int, int, int]) -> Checkpoint:
    """The verified checkpoint in `source` (its messages name it so), cached by the file it
    `resolved` to and that file's `stamp` (inode, size, modification time)."""
    with open(source, "rb") as handle:
        magic = handle.read(len(_ZIP_MAGIC))
    if magic != _ZIP_MAGIC:  # numpy would try it as .npy or pickle, and advise allow_pickle
        raise ValueError(
            f"{str(source)!r} is not a value-network checkpoint: a checkpoint is a .npz file "
            f"(training writes {CHECKPOINT_FILE}), and this file is not an .npz archive"
        )
    try:
        with np.load(source, allow_pickle=False) as archive:
            arrays = {name: archive[name] for name in archive.files}
    except Exception as error:  # zipfile, zlib, OSError: all mean "corrupt"
        raise ValueError(_unreadable(source, error)) from None
    if _META not in arrays:  # another .npz, e.g. a training run's dataset.npz
        names = ", ".join(sorted(arrays)) or "none"
        raise ValueError(
            f"{str(source)!r} is not a readable value-network checkpoint ({FORMAT}): it is an .npz "
            f"archive without a checkpoint's metadata (its arrays: {names}); a checkpoint is the "
            f"{CHECKPOINT_FILE} a training run writes"
        )
    try:
        meta = decode_json(arrays.pop(_META))
        if not isinstance(meta, dict) or meta.get("format") != FORMAT:
            raise ValueError(f"format {meta.get('format') if isinstance(meta, dict) else meta!r}")
        expected = meta.pop("checksum")
    except Exception as error:  # JSON, missing keys: all mean "corrupt"
        raise ValueError(_unreadable(source, error)) from None
    for array in arrays.values():
        array.flags.writeable = False
    if _checksum(meta, arrays) != expected:
        raise ValueError(
            f"checkpoint {str(source)!r} is corrupted: its checksum does not match its contents"
        )
    checkpoint = Checkpoint(
        game=meta["game"],
        observation_shape=tuple(meta["observation_shape"]),
        model=settings_from_table(ModelConfig, meta["model"], "model"),
        params=arrays,
        record=meta["record"],
        version=meta["version"],
        chance_view=meta.get("chance_view", _OLD_CHANCE_VIEW),
        lifted_view=meta.get("lifted_view", _OLD_LIFTED_VIEW),
    )
    for name, view, accepted in (
        ("chance", checkpoint.chance_view, CHANCE_VIEWS),
        ("lifted", checkpoint.lifted_view, LIFTED_VIEWS),
    ):
        if view not in accepted:
            raise ValueError(
                f"checkpoint {str(source)!r} has an unknown {name} view {view!r}; "
                f"accepted: {', '.join(accepted)} (written by a newer spiel_bounded?)"
            )
    return checkpoint


def _unreadable(source: Path, error: Exception) -> str:
    return (
        f"{str(source)!r} is not a readable value-network checkpoint ({FORMAT}): the file is "
        f"truncated, corrupted or of another kind ({type(error).__name__}: {error})"
    )


def _same_game(trained_on: str, game: pyspiel.Game) -> bool:
    """Whether the game string `trained_on` loads as `game` (a string that no longer loads: no)."""
    try:
        return game_key(load_game(trained_on)) == game_key(game)
    except ValueError:
        return False


def check_fits(checkpoint: Checkpoint, game: pyspiel.Game, source: Path | str = "") -> None:
    """`ValueError` unless `checkpoint` was trained on `game` (the same game, its parameters'
    defaults included: `hex` and `hex(board_size=11)` are one; the same observation shape)."""
    where = f" {str(source)!r}" if source else ""
    description = game_description(game)
    if checkpoint.game != description and not _same_game(checkpoint.game, game):
        raise ValueError(
            f"checkpoint{where} was trained on {checkpoint.game}, not on {description}; "
            "train a network for this game (scripts/train_value_net.py)"
        )
    shape = tuple(game.observation_tensor_shape())
    if tuple(checkpoint.observation_shape) != shape:
        raise ValueError(
            f"checkpoint{where} expects observations of shape {list(checkpoint.observation_shape)}"
            f", but {description} has {list(shape)} (another OpenSpiel version?)"
        )
