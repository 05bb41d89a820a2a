"""How a bot's moves compare with perfect play, in the games the package solves (connect_four and
clobber, `judges.exact`).

`judge_tournament` replays every finished game of a tournament directory that has a solver and
solves each position after the random opening (one solve a position, shared by both seats). A
move is an error when it lowers the mover's solved value: a win given up for a draw or a loss,
a draw for a loss. Per bot (by its label) it counts the errors per move, with a
95% interval from resampling whole games (which collapses to [0, 0] for a bot that never errs),
and sorts its games by what the opening left it (the solved value of the position after the
opening, for its seat) against how they ended. A bot that never errs ends every game at least
as well as the opening left it, and does better only where its opponent errs.

`critical_positions`, `move_accuracy` and `paired_difference` judge searchers without games: the
positions of a tournament's games where a move can lower the solved value, and how often a
searcher's move there does.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import numpy as np
import pyspiel

from spiel_bounded.arena.store import GameStore
from spiel_bounded.games import load_game
from spiel_bounded.judges.exact import (
    SOLVED_GAMES,
    VALUES,
    ExactSolver,
    check_solvable,
    exact_solver,
)
from spiel_bounded.stats import wilson

RESAMPLES: Final = 2000
_WORTH: Final = {"win": 1.0, "draw": 0.5, "loss": 0.0}


@dataclass(frozen=True)
class PerfectPlay:
    """A bot's moves against perfect play.

    Attributes:
        label: The bot's label in the tournament.
        games: Games judged (those the opening decided before it moved included).
        moves: Its moves judged (the random opening left out).
        errors: Moves that lowered its solved value.
        error_rate: errors / moves.
        low: The 95% interval's lower end of the error rate (games resampled).
        high: Its upper end.
        outcomes: For each (value of the position after the opening for its seat, its result),
            "win", "draw" or "loss" each, the number of games.
    """

    label: str
    games: int
    moves: int
    errors: int
    error_rate: float
    low: float
    high: float
    outcomes: dict[tuple[str, str], int]

    @property
    def score(self) -> float:
        """Its score over the judged games (a draw half a win)."""
        return sum(_WORTH[end] * n for (_, end), n in self.outcomes.items()) / self.games

    @property
    def start_score(self) -> float:
        """The score the openings left it, with perfect play on both sides."""
        return sum(_WORTH[start] * n for (start, _), n in self.outcomes.items()) / self.games


@dataclass(frozen=True)
class _Seat:
    """One seat of one judged game: its value after the opening, its value before each of its
    moves and after it, and its result."""

    start: int
    before: tuple[int, ...]
    after: tuple[int, ...]
    result: int


def replayed(game: pyspiel.Game, actions: Sequence[int]) -> pyspiel.State:
    """The state after `actions` from the start of `game`."""
    state = game.new_initial_state()
    for action in actions:
        state.apply_action(action)
    return state


def solved_values(
    solver: ExactSolver, game: pyspiel.Game, actions: Sequence[int], start: int
) -> dict[int, int]:
    """The solved value for the player to move of each non-terminal position of a game
    replayed from `actions`, by ply, from ply `start` on."""
    state = game.new_initial_state()
    values = {}
    for ply, action in enumerate(actions):
        if ply >= start:
            value = solver.value(state)
            assert value is not None  # no limit
            values[ply] = value
        state.apply_action(action)
    return values


def _seats(
    game: pyspiel.Game, actions: Sequence[int], skip: int, values: dict[int, int]
) -> list[_Seat]:
    returns = replayed(game, actions).returns()
    seats = []
    for seat in range(2):  # both games alternate from player 0: ply p is seat p % 2's
        before, after = [], []
        for ply in range(skip, len(actions)):
            if ply % 2 == seat:
                before.append(values[ply])
                after.append(-values[ply + 1] if ply + 1 in values else int(returns[seat]))
        start = values[skip] if skip % 2 == seat else -values[skip]
        seats.append(_Seat(start, tuple(before), tuple(after), int(returns[seat])))
    return seats


def judge_tournament(
    directory: str | Path, labels: Sequence[str] | None = None, *, seed: int = 0
) -> list[PerfectPlay]:
    """`PerfectPlay` of each bot (`labels`, or every label that played) over the finished games
    of a tournament directory that have a solver; ValueError when a label played none there or
    the directory's games of a solved kind cannot be solved (e.g. a board too large)."""
    solvers: dict[str, tuple[pyspiel.Game, ExactSolver]] = {}
    per_label: dict[str, list[_Seat]] = {}
    for record in GameStore(Path(directory)).read_records():
        if record.error or not record.returns:
            continue
        if labels is not None and not set(labels) & set(record.seats):
            continue
        if record.game not in solvers:
            game = load_game(record.game)
            if game.get_type().short_name not in SOLVED_GAMES:
                continue
            reason = check_solvable(game)
            if reason:
                raise ValueError(f"{record.game}: {reason}")
            solvers[record.game] = (game, exact_solver(game))
        game, solver = solvers[record.game]
        skip = record.opening_plies
        values = solved_values(solver, game, record.actions, skip)
        for label, seat in zip(
            record.seats, _seats(game, record.actions, skip, values), strict=True
        ):
            per_label.setdefault(label, []).append(seat)
    wanted = list(labels) if labels is not None else sorted(per_label)
    return [_summary(label, per_label.get(label, []), directory, seed) for label in wanted]


def _summary(label: str, seats: list[_Seat], directory: str | Path, seed: int) -> PerfectPlay:
    if not seats:
        raise ValueError(
            f"{label!r} played no finished game of {' or '.join(SOLVED_GAMES)} in "
            f"{str(directory)!r}"
        )
    errors = np.array([sum(a < b for a, b in zip(s.after, s.before, strict=True)) for s in seats])
    counts = np.array([len(s.before) for s in seats])
    rng = np.random.default_rng(seed)
    picks = rng.integers(len(seats), size=(RESAMPLES, len(seats)))
    resampled = errors[picks].sum(axis=1) / np.maximum(counts[picks].sum(axis=1), 1)
    low, high = np.quantile(resampled, [0.025, 0.975])
    outcomes = Counter((VALUES[s.start], VALUES[s.result]) for s in seats)
    return PerfectPlay(
        label=label,
        games=len(seats),
        moves=int(counts.sum()),
        errors=int(errors.sum()),
        error_rate=float(errors.sum() / max(counts.sum(), 1)),
        low=float(low),
        high=float(high),
        outcomes=dict(outcomes),
    )


@dataclass(frozen=True)
class MoveAccuracy:
    """How often a searcher's moves lowered the solved value on a set of positions.

    Attributes:
        name: What searched (an evaluator spec).
        positions: Positions asked.
        errors: Moves that lowered the mover's solved value.
        low: The 95% Wilson interval's lower end of the error rate.
        high: Its upper end.
        wrong: Which positions it erred on, in the order asked (for paired comparisons).
    """

    name: str
    positions: int
    errors: int
    low: float
    high: float
    wrong: tuple[bool, ...]

    @property
    def rate(self) -> float:
        """errors / positions."""
        return self.errors / self.positions


def critical_positions(
    directory: str | Path, count: int, *, seed: int = 0
) -> tuple[pyspiel.Game, list[tuple[int, ...]], list[dict[int, int]]]:
    """Up to `count` positions (action histories) of the finished games of a tournament
    directory of its first solved game (`judges.exact`), after each game's opening, where the
    legal moves' solved values differ (so a move can be an error), drawn without replacement
    (seeded), each with its moves' values. ValueError when the directory holds no such game."""
    game: pyspiel.Game | None = None
    solver: ExactSolver | None = None
    name = ""
    seen: set[tuple[int, ...]] = set()
    for record in GameStore(Path(directory)).read_records():
        if record.error or not record.returns:
            continue
        if game is None:
            candidate = load_game(record.game)
            if candidate.get_type().short_name not in SOLVED_GAMES:
                continue
            game, solver, name = candidate, exact_solver(candidate), record.game
        if record.game != name:
            continue
        skip = record.opening_plies
        seen.update(tuple(record.actions[:ply]) for ply in range(skip, len(record.actions)))
    if game is None or solver is None:
        raise ValueError(
            f"{str(directory)!r} holds no finished game of {' or '.join(SOLVED_GAMES)}"
        )
    rng = np.random.default_rng(seed)
    histories = sorted(seen)
    positions, values = [], []
    for index in rng.permutation(len(histories)):
        moves = solver.move_values(replayed(game, histories[index]))
        assert moves is not None  # no limit
        if len(set(moves.values())) > 1:
            positions.append(histories[index])
            values.append(moves)
            if len(positions) == count:
                break
    if not positions:
        raise ValueError(f"{str(directory)!r} holds no position where a move can be an error")
    return game, positions, values


def move_accuracy(
    name: str,
    choose: Callable[[pyspiel.State], int],
    game: pyspiel.Game,
    positions: Sequence[tuple[int, ...]],
    values: Sequence[dict[int, int]],
) -> MoveAccuracy:
    """`MoveAccuracy` of `choose` (a state to its move) on `positions` whose moves' solved
    values are `values`."""
    wrong = []
    for history, moves in zip(positions, values, strict=True):
        wrong.append(moves[choose(replayed(game, history))] < max(moves.values()))
    low, high = wilson(sum(wrong), len(wrong))
    return MoveAccuracy(name, len(wrong), sum(wrong), low, high, tuple(wrong))


def paired_difference(
    first: MoveAccuracy, second: MoveAccuracy, *, seed: int = 0
) -> tuple[float, float, float]:
    """The error rate of `first` minus that of `second` on the same positions, with a 95%
    interval from resampling positions."""
    a = np.array(first.wrong, dtype=float)
    b = np.array(second.wrong, dtype=float)
    if a.shape != b.shape:
        raise ValueError("a paired difference needs the same positions")
    rng = np.random.default_rng(seed)
    picks = rng.integers(len(a), size=(RESAMPLES, len(a)))
    resampled = (a[picks] - b[picks]).mean(axis=1)
    low, high = np.quantile(resampled, [0.025, 0.975])
    return float((a - b).mean()), float(low), float(high)
