"""Training rows gathered as they are needed, mirror images included.

Training used to hold the whole dataset twice over (the mirror images appended, then the whole
set as a JAX array closed over by the jitted step, which JAX compiles in as a constant); a
batch gathered from the dataset's own arrays holds no second copy of it.
"""

from __future__ import annotations

import numpy as np
import pyspiel

from spiel_bounded.training.symmetry import mirror_features


class Rows:
    """A dataset's features and target bounds, with the mirror images of chosen rows numbered
    after them: `with_mirrors` numbers the mirror of `rows[j]` as `len(features) + j`, and
    `batch` mirrors those as it gathers them. No row is copied before a batch asks for it."""

    def __init__(self, features: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> None:
        self._features, self._lower, self._upper = features, lower, upper
        self._mirrored = np.zeros(0, dtype=np.int64)  # the rows whose mirrors are numbered
        self._game: pyspiel.Game | None = None

    def with_mirrors(self, game: pyspiel.Game, rows: np.ndarray) -> np.ndarray:
        """`rows` followed by the numbers of their mirror images."""
        self._game, self._mirrored = game, rows
        count = len(self._features)
        return np.concatenate([rows, np.arange(count, count + rows.size)])

    def batch(self, indices: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The features and target bounds of rows `indices` (mirror numbers included)."""
        count = len(self._features)
        flipped = indices >= count
        rows = indices.copy()
        rows[flipped] = self._mirrored[indices[flipped] - count]
        features = self._features[rows].astype(np.float32, copy=False)  # bytes where they fit
        if flipped.any():
            assert self._game is not None
            features[flipped] = mirror_features(self._game, features[flipped])
        return features, self._lower[rows], self._upper[rows]
