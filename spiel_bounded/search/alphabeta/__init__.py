"""Bounded alpha-beta, bounded Star-1 / Star-2 and paranoid search: one engine.

Every node returns an interval `(lower, upper)` that contains its depth-limited minimax value in
the utility of the player to move at the root, and stops searching its children once its window
closes to within epsilon (Atzmon, Stern & Saffidine, "Bounded Suboptimal Game Tree Search", SoCS
2018; epsilon = 0 is fail-soft alpha-beta). Chance nodes are bounded by probability-weighted
sums (Ballard 1983; Hauk, Buro & Schaeffer 2004), and paranoid search (Sturtevant & Korf 2000)
is the same engine with every other player in the coalition. The root interval is at most
epsilon wide once an iteration completes. The contract of a node and the proof of the
chance-node windows are in the manual (docs/algorithms.md).

- `settings`: `AlphaBetaSettings`, which both engines read;
- `engine`: the Python engine (the native one is `spiel_bounded.native`'s);
- `search`: the four search functions.
"""

from spiel_bounded.search.alphabeta.search import (
    PARANOID_GAMES,
    bounded_ab,
    bounded_star1,
    bounded_star2,
    paranoid,
)
from spiel_bounded.search.alphabeta.settings import (
    CHANCE_EPSILON_POLICIES,
    NATIVE_CAPACITY,
    AlphaBetaSettings,
)

__all__ = [
    "CHANCE_EPSILON_POLICIES",
    "NATIVE_CAPACITY",
    "PARANOID_GAMES",
    "AlphaBetaSettings",
    "bounded_ab",
    "bounded_star1",
    "bounded_star2",
    "paranoid",
]
