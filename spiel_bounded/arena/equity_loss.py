"""How far a bot's backgammon moves fall short of GNU Backgammon's choice, in equity.

`judge_tournament` replays every finished backgammon game of a tournament directory in which a
bot (by its label) sat, and at each of its unforced moves (the random opening left out) asks
gnubg for the equity of every legal move (`judges.backgammon.Judge`): the move's loss is the
best equity minus the equity of the move played, 0 when it played gnubg's choice. The result is the
mean loss per move in millipoints (thousandths of a point of cubeless equity, the unit gnubg's
error rates use), with a 95% interval from resampling whole games (a game's moves are not
independent), seeded.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Final

import numpy as np
import pyspiel

from spiel_bounded.arena.store import GameStore
from spiel_bounded.games import load_game
from spiel_bounded.judges.backgammon import Judge, check_backgammon

MILLIPOINTS: Final = 1000.0
RESAMPLES: Final = 2000


@dataclass(frozen=True)
class EquityLoss:
    """A bot's mean equity loss per move against gnubg's choice.

    Attributes:
        label: The bot's label in the tournament.
        games: Games judged.
        moves: Unforced moves judged (turns: a double's two decisions are one move).
        mean: Mean loss per move, millipoints.
        low: The 95% interval's lower end (games resampled).
        high: Its upper end.
        best_share: Share of the moves that were gnubg's choice (no loss).
        plies: gnubg's lookahead.
    """

    label: str
    games: int
    moves: int
    mean: float
    low: float
    high: float
    best_share: float
    plies: int


def game_losses(
    game: pyspiel.Game, actions: tuple[int, ...], seat: int, skip: int, judge: Judge
) -> list[float]:
    """The equity losses (points) of seat `seat`'s unforced moves in a game replayed from
    `actions`, its first `skip` decision plies (the random opening) left out. A move is a turn:
    OpenSpiel plays a double as two decisions of the same player, whose losses add up (the
    first half is worth its best second half); a turn with one legal choice at each decision
    is forced and not counted, as gnubg counts error rates."""
    state = game.new_initial_state()
    losses: list[float] = []
    turn: list[float] = []
    choices = 0  # legal moves of the turn's decisions beyond one
    decisions = 0
    for action in actions:
        if state.is_chance_node():
            if choices:
                losses.append(sum(turn))
            turn, choices = [], 0
        else:
            if decisions >= skip and state.current_player() == seat:
                equities = judge.move_equities(state)
                turn.append(max(equities.values()) - equities[action])
                choices += len(equities) - 1
            decisions += 1
        state.apply_action(action)
    if choices:
        losses.append(sum(turn))
    return losses


def judge_tournament(
    directory: str | Path, label: str, *, plies: int = 0, seed: int = 0
) -> EquityLoss:
    """`EquityLoss` of bot `label` over the finished backgammon games of a tournament directory;
    `ValueError` when it played none there."""
    judges: dict[str, tuple[pyspiel.Game, Judge]] = {}
    per_game: list[list[float]] = []
    for record in GameStore(Path(directory)).read_records():
        if record.error or not record.returns or label not in record.seats:
            continue
        if record.game not in judges:
            game = load_game(record.game)
            if check_backgammon(game):
                continue
            judges[record.game] = (game, Judge(game, plies))
        game, judge = judges[record.game]
        skip = record.opening_plies
        for seat, seated in enumerate(record.seats):
            if seated == label:
                per_game.append(game_losses(game, record.actions, seat, skip, judge))
    moves = sum(len(losses) for losses in per_game)
    if moves == 0:
        raise ValueError(
            f"{label!r} played no finished backgammon move in {str(directory)!r} to judge"
        )
    totals = np.array([sum(losses) for losses in per_game])
    counts = np.array([len(losses) for losses in per_game])
    rng = np.random.default_rng(seed)
    picks = rng.integers(len(per_game), size=(RESAMPLES, len(per_game)))
    resampled = totals[picks].sum(axis=1) / np.maximum(counts[picks].sum(axis=1), 1)
    low, high = np.quantile(resampled, [0.025, 0.975])
    best = sum(loss <= 1e-12 for losses in per_game for loss in losses)
    return EquityLoss(
        label=label,
        games=len(per_game),
        moves=moves,
        mean=float(totals.sum() / moves * MILLIPOINTS),
        low=float(low * MILLIPOINTS),
        high=float(high * MILLIPOINTS),
        best_share=best / moves,
        plies=plies,
    )
