"""What one self-play game keeps: the positions played and those below them, with their labels.

Both self-play loops write these: the Python one (`training.selfplay`) and the whole native game
(`training.native_selfplay`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import numpy as np
import pyspiel


@dataclass(frozen=True)
class GamePositions:
    """The positions of one self-play game.

    Attributes:
        index: The game's number in the run (its seed derives from it).
        features: `[positions, size]` network inputs.
        outcome: `[positions, players]` the game's final returns (the same on every row).
        search: `[positions, players]` the searching bot's value of the position for every
            player; NaN where no search was run (random opening moves, chance nodes).
        keys: `[positions]` the position's identity (mover and `str(state)`), for deduplication.
        exact: `[positions]` the search proved the position's game value (its bounds hold for
            the game value, `SearchResult.bounds_game_value`, and meet, `EXACT_WIDTH`): `search`
            then is that value, not an estimate.
        lower: `[positions, players]` the bounds the search put on every player's value of
            the position (`search_interval`); NaN where it gave none.
        upper: `[positions, players]` likewise.
        children: The positions one move or more below the searched ones, bounded by the
            searches (`ChildBounds`): their root children, or the tables' positions.
    """

    index: int
    features: np.ndarray
    outcome: np.ndarray
    search: np.ndarray
    keys: np.ndarray
    exact: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    children: ChildBounds


@dataclass(frozen=True)
class ChildBounds:
    """Positions below a searched position, with the bounds the search proved on them.

    Attributes:
        features: `[children, size]` network inputs.
        lower: `[children, players]` lower bounds on every player's value.
        upper: `[children, players]` upper bounds.
        keys: `[children]` the positions' identities, as `GamePositions.keys`.
    """

    features: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    keys: np.ndarray

    @classmethod
    def none(cls, size: int, players: int) -> ChildBounds:
        """No child (a game of an n-player search, or one written before children were kept)."""
        empty = np.zeros((0, players), dtype=np.float32)
        return cls(np.zeros((0, size), dtype=np.float32), empty, empty.copy(), np.zeros(0, str))

    @classmethod
    def join(cls, blocks: list[ChildBounds], size: int, players: int) -> ChildBounds:
        """The blocks' rows, in order (`none` when there is none)."""
        if not blocks:
            return cls.none(size, players)
        return cls(
            features=np.concatenate([block.features for block in blocks]),
            lower=np.concatenate([block.lower for block in blocks]),
            upper=np.concatenate([block.upper for block in blocks]),
            keys=np.concatenate([block.keys for block in blocks]),
        )


EXACT_WIDTH: Final = 1e-9
"""A position is labelled exact when its search proved bounds on the game value at most this
share of the value range apart: the value itself (epsilon 0), not an interval."""

SEARCH_LABEL_WIDTH: Final = 0.1
"""A two-player search's bounds give a label only when they are at most this share of the value
range apart (bounded alpha-beta at a small epsilon): MCTS and proof-number searches report wide
proven bounds, not an estimate, and an unfinished iteration reports the whole range."""


def two_player_total(game: pyspiel.Game) -> float | None:
    """The constant sum of a two-player zero- or constant-sum game; None for other games."""
    utility = game.get_type().utility
    if game.num_players() != 2 or utility not in (
        pyspiel.GameType.Utility.ZERO_SUM,
        pyspiel.GameType.Utility.CONSTANT_SUM,
    ):
        return None
    return 0.0 if utility == pyspiel.GameType.Utility.ZERO_SUM else float(game.utility_sum())
