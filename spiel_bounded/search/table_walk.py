"""The positions a search's transposition table bounded: labels for a whole search tree.

An alpha-beta search leaves in its table, for every position it searched with at least one ply
left, an interval on the position's value with that many plies left (on the game value where no
evaluator was called below it). TreeStrap (Veness et al. 2009) and Descent's tree learning
(Cohen-Solal & Cazenave 2020) train a value network on every such position, not only on the
positions played. `walk_table` collects them after a search: from the root, depth first, into
every child the table holds an entry for, each position once (but for the children of a
decision node stored with one ply left: leaves there, the search stored none of them, so the
walk does not build them to look); the native engine's `WalkTable`
(`native/src/table_walk.cc`) walks the same positions in the same order.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pyspiel

from spiel_bounded.result import TableLabels
from spiel_bounded.search.tt import Entry, TranspositionTable

if TYPE_CHECKING:  # the value-net package imports numba: only the type here
    from spiel_bounded.evaluators.value_net.features import Features


@dataclass(frozen=True)
class LabelRequest:
    """What a search is asked to label (the alpha-beta family's `labels` argument).

    Attributes:
        features: Writes the positions' network inputs.
        min_depth: Entries stored with fewer plies left are left out (1: all of them; a depth-1
            entry is the best of its children's evaluations).
    """

    features: Features
    min_depth: int = 1

    def __post_init__(self) -> None:
        if isinstance(self.min_depth, bool) or not isinstance(self.min_depth, int):
            raise ValueError(f"labels min_depth must be an integer >= 1, got {self.min_depth!r}")
        if self.min_depth < 1:
            raise ValueError(f"labels min_depth must be >= 1, got {self.min_depth}")


def walk_table(
    root: pyspiel.State,
    table: TranspositionTable,
    key: Callable[[pyspiel.State], Hashable],
    request: LabelRequest,
) -> TableLabels:
    """The labels of the positions below `root` that `table` bounds (module docstring): those
    stored with at least `request.min_depth` plies left, whose bounds do not span the whole
    value range. `key` is the key function the table was filled with."""
    game = root.get_game()
    vmin, vmax = game.min_utility(), game.max_utility()
    features, keys, lower, upper, depth, proven = [], [], [], [], [], []
    seen: set[Hashable] = set()
    stack = [root.clone()]
    at_root = True
    while stack:
        state = stack.pop()
        state_key = key(state)
        if state_key in seen:
            continue
        seen.add(state_key)
        entry = table.get(state_key)
        if entry is None and not at_root:  # the root is not stored, only its children
            continue
        if entry is not None and not at_root and _kept(entry, request.min_depth, vmin, vmax):
            low, high, plies, _, horizon, _ = entry
            features.append(request.features.of(state))
            keys.append(f"{state.current_player()}|{state}")
            lower.append(low)
            upper.append(high)
            depth.append(plies)
            proven.append(not horizon)
        at_root = False
        if entry is not None and entry[2] <= 1 and not state.is_chance_node():
            continue  # its children were the search's leaves there: not stored
        for action in reversed(state.legal_actions()):
            child = state.child(action)
            if not child.is_terminal():
                stack.append(child)
    size = request.features.size
    return TableLabels(
        features=np.asarray(features, dtype=np.float32).reshape(len(keys), size),
        keys=tuple(keys),
        lower=np.asarray(lower, dtype=np.float64),
        upper=np.asarray(upper, dtype=np.float64),
        depth=np.asarray(depth, dtype=np.int32),
        proven=np.asarray(proven, dtype=bool),
    )


def _kept(entry: Entry, min_depth: int, vmin: float, vmax: float) -> bool:
    """Whether an entry labels its position: stored deep enough, and not the whole range."""
    return entry[2] >= min_depth and not (entry[0] <= vmin and entry[1] >= vmax)


def native_labels(labels: Any) -> TableLabels:
    """`TableLabels` from the native engine's (`_engine.TableLabels`)."""
    keys = tuple(labels.keys)
    return TableLabels(
        features=np.asarray(labels.features, dtype=np.float32),
        keys=keys,
        lower=np.asarray(labels.lower, dtype=np.float64),
        upper=np.asarray(labels.upper, dtype=np.float64),
        depth=np.asarray(labels.depth, dtype=np.int32),
        proven=np.asarray(labels.proven, dtype=bool),
    )
