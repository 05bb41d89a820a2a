"""What a network trains on from a `Dataset`: the split by game and the targets (points or
intervals, the outcome mixed in, as the `[train]` settings ask)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from spiel_bounded.training.config import TrainConfig
from spiel_bounded.training.dataset import Dataset


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
