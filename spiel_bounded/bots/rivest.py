"""`rivest`: best-first search by min/max approximation (Rivest 1987).

The bot plays the search's own move (`policy=None`): the root child with the best backed-up
value.
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
from spiel_bounded.games import TWO_PLAYER_ZERO_SUM, GameInfo
from spiel_bounded.params import declared, pick
from spiel_bounded.result import SearchResult
from spiel_bounded.search.rivest import RivestSettings, rivest


def _build_rivest(
    game: pyspiel.Game, info: GameInfo, player_id: int, params: dict[str, Any]
) -> pyspiel.Bot:
    settings = RivestSettings(**pick(RivestSettings, params))
    limits = limits_from(params)
    evaluator = evaluator_from(game, params)

    def search(state: pyspiel.State) -> SearchResult:
        return rivest(state, evaluator=evaluator, limits=limits, settings=settings)

    return SearchBot(game, player_id, search, policy=None, seed=params["seed"])


SPECS: Final = (
    BotSpec(
        name="rivest",
        description=(
            "best-first search by min/max approximation (Rivest 1987): expands the tip the "
            "root's generalized-mean value depends on most; nodes = children generated"
        ),
        params={**declared(RivestSettings), **LIMIT_PARAMS, **EVALUATOR_PARAMS, **SEED_PARAM},
        requirements=TWO_PLAYER_ZERO_SUM,
        build=_build_rivest,
    ),
)
