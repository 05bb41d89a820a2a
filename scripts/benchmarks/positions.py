"""Seeded random positions for the benchmarks."""

from __future__ import annotations

import numpy as np
import pyspiel


def random_positions(
    game: pyspiel.Game, count: int, plies: int | tuple[int, int], seed: int
) -> list[pyspiel.State]:
    """`count` non-terminal decision positions reached by uniformly random moves.

    Args:
        game: The game.
        count: Number of positions.
        plies: Decisions played from the start: a number, or a range `(low, high)` (high
            excluded) drawn anew for each position. Chance outcomes are sampled by their
            probabilities on the way and do not count.
        seed: Seeds the one generator behind every draw.
    """
    rng = np.random.default_rng(seed)
    states: list[pyspiel.State] = []
    while len(states) < count:
        state = game.new_initial_state()
        decisions = plies if isinstance(plies, int) else int(rng.integers(*plies))
        played = 0
        while not state.is_terminal() and (played < decisions or state.is_chance_node()):
            if state.is_chance_node():
                outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rng.choice(outcomes, p=probabilities)))
            else:
                state.apply_action(int(rng.choice(state.legal_actions())))
                played += 1
        if not state.is_terminal():
            states.append(state)
    return states
