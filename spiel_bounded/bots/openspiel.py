"""OpenSpiel's stock bots under the registry: `openspiel_ab`, `mcts`, `python_mcts`, `random`.

Their settings are declared here as frozen dataclasses, like ours, so that `load_bot` checks
their parameters the same way; the bots themselves are OpenSpiel's, each behind the state check
every bot here makes (`bots.checks`), since OpenSpiel's bots crash or answer nonsense when asked
to move in a terminal state, at a chance node or in another game.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import pyspiel

from spiel_bounded.bots.base import SearchBot
from spiel_bounded.bots.checks import CheckedBot
from spiel_bounded.bots.cpp_mcts import CppMCTSBot, CppMCTSSettings, MCTSSettings
from spiel_bounded.bots.spec import EVALUATOR_PARAMS, SEED_PARAM, BotSpec, evaluator_from
from spiel_bounded.evaluators.base import player_value
from spiel_bounded.games import TWO_PLAYER_ZERO_SUM, GameInfo, Requirements
from spiel_bounded.params import (
    POSITIVE_INT,
    check_fields,
    declared,
    pick,
    setting,
)
from spiel_bounded.result import Interval, SearchResult, SearchStats, depth_limited

ANY_TURN_BASED: Final = Requirements(
    players=(1, None), chance=True, zero_sum=False, imperfect_information=True
)
"""Any turn-based game with integer actions, imperfect information included (random)."""
MCTS_GAMES: Final = Requirements(
    players=(1, None), chance=True, zero_sum=False, intermediate_rewards=False
)
"""Turn-based perfect-information games that reward only at the end (OpenSpiel's MCTS)."""
CPP_MCTS_GAMES: Final = Requirements(
    players=(1, None), chance=True, zero_sum=False, intermediate_rewards=False, python_games=False
)
"""The same, C++ games only (the C++ MCTSBot crashes when it searches a Python game)."""


@dataclass(frozen=True, kw_only=True)
class OpenSpielABSettings:
    """Settings of `openspiel_ab`: OpenSpiel's `minimax.alpha_beta_search` at a fixed depth."""

    depth: int = setting(4, "search depth in plies", POSITIVE_INT)

    def __post_init__(self) -> None:
        check_fields(self)


def _build_openspiel_ab(
    game: pyspiel.Game, info: GameInfo, player_id: int, params: dict[str, Any]
) -> pyspiel.Bot:
    from open_spiel.python.algorithms import minimax

    evaluator = evaluator_from(game, params)
    depth = OpenSpielABSettings(**pick(OpenSpielABSettings, params)).depth

    def search(state: pyspiel.State) -> SearchResult:
        player = state.current_player()

        def value_function(leaf: pyspiel.State) -> float:
            return player_value(evaluator.evaluate(leaf), player, evaluator, info)

        value, action = minimax.alpha_beta_search(
            game,
            state,
            value_function=value_function,
            maximum_depth=depth,
            maximizing_player_id=player,
        )
        # OpenSpiel's value is exact for its depth-limited minimax under our evaluator.
        return SearchResult(
            action=action,
            lower=value,
            upper=value,
            children={action: Interval(value, value)},
            pv=(action,),
            stats=SearchStats(nodes=None, depth=depth),
            bounds_on=depth_limited("minimax", depth, evaluator),
        )

    return SearchBot(game, player_id, search, seed=params["seed"])


def _build_mcts(
    game: pyspiel.Game, info: GameInfo, player_id: int, params: dict[str, Any]
) -> pyspiel.Bot:
    return CppMCTSBot(game, CppMCTSSettings(**pick(CppMCTSSettings, params)), seed=params["seed"])


def _build_python_mcts(
    game: pyspiel.Game, info: GameInfo, player_id: int, params: dict[str, Any]
) -> pyspiel.Bot:
    from open_spiel.python.algorithms import mcts

    settings = MCTSSettings(**pick(MCTSSettings, params))
    random_state = np.random.RandomState(params["seed"])
    evaluator = mcts.RandomRolloutEvaluator(settings.rollouts, random_state)
    bot = mcts.MCTSBot(
        game,
        settings.uct_c,
        settings.simulations,
        evaluator,
        solve=settings.solve,
        random_state=random_state,
    )
    return CheckedBot(bot, game, "python_mcts")


def _build_random(
    game: pyspiel.Game, info: GameInfo, player_id: int, params: dict[str, Any]
) -> pyspiel.Bot:
    # OpenSpiel's random bot draws from its own player's legal actions: stepped for another
    # player it crashes, so it is refused that too.
    bot = pyspiel.make_uniform_random_bot(player_id, params["seed"])
    return CheckedBot(bot, game, "random", player=player_id)


SPECS: Final = (
    BotSpec(
        name="openspiel_ab",
        description="OpenSpiel's minimax.alpha_beta_search at a fixed depth with our evaluator",
        params={**declared(OpenSpielABSettings), **EVALUATOR_PARAMS, **SEED_PARAM},
        requirements=TWO_PLAYER_ZERO_SUM,
        build=_build_openspiel_ab,
    ),
    BotSpec(
        name="mcts",
        description="OpenSpiel's C++ MCTSBot with random rollouts",
        params={**declared(CppMCTSSettings), **SEED_PARAM},
        requirements=CPP_MCTS_GAMES,
        build=_build_mcts,
    ),
    BotSpec(
        name="python_mcts",
        description="OpenSpiel's Python MCTSBot (open_spiel.python.algorithms.mcts) with rollouts",
        params={**declared(MCTSSettings), **SEED_PARAM},
        requirements=MCTS_GAMES,
        build=_build_python_mcts,
    ),
    BotSpec(
        name="random",
        description="OpenSpiel's uniform random bot",
        params=dict(SEED_PARAM),
        requirements=ANY_TURN_BASED,
        build=_build_random,
    ),
)
