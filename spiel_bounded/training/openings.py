"""Openings a network's training never reached, for measuring it on positions it did not learn.

Self-play starts every game from `[data] opening_moves` random plies, so a measurement that opens
the same way plays mostly positions the network was trained on. `unseen_openings` draws random
openings of more plies and drops every one whose position (the mover and the state, as the game
files key their positions) a training game reached: a position that was played, not one a search
only looked at.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import numpy as np

from spiel_bounded.games import load_game

CANDIDATES_PER_OPENING = 4
"""Random openings drawn for each one wanted, before the seen ones are dropped."""


def _random_openings(
    game_string: str, plies: int, count: int, seed: int
) -> dict[str, tuple[int, ...]]:
    """Up to `count` distinct openings of `plies` random moves (none ending the game), by the
    key of the position each reaches."""
    game = load_game(game_string)
    rng = np.random.default_rng(seed)
    found: dict[str, tuple[int, ...]] = {}
    for _ in range(count * 10):
        if len(found) == count:
            break
        state = game.new_initial_state()
        actions: list[int] = []
        while len(actions) < plies and not state.is_terminal():
            action = int(rng.choice(state.legal_actions()))
            state.apply_action(action)
            actions.append(action)
        if not state.is_terminal():
            found.setdefault(f"{state.current_player()}|{state}", tuple(actions))
    return found


def unseen_openings(
    game_string: str, plies: int, count: int, game_directories: Iterable[Path], *, seed: int
) -> list[tuple[int, ...]]:
    """`count` openings of `plies` random moves whose positions no game file under
    `game_directories` (`dataset.generate`'s directories) reached, most of them drawn from
    `seed`. `ValueError` when fewer than `count` are left (too few plies to leave the
    training's positions), naming how many were."""
    candidates = _random_openings(game_string, plies, count * CANDIDATES_PER_OPENING, seed)
    for directory in game_directories:
        for path in sorted(Path(directory).glob("games/*.npz")):
            with np.load(path) as arrays:
                for key in arrays["keys"]:
                    candidates.pop(str(key), None)
    if len(candidates) < count:
        raise ValueError(
            f"only {len(candidates)} openings of {plies} random plies in {game_string} are not "
            f"positions of the training games, {count} wanted: use more plies"
        )
    return list(candidates.values())[:count]
