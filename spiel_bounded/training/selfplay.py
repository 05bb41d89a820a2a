"""One self-play game's positions, with the game's outcome and the bot's search values."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import numpy as np
import pyspiel

from spiel_bounded import registry
from spiel_bounded.bots.base import SearchBot
from spiel_bounded.evaluators.value_net.features import Features
from spiel_bounded.games import load_game
from spiel_bounded.result import SearchResult
from spiel_bounded.training.config import DataConfig


@dataclass(frozen=True)
class GamePositions:
    """The positions of one self-play game.

    Attributes:
        index: The game's number in the run (its seed derives from it).
        features: `[positions, size]` network inputs.
        outcome: `[positions, players]` the game's final returns (the same on every row).
        search: `[positions, players]` the searching bot's value of the position for every
            player; NaN where no search was run (random opening moves, chance nodes).
        keys: `[positions]` the position's identity (mover and `str(state)`), for deduplication.
        exact: `[positions]` the search proved the position's game value (its bounds hold for
            the game value, `SearchResult.bounds_game_value`, and meet, `EXACT_WIDTH`): `search`
            then is that value, not an estimate.
    """

    index: int
    features: np.ndarray
    outcome: np.ndarray
    search: np.ndarray
    keys: np.ndarray
    exact: np.ndarray


EXACT_WIDTH: Final = 1e-9
"""A position is labelled exact when its search proved bounds on the game value at most this
share of the value range apart: the value itself (epsilon 0), not an interval."""

SEARCH_LABEL_WIDTH: Final = 0.1
"""A two-player search's bounds give a label only when they are at most this share of the value
range apart (bounded alpha-beta at a small epsilon): MCTS and proof-number searches report wide
proven bounds, not an estimate, and an unfinished iteration reports the whole range."""


def search_values(result: SearchResult | None, mover: int, game: pyspiel.Game) -> list[float]:
    """Every player's value of the root by a search result (NaN when it gives none).

    An n-player search gives its vector; a two-player search gives the mover's value (the middle
    of its bounds, when they are at most `SEARCH_LABEL_WIDTH` of the range apart), the other
    player gets the rest of the constant sum.
    """
    players = game.num_players()
    width = SEARCH_LABEL_WIDTH * (game.max_utility() - game.min_utility())
    if result is None or (result.values is None and result.upper - result.lower > width):
        return [float("nan")] * players
    if result.values is not None:
        return [float(value) for value in result.values]
    utility = game.get_type().utility
    if players != 2 or utility not in (
        pyspiel.GameType.Utility.ZERO_SUM,
        pyspiel.GameType.Utility.CONSTANT_SUM,
    ):
        return [float("nan")] * players
    total = 0.0 if utility == pyspiel.GameType.Utility.ZERO_SUM else float(game.utility_sum())
    value = 0.5 * (result.lower + result.upper)
    values = [total - value, total - value]
    values[mover] = value
    return values


def play_selfplay_game(config: DataConfig, index: int) -> GamePositions:
    """Plays game `index` of a run: `config.bot` in every seat, the first `opening_moves` plies
    and an `epsilon` share of later moves uniformly at random (the bot still searches those, so
    they keep a search value); chance outcomes drawn from their probabilities."""
    game = load_game(config.game)
    value_range = game.max_utility() - game.min_utility()
    seeds = np.random.SeedSequence([config.seed, index]).generate_state(game.num_players() + 1)
    rng = np.random.default_rng(seeds[0])
    spec = registry.get_spec(config.bot)
    bots = []
    for player in range(game.num_players()):
        params = dict(config.bot_params)
        if "seed" in spec.params:
            params.setdefault("seed", int(seeds[player + 1]))
        bots.append(registry.load_bot(config.bot, game, player, **params))
    features = Features(game)
    rows: list[np.ndarray] = []
    search: list[list[float]] = []
    exact: list[bool] = []
    keys: list[str] = []
    state = game.new_initial_state()
    plies = 0
    while not state.is_terminal():
        mover = state.current_player()
        rows.append(features.of(state))
        keys.append(f"{mover}|{state}")
        if state.is_chance_node():
            outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
            action = int(rng.choice(outcomes, p=probabilities))
            search.append(search_values(None, mover, game))
            exact.append(False)
            for bot in bots:
                bot.inform_action(state, mover, action)
        else:
            legal = state.legal_actions()
            result, chosen = None, None
            if plies < config.opening_moves:
                action = int(rng.choice(legal))
            else:
                action = chosen = bots[mover].step(state)
                result = bots[mover].last_result if isinstance(bots[mover], SearchBot) else None
                if rng.random() < config.epsilon:
                    action = int(rng.choice(legal))
            if action != chosen:
                bots[mover].restart()  # a bot that keeps a tree must not think it chose this
            search.append(search_values(result, mover, game))
            exact.append(
                result is not None
                and result.bounds_game_value
                and result.upper - result.lower <= EXACT_WIDTH * value_range
            )
            for player, bot in enumerate(bots):
                if player != mover:
                    bot.inform_action(state, mover, action)
            plies += 1
        state.apply_action(action)
    returns = np.asarray(state.returns(), dtype=np.float32)
    count = len(rows)
    return GamePositions(
        index=index,
        features=np.asarray(rows, dtype=np.float32).reshape(count, features.size),
        outcome=np.tile(returns, (count, 1)),
        search=np.asarray(search, dtype=np.float32).reshape(count, game.num_players()),
        keys=np.asarray(keys, dtype=str),
        exact=np.asarray(exact, dtype=bool),
    )
