"""The time per move each bot of a tournament was meant to take, and when it missed it: its own
time limit, the tournament's `seconds_per_move`, or a budget calibrated to that time."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

from spiel_bounded import registry
from spiel_bounded.arena.settings import TournamentSettings
from spiel_bounded.games import load_game

BUDGET_PARAMS: Final = ("depth", "simulations", "nodes")
"""Parameters that stand in for a time limit in a bot calibrated to `seconds_per_move`."""

TIME_TOLERANCE: Final = 0.5
"""A bot misses its time target when its mean time per move is more than this fraction above
it (a time limit or a calibration), or below it (a calibration only: a time limit is an upper
bound that a bot may well not need, e.g. once it has solved the position)."""


@dataclass(frozen=True, kw_only=True)
class TimeTarget:
    """The time per move a bot was meant to take in one game of a tournament.

    Attributes:
        seconds: Seconds per move.
        calibrated: False: the bot's own time limit (`seconds`). True: the bot takes no time
            limit, and its `budget` was calibrated to the tournament's `seconds_per_move`
            (`scripts/calibrate_arena.py`), so the arena cannot hold it to that time.
        budget: What stands in for the limit when calibrated, e.g. "depth 6".
        whole_game: The calibrated budget is a depth that reaches the end of every game (depth
            9 on tic_tac_toe): no budget could make it take longer, so taking less time than
            the target is no miss.
    """

    seconds: float
    calibrated: bool = False
    budget: str = ""
    whole_game: bool = False

    def missed(self, mean_seconds: float) -> bool:
        """True when `mean_seconds` per move is off this target by more than TIME_TOLERANCE."""
        if math.isnan(mean_seconds) or self.seconds <= 0:
            return False
        ratio = mean_seconds / self.seconds
        under = self.calibrated and not self.whole_game and ratio < 1 - TIME_TOLERANCE
        return ratio > 1 + TIME_TOLERANCE or under


def time_targets(tournament: TournamentSettings) -> dict[tuple[str, str], TimeTarget]:
    """The time target of each (game, bot label) of a tournament.

    A bot that plays with `seconds` (its own, or the tournament's `seconds_per_move`:
    `TournamentSettings.params_for`) is held to it; one without a `seconds` parameter whose
    `depth`, `simulations` or `nodes` is set was calibrated to `seconds_per_move`
    (`python_mcts`, `openspiel_ab`). Other bots (`random`, bots outside the registry) have no
    target.
    """
    per_move = tournament.seconds_per_move
    registered = {spec.name for spec in registry.list_bots()}
    targets = {}
    for entry in tournament.bots:
        if entry.bot not in registered:
            continue  # a bot outside the registry
        for game in tournament.games:
            params = tournament.params_for(entry, game, {})
            key = (game, entry.label)
            if params.get("seconds") is not None:
                targets[key] = TimeTarget(seconds=float(params["seconds"]))
                continue
            budget = [f"{name} {params[name]}" for name in BUDGET_PARAMS if name in params]
            if per_move is not None and budget:
                depth = params.get("depth")
                targets[key] = TimeTarget(
                    seconds=float(per_move),
                    calibrated=True,
                    budget=", ".join(budget),
                    whole_game=depth is not None and depth >= _longest(game),
                )
    return targets


def _longest(game: str) -> int:
    """The most plies a game can last (`max_game_length`)."""
    return int(load_game(game).max_game_length())
