"""Generations of value networks, each trained on self-play with the best one so far and kept
only if it beats it (AlphaGo Zero's evaluator: a new network replaces the best when it scores at
least `gate_score` in a match against it); with `gate_games = 0`, no gate: every new network
teaches the next generation (Descent's continuous loop, Cohen-Solal & Cazenave 2020: play, label,
train on a replay window, repeat), and `training.curve` measures the learning curve instead.

Generation g (1, 2, ...): the self-play bot of `[data]`, its evaluator the best network so far
(generation 0: `start`, the heuristic or a checkpoint), plays `[data] games` games; a network
(`[model]`, `[train]`) is trained on the games of the newest `window` generations; then it plays
`gate_games` games against the best network (the same bot with `gate_params`, seats swapped,
on the arena) and replaces it when it scores at least `gate_score`. With `warm_start` a new
network's training starts from the best network's parameters (continued training, as
AlphaZero's), else from scratch. Everything stays:

    OUTPUT/generations.json      the config and one record per generation (`GenerationRecord`)
    OUTPUT/generations.png       strength (Elo against generation 0) and validation loss
    OUTPUT/gen_NN/games/          its self-play games (`generate.generate`)
    OUTPUT/gen_NN/model.npz       its network, with loss_curve.png and training.json
    OUTPUT/gen_NN/match/          its gate match (a tournament directory)

Every stage resumes: self-play and the match from their own records, training is skipped when
the generation's checkpoint exists, and a finished generation is read back from
generations.json. A directory holding generations of another config is refused (only `count`
may grow, to add generations).
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import numpy as np

from spiel_bounded.arena.config import config_from_mapping
from spiel_bounded.arena.paired import score_to_elo
from spiel_bounded.arena.runner import run_tournament
from spiel_bounded.arena.settings import Config
from spiel_bounded.arena.store import GameStore
from spiel_bounded.evaluators import EVALUATOR_NAMES, MIX_PREFIX, NET_PREFIX
from spiel_bounded.evaluators.value_net.checkpoint import (
    CHECKPOINT_FILE,
    checkpoint_file,
    load_checkpoint,
)
from spiel_bounded.evaluators.value_net.config import ModelConfig, as_mapping
from spiel_bounded.games import load_game
from spiel_bounded.runs.journal import differences, write_atomic
from spiel_bounded.runs.lock import locked
from spiel_bounded.stats import wilson
from spiel_bounded.training.config import DataConfig, GenerationSettings, TrainConfig
from spiel_bounded.training.dataset import Dataset, assemble
from spiel_bounded.training.game_files import drop_bundle
from spiel_bounded.training.generate import flat_settings, generate
from spiel_bounded.training.losses import EpochDone

if TYPE_CHECKING:
    from spiel_bounded.training.pipeline import RunConfig

RECORD_FILE: Final = "generations.json"
PLOT_FILE: Final = "generations.png"
NEW, BEST = "new", "best"
"""The labels of the two bots of a gate match."""


@dataclass(frozen=True, kw_only=True)
class GenerationRecord:
    """What one generation did.

    Attributes:
        generation: Its number (1, 2, ...).
        teacher: The evaluator its self-play used (the best network before it).
        games: Self-play games it played.
        positions: Positions it trained on: its window's generations, each deduplicated on its
            own (a position reached in two generations counts twice, and its copies may fall on
            both sides of the split by game).
        validation_loss: Its network's best validation loss.
        score: Its network's score against the best in the gate match (wins + draws / 2).
        low: The score's 95% Wilson interval, lower end.
        high: Upper end.
        match_games: Gate games played.
        accepted: It scored at least `gate_score` and became the best (always, without a gate).
        best: The best generation after it (0: `start`).
        seconds: Wall-clock seconds its self-play, training and match took (0: not recorded).
        total_games: Self-play games of every generation up to it.

    Without a gate (`gate_games = 0`) `score`, `low` and `high` are NaN and `match_games` 0.
    """

    generation: int
    teacher: str
    games: int
    positions: int
    validation_loss: float
    score: float
    low: float
    high: float
    match_games: int
    accepted: bool
    best: int
    seconds: float = field(default=0.0, compare=False)  # a measurement, not what was made
    total_games: int = 0

    @property
    def gated(self) -> bool:
        return self.match_games > 0


@dataclass(frozen=True)
class Stage:
    """A progress event: `generation`, the stage (`self-play`, `assemble`, `train`, `match`,
    `done`, or `not started: the hours are spent`), for `done` its record, how far the stage is
    (`done` of `total` games or epochs, 0 of 0 when it does not count) and the seconds the
    run's generations have taken so far (`spent`, the budget `hours` is counted in, this
    generation's included)."""

    generation: int
    stage: str
    record: GenerationRecord | None = None
    done: int = 0
    total: int = 0
    spent: float = 0.0


def evaluator_of(generation: int, directory: Path, start: str) -> str:
    """The evaluator parameter of generation `generation`'s network (0: `start`, an evaluator
    name, a checkpoint path or the evaluator spelling of one, "net:PATH")."""
    if generation == 0:
        return start if start in EVALUATOR_NAMES or start.startswith("net:") else f"net:{start}"
    return f"net:{generation_directory(directory, generation) / CHECKPOINT_FILE}"


def with_playouts(evaluator: str, settings: GenerationSettings) -> str:
    """The self-play evaluator of a teacher `evaluator`: a network mixed with one seeded playout
    a leaf when `settings.playout_weight` is above 0; anything else as it is."""
    if settings.playout_weight == 0.0 or not evaluator.startswith(NET_PREFIX):
        return evaluator
    return f"{MIX_PREFIX}{settings.playout_weight!r}:{evaluator}+seeded_rollout"


def generation_directory(directory: Path, generation: int) -> Path:
    return directory / f"gen_{generation:02d}"


def selfplay_directory(directory: Path, generation: int) -> Path:
    """The directory `generate.generate` writes generation `generation`'s self-play into (its
    data.json, its games/ and their bundle)."""
    return generation_directory(directory, generation) / "games"


def bot_entry(label: str, bot: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """A `[[bots]]` entry of a tournament config (parameters that are None left out)."""
    kept = {key: value for key, value in params.items() if value is not None}
    return {"label": label, "bot": bot, "params": kept}


def run_section(output: Path, executor: str, workers: int, scheduler: str | None) -> dict[str, Any]:
    """The `[run]` section of a training match's tournament."""
    return {
        "output": str(output),
        "executor": executor,
        "workers": workers,
        "scheduler": scheduler or "",
    }


def match_config(
    config: RunConfig,
    settings: GenerationSettings,
    generation: int,
    best: int,
    output: Path,
    *,
    executor: str = "process",
    workers: int = 1,
    scheduler: str | None = None,
) -> Config:
    """The tournament config of generation `generation`'s gate match against `best`."""
    data = config.data
    bots = [
        bot_entry(
            label,
            data.bot,
            {
                **settings.gate_params,
                "evaluator": evaluator_of(which, config.directory, settings.start),
            },
        )
        for label, which in ((NEW, generation), (BEST, best))
    ]
    tournament = {
        "games": [data.game],
        "games_per_pairing": settings.gate_games,
        "pairing": "tables",
        "tables": [[NEW, BEST]],
        "opening_moves": data.opening_moves,
        "seed": data.seed + 1000 * generation,
    }
    return config_from_mapping(
        {
            "tournament": tournament,
            "run": run_section(output, executor, workers, scheduler),
            "bots": bots,
        },
        source=f"{output.parent} gate match",
    )


@dataclass(frozen=True)
class Score:
    """A bot's score against one opponent (`scores_of`: two seats, (wins + draws / 2) / games;
    more, the share of the opponent's seats finished ahead of, ties half), its 95% Wilson
    interval (over games, the fractional points of more seats taken as they come: an
    approximation there), and the games it rests on."""

    score: float
    low: float
    high: float
    games: int


def scores_of(output: Path, label: str) -> dict[str, Score]:
    """Bot `label`'s score against each opponent in a tournament directory's games between it
    and copies of one other bot (games that raised left out): a point for each seat it
    finished ahead of, half for a tie, over the seats (two seats: win, draw, loss)."""
    points: dict[str, float] = {}
    played: dict[str, int] = {}
    for record in GameStore(output).read_records():
        if record.error or not record.returns or label not in record.seats:
            continue
        mine = record.returns[record.seats.index(label)]
        others = [seat for seat, name in enumerate(record.seats) if name != label]
        names = {record.seats[seat] for seat in others}
        if len(names) != 1 or len(others) != len(record.seats) - 1:
            continue
        (opponent,) = names
        theirs = [record.returns[seat] for seat in others]
        points[opponent] = points.get(opponent, 0.0) + sum(
            1.0 if mine > their else 0.5 if mine == their else 0.0 for their in theirs
        ) / len(theirs)
        played[opponent] = played.get(opponent, 0) + 1
    return {
        opponent: Score(points[opponent] / games, *wilson(points[opponent], games), games)
        for opponent, games in played.items()
    }


def match_score(output: Path) -> tuple[float, float, float, int]:
    """The new network's score in a finished gate match (score, Wilson interval, games)."""
    score = scores_of(output, NEW).get(BEST)
    if score is None:
        raise RuntimeError(f"the gate match in {output} finished no game")
    return score.score, score.low, score.high, score.games


def elo_difference(score: float) -> float:
    """The Elo difference a score stands for (`paired.score_to_elo`), finite: a score of 0 or 1
    is clipped to 0.001 / 0.999, so that generations' differences can be chained."""
    return score_to_elo(min(max(score, 0.001), 0.999))


@dataclass(frozen=True)
class Strength:
    """A generation's Elo against generation 0 and its 95% interval: the Elo of the best it
    played (chained through the accepted generations' gate matches) plus its own gate match's
    difference, the interval from the Wilson interval of its score (the best's own uncertainty
    is not added)."""

    generation: int
    elo: float
    low: float
    high: float


def strengths(records: list[GenerationRecord]) -> list[Strength]:
    """Every gated generation's `Strength`, in order (NaN after an ungated best)."""
    elo_of_best = {0: 0.0}
    out = []
    best = 0
    for record in records:
        if not record.gated:
            elo_of_best[record.generation] = math.nan
            best = record.best
            continue
        base = elo_of_best[best]
        strength = Strength(
            record.generation,
            base + elo_difference(record.score),
            base + elo_difference(record.low),
            base + elo_difference(record.high),
        )
        out.append(strength)
        if record.accepted:
            elo_of_best[record.generation] = strength.elo
        best = record.best
    return out


def plot_generations(records: list[GenerationRecord], path: Path, title: str) -> None:
    """Strength against generation 0 (accepted filled, rejected hollow) beside the validation
    loss of each generation, as a PNG."""
    from matplotlib.figure import Figure  # here: it costs about 0.7 s of every start

    figure = Figure(figsize=(9.0, 3.6), layout="constrained")
    strength_axes, loss_axes = figure.subplots(1, 2)
    points = strengths(records)
    for point, record in zip(points, [record for record in records if record.gated], strict=True):
        strength_axes.errorbar(
            point.generation,
            point.elo,
            yerr=[[point.elo - point.low], [point.high - point.elo]],
            fmt="o",
            color="C0",
            markerfacecolor="C0" if record.accepted else "white",
            capsize=3,
        )
    strength_axes.axhline(0.0, color="grey", linewidth=0.8)
    strength_axes.set_xlabel("generation")
    strength_axes.set_ylabel("Elo against generation 0 (95% interval)")
    strength_axes.set_title("gate matches (hollow: rejected)")
    loss_axes.plot(
        [record.generation for record in records],
        [record.validation_loss for record in records],
        marker="o",
    )
    loss_axes.set_xlabel("generation")
    loss_axes.set_ylabel("best validation loss")
    loss_axes.set_title("training")
    for axes in (strength_axes, loss_axes):
        axes.grid(alpha=0.3)
        axes.set_xticks([record.generation for record in records])
    figure.suptitle(title)
    figure.savefig(path, dpi=110)


def _window(directory: Path, generation: int, window: int) -> Dataset:
    """The positions of the newest `window` generations' games, up to `generation`,
    deduplicated across them (`dataset.assemble`)."""
    return assemble(
        [
            selfplay_directory(directory, g)
            for g in range(max(1, generation - window + 1), generation + 1)
        ]
    )


def warm_start_params(config: RunConfig, evaluator: str) -> Mapping[str, np.ndarray] | None:
    """The parameters a new network starts from: the best network's (`evaluator`, "net:PATH")
    when `warm_start` is on and it has the config's [model]; else None."""
    settings = config.generations
    if settings is None or not settings.warm_start or not evaluator.startswith("net:"):
        return None
    checkpoint = load_checkpoint(checkpoint_file(evaluator[4:]), load_game(config.data.game))
    return checkpoint.params if checkpoint.model == config.model else None


def _fingerprint(config: RunConfig) -> dict[str, Any]:
    """What a directory's generations were made with; `count` and `hours` may grow."""
    assert config.generations is not None
    settings = asdict(config.generations)
    settings.pop("count")
    settings.pop("hours")
    return {
        "data": as_mapping(config.data),
        "model": as_mapping(config.model),
        "train": as_mapping(config.train),
        "generations": settings,
    }


def normalized_settings(stored: Mapping[str, Any]) -> dict[str, Any]:
    """A stored fingerprint through today's settings: a setting added since it was written
    takes its default (as `dataset` reads an older data config)."""
    generations = {**stored["generations"], "count": 1}
    settings = asdict(GenerationSettings(**generations))
    settings.pop("count")
    settings.pop("hours")
    return json.loads(
        json.dumps(
            {
                "data": as_mapping(DataConfig(**stored["data"])),
                "model": as_mapping(ModelConfig(**stored["model"])),
                "train": as_mapping(TrainConfig(**stored["train"])),
                "generations": settings,
            }
        )
    )


def _epochs(tell: Callable[..., None], total: int) -> EpochDone:
    """Training's epoch callback as `train` progress events of `tell`."""
    return lambda losses: tell("train", done=losses.epoch, total=total)


def run_generations(
    config: RunConfig,
    *,
    executor: str = "process",
    workers: int = 1,
    scheduler: str | None = None,
    command: str = "",
    on_stage: Callable[[Stage], None] | None = None,
) -> list[GenerationRecord]:
    """Runs (or resumes) the generations of `config` (a `pipeline.RunConfig` with a
    `[generations]` section); returns every generation's record. Needs JAX.

    Raises:
        ValueError: The directory holds generations of another config.
        RunLockedError: Another run uses the directory.
        Terminated, KeyboardInterrupt: SIGTERM or Ctrl-C; everything finished is kept.
    """
    from spiel_bounded.training.pipeline import fit_and_save

    settings = config.generations
    if settings is None:
        raise ValueError("the config has no [generations] section")
    directory = Path(config.directory)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / RECORD_FILE
    fingerprint = _fingerprint(config)
    with locked(directory):
        stored = json.loads(path.read_text()) if path.exists() else None
        if stored is not None:
            differ = differences(
                flat_settings(normalized_settings(stored["config"])),
                flat_settings(json.loads(json.dumps(fingerprint))),
            )
            if differ:
                raise ValueError(
                    f"{directory} holds generations of another config (it differs in "
                    f"{', '.join(differ)}; only [generations] count and hours may change); use "
                    "another [output] directory"
                )
        records = [GenerationRecord(**entry) for entry in (stored or {}).get("records", [])]

        def save() -> None:
            text = json.dumps(
                {
                    "config": fingerprint,
                    "commands": sorted({*((stored or {}).get("commands", [])), command} - {""}),
                    "records": [asdict(record) for record in records],
                },
                indent=1,
            )
            write_atomic(path, text + "\n")
            if records:
                plot_generations(records, directory / PLOT_FILE, f"{config.data.game}: generations")

        def said(
            generation: int,
            spent: float,
            started: float,
            stage: str,
            done: int = 0,
            total: int = 0,
            record: GenerationRecord | None = None,
        ) -> None:
            if on_stage is not None:
                now = spent + time.monotonic() - started
                on_stage(Stage(generation, stage, record, done, total, now))

        best = records[-1].best if records else 0
        for generation in range(len(records) + 1, settings.count + 1):
            spent = sum(record.seconds for record in records)
            started = time.monotonic()
            tell = partial(said, generation, spent, started)
            if settings.hours > 0 and spent >= settings.hours * 3600.0:
                tell("not started: the hours are spent")
                break
            home = generation_directory(directory, generation)
            network = evaluator_of(best, directory, settings.start)
            teacher = with_playouts(network, settings)
            data = replace(
                config.data,
                bot_params={**config.data.bot_params, "evaluator": teacher},
                seed=config.data.seed + generation,
            )
            tell("self-play", total=data.games)
            generate(
                data,
                selfplay_directory(directory, generation),
                executor=executor,
                workers=workers,
                scheduler=scheduler,
                command=command,
                progress=partial(tell, "self-play"),
            )
            tell("assemble")
            dataset = _window(directory, generation, settings.window)
            positions = len(dataset)
            if (home / CHECKPOINT_FILE).exists():
                # The checkpoint (written atomically, checksummed) holds the training record.
                trained = load_checkpoint(home / CHECKPOINT_FILE).record
            else:
                tell("train", total=config.train.max_epochs)
                trained = fit_and_save(
                    dataset,
                    replace(config, directory=home),
                    command=command,
                    initial=warm_start_params(config, network),
                    on_epoch=_epochs(tell, config.train.max_epochs),
                )
            del dataset  # so that the next window is not assembled beside this one (memory)
            score, low, high, played = math.nan, math.nan, math.nan, 0
            if settings.gate_games > 0:
                tell("match")
                match = home / "match"
                gate = match_config(
                    config,
                    settings,
                    generation,
                    best,
                    match,
                    executor=executor,
                    workers=workers,
                    scheduler=scheduler,
                )
                run_tournament(gate, command=command)
                score, low, high, played = match_score(match)
            accepted = played == 0 or score >= settings.gate_score
            best = generation if accepted else best
            records.append(
                GenerationRecord(
                    generation=generation,
                    teacher=teacher,
                    games=data.games,
                    positions=positions,
                    validation_loss=float(trained["validation_loss"]),
                    score=score,
                    low=low,
                    high=high,
                    match_games=played,
                    accepted=accepted,
                    best=best,
                    seconds=time.monotonic() - started,
                    total_games=(records[-1].total_games if records else 0) + data.games,
                )
            )
            save()
            for left in range(1, generation - settings.window + 2):  # out of the next window
                drop_bundle(selfplay_directory(directory, left))
            tell("done", record=records[-1])
        save()
    return records
