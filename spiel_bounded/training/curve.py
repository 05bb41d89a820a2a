"""The learning curve of a generations run: its networks scored against fixed references.

Every `every`-th generation's network (and the newest, and any scored by an earlier call: a newest
network keeps its point when the run goes on) plays, as the `[data]` bot with that network as its
evaluator, `games` games (every seat in turn, `seconds_per_move` for every bot) from openings of
`opening_moves` random plies against each reference. In games without chance nodes
the openings are a suite drawn when the curve is first measured, `OUTPUT/curve/openings.txt`,
none of whose positions a training game of the generations then finished reached
(`training.openings`; a resumed run's later generations are checked against it before it is
used again); in games with chance nodes, random plies drawn per game. The references:

- "heuristic": the same bot with the hand-written heuristic (games that have one);
- "rollout": the same bot with the random-rollout evaluator;
- "mcts": OpenSpiel's C++ MCTS;
- "previous": the network scored before it.

In a game of n > 2 players the network plays n - 1 copies of the reference, `games` rounded up to
a multiple of n so that it takes every seat equally often, and scores a point for each seat it
finishes ahead of, half for a tie, over the n - 1 (`generations.scores_of`).

By default: "heuristic" where the game has one, else "rollout"; then "mcts" and "previous".
Each network's matches are one tournament in `OUTPUT/curve/gen_NN/` (resumable; a network scored
already is read back), and the curve, scores with 95% Wilson intervals against the games and
hours of training so far, is written to `OUTPUT/curve.json` and `OUTPUT/curve.png`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import pyspiel

from spiel_bounded.arena.config import config_from_mapping
from spiel_bounded.arena.openings import parse_openings
from spiel_bounded.arena.runner import run_tournament
from spiel_bounded.arena.settings import Config
from spiel_bounded.games import load_game
from spiel_bounded.runs.journal import write_atomic
from spiel_bounded.training.config import CurveSettings, references_for
from spiel_bounded.training.generations import (
    RECORD_FILE,
    GenerationRecord,
    Score,
    bot_entry,
    evaluator_of,
    generation_directory,
    run_section,
    scores_of,
    selfplay_directory,
)
from spiel_bounded.training.openings import unseen_among, unseen_openings

if TYPE_CHECKING:
    from spiel_bounded.training.pipeline import RunConfig

CURVE_FILE: Final = "curve.json"
PLOT_FILE: Final = "curve.png"
OPENINGS_FILE: Final = "openings.txt"
UNSEEN_UP_TO: Final = "none of them a position of the training games of generations 1-"
"""How a suite's header ends, before the newest generation whose games it was checked against."""
NETWORK: Final = "network"
"""The label of the scored network in its matches."""


@dataclass(frozen=True)
class CurvePoint:
    """One scored network: its generation, the self-play games and wall-clock hours of the run
    up to it, and its score against each opponent (by reference name)."""

    generation: int
    games: int
    hours: float
    scores: dict[str, Score]


def scored_generations(
    records: list[GenerationRecord], every: int, scored_before: Collection[int] = ()
) -> list[int]:
    """The generations whose networks are scored: every `every`-th, the newest, and those scored
    already (a newest one of an earlier call keeps its point when later generations follow)."""
    numbers = [record.generation for record in records]
    return [
        number
        for number in numbers
        if number % every == 0 or number == numbers[-1] or number in scored_before
    ]


def match_config(
    config: RunConfig,
    settings: CurveSettings,
    generation: int,
    previous: int | None,
    output: Path,
    openings: Path | None = None,
    *,
    executor: str = "process",
    workers: int = 1,
    scheduler: str | None = None,
) -> Config:
    """The tournament config of generation `generation`'s matches against its references."""
    assert config.generations is not None
    data, start, params = config.data, config.generations.start, dict(settings.params)
    network = evaluator_of(generation, config.directory, start)
    bots = [bot_entry(NETWORK, data.bot, {**params, "evaluator": network})]
    labels = []
    for name in references_for(settings, data.game):
        if name in ("heuristic", "rollout"):
            bots.append(bot_entry(name, data.bot, {**params, "evaluator": name}))
        elif name == "mcts":
            bots.append(bot_entry(name, "mcts", {}))
        elif previous is not None:
            evaluator = evaluator_of(previous, config.directory, start)
            bots.append(bot_entry(name, data.bot, {**params, "evaluator": evaluator}))
        else:
            continue  # the first network scored has no previous one
        labels.append(name)
    seats = load_game(data.game).num_players()
    tournament: dict[str, Any] = {
        "games": [data.game],
        "games_per_pairing": -(-settings.games // seats) * seats,
        "pairing": "tables",
        "tables": [[NETWORK] + [label] * (seats - 1) for label in labels],
        "seconds_per_move": settings.seconds_per_move,
        "seed": data.seed + 7919 * generation,
    }
    if openings is not None:
        tournament["openings"] = str(openings)
    else:
        tournament["opening_moves"] = opening_plies(config, settings)
    return config_from_mapping(
        {
            "tournament": tournament,
            "run": run_section(output, executor, workers, scheduler),
            "bots": bots,
        },
        source=f"{output} curve matches",
    )


def opening_plies(config: RunConfig, settings: CurveSettings) -> int:
    return settings.opening_moves or config.data.opening_moves + 2


def _checked_unseen(path: Path, config: RunConfig, records: list[GenerationRecord]) -> Path:
    """The suite at `path` once the generations finished since it was drawn (a resumed run) are
    checked: its header then names them too. `ValueError` when one of their training games
    reached an opening's position, so that no curve point is scored on a position the network
    was trained on."""
    text = path.read_text()
    header, _, body = text.partition("\n")
    covered = re.search(re.escape(UNSEEN_UP_TO) + r"(\d+)$", header)
    newest = records[-1].generation
    since = int(covered.group(1)) if covered is not None else 0  # a header naming none: all
    if since >= newest:
        return path
    openings = parse_openings(text, str(path))
    games = [selfplay_directory(Path(config.directory), g) for g in range(since + 1, newest + 1)]
    seen = len(openings) - len(unseen_among(config.data.game, openings, games))
    if seen:
        raise ValueError(
            f"{seen} of the {len(openings)} openings of {path} are positions of the training "
            f"games of generations {since + 1}-{newest}; delete {path.parent} to measure the "
            "curve again on a suite drawn now"
        )
    kept = header[: covered.start()] if covered is not None else f"{header.rstrip()}; "
    write_atomic(path, f"{kept}{UNSEEN_UP_TO}{newest}\n{body}")
    return path


def opening_suite(
    config: RunConfig, settings: CurveSettings, records: list[GenerationRecord]
) -> Path | None:
    """The curve's opening suite (module docstring), drawn and written on the first call; None
    for a game with chance nodes."""
    game = load_game(config.data.game)
    if game.get_type().chance_mode != pyspiel.GameType.ChanceMode.DETERMINISTIC:
        return None
    directory = Path(config.directory)
    path = directory / "curve" / OPENINGS_FILE
    plies, count = opening_plies(config, settings), max(settings.games // 2, 1)
    drawn_for = re.compile(
        rf"# {count} openings of (\d+) random plies for {re.escape(config.data.game)},"
    )
    if path.exists():
        first = path.read_text().partition("\n")[0]
        found = drawn_for.match(first)
        if found is None or int(found.group(1)) < plies:
            raise ValueError(
                f"{path} holds openings drawn for other [curve] settings ({first.lstrip('# ')}), "
                f"not {count} of {plies} plies or more; delete {path.parent} to measure the "
                "curve again with these"
            )
        return _checked_unseen(path, config, records)
    newest = records[-1].generation
    suite = unseen_openings(
        config.data.game,
        plies,
        count,
        [selfplay_directory(directory, g) for g in range(1, newest + 1)],
        seed=config.data.seed + 104_729,
    )
    header = (
        f"# {count} openings of {suite.plies} random plies for {config.data.game}, "
        f"{UNSEEN_UP_TO}{newest}\n"
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = "".join(" ".join(map(str, line)) + "\n" for line in suite.openings)
    write_atomic(path, header + lines)
    return path


def plot_curve(points: list[CurvePoint], path: Path, title: str) -> None:
    """Each reference's score against the self-play games so far, with 95% intervals."""
    from matplotlib.figure import Figure  # here: it costs about 0.7 s of every start

    figure = Figure(figsize=(7.0, 4.0), layout="constrained")
    axes = figure.add_subplot()
    opponents = sorted({name for point in points for name in point.scores})
    for index, name in enumerate(opponents):
        shown = [point for point in points if name in point.scores]
        scores = [point.scores[name] for point in shown]
        axes.errorbar(
            [point.games for point in shown],
            [score.score for score in scores],
            yerr=[
                [score.score - score.low for score in scores],
                [score.high - score.score for score in scores],
            ],
            label=name,
            marker="o",
            capsize=3,
            color=f"C{index}",
        )
    axes.axhline(0.5, color="grey", linewidth=0.8)
    axes.set_ylim(0.0, 1.0)
    axes.set_xlabel("self-play games so far")
    axes.set_ylabel("score of the network (95% interval)")
    axes.set_title(title)
    axes.legend()
    axes.grid(alpha=0.3)
    figure.savefig(path, dpi=110)


def _curve_directory(directory: Path, generation: int) -> Path:
    """Where generation `generation`'s matches are played (`OUTPUT/curve/gen_NN/`)."""
    return directory / "curve" / generation_directory(directory, generation).name


def run_curve(
    config: RunConfig,
    settings: CurveSettings,
    *,
    executor: str = "process",
    workers: int = 1,
    scheduler: str | None = None,
    command: str = "",
    on_point: Callable[[CurvePoint], None] | None = None,
) -> list[CurvePoint]:
    """Scores the finished generations of `config`'s directory (module docstring); returns the
    curve. Matches already played are read back; `ValueError` when there is no generation."""
    directory = Path(config.directory)
    path = directory / RECORD_FILE
    if not path.exists():
        raise ValueError(f"{directory} holds no generations yet: run --stage=generations first")
    records = [GenerationRecord(**entry) for entry in json.loads(path.read_text())["records"]]
    by_number = {record.generation: record for record in records}
    hours, elapsed = {}, 0.0
    for record in records:
        elapsed += record.seconds
        hours[record.generation] = elapsed / 3600.0
    points: list[CurvePoint] = []
    previous: int | None = None
    openings = opening_suite(config, settings, records) if records else None
    described = (
        openings.read_text().partition("\n")[0].lstrip("# ")
        if openings is not None
        else f"{opening_plies(config, settings)} random plies a game"
    )
    scored_before = [
        record.generation
        for record in records
        if (_curve_directory(directory, record.generation) / "games.csv").exists()
    ]
    for generation in scored_generations(records, settings.every, scored_before):
        output = _curve_directory(directory, generation)
        matches = match_config(
            config,
            settings,
            generation,
            previous,
            output,
            openings,
            executor=executor,
            workers=workers,
            scheduler=scheduler,
        )
        run_tournament(matches, command=command)
        point = CurvePoint(
            generation,
            by_number[generation].total_games,
            hours[generation],
            scores_of(output, NETWORK),
        )
        points.append(point)
        if on_point is not None:
            on_point(point)
        previous = generation
        write_atomic(
            directory / CURVE_FILE,
            json.dumps(
                {
                    "command": command,
                    "settings": {**asdict(settings), "params": dict(settings.params)},
                    "openings": described,
                    "points": [asdict(item) for item in points],
                },
                indent=1,
            )
            + "\n",
        )
        plot_curve(points, directory / PLOT_FILE, f"{config.data.game}: learning curve")
    return points
