"""Openings a network's training never reached, for measuring it on positions it did not learn.

Self-play starts every game from `[data] opening_moves` random plies, so a measurement that opens
the same way plays mostly positions the network was trained on. `unseen_openings` draws random
openings of more plies and drops every one whose position (the mover and the state, as the game
files key their positions) is a row of a training game: a position played, or one a search
bounded and self-play kept as a label (root children, tree labels).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import numpy as np

from spiel_bounded.games import load_game
from spiel_bounded.training.game_files import finished_games, game_path

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
    """`count` openings of `plies` random moves whose positions are no row of a game under
    `game_directories` (`dataset.generate`'s directories), drawn from `seed`. `ValueError` when
    fewer than `count` are left, naming how many were."""
    candidates = _random_openings(game_string, plies, count * CANDIDATES_PER_OPENING, seed)
    drawn = len(candidates)
    for directory in game_directories:
        for index in finished_games(directory):
            with np.load(game_path(Path(directory), index)) as arrays:
                for member in ("keys", "child_keys"):
                    if member in arrays.files:
                        for key in arrays[member]:
                            candidates.pop(str(key), None)
    if len(candidates) < count:
        raise ValueError(
            f"only {len(candidates)} openings of {plies} random plies in {game_string} are not "
            f"positions of the training games ({drawn} distinct ones drawn that do not end the "
            f"game), {count} wanted: use more plies, or fewer games"
        )
    return list(candidates.values())[:count]
