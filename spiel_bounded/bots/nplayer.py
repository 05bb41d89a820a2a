"""The n-player family: `maxn`, `paranoid`, `brs_plus`, `offensive` and `mp_mix`.

The bot plays the search's own move (`policy=None`): max^n breaks ties by move order, and a
bound-based policy would break them otherwise.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
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
from spiel_bounded.evaluators.base import check_values
from spiel_bounded.games import GameInfo, Requirements
from spiel_bounded.params import (
    FLAG,
    NON_NEGATIVE,
    Number,
    Param,
    check_fields,
    declared,
    pick,
    setting,
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


@dataclass(frozen=True, kw_only=True)
class MPMixSettings:
    """When MP-Mix (Zuckerman, Felner & Kraus 2009) leaves max^n, by the evaluator's values of
    the position to move from: `leading edge` is the leader's value minus the runner-up's.

    Attributes:
        defensive_threshold: The mover leads by at least this: play paranoid.
        offensive_threshold: Another player leads by at least this: attack it (directed
            offensive). Otherwise max^n.
    """

    defensive_threshold: float = setting(
        0.2, "the mover leads by at least this: paranoid", NON_NEGATIVE
    )
    offensive_threshold: float = setting(
        0.2, "another player leads by at least this: directed offensive on it", NON_NEGATIVE
    )

    def __post_init__(self) -> None:
        check_fields(self)


@dataclass(frozen=True)
class MPMixChoice:
    """The strategy MP-Mix chose for a move, and the player it attacked (offensive only)."""

    strategy: str
    target: int | None = None


def mp_mix_choice(values: Sequence[float], player: int, settings: MPMixSettings) -> MPMixChoice:
    """Paranoid, offensive or max^n, by the leading edge of `values` (ties: lower index first)."""
    order = sorted(range(len(values)), key=lambda p: (-values[p], p))
    first, second = order[0], order[1]
    edge = values[first] - values[second]
    if first == player and edge >= settings.defensive_threshold:
        return MPMixChoice("paranoid")
    if first != player and edge >= settings.offensive_threshold:
        return MPMixChoice("offensive", first)
    return MPMixChoice("maxn")


class MPMixBot(SearchBot):
    """MP-Mix: per move, paranoid, directed offensive or max^n (see `mp_mix_choice`);
    `last_choice` holds the strategy of the most recent move."""

    def __init__(
        self, game: pyspiel.Game, info: GameInfo, player_id: int, params: dict[str, Any]
    ) -> None:
        settings = MPMixSettings(**pick(MPMixSettings, params))
        limits = limits_from(params)
        evaluator = evaluator_from(game, params)
        ab_settings = AlphaBetaSettings(epsilon=params["epsilon"])
        self.last_choice: MPMixChoice | None = None

        def search(state: pyspiel.State) -> SearchResult:
            values = check_values(evaluator.evaluate(state), evaluator, info)
            choice = mp_mix_choice(values, state.current_player(), settings)
            self.last_choice = choice
            if choice.strategy == "paranoid":
                return paranoid(state, evaluator=evaluator, limits=limits, settings=ab_settings)
            if choice.strategy == "offensive":
                return directed_offensive(
                    state, evaluator=evaluator, limits=limits, target=choice.target
                )
            return maxn(state, evaluator=evaluator, limits=limits)

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
            "epsilon": _AB_SETTINGS["epsilon"],
            **LIMIT_PARAMS,
            **EVALUATOR_PARAMS,
            **SEED_PARAM,
        },
        requirements=Requirements(players=(3, None), chance=True, zero_sum=True),
        build=MPMixBot,
    ),
)
