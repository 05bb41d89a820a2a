"""The n-player family: `maxn` (more to come: paranoid, brs_plus, offensive, mp_mix).

The bot plays the search's own move (`policy=None`): max^n breaks ties by move order, and a
bound-based policy would break them otherwise.
"""

from __future__ import annotations

from typing import Any, Final

import pyspiel

from spiel_bounded.bots.base import SearchBot
from spiel_bounded.bots.spec import (
    EVALUATOR_PARAMS,
    LIMIT_PARAMS,
    SEED_PARAM,
    BotSpec,
    evaluator_from,
    limits_from,
)
from spiel_bounded.games import GameInfo
from spiel_bounded.params import declared, pick
from spiel_bounded.result import SearchResult
from spiel_bounded.search.maxn import N_PLAYER_GAMES, MaxnSettings, maxn, pruning_bounds


def _build_maxn(
    game: pyspiel.Game, info: GameInfo, player_id: int, params: dict[str, Any]
) -> pyspiel.Bot:
    settings = MaxnSettings(**pick(MaxnSettings, params))
    if settings.pruning != "none":
        pruning_bounds(info, game)  # refuses a game without bounds now, not at the first move
    limits = limits_from(params)
    evaluator = evaluator_from(game, params)

    def search(state: pyspiel.State) -> SearchResult:
        return maxn(state, evaluator=evaluator, limits=limits, settings=settings)

    return SearchBot(game, player_id, search, policy=None, seed=params["seed"])


SPECS: Final = (
    BotSpec(
        name="maxn",
        description=(
            "max^n (Luckhardt & Irani) for n players, chance nodes as expected vectors, "
            "iterative deepening, shallow pruning on constant-sum games"
        ),
        params={**declared(MaxnSettings), **LIMIT_PARAMS, **EVALUATOR_PARAMS, **SEED_PARAM},
        requirements=N_PLAYER_GAMES,
        build=_build_maxn,
    ),
)
