"""Trains a value network: self-play data (resumable, parallel), then Flax training.

    python scripts/train_value_net.py --game=breakthrough --hours=2
    python scripts/train_value_net.py --game=breakthrough --hours=2 \
        --publish=results/models/breakthrough
    python scripts/train_value_net.py --config=configs/train_value_net_connect_four.toml
    python scripts/train_value_net.py --config=... --stage=generate --workers=2
    python scripts/train_value_net.py --config=... --executor=dask --scheduler=tcp://host:8786
    python scripts/train_value_net.py --config=configs/generations_connect_four.toml \
        --stage=generations

`--game` needs no config: `spiel_bounded.training.defaults` derives one from the game (bot,
search depth, network, labels; a continuous loop into runs/GAME/), a `--config` given as well
overrides it key by key, and the stage is `loop`: `generations` until `--hours` (or the
config's count), then `curve`; `--publish=DIR` then copies the newest network, the records and
the plots into DIR with a model card written from them (`spiel_bounded.training.card`).

Stages: `generate` plays the self-play games not yet on disk (an interrupted run resumes where
it stopped), `train` assembles the deduplicated dataset and trains, `all` does both;
`generations` runs the config's [generations]: self-play with the best network so far,
training, and a gate match per generation (`spiel_bounded.training.generations`), resumable at
any point; `curve` scores the generations' networks against the config's [curve] references
(`spiel_bounded.training.curve`: curve.json, curve.png), resumable too. The other stages
write the checkpoint (`model.npz`), `loss_curve.png` and `training.json` into the config's
[output] directory. Use the checkpoint with any bot: `evaluator="net:<directory>/model.npz"`.
Training needs the jax extra: pip install 'spiel-bounded[jax]'. Exit status: 0 done (and after
--help); 2 a command-line or config error; 1 a run that could not finish (a lost Dask cluster,
games that failed).
"""

from __future__ import annotations

import re
import shlex
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TextIO

from absl import app, flags

from spiel_bounded import commandline
from spiel_bounded.evaluators.value_net.extra import quiet_backend_probe
from spiel_bounded.runs import EXECUTORS, ClusterError, StoreError
from spiel_bounded.training.card import publish
from spiel_bounded.training.curve import CurvePoint, run_curve
from spiel_bounded.training.dataset import assemble, save_dataset
from spiel_bounded.training.defaults import default_config, merge
from spiel_bounded.training.generate import generate
from spiel_bounded.training.generations import Stage, run_generations
from spiel_bounded.training.losses import EpochLosses
from spiel_bounded.training.pipeline import (
    DATASET_FILE,
    RunConfig,
    fit_and_save,
    read_run_config,
    read_toml,
    run_config_from,
)

_CONFIG = flags.DEFINE_string("config", None, "TOML config ([data], [model], [train], [output]).")
_GAME = flags.DEFINE_string(
    "game", None, "Train on this game with a config derived from it (--config overrides it)."
)
_HOURS = flags.DEFINE_float(
    "hours",
    None,
    "Start no new generation after this many hours of generations ([generations] hours; "
    "the curve stage comes on top).",
)
_STAGE = flags.DEFINE_enum(
    "stage",
    None,
    ["all", "generate", "train", "generations", "curve", "loop"],
    "What to run (default: all; loop with --game).",
)
_EXECUTOR = flags.DEFINE_enum("executor", "process", list(EXECUTORS), "Where games are played.")
_WORKERS = flags.DEFINE_integer("workers", 2, "Worker processes (local executors).")
_SCHEDULER = flags.DEFINE_string("scheduler", None, "Dask scheduler address (executor=dask).")
_GAMES = flags.DEFINE_integer("games", None, "Override [data] games.")
_PUBLISH = flags.DEFINE_string(
    "publish",
    None,
    "After the loop's stages, copy its newest network and records into this directory with a "
    "model card.",
)
_QUIET = flags.DEFINE_bool("quiet", False, "No progress display.")


class _LoopLine:
    """The loop's one progress line: the generation, its stage and how far it is, the hours the
    generations took of the budget, and the last finished generation. Redrawn in place on a
    terminal; elsewhere (a log file) one line per finished generation."""

    def __init__(self, stream: TextIO, hours: float) -> None:
        self.stream = stream
        self.tty = stream.isatty()
        self.hours = hours
        self.last = ""
        self.drawn = False
        self.stage = (0, "")
        self.stage_started = time.monotonic()
        self.stage_base = 0  # what the stage had done at its first event (a resumed one)

    def show(self, stage: Stage) -> None:
        record = stage.record
        if record is not None:
            self.last = (
                f"generation {record.generation} done: {record.total_games:,} games, "
                f"{record.positions:,} positions, loss {record.validation_loss:.5f}"
            )
            if record.gated:
                self.last += f", gate {record.score:.1%}, best {record.best}"
        if (stage.generation, stage.stage) != self.stage:
            self.stage = (stage.generation, stage.stage)
            self.stage_started = time.monotonic()
            self.stage_base = stage.done
        count = ""
        if stage.total:
            count = f" {stage.done}/{stage.total}"
            if stage.done > self.stage_base:
                pace = (time.monotonic() - self.stage_started) / (stage.done - self.stage_base)
                count += f" ({pace * (stage.total - stage.done):.0f} s left)"
        budget = f" of {self.hours:g}" if self.hours > 0 else ""
        text = (
            f"generation {stage.generation}: {stage.stage}{count} | "
            f"{stage.spent / 3600:.2f}{budget} h"
        )
        if self.last:
            text += f" | {self.last}"
        if self.tty:
            self.stream.write("\r\033[K" + text)
            self.drawn = True
        elif record is not None or stage.stage.startswith("not started"):
            self.stream.write(text + "\n")
        self.stream.flush()

    def close(self) -> None:
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()


def _bar(done: int, total: int, started: float, what: str) -> None:
    if _QUIET.value:
        return
    fraction = done / total if total else 1.0
    filled = int(24 * fraction)
    elapsed = time.monotonic() - started
    sys.stderr.write(
        f"\r{what} [{'#' * filled}{'.' * (24 - filled)}] {done}/{total} ({elapsed:.0f} s)"
    )
    if done == total:
        sys.stderr.write("\n")
    sys.stderr.flush()


def main(argv: Sequence[str]) -> None:
    commandline.refuse_arguments(argv)
    if _CONFIG.value is None and _GAME.value is None:
        raise app.UsageError(
            "--config or --game is required (e.g. --game=connect_four, or "
            "--config=configs/train_value_net_connect_four.toml)",
            exitcode=commandline.USAGE_ERROR,
        )
    try:
        with commandline.native_errors_said_once():  # OpenSpiel's line about a bad game string
            config = _read_config()
    except ValueError as error:  # names the file and the [section] key: one line, no usage
        sys.stderr.write(f"error: {error}\n")
        sys.exit(commandline.USAGE_ERROR)
    quiet_backend_probe()
    if _GAMES.value is not None:
        config = replace(config, data=replace(config.data, games=_GAMES.value))
    command = "python " + shlex.join(sys.argv)
    try:
        _run(config, command)
    except (StoreError, ValueError) as error:  # a locked or foreign directory, a bad setting
        sys.stderr.write(f"\nerror: {error}\n")
        sys.exit(commandline.USAGE_ERROR)
    except (ClusterError, RuntimeError) as error:
        sys.stderr.write(f"\nerror: {error}\n")
        sys.exit(1)
    except KeyboardInterrupt as error:
        kept = (
            f"everything finished is kept in {config.directory}"
            if _stage() in ("generations", "curve", "loop")
            else f"every finished game is kept in {config.data_directory}"
        )
        commandline.exit_stopped(error, kept)


def _stage() -> str:
    if _STAGE.value is not None:
        return str(_STAGE.value)
    return "loop" if _GAME.value is not None else "all"


def _read_config() -> RunConfig:
    """The run config of --config, or derived from --game (and overridden by --config); with
    --hours set in its [generations]."""
    if _GAME.value is None:
        config = read_run_config(_CONFIG.value)
    else:
        slug = re.sub(r"[^A-Za-z0-9_.=-]+", "_", _GAME.value)
        raw = default_config(_GAME.value, f"runs/{slug}")
        source = f"--game={_GAME.value}"
        if _CONFIG.value is not None:
            raw = merge(raw, read_toml(Path(_CONFIG.value)))
            source += f" with {_CONFIG.value}"
        config = run_config_from(raw, source)
    if _stage() in ("curve", "loop") and (config.generations is None or config.curve is None):
        raise ValueError(f"--stage={_stage()} needs [generations] and [curve] sections")
    if _HOURS.value is not None:
        if config.generations is None:
            raise ValueError("--hours needs a [generations] section (or --game)")
        if _HOURS.value <= 0:
            raise ValueError(f"--hours must be > 0, got {_HOURS.value}")
        config = replace(config, generations=replace(config.generations, hours=_HOURS.value))
    return config


def _generations(config: RunConfig, command: str) -> None:
    if config.generations is None:
        raise ValueError(f"--stage=generations needs a [generations] section in {_CONFIG.value}")
    line = _LoopLine(sys.stderr, config.generations.hours)

    def on_stage(stage: Stage) -> None:
        if not _QUIET.value:
            line.show(stage)

    try:
        records = run_generations(
            config,
            executor=_EXECUTOR.value,
            workers=_WORKERS.value,
            scheduler=_SCHEDULER.value,
            command=command,
            on_stage=on_stage,
        )
    finally:
        line.close()
    best = records[-1].best if records else 0
    print(f"{len(records)} generations in {config.directory}; the best is generation {best}")


def _curve(config: RunConfig, command: str) -> None:
    assert config.curve is not None  # `_read_config` refuses the stage without one

    def on_point(point: CurvePoint) -> None:
        if not _QUIET.value:
            scores = ", ".join(
                f"{name} {score.score:.1%} [{score.low:.1%}, {score.high:.1%}]"
                for name, score in point.scores.items()
            )
            sys.stderr.write(
                f"generation {point.generation} ({point.games} games, {point.hours:.2f} h): "
                f"{scores}\n"
            )

    points = run_curve(
        config,
        config.curve,
        executor=_EXECUTOR.value,
        workers=_WORKERS.value,
        scheduler=_SCHEDULER.value,
        command=command,
        on_point=on_point,
    )
    print(f"{len(points)} networks scored; the curve is in {config.directory / 'curve.png'}")


def _run(config: RunConfig, command: str) -> None:
    stage = _stage()
    if stage in ("generations", "loop"):
        _generations(config, command)
    if _PUBLISH.value is not None and stage not in ("generations", "curve", "loop"):
        raise ValueError(
            f"--publish needs a stage of the loop (loop, generations, curve), got --stage={stage}"
        )
    if stage in ("curve", "loop"):
        _curve(config, command)
    if stage in ("generations", "curve", "loop"):
        if _PUBLISH.value is not None:
            card = publish(Path(config.directory), Path(_PUBLISH.value), Path(_PUBLISH.value).name)
            print(f"published the newest network with its model card: {card}")
        return
    if stage in ("all", "generate"):
        started = time.monotonic()
        played = generate(
            config.data,
            config.data_directory,
            executor=_EXECUTOR.value,
            workers=_WORKERS.value,
            scheduler=_SCHEDULER.value,
            command=command,
            progress=lambda done, total: _bar(done, total, started, "self-play"),
            on_wait=None if _QUIET.value else commandline.WaitingLine(sys.stderr),
        )
        print(f"played {played} games into {config.data_directory}")
    if stage in ("all", "train"):
        dataset = assemble(config.data_directory, games=config.data.games)
        save_dataset(config.data_directory / DATASET_FILE, dataset)
        print(f"dataset: {len(dataset)} distinct positions from {dataset.meta['games']} games")
        if dataset.meta["games"] < config.data.games:
            sys.stderr.write(
                f"warning: training on {dataset.meta['games']} of the {config.data.games} games "
                f"the config asks for (only those are in {config.data_directory}); "
                "--stage=generate plays the rest\n"
            )
        started = time.monotonic()

        def on_epoch(losses: EpochLosses) -> None:
            if not _QUIET.value:
                sys.stderr.write(
                    f"epoch {losses.epoch:3d}  train {losses.train:.5f}  "
                    f"validation {losses.validation:.5f}  ({time.monotonic() - started:.0f} s)\n"
                )

        record = fit_and_save(dataset, config, command=command, on_epoch=on_epoch)
        print(
            f"best epoch {record['best_epoch']}: validation loss {record['validation_loss']:.5f} "
            f"(from {record['initial_validation_loss']:.5f}); wrote {config.directory}"
        )


if __name__ == "__main__":
    # --help exits 0, a flag that does not parse 2.
    commandline.run(main, program="python scripts/train_value_net.py")
