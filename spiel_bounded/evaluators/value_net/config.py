"""Settings of the value network's shape, and settings as plain mappings (checkpoints, configs)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, Final

from spiel_bounded.params import (
    NON_NEGATIVE_INT,
    POSITIVE_INT,
    OneOf,
    check_fields,
    declared,
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

    def __post_init__(self) -> None:
        check_fields(self)


def from_mapping(settings_type: type, values: Mapping[str, Any], section: str) -> Any:
    """`settings_type(**values)` for the TOML table `[section]`: an unknown key is refused with
    the list of accepted ones, a refused value as `[section] key must be ...; got ...` (the
    table and key the user wrote, not the class and field)."""
    names = [item.name for item in fields(settings_type)]
    unknown = sorted(set(values) - set(names))
    if unknown:
        raise ValueError(
            f"unknown key(s) {', '.join(map(repr, unknown))} in [{section}]; "
            f"accepted: {', '.join(names)}"
        )
    params = declared(settings_type)
    for name, value in values.items():
        if name in params:
            try:
                params[name].check(value)
            except ValueError as error:
                raise ValueError(f"[{section}] {name} {error}") from None
    return settings_type(**values)


def as_mapping(settings: Any) -> dict[str, Any]:
    """The fields of a settings dataclass as a plain dict (for checkpoints and records)."""
    return {
        item.name: dict(value)
        if isinstance(value := getattr(settings, item.name), Mapping)
        else value
        for item in fields(settings)
    }
