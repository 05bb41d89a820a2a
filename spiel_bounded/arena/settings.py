"""The settings types of a tournament: what is played, how it is run, how it is reported.

`arena.config` reads and validates them from TOML; the schedule, runner and report read them.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Final

import pyspiel

from spiel_bounded import registry
from spiel_bounded.arena.openings import suite_digest
from spiel_bounded.arena.sprt import SPRTSettings

PAIRINGS: Final = ("all", "focus", "baseline", "tables")
SEATINGS: Final = ("rotate", "permute")

BotFactory = Callable[[pyspiel.Game, int, Mapping[str, Any], int], pyspiel.Bot]
"""Builds a bot from (game, player id, parameters, seed): the arena's hook for bots that are not
in the registry (tests use it to add deliberately broken bots). Must be a module-level function
when games run in worker processes, so that it can be pickled."""


@dataclass(frozen=True, kw_only=True)
class BotEntry:
    """One competitor.

    Attributes:
        label: Unique name used in schedules, results and reports.
        bot: Registry name (or a name of the `extra_bots` given to `load_config`).
        params: Parameters for every game, as written in the config.
        per_game: Game string -> parameters that override `params` in that game.
    """

    label: str
    bot: str
    params: Mapping[str, Any] = field(default_factory=dict)
    per_game: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)


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
    """What is played. The fingerprint of these settings decides whether a run may resume.

    Attributes:
        games: OpenSpiel game strings, parameters included.
        bots: The competitors, in config order (which is also the order of report tables).
        games_per_pairing: Games per table of bots and game; a multiple of the seat assignments
            so that every bot takes every seat equally often.
        pairing: "all": every combination of n distinct bots (n = the game's players);
            "focus": those combinations containing at least one `focus` bot; "baseline": every
            other bot in one seat against copies of `baseline` in the rest; "tables": exactly
            the `tables` listed.
        focus: Labels of the focus bots (pairing "focus").
        baseline: Label of the baseline bot (pairing "baseline").
        tables: The tables of bot labels played (pairing "tables"), one per condition of an
            experiment (e.g. two bots at equal budgets, at several budgets).
        seating: "rotate": the n cyclic rotations of a table; "permute": every distinct order.
        seconds_per_move: Given as `seconds` to every bot that has a `seconds` parameter and does
            not set one; None gives nothing.
        opening_moves: Plies played uniformly at random (from the game's seed) before the bots
            move; both seatings of a table share the opening, so it favours no one.
        seed: Base seed; every game's seed is derived from it and the game's identity.
        skip_unsupported: Leave a bot out of a game it cannot play instead of refusing.
        exclusions: The bots left out, with the reason (filled in by validation).
        openings: Game -> its opening suite file (`arena.openings`); round r of every table
            of that game plays the suite's line r (modulo its length) in every seating, in
            place of random opening plies (`opening_moves` is for the other games).
        opening_lines: Game -> that suite's openings, as read when the config was.
        sprt: The sequential test each two-bot pairing stops at (`arena.sprt`); None: every
            scheduled game is played.
    """

    games: tuple[str, ...]
    bots: tuple[BotEntry, ...]
    games_per_pairing: int
    pairing: str = "all"
    focus: tuple[str, ...] = ()
    baseline: str | None = None
    tables: tuple[tuple[str, ...], ...] = ()
    seating: str = "rotate"
    seconds_per_move: float | None = None
    opening_moves: int = 0
    seed: int = 0
    skip_unsupported: bool = False
    exclusions: tuple[Exclusion, ...] = ()
    openings: Mapping[str, str] = field(default_factory=dict)
    opening_lines: Mapping[str, tuple[tuple[int, ...], ...]] = field(default_factory=dict)
    sprt: SPRTSettings | None = None

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
class RunSettings:
    """How the games are run (may change between resumed runs).

    Attributes:
        output: Directory of games.csv, run.json and the report.
        workers: Worker processes (local) or Dask workers of a local cluster.
        executor: "process" (local worker processes), "dask" (a Dask cluster) or "inline" (one
            game at a time in this process, for debugging).
        scheduler: Address of a Dask scheduler; None starts a local Dask cluster.
    """

    output: Path
    workers: int = 2
    executor: str = "process"
    scheduler: str | None = None


@dataclass(frozen=True, kw_only=True)
class ReportSettings:
    """How results are summarised.

    Attributes:
        anchor: The bot rated 0 Elo (None: ratings centred on their mean).
        bootstrap: Bootstrap samples for the 95% intervals on Elo ratings (0: no intervals).
        seed: Seed of the bootstrap.
    """

    anchor: str | None = None
    bootstrap: int = 1000
    seed: int = 0


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
