"""Settings of the value network's shape, and settings as plain mappings (checkpoints, records)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, Final

from spiel_bounded.evaluators.value_net.derived import MODEL_INPUTS
from spiel_bounded.params import (
    NON_NEGATIVE_INT,
    POSITIVE_INT,
    OneOf,
    check_fields,
    setting,
)

MODEL_KINDS: Final = ("mlp", "conv")


@dataclass(frozen=True, kw_only=True)
class ModelConfig:
    """The network's shape."""

    kind: str = setting("mlp", "mlp or conv (3x3 convolutions over a board)", OneOf(MODEL_KINDS))
    # "mlp": dense layers over the observation; "conv": 3x3 convolutions over a board
    # observation of shape (planes, rows, columns), then dense layers.
    width: int = setting(128, "units of each hidden dense layer", POSITIVE_INT)
    depth: int = setting(2, "hidden dense layers", NON_NEGATIVE_INT)
    channels: int = setting(32, "channels of each convolution (conv)", POSITIVE_INT)
    conv_layers: int = setting(2, "convolutions (conv)", POSITIVE_INT)
    inputs: str = setting(
        "observation",
        "observation, or threats: also each player's cells that would complete a line "
        "(connect_four, tic_tac_toe, boards of at most 64 cells; value_net.threats), or "
        "connections: also each hex side's cheapest paths and distance (value_net.connections), "
        "territory: also the amazons cells each side reaches first (value_net.territory), "
        "or contacts: also the clobber stones that can capture, the contacts and the groups "
        "(value_net.contacts)",
        OneOf(MODEL_INPUTS),
    )

    def __post_init__(self) -> None:
        check_fields(self)


def as_mapping(settings: Any) -> dict[str, Any]:
    """The fields of a settings dataclass as a plain dict (for checkpoints and records)."""
    return {
        item.name: dict(value)
        if isinstance(value := getattr(settings, item.name), Mapping)
        else value
        for item in fields(settings)
    }
