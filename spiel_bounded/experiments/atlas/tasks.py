"""The atlas's tasks and records, and which tasks a config asks for.

A task is one measurement of one game (`measures`): its `kind`, the row, the position and the
parameters. The tasks come in two stages: the first (`first_stage`: facts and depth calibration,
one task each per game) decides the depth every Q1 search of the second (`second_stage`: Q1 at
every epsilon, OpenSpiel comparisons, solving, interval traces, max^n pruning) runs at. A record
holds the measurement's typed result as a dict (`data`), or the traceback when it raised (then
it is run again on resume).
"""

from __future__ import annotations

import hashlib
import json
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Final

from spiel_bounded.experiments.atlas import measures
from spiel_bounded.experiments.atlas.config import AtlasConfig, GameEntry, position_seed
from spiel_bounded.experiments.positions import Position
from spiel_bounded.experiments.tasks import TaskRecord, make_task, run_task
from spiel_bounded.games import load_game
from spiel_bounded.search.outcomes import outcome_reason

PRUNINGS: Final = ("none", "shallow", "last_branch", "speculative")
Q1_CAP: Final = 50
"""A Q1 search stops at this many times its game's node budget (it then counts as not
completed): one position far harder than the calibration's cannot hold up the run."""


@dataclass(frozen=True, kw_only=True)
class AtlasTask:
    """One measurement.

    Attributes:
        kind: One of `KINDS`.
        label: The atlas row (`GameEntry.label`).
        game: The game string searched (the row's game, or a small variant for solve / trace).
        index: The position's index in its set.
        actions: The actions from the start that reach the position.
        params: The measurement's parameters (JSON-able).
    """

    kind: str
    label: str
    game: str
    index: int = 0
    actions: tuple[int, ...] = ()
    params: Mapping[str, Any] = field(default_factory=dict)

    @property
    def task_id(self) -> str:
        """Names the measurement exactly (game, position and parameters), so a changed row's
        tasks are new ones and a record is never reported for a position it did not search."""
        return measurement_id(
            self.kind, self.label, self.index, self.game, self.actions, self.params
        )

    @property
    def position(self) -> Position:
        return Position(self.game, self.actions)


@dataclass(frozen=True, kw_only=True)
class AtlasRecord:
    """What one task measured (one line of records.jsonl).

    Attributes:
        task_id, kind, label, game, index, actions, params: As in the task.
        data: The measurement (`asdict` of the typed result of `measures`); empty on error.
        seconds: Process time of the task.
        error: The traceback when the task raised (run again on resume); "" otherwise.
    """

    task_id: str
    kind: str
    label: str
    game: str
    index: int
    params: Mapping[str, Any]
    data: Mapping[str, Any]
    seconds: float
    error: str = ""
    actions: tuple[int, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.error

    def to_line(self) -> str:
        return json.dumps(asdict(self), sort_keys=True) + "\n"

    @classmethod
    def from_line(cls, line: str) -> AtlasRecord:
        data = json.loads(line)
        names = {f.name for f in fields(cls)}
        data["actions"] = tuple(data.get("actions", ()))
        return cls(**{key: value for key, value in data.items() if key in names})


def measurement_id(
    kind: str,
    label: str,
    index: int,
    game: str,
    actions: Sequence[int],
    params: Mapping[str, Any],
) -> str:
    """`kind/label/index/digest`, the digest over the game, the actions and the parameters."""
    text = json.dumps(
        {"game": game, "actions": list(actions), "params": dict(params)}, sort_keys=True
    )
    digest = hashlib.sha256(text.encode()).hexdigest()[:10]
    return f"{kind}/{label}/{index}/{digest}"


def error_record(task: AtlasTask, error: str, seconds: float = 0.0) -> AtlasRecord:
    return AtlasRecord(
        task_id=task.task_id,
        kind=task.kind,
        label=task.label,
        game=task.game,
        index=task.index,
        params=dict(task.params),
        data={},
        seconds=seconds,
        error=error,
        actions=task.actions,
    )


def run_atlas_task(task: AtlasTask) -> AtlasRecord:
    """Runs `task`; an exception becomes a record with `error` set."""
    started = time.process_time()
    try:
        data = _measure(task)
    except Exception:
        return error_record(task, traceback.format_exc(), time.process_time() - started)
    return AtlasRecord(
        task_id=task.task_id,
        kind=task.kind,
        label=task.label,
        game=task.game,
        index=task.index,
        params=dict(task.params),
        data=data,
        seconds=time.process_time() - started,
        actions=task.actions,
    )


def _measure(task: AtlasTask) -> dict[str, Any]:
    measurement = MEASUREMENTS.get(task.kind)
    if measurement is None:
        raise ValueError(f"unknown task kind {task.kind!r}; accepted: {', '.join(KINDS)}")
    return asdict(measurement(task))


def _facts(task: AtlasTask) -> measures.GameFacts:
    p = task.params
    return measures.game_facts(
        task.game, playouts=p["playouts"], max_plies=p["max_plies"], seed=p["seed"]
    )


def _calibrate(task: AtlasTask) -> measures.Calibration:
    p = task.params
    return measures.calibrate_depth(
        [Position(task.game, tuple(actions)) for actions in p["positions"]],
        algorithm=p["algorithm"],
        evaluator=p["evaluator"],
        budget=p["budget"],
        max_depth=p["max_depth"],
        rollouts=p.get("rollouts", 1),
    )


def _q1(task: AtlasTask) -> TaskRecord:
    p = task.params
    record = run_task(
        make_task(
            run=task.label,
            algorithm=p["algorithm"],
            set=task.label,
            index=task.index,
            position=task.position,
            fraction=p["fraction"],
            params={
                "depth": p["depth"],
                "nodes": p["nodes"],
                **measures.leaf_params(p["evaluator"], p.get("rollouts", 1)),
            },
        )
    )
    if not record.ok:
        raise RuntimeError(record.error)
    return record


def _openspiel(task: AtlasTask) -> measures.OpenSpielComparison:
    p = task.params
    return measures.versus_openspiel(
        task.position,
        algorithm=p["algorithm"],
        evaluator=p["evaluator"],
        seconds=p["seconds"],
        max_depth=p["max_depth"],
        rollouts=p.get("rollouts", 1),
    )


def _solve(task: AtlasTask) -> measures.SolveOutcome:
    p = task.params
    return measures.solve_position(task.position, algorithm=p["algorithm"], nodes=p["nodes"])


def _trace(task: AtlasTask) -> measures.IntervalTrace:
    p = task.params
    return measures.trace_interval(
        task.position, algorithm=p["algorithm"], budgets=p["budgets"], seed=p["seed"]
    )


def _pruning(task: AtlasTask) -> measures.PruningPoint:
    p = task.params
    return measures.pruning_nodes(
        task.position,
        pruning=p["pruning"],
        depth=p["depth"],
        evaluator=p["evaluator"],
        nodes=p["nodes"],
        rollouts=p.get("rollouts", 1),
    )


MEASUREMENTS: Final[Mapping[str, Callable[[AtlasTask], Any]]] = {
    "facts": _facts,
    "calibrate": _calibrate,
    "q1": _q1,
    "openspiel": _openspiel,
    "solve": _solve,
    "trace": _trace,
    "pruning": _pruning,
}
"""Each task kind's measurement: a function of the task whose typed result (a dataclass) is
the record's `data`."""
KINDS: Final = tuple(MEASUREMENTS)


# ------------------------------------------------------------------------------- planning


@dataclass(frozen=True, kw_only=True)
class Skip:
    """A measurement that does not apply to a row, and why."""

    label: str
    kind: str
    reason: str


def positions_of(config: AtlasConfig, entry: GameEntry) -> list[Position]:
    """The row's seeded positions (the same on every run of the config)."""
    seed = position_seed(config.settings["seed"], entry.label)
    return measures.random_position_list(entry.game, entry.positions, entry.plies, seed)


def first_stage(config: AtlasConfig) -> list[AtlasTask]:
    """Facts and depth calibration, one task each per row."""
    s = config.settings
    tasks = []
    for entry in config.games:
        tasks.append(
            AtlasTask(
                kind="facts",
                label=entry.label,
                game=entry.game,
                params={
                    "playouts": s["facts_playouts"],
                    "max_plies": s["facts_max_plies"],
                    "seed": s["seed"],
                },
            )
        )
        positions = positions_of(config, entry)[: s["calibration_positions"]]
        tasks.append(
            AtlasTask(
                kind="calibrate",
                label=entry.label,
                game=entry.game,
                params={
                    "positions": [list(position.actions) for position in positions],
                    "algorithm": entry.q1_algorithm,
                    **measures.leaf_params(entry.evaluator, entry.rollouts),
                    "budget": entry.q1_nodes,
                    "max_depth": entry.max_depth,
                },
            )
        )
    return tasks


def second_stage(
    config: AtlasConfig, depths: Mapping[str, int]
) -> tuple[list[AtlasTask], list[Skip]]:
    """The measurements that need each row's calibrated depth (`depths`, by label; a row
    without one is left out until its calibration has finished), and the skipped ones."""
    s = config.settings
    tasks: list[AtlasTask] = []
    skips: list[Skip] = []
    for entry in config.games:
        if entry.label not in depths:
            continue
        depth = depths[entry.label]
        positions = positions_of(config, entry)
        for index, position in enumerate(positions):
            for fraction in s["epsilon_fractions"]:
                tasks.append(
                    _task(
                        "q1",
                        entry,
                        index,
                        position,
                        algorithm=entry.q1_algorithm,
                        fraction=fraction,
                        depth=depth,
                        **measures.leaf_params(entry.evaluator, entry.rollouts),
                        nodes=Q1_CAP * entry.q1_nodes,
                    )
                )
        if entry.kind == "n_player":
            skips.append(
                Skip(
                    label=entry.label,
                    kind="openspiel",
                    reason="OpenSpiel's n-player search (C++ MaxNSearch) has no Python binding",
                )
            )
            for index, position in enumerate(positions):
                for pruning in PRUNINGS:
                    tasks.append(
                        _task(
                            "pruning",
                            entry,
                            index,
                            position,
                            pruning=pruning,
                            depth=entry.pruning_depth,
                            **measures.leaf_params(entry.evaluator, entry.rollouts),
                            nodes=s["pruning_nodes"],
                        )
                    )
        else:
            for index, position in enumerate(positions[: s["openspiel_positions"]]):
                tasks.append(
                    _task(
                        "openspiel",
                        entry,
                        index,
                        position,
                        algorithm=entry.q1_algorithm,
                        **measures.leaf_params(entry.evaluator, entry.rollouts),
                        seconds=s["openspiel_seconds"],
                        max_depth=entry.max_depth,
                    )
                )
        if not entry.solve:
            skips.append(
                Skip(
                    label=entry.label,
                    kind="solve",
                    reason="no small variant in the config"
                    if entry.kind == "two_player"
                    else "the solvers take two-player deterministic games",
                )
            )
        solve_tasks, solve_skips = _solving(config, entry)
        tasks += solve_tasks
        skips += solve_skips
    return tasks, skips


def _solving(config: AtlasConfig, entry: GameEntry) -> tuple[list[AtlasTask], list[Skip]]:
    s = config.settings
    tasks, skips = [], []
    for number, solve_set in enumerate(entry.solve):
        game = load_game(solve_set.game)
        reason = outcome_reason(game)
        solvers = [name for name in measures.SOLVERS if not (reason and name == "bounded_pns")]
        tracers = [name for name in measures.TRACERS if not (reason and name == "bounded_pns")]
        if reason:
            skips.append(
                Skip(
                    label=entry.label,
                    kind="solve",
                    reason=f"bounded_pns on {solve_set.game}: {reason}",
                )
            )
        seed = position_seed(s["seed"], solve_set.game, number)
        positions = measures.random_position_list(
            solve_set.game, solve_set.positions, solve_set.plies, seed
        )
        for index, position in enumerate(positions):
            for algorithm in solvers:
                tasks.append(
                    _task(
                        "solve",
                        entry,
                        index,
                        position,
                        algorithm=algorithm,
                        nodes=s["solve_nodes"],
                        set=number,
                    )
                )
            if index < s["trace_positions"]:
                for algorithm in tracers:
                    tasks.append(
                        _task(
                            "trace",
                            entry,
                            index,
                            position,
                            algorithm=algorithm,
                            budgets=list(s["trace_nodes"]),
                            seed=s["seed"],
                            set=number,
                        )
                    )
    return tasks, skips


def _task(kind: str, entry: GameEntry, index: int, position: Position, **params: Any) -> AtlasTask:
    return AtlasTask(
        kind=kind,
        label=entry.label,
        game=position.game,
        index=index,
        actions=position.actions,
        params=params,
    )


def calibrated_depths(config: AtlasConfig, records: Sequence[AtlasRecord]) -> dict[str, int]:
    """The depth of every row whose calibration (as `config` asks for it) has finished."""
    wanted = {task.task_id for task in first_stage(config) if task.kind == "calibrate"}
    return {r.label: int(r.data["depth"]) for r in records if r.task_id in wanted and r.ok}
