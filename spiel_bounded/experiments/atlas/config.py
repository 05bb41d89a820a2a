"""The atlas config: a TOML file (`configs/atlas.toml`), validated before anything runs.

    [atlas]                        # `AtlasSettings`: every key declared there, with its default
    q1_nodes = 20000

    [run]                          # how it runs: `runs.settings.RunSettings`, as every job's
    output = "results/atlas/run"

    [[games]]                      # one row of the atlas
    game = "hex"                   # an OpenSpiel game string
    label = "hex"                  # optional: the row's name (default: the game string)
    note = ""                      # optional: e.g. why a smaller variant than the default
    evaluator = "heuristic"        # optional: default heuristic where there is one, else
                                   #   seeded_rollout (deterministic per state)
    rollouts = 8                   # optional, seeded_rollout only: playouts averaged per leaf
    plies = [4, 16]                # optional overrides of [atlas] keys for this game:
    max_depth = 8                  #   plies, positions, max_depth, q1_nodes, pruning_depth
    solve = [{ game = "hex(board_size=3)", plies = [0, 3], positions = 4 }]

Every error names the file, the key and what is accepted.
"""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from spiel_bounded.evaluators import EVALUATOR_NAMES, has_heuristic
from spiel_bounded.experiments.atlas.measures import random_position_list
from spiel_bounded.experiments.config import EpsilonFractions
from spiel_bounded.games import game_info, load_game
from spiel_bounded.params import POSITIVE, SEED, Number, read_table, setting
from spiel_bounded.runs.settings import RunSettings, read_run_section

_NAME = re.compile(r"^[A-Za-z0-9_.=(),-]+$")


@dataclass(frozen=True)
class _Plies:
    accepted: str = "[low, high] with 0 <= low <= high"

    def __call__(self, value: Any) -> tuple[int, int]:
        if (
            not isinstance(value, list | tuple)
            or len(value) != 2
            or any(isinstance(v, bool) or not isinstance(v, int) or v < 0 for v in value)
            or value[0] > value[1]
        ):
            raise ValueError(f"must be {self.accepted}; got {value!r}")
        return (int(value[0]), int(value[1]))


@dataclass(frozen=True)
class _Budgets:
    accepted: str = "increasing positive integers"

    def __call__(self, value: Any) -> list[int]:
        if (
            not isinstance(value, list)
            or not value
            or any(isinstance(v, bool) or not isinstance(v, int) or v < 1 for v in value)
            or value != sorted(set(value))
        ):
            raise ValueError(f"must be {self.accepted}; got {value!r}")
        return value


@dataclass(frozen=True)
class _ArenaConfigs:
    accepted: str = "a list of arena config paths"

    def __call__(self, value: Any) -> list[str]:
        if not isinstance(value, list) or not all(isinstance(t, str) for t in value):
            raise ValueError(f"must be {self.accepted}")
        for path in value:
            if not Path(path).is_file():
                raise ValueError(f"no such arena config: {path!r}")
        return value


_COUNT: Final = Number(minimum=1, integer=True)
_PLIES: Final = _Plies()


@dataclass(frozen=True, kw_only=True)
class AtlasSettings:
    """The `[atlas]` section: what every row is measured with (its fingerprint)."""

    seed: int = setting(2026, "seed of the positions and playouts", SEED)
    positions: int = setting(6, "seeded positions per game (Q1)", _COUNT)
    plies: tuple[int, int] = setting(
        (4, 16), "random decision plies before each position, [low, high]", _PLIES
    )
    epsilon_fractions: tuple[float, ...] = setting(
        (0.0, 0.05, 0.1, 0.2),
        "epsilons as fractions of each game's value range",
        EpsilonFractions(),
    )
    q1_nodes: int = setting(
        20_000, "the epsilon-0 node budget that picks each game's depth", _COUNT
    )
    max_depth: int = setting(12, "the deepest depth calibrated", _COUNT)
    calibration_positions: int = setting(3, "positions the depth is calibrated on", _COUNT)
    facts_playouts: int = setting(30, "random playouts for a game's facts", _COUNT)
    facts_max_plies: int = setting(2000, "plies a facts playout stops at", _COUNT)
    openspiel_positions: int = setting(3, "positions compared with OpenSpiel's search", _COUNT)
    openspiel_seconds: float = setting(
        1.0, "OpenSpiel's deepest depth: the first over this many seconds", POSITIVE
    )
    solve_nodes: int = setting(200_000, "node budget of each solver on a small variant", _COUNT)
    trace_nodes: list[int] = setting(
        [300, 1000, 3000, 10_000, 30_000, 100_000],
        "node budgets at which the proven root interval is traced",
        _Budgets(),
    )
    trace_positions: int = setting(2, "positions whose interval is traced", _COUNT)
    pruning_depth: int = setting(3, "depth of the max^n pruning comparison", _COUNT)
    pruning_nodes: int = setting(2_000_000, "node budget of the max^n pruning comparison", _COUNT)
    tournaments: list[str] = setting(
        [], "arena configs run after the measurements", _ArenaConfigs()
    )


GAME_OVERRIDES: Final = ("plies", "positions", "max_depth", "q1_nodes", "pruning_depth")
GAME_KEYS: Final = ("game", "label", "note", "evaluator", "rollouts", "solve", *GAME_OVERRIDES)
SOLVE_KEYS: Final = ("game", "plies", "positions")


class AtlasConfigError(ValueError):
    """An atlas config that cannot be run; the message names the file, key and what is
    accepted."""


@dataclass(frozen=True, kw_only=True)
class SolveSet:
    """Positions of a small variant that the solvers run to the end.

    Attributes:
        game: The variant's game string.
        plies: Random decision plies before each position (inclusive range; (0, 0): the start).
        positions: How many positions.
    """

    game: str
    plies: tuple[int, int] = (0, 0)
    positions: int = 4


@dataclass(frozen=True, kw_only=True)
class GameEntry:
    """One row of the atlas.

    Attributes:
        label: The row's name.
        game: The OpenSpiel game string.
        kind: "two_player" (deterministic), "chance" (two players with chance) or "n_player".
        note: Said beside the row (e.g. why a smaller variant than the default).
        evaluator: The leaf evaluator of every depth-limited search.
        rollouts: Playouts averaged per leaf (`seeded_rollout`).
        plies, positions, max_depth, q1_nodes, pruning_depth: As in `[atlas]`, for this game.
        solve: Small variants for the solvers.
    """

    label: str
    game: str
    kind: str
    note: str
    evaluator: str
    plies: tuple[int, int]
    positions: int
    max_depth: int
    q1_nodes: int
    pruning_depth: int
    solve: tuple[SolveSet, ...] = ()
    rollouts: int = 1

    @property
    def q1_algorithm(self) -> str:
        return {"two_player": "bounded_ab", "chance": "bounded_star2", "n_player": "paranoid"}[
            self.kind
        ]


@dataclass(frozen=True, kw_only=True)
class AtlasConfig:
    """A validated atlas config (see the module docstring for the keys).

    Attributes:
        source, text: The file and its text.
        settings: The `[atlas]` values, defaults filled in.
        games: The rows.
        tournaments: Arena configs run after the measurements.
        run: How it runs (not part of the fingerprint).
    """

    source: str
    text: str
    settings: Mapping[str, Any]
    games: tuple[GameEntry, ...]
    tournaments: tuple[str, ...]
    run: RunSettings

    def canonical(self) -> dict[str, Any]:
        """What every measurement depends on: the `[atlas]` settings. Rows may be added or
        changed between runs: a task's id holds its game, position and parameters, so a changed
        row's tasks are new ones, and records of tasks no longer asked for are ignored."""
        return {"atlas": {k: v for k, v in self.settings.items() if k != "tournaments"}}

    def fingerprint(self) -> str:
        text = json.dumps(self.canonical(), sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def game(self, label: str) -> GameEntry:
        return next(entry for entry in self.games if entry.label == label)


def load_atlas_config(
    path: str | Path, *, overrides: Mapping[str, Any] | None = None
) -> AtlasConfig:
    """Reads and validates an atlas config (`overrides`: `[run]` values; None is ignored).

    Raises:
        AtlasConfigError: The file cannot be read or is invalid.
    """
    source = str(path)
    try:
        text = Path(path).read_text()
    except OSError as error:
        raise AtlasConfigError(f"{source}: cannot read the config ({error.strerror})") from None
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise AtlasConfigError(f"{source}: not valid TOML: {error}") from None
    return parse_atlas_config(raw, source=source, text=text, overrides=overrides)


def parse_atlas_config(
    raw: Mapping[str, Any],
    *,
    source: str = "<config>",
    text: str = "",
    overrides: Mapping[str, Any] | None = None,
) -> AtlasConfig:
    """Validates an already parsed config (see `load_atlas_config`)."""

    def fail(where: str, message: str) -> AtlasConfigError:
        return AtlasConfigError(f"{source}: {where}: {message}")

    for section in raw:
        if section not in ("atlas", "run", "games"):
            raise fail(f"[{section}]", "unknown section; accepted: atlas, run, games")
    for section in ("atlas", "run", "games"):
        if section not in raw:
            raise fail(f"[{section}]", "missing section")
    settings = read_table(
        raw["atlas"], AtlasSettings, lambda key, message: fail(f"[atlas] {key}".strip(), message)
    )
    tournaments = settings["tournaments"]

    games_raw = raw["games"]
    if not isinstance(games_raw, list) or not games_raw:
        raise fail("[[games]]", "must be a non-empty array of tables")
    games: list[GameEntry] = []
    for number, table in enumerate(games_raw, start=1):
        games.append(_game_entry(table, number, settings, games, fail))

    run = read_run_section(
        raw["run"],
        lambda key, message: fail(f"[run] {key}".strip(), message),
        overrides=overrides,
    )
    return AtlasConfig(
        source=source,
        text=text,
        settings=settings,
        games=tuple(games),
        tournaments=tuple(tournaments),
        run=run,
    )


def _game_entry(
    table: Any, number: int, settings: Mapping[str, Any], earlier: list[GameEntry], fail: Any
) -> GameEntry:
    where = f"[[games]] #{number}"
    if not isinstance(table, dict):
        raise fail(where, "must be a table")
    _no_unknown(table, GAME_KEYS, where, fail)
    game_string = table.get("game")
    if not isinstance(game_string, str) or not game_string:
        raise fail(f"{where} game", "must be an OpenSpiel game string")
    if "label" not in table and not _NAME.match(game_string):
        raise fail(
            f"{where} game",
            f"{game_string!r} cannot name its row: add a label (letters, digits and "
            "_ . = ( ) , - only)",
        )
    label = table.get("label", game_string)
    where = f"[[games]] {label}"
    if not isinstance(label, str) or not _NAME.match(label):
        raise fail(f"{where} label", "use letters, digits and _ . = ( ) , - only")
    if label in {entry.label for entry in earlier}:
        raise fail(f"{where} label", "appears twice; give one of them another label")
    try:
        game = load_game(game_string)
    except ValueError as error:
        raise fail(f"{where} game", str(error)) from None
    info = game_info(game)
    if not (info.sequential and info.perfect_information and info.terminal_rewards):
        raise fail(
            f"{where} game",
            "the atlas takes turn-based perfect-information games with terminal rewards; "
            f"{info.description} is not one",
        )
    if info.num_players > 2:
        kind = "n_player"
    elif info.has_chance:
        kind = "chance"
    else:
        kind = "two_player"
    if kind != "n_player" and not info.zero_sum:
        raise fail(f"{where} game", f"two-player games must be zero-sum; {info.description} is not")
    default_evaluator = "heuristic" if has_heuristic(game) else "seeded_rollout"
    evaluator = table.get("evaluator", default_evaluator)
    if evaluator not in EVALUATOR_NAMES or evaluator == "rollout":
        accepted = [name for name in EVALUATOR_NAMES if name != "rollout"]
        raise fail(
            f"{where} evaluator",
            f"must be one of {', '.join(accepted)} (deterministic, so that searches can be "
            f"compared value for value); got {evaluator!r}",
        )
    if evaluator == "heuristic" and not has_heuristic(game):
        raise fail(f"{where} evaluator", f"{info.description} has no heuristic; use seeded_rollout")
    rollouts = table.get("rollouts", 1)
    _integer(rollouts, 1, f"{where} rollouts", fail)
    if rollouts != 1 and evaluator != "seeded_rollout":
        raise fail(f"{where} rollouts", "playouts are set for the seeded_rollout evaluator only")
    values = {key: table.get(key, settings[key]) for key in GAME_OVERRIDES}
    for key in ("positions", "max_depth", "q1_nodes", "pruning_depth"):
        _integer(values[key], 1, f"{where} {key}", fail)
    note = table.get("note", "")
    if not isinstance(note, str):
        raise fail(f"{where} note", "must be a string")
    solve = table.get("solve", [])
    if not isinstance(solve, list):
        raise fail(f"{where} solve", "must be a list of tables {game, plies, positions}")
    if solve and kind != "two_player":
        raise fail(
            f"{where} solve",
            "the solvers (pns, bounded_pns, bounded_ab) take two-player deterministic games; "
            f"this row is {info.description}: leave its solve sets out",
        )
    solve_sets = tuple(
        _solve_set(item, number, f"{where} solve", settings["seed"], fail)
        for number, item in enumerate(solve)
    )
    solved_in = {known.game: entry.label for entry in earlier for known in entry.solve}
    for solve_set in solve_sets:
        if solve_set.game in solved_in:
            raise fail(
                f"{where} solve",
                f"{solve_set.game} is solved in row {solved_in[solve_set.game]} already; the "
                "report has one row per variant, so list each variant once",
            )
        solved_in[solve_set.game] = label
    plies = _plies(values["plies"], f"{where} plies", fail)
    seed = position_seed(settings["seed"], label)
    _reachable(game_string, values["positions"], plies, seed, f"{where} plies", fail)
    return GameEntry(
        label=label,
        game=game_string,
        kind=kind,
        note=note,
        evaluator=evaluator,
        plies=plies,
        positions=values["positions"],
        max_depth=values["max_depth"],
        q1_nodes=values["q1_nodes"],
        pruning_depth=values["pruning_depth"],
        solve=solve_sets,
        rollouts=rollouts,
    )


def _solve_set(item: Any, number: int, where: str, seed: int, fail: Any) -> SolveSet:
    if not isinstance(item, dict):
        raise fail(where, "every entry must be a table {game, plies, positions}")
    _no_unknown(item, SOLVE_KEYS, where, fail)
    game_string = item.get("game")
    if not isinstance(game_string, str):
        raise fail(f"{where} game", "must be an OpenSpiel game string")
    try:
        info = game_info(load_game(game_string))
    except ValueError as error:
        raise fail(f"{where} game", str(error)) from None
    if info.has_chance or info.num_players != 2:
        raise fail(
            f"{where} game",
            f"the solvers (pns, bounded_pns, bounded_ab) take two-player deterministic games; "
            f"not {info.description}",
        )
    positions = item.get("positions", 4)
    _integer(positions, 1, f"{where} positions", fail)
    plies = _plies(item.get("plies", [0, 0]), f"{where} plies", fail)
    set_seed = position_seed(seed, game_string, number)
    _reachable(game_string, positions, plies, set_seed, f"{where} plies", fail)
    return SolveSet(game=game_string, plies=plies, positions=positions)


def position_seed(seed: int, name: str, number: int = 0) -> int:
    """The seed of a position set: the config's `seed` offset by a stable digest of the set's
    name (a row's label, a solve set's game) and its number, the same in every process."""
    return seed + int(hashlib.sha256(name.encode()).hexdigest()[:6], 16) + number


def _reachable(
    game_string: str, count: int, plies: tuple[int, int], seed: int, where: str, fail: Any
) -> None:
    """Refuses plies after which random play does not leave the game going: the position set
    the run will search is drawn here once."""
    try:
        random_position_list(game_string, count, plies, seed)
    except ValueError as error:
        raise fail(where, str(error)) from None


def _no_unknown(table: Mapping[str, Any], accepted: tuple[str, ...], where: str, fail: Any) -> None:
    extra = sorted(set(table) - set(accepted))
    if extra:
        raise fail(f"{where} {extra[0]}", f"unknown key; accepted: {', '.join(accepted)}")


def _integer(value: Any, minimum: int, where: str, fail: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise fail(where, f"must be an integer >= {minimum}; got {value!r}")


def _plies(value: Any, where: str, fail: Any) -> tuple[int, int]:
    try:
        return _PLIES(value)
    except ValueError as error:
        raise fail(where, str(error)) from None
