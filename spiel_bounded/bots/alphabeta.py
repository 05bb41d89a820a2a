"""The alpha-beta family: `bounded_ab`, `bounded_star1`, `bounded_star2`.

Each is a `SearchBot` over one search function of `search.alphabeta`, built from
`AlphaBetaSettings` and `Limits`, whose fields are the bot's parameters.
"""

from __future__ import annotations

from typing import Final

from spiel_bounded.bots.spec import SearchSpec, search_bot
from spiel_bounded.games import TWO_PLAYER_ZERO_SUM, TWO_PLAYER_ZERO_SUM_CHANCE
from spiel_bounded.search.alphabeta import (
    AlphaBetaSettings,
    bounded_ab,
    bounded_star1,
    bounded_star2,
)

SPECS: Final = (
    search_bot(
        name="bounded_ab",
        description=(
            "bounded alpha-beta: iterative deepening with transpositions and move ordering, "
            "stops once the root value is proved to within epsilon"
        ),
        requirements=TWO_PLAYER_ZERO_SUM,
        search=SearchSpec(
            function=bounded_ab,
            settings=AlphaBetaSettings,
            omit=frozenset({"chance_epsilon"}),  # no chance nodes
        ),
    ),
    search_bot(
        name="bounded_star1",
        description="bounded Star-1: bounded alpha-beta with chance nodes (Ballard 1983)",
        requirements=TWO_PLAYER_ZERO_SUM_CHANCE,
        search=SearchSpec(function=bounded_star1, settings=AlphaBetaSettings),
    ),
    search_bot(
        name="bounded_star2",
        description=(
            "bounded Star-2: Star-1 that first probes one move per chance outcome "
            "(Ballard 1983; Hauk, Buro & Schaeffer 2004)"
        ),
        requirements=TWO_PLAYER_ZERO_SUM_CHANCE,
        search=SearchSpec(function=bounded_star2, settings=AlphaBetaSettings),
    ),
)
