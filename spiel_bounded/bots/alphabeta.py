"""The alpha-beta family: `bounded_ab`, `bounded_star1`, `bounded_star2`.

Each is a `SearchBot` over one search function of `search.alphabeta`, built from
`AlphaBetaSettings` and `Limits`, whose fields are the bot's parameters.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import pyspiel

from spiel_bounded.bots.base import SearchBot
from spiel_bounded.bots.spec import (
    EVALUATOR_PARAMS,
    LIMIT_PARAMS,
    POLICY_PARAM,
    SEED_PARAM,
    BotSpec,
    Builder,
    evaluator_from,
    limits_from,
)
from spiel_bounded.games import TWO_PLAYER_ZERO_SUM, TWO_PLAYER_ZERO_SUM_CHANCE, GameInfo
from spiel_bounded.params import declared, pick
from spiel_bounded.result import SearchResult
from spiel_bounded.search.alphabeta import (
    AlphaBetaSettings,
    bounded_ab,
    bounded_star1,
    bounded_star2,
)


def _builder(search_function: Callable[..., SearchResult]) -> Builder:
    """A bot factory for one search function of the alpha-beta engine."""

    def build(
        game: pyspiel.Game, info: GameInfo, player_id: int, params: dict[str, Any]
    ) -> pyspiel.Bot:
        settings = AlphaBetaSettings(**pick(AlphaBetaSettings, params))
        limits = limits_from(params)
        evaluator = evaluator_from(game, params)

        def search(state: pyspiel.State) -> SearchResult:
            return search_function(state, evaluator=evaluator, limits=limits, settings=settings)

        return SearchBot(game, player_id, search, policy=params["policy"], seed=params["seed"])

    return build


_SETTINGS = declared(AlphaBetaSettings)
# epsilon first, then limits, evaluator and policy, the engine's switches, the seed last.
_STAR_PARAMS = {
    "epsilon": _SETTINGS["epsilon"],
    **LIMIT_PARAMS,
    **EVALUATOR_PARAMS,
    **POLICY_PARAM,
    **_SETTINGS,
    **SEED_PARAM,
}
_AB_PARAMS = {name: param for name, param in _STAR_PARAMS.items() if name != "chance_epsilon"}

SPECS: Final = (
    BotSpec(
        name="bounded_ab",
        description=(
            "bounded alpha-beta: iterative deepening with transpositions and move ordering, "
            "stops once the root value is proved to within epsilon"
        ),
        params=_AB_PARAMS,
        requirements=TWO_PLAYER_ZERO_SUM,
        build=_builder(bounded_ab),
    ),
    BotSpec(
        name="bounded_star1",
        description="bounded Star-1: bounded alpha-beta with chance nodes (Ballard 1983)",
        params=_STAR_PARAMS,
        requirements=TWO_PLAYER_ZERO_SUM_CHANCE,
        build=_builder(bounded_star1),
    ),
    BotSpec(
        name="bounded_star2",
        description=(
            "bounded Star-2: Star-1 that first probes one move per chance outcome "
            "(Ballard 1983; Hauk, Buro & Schaeffer 2004)"
        ),
        params=_STAR_PARAMS,
        requirements=TWO_PLAYER_ZERO_SUM_CHANCE,
        build=_builder(bounded_star2),
    ),
)
