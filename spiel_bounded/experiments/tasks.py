"""One sweep task: an algorithm searching one position at one epsilon and budget, and its record.

The searches are called directly (not through bots). Seconds are process time of the search
call (`time.process_time`), so other processes on the machine do not inflate them; wall time is
recorded too. The realised error is computed by the report, against a reference recorded by
other tasks: for the fixed-depth searches (`bounded_ab`, `bounded_star1`, `bounded_star2`,
`paranoid`) the epsilon-0 search of the same run and position (the exact depth-limited value);
for the searches that run to prove the root (`babmcts`, `bounded_pns`) the position's exact game
value from an `exact` task (`spiel_bounded.oracles.solve` on synthetic trees and games with
chance, proof-number search or `bounded_ab` to the end on deterministic games; see `exact_value`).
"""

from __future__ import annotations

import json
import time
import traceback
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Final

import pyspiel

from spiel_bounded.evaluators import make_evaluator
from spiel_bounded.experiments.positions import Position
from spiel_bounded.games import (
    TWO_PLAYER_ZERO_SUM,
    TWO_PLAYER_ZERO_SUM_CHANCE,
    GameInfo,
    Requirements,
    game_info,
    load_game,
)
from spiel_bounded.limits import Limits
from spiel_bounded.oracles import solve
from spiel_bounded.result import SearchResult
from spiel_bounded.search.alphabeta import (
    PARANOID_GAMES,
    AlphaBetaSettings,
    bounded_ab,
    bounded_star1,
    bounded_star2,
    paranoid,
)
from spiel_bounded.search.babmcts import babmcts
from spiel_bounded.search.mcts_base import BABMCTSSettings
from spiel_bounded.search.pns import BoundedPNSSettings, bounded_pns, outcome_reason
from spiel_bounded.synthetic import SHORT_NAME

EXACT: Final = "exact"
"""The pseudo-algorithm of the reference tasks: a position's exact game value."""
EXACT_NODES: Final = 5_000_000
"""Node cap of the searches that find exact values (`exact_value`)."""


@dataclass(frozen=True, kw_only=True)
class Algorithm:
    """What the sweep knows of a search.

    Attributes:
        settings: Its settings dataclass (`epsilon` is set by the sweep).
        proves: True when it runs to prove the root (its reference is the exact game value);
            False for a fixed-depth search (its reference is its own epsilon-0 search).
        evaluator: It takes a leaf evaluator (parameter `evaluator`, default "heuristic").
        requirements: The games it can search.
        extra: Parameters besides the settings, limits and evaluator, with their defaults.
        refuse: Why it cannot search a game its requirements allow ("" when it can).
    """

    settings: type
    proves: bool
    requirements: Requirements
    evaluator: bool = True
    extra: Mapping[str, Any] = field(default_factory=dict)
    refuse: Callable[[pyspiel.Game], str] = lambda game: ""


ALGORITHMS: Final[Mapping[str, Algorithm]] = {
    "bounded_ab": Algorithm(
        settings=AlphaBetaSettings, proves=False, requirements=TWO_PLAYER_ZERO_SUM
    ),
    "bounded_star1": Algorithm(
        settings=AlphaBetaSettings, proves=False, requirements=TWO_PLAYER_ZERO_SUM_CHANCE
    ),
    "bounded_star2": Algorithm(
        settings=AlphaBetaSettings, proves=False, requirements=TWO_PLAYER_ZERO_SUM_CHANCE
    ),
    "paranoid": Algorithm(
        settings=AlphaBetaSettings,
        proves=False,
        requirements=PARANOID_GAMES,
        extra={"probing": True},
    ),
    "babmcts": Algorithm(
        settings=BABMCTSSettings,
        proves=True,
        requirements=TWO_PLAYER_ZERO_SUM_CHANCE,
        extra={"seed": 0},
    ),
    "bounded_pns": Algorithm(
        settings=BoundedPNSSettings,
        proves=True,
        requirements=TWO_PLAYER_ZERO_SUM,
        evaluator=False,
        refuse=outcome_reason,
    ),
}
"""The swept algorithms, by name."""

LIMIT_PARAMS: Final = tuple(f.name for f in fields(Limits))


def accepted_params(algorithm: str) -> list[str]:
    """Every parameter a run of `algorithm` accepts (epsilon is swept, not a parameter)."""
    spec = ALGORITHMS[algorithm]
    names = [f.name for f in fields(spec.settings) if f.name != "epsilon"]
    names += list(LIMIT_PARAMS) + list(spec.extra)
    if spec.evaluator:
        names.append("evaluator")
    return sorted(names)


@dataclass(frozen=True, kw_only=True)
class Task:
    """One search to run.

    Attributes:
        run: The run's label (a config's `[[runs]] label`).
        algorithm: A name of `ALGORITHMS`, or `EXACT` for a reference task.
        set: The position set's name.
        index: The position's index in its set.
        position: The position.
        fraction: Epsilon as a fraction of the game's value range.
        params: The run's parameters for this set (limits, settings, evaluator, ...).
    """

    run: str
    algorithm: str
    set: str
    index: int
    position: Position
    fraction: float
    params: Mapping[str, Any]

    @property
    def task_id(self) -> str:
        return f"{self.run}/{self.set}/{self.index}/{self.fraction:g}"


@dataclass(frozen=True, kw_only=True)
class TaskRecord:
    """What one task measured (one line of records.jsonl).

    Attributes:
        task_id, run, algorithm, set, index, fraction: As in `Task`.
        game: The position's game string.
        epsilon: Absolute epsilon (fraction times the value range), in the game's units.
        value_range: max_utility - min_utility of the game.
        nodes: Nodes the search visited (`SearchStats.nodes`).
        evaluations: Evaluator calls at non-terminal leaves.
        seconds: Process time of the search call.
        wall_seconds: Wall-clock time of the search call.
        depth: Deepest completed iteration (MCTS: longest simulation path).
        stopped_by: `SearchStats.stopped_by`.
        lower: Lower bound on the root value for the player to move.
        upper: Upper bound on it.
        action: The search's move.
        proved: The search completed what it was asked (the fixed depth, or proving the root
            within epsilon), so `[lower, upper]` is at most epsilon wide.
        error: The traceback when the search raised ("" otherwise); such a task is run again
            on resume.
    """

    task_id: str
    run: str
    algorithm: str
    set: str
    index: int
    fraction: float
    game: str
    epsilon: float
    value_range: float
    nodes: int
    evaluations: int
    seconds: float
    wall_seconds: float
    depth: int
    stopped_by: str
    lower: float
    upper: float
    action: int
    proved: bool
    error: str = ""

    @property
    def ok(self) -> bool:
        return not self.error

    def to_line(self) -> str:
        return json.dumps(asdict(self), sort_keys=True) + "\n"

    @classmethod
    def from_line(cls, line: str) -> TaskRecord:
        data = json.loads(line)
        names = {f.name for f in fields(cls)}
        return cls(**{key: value for key, value in data.items() if key in names})


Search = Callable[[pyspiel.State, Limits, float, Mapping[str, Any]], SearchResult]


def _alphabeta(search: Callable[..., SearchResult]) -> Search:
    def run(
        state: pyspiel.State, limits: Limits, epsilon: float, params: Mapping[str, Any]
    ) -> SearchResult:
        settings = settings_of(AlphaBetaSettings, params, epsilon)
        evaluator = make_evaluator(params.get("evaluator", "heuristic"), state.get_game())
        return search(state, evaluator=evaluator, limits=limits, settings=settings)

    return run


def _paranoid(
    state: pyspiel.State, limits: Limits, epsilon: float, params: Mapping[str, Any]
) -> SearchResult:
    settings = settings_of(AlphaBetaSettings, params, epsilon)
    evaluator = make_evaluator(params.get("evaluator", "heuristic"), state.get_game())
    return paranoid(
        state,
        evaluator=evaluator,
        limits=limits,
        settings=settings,
        probing=bool(params.get("probing", True)),
    )


def _babmcts(
    state: pyspiel.State, limits: Limits, epsilon: float, params: Mapping[str, Any]
) -> SearchResult:
    settings = settings_of(BABMCTSSettings, params, epsilon)
    evaluator = make_evaluator(params.get("evaluator", "heuristic"), state.get_game())
    return babmcts(
        state, evaluator=evaluator, limits=limits, settings=settings, rng=params.get("seed", 0)
    )


def _bounded_pns(
    state: pyspiel.State, limits: Limits, epsilon: float, params: Mapping[str, Any]
) -> SearchResult:
    return bounded_pns(
        state, limits=limits, settings=settings_of(BoundedPNSSettings, params, epsilon)
    )


_SEARCHES: Final[Mapping[str, Search]] = {
    "bounded_ab": _alphabeta(bounded_ab),
    "bounded_star1": _alphabeta(bounded_star1),
    "bounded_star2": _alphabeta(bounded_star2),
    "paranoid": _paranoid,
    "babmcts": _babmcts,
    "bounded_pns": _bounded_pns,
}


def settings_of(settings_type: type, params: Mapping[str, Any], epsilon: float) -> Any:
    names = {f.name for f in fields(settings_type)}
    return settings_type(**{k: v for k, v in params.items() if k in names}, epsilon=epsilon)


def limits_of(params: Mapping[str, Any]) -> Limits:
    return Limits(**{name: params[name] for name in LIMIT_PARAMS if name in params})


def exact_value(state: pyspiel.State) -> float:
    """The exact game value of `state` for the player to move.

    Brute force (`oracles.solve`) on synthetic trees and games with chance; on two-player
    deterministic games proof-number search (`bounded_pns` at epsilon 0, up to `EXACT_NODES`
    nodes) where the game's terminal values are known, else `bounded_ab` to the end.

    Raises:
        RuntimeError: The search did not solve the position within `EXACT_NODES` nodes.
    """
    game = state.get_game()
    player = state.current_player()
    if game.get_type().short_name == SHORT_NAME or game_info(game).has_chance:
        return float(solve(state)[player])
    limits = Limits(nodes=EXACT_NODES)
    if not outcome_reason(game):
        result = bounded_pns(state, limits=limits)
    else:
        result = bounded_ab(state, evaluator=make_evaluator("zero", game), limits=limits)
    if result.stats.stopped_by != "solved" or result.lower != result.upper:
        raise RuntimeError(f"not solved within {EXACT_NODES:,} nodes: {result.stats}")
    return result.lower


def _identity(task: Task, info: GameInfo) -> dict[str, Any]:
    """The fields of a task's record that say which task it is."""
    return {
        "task_id": task.task_id,
        "run": task.run,
        "algorithm": task.algorithm,
        "set": task.set,
        "index": task.index,
        "fraction": task.fraction,
        "game": task.position.game,
        "epsilon": task.fraction * info.value_range,
        "value_range": info.value_range,
    }


def error_record(
    task: Task, error: str, *, seconds: float = 0.0, wall_seconds: float = 0.0
) -> TaskRecord:
    """The record of a task that did not finish: its search raised, or its worker died or
    could not run it (`error` says what happened); run again on resume."""
    info = game_info(load_game(task.position.game))
    return TaskRecord(
        **_identity(task, info),
        seconds=seconds,
        wall_seconds=wall_seconds,
        nodes=0,
        evaluations=0,
        depth=0,
        action=-1,
        stopped_by="",
        lower=info.min_utility,
        upper=info.max_utility,
        proved=False,
        error=error,
    )


def run_task(task: Task) -> TaskRecord:
    """Runs `task` and returns its record; an exception becomes a record with `error` set."""
    state = task.position.state()
    info = game_info(load_game(task.position.game))
    epsilon = task.fraction * info.value_range
    base = _identity(task, info)
    started, wall = time.process_time(), time.perf_counter()

    def record(**measured: Any) -> TaskRecord:
        return TaskRecord(
            **base,
            seconds=time.process_time() - started,
            wall_seconds=time.perf_counter() - wall,
            **measured,
        )

    no_search: dict[str, Any] = {"nodes": 0, "evaluations": 0, "depth": 0, "action": -1}
    try:
        if task.algorithm == EXACT:
            value = exact_value(state)
            return record(**no_search, stopped_by="solved", lower=value, upper=value, proved=True)
        result = _SEARCHES[task.algorithm](state, limits_of(task.params), epsilon, task.params)
    except Exception:
        return error_record(
            task,
            traceback.format_exc(),
            seconds=time.process_time() - started,
            wall_seconds=time.perf_counter() - wall,
        )
    stats = result.stats
    if ALGORITHMS[task.algorithm].proves:
        proved = stats.stopped_by == "solved"
    else:
        proved = stats.stopped_by in ("depth", "solved") and stats.depth > 0
    return record(
        nodes=int(stats.nodes or 0),
        evaluations=stats.evaluations,
        depth=stats.depth,
        stopped_by=stats.stopped_by,
        lower=result.lower,
        upper=result.upper,
        action=result.action,
        proved=proved,
    )
