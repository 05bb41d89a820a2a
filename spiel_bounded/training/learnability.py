"""How learnable a game's values are: networks fit to exactly solved positions, scored on others.

A loop whose networks stop improving may lack data, search or a network able to learn the
game's values at all. This separates the last: `solved_dataset` turns positions solved by
`accuracy.solved_positions` into a training set whose every label is exact, and `fit_solved`
trains a network of a given shape on it (`train.train_network`, symmetric images where the
package knows the game's symmetry) and scores its values of other solved positions: how often
their sign is the exact value's, and their correlation. `mover_wins` is the floor any network
must beat: the share of positions the rule "the player to move wins" gets right.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import pyspiel

from spiel_bounded.evaluators.value_net.config import ModelConfig
from spiel_bounded.evaluators.value_net.features import Features
from spiel_bounded.evaluators.value_net.layout import layout_for
from spiel_bounded.evaluators.value_net.model import BatchValues
from spiel_bounded.evaluators.value_net.outputs import output_form
from spiel_bounded.games import load_game
from spiel_bounded.training.accuracy import SolvedPosition
from spiel_bounded.training.config import TrainConfig
from spiel_bounded.training.dataset import Dataset
from spiel_bounded.training.symmetry import symmetry_of
from spiel_bounded.training.train import train_network


@dataclass(frozen=True)
class FitScore:
    """A network fit to solved positions, scored on held-out solved positions.

    Attributes:
        model: The network's shape.
        train_positions: Solved positions it was fit to (a tenth of them held out for early
            stopping).
        test_positions: Solved positions it was scored on (none of them a training position's
            game).
        epochs: The epoch whose parameters were kept.
        validation_loss: Its loss on the held-out tenth (0.25: off by half the value range).
        sign_agreement: The share of test positions whose value for the player to move has the
            exact value's sign.
        correlation: Pearson's correlation of those values with the exact ones.
        params: The network's parameters (those of the epoch kept).
    """

    model: ModelConfig
    train_positions: int
    test_positions: int
    epochs: int
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


def mover_wins(positions: Sequence[SolvedPosition]) -> float:
    """The share of `positions` the rule "the player to move wins" gets right (by sign)."""
    if not positions:
        raise ValueError("no solved position to score")
    return float(np.mean([np.sign(position.value) == 1.0 for position in positions]))


def fit_solved(
    game: pyspiel.Game,
    train: Dataset,
    test: Sequence[SolvedPosition],
    model: ModelConfig,
    config: TrainConfig,
) -> FitScore:
    """A network of `model`'s shape trained on `train` (`solved_dataset`) with `config` (its
    labelling is taken as "search": the exact values), scored on `test`."""
    if not test:
        raise ValueError("no solved position to score")
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
    constant = len(test) < 2 or np.ptp(exact) == 0 or np.ptp(values) == 0
    return FitScore(
        model=model,
        train_positions=len(train),
        test_positions=len(test),
        epochs=result.best_epoch,
        validation_loss=result.best_validation,
        sign_agreement=float(np.mean(np.sign(values) == np.sign(exact))),
        correlation=float("nan") if constant else float(np.corrcoef(values, exact)[0, 1]),
        params=result.params,
    )
