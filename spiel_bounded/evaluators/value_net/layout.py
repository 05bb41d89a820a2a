"""The layers of a network: names and shapes of its parameters, shared by JAX and numpy."""

from __future__ import annotations

import math
from dataclasses import dataclass

import pyspiel

from spiel_bounded.evaluators.value_net.config import ModelConfig
from spiel_bounded.evaluators.value_net.derived import DerivedInputs, derived_inputs
from spiel_bounded.evaluators.value_net.features import Features
from spiel_bounded.evaluators.value_net.outputs import output_form

KERNEL_SIZE = 3


@dataclass(frozen=True)
class Layout:
    """A network's architecture for one game.

    Attributes:
        model: The model settings.
        observation_shape: The game's observation shape; "conv" reads it as (planes, rows,
            columns).
        extra: Input entries after the observation (the mover's one-hot).
        outputs: Raw outputs.
        derived: What the network derives from the observation and reads after the extra
            entries, where the model's inputs are not "observation" (`derived.py`), else None.
    """

    model: ModelConfig
    observation_shape: tuple[int, ...]
    extra: int
    outputs: int
    derived: DerivedInputs | None = None

    def __post_init__(self) -> None:
        if self.model.kind == "conv" and len(self.observation_shape) != 3:
            raise ValueError(
                f"a conv model reads a board observation of shape (planes, rows, columns); this "
                f"game's observation has shape {list(self.observation_shape)}; use kind = mlp"
            )

    @property
    def observation_size(self) -> int:
        return math.prod(self.observation_shape)

    @property
    def derived_size(self) -> int:
        """Inputs the network derives from the observation."""
        return 0 if self.derived is None else self.derived.size

    @property
    def dense_input(self) -> int:
        """Inputs of the first dense layer."""
        if self.model.kind == "mlp":
            return self.observation_size + self.extra + self.derived_size
        _, rows, columns = self.observation_shape
        return rows * columns * self.model.channels + self.extra + self.derived_size

    def shapes(self) -> dict[str, tuple[int, ...]]:
        """Parameter name -> shape, in layer order (flax conventions: conv kernels are
        (kernel rows, kernel columns, in, out), dense kernels (in, out))."""
        shapes: dict[str, tuple[int, ...]] = {}
        if self.model.kind == "conv":
            channels = self.observation_shape[0]
            for index in range(self.model.conv_layers):
                shapes[f"conv_{index}/kernel"] = (
                    KERNEL_SIZE,
                    KERNEL_SIZE,
                    channels,
                    self.model.channels,
                )
                shapes[f"conv_{index}/bias"] = (self.model.channels,)
                channels = self.model.channels
        width = self.dense_input
        for index in range(self.model.depth):
            shapes[f"dense_{index}/kernel"] = (width, self.model.width)
            shapes[f"dense_{index}/bias"] = (self.model.width,)
            width = self.model.width
        shapes["out/kernel"] = (width, self.outputs)
        shapes["out/bias"] = (self.outputs,)
        return shapes


def layout_for(game: pyspiel.Game, model: ModelConfig) -> Layout:
    """The architecture of `model` on `game` (its features and output form); `ValueError` for
    derived inputs on a game they cannot read."""
    features = Features(game)
    return Layout(
        model=model,
        observation_shape=features.observation_shape,
        extra=features.size - features.observation_size,
        outputs=output_form(game).outputs,
        derived=derived_inputs(game, model.inputs),
    )
