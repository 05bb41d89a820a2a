"""Sweep configuration: a TOML file (`configs/epsilon_sweep.toml`), validated before anything runs.

    [sweep]
    epsilon_fractions = [0.0, 0.01, 0.05, 0.1, 0.2]   # of each game's value range; 0 required
    positions_directory = "results/experiments/positions"

    [run]                      # how it runs: `runs.settings.RunSettings`, as every job's
    output = "results/experiments/sweep"

    [[sets]]                   # a seeded position set (see `positions.PositionSet`)
    name = "connect_four"
    game = "connect_four"
    seed = 1
    plies = 6
    count = 15

    [[runs]]                   # an algorithm over sets, at one budget
    label = "bounded_ab"
    algorithm = "bounded_ab"
    sets = ["connect_four"]
    questions = ["Q1"]         # which tables of the report it feeds: Q1 and/or Q5
    params = { depth = 9 }     # the bot's parameters but epsilon (`tasks.accepted_params`)
    per_set = { connect_four = { depth = 8 } }

Every error names the file, the key and what is accepted.
"""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from spiel_bounded.bots.spec import evaluator_from
from spiel_bounded.experiments.positions import PositionSet
from spiel_bounded.experiments.tasks import (
    EXACT,
    Task,
    accepted_params,
    make_task,
    swept_algorithms,
    swept_search,
    task_settings,
)
from spiel_bounded.games import game_info, load_game
from spiel_bounded.params import declared
from spiel_bounded.registry import get_spec
from spiel_bounded.runs.settings import RunSettings, read_run_section

QUESTIONS: Final = ("Q1", "Q5")
_NAME = re.compile(r"^[A-Za-z0-9_.-]+$")
_SECTIONS: Final = {
    "sweep": ("epsilon_fractions", "positions_directory"),
    "run": tuple(declared(RunSettings)),
    "sets": ("name", "game", "seed", "plies", "count"),
    "runs": ("label", "algorithm", "sets", "questions", "params", "per_set"),
}


class SweepConfigError(ValueError):
    """A sweep config that cannot be run; the message names the file, key and what is accepted."""


@dataclass(frozen=True, kw_only=True)
class RunSpec:
    """One `[[runs]]` table: an algorithm over position sets at one budget.

    Attributes:
        label: Its name in the records and tables.
        algorithm: A registered bot whose search takes an epsilon (`tasks.swept_algorithms`).
        sets: Names of the position sets it searches.
        questions: The report sections it feeds ("Q1": savings; "Q5": effective branching).
        params: Parameters for every set (limits, settings fields, evaluator, ...).
        per_set: Parameters that override `params` for one set.
    """

    label: str
    algorithm: str
    sets: tuple[str, ...]
    questions: tuple[str, ...] = ("Q1",)
    params: Mapping[str, Any] = field(default_factory=dict)
    per_set: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def params_for(self, set_name: str) -> dict[str, Any]:
        return {**self.params, **self.per_set.get(set_name, {})}


@dataclass(frozen=True, kw_only=True)
class SweepConfig:
    """A validated sweep config.

    Attributes:
        source: The file it was read from.
        text: The file's text.
        fractions: Epsilons as fractions of each game's value range (0 first).
        positions_directory: Where the position sets' JSON files are written.
        sets: The position sets.
        runs: The runs.
        run: How it runs (`runs.settings.RunSettings`, every job's `[run]` section; not part of
            the fingerprint).
    """

    source: str
    text: str
    fractions: tuple[float, ...]
    positions_directory: str
    sets: tuple[PositionSet, ...]
    runs: tuple[RunSpec, ...]
    run: RunSettings

    def canonical(self) -> dict[str, Any]:
        """What the results depend on: the epsilons, the sets and the runs."""
        return {
            "epsilon_fractions": list(self.fractions),
            "sets": [position_set.__dict__ for position_set in self.sets],
            "runs": [
                {
                    "label": spec.label,
                    "algorithm": spec.algorithm,
                    "sets": list(spec.sets),
                    "params": {name: spec.params_for(name) for name in spec.sets},
                }
                for spec in self.runs
            ],
        }

    def fingerprint(self) -> str:
        text = json.dumps(self.canonical(), sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def tasks(self) -> list[Task]:
        """Every task: first the exact values the proving runs need, then each run's set,
        position and epsilon in config order."""
        positions = {s.name: s.materialise() for s in self.sets}
        tasks = []
        exact_sets = sorted(
            {
                name
                for spec in self.runs
                if swept_search(spec.algorithm).proves
                for name in spec.sets
            }
        )
        for name in exact_sets:
            for index, position in enumerate(positions[name]):
                tasks.append(
                    make_task(
                        run=EXACT,
                        algorithm=EXACT,
                        set=name,
                        index=index,
                        position=position,
                        fraction=0.0,
                        params={},
                    )
                )
        for spec in self.runs:
            for name in spec.sets:
                params = spec.params_for(name)
                for index, position in enumerate(positions[name]):
                    for fraction in self.fractions:
                        tasks.append(
                            make_task(
                                run=spec.label,
                                algorithm=spec.algorithm,
                                set=name,
                                index=index,
                                position=position,
                                fraction=fraction,
                                params=params,
                            )
                        )
        return tasks


def load_sweep_config(
    path: str | Path, *, overrides: Mapping[str, Any] | None = None
) -> SweepConfig:
    """Reads and validates a sweep config.

    Args:
        path: The TOML file.
        overrides: Values for the `[run]` keys (None values are ignored), e.g. from flags.

    Raises:
        SweepConfigError: The file cannot be read or is invalid; the message says what is
            accepted.
    """
    source = str(path)
    try:
        text = Path(path).read_text()
    except OSError as error:
        raise SweepConfigError(f"{source}: cannot read the config ({error.strerror})") from None
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise SweepConfigError(f"{source}: not valid TOML: {error}") from None
    return parse_sweep_config(raw, source=source, text=text, overrides=overrides)


def parse_sweep_config(
    raw: Mapping[str, Any],
    *,
    source: str = "<config>",
    text: str = "",
    overrides: Mapping[str, Any] | None = None,
) -> SweepConfig:
    """Validates an already parsed config (see `load_sweep_config`)."""

    def fail(where: str, message: str) -> SweepConfigError:
        return SweepConfigError(f"{source}: {where}: {message}")

    unknown = sorted(set(raw) - set(_SECTIONS))
    if unknown:
        raise fail(f"[{unknown[0]}]", f"unknown section; accepted: {', '.join(_SECTIONS)}")
    for section in ("sweep", "run", "sets", "runs"):
        if section not in raw:
            raise fail(f"[{section}]", "missing section")
    for section, keys in _SECTIONS.items():
        tables = raw[section] if isinstance(raw[section], list) else [raw[section]]
        for table in tables:
            if not isinstance(table, dict):
                raise fail(f"[{section}]", "must be a table (or [[tables]] for sets and runs)")
            extra = sorted(set(table) - set(keys))
            if extra:
                raise fail(f"[{section}] {extra[0]}", f"unknown key; accepted: {', '.join(keys)}")

    sweep = raw["sweep"]
    fractions = sweep.get("epsilon_fractions")
    if not isinstance(fractions, list) or not fractions:
        raise fail("[sweep] epsilon_fractions", "must be a non-empty list of numbers in [0, 1)")
    for value in fractions:
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value < 1:
            raise fail(
                "[sweep] epsilon_fractions",
                f"every epsilon is a fraction of the game's value range, in [0, 1) (the whole "
                f"range proves nothing, and the searches refuse it); got {value!r}",
            )
    if 0 not in fractions:
        raise fail(
            "[sweep] epsilon_fractions",
            "must include 0: the epsilon-0 search is the reference for savings and errors",
        )
    if len(set(fractions)) != len(fractions):
        raise fail("[sweep] epsilon_fractions", f"repeated values in {fractions}")
    positions_directory = _string(
        sweep.get("positions_directory", "results/experiments/positions"),
        fail,
        "[sweep] positions_directory",
    )

    sets: dict[str, PositionSet] = {}
    for i, table in enumerate(raw["sets"]):
        where = f"[[sets]] #{i + 1}"
        name = _string(table.get("name"), fail, f"{where} name")
        if not _NAME.match(name) or name in sets:
            raise fail(
                f"{where} name",
                f"must be unique and use only letters, digits, '_', '-', '.'; got {name!r}",
            )
        game_string = _string(table.get("game"), fail, f"[[sets]] {name} game")
        try:
            load_game(game_string)
        except ValueError as error:
            raise fail(f"[[sets]] {name} game", str(error)) from None
        sets[name] = PositionSet(
            name=name,
            game=game_string,
            seed=_integer(table.get("seed", 0), fail, f"[[sets]] {name} seed", None),
            plies=_integer(table.get("plies", 0), fail, f"[[sets]] {name} plies", 0),
            count=_integer(table.get("count"), fail, f"[[sets]] {name} count", 1),
        )

    runs: list[RunSpec] = []
    for i, table in enumerate(raw["runs"]):
        label = _string(table.get("label"), fail, f"[[runs]] #{i + 1} label")
        where = f"[[runs]] {label}"
        if not _NAME.match(label) or label == EXACT or label in {r.label for r in runs}:
            raise fail(
                f"{where} label",
                f"must be unique, not {EXACT!r}, and use only letters, digits, '_', '-', '.'",
            )
        algorithm = table.get("algorithm")
        if algorithm not in swept_algorithms():
            raise fail(
                f"{where} algorithm",
                f"unknown algorithm {algorithm!r}; accepted: {', '.join(swept_algorithms())}",
            )
        names = table.get("sets")
        if not isinstance(names, list) or not names:
            raise fail(f"{where} sets", "must be a non-empty list of set names")
        for name in names:
            if name not in sets:
                raise fail(f"{where} sets", f"unknown set {name!r}; accepted: {', '.join(sets)}")
        questions = table.get("questions", ["Q1"])
        if not isinstance(questions, list) or not set(questions) <= set(QUESTIONS):
            raise fail(f"{where} questions", f"a list of {', '.join(QUESTIONS)}; got {questions!r}")
        params = table.get("params", {})
        per_set = table.get("per_set", {})
        if not isinstance(params, dict) or not isinstance(per_set, dict):
            raise fail(where, "params and per_set must be tables")
        for name in per_set:
            if name not in names:
                raise fail(f"{where} per_set", f"{name!r} is not one of the run's sets ({names})")
        spec = RunSpec(
            label=label,
            algorithm=algorithm,
            sets=tuple(names),
            questions=tuple(questions),
            params=params,
            per_set=per_set,
        )
        for name in names:
            _check_run_on_set(spec, sets[name], fail)
        runs.append(spec)

    run = read_run_section(
        raw["run"],
        lambda key, message: fail(f"[run] {key}".strip(), message),
        overrides=overrides,
    )
    return SweepConfig(
        source=source,
        text=text,
        fractions=tuple(float(value) for value in fractions),
        positions_directory=positions_directory,
        sets=tuple(sets.values()),
        runs=tuple(runs),
        run=run,
    )


def _check_run_on_set(spec: RunSpec, position_set: PositionSet, fail: Any) -> None:
    """Refuses a game the algorithm cannot search, unknown parameters and invalid values."""
    where = f"[[runs]] {spec.label}"
    game = load_game(position_set.game_string(0))
    reasons = get_spec(spec.algorithm).reasons_against(game_info(game))
    if reasons:
        raise fail(
            f"{where} sets",
            f"{spec.algorithm} cannot search set {position_set.name!r} "
            f"({position_set.game}): {'; '.join(reasons)}",
        )
    params = spec.params_for(position_set.name)
    accepted = accepted_params(spec.algorithm)
    for name in params:
        if name not in accepted:
            raise fail(
                f"{where} params {name}",
                f"unknown parameter for {spec.algorithm}; accepted: {', '.join(accepted)}",
            )
    search = swept_search(spec.algorithm)
    try:
        settings = task_settings(spec.algorithm, params, 0.0)
        if search.evaluator:
            evaluator_from(game, settings, auto=search.auto_evaluator)
    except (ValueError, TypeError) as error:
        raise fail(f"{where} on set {position_set.name}", str(error)) from None


def _string(value: Any, fail: Any, where: str) -> str:
    if not isinstance(value, str) or not value:
        raise fail(where, f"must be a non-empty string; got {value!r}")
    return value


def _integer(value: Any, fail: Any, where: str, minimum: int | None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise fail(where, f"must be an integer; got {value!r}")
    if minimum is not None and value < minimum:
        raise fail(where, f"must be an integer >= {minimum}; got {value!r}")
    return value
