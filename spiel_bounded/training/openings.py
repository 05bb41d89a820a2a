"""Openings a network's training never reached, for measuring it on positions it did not learn.

Self-play starts every game from `[data] opening_moves` random plies, so a measurement that opens
the same way plays mostly positions the network was trained on. `unseen_openings` draws random
openings of more plies (a few more again where too few are left) and drops every one whose
position (the mover and the state, as the game files key their positions) is a row of a training
game: a position played, or one a search bounded and self-play kept as a label (root children,
tree labels).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import numpy as np
import pyspiel

from spiel_bounded.arena.openings import play_opening, random_openings
from spiel_bounded.games import load_game
from spiel_bounded.training.game_files import finished_games, game_path

CANDIDATES_PER_OPENING: Final = 10
"""Random openings drawn for each one wanted, before the seen ones are dropped."""
MORE_PLIES: Final = 6
"""How many plies longer than asked the openings may grow to leave the training's positions."""


def _random_openings(
    game_string: str, plies: int, count: int, seed: int
) -> dict[str, tuple[int, ...]]:
    """Up to `count` distinct openings of `plies` random moves (none ending the game), by the
    key of the position each reaches."""
    game = load_game(game_string)
    drawn = random_openings(
        game,
        plies=plies,
        candidates=count * CANDIDATES_PER_OPENING,
        rng=np.random.default_rng(seed),
    )
    return dict(list(_keyed(game, drawn).items())[:count])


def _position_key(state: pyspiel.State) -> str:
    """A position as the game files key it (`selfplay`): the mover and the state."""
    return f"{state.current_player()}|{state}"


def _keyed(game: pyspiel.Game, openings: Iterable[tuple[int, ...]]) -> dict[str, tuple[int, ...]]:
    """`openings` by the key of the position each reaches, in their order (of two reaching one
    position, the first)."""
    keyed: dict[str, tuple[int, ...]] = {}
    for opening in openings:
        keyed.setdefault(_position_key(play_opening(game, opening)[0]), tuple(opening))
    return keyed


def _drop_seen(
    candidates: Iterable[dict[str, tuple[int, ...]]], game_directories: Iterable[Path]
) -> None:
    """Removes from each of `candidates` (position key -> opening) every position that is a row
    of a game under `game_directories`: played, or kept as a label (root children, tree
    labels). The games are read one at a time, so a run of any size fits."""
    tables = list(candidates)
    for directory in game_directories:
        for index in finished_games(directory):
            with np.load(game_path(Path(directory), index)) as arrays:
                for member in ("keys", "child_keys"):
                    if member in arrays.files:
                        for key in arrays[member]:
                            for table in tables:
                                table.pop(str(key), None)


def unseen_among(
    game_string: str, openings: Iterable[tuple[int, ...]], game_directories: Iterable[Path]
) -> list[tuple[int, ...]]:
    """Those of `openings` whose position is no row of a game under `game_directories`, in
    their order (of two reaching one position, the first)."""
    keyed = _keyed(load_game(game_string), openings)
    _drop_seen([keyed], game_directories)
    return list(keyed.values())


@dataclass(frozen=True)
class UnseenOpenings:
    """Openings of `plies` random moves, none a position of the training games."""

    plies: int
    openings: list[tuple[int, ...]]


def unseen_openings(
    game_string: str,
    plies: int,
    count: int,
    game_directories: Iterable[Path],
    *,
    seed: int,
    more_plies: int = MORE_PLIES,
) -> UnseenOpenings:
    """`count` openings of the fewest random moves from `plies` to `plies + more_plies` that
    leave `count` of them whose positions are no row of a game under `game_directories`
    (`generate.generate`'s directories), drawn from `seed`. `ValueError` when even the longest
    leave fewer, naming how many."""
    lengths = range(plies, plies + more_plies + 1)
    candidates = {
        length: _random_openings(game_string, length, count * CANDIDATES_PER_OPENING, seed + length)
        for length in lengths
    }
    _drop_seen(candidates.values(), game_directories)
    for length in lengths:
        if len(candidates[length]) >= count:
            return UnseenOpenings(length, list(candidates[length].values())[:count])
    longest = lengths[-1]
    raise ValueError(
        f"only {len(candidates[longest])} openings of {longest} random plies in {game_string} "
        f"are not positions of the training games ({plies} to {longest} plies tried), {count} "
        "wanted: use more plies ([curve] opening_moves), or fewer games"
    )
