"""A training run as files: config -> self-play data -> dataset -> checkpoint, loss curve, record.

The run's config is a TOML file with [data] (`DataConfig`), [model] (`ModelConfig`), [train]
(`TrainConfig`) and [output] (`directory`: where the checkpoint and its record go;
`data_directory`: where the self-play games go). `scripts/train_value_net.py` drives it.
"""

from __future__ import annotations

import json
import os
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np

from spiel_bounded.evaluators.value_net.checkpoint import (
    CHECKPOINT_FILE,
    Checkpoint,
    save_checkpoint,
)
from spiel_bounded.evaluators.value_net.config import ModelConfig, as_mapping
from spiel_bounded.evaluators.value_net.layout import layout_for
from spiel_bounded.evaluators.value_net.outputs import output_form
from spiel_bounded.games import load_game
from spiel_bounded.params import settings_from_table
from spiel_bounded.runs.journal import write_atomic
from spiel_bounded.training.config import (
    CurveSettings,
    DataConfig,
    GenerationSettings,
    TrainConfig,
    references_for,
)
from spiel_bounded.training.dataset import Dataset
from spiel_bounded.training.losses import EpochDone
from spiel_bounded.training.symmetry import check_mirror

CURVE_FILE: Final = "loss_curve.png"
RECORD_FILE: Final = "training.json"
DATASET_FILE: Final = "dataset.npz"
_SECTIONS: Final = ("data", "model", "train", "output", "generations", "curve")


@dataclass(frozen=True, kw_only=True)
class RunConfig:
    """A training run.

    Attributes:
        data: Self-play settings.
        model: Network settings.
        train: Training settings.
        directory: Where the checkpoint, loss curve and record are written (with
            [generations]: the generations, `generations.run_generations`).
        data_directory: Where the self-play games and the dataset are written.
        generations: The [generations] section, None when the config has none.
        curve: The [curve] section (`training.curve`), None when the config has none.
    """

    data: DataConfig
    model: ModelConfig
    train: TrainConfig
    directory: Path
    data_directory: Path
    generations: GenerationSettings | None = None
    curve: CurveSettings | None = None


def read_run_config(path: str | os.PathLike[str]) -> RunConfig:
    """Reads a run config; `ValueError` naming the file and the problem otherwise."""
    source = Path(path)
    return run_config_from(read_toml(source), str(source))


def read_toml(source: Path) -> dict[str, Any]:
    """A config file's sections; `ValueError` naming the file when it cannot be read."""
    try:
        return tomllib.loads(source.read_text())
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise ValueError(f"cannot read training config {str(source)!r}: {error}") from None


def run_config_from(raw: Mapping[str, Any], source: str) -> RunConfig:
    """The run config of TOML sections `raw` (read from `source`, which messages name)."""
    unknown = sorted(set(raw) - set(_SECTIONS))
    if unknown:
        raise ValueError(
            f"{source!r}: unknown section(s) {', '.join(unknown)}; accepted: {', '.join(_SECTIONS)}"
        )
    output = raw.get("output", {})
    extra = sorted(set(output) - {"directory", "data_directory"})
    if extra or "directory" not in output or "data_directory" not in output:
        raise ValueError(
            f"{source!r}: [output] needs exactly directory and data_directory "
            f"(got {', '.join(sorted(output)) or 'nothing'})"
        )
    try:
        config = RunConfig(
            data=settings_from_table(DataConfig, raw.get("data", {}), "data"),
            model=settings_from_table(ModelConfig, raw.get("model", {}), "model"),
            train=settings_from_table(TrainConfig, raw.get("train", {}), "train"),
            directory=Path(output["directory"]),
            data_directory=Path(output["data_directory"]),
            generations=(
                settings_from_table(GenerationSettings, raw["generations"], "generations")
                if "generations" in raw
                else None
            ),
            curve=settings_from_table(CurveSettings, raw["curve"], "curve")
            if "curve" in raw
            else None,
        )
        if config.train.mirror:
            check_mirror(load_game(config.data.game))
        if config.curve is not None:
            references_for(config.curve, config.data.game)  # refused now, not after the loop
    except (TypeError, ValueError) as error:
        raise ValueError(f"{source!r}: {error}") from None
    return config


def loss_curve(history: Sequence[Mapping[str, float]], title: str, path: Path) -> None:
    """Writes the training and validation loss per epoch as a PNG."""
    from matplotlib.figure import Figure  # here: it costs about 0.7 s of every start

    figure = Figure(figsize=(6.0, 4.0), layout="constrained")
    axes = figure.add_subplot()
    epochs = [entry["epoch"] for entry in history]
    axes.plot(epochs, [entry["train"] for entry in history], label="training", marker=".")
    axes.plot(epochs, [entry["validation"] for entry in history], label="validation", marker=".")
    axes.set_xlabel("epoch")
    axes.set_ylabel("mean squared error / value range²")
    axes.set_title(title)
    axes.legend()
    axes.grid(alpha=0.3)
    figure.savefig(path, dpi=110)


def fit_and_save(
    dataset: Dataset,
    config: RunConfig,
    *,
    command: str = "",
    on_epoch: EpochDone | None = None,
    initial: Mapping[str, np.ndarray] | None = None,
) -> dict[str, Any]:
    """Trains on `dataset` (from `initial` parameters when given) and writes the checkpoint,
    loss curve and record into `config.directory`; returns the record (also stored in the
    checkpoint). Needs JAX."""
    from spiel_bounded.training.train import train_network

    game = load_game(dataset.game)
    layout = layout_for(game, config.model)
    result = train_network(
        dataset, layout, output_form(game), config.train, on_epoch=on_epoch, initial=initial
    )
    history = [
        {"epoch": entry.epoch, "train": entry.train, "validation": entry.validation}
        for entry in result.history
    ]
    record = {
        "command": command,
        "data": dataset.meta.get("data", as_mapping(config.data)),
        "data_command": dataset.meta.get("command", ""),
        "train": as_mapping(config.train),
        "positions": len(dataset),
        "games": dataset.meta.get("games"),
        "train_positions": result.train_positions,
        "validation_positions": result.validation_positions,
        "best_epoch": result.best_epoch,
        "validation_loss": result.best_validation,
        "initial_validation_loss": result.history[0].validation,
        "backend": result.backend,
        "warm_start": initial is not None,
        "history": history,
    }
    directory = config.directory
    directory.mkdir(parents=True, exist_ok=True)
    save_checkpoint(
        directory / CHECKPOINT_FILE,
        Checkpoint(
            game=dataset.game,
            observation_shape=dataset.observation_shape,
            model=config.model,
            params=result.params,
            record=record,
        ),
    )
    loss_curve(history, f"{dataset.game}: value network", directory / CURVE_FILE)
    write_atomic(
        directory / RECORD_FILE,
        json.dumps({**record, "model": as_mapping(config.model)}, indent=2) + "\n",
    )
    return record
