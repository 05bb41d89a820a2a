"""How learnable a game's values are: networks fit to exactly solved positions, scored on others.

A loop whose networks stop improving may lack data, search or a network able to learn the
game's values at all. This separates the last: `solved_dataset` turns positions solved by
`accuracy.solved_positions` into a training set whose every label is exact, and `fit_solved`
trains a network of a given shape on it (`train.train_network`, symmetric images where the
package knows the game's symmetry) and scores its values of other solved positions (`unseen`
keeps those that are not training positions): how often a decided position's value has the
exact value's sign, and the correlation of the values with the exact ones over all of them.
`majority_sign` is the floor a network must beat: the share of decided positions that the
commoner sign (always "the player to move wins", or always "loses") gets right.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final

import numpy as np
import pyspiel

from spiel_bounded.evaluators.value_net.checkpoint import Checkpoint, save_checkpoint
from spiel_bounded.evaluators.value_net.config import ModelConfig
from spiel_bounded.evaluators.value_net.features import Features
from spiel_bounded.evaluators.value_net.layout import layout_for
from spiel_bounded.evaluators.value_net.model import BatchValues
from spiel_bounded.evaluators.value_net.outputs import output_form
from spiel_bounded.games import load_game
from spiel_bounded.training.accuracy import SolvedPosition, correlation
from spiel_bounded.training.config import TrainConfig
from spiel_bounded.training.dataset import Dataset
from spiel_bounded.training.symmetry import symmetry_of
from spiel_bounded.training.train import train_network

FEWEST_TRAINING_POSITIONS: Final = 20
"""A fit needs a tenth of its positions held out for early stopping: at least two."""


@dataclass(frozen=True)
class FitScore:
    """A network fit to solved positions, scored on held-out solved positions.

    Attributes:
        model: The network's shape.
        train_positions: Solved positions it was fit to (a tenth of them held out for early
            stopping).
        test_positions: Solved positions it was scored on.
        drawn: How many of those are draws (in the correlation, not in the sign share: a
            network's value is never exactly 0).
        best_epoch: The epoch whose parameters were kept.
        validation_loss: Its loss on the held-out tenth (0.25: off by half the value range).
        sign_agreement: The share of decided test positions whose value for the player to move
            has the exact value's sign (NaN when every test position is drawn).
        correlation: Pearson's correlation of the values with the exact ones (NaN when either is
            constant).
        params: The network's parameters (those of the epoch kept).
    """

    model: ModelConfig
    train_positions: int
    test_positions: int
    drawn: int
    best_epoch: int
    validation_loss: float
    sign_agreement: float
    correlation: float
    params: Mapping[str, np.ndarray] = field(repr=False, compare=False)


def _player_values(position: SolvedPosition) -> list[float]:
    """The exact value of a two-player zero-sum position for players 0 and 1."""
    value = position.value if position.state.current_player() == 0 else -position.value
    return [value, -value]


def solved_dataset(game: str, positions: Sequence[SolvedPosition]) -> Dataset:
    """`positions` of the game `game` (a game string) as a dataset whose every label is exact
    (each position its own game, so a split by game holds out positions)."""
    if not positions:
        raise ValueError("no solved position to learn from: draw more, or a larger node budget")
    features = Features(load_game(game))
    values = np.array([_player_values(position) for position in positions], dtype=np.float64)
    count = len(positions)
    return Dataset(
        game=game,
        observation_shape=features.observation_shape,
        features=np.stack([features.of(position.state) for position in positions]),
        outcome=values,
        search=values,
        games=np.arange(count),
        occurrences=np.ones(count, dtype=np.int64),
        meta={"labels": "exact values of solved positions"},
        exact=np.ones(count, dtype=bool),
        lower=values,
        upper=values,
    )


def unseen(test: Sequence[SolvedPosition], train: Sequence[SolvedPosition]) -> list[SolvedPosition]:
    """The positions of `test` that are not positions of `train` (by their state strings)."""
    seen = {str(position.state) for position in train}
    return [position for position in test if str(position.state) not in seen]


def majority_sign(positions: Sequence[SolvedPosition]) -> float:
    """The share of the decided `positions` that the commoner sign gets right (NaN when none is
    decided): the floor of `FitScore.sign_agreement`."""
    signs = np.sign([position.value for position in positions])
    decided = signs[signs != 0]
    if decided.size == 0:
        return float("nan")
    wins = float(np.mean(decided > 0))
    return max(wins, 1.0 - wins)


def fit_solved(
    game: pyspiel.Game,
    train: Dataset,
    test: Sequence[SolvedPosition],
    model: ModelConfig,
    config: TrainConfig,
) -> FitScore:
    """A network of `model`'s shape trained on `train` (`solved_dataset`) with `config` (its
    labelling taken as "search", the exact values; its mirror only where the package knows the
    game's symmetry), scored on `test` (positions not in `train`: `unseen`)."""
    if not test:
        raise ValueError("no solved position to score")
    if len(train) < FEWEST_TRAINING_POSITIONS:
        raise ValueError(
            f"a fit needs at least {FEWEST_TRAINING_POSITIONS} training positions (a tenth is "
            f"held out); got {len(train)}"
        )
    layout = layout_for(game, model)
    form = output_form(game)
    settings = replace(
        config, labelling="search", mirror=config.mirror and symmetry_of(game) is not None
    )
    result = train_network(train, layout, form, settings)
    features = Features(game)
    inputs = np.stack([features.of(position.state) for position in test])
    movers = [position.state.current_player() for position in test]
    values = BatchValues(layout, form, result.params)(inputs)[np.arange(len(test)), movers]
    exact = np.array([position.value for position in test])
    decided = exact != 0
    return FitScore(
        model=model,
        train_positions=len(train),
        test_positions=len(test),
        drawn=int(np.sum(~decided)),
        best_epoch=result.best_epoch,
        validation_loss=result.best_validation,
        sign_agreement=float(np.mean(np.sign(values[decided]) == np.sign(exact[decided])))
        if decided.any()
        else float("nan"),
        correlation=correlation(values, exact),
        params=result.params,
    )


def save_network(
    path: str | os.PathLike[str], game: str, score: FitScore, record: Mapping[str, Any]
) -> Path:
    """Writes `score`'s network, fit on the game `game` (a game string), as an evaluator
    checkpoint (`net:PATH`) with `record` (how it was made); returns the file written."""
    checkpoint = Checkpoint(
        game=game,
        observation_shape=tuple(load_game(game).observation_tensor_shape()),
        model=score.model,
        params=score.params,
        record=dict(record),
    )
    return save_checkpoint(path, checkpoint)
