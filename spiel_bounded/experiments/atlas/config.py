"""The atlas config: a TOML file (`configs/atlas.toml`), validated before anything runs.

    [atlas]                        # `AtlasSettings`
    q1_nodes = 20000

    [run]                          # how it runs: `runs.settings.RunSettings`, as every job's
    output = "results/atlas/run"

    [[games]]                      # one row of the atlas: `GameRow`
    game = "hex"
    max_depth = 8
    solve = [{ game = "hex(board_size=3)", plies = [0, 3], positions = 4 }]  # `SolveSet`

Each key is declared once, with its default, meaning and check (`params.setting`); the manual's
config reference lists them. Every error names the file, the key and what is accepted.
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
from spiel_bounded.params import (
    POSITIVE,
    SEED,
    Number,
    OneOf,
    OrNone,
    Text,
    read_table,
    required_setting,
    setting,
)
from spiel_bounded.runs.settings import RunSettings, read_run_section

_NAME = re.compile(r"^[A-Za-z0-9_.=(),-]+$")
_LABEL: Final = Text(_NAME.pattern, "letters, digits and _ . = ( ) , - only")
_GAME: Final = Text(what="an OpenSpiel game string")
_DETERMINISTIC: Final = OneOf(
    tuple(name for name in EVALUATOR_NAMES if name != "rollout"),
    removed=(
        (
            "rollout",
            "random playouts are not deterministic, and the atlas compares searches value for "
            "value",
        ),
    ),
)


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


@dataclass(frozen=True)
class _String:
    accepted: str = "a string"

    def __call__(self, value: Any) -> str:
        if not isinstance(value, str):
            raise ValueError(f"must be {self.accepted}; got {value!r}")
        return value


@dataclass(frozen=True)
class _Tables:
    accepted: str = "a list of tables {game, plies, positions}"

    def __call__(self, value: Any) -> list[Mapping[str, Any]]:
        if not isinstance(value, list) or not all(isinstance(item, Mapping) for item in value):
            raise ValueError(f"must be {self.accepted}; got {value!r}")
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
"""The `[atlas]` keys a row may set for its game."""


class AtlasConfigError(ValueError):
    """An atlas config that cannot be run; the message names the file, key and what is
    accepted."""


@dataclass(frozen=True, kw_only=True)
class SolveSet:
    """A `solve` entry of a row: positions of a small variant that the solvers run to the end."""

    game: str = required_setting("the variant's game string (two players, no chance)", _GAME)
    plies: tuple[int, int] = setting(
        (0, 0),
        "random decision plies before each position, [low, high] ([0, 0]: the start)",
        _PLIES,
    )
    positions: int = setting(4, "how many positions", _COUNT)


@dataclass(frozen=True, kw_only=True)
class GameRow:
    """A `[[games]]` table as written: one row of the atlas (`GameEntry` is the row with its
    defaults filled in)."""

    game: str = required_setting(
        "an OpenSpiel game string: turn-based, perfect information, terminal rewards", _GAME
    )
    label: str | None = setting(None, "the row's name (default: the game string)", OrNone(_LABEL))
    note: str = setting(
        "", "said beside the row, e.g. why a smaller variant than the default", _String()
    )
    evaluator: str | None = setting(
        None,
        "the leaf evaluator (default: heuristic where the game has one, else seeded_rollout)",
        OrNone(_DETERMINISTIC),
    )
    rollouts: int = setting(1, "playouts averaged per leaf (seeded_rollout only)", _COUNT)
    plies: tuple[int, int] | None = setting(None, "[atlas] plies for this game", OrNone(_PLIES))
    positions: int | None = setting(None, "[atlas] positions for this game", OrNone(_COUNT))
    max_depth: int | None = setting(None, "[atlas] max_depth for this game", OrNone(_COUNT))
    q1_nodes: int | None = setting(None, "[atlas] q1_nodes for this game", OrNone(_COUNT))
    pruning_depth: int | None = setting(None, "[atlas] pruning_depth for this game", OrNone(_COUNT))
    solve: list[Mapping[str, Any]] = setting(
        [], "small variants the solvers run to the end: tables {game, plies, positions}", _Tables()
    )


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
    row = GameRow(
        **read_table(table, GameRow, lambda key, message: fail(f"{where} {key}".strip(), message))
    )
    if row.label is None and not _NAME.match(row.game):
        raise fail(
            f"{where} game",
            f"{row.game!r} cannot name its row: add a label (letters, digits and "
            "_ . = ( ) , - only)",
        )
    label = row.label or row.game
    where = f"[[games]] {label}"
    if label in {entry.label for entry in earlier}:
        raise fail(f"{where} label", "appears twice; give one of them another label")
    try:
        game = load_game(row.game)
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
    evaluator = row.evaluator or ("heuristic" if has_heuristic(game) else "seeded_rollout")
    if evaluator == "heuristic" and not has_heuristic(game):
        raise fail(f"{where} evaluator", f"{info.description} has no heuristic; use seeded_rollout")
    if row.rollouts != 1 and evaluator != "seeded_rollout":
        raise fail(f"{where} rollouts", "playouts are set for the seeded_rollout evaluator only")
    values = {
        key: settings[key] if getattr(row, key) is None else getattr(row, key)
        for key in GAME_OVERRIDES
    }
    if row.solve and kind != "two_player":
        raise fail(
            f"{where} solve",
            "the solvers (pns, bounded_pns, bounded_ab) take two-player deterministic games; "
            f"this row is {info.description}: leave its solve sets out",
        )
    solve_sets = tuple(
        _solve_set(item, number, f"{where} solve", settings["seed"], fail)
        for number, item in enumerate(row.solve)
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
    seed = position_seed(settings["seed"], label)
    _reachable(row.game, values["positions"], values["plies"], seed, f"{where} plies", fail)
    return GameEntry(
        label=label,
        game=row.game,
        kind=kind,
        note=row.note,
        evaluator=evaluator,
        solve=solve_sets,
        rollouts=row.rollouts,
        **values,
    )


def _solve_set(item: Any, number: int, where: str, seed: int, fail: Any) -> SolveSet:
    solve_set = SolveSet(
        **read_table(item, SolveSet, lambda key, message: fail(f"{where} {key}".strip(), message))
    )
    try:
        info = game_info(load_game(solve_set.game))
    except ValueError as error:
        raise fail(f"{where} game", str(error)) from None
    if info.has_chance or info.num_players != 2:
        raise fail(
            f"{where} game",
            f"the solvers (pns, bounded_pns, bounded_ab) take two-player deterministic games; "
            f"not {info.description}",
        )
    set_seed = position_seed(seed, solve_set.game, number)
    _reachable(
        solve_set.game, solve_set.positions, solve_set.plies, set_seed, f"{where} plies", fail
    )
    return solve_set


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
