"""One sweep task: an algorithm searching one position at one epsilon and budget, and its record.

An algorithm is a registered bot whose search takes an epsilon (`swept_algorithms`). Its search
is called once, through the bot's own `SearchSpec` (`bots.spec`): the same parameters with the
same defaults as the bot, without the bot's move choice or kept tree, and with the limits the
run gives (none: to the end; `task_limits`). Seconds are process time of the task
(`time.process_time`: making the search's evaluator and settings, then the search), so other
processes on the machine do not inflate them; wall time is recorded too. The realised error is
computed by the report, against a reference recorded by other tasks: for the fixed-depth
searches (`bounded_ab`, `bounded_star1`, `bounded_star2`, `paranoid`, `mp_mix`) the epsilon-0
search of the same run and position (the exact depth-limited value); for the searches that run
to prove the root (`babmcts`, `bounded_pns`) the position's exact game value from an `exact`
task (`spiel_bounded.oracles.solve` on synthetic trees and games with chance, proof-number search
or `bounded_ab` to the end on deterministic games; see `exact_value`).
"""

from __future__ import annotations

import hashlib
import json
import time
import traceback
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any, Final

import pyspiel

from spiel_bounded.bots.spec import SearchSpec
from spiel_bounded.evaluators import make_evaluator
from spiel_bounded.experiments.positions import Position
from spiel_bounded.games import GameInfo, game_info, load_game
from spiel_bounded.limits import Limits
from spiel_bounded.oracles import solve
from spiel_bounded.params import checked
from spiel_bounded.registry import get_spec, list_bots
from spiel_bounded.search.alphabeta import bounded_ab
from spiel_bounded.search.outcomes import outcome_reason
from spiel_bounded.search.pns import bounded_pns
from spiel_bounded.synthetic import SHORT_NAME

EXACT: Final = "exact"
"""The pseudo-algorithm of the reference tasks: a position's exact game value."""
EXACT_NODES: Final = 5_000_000
"""Node cap of the searches that find exact values (`exact_value`)."""


def swept_algorithms() -> list[str]:
    """The registered bots whose search the sweep can run: those that take an epsilon."""
    return [
        spec.name
        for spec in list_bots()
        if spec.search is not None and "epsilon" in spec.search.params
    ]


def swept_search(algorithm: str) -> SearchSpec:
    """The search of the registered bot `algorithm`.

    Raises:
        ValueError: `algorithm` is not one of `swept_algorithms` (the message lists them).
    """
    accepted = swept_algorithms()
    if algorithm not in accepted:
        raise ValueError(f"unknown algorithm {algorithm!r}; accepted: {', '.join(accepted)}")
    search = get_spec(algorithm).search
    assert search is not None
    return search


def accepted_params(algorithm: str) -> list[str]:
    """Every parameter a run of `algorithm` accepts (epsilon is swept, not a parameter)."""
    return [name for name in swept_search(algorithm).params if name != "epsilon"]


def task_settings(algorithm: str, params: Mapping[str, Any], epsilon: float) -> dict[str, Any]:
    """Every parameter of a search of `algorithm` at `epsilon` (absolute), defaults filled in
    and checked as the bot checks them.

    Raises:
        ValueError: An unknown parameter or a refused value (the message says which).
    """
    if algorithm == EXACT:
        return {"nodes": EXACT_NODES}
    search = swept_search(algorithm)
    if "epsilon" in params:
        raise ValueError("epsilon is swept ([sweep] epsilon_fractions), not a parameter")
    return checked(search.params, {**params, "epsilon": epsilon}, f"algorithm {algorithm!r}")


def task_limits(settings: Mapping[str, Any]) -> Limits:
    """The limits a task states, a limit it does not give being none: a sweep measures a search
    to the end where its run gives no limit (the bots' `DEFAULT_SECONDS` per move when none is
    given is a rule for playing, not for measuring)."""
    return Limits(**{name: settings.get(name) for name in ("depth", "nodes", "seconds")})


def settings_hash(algorithm: str, settings: Mapping[str, Any]) -> str:
    """Short hash of an algorithm and every one of its parameters (`task_settings`)."""
    text = json.dumps(
        {"algorithm": algorithm, "params": dict(settings)}, sort_keys=True, default=repr
    )
    return hashlib.sha256(text.encode()).hexdigest()[:10]


@dataclass(frozen=True, kw_only=True)
class Task:
    """One search to run.

    Attributes:
        run: The run's label (a config's `[[runs]] label`).
        algorithm: One of `swept_algorithms()`, or `EXACT` for a reference task.
        set: The position set's name.
        index: The position's index in its set.
        position: The position.
        fraction: Epsilon as a fraction of the game's value range.
        settings: Every parameter of the search, epsilon included (`task_settings`).
    """

    run: str
    algorithm: str
    set: str
    index: int
    position: Position
    fraction: float
    settings: Mapping[str, Any]

    @property
    def task_id(self) -> str:
        return f"{self.run}/{self.set}/{self.index}/{self.fraction:g}"

    @property
    def settings_hash(self) -> str:
        return settings_hash(self.algorithm, self.settings)


def make_task(
    *,
    run: str,
    algorithm: str,
    set: str,
    index: int,
    position: Position,
    fraction: float,
    params: Mapping[str, Any],
) -> Task:
    """The task of a run's `params` (the config's, without epsilon) at `fraction` of the game's
    value range: its settings resolved and checked (`task_settings`).

    Raises:
        ValueError: An unknown algorithm or parameter, or a refused value.
    """
    value_range = game_info(load_game(position.game)).value_range
    return Task(
        run=run,
        algorithm=algorithm,
        set=set,
        index=index,
        position=position,
        fraction=fraction,
        settings=task_settings(algorithm, params, fraction * value_range),
    )


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
        settings_hash: `Task.settings_hash` of the task: a record counts for a task only when
            it was made with the task's settings ("" in records written before it existed).
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
    settings_hash: str = ""

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
        "settings_hash": task.settings_hash,
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
        spec = swept_search(task.algorithm)
        result = spec.bind(state.get_game(), task.settings, limits=task_limits(task.settings))(
            state
        )
    except Exception:
        return error_record(
            task,
            traceback.format_exc(),
            seconds=time.process_time() - started,
            wall_seconds=time.perf_counter() - wall,
        )
    stats = result.stats
    if spec.proves:
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
