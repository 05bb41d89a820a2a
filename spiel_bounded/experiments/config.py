"""Sweep configuration: a TOML file (`configs/epsilon_sweep.toml`), validated before anything runs.

Its sections are `[sweep]` (the epsilons, `SweepSettings`), `[run]` (`runs.settings.RunSettings`,
as every job's), one `[[sets]]` table per position set (`positions.PositionSet`) and one
`[[runs]]` table per algorithm over sets at one budget (`RunSpec`). Each key is declared once on
those types (`params.setting`) and read by the declarations; the manual's config reference is
generated from them. Every error names the file, the key and what is accepted.
"""

from __future__ import annotations

import hashlib
import json
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
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
from spiel_bounded.params import NAME, OneOf, Text, read_table, required_setting, setting
from spiel_bounded.registry import get_spec
from spiel_bounded.runs.settings import RunSettings, read_run_section

QUESTIONS: Final = ("Q1", "Q5")


@dataclass(frozen=True)
class EpsilonFractions:
    """Accepts the epsilons of a sweep or the atlas: distinct fractions of the game's value range
    in [0, 1), 0 (the reference of savings and errors) among them; returned as floats."""

    accepted: str = (
        "a non-empty list of distinct fractions of the value range in [0, 1), 0 included"
    )

    def __call__(self, value: Any) -> tuple[float, ...]:
        if not isinstance(value, list | tuple) or not value:
            raise ValueError(f"must be {self.accepted}; got {value!r}")
        for item in value:
            if isinstance(item, bool) or not isinstance(item, int | float) or not 0 <= item < 1:
                raise ValueError(
                    "every epsilon is a fraction of the game's value range, in [0, 1) (the whole "
                    f"range proves nothing, and the searches refuse it); got {item!r}"
                )
        if 0 not in value:
            raise ValueError(
                "must include 0: the epsilon-0 search is the reference of savings and errors, so "
                "the list must hold 0"
            )
        if len(set(value)) != len(value):
            raise ValueError(
                f"repeated values in {list(value)}: each epsilon must hold no value twice"
            )
        return tuple(float(item) for item in value)


@dataclass(frozen=True)
class _Strings:
    item: Any
    accepted: str

    def __call__(self, value: Any) -> tuple[str, ...]:
        if not isinstance(value, list | tuple) or not value:
            raise ValueError(f"must be {self.accepted}, got {value!r}")
        for item in value:
            self.item(item)
        return tuple(value)


@dataclass(frozen=True)
class _Table:
    accepted: str = "a table"

    def __call__(self, value: Any) -> Mapping[str, Any]:
        if not isinstance(value, Mapping):
            raise ValueError(f"must be {self.accepted}, got {value!r}")
        return value


_NAMES: Final = _Strings(NAME, "a non-empty list of set names")
_QUESTIONS: Final = _Strings(OneOf(QUESTIONS), f"a non-empty list of {', '.join(QUESTIONS)}")
_TABLE: Final = _Table()


@dataclass(frozen=True, kw_only=True)
class SweepSettings:
    """The `[sweep]` section: the epsilons and where the position sets go."""

    epsilon_fractions: tuple[float, ...] = required_setting(
        "epsilons as fractions of each game's value range, in [0, 1); 0, the reference, included",
        EpsilonFractions(),
    )
    positions_directory: str = setting(
        "results/experiments/positions", "where the position sets' JSON files are written", Text()
    )


class SweepConfigError(ValueError):
    """A sweep config that cannot be run; the message names the file, key and what is accepted."""


@dataclass(frozen=True, kw_only=True)
class RunSpec:
    """One `[[runs]]` table: an algorithm over position sets at one budget."""

    label: str = required_setting("its name in the records and tables, unique in the config", NAME)
    algorithm: str = required_setting(
        "a registered bot whose search takes an epsilon (`tasks.swept_algorithms`)", Text()
    )
    sets: tuple[str, ...] = required_setting("names of the position sets it searches", _NAMES)
    questions: tuple[str, ...] = setting(
        ("Q1",), "the report sections it feeds: Q1 (savings), Q5 (effective branching)", _QUESTIONS
    )
    params: Mapping[str, Any] = setting(
        {}, "the bot's parameters but epsilon, for every set (`tasks.accepted_params`)", _TABLE
    )
    per_set: Mapping[str, Mapping[str, Any]] = setting(
        {}, "set name -> parameters that override params for that set", _TABLE
    )

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


_SECTIONS: Final[dict[str, type]] = {
    "sweep": SweepSettings,
    "run": RunSettings,
    "sets": PositionSet,
    "runs": RunSpec,
}
"""Each section's settings type, which declares its keys (`params.setting`)."""


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

    def table_of(where: str, table: Any, kind: type) -> dict[str, Any]:
        return read_table(table, kind, lambda key, message: fail(f"{where} {key}".strip(), message))

    unknown = sorted(set(raw) - set(_SECTIONS))
    if unknown:
        raise fail(f"[{unknown[0]}]", f"unknown section; accepted: {', '.join(_SECTIONS)}")
    for section in _SECTIONS:
        if section not in raw:
            raise fail(f"[{section}]", "missing section")
    for section in ("sets", "runs"):
        if not isinstance(raw[section], list):
            raise fail(f"[[{section}]]", "must be tables: [[sets]] and [[runs]]")
    sweep = SweepSettings(**table_of("[sweep]", raw["sweep"], SweepSettings))

    sets: dict[str, PositionSet] = {}
    for i, table in enumerate(raw["sets"]):
        values = table_of(f"[[sets]] #{i + 1}", table, PositionSet)
        name = values["name"]
        if name in sets:
            raise fail(f"[[sets]] #{i + 1} name", f"must be unique; {name!r} is taken")
        try:
            load_game(values["game"])
        except ValueError as error:
            raise fail(f"[[sets]] {name} game", str(error)) from None
        sets[name] = PositionSet(**values)

    runs: list[RunSpec] = []
    for i, table in enumerate(raw["runs"]):
        spec = RunSpec(**table_of(f"[[runs]] #{i + 1}", table, RunSpec))
        where = f"[[runs]] {spec.label}"
        if spec.label == EXACT or spec.label in {r.label for r in runs}:
            raise fail(f"{where} label", f"must be unique and not {EXACT!r}")
        if spec.algorithm not in swept_algorithms():
            raise fail(
                f"{where} algorithm",
                f"unknown algorithm {spec.algorithm!r}; accepted: {', '.join(swept_algorithms())}",
            )
        for name in spec.sets:
            if name not in sets:
                raise fail(f"{where} sets", f"unknown set {name!r}; accepted: {', '.join(sets)}")
        for name in spec.per_set:
            if name not in spec.sets:
                raise fail(
                    f"{where} per_set", f"{name!r} is not one of the run's sets ({list(spec.sets)})"
                )
        for name in spec.sets:
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
        fractions=sweep.epsilon_fractions,
        positions_directory=sweep.positions_directory,
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
