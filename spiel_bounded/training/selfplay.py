"""One self-play game's positions, with the game's outcome and the bot's search values.

Besides the positions the game went through, a game keeps the positions one move away from
each searched one (the root's children) with the bounds the search put on their values: a
two-player search proves, about every root action it examined, an interval (two-sided for the
best move, one-sided for a refuted one: "worth at most this"). Those intervals are training
targets too (`labelling = "interval"`), the root-level part of Veness et al.'s TreeStrap.
With `tree_labels` an alpha-beta search gives every position its transposition table bounded
instead (`search.table_walk`): the whole of TreeStrap, Descent's "tree learning".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pyspiel

from spiel_bounded import registry
from spiel_bounded.bots.base import SearchBot
from spiel_bounded.evaluators.heuristics import HeuristicEvaluator
from spiel_bounded.evaluators.value_net.features import Features
from spiel_bounded.games import load_game
from spiel_bounded.result import SearchResult, TableLabels
from spiel_bounded.search.table_walk import LabelRequest
from spiel_bounded.training.config import DataConfig
from spiel_bounded.training.native_selfplay import play_native_game
from spiel_bounded.training.positions import (
    EXACT_WIDTH,
    SEARCH_LABEL_WIDTH,
    ChildBounds,
    GamePositions,
    two_player_total,
)


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
    total = two_player_total(game)
    if total is None:
        return [float("nan")] * players
    value = 0.5 * (result.lower + result.upper)
    values = [total - value, total - value]
    values[mover] = value
    return values


def _bounded_total(result: SearchResult | None, game: pyspiel.Game) -> float | None:
    """The constant sum when `result` bounds the mover's value of a two-player constant-sum
    game (not an n-player vector); None otherwise."""
    if result is None or result.values is not None:
        return None
    return two_player_total(game)


def _teaches_nothing(lower: float, upper: float, game: pyspiel.Game) -> bool:
    """Bounds spanning the whole value range."""
    return lower <= game.min_utility() and upper >= game.max_utility()


def player_interval(
    lower: float, upper: float, mover: int, total: float
) -> tuple[list[float], list[float]]:
    """Bounds on the mover's value of a two-player constant-sum game as bounds on each player's
    value (the other player's are `total` minus them, reversed)."""
    lowers, uppers = [total - upper, total - upper], [total - lower, total - lower]
    lowers[mover], uppers[mover] = lower, upper
    return lowers, uppers


def search_interval(
    result: SearchResult | None, mover: int, game: pyspiel.Game
) -> tuple[list[float], list[float]]:
    """Every player's bounds on the root value by a two-player search result: NaN without one,
    in an n-player game, or when they span the whole value range (they teach nothing)."""
    nothing = [float("nan")] * game.num_players()
    total = _bounded_total(result, game)
    if result is None or total is None or _teaches_nothing(result.lower, result.upper, game):
        return nothing, nothing
    return player_interval(result.lower, result.upper, mover, total)


def _children(
    state: pyspiel.State, result: SearchResult | None, features: Features, game: pyspiel.Game
) -> ChildBounds | None:
    """The non-terminal root children a two-player result bounds, with those bounds per
    player; children whose bounds span the whole value range are left out."""
    total = _bounded_total(result, game)
    if result is None or total is None:
        return None
    mover = state.current_player()
    rows, lowers, uppers, keys = [], [], [], []
    for action, bounds in sorted(result.children.items()):
        if _teaches_nothing(bounds.lower, bounds.upper, game):
            continue
        child = state.child(action)
        if child.is_terminal():
            continue
        low, high = player_interval(bounds.lower, bounds.upper, mover, total)
        rows.append(features.of(child))
        lowers.append(low)
        uppers.append(high)
        keys.append(f"{child.current_player()}|{child}")
    return ChildBounds(
        features=np.asarray(rows, dtype=np.float32).reshape(len(rows), features.size),
        lower=np.asarray(lowers, dtype=np.float32).reshape(len(rows), 2),
        upper=np.asarray(uppers, dtype=np.float32).reshape(len(rows), 2),
        keys=np.asarray(keys, dtype=str),
    )


def label_tables(
    bots: list[pyspiel.Bot], request: LabelRequest, name: str, params: Mapping[str, Any]
) -> None:
    """Asks every bot's searches for their tables' positions (`SearchBot.label_tables`);
    `ValueError` naming the bot when it keeps no table (or `params` turn it off)."""
    refused = ValueError(
        f"[data] tree_labels needs a bot whose search keeps a table of bounds, and {name!r} "
        "has none here; accepted: bounded_ab, bounded_star1, bounded_star2 with their "
        "transpositions on (the default)"
    )
    if params.get("transpositions", True) is False:
        raise refused
    for bot in bots:
        if not isinstance(bot, SearchBot):
            raise refused
        try:
            bot.label_tables(request)
        except ValueError:
            raise refused from None


def _table_bounds(labels: TableLabels | None, mover: int, game: pyspiel.Game) -> ChildBounds | None:
    """The positions a two-player search's table bounded (`TableLabels`, in the root mover's
    values), with those bounds per player (`player_interval`, for every row at once)."""
    total = two_player_total(game)
    if labels is None or total is None:
        return None
    mine = np.arange(2) == mover
    lower = np.where(mine, labels.lower[:, None], total - labels.upper[:, None])
    upper = np.where(mine, labels.upper[:, None], total - labels.lower[:, None])
    return ChildBounds(
        features=labels.features,
        lower=lower.astype(np.float32),
        upper=upper.astype(np.float32),
        keys=np.asarray(labels.keys, dtype=str),
    )


def game_outcome(
    config: DataConfig, game: pyspiel.Game, end: pyspiel.State, last: pyspiel.State | None
) -> np.ndarray:
    """What game `end` (terminal) teaches as every player's outcome: its returns, or with
    `drawn_outcome = "heuristic"` and every return equal, the heuristic's values of `last`, the
    position before the end (`DataConfig.drawn_outcome`)."""
    returns = np.asarray(end.returns(), dtype=np.float32)
    if config.drawn_outcome != "heuristic" or last is None or np.ptp(returns) > 0:
        return returns
    return np.asarray(HeuristicEvaluator(game).evaluate(last), dtype=np.float32)


def play_selfplay_game(config: DataConfig, index: int, *, whole_game: bool = True) -> GamePositions:
    """Plays game `index` of a run: `config.bot` in every seat, the first `opening_moves` plies
    and an `epsilon` share of later moves uniformly at random (the bot still searches those, so
    they keep a search value); chance outcomes drawn from their probabilities.

    With `whole_game` the native engine plays the whole game where it can
    (`native_selfplay.play_native_game`, the same game); else the Python loop plays it, each
    search on the engine the bot's parameters choose."""
    game = load_game(config.game)
    value_range = game.max_utility() - game.min_utility()
    seeds = np.random.SeedSequence([config.seed, index]).generate_state(game.num_players() + 1)
    native = play_native_game(config, index, game, seeds) if whole_game else None
    if native is not None:
        return native
    rng = np.random.default_rng(seeds[0])
    spec = registry.get_spec(config.bot)
    bots = []
    for player in range(game.num_players()):
        params = dict(config.bot_params)
        if "seed" in spec.params:
            params.setdefault("seed", int(seeds[player + 1]))
        bots.append(registry.load_bot(config.bot, game, player, **params))
    features = Features(game)
    if config.tree_labels:
        label_tables(
            bots, LabelRequest(features, config.label_depth), config.bot, config.bot_params
        )
    rows: list[np.ndarray] = []
    search: list[list[float]] = []
    lower: list[list[float]] = []
    upper: list[list[float]] = []
    exact: list[bool] = []
    keys: list[str] = []
    children: list[ChildBounds | None] = []
    state = game.new_initial_state()
    last: pyspiel.State | None = None
    plies = 0
    while not state.is_terminal():
        mover = state.current_player()
        rows.append(features.of(state))
        keys.append(f"{mover}|{state}")
        if state.is_chance_node():
            outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
            action = int(rng.choice(outcomes, p=probabilities))
            search.append(search_values(None, mover, game))
            nothing = [float("nan")] * game.num_players()
            lower.append(nothing)
            upper.append(nothing)
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
            lowers, uppers = search_interval(result, mover, game)
            lower.append(lowers)
            upper.append(uppers)
            if config.tree_labels:
                children.append(_table_bounds(result and result.labels, mover, game))
            elif config.root_children:
                children.append(_children(state, result, features, game))
            exact.append(
                result is not None
                and result.bounds_game_value
                and result.upper - result.lower <= EXACT_WIDTH * value_range
            )
            for player, bot in enumerate(bots):
                if player != mover:
                    bot.inform_action(state, mover, action)
            plies += 1
        if config.drawn_outcome == "heuristic":
            last = state.clone()
        state.apply_action(action)
    returns = game_outcome(config, game, state, last)
    count = len(rows)
    players = game.num_players()
    child_bounds = ChildBounds.join(
        [block for block in children if block is not None], features.size, players
    )
    return GamePositions(
        index=index,
        features=np.asarray(rows, dtype=np.float32).reshape(count, features.size),
        outcome=np.tile(returns, (count, 1)),
        search=np.asarray(search, dtype=np.float32).reshape(count, game.num_players()),
        keys=np.asarray(keys, dtype=str),
        exact=np.asarray(exact, dtype=bool),
        lower=np.asarray(lower, dtype=np.float32).reshape(count, players),
        upper=np.asarray(upper, dtype=np.float32).reshape(count, players),
        children=child_bounds,
    )
