"""A loop's network published with its model card: `publish(run, destination)`.

The card is written from what the run recorded, never by hand: `generations.json` (the config
and one record per generation) and, when the curve stage ran, `curve.json` (each scored
network's results with their intervals). Next to it in `destination` go the newest network
(`model.npz`) and the run's records and plots, so the card's numbers can be checked against
them and the network used at once as `evaluator="net:DESTINATION/model.npz"`.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from spiel_bounded.evaluators.value_net.checkpoint import CHECKPOINT_FILE, load_checkpoint
from spiel_bounded.games import load_game
from spiel_bounded.runs.journal import write_atomic
from spiel_bounded.training.curve import CURVE_FILE
from spiel_bounded.training.curve import PLOT_FILE as CURVE_PLOT
from spiel_bounded.training.generations import (
    PLOT_FILE as GENERATIONS_PLOT,
)
from spiel_bounded.training.generations import (
    RECORD_FILE,
    GenerationRecord,
    generation_directory,
    normalized_settings,
)
from spiel_bounded.training.symmetry import check_mirror

CARD_FILE: Final = "README.md"
REFERENCE_TEXT: Final = (
    "the same bot with the heuristic or rollouts, OpenSpiel's C++ `mcts`, the network scored "
    "before; in a game of n players, n - 1 copies of it"
)


def _percent(score: Mapping[str, Any]) -> str:
    return f"{100 * score['score']:.1f} [{100 * score['low']:.1f}, {100 * score['high']:.1f}]"


def _images_text(game: str) -> str:
    """ ", symmetric images (...)" naming the image training added of each position."""
    symmetry = check_mirror(load_game(game))
    return f", symmetric images ({symmetry.name})"


def _playouts_text(weight: float) -> str:
    """How the self-play searches mixed playouts into the teacher network's values, if they
    did."""
    if not weight:
        return ""
    return (
        f"; the searches value leaves by the teacher network mixed with one seeded random "
        f"playout at weight {weight!r} (`mix:{weight!r}:net:PATH+seeded_rollout`)"
    )


def _derived_text(inputs: str) -> str:
    """What a network reads besides the observation, for the card's first line."""
    return {
        "threats": "reading each player's threat planes too ",
        "connections": "reading each side's cheapest connections and distance too ",
        "territory": "reading the cells each side reaches first too ",
        "contacts": "reading the contacts and groups of stones too ",
    }.get(inputs, "")


def _params_text(params: Mapping[str, Any]) -> str:
    shown = {key: value for key, value in params.items() if key != "evaluator"}
    return ", ".join(f"{key}={value}" for key, value in shown.items()) or "its defaults"


def curve_table(points: Sequence[Mapping[str, Any]]) -> list[str]:
    """The learning curve as markdown rows: one per scored network, a column per reference."""
    names = sorted({name for point in points for name in point["scores"]})
    lines = [
        "| generation | games so far | hours | "
        + " | ".join(f"vs {name} % (games)" for name in names)
        + " |",
        "| ---: | ---: | ---: | " + " | ".join("---:" for _ in names) + " |",
    ]
    for point in points:
        cells = [
            f"{_percent(point['scores'][name])} ({point['scores'][name]['games']})"
            if name in point["scores"]
            else ""
            for name in names
        ]
        lines.append(
            f"| {point['generation']} | {point['games']:,} | {point['hours']:.2f} | "
            + " | ".join(cells)
            + " |"
        )
    return lines


@dataclass(frozen=True)
class RunRecords:
    """What a generations run recorded (generations.json), read through today's settings."""

    settings: Mapping[str, Any]
    commands: tuple[str, ...]
    records: tuple[GenerationRecord, ...]


def read_run(run: Path) -> RunRecords:
    """`run`'s generations.json; `ValueError` when it has none or no finished generation."""
    record_file = run / RECORD_FILE
    if not record_file.exists():
        raise ValueError(f"{run} holds no generations to publish: run the loop first")
    try:
        stored = json.loads(record_file.read_text())
        records = tuple(GenerationRecord(**entry) for entry in stored["records"])
        settings = normalized_settings(stored["config"])
    except (ValueError, KeyError, TypeError) as error:
        raise ValueError(f"{record_file} is unreadable: {type(error).__name__}: {error}") from None
    if not records:
        raise ValueError(f"{run} holds no finished generation to publish")
    return RunRecords(settings, tuple(stored.get("commands", [])), records)


def _commands(run: RunRecords, curve: Mapping[str, Any] | None) -> list[str]:
    """The commands that made the run's generations, then the one that scored its curve when
    that was another (`--stage=curve`)."""
    commands = list(run.commands)
    scored = (curve or {}).get("command", "")
    if scored and scored not in commands:
        commands.append(scored)
    return commands


def card_text(
    name: str, run: RunRecords, parameters: int, destination: str, curve: Mapping[str, Any] | None
) -> str:
    """The model card of a run's best network (the newest without a gate), with `parameters`
    parameters, published in `destination`; `curve`: curve.json or None."""
    config, records = run.settings, run.records
    data, model, train, loop = (
        config["data"],
        config["model"],
        config["train"],
        config["generations"],
    )
    last = records[-1]
    hours = sum(record.seconds for record in records) / 3600.0
    shape = (
        f"{model['conv_layers']} 3x3 convolutions of {model['channels']} channels and "
        if model["kind"] == "conv"
        else ""
    )
    labels = (
        f"tree labels (every position the search's table bounded, from {data['label_depth']} "
        "plies left up)"
        if data.get("tree_labels")
        else "the played positions"
    )
    gate = (
        "no gate: each network teaches the next (Descent's continuous loop)"
        if loop["gate_games"] == 0
        else f"a gate of {loop['gate_games']} games at {loop['gate_score']:.0%}"
    )
    lines = [
        f"# Model card: {data['game']} value network"
        + ("" if name == data["game"] else f", {name}"),
        "",
        f"- **What it is**: generation {last.best} of a self-play loop: a network of "
        f"{shape}{model['depth']} dense layers of {model['width']} units "
        + _derived_text(model.get("inputs", "observation"))
        + f"({parameters:,} parameters, `model.npz`). Use it as "
        f'`evaluator="net:{destination}/model.npz"`.',
        f"- **Made by**: {'; '.join(f'`{command}`' for command in _commands(run, curve))}. "
        f"{len(records)} generations, {last.total_games:,} self-play games, "
        f"{hours:.2f} hours of generations (wall clock, this machine).",
        f"- **Self-play**: `{data['bot']}` ({_params_text(data['bot_params'])}) in every seat, "
        f"{data['games']:,} games a generation, {data['opening_moves']} random opening plies, "
        f"{data['epsilon']:.0%} random moves; generation 1's teacher: {loop['start']}; {gate}"
        + _playouts_text(loop.get("playout_weight", 0.0))
        + ".",
        f"- **Labels**: {labels}, labelling `{train['labelling']}` with the outcome at weight "
        f"{train['outcome_weight']}{_images_text(data['game']) if train['mirror'] else ''}.",
        f"- **Training**: AdamW (learning rate {train['learning_rate']}, weight decay "
        f"{train['weight_decay']}, batch {train['batch_size']}), up to {train['max_epochs']} "
        f"epochs a generation{', warm-started' if loop['warm_start'] else ''}, on the newest "
        f"{loop['window']} generations' games ({last.positions:,} positions at the end); "
        f"validation loss {records[0].validation_loss:.4f} at generation 1, "
        f"{last.validation_loss:.4f} at generation {last.generation}.",
    ]
    if curve is None:
        lines += ["", "No learning curve was measured (`--stage=curve`)."]
    else:
        settings = curve.get("settings", {})
        names = sorted({name for point in curve["points"] for name in point["scores"]})
        lines += [
            "",
            "## Learning curve (`curve.json`, `curve.png`)",
            "",
            f"Each scored network plays `{data['bot']}` "
            f"({_params_text(settings.get('params', {}))}) with it as the evaluator, "
            f"{settings.get('seconds_per_move', '?')} s a move for every bot, taking every seat "
            f"in turn, from {curve.get('openings', 'random openings')}, "
            f"against each reference ({', '.join(names)}: {REFERENCE_TEXT}); scores "
            "(a point for each seat finished ahead of, half for a tie) with 95% Wilson "
            "intervals.",
            "",
            *curve_table(curve["points"]),
        ]
    lines += [
        "",
        "The run's records: `generations.json` and `generations.png` (one record per generation).",
    ]
    return "\n".join(lines) + "\n"


def publish(run: Path, destination: Path, name: str) -> Path:
    """Copies run directory `run`'s best network (the newest without a gate), records and plots
    into `destination` and writes its model card there; returns the card's path. `ValueError`
    (before anything is written) when the run has no finished generation or unreadable
    records."""
    records = read_run(run)
    if records.records[-1].best == 0:
        raise ValueError(
            f"no network of {run} passed its gate: the best is still generation 0, "
            f"{records.settings['generations']['start']}; there is no network to publish"
        )
    best = generation_directory(run, records.records[-1].best) / CHECKPOINT_FILE
    checkpoint = load_checkpoint(best)
    curve = json.loads((run / CURVE_FILE).read_text()) if (run / CURVE_FILE).exists() else None
    destination.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(best, destination / CHECKPOINT_FILE)
    for file in (RECORD_FILE, GENERATIONS_PLOT, CURVE_FILE, CURVE_PLOT):
        if (run / file).exists():
            shutil.copyfile(run / file, destination / file)
    parameters = sum(int(array.size) for array in checkpoint.params.values())
    card = destination / CARD_FILE
    write_atomic(card, card_text(name, records, parameters, destination.as_posix(), curve))
    return card
