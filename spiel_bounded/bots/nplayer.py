"""The n-player family: `maxn`, `paranoid`, `brs_plus`, `offensive` and `mp_mix`.

The bots play the search's own move (`policy` absent), except `paranoid`, whose root bounds are
bounds of a two-sided value: max^n breaks ties by move order, and a bound-based policy would
break them otherwise. `mp_mix`'s `last_result` is the `MPMixResult` of its last move, whose
`choice` says which strategy it played.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import pyspiel

from spiel_bounded.bots.spec import SearchSpec, search_bot
from spiel_bounded.games import GameInfo
from spiel_bounded.params import FLAG, Number, Param, declared
from spiel_bounded.search.alphabeta import PARANOID_GAMES, AlphaBetaSettings, paranoid
from spiel_bounded.search.brs import BRS_GAMES, BRSSettings, brs_plus
from spiel_bounded.search.maxn import (
    N_PLAYER_GAMES,
    MaxnSettings,
    applied_pruning,
    directed_offensive,
    maxn,
    pruning_bounds,
)
from spiel_bounded.search.mpmix import MP_MIX_GAMES, MPMixSettings, mp_mix


def _check_pruning(
    game: pyspiel.Game, info: GameInfo, player_id: int, params: Mapping[str, Any]
) -> None:
    """Refuses a game without bounds now, not at the first move, when max^n would prune."""
    if applied_pruning(params["pruning"], game) != "none":
        pruning_bounds(info, game)


def _check_target(
    game: pyspiel.Game, info: GameInfo, player_id: int, params: Mapping[str, Any]
) -> None:
    target = params["target"]
    if target is not None and not (0 <= target < info.num_players and target != player_id):
        raise ValueError(
            f"target {target} is not another player of {info.description} for seat {player_id}"
        )


SPECS: Final = (
    search_bot(
        name="maxn",
        description=(
            "max^n (Luckhardt & Irani) for n players, chance nodes as expected vectors, "
            "iterative deepening, speculative pruning on constant-sum games"
        ),
        requirements=N_PLAYER_GAMES,
        search=SearchSpec(function=maxn, settings=MaxnSettings, prepare=_check_pruning),
        policy=False,
    ),
    search_bot(
        name="paranoid",
        description=(
            "paranoid search: the mover against the coalition of all others, on the bounded "
            "alpha-beta engine (epsilon, transpositions, ordering, Star-1/Star-2 at chance nodes)"
        ),
        requirements=PARANOID_GAMES,
        search=SearchSpec(
            function=paranoid,
            settings=AlphaBetaSettings,
            keywords={
                "probing": Param(True, "Star-2 probing at chance nodes (False: Star-1)", FLAG)
            },
        ),
    ),
    search_bot(
        name="brs_plus",
        description=(
            "BRS+ (Schadd & Winands; Esser et al.): one opponent replies with a searched move "
            "between root moves, the others play their evaluator-preferred move"
        ),
        requirements=BRS_GAMES,
        search=SearchSpec(function=brs_plus, settings=BRSSettings),
        policy=False,
    ),
    search_bot(
        name="offensive",
        description=(
            "directed offensive (Zuckerman, Felner & Kraus): minimise a target's value, the "
            "others assumed to play max^n"
        ),
        requirements=N_PLAYER_GAMES,
        search=SearchSpec(
            function=directed_offensive,
            keywords={
                "target": Param(
                    None,
                    "the player attacked (None: the leader by the evaluator at each move)",
                    Number(minimum=0, integer=True, optional=True),
                ),
                "engine": declared(MaxnSettings)["engine"],
            },
            prepare=_check_target,
        ),
        policy=False,
    ),
    search_bot(
        name="mp_mix",
        description=(
            "MP-Mix (Zuckerman, Felner & Kraus): per move, paranoid when leading, directed "
            "offensive against a clear leader, else max^n with shallow pruning"
        ),
        requirements=MP_MIX_GAMES,
        search=SearchSpec(function=mp_mix, settings=MPMixSettings),
        policy=False,
    ),
)
