"""The n-player family: `maxn` and `paranoid` (more to come: brs_plus, offensive, mp_mix).

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
    POLICY_PARAM,
    SEED_PARAM,
    BotSpec,
    evaluator_from,
    limits_from,
)
from spiel_bounded.games import GameInfo
from spiel_bounded.params import FLAG, Param, declared, pick
from spiel_bounded.result import SearchResult
from spiel_bounded.search.alphabeta import PARANOID_GAMES, AlphaBetaSettings, paranoid
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


def _build_paranoid(
    game: pyspiel.Game, info: GameInfo, player_id: int, params: dict[str, Any]
) -> pyspiel.Bot:
    settings = AlphaBetaSettings(**pick(AlphaBetaSettings, params))
    limits = limits_from(params)
    evaluator = evaluator_from(game, params)
    probing = params["probing"]

    def search(state: pyspiel.State) -> SearchResult:
        return paranoid(
            state, evaluator=evaluator, limits=limits, settings=settings, probing=probing
        )

    return SearchBot(game, player_id, search, policy=params["policy"], seed=params["seed"])


_AB_SETTINGS = declared(AlphaBetaSettings)

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
    BotSpec(
        name="paranoid",
        description=(
            "paranoid search: the mover against the coalition of all others, on the bounded "
            "alpha-beta engine (epsilon, transpositions, ordering, Star-1/Star-2 at chance nodes)"
        ),
        params={
            "epsilon": _AB_SETTINGS["epsilon"],
            **LIMIT_PARAMS,
            **EVALUATOR_PARAMS,
            **POLICY_PARAM,
            **_AB_SETTINGS,
            "probing": Param(True, "Star-2 probing at chance nodes (False: Star-1)", FLAG),
            **SEED_PARAM,
        },
        requirements=PARANOID_GAMES,
        build=_build_paranoid,
    ),
)
