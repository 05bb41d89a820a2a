"""Names -> bot factories, for our searches and OpenSpiel's stock bots, with parameter checking.

`load_bot(name, game, player_id, **params)` is the one way to build a bot: every parameter is
checked against the bot's declared parameters, and a game the bot cannot play is refused with
the reason and the bots that can play it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyspiel

from spiel_bounded.bots import POLICIES, SearchBot
from spiel_bounded.cpp_mcts import CppMCTSBot
from spiel_bounded.evaluators import EVALUATOR_NAMES, Evaluator, make_evaluator
from spiel_bounded.evaluators.base import player_value
from spiel_bounded.evaluators.heuristics import has_heuristic
from spiel_bounded.games import GameInfo, game_info, load_game, unsupported_reasons
from spiel_bounded.limits import DEFAULT_SECONDS, Limits
from spiel_bounded.mcts_bot import BOT_POLICIES, build_babmcts
from spiel_bounded.params import (
    FLAG,
    NON_NEGATIVE,
    OPTIONAL_POSITIVE,
    OPTIONAL_POSITIVE_INT,
    POSITIVE,
    POSITIVE_INT,
    SEED,
    OneOf,
    Param,
)
from spiel_bounded.result import Interval, SearchResult, SearchStats
from spiel_bounded.search.alphabeta import (
    CHANCE_EPSILON_POLICIES,
    AlphaBetaSettings,
    bounded_ab,
    bounded_star1,
    bounded_star2,
)

# -- parameter declarations ------------------------------------------------------------------


def _evaluator_spec(value: Any) -> Any:
    if isinstance(value, str):
        return OneOf(("auto", *EVALUATOR_NAMES))(value)
    if isinstance(value, Evaluator):
        return value
    raise ValueError(
        f"must be one of auto, {', '.join(EVALUATOR_NAMES)} or an Evaluator; got {value!r}"
    )


_LIMIT_PARAMS = {
    "depth": Param(None, "depth limit in plies (None: unlimited)", OPTIONAL_POSITIVE_INT),
    "nodes": Param(None, "node limit per move (None: unlimited)", OPTIONAL_POSITIVE_INT),
    "seconds": Param(
        None,
        f"time limit per move in seconds (None: unlimited; {DEFAULT_SECONDS:g} s when no limit "
        "is given)",
        OPTIONAL_POSITIVE,
    ),
}
_EVALUATOR_PARAMS = {
    "evaluator": Param(
        "auto",
        "leaf evaluator: auto (heuristic when the game has one, else rollout), "
        + ", ".join(EVALUATOR_NAMES)
        + ", or an Evaluator object",
        _evaluator_spec,
    ),
    "rollouts": Param(1, "random playouts per evaluation (rollout evaluator)", POSITIVE_INT),
}
_SEED_PARAM = {"seed": Param(0, "seed of all the bot's randomness", SEED)}


# -- bot specifications ----------------------------------------------------------------------


@dataclass(frozen=True)
class BotSpec:
    """A registered bot.

    Attributes:
        name: Registry name.
        description: One line saying what the bot is.
        params: The accepted parameters.
        requirements: Keyword arguments of `games.unsupported_reasons` describing the games the
            bot can play.
        build: Makes the bot from (game, info, player_id, checked params).
    """

    name: str
    description: str
    params: Mapping[str, Param]
    requirements: Mapping[str, Any]
    build: Callable[[pyspiel.Game, GameInfo, int, dict[str, Any]], pyspiel.Bot] = field(repr=False)

    def reasons_against(self, info: GameInfo) -> list[str]:
        """Why this bot cannot play the game (empty when it can)."""
        return unsupported_reasons(info, **self.requirements)

    def reasons_against_game(self, game: pyspiel.Game | str) -> list[str]:
        """`reasons_against` for a loaded game or a game string."""
        return self.reasons_against(game_info(load_game(game)))


def _limits(params: Mapping[str, Any]) -> Limits:
    depth, nodes, seconds = params["depth"], params["nodes"], params["seconds"]
    if depth is None and nodes is None and seconds is None:
        seconds = DEFAULT_SECONDS
    return Limits(depth=depth, nodes=nodes, seconds=seconds)


def _evaluator(game: pyspiel.Game, params: Mapping[str, Any]) -> Evaluator:
    spec = params["evaluator"]
    if spec == "auto":
        spec = "heuristic" if has_heuristic(game) else "rollout"
    return make_evaluator(spec, game, rollouts=params["rollouts"], seed=params["seed"])


def _alpha_beta_builder(search_function: Callable[..., SearchResult]) -> Callable[..., pyspiel.Bot]:
    """A bot factory for one configuration of the alpha-beta engine."""

    def build(
        game: pyspiel.Game, info: GameInfo, player_id: int, params: dict[str, Any]
    ) -> pyspiel.Bot:
        settings = AlphaBetaSettings(
            epsilon=params["epsilon"],
            transpositions=params["transpositions"],
            move_ordering=params["move_ordering"],
            iterative_deepening=params["iterative_deepening"],
            chance_epsilon=params.get("chance_epsilon", "uniform"),
        )
        limits = _limits(params)
        evaluator = _evaluator(game, params)

        def search(state: pyspiel.State) -> SearchResult:
            return search_function(state, evaluator=evaluator, limits=limits, settings=settings)

        return SearchBot(game, player_id, search, policy=params["policy"], seed=params["seed"])

    return build


def _build_openspiel_ab(
    game: pyspiel.Game, info: GameInfo, player_id: int, params: dict[str, Any]
) -> pyspiel.Bot:
    from open_spiel.python.algorithms import minimax

    evaluator = _evaluator(game, params)
    depth = params["depth"]

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
        return SearchResult(
            action=action,
            lower=value,
            upper=value,
            children={action: Interval(value, value)},
            pv=(action,),
            stats=SearchStats(depth=depth),
        )

    return SearchBot(game, player_id, search, seed=params["seed"], counts_nodes=False)


def _build_random(
    game: pyspiel.Game, info: GameInfo, player_id: int, params: dict[str, Any]
) -> pyspiel.Bot:
    return pyspiel.make_uniform_random_bot(player_id, params["seed"])


def _build_mcts(
    game: pyspiel.Game, info: GameInfo, player_id: int, params: dict[str, Any]
) -> pyspiel.Bot:
    return CppMCTSBot(
        game,
        pyspiel.RandomRolloutEvaluator(params["rollouts"], params["seed"]),
        uct_c=params["uct_c"],
        simulations=params["simulations"],
        max_memory_mb=params["max_memory_mb"],
        solve=params["solve"],
        seed=params["seed"],
        seconds=params["seconds"],
    )


def _build_python_mcts(
    game: pyspiel.Game, info: GameInfo, player_id: int, params: dict[str, Any]
) -> pyspiel.Bot:
    from open_spiel.python.algorithms import mcts

    random_state = np.random.RandomState(params["seed"])
    evaluator = mcts.RandomRolloutEvaluator(params["rollouts"], random_state)
    return mcts.MCTSBot(
        game,
        params["uct_c"],
        params["simulations"],
        evaluator,
        solve=params["solve"],
        random_state=random_state,
    )


_MCTS_PARAMS = {
    "simulations": Param(1000, "simulations per move", POSITIVE_INT),
    "uct_c": Param(2.0, "UCT exploration constant", POSITIVE),
    "rollouts": Param(1, "random playouts per leaf", POSITIVE_INT),
    "solve": Param(False, "back up proven wins and losses (MCTS-Solver)", FLAG),
}

_TWO_PLAYER_ZERO_SUM = {"players": (2, 2), "chance": False, "zero_sum": True}
_TWO_PLAYER_ZERO_SUM_CHANCE = {**_TWO_PLAYER_ZERO_SUM, "chance": True}

_ALPHA_BETA_PARAMS = {
    "epsilon": Param(0.0, "tolerance in utility units (0: exact alpha-beta)", NON_NEGATIVE),
    **_LIMIT_PARAMS,
    **_EVALUATOR_PARAMS,
    "policy": Param(
        "pessimistic",
        "move choice from root bounds: " + ", ".join(POLICIES),
        OneOf(POLICIES),
    ),
    "transpositions": Param(True, "use a transposition table", FLAG),
    "move_ordering": Param(True, "TT move, killer moves and history heuristic", FLAG),
    "iterative_deepening": Param(True, "search depth 1, 2, ... up to the limit", FLAG),
    **_SEED_PARAM,
}
_STAR_PARAMS = {
    **_ALPHA_BETA_PARAMS,
    "chance_epsilon": Param(
        "uniform",
        "how a chance node shares epsilon among outcomes: " + ", ".join(CHANCE_EPSILON_POLICIES),
        OneOf(CHANCE_EPSILON_POLICIES),
    ),
}
_ANY_SEQUENTIAL = {
    "players": (1, None),
    "chance": True,
    "zero_sum": False,
    "imperfect_information": True,
}
_MCTS_GAMES = {**_ANY_SEQUENTIAL, "imperfect_information": False, "intermediate_rewards": False}
_CPP_MCTS_GAMES = {**_MCTS_GAMES, "python_games": False}

_SPECS: tuple[BotSpec, ...] = (
    BotSpec(
        name="bounded_ab",
        description=(
            "bounded alpha-beta: iterative deepening with transpositions and move ordering, "
            "stops once the root value is proved to within epsilon"
        ),
        params=_ALPHA_BETA_PARAMS,
        requirements=_TWO_PLAYER_ZERO_SUM,
        build=_alpha_beta_builder(bounded_ab),
    ),
    BotSpec(
        name="bounded_star1",
        description="bounded Star-1: bounded alpha-beta with chance nodes (Ballard 1983)",
        params=_STAR_PARAMS,
        requirements=_TWO_PLAYER_ZERO_SUM_CHANCE,
        build=_alpha_beta_builder(bounded_star1),
    ),
    BotSpec(
        name="bounded_star2",
        description=(
            "bounded Star-2: Star-1 that first probes one move per chance outcome "
            "(Ballard 1983; Hauk, Buro & Schaeffer 2004)"
        ),
        params=_STAR_PARAMS,
        requirements=_TWO_PLAYER_ZERO_SUM_CHANCE,
        build=_alpha_beta_builder(bounded_star2),
    ),
    BotSpec(
        name="openspiel_ab",
        description="OpenSpiel's minimax.alpha_beta_search at a fixed depth with our evaluator",
        params={
            "depth": Param(4, "search depth in plies", POSITIVE_INT),
            **_EVALUATOR_PARAMS,
            **_SEED_PARAM,
        },
        requirements=_TWO_PLAYER_ZERO_SUM,
        build=_build_openspiel_ab,
    ),
    BotSpec(
        name="mcts",
        description="OpenSpiel's C++ MCTSBot with random rollouts",
        params={
            **_MCTS_PARAMS,
            "seconds": Param(
                None,
                "wall-clock limit per move; when set, simulations is ignored (as in OpenSpiel) "
                "but at least the 2 a move needs are run (None: simulations only)",
                OPTIONAL_POSITIVE,
            ),
            "max_memory_mb": Param(1000, "tree memory cap in MB", POSITIVE_INT),
            **_SEED_PARAM,
        },
        requirements=_CPP_MCTS_GAMES,
        build=_build_mcts,
    ),
    BotSpec(
        name="python_mcts",
        description="OpenSpiel's Python MCTSBot (open_spiel.python.algorithms.mcts) with rollouts",
        params={**_MCTS_PARAMS, **_SEED_PARAM},
        requirements=_MCTS_GAMES,
        build=_build_python_mcts,
    ),
    BotSpec(
        name="random",
        description="OpenSpiel's uniform random bot",
        params=dict(_SEED_PARAM),
        requirements=_ANY_SEQUENTIAL,
        build=_build_random,
    ),
    BotSpec(
        name="babmcts",
        description=(
            "BABMCTS: MCTS whose nodes carry proven bounds, alpha-beta windows prune selection; "
            "stops once the root is proved to within epsilon; keeps its tree between moves"
        ),
        params={
            "epsilon": Param(
                0.0, "tolerance in utility units (0: prove the exact value)", NON_NEGATIVE
            ),
            "simulations": Param(
                1000, "simulations per move (None: unlimited)", OPTIONAL_POSITIVE_INT
            ),
            "seconds": Param(
                None,
                f"time limit per move (None: unlimited; {DEFAULT_SECONDS:g} s when simulations, "
                "seconds and nodes are all None)",
                OPTIONAL_POSITIVE,
            ),
            "nodes": Param(
                None, "tree nodes created per move (None: unlimited)", OPTIONAL_POSITIVE_INT
            ),
            "uct_c": Param(2.0, "UCT exploration constant", NON_NEGATIVE),
            "evaluator": Param(
                "auto",
                "leaf evaluator: auto (rollout), "
                + ", ".join(EVALUATOR_NAMES)
                + ", or an Evaluator",
                _evaluator_spec,
            ),
            "rollouts": Param(
                1, "random playouts per evaluation (rollout evaluator)", POSITIVE_INT
            ),
            "policy": Param(
                "auto",
                "move choice: auto (best lower bound once proved, else most visited unpruned "
                "child), or from root bounds: " + ", ".join(POLICIES),
                OneOf(BOT_POLICIES),
            ),
            "reuse_tree": Param(
                True, "keep the subtree below the new position between moves", FLAG
            ),
            "max_nodes": Param(
                1_000_000, "memory cap in tree nodes (about 270 bytes each)", POSITIVE_INT
            ),
            **_SEED_PARAM,
        },
        requirements=_TWO_PLAYER_ZERO_SUM_CHANCE,
        build=build_babmcts,
    ),
)

_REGISTRY: dict[str, BotSpec] = {spec.name: spec for spec in _SPECS}


# -- public API --------------------------------------------------------------------------------


def list_bots() -> tuple[BotSpec, ...]:
    """Every registered bot, with its description and parameters."""
    return tuple(_REGISTRY.values())


def bots_for(game: pyspiel.Game | str) -> list[str]:
    """Names of the bots that can play `game`."""
    info = game_info(load_game(game))
    return [spec.name for spec in _SPECS if not spec.reasons_against(info)]


def get_spec(name: str) -> BotSpec:
    """The registered bot called `name`, or `ValueError` listing the registered names."""
    spec = _REGISTRY.get(name)
    if spec is None:
        raise ValueError(f"unknown bot {name!r}; registered bots: {', '.join(_REGISTRY)}")
    return spec


def check_params(spec: BotSpec, params: Mapping[str, Any]) -> dict[str, Any]:
    """All of the bot's parameters, defaults filled in, each checked; `ValueError` otherwise."""
    unknown = sorted(set(params) - set(spec.params))
    if unknown:
        raise ValueError(
            f"unknown parameter(s) {', '.join(map(repr, unknown))} for bot {spec.name!r}; "
            f"valid parameters: {', '.join(spec.params)}"
        )
    checked = {}
    for name, param in spec.params.items():
        value = params.get(name, param.default)
        try:
            checked[name] = param.check(value)
        except ValueError as error:
            raise ValueError(
                f"bad value for parameter {name!r} of bot {spec.name!r} ({param.doc}): {error}"
            ) from None
    return checked


def load_bot(name: str, game: pyspiel.Game | str, player_id: int, **params: Any) -> pyspiel.Bot:
    """Builds the registered bot `name` to play `game` as `player_id`.

    Raises:
        ValueError: Unknown bot, game or parameter; a bad parameter value; a player id out of
            range; or a game the bot cannot play (the message lists the bots that can).
    """
    spec = get_spec(name)
    loaded = load_game(game)
    info = game_info(loaded)
    reasons = spec.reasons_against(info)
    if reasons:
        able = [other.name for other in _SPECS if not other.reasons_against(info)]
        raise ValueError(
            f"bot {name!r} cannot play {info.description}: {'; '.join(reasons)}. "
            f"Bots that can play it: {', '.join(able) if able else 'none'}"
        )
    if isinstance(player_id, bool) or not isinstance(player_id, int):
        raise ValueError(f"player_id must be an integer, got {player_id!r}")
    if not 0 <= player_id < info.num_players:
        raise ValueError(
            f"player_id {player_id} is out of range for {info.description}, which has "
            f"{info.num_players} players (0..{info.num_players - 1})"
        )
    checked = check_params(spec, params)
    return spec.build(loaded, info, player_id, checked)
