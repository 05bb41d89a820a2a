"""A deterministic playout evaluator: each state is valued by one random playout seeded by the
state itself.

`RolloutEvaluator` draws its playouts from one stream, so the same state gets another value at
every visit, and two searches of the same position see different leaves. Here the playout's
seed is a hash of the state's string and the player to move, so every search, ours or
OpenSpiel's, in any order, sees the same value for the same state: searches can be compared
value for value on games that have no hand-written heuristic. The values are as informative as
one random playout (noisy, but related to the position), which makes the pruning behave as on
a real game rather than on independent random leaves.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence

import pyspiel

_SEED_MASK = 0x7FFFFFFF  # pyspiel's bots and evaluate_bots take a C++ (32-bit) int


class SeededRolloutEvaluator:
    """Values a state by one uniformly random playout whose seed is the state's hash.

    Works on any sequential C++ game (chance and any number of players included). The values are
    the playout's returns, inside the game's utility range.

    Attributes:
        name: "seeded_rollout".
    """

    name = "seeded_rollout"

    def __init__(self, game: pyspiel.Game) -> None:
        self._players = game.num_players()

    def evaluate(self, state: pyspiel.State) -> Sequence[float]:
        """The returns of the playout from `state` seeded by `state` (left unchanged)."""
        seed = zlib.crc32(f"{state.current_player()}|{state}".encode()) & _SEED_MASK
        bots = [
            pyspiel.make_uniform_random_bot(player, (seed + 7919 * (player + 1)) & _SEED_MASK)
            for player in range(self._players)
        ]
        return tuple(pyspiel.evaluate_bots(state.clone(), bots, seed))
