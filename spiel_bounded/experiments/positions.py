"""Committed, seeded position sets: what the epsilon sweep searches.

A `PositionSet` is a frozen description (game string, seed, plies, count); `materialise` turns
it into `Position`s deterministically with `spiel_bounded.testing.random_positions` (uniformly
random moves from the start, chance outcomes sampled by their probabilities; no hand-picked
positions). For `bounded_random_tree` every position is the root (after `plies` random moves)
of its own tree, the tree's `seed` parameter being `seed + i` for position i, so a set of trees
is a sample of the tree distribution rather than of one tree's positions.

A position is stored as its game string and action history (chance outcomes included), which
replays it exactly; `write_positions` writes a set's histories to JSON so readers see them, and
the sweep's tests check that the procedure regenerates the committed files.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyspiel

from spiel_bounded.games import load_game
from spiel_bounded.params import (
    NAME,
    NON_NEGATIVE_INT,
    POSITIVE_INT,
    SEED,
    Text,
    required_setting,
    setting,
)
from spiel_bounded.synthetic import SHORT_NAME
from spiel_bounded.testing import random_positions


@dataclass(frozen=True, kw_only=True)
class PositionSet:
    """A seeded set of positions: a `[[sets]]` table of a sweep config."""

    name: str = required_setting("the set's name, unique in the config", NAME)
    game: str = required_setting(
        "OpenSpiel game string (for bounded_random_tree, its seed is set per position: seed + i)",
        Text(),
    )
    seed: int = setting(0, "seeds the random moves (and, for synthetic trees, the trees)", SEED)
    plies: int = setting(0, "random decision plies played from the start", NON_NEGATIVE_INT)
    count: int = required_setting("number of positions", POSITIVE_INT)

    @property
    def synthetic(self) -> bool:
        return self.game.split("(", 1)[0].strip() == SHORT_NAME

    def game_string(self, index: int) -> str:
        """The game string of position `index` (its own tree for synthetic sets)."""
        if not self.synthetic:
            return self.game
        name, _, rest = self.game.partition("(")
        params = [p.strip() for p in rest.rstrip(")").split(",") if p.strip()]
        params = [p for p in params if not p.startswith("seed=")]
        return f"{name.strip()}({','.join([*params, f'seed={self.seed + index}'])})"

    def materialise(self) -> list[Position]:
        """The set's positions, the same on every call and machine."""
        if self.synthetic:
            positions = []
            for index in range(self.count):
                game_string = self.game_string(index)
                game = load_game(game_string)
                rng = np.random.default_rng([self.seed, index])
                (state,) = random_positions(game, 1, plies=self.plies, seed=rng)
                positions.append(Position(game=game_string, actions=tuple(state.history())))
            return positions
        game = load_game(self.game)
        states = random_positions(game, self.count, plies=self.plies, seed=self.seed)
        return [Position(game=self.game, actions=tuple(state.history())) for state in states]

    def to_json(self, positions: Sequence[Position]) -> str:
        data: dict[str, Any] = {
            "set": {
                "name": self.name,
                "game": self.game,
                "seed": self.seed,
                "plies": self.plies,
                "count": self.count,
            },
            "procedure": (
                "spiel_bounded.experiments.positions.PositionSet.materialise: uniformly random "
                "moves (spiel_bounded.testing.random_positions); synthetic trees: tree seed = "
                "set seed + index"
            ),
            "positions": [
                {"game": position.game, "actions": list(position.actions)} for position in positions
            ],
        }
        return json.dumps(data, indent=1) + "\n"


@dataclass(frozen=True)
class Position:
    """A position: its game string and the actions (chance outcomes included) that reach it."""

    game: str
    actions: tuple[int, ...]

    def state(self) -> pyspiel.State:
        """The position, replayed from the start."""
        state = load_game(self.game).new_initial_state()
        for action in self.actions:
            state.apply_action(action)
        return state


def positions_path(directory: str | Path, position_set: PositionSet) -> Path:
    return Path(directory) / f"{position_set.name}.json"


def write_positions(directory: str | Path, position_set: PositionSet) -> Path:
    """Materialises the set and writes it to `directory/<name>.json`; returns the path."""
    path = positions_path(directory, position_set)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(position_set.to_json(position_set.materialise()))
    return path
