"""A whole self-play game on the native engine (`native/src/selfplay.cc`).

The Python loop (`training.selfplay`) calls a bot per move; for the two-player alpha-beta family
with an evaluator that has a C++ twin, the native engine plays the whole game instead: the
searches, the move choice of the bot's policy, the rows and the labels stay in C++, and Python
only makes the game's random draws (`Draws`), from the same generators in the same order as
the Python loop, so both play the same games (`tests/test_native_selfplay.py` compares them).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pyspiel

from spiel_bounded import registry
from spiel_bounded.bots.spec import evaluator_from, limits_from
from spiel_bounded.evaluators import MIX_PREFIX, NET_PREFIX
from spiel_bounded.evaluators.mixed import parse_mix
from spiel_bounded.evaluators.value_net.checkpoint import checkpoint_file
from spiel_bounded.evaluators.value_net.features import CHANCE_VIEWS
from spiel_bounded.evaluators.value_net.lifted import LIFTED_VIEWS
from spiel_bounded.games import check_epsilon, game_info, load_game
from spiel_bounded.native import engine_module
from spiel_bounded.params import pick
from spiel_bounded.search.alphabeta import AlphaBetaSettings
from spiel_bounded.search.alphabeta.search import PROBES, native_arguments, search_depths
from spiel_bounded.search.native_evaluators import reusable_twin
from spiel_bounded.training.config import DataConfig
from spiel_bounded.training.positions import ChildBounds, GamePositions, two_player_total


class Draws:
    """The random draws of one self-play game, as the Python loop makes them: `rng` for the
    openings, the exploration moves and chance, each seat's own generator (the bot's `seed`)
    for the ties of its policy (`bots.base.choose_action`)."""

    def __init__(self, rng: np.random.Generator, epsilon: float, seats: Sequence[int]) -> None:
        self._rng = rng
        self._epsilon = epsilon
        self._ties = [np.random.default_rng(seed) for seed in seats]

    def opening(self, legal: list[int]) -> int:
        return int(self._rng.choice(legal))

    def explore(self, legal: list[int]) -> int | None:
        return int(self._rng.choice(legal)) if self._rng.random() < self._epsilon else None

    def chance(self, outcomes: list[int], probabilities: list[float]) -> int:
        return int(self._rng.choice(outcomes, p=probabilities))

    def tie(self, player: int, tied: list[int]) -> int:
        return int(tied[self._ties[player].integers(len(tied))])


def play_native_game(
    config: DataConfig, index: int, game: pyspiel.Game, seeds: np.ndarray
) -> GamePositions | None:
    """Game `index` of `config` played whole on the native engine, or None when the Python loop
    must play it: another bot than bounded_ab / bounded_star1 / bounded_star2, a game or
    parameters it refuses (the Python loop raises the error), the Python engine, an evaluator
    without a shared C++ twin, or `drawn_outcome = "heuristic"` (which values the position
    before the end, which only the Python loop keeps)."""
    algorithm = config.bot
    if algorithm not in PROBES or config.drawn_outcome != "returns":
        return None
    spec = registry.get_spec(algorithm)
    info = game_info(game)
    total = two_player_total(game)
    if total is None or spec.reasons_against(info):
        return None
    seated = [{"seed": int(seeds[player + 1]), **config.bot_params} for player in range(2)]
    try:
        checked = [registry.check_params(spec, params) for params in seated]
        check_epsilon(checked[0]["epsilon"], info, algorithm)
    except ValueError:
        return None
    params = checked[0]
    settings = AlphaBetaSettings(**pick(AlphaBetaSettings, params))
    if config.tree_labels and not settings.transpositions:
        return None
    game, twin = _evaluator_twin(game, params, settings.engine, algorithm)
    if twin is None:
        return None
    limits = limits_from(params)
    depths = search_depths(game, limits, settings)
    played = engine_module(algorithm).self_play_game(
        game,
        twin,
        Draws(np.random.default_rng(seeds[0]), config.epsilon, [p["seed"] for p in checked]),
        **native_arguments(game, settings, PROBES[algorithm], depths),
        endgame_plies=settings.endgame_plies,
        max_nodes=limits.nodes,
        seconds=limits.seconds,
        policy=params["policy"],
        opening_moves=config.opening_moves,
        bounds_game_value=info.num_players == 2 and info.zero_sum,
        total=total,
        below=_below(config),
        label_min_depth=config.label_depth,
        chance_view=CHANCE_VIEWS[0],
        lifted_view=LIFTED_VIEWS[0],
    )
    return _positions(played, index)


def _evaluator_twin(
    game: pyspiel.Game, params: Mapping[str, Any], engine: str, algorithm: str
) -> tuple[pyspiel.Game, Any]:
    """The shared C++ twin of the evaluator `params` name (`reusable_twin`), or None, and the
    game it was made for. A twin named by a string is kept for the process's later games
    (`_kept_twin`); an evaluator object gets its own."""
    spec = params["evaluator"]
    if not isinstance(spec, str):
        return game, reusable_twin(engine, algorithm, evaluator_from(game, params), game)
    try:
        stamp = _file_stamp(spec)
    except ValueError:  # a missing checkpoint: the Python loop raises the error
        return game, None
    return _kept_twin(str(game), spec, params["rollouts"], engine, algorithm, stamp)


def _file_stamp(spec: str) -> tuple[int, ...] | None:
    """(modification time, size) of each checkpoint a "net:PATH" evaluator, or a mix holding
    one, reads; None for the other evaluators."""
    parts = [spec]
    if spec.startswith(MIX_PREFIX):
        mix = parse_mix(spec)
        parts = [mix.first, mix.second]
    stamp: tuple[int, ...] = ()
    for part in parts:
        if part.startswith(NET_PREFIX):
            found = checkpoint_file(part[len(NET_PREFIX) :]).stat()
            stamp += (found.st_mtime_ns, found.st_size)
    return stamp or None


@functools.lru_cache(maxsize=4)
def _kept_twin(
    game_text: str,
    spec: str,
    rollouts: int,
    engine: str,
    algorithm: str,
    stamp: tuple[int, ...] | None,
) -> tuple[pyspiel.Game, Any]:
    """A game and the shared twin of evaluator `spec` on it, made once per process for all
    its games (loading a network and copying it into C++ cost about 5% of a connect_four game at
    depth 6); `stamp` (`_file_stamp`) makes a rewritten checkpoint load afresh."""
    game = load_game(game_text)
    evaluator = evaluator_from(game, {"evaluator": spec, "rollouts": rollouts, "seed": 0})
    return game, reusable_twin(engine, algorithm, evaluator, game)


def _below(config: DataConfig) -> str:
    if config.tree_labels:
        return "table"
    return "root_children" if config.root_children else "none"


def _positions(played: Any, index: int) -> GamePositions:
    features = played.features
    count = len(features)
    returns = np.asarray(played.returns, dtype=np.float32)
    return GamePositions(
        index=index,
        features=features,
        outcome=np.tile(returns, (count, 1)),
        search=played.search,
        keys=np.asarray(played.keys, dtype=str),
        exact=played.exact,
        lower=played.lower,
        upper=played.upper,
        children=ChildBounds(
            features=played.below_features,
            lower=played.below_lower,
            upper=played.below_upper,
            keys=np.asarray(played.below_keys, dtype=str),
        ),
    )
