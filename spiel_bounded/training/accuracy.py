"""How well an evaluator knows a game: its values against exact game values.

A network's validation loss says how well it fits its own labels, not whether those labels, or
the network, know the game. On a two-player zero-sum game whose middle positions can be solved,
`solved_positions` draws positions of random games and solves each with `bounded_ab` (zero
evaluator, no depth limit, a node budget; positions it cannot solve within it are skipped), and
`measure` scores an evaluator's values of them for the player to move, alone (depth 0) or
backed up by a `bounded_ab` search of a given depth: how often its sign is the exact value's,
and the correlation of the two.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pyspiel

from spiel_bounded.evaluators import make_evaluator
from spiel_bounded.evaluators.base import Evaluator
from spiel_bounded.games import game_description, game_info, load_game
from spiel_bounded.limits import Limits
from spiel_bounded.search.alphabeta import bounded_ab


@dataclass(frozen=True)
class PositionDraw:
    """Which positions are solved.

    Attributes:
        game: The game string (two players, zero-sum, no chance nodes).
        positions: How many solved positions to draw.
        plies: The fewest and most random plies before a position (inclusive).
        solve_nodes: A position not solved within this many nodes is skipped.
        seed: Seed of the random games.
    """

    game: str
    positions: int = 100
    plies: tuple[int, int] = (8, 21)
    solve_nodes: int = 2_000_000
    seed: int = 0

    def __post_init__(self) -> None:
        low, high = self.plies
        if not 0 <= low <= high:
            raise ValueError(
                f"plies must be (fewest, most) with 0 <= fewest <= most; got {self.plies}"
            )
        if self.positions < 1 or self.solve_nodes < 1:
            raise ValueError("positions and solve_nodes must be positive")


@dataclass(frozen=True)
class SolvedPosition:
    """A position and its exact value for the player to move."""

    state: pyspiel.State
    value: float


@dataclass(frozen=True)
class Accuracy:
    """An evaluator's values of solved positions against their exact values.

    Attributes:
        evaluator: Its name (the spec it was made from).
        depth: 0: the evaluator's own value; d: the value of a `bounded_ab` search of depth d.
        positions: How many positions were scored.
        sign_agreement: The share of positions whose value has the exact value's sign (a draw's
            sign is 0).
        correlation: Pearson's correlation of the values with the exact values (NaN when
            either is constant).
    """

    evaluator: str
    depth: int
    positions: int
    sign_agreement: float
    correlation: float


def check_solvable(game: pyspiel.Game) -> None:
    """`ValueError` unless `game` has exact values `solved_positions` can find: two players,
    zero-sum, no chance nodes."""
    info = game_info(game)
    if info.num_players != 2 or not info.zero_sum or info.has_chance:
        raise ValueError(
            f"exact values need a two-player zero-sum game without chance nodes; got "
            f"{game_description(game)}"
        )


def solved_positions(draw: PositionDraw, *, attempts: int = 20) -> list[SolvedPosition]:
    """Up to `draw.positions` solved positions, from at most `attempts` times as many random
    games; `ValueError` for a game `bounded_ab` does not play."""
    game = load_game(draw.game)
    check_solvable(game)
    zero = make_evaluator("zero", game)
    rng = np.random.default_rng(draw.seed)
    found: list[SolvedPosition] = []
    for _ in range(attempts * draw.positions):
        if len(found) == draw.positions:
            break
        state = game.new_initial_state()
        for _ in range(int(rng.integers(draw.plies[0], draw.plies[1] + 1))):
            if state.is_terminal():
                break
            state.apply_action(int(rng.choice(state.legal_actions())))
        if state.is_terminal():
            continue
        result = bounded_ab(state, evaluator=zero, limits=Limits(nodes=draw.solve_nodes))
        if result.stats.stopped_by == "solved":  # exact: epsilon is 0
            found.append(SolvedPosition(state, result.lower))
    return found


def measure(positions: Sequence[SolvedPosition], evaluator: Evaluator, depth: int = 0) -> Accuracy:
    """`evaluator`'s values of `positions` (alone at depth 0, else through a `bounded_ab` search
    of `depth` plies) against their exact values."""
    if depth < 0:
        raise ValueError(f"depth must be >= 0; got {depth}")
    exact = np.array([position.value for position in positions])
    values = np.empty(len(positions))
    for index, position in enumerate(positions):
        state = position.state
        if depth == 0:
            values[index] = evaluator.evaluate(state)[state.current_player()]
        else:
            result = bounded_ab(state, evaluator=evaluator, limits=Limits(depth=depth))
            values[index] = 0.5 * (result.lower + result.upper)
    return Accuracy(
        evaluator=evaluator.name,
        depth=depth,
        positions=len(positions),
        sign_agreement=float(np.mean(np.sign(values) == np.sign(exact))) if positions else 0.0,
        correlation=correlation(values, exact),
    )


def correlation(values: np.ndarray, exact: np.ndarray) -> float:
    """Pearson's correlation of `values` with `exact`; NaN when either is constant (or fewer
    than two)."""
    if len(values) < 2 or np.ptp(exact) == 0 or np.ptp(values) == 0:
        return float("nan")
    return float(np.corrcoef(values, exact)[0, 1])
