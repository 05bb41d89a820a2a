"""`gnubg`: GNU Backgammon as a guest bot, the judge backgammon programs are measured against.

It plays the legal move gnubg values highest (`judges.backgammon.Judge`: the position after the
move, the opponent on roll, evaluated at `plies` of lookahead; 0-ply is gnubg's neural network
alone, 2-ply its usual strong setting), the first in OpenSpiel's order on a tie. Backgammon only
(not hyper-backgammon), and only with the `gnubg` extra installed; elsewhere the bot is refused
with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

import pyspiel

from spiel_bounded.bots.checks import StateCheck
from spiel_bounded.bots.spec import SEED_PARAM, BotSpec
from spiel_bounded.games import TWO_PLAYER_ZERO_SUM_CHANCE, GameInfo, load_game
from spiel_bounded.judges.backgammon import PLIES, Judge, check_backgammon, missing_extra
from spiel_bounded.params import Number, check_fields, declared, pick, setting


@dataclass(frozen=True, kw_only=True)
class GnubgSettings:
    plies: int = setting(
        0,
        "gnubg's lookahead: 0 (its network alone), 1 or 2",
        Number(minimum=PLIES[0], maximum=PLIES[-1], integer=True),
    )

    def __post_init__(self) -> None:
        check_fields(self)


class GnubgBot(pyspiel.Bot):
    """Plays gnubg's choice of move at every decision node it is given."""

    def __init__(self, game: pyspiel.Game, settings: GnubgSettings) -> None:
        pyspiel.Bot.__init__(self)
        self.judge = Judge(game, settings.plies)
        self.state_check = StateCheck(game, "gnubg")  # seated by load_bot

    def step(self, state: pyspiel.State) -> int:
        self.state_check(state)
        equities = self.judge.move_equities(state)
        return max(equities, key=equities.__getitem__)  # the first of the best

    def restart_at(self, state: pyspiel.State) -> None:
        pass

    def inform_action(self, state: pyspiel.State, player_id: int, action: int) -> None:
        pass


def _refuse(info: GameInfo) -> str:
    return check_backgammon(load_game(info.description)) or missing_extra()


def _build(
    game: pyspiel.Game, info: GameInfo, player_id: int, params: dict[str, Any]
) -> pyspiel.Bot:
    return GnubgBot(game, GnubgSettings(**pick(GnubgSettings, params)))


SPECS: Final = (
    BotSpec(
        name="gnubg",
        description=(
            "GNU Backgammon's choice of move (its network at 0-ply, or 1- or 2-ply lookahead), "
            "the judge of backgammon programs"
        ),
        params={**declared(GnubgSettings), **SEED_PARAM},  # seed: unused, deterministic
        requirements=TWO_PLAYER_ZERO_SUM_CHANCE,
        build=_build,
        refuse=_refuse,
        plays_note="backgammon only (and the gnubg extra)",
    ),
)
