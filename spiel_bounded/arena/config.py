"""Tournament configuration: a TOML file (read with `tomllib`), validated before anything runs.

A config has the sections `[tournament]` (what is played; a change makes another tournament),
`[run]` (how it is run; may change between resumed runs), `[report]` and one `[[bots]]` table
per competitor. Their keys are declared once, in `arena.settings` (`TournamentSettings`,
`ReportSettings`, `BotEntry`) and `runs.settings` (`RunSettings`), and read here by those
declarations; the manual
generates its config reference from them (docs/config-reference.md), and its Tournaments page
shows a commented example.

Every error is a `ConfigError` naming the file (or the command-line flag), the key and what is
accepted. Command-line overrides are applied before validation, keyed by field name. Validation
builds every registry bot once for every game it plays, so that parameters that are valid one by
one but do not make a bot for a game are refused before anything runs (bots given as
`extra_bots` factories are not built).
"""

from __future__ import annotations

import importlib.util
import json
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import fields, replace
from pathlib import Path
from typing import Any, Final

import pyspiel

from spiel_bounded import registry
from spiel_bounded.arena.openings import Opening, OpeningError, check_openings, read_openings
from spiel_bounded.arena.schedule import seatings, tables
from spiel_bounded.arena.settings import (
    BotEntry,
    BotFactory,
    Config,
    Exclusion,
    ReportSettings,
    RunSettings,
    TournamentSettings,
)
from spiel_bounded.arena.sprt import SPRTSettings
from spiel_bounded.games import game_info, load_game
from spiel_bounded.params import Checker, declared
from spiel_bounded.runs.settings import read_run_section

_LABEL: Final = re.compile(r"^[A-Za-z0-9_.+-]+$")


class ConfigError(ValueError):
    """A tournament config that cannot be run; the message names the file, key and fix."""


# -- reading and validation ------------------------------------------------------------------

SECTION_SETTINGS: Final[dict[str, type]] = {
    "tournament": TournamentSettings,
    "run": RunSettings,
    "report": ReportSettings,
}
"""Each section's settings type, which declares its keys (`params.setting`)."""
_SECTIONS: Final = {section: tuple(declared(kind)) for section, kind in SECTION_SETTINGS.items()}
_BOT_KEYS: Final = tuple(declared(BotEntry))

OVERRIDABLE: Final = {
    **{name: "tournament" for name in _SECTIONS["tournament"]},
    **{name: "run" for name in _SECTIONS["run"]},
    **{name: "report" for name in _SECTIONS["report"] if name not in _SECTIONS["tournament"]},
}
"""Field names that can be overridden (e.g. from the command line) -> their section."""


class _Reader:
    """Reads typed values from the raw TOML data, naming the file or flag in every error."""

    def __init__(self, source: str, raw: Mapping[str, Any], overridden: set[str]) -> None:
        self.source = source
        self.raw = raw
        self.overridden = overridden

    def where(self, section: str, key: str) -> str:
        if section != "bots" and key in self.overridden and OVERRIDABLE.get(key) == section:
            return f"--{key} (command line)"
        return f"{self.source}: [{section}] {key}"

    def fail(self, section: str, key: str, message: str) -> ConfigError:
        return ConfigError(f"{self.where(section, key)}: {message}")

    def get(self, section: str, key: str, default: Any = None) -> Any:
        return self.raw.get(section, {}).get(key, default)

    def setting(self, section: str, key: str) -> Any:
        """The value of `key`, read and checked as its section's settings type declares it."""
        param = declared(SECTION_SETTINGS[section])[key]
        return self.checked(section, key, None if param.required else param.default, param.check)

    def checked(self, section: str, key: str, default: Any, check: Checker) -> Any:
        """The value of `key` (or `default`) accepted by `check`; required when no default."""
        value = self.get(section, key, default)
        if value is None and default is None and not getattr(check, "optional", False):
            accepted = getattr(check, "accepted", "a value")
            raise self.fail(section, key, f"is required; accepted: {accepted}")
        try:
            return check(value)
        except ValueError as error:
            raise self.fail(section, key, str(error)) from None

    def text(self, section: str, key: str, default: str | None) -> str | None:
        value = self.get(section, key, default)
        if value is None:
            return None
        if not isinstance(value, str):
            raise self.fail(section, key, f"must be a string; got {value!r}")
        return value or None

    def strings(self, section: str, key: str, *, required: bool) -> tuple[str, ...]:
        value = self.get(section, key)
        if value is None:
            if required:
                raise self.fail(section, key, "is required; accepted: a list of strings")
            return ()
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise self.fail(section, key, f"must be a list of strings; got {value!r}")
        if required and not value:
            raise self.fail(section, key, "must not be empty")
        duplicates = sorted({item for item in value if value.count(item) > 1})
        if duplicates:
            raise self.fail(section, key, f"lists {', '.join(map(repr, duplicates))} twice")
        return tuple(value)


def load_config(
    path: str | Path,
    *,
    overrides: Mapping[str, Any] | None = None,
    bots: Sequence[str] | None = None,
    extra_bots: Mapping[str, BotFactory] | None = None,
) -> Config:
    """Reads and validates a tournament config.

    Args:
        path: The TOML file.
        overrides: Field name -> value replacing the file's value (names in `OVERRIDABLE`);
            None values are ignored.
        bots: Labels of the bots to keep (None: all of them).
        extra_bots: Bot name -> factory for bots outside the registry (their parameters are
            passed through unchecked).

    Raises:
        ConfigError: Anything wrong, named by file (or flag), key and what is accepted.
    """
    source = str(path)
    try:
        text = Path(path).read_text()
    except OSError as error:
        raise ConfigError(f"{source}: cannot read the config: {error.strerror}") from None
    return parse_config(text, source=source, overrides=overrides, bots=bots, extra_bots=extra_bots)


def parse_config(
    text: str,
    *,
    source: str = "<config>",
    overrides: Mapping[str, Any] | None = None,
    bots: Sequence[str] | None = None,
    extra_bots: Mapping[str, BotFactory] | None = None,
) -> Config:
    """`load_config` for TOML text already read; `source` names it in messages."""
    try:
        raw: dict[str, Any] = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{source}: not valid TOML: {error}") from None
    return _validated(raw, text, source, overrides, bots, extra_bots)


def config_from_mapping(raw: Mapping[str, Any], *, source: str) -> Config:
    """A config built in code rather than read from a file: `raw` has the TOML file's shape
    (section name -> table, `bots` a list of tables), and is validated exactly as a file is. Its
    `text` (kept in run.json) is `raw` as JSON.

    Raises:
        ConfigError: As `load_config`, naming `source`.
    """
    text = json.dumps(raw, indent=1, sort_keys=True)
    return _validated(json.loads(text), text, source, None, None, None)


def _validated(
    raw: dict[str, Any],
    text: str,
    source: str,
    overrides: Mapping[str, Any] | None,
    bots: Sequence[str] | None,
    extra_bots: Mapping[str, BotFactory] | None,
) -> Config:
    extra = dict(extra_bots or {})
    _check_layout(source, raw)
    file_games = raw.get("tournament", {}).get("games")
    overridden: set[str] = set()
    for name, value in (overrides or {}).items():
        if value is None:
            continue
        section = OVERRIDABLE.get(name)
        if section is None:
            raise ConfigError(
                f"--{name}: not a config field; accepted: {', '.join(sorted(OVERRIDABLE))}"
            )
        raw.setdefault(section, {})[name] = value
        overridden.add(name)
    reader = _Reader(source, raw, overridden)
    tournament = _tournament(reader, raw, extra, file_games, bots)
    labels = [entry.label for entry in tournament.bots]
    run = read_run_section(
        raw.get("run", {}), lambda key, message: reader.fail("run", key, message)
    )
    if run.executor == "dask" and importlib.util.find_spec("distributed") is None:
        raise reader.fail(
            "run",
            "executor",
            "'dask' needs the cluster extra (pip install 'spiel-bounded[cluster]'); accepted "
            "without it: process, inline",
        )
    anchor = reader.text("report", "anchor", None)
    file_labels = [item.get("label") for item in raw.get("bots", [])]
    if "anchor" not in overridden and anchor in file_labels and anchor not in labels:
        anchor = None  # the anchor was left out by --bots: ratings centred on their mean
    if anchor is not None and anchor not in labels:
        raise reader.fail(
            "report", "anchor", f"unknown bot {anchor!r}; accepted: one of {', '.join(labels)}"
        )
    report = ReportSettings(
        anchor=anchor,
        bootstrap=reader.setting("report", "bootstrap"),
        seed=reader.setting("report", "seed"),
    )
    return Config(source=source, text=text, tournament=tournament, run=run, report=report)


def _check_layout(source: str, raw: Mapping[str, Any]) -> None:
    accepted = [*_SECTIONS, "bots"]
    for section, body in raw.items():
        if section not in accepted:
            raise ConfigError(
                f"{source}: unknown section [{section}]; accepted sections: "
                f"{', '.join(f'[{name}]' for name in _SECTIONS)} and [[bots]]"
            )
        if section == "bots":
            continue
        if not isinstance(body, dict):
            raise ConfigError(f"{source}: [{section}] must be a table")
        for key in body:
            if key not in _SECTIONS[section]:
                raise ConfigError(
                    f"{source}: [{section}] unknown key {key!r}; accepted keys: "
                    f"{', '.join(_SECTIONS[section])}"
                )


def _tournament(
    reader: _Reader,
    raw: Mapping[str, Any],
    extra: Mapping[str, BotFactory],
    file_games: Any,
    keep: Sequence[str] | None,
) -> TournamentSettings:
    games = reader.strings("tournament", "games", required=True)
    loaded = {}
    for index, name in enumerate(games):
        loaded[name] = _load_game(reader, index, name)
    entries = _bots(reader, raw.get("bots"), extra, file_games, games)
    all_labels = [entry.label for entry in entries]
    if keep is not None:
        labels = all_labels
        unknown = [label for label in keep if label not in labels]
        if unknown:
            raise ConfigError(
                f"--bots (command line): unknown bot(s) {', '.join(map(repr, unknown))}; "
                f"accepted: labels of [[bots]] in {reader.source}: {', '.join(labels)}"
            )
        entries = tuple(entry for entry in entries if entry.label in keep)
    labels = [entry.label for entry in entries]

    pairing = reader.setting("tournament", "pairing")
    focus = reader.strings("tournament", "focus", required=False)
    # Focus bots left out by --bots are dropped; unknown ones are errors.
    focus = tuple(label for label in focus if label in labels or label not in all_labels)
    for label in focus:
        if label not in labels:
            raise reader.fail(
                "tournament", "focus", f"unknown bot {label!r}; accepted: {', '.join(labels)}"
            )
    if pairing == "focus" and not focus:
        raise reader.fail("tournament", "focus", 'must list at least one bot for pairing "focus"')
    baseline = reader.text("tournament", "baseline", None)
    if baseline is not None and baseline not in labels:
        raise reader.fail(
            "tournament", "baseline", f"unknown bot {baseline!r}; accepted: {', '.join(labels)}"
        )
    if pairing == "baseline" and baseline is None:
        raise reader.fail("tournament", "baseline", 'must name a bot for pairing "baseline"')
    # Tables with a bot left out by --bots are dropped, as focus bots are; unknown ones are errors.
    listed = tuple(
        table
        for table in _listed_tables(reader, all_labels)
        if all(label in labels for label in table)
    )
    if pairing == "tables" and not listed:
        raise reader.fail(
            "tournament",
            "tables",
            'must list at least one table for pairing "tables"'
            + (" of the bots kept by --bots" if keep is not None else ""),
        )
    seating = reader.setting("tournament", "seating")
    skip = reader.setting("tournament", "skip_unsupported")
    opening_moves = reader.setting("tournament", "opening_moves")
    openings = _opening_files(reader, opening_moves, loaded)
    opening_lines = _opening_lines(reader, openings, loaded)

    settings = TournamentSettings(
        games=games,
        bots=entries,
        games_per_pairing=reader.setting("tournament", "games_per_pairing"),
        pairing=pairing,
        focus=focus,
        baseline=baseline,
        tables=listed,
        seating=seating,
        seconds_per_move=reader.setting("tournament", "seconds_per_move"),
        opening_moves=opening_moves,
        seed=reader.setting("tournament", "seed"),
        skip_unsupported=skip,
        openings=openings,
        opening_lines=opening_lines,
        sprt=_sprt(reader, loaded),
    )
    exclusions = []
    for name, game in loaded.items():
        exclusions += _check_bots_on_game(reader, settings, name, game, extra)
    settings = replace(settings, exclusions=tuple(exclusions))
    for name, game in loaded.items():
        _check_tables(reader, settings, name, game.num_players())
    return settings


def _opening_files(
    reader: _Reader, opening_moves: int, games: Mapping[str, pyspiel.Game]
) -> dict[str, str]:
    """Game -> opening suite file, from `openings`: one file for every game, or a table of
    game -> file."""
    raw = reader.get("tournament", "openings")
    if raw is None:
        return {}
    if isinstance(raw, str):
        if opening_moves:
            raise reader.fail(
                "tournament",
                "openings",
                f"cannot be combined with opening_moves = {opening_moves}: the suite gives "
                "every game's openings; accepted: one of the two (or a table of suites for "
                "some games)",
            )
        return dict.fromkeys(games, raw)
    if not isinstance(raw, dict) or not all(isinstance(v, str) for v in raw.values()):
        raise reader.fail(
            "tournament",
            "openings",
            f"must be a file name or a table of game = file name; got {raw!r}",
        )
    unknown = sorted(set(raw) - set(games))
    if unknown:
        raise reader.fail(
            "tournament",
            "openings",
            f"unknown game(s) {', '.join(map(repr, unknown))}; accepted: {', '.join(games)}",
        )
    if opening_moves and set(raw) == set(games):
        raise reader.fail(
            "tournament",
            "openings",
            f"gives every game a suite, so opening_moves = {opening_moves} would apply to none; "
            "accepted: opening_moves = 0, or suites for some games only",
        )
    return dict(raw)


def _opening_lines(
    reader: _Reader, files: Mapping[str, str], games: Mapping[str, pyspiel.Game]
) -> dict[str, tuple[Opening, ...]]:
    """Game -> the openings of its suite, each checked playable in that game."""
    lines = {}
    for name, path in files.items():
        try:
            lines[name] = read_openings(path)
            check_openings(games[name], lines[name], path)
        except OpeningError as error:
            raise reader.fail("tournament", "openings", str(error)) from None
    return lines


def _sprt(reader: _Reader, games: Mapping[str, pyspiel.Game]) -> SPRTSettings | None:
    """The `sprt` table's test (None without one); two-player games only."""
    raw = reader.get("tournament", "sprt")
    if raw is None:
        return None
    accepted = ", ".join(item.name for item in fields(SPRTSettings))
    if not isinstance(raw, dict):
        raise reader.fail("tournament", "sprt", f"must be a table {{ {accepted} }}; got {raw!r}")
    unknown = sorted(set(raw) - {item.name for item in fields(SPRTSettings)})
    if unknown:
        raise reader.fail(
            "tournament", "sprt", f"unknown key(s) {', '.join(unknown)}; accepted: {accepted}"
        )
    try:
        settings = SPRTSettings(**raw)
    except ValueError as error:
        message = str(error).removeprefix(f"{SPRTSettings.__name__}.")
        raise reader.fail("tournament", "sprt", message) from None
    for name, game in games.items():
        if game.num_players() != 2:
            raise reader.fail(
                "tournament",
                "sprt",
                f"tests two-bot pairings; {name!r} has {game.num_players()} players "
                "(accepted: two-player games)",
            )
    return settings


def _load_game(reader: _Reader, index: int, name: str) -> pyspiel.Game:
    try:
        game = load_game(name)
    except ValueError as error:
        raise reader.fail(
            "tournament",
            "games",
            f"entry {index} {name!r} is not a loadable OpenSpiel game: {error}",
        ) from None
    if game.num_players() < 2:
        raise reader.fail(
            "tournament",
            "games",
            f"entry {index} {name!r} has {game.num_players()} player; accepted: games of two "
            "or more players",
        )
    if game.get_type().dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
        raise reader.fail(
            "tournament",
            "games",
            f"entry {index} {name!r} has simultaneous moves; accepted: sequential games",
        )
    return game


def _bots(
    reader: _Reader,
    raw_bots: Any,
    extra: Mapping[str, BotFactory],
    file_games: Any,
    games: Sequence[str],
) -> tuple[BotEntry, ...]:
    source = reader.source
    if raw_bots is None:
        raise ConfigError(f"{source}: no [[bots]] entries; accepted: at least two [[bots]] tables")
    if not isinstance(raw_bots, list) or not all(isinstance(item, dict) for item in raw_bots):
        raise ConfigError(f"{source}: bots must be an array of tables, written [[bots]]")
    known_games = set(games) | (set(file_games) if isinstance(file_games, list) else set())
    accepted_bots = ", ".join([*(spec.name for spec in registry.list_bots()), *extra])
    entries: list[BotEntry] = []
    for index, item in enumerate(raw_bots):
        where = f"{source}: [[bots]] #{index + 1}"
        label = item.get("label")
        if not isinstance(label, str) or not _LABEL.match(label):
            raise ConfigError(
                f"{where}: label must be a non-empty string of letters, digits and _ . + -; "
                f"got {label!r}"
            )
        where = f"{where} (label {label!r})"
        for key in item:
            if key not in _BOT_KEYS:
                raise ConfigError(
                    f"{where}: unknown key {key!r}; accepted keys: {', '.join(_BOT_KEYS)}"
                )
        if label in (entry.label for entry in entries):
            raise ConfigError(f"{where}: label {label!r} is used twice; labels must be unique")
        name = item.get("bot")
        if name not in extra and name not in (spec.name for spec in registry.list_bots()):
            raise ConfigError(f"{where}: bot: unknown bot {name!r}; accepted: {accepted_bots}")
        params = item.get("params", {})
        if not isinstance(params, dict):
            raise ConfigError(f"{where}: params must be a table, e.g. params = {{ depth = 4 }}")
        per_game = item.get("per_game", {})
        if not isinstance(per_game, dict) or not all(
            isinstance(value, dict) for value in per_game.values()
        ):
            raise ConfigError(
                f"{where}: per_game must be a table of tables, e.g. "
                "per_game = { connect_four = { depth = 6 } }"
            )
        for game in per_game:
            if game not in known_games:
                raise ConfigError(
                    f"{where}: per_game: {game!r} is not one of the games; accepted: "
                    f"{', '.join(sorted(known_games))}"
                )
        for key_where, table in [("params", params)] + [
            (f"per_game.{game}", value) for game, value in per_game.items()
        ]:
            if "seed" in table:
                raise ConfigError(
                    f"{where}: {key_where}: 'seed' is set by the arena for every game (derived "
                    "from [tournament] seed); remove it"
                )
        entries.append(BotEntry(label=label, bot=str(name), params=params, per_game=per_game))
    if len(entries) < 2:
        raise ConfigError(f"{source}: only {len(entries)} bot(s); accepted: at least two [[bots]]")
    return tuple(entries)


def _check_bots_on_game(
    reader: _Reader,
    settings: TournamentSettings,
    name: str,
    game: pyspiel.Game,
    extra: Mapping[str, BotFactory],
) -> list[Exclusion]:
    info = game_info(game)
    exclusions = []
    for entry in settings.bots:
        where = f"{reader.source}: [[bots]] label {entry.label!r}"
        if entry.bot in extra:
            continue
        spec = registry.get_spec(entry.bot)
        reasons = spec.reasons_against(info)
        if reasons:
            if settings.skip_unsupported:
                exclusions.append(
                    Exclusion(game=name, label=entry.label, reason="; ".join(reasons))
                )
                continue
            raise ConfigError(
                f"{where} (bot {entry.bot!r}) cannot play {name!r}: {'; '.join(reasons)}. "
                "Accepted: remove the bot or the game, or set [tournament] skip_unsupported = true "
                "to leave the bot out of that game only"
            )
        params = settings.params_for(entry, name, extra)
        origin = "per_game." + name if name in entry.per_game else "params"
        try:
            registry.check_params(spec, params)
        except ValueError as error:
            raise ConfigError(f"{where}: {origin} (for {name!r}): {error}") from None
        # Parameters can be valid one by one and still not make a bot for this game (a
        # heuristic evaluator for a game without a heuristic, a value net for another game):
        # building the bot once is the only complete check.
        try:
            registry.load_bot(entry.bot, game, 0, **params, seed=0)
        except Exception as error:
            raise ConfigError(
                f"{where} (bot {entry.bot!r}) cannot be built for {name!r} with {origin} "
                f"{params}: {type(error).__name__}: {error}. Accepted: parameters that build "
                f"for every game (per_game = {{ {_toml_key(name)} = {{ ... }} }} sets them for "
                "one game), or remove the bot or the game"
            ) from None
    return exclusions


def _toml_key(name: str) -> str:
    return name if re.fullmatch(r"[A-Za-z0-9_-]+", name) else json.dumps(name)


def _listed_tables(reader: _Reader, labels: list[str]) -> tuple[tuple[str, ...], ...]:
    value = reader.get("tournament", "tables")
    if value is None:
        return ()
    example = 'e.g. tables = [["ab", "mcts"], ["ab", "random"]]'
    if not isinstance(value, list) or not all(
        isinstance(table, list) and all(isinstance(label, str) for label in table)
        for table in value
    ):
        raise reader.fail(
            "tournament", "tables", f"must be a list of lists of bot labels, {example}"
        )
    for table in value:
        unknown = [label for label in table if label not in labels]
        if unknown:
            raise reader.fail(
                "tournament",
                "tables",
                f"unknown bot(s) {', '.join(map(repr, unknown))} in {table}; accepted: "
                f"{', '.join(labels)}",
            )
        repeated = len(set(table)) < len(table)
        if repeated and (len(table) < 3 or len(set(table[1:])) != 1 or table[0] == table[1]):
            raise reader.fail(
                "tournament",
                "tables",
                f"{table} names a bot twice; accepted: different bots, or one bot against "
                'copies of another in a game of more than two players, e.g. ["a", "b", "b"]',
            )
    return tuple(tuple(table) for table in value)


def _check_tables(
    reader: _Reader, settings: TournamentSettings, name: str, num_players: int
) -> None:
    lineup = [entry.label for entry in settings.lineup(name)]
    if settings.pairing == "tables":
        for table in settings.tables:
            if len(table) != num_players:
                raise reader.fail(
                    "tournament",
                    "tables",
                    f"{list(table)} has {len(table)} bot(s) but {name!r} has {num_players} players",
                )
    if settings.pairing == "baseline":
        if settings.baseline not in lineup:
            raise reader.fail(
                "tournament", "baseline", f"{settings.baseline!r} cannot play {name!r}"
            )
    elif settings.pairing != "tables" and len(lineup) < num_players:
        raise reader.fail(
            "tournament",
            "games",
            f"{name!r} has {num_players} players but only {len(lineup)} bot(s) can play it "
            f"({', '.join(lineup) or 'none'}); accepted: at least {num_players} bots, or "
            'pairing = "baseline"',
        )
    found = tables(settings, name, num_players)
    if not found:
        raise reader.fail(
            "tournament", "pairing", f"{settings.pairing!r} leaves no table of bots for {name!r}"
        )
    for table in found:
        count = len(seatings(num_players, table, settings.seating))
        if settings.games_per_pairing % count:
            raise reader.fail(
                "tournament",
                "games_per_pairing",
                f"must be a multiple of {count} for {name!r} (its {count} seat assignments, so "
                f"that every bot takes every seat equally often); got "
                f"{settings.games_per_pairing}",
            )
