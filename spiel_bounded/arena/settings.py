"""The settings types of a tournament: what is played, how it is run, how it is reported.

`arena.config` reads and validates them from TOML; the schedule, runner and report read them.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Final

import pyspiel

from spiel_bounded import registry
from spiel_bounded.arena.openings import suite_digest
from spiel_bounded.arena.sprt import SPRTSettings
from spiel_bounded.params import (
    FLAG,
    NON_NEGATIVE_INT,
    OPTIONAL_POSITIVE,
    POSITIVE_INT,
    SEED,
    OneOf,
    anything,
    pick,
    required_setting,
    setting,
)
from spiel_bounded.runs.settings import RunSettings

PAIRINGS: Final = ("all", "focus", "baseline", "tables")
SEATINGS: Final = ("rotate", "permute")

BotFactory = Callable[[pyspiel.Game, int, Mapping[str, Any], int], pyspiel.Bot]
"""Builds a bot from (game, player id, parameters, seed): the arena's hook for bots that are not
in the registry (tests use it to add deliberately broken bots). Must be a module-level function
when games run in worker processes, so that it can be pickled."""


@dataclass(frozen=True, kw_only=True)
class BotEntry:
    """One competitor: a `[[bots]]` table of the config."""

    label: str = required_setting(
        "the bot's unique name in schedules, results and reports (letters, digits, _.+-)",
        anything,
    )
    bot: str = required_setting(
        "registry name (python -m spiel_bounded bots lists them), or a name of the extra_bots "
        "given to load_config",
        anything,
    )
    params: Mapping[str, Any] = setting(
        {}, "parameters for every game, checked like load_bot's (seed is set per game)", anything
    )
    per_game: Mapping[str, Mapping[str, Any]] = setting(
        {}, "game string -> parameters that override params in that game", anything
    )


@dataclass(frozen=True, kw_only=True)
class Exclusion:
    """A bot left out of one game because it cannot play it (`skip_unsupported = true`)."""

    game: str
    label: str
    reason: str


def takes_seconds_per_move(bot: str, params: Mapping[str, Any]) -> bool:
    """True when the registry bot `bot` with `params` gets the tournament's `seconds_per_move`:
    it has a `seconds` parameter and does not set it."""
    return params.get("seconds") is None and "seconds" in registry.get_spec(bot).params


@dataclass(frozen=True, kw_only=True)
class TournamentSettings:
    """What is played (the config's `[tournament]` section and its `[[bots]]`). The fingerprint
    of these settings decides whether a run may resume.

    Each key of `[tournament]` is declared once below with `params.setting` (default, doc,
    check): `arena.config` reads the section by these declarations, the command line's
    overrides take their help from them, and the manual's config reference is generated from
    them. `bots` comes from `[[bots]]`; `exclusions` and `opening_lines` are filled in by
    validation.
    """

    games: tuple[str, ...] = required_setting(
        "OpenSpiel game strings, parameters included (a list)", anything
    )
    bots: tuple[BotEntry, ...]
    games_per_pairing: int = required_setting(
        "games per table of bots and game: a multiple of the game's seatings, so that every "
        "bot takes every seat equally often",
        POSITIVE_INT,
    )
    pairing: str = setting(
        "all",
        "all: every combination of n distinct bots (n: the game's players); focus: those with "
        "a focus bot; baseline: each bot in one seat against copies of the baseline bot; "
        "tables: exactly the tables listed",
        OneOf(PAIRINGS),
    )
    focus: tuple[str, ...] = setting((), "labels of the focus bots (pairing focus)", anything)
    baseline: str | None = setting(None, "label of the baseline bot (pairing baseline)", anything)
    tables: tuple[tuple[str, ...], ...] = setting(
        (),
        "the tables of bot labels played (pairing tables), one per condition of an experiment",
        anything,
    )
    seating: str = setting(
        "rotate",
        "rotate: the n cyclic seatings of a table; permute: every seat order",
        OneOf(SEATINGS),
    )
    seconds_per_move: float | None = setting(
        None,
        "given as `seconds` to every bot that has that parameter and sets none (none: nothing)",
        OPTIONAL_POSITIVE,
    )
    opening_moves: int = setting(
        0,
        "plies played uniformly at random before the bots move, the same in every seating of "
        "a round (not in a game an opening suite gives)",
        NON_NEGATIVE_INT,
    )
    seed: int = setting(0, "base seed: every game's seed derives from it and the game", SEED)
    skip_unsupported: bool = setting(
        False, "leave a bot out of a game it cannot play instead of refusing the config", FLAG
    )
    exclusions: tuple[Exclusion, ...] = ()
    openings: Mapping[str, str] = setting(
        {},
        "an opening suite file (arena.openings) for every game, or a table of game = file: "
        "round r of every table plays the suite's line r in every seating",
        anything,
    )
    opening_lines: Mapping[str, tuple[tuple[int, ...], ...]] = field(default_factory=dict)
    sprt: SPRTSettings | None = setting(
        None,
        "a table of elo0, elo1, alpha, beta: each two-bot pairing stops once its sequential "
        "test decides (games_per_pairing: the most it plays)",
        anything,
    )

    def opening(self, game: str, round_: int) -> tuple[int, ...]:
        """The opening of round `round_` of `game` (empty without a suite)."""
        lines = self.opening_lines.get(game, ())
        return lines[round_ % len(lines)] if lines else ()

    def random_plies(self, game: str) -> int:
        """The random opening plies of `game`: none where a suite gives the openings."""
        return 0 if game in self.opening_lines else self.opening_moves

    def lineup(self, game: str) -> tuple[BotEntry, ...]:
        """The bots that play `game`, in config order."""
        left_out = {item.label for item in self.exclusions if item.game == game}
        return tuple(entry for entry in self.bots if entry.label not in left_out)

    def params_for(
        self, entry: BotEntry, game: str, extra_bots: Mapping[str, Any]
    ) -> dict[str, Any]:
        """The parameters `entry` plays `game` with (without the per-game seed)."""
        params = {**entry.params, **entry.per_game.get(game, {})}
        if (
            self.seconds_per_move is not None
            and entry.bot not in extra_bots
            and takes_seconds_per_move(entry.bot, params)
        ):
            params["seconds"] = self.seconds_per_move
        return params

    @classmethod
    def from_canonical(cls, data: Mapping[str, Any]) -> TournamentSettings:
        """The settings a run stored (run.json's `canonical()`), but the opening suites' lines,
        which it keeps by their digest only (`opening_lines` stays empty); keys a run of an
        older version did not store take their defaults."""
        typed = ("games", "bots", "focus", "tables", "openings", "sprt")
        return cls(
            **pick(cls, {key: value for key, value in data.items() if key not in typed}),
            games=tuple(data["games"]),
            bots=tuple(BotEntry(**pick(BotEntry, entry)) for entry in data.get("bots", ())),
            focus=tuple(data.get("focus", ())),
            tables=tuple(tuple(table) for table in data.get("tables", ())),
            sprt=SPRTSettings(**data["sprt"]) if data.get("sprt") else None,
        )

    def canonical(self) -> dict[str, Any]:
        """The settings as plain JSON data (what the fingerprint hashes; `tables`, `openings`
        and `sprt` only when set, so that runs from before they existed keep their fingerprint;
        a suite by the hash of its openings)."""
        data = {
            "games": list(self.games),
            "bots": [
                {
                    "label": entry.label,
                    "bot": entry.bot,
                    "params": dict(sorted(entry.params.items())),
                    "per_game": {
                        game: dict(sorted(params.items()))
                        for game, params in sorted(entry.per_game.items())
                    },
                }
                for entry in self.bots
            ],
            "games_per_pairing": self.games_per_pairing,
            "pairing": self.pairing,
            "focus": list(self.focus),
            "baseline": self.baseline,
            "seating": self.seating,
            "seconds_per_move": self.seconds_per_move,
            "opening_moves": self.opening_moves,
            "seed": self.seed,
            "skip_unsupported": self.skip_unsupported,
        }
        if self.tables:
            data["tables"] = [list(table) for table in self.tables]
        if self.opening_lines:
            # By content, not file name: a suite moved elsewhere is the same tournament.
            data["openings"] = {
                game: {"openings": len(lines), "sha256": suite_digest(lines)}
                for game, lines in sorted(self.opening_lines.items())
            }
        if self.sprt is not None:
            data["sprt"] = {name: float(value) for name, value in asdict(self.sprt).items()}
        return data

    def fingerprint(self) -> str:
        """A hash of `canonical()`: equal fingerprints schedule identical games."""
        text = json.dumps(self.canonical(), sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass(frozen=True, kw_only=True)
class ReportSettings:
    """How results are summarised (the `[report]` section)."""

    anchor: str | None = setting(
        None, "label of the bot rated 0 Elo (none: ratings centred on their mean)", anything
    )
    bootstrap: int = setting(
        1000, "bootstrap samples for the 95% intervals on Elo ratings (0: none)", NON_NEGATIVE_INT
    )
    seed: int = setting(0, "seed of the bootstrap", SEED)


@dataclass(frozen=True, kw_only=True)
class Config:
    """A validated tournament config.

    Attributes:
        source: Where it was read from (for messages).
        text: The TOML text as read (stored with the results).
        tournament: What is played.
        run: How it is run.
        report: How it is summarised.
    """

    source: str
    text: str
    tournament: TournamentSettings
    run: RunSettings
    report: ReportSettings
