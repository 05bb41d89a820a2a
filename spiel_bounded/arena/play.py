"""Plays one scheduled game in a Python loop and returns its `GameRecord`; never raises.

The loop, rather than `pyspiel.evaluate_bots`, is what lets the arena time every move, read a
search's node count, check every action's legality and turn any exception into an error record.
It samples chance outcomes itself from a numpy Generator seeded with the game's seed, so that no
bot is ever stepped on a chance node (OpenSpiel's C++ `MCTSBot` must not be), and it informs every
other bot of each action, as `pyspiel.evaluate_bots` does.

An error while the game and its bots are built is a `setup` error (the game is played again on
resume); an error once play has started is a `play` error, a result (see `records.ERROR_KINDS`).
A caller that may lose the process to a crash in native code passes a `watch`: shared memory in
which the loop keeps which seat is acting, doing what, at which move, for the crash record.
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable, MutableSequence, Sequence
from typing import Final

import numpy as np
import pyspiel

import spiel_bounded  # noqa: F401  (registers the synthetic game in worker processes)
from spiel_bounded import registry
from spiel_bounded.arena.records import PLAY, SETUP, GameRecord
from spiel_bounded.arena.schedule import Match, SeatBot, bot_seed
from spiel_bounded.games import load_game

IDLE: Final = 0
BUILDING: Final = 1
STEPPING: Final = 2
WATCH_SIZE: Final = 3
"""A watch is WATCH_SIZE integers: acting seat (-1: none), phase (IDLE, BUILDING, STEPPING) and
moves played so far; e.g. `multiprocessing.Array("i", WATCH_SIZE)`, which outlives the process
that writes it."""


class IllegalActionError(RuntimeError):
    """A bot returned an action that is not legal in the state it was asked about."""


def build_bot(seat: SeatBot, game: pyspiel.Game, player: int, seed: int) -> pyspiel.Bot:
    """Builds the bot of one seat with its per-game seed."""
    if seat.factory is not None:
        return seat.factory(game, player, dict(seat.params), seed)
    return registry.load_bot(seat.bot, game, player, **seat.params, seed=seed)


def play_match(match: Match, *, watch: MutableSequence[int] | None = None) -> GameRecord:
    """Plays `match` and returns its record; an exception becomes an error record.

    Args:
        match: The scheduled game.
        watch: Where to keep the acting seat, phase and move count (see `WATCH_SIZE`), so that
            a parent process can tell who was acting if this process dies; None: not kept.
    """
    started = time.perf_counter()
    players = len(match.seats)
    moves = 0
    seat_moves = [0] * players
    seconds: list[list[float]] = [[] for _ in range(players)]
    nodes: list[list[int]] = [[] for _ in range(players)]
    actions: list[int] = []
    returns: tuple[float, ...] = ()
    error = ""
    kind = SETUP
    acting: int | None = None
    mark = _marker(watch)
    try:
        game = load_game(match.game)
        if game.num_players() != players:
            raise ValueError(f"{match.game} has {game.num_players()} players, not {players}")
        bots = []
        for player, seat in enumerate(match.seats):
            acting = player
            mark(player, BUILDING, 0)
            bots.append(build_bot(seat, game, player, bot_seed(match.seed, player)))
        acting = None
        mark(-1, IDLE, 0)
        kind = PLAY
        rng = np.random.default_rng(match.seed)
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                action = _sample_chance(state, rng)
                for bot in bots:
                    bot.inform_action(state, int(pyspiel.PlayerId.CHANCE), action)
                state.apply_action(action)
                actions.append(action)
                continue
            player = state.current_player()
            if not 0 <= player < players:
                raise RuntimeError(
                    f"{match.game}: current player {player} is not a seat (simultaneous move?)"
                )
            legal = state.legal_actions()
            if moves < len(match.opening):
                action = match.opening[moves]
                if action not in legal:
                    raise IllegalActionError(
                        f"opening ply {moves} ({' '.join(map(str, match.opening))}) is action "
                        f"{action}, which is not legal; legal actions: {legal}; state:\n{state}"
                    )
            elif moves < match.opening_moves:
                action = int(legal[rng.integers(len(legal))])
            else:
                acting = player
                bot = bots[player]
                mark(player, STEPPING, moves)
                tick = time.perf_counter()
                action = bot.step(state)
                seconds[player].append(time.perf_counter() - tick)
                mark(-1, IDLE, moves)
                seat_moves[player] += 1
                counted = _nodes(bot)
                if counted is not None:
                    nodes[player].append(counted)
                if action not in legal:
                    raise IllegalActionError(
                        f"{match.seats[player].label} (seat {player}) chose action {action}, "
                        f"which is not legal; legal actions: {legal}; state:\n{state}"
                    )
                acting = None
            for other, bot in enumerate(bots):
                if other != player or moves < match.opening_plies:
                    bot.inform_action(state, player, action)
            state.apply_action(action)
            actions.append(int(action))
            moves += 1
        returns = tuple(float(value) for value in state.returns())
    except Exception:
        error = traceback.format_exc()
    return GameRecord(
        game_id=match.game_id,
        game=match.game,
        round=match.round,
        seats=match.labels,
        bots=tuple(seat.bot for seat in match.seats),
        params_hashes=tuple(seat.params_hash for seat in match.seats),
        seed=match.seed,
        returns=returns,
        moves=moves,
        seat_moves=tuple(seat_moves),
        seconds_per_move=tuple(_mean(values) for values in seconds),
        max_seconds=tuple(max(values, default=float("nan")) for values in seconds),
        nodes_per_move=tuple(
            _mean(counts) if counts and len(counts) == count else None
            for counts, count in zip(nodes, seat_moves, strict=True)
        ),
        actions=tuple(actions),
        duration=time.perf_counter() - started,
        error_seat=acting if error else None,
        error=error,
        error_kind=kind if error else "",
    )


def error_record(
    match: Match, message: str, *, kind: str, seat: int | None = None, moves: int = 0
) -> GameRecord:
    """The record of a game whose result was lost (e.g. its worker process died).

    Args:
        match: The scheduled game.
        message: What happened (stored as the record's error).
        kind: One of `records.ERROR_KINDS`.
        seat: The seat that was acting, if known.
        moves: Moves played before it happened, if known.
    """
    players = len(match.seats)
    return GameRecord(
        game_id=match.game_id,
        game=match.game,
        round=match.round,
        seats=match.labels,
        bots=tuple(seat.bot for seat in match.seats),
        params_hashes=tuple(seat.params_hash for seat in match.seats),
        seed=match.seed,
        returns=(),
        moves=moves,
        seat_moves=(0,) * players,
        seconds_per_move=(float("nan"),) * players,
        max_seconds=(float("nan"),) * players,
        nodes_per_move=(None,) * players,
        actions=(),
        duration=0.0,
        error_seat=seat,
        error=message,
        error_kind=kind,
    )


def _marker(watch: MutableSequence[int] | None) -> Callable[[int, int, int], None]:
    if watch is None:
        return _no_mark

    def mark(seat: int, phase: int, moves: int) -> None:
        # The phase is written last and cleared first, so a reader never pairs a phase
        # with a stale seat.
        watch[1] = IDLE
        watch[0] = seat
        watch[2] = moves
        watch[1] = phase

    return mark


def _no_mark(seat: int, phase: int, moves: int) -> None:
    pass


def _sample_chance(state: pyspiel.State, rng: np.random.Generator) -> int:
    outcomes = state.chance_outcomes()
    probabilities = np.array([probability for _, probability in outcomes], dtype=float)
    index = rng.choice(len(outcomes), p=probabilities / probabilities.sum())
    return int(outcomes[index][0])


def _nodes(bot: pyspiel.Bot) -> int | None:
    # Our bots expose their last SearchResult, whose node count is None when the search does
    # not count nodes. A count of 0 is real: BABMCTS creates no node on a move whose position
    # its kept tree already proved.
    result = getattr(bot, "last_result", None)
    count = getattr(getattr(result, "stats", None), "nodes", None)
    return int(count) if isinstance(count, int) else None


def _mean(values: Sequence[float]) -> float:
    return float(np.mean(values)) if len(values) else float("nan")
