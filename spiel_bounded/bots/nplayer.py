"""The n-player family: `maxn`, `paranoid`, `brs_plus`, `offensive` and `mp_mix`.

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
from spiel_bounded.params import (
    FLAG,
    Number,
    Param,
    declared,
    pick,
)
from spiel_bounded.result import SearchResult
from spiel_bounded.search.alphabeta import PARANOID_GAMES, AlphaBetaSettings, paranoid
from spiel_bounded.search.brs import BRS_GAMES, brs_plus
from spiel_bounded.search.maxn import (
    N_PLAYER_GAMES,
    MaxnSettings,
    applied_pruning,
    directed_offensive,
    maxn,
    pruning_bounds,
)
from spiel_bounded.search.mpmix import MP_MIX_GAMES, MPMixChoice, MPMixSettings, mp_mix


def _build_maxn(
    game: pyspiel.Game, info: GameInfo, player_id: int, params: dict[str, Any]
) -> pyspiel.Bot:
    settings = MaxnSettings(**pick(MaxnSettings, params))
    if applied_pruning(settings.pruning, game) != "none":
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


def _build_brs_plus(
    game: pyspiel.Game, info: GameInfo, player_id: int, params: dict[str, Any]
) -> pyspiel.Bot:
    limits = limits_from(params)
    evaluator = evaluator_from(game, params)

    def search(state: pyspiel.State) -> SearchResult:
        return brs_plus(state, evaluator=evaluator, limits=limits)

    return SearchBot(game, player_id, search, policy=None, seed=params["seed"])


def _build_offensive(
    game: pyspiel.Game, info: GameInfo, player_id: int, params: dict[str, Any]
) -> pyspiel.Bot:
    limits = limits_from(params)
    evaluator = evaluator_from(game, params)
    target = params["target"]
    if target is not None and not (0 <= target < info.num_players and target != player_id):
        raise ValueError(
            f"target {target} is not another player of {info.description} for seat {player_id}"
        )

    def search(state: pyspiel.State) -> SearchResult:
        return directed_offensive(state, evaluator=evaluator, limits=limits, target=target)

    return SearchBot(game, player_id, search, policy=None, seed=params["seed"])


class MPMixBot(SearchBot):
    """MP-Mix (`search.mpmix.mp_mix`) as a bot; `last_choice` holds the strategy of its most
    recent move."""

    def __init__(
        self, game: pyspiel.Game, info: GameInfo, player_id: int, params: dict[str, Any]
    ) -> None:
        settings = MPMixSettings(**pick(MPMixSettings, params))
        limits = limits_from(params)
        evaluator = evaluator_from(game, params)
        self.last_choice: MPMixChoice | None = None

        def search(state: pyspiel.State) -> SearchResult:
            result = mp_mix(state, evaluator=evaluator, limits=limits, settings=settings)
            self.last_choice = result.choice
            return result

        super().__init__(game, player_id, search, policy=None, seed=params["seed"])


_AB_SETTINGS = declared(AlphaBetaSettings)

SPECS: Final = (
    BotSpec(
        name="maxn",
        description=(
            "max^n (Luckhardt & Irani) for n players, chance nodes as expected vectors, "
            "iterative deepening, speculative pruning on constant-sum games"
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
    BotSpec(
        name="brs_plus",
        description=(
            "BRS+ (Schadd & Winands; Esser et al.): one opponent replies with a searched move "
            "between root moves, the others play their evaluator-preferred move"
        ),
        params={**LIMIT_PARAMS, **EVALUATOR_PARAMS, **SEED_PARAM},
        requirements=BRS_GAMES,
        build=_build_brs_plus,
    ),
    BotSpec(
        name="offensive",
        description=(
            "directed offensive (Zuckerman, Felner & Kraus): minimise a target's value, the "
            "others assumed to play max^n"
        ),
        params={
            "target": Param(
                None,
                "the player attacked (None: the leader by the evaluator at each move)",
                Number(minimum=0, integer=True, optional=True),
            ),
            **LIMIT_PARAMS,
            **EVALUATOR_PARAMS,
            **SEED_PARAM,
        },
        requirements=N_PLAYER_GAMES,
        build=_build_offensive,
    ),
    BotSpec(
        name="mp_mix",
        description=(
            "MP-Mix (Zuckerman, Felner & Kraus): per move, paranoid when leading, directed "
            "offensive against a clear leader, else max^n with shallow pruning"
        ),
        params={
            **declared(MPMixSettings),
            **LIMIT_PARAMS,
            **EVALUATOR_PARAMS,
            **SEED_PARAM,
        },
        requirements=MP_MIX_GAMES,
        build=MPMixBot,
    ),
)
