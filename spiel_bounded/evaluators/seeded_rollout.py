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

from spiel_bounded.params import POSITIVE_INT

_SEED_MASK = 0x7FFFFFFF  # pyspiel's bots and evaluate_bots take a C++ (32-bit) int


class SeededRolloutEvaluator:
    """Values a state by the mean returns of `rollouts` uniformly random playouts whose seeds
    are the state's hash (and the playout's number).

    Works on any sequential C++ game (chance and any number of players included). One playout
    gives the terminal values only (win / draw / loss); the mean of k gives steps of 1 / k of
    them, finer leaves for searches whose savings depend on how fine values are.

    Attributes:
        name: "seeded_rollout".
        rollouts: Playouts averaged per evaluation.
    """

    name = "seeded_rollout"

    def __init__(self, game: pyspiel.Game, *, rollouts: int = 1) -> None:
        try:
            self.rollouts: int = POSITIVE_INT(rollouts)
        except ValueError as error:
            raise ValueError(f"rollouts {error}") from None
        self._players = game.num_players()

    def evaluate(self, state: pyspiel.State) -> Sequence[float]:
        """The mean returns of the playouts from `state` seeded by `state` (left unchanged)."""
        base = zlib.crc32(f"{state.current_player()}|{state}".encode())
        totals = [0.0] * self._players
        for playout in range(self.rollouts):
            seed = (base + 104_729 * playout) & _SEED_MASK
            bots = [
                pyspiel.make_uniform_random_bot(player, (seed + 7919 * (player + 1)) & _SEED_MASK)
                for player in range(self._players)
            ]
            for player, value in enumerate(pyspiel.evaluate_bots(state.clone(), bots, seed)):
                totals[player] += value
        return tuple(total / self.rollouts for total in totals)
