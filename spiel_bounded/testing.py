"""Tools for testing bots and searches: seeded random positions.

`random_positions` is the one sampler the tests, benchmarks and calibration scripts use, so a
figure and the test that guards it look at positions drawn the same way.
"""

from __future__ import annotations

import numpy as np
import pyspiel


def random_positions(
    game: pyspiel.Game,
    count: int,
    *,
    plies: int | tuple[int, int],
    seed: int | np.random.Generator,
    count_chance: bool = False,
    decisions_only: bool = True,
) -> list[pyspiel.State]:
    """`count` non-terminal positions reached by uniformly random moves.

    Args:
        game: The game.
        count: Number of positions.
        plies: Actions played from the start: a number, or a range `(low, high)` (high
            excluded) drawn anew for each position.
        seed: Seeds the one generator behind every draw (or is that generator).
        count_chance: Chance outcomes count as plies; by default only decisions do. Chance
            outcomes are sampled by their probabilities either way.
        decisions_only: Sample past a chance node reached after the last ply, so that every
            position is a decision node; False may return chance nodes.
    """
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    states: list[pyspiel.State] = []
    while len(states) < count:
        state = game.new_initial_state()
        target = plies if isinstance(plies, int) else int(rng.integers(*plies))
        played = 0
        while not state.is_terminal() and (
            played < target or (decisions_only and state.is_chance_node())
        ):
            if state.is_chance_node():
                outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rng.choice(outcomes, p=probabilities)))
                played += count_chance
            else:
                state.apply_action(int(rng.choice(state.legal_actions())))
                played += 1
        if not state.is_terminal():
            states.append(state)
    return states
