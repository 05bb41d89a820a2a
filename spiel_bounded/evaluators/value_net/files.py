"""Crash-safe writes of the files a training run produces, and JSON stored inside `.npz`."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np


def _partial(target: Path) -> Path:
    """A temporary name beside `target`, unique per process (runs may share a directory)."""
    return target.with_name(f"{target.name}.{os.getpid()}.partial")


def write_npz(target: Path, arrays: Mapping[str, np.ndarray], *, compressed: bool = True) -> None:
    """Writes an `.npz` (compressed unless told) atomically: a crash leaves the old file or
    none."""
    partial = _partial(target)
    named: dict[str, Any] = dict(arrays)  # numpy's stubs type **kwds as its bool flag
    with open(partial, "wb") as handle:
        (np.savez_compressed if compressed else np.savez)(handle, **named)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(partial, target)


def write_text(target: Path, text: str) -> None:
    """Writes a text file atomically."""
    partial = _partial(target)
    partial.write_text(text)
    os.replace(partial, target)


def encode_json(value: Any) -> np.ndarray:
    """`value` as JSON bytes in a uint8 array, to store beside arrays in an `.npz`."""
    return np.frombuffer(json.dumps(value, sort_keys=True).encode(), dtype=np.uint8)


def decode_json(array: np.ndarray) -> Any:
    """The value `encode_json` stored."""
    return json.loads(bytes(array).decode())
