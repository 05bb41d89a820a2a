"""BABMCTS: Monte-Carlo tree search whose nodes carry proven bounds, pruned by alpha-beta windows
(Atzmon, Stern & Saffidine's bounded-search notes, on score-bounded MCTS and MCTS-Solver).

`babmcts` searches from a state on a fresh tree; `make_tree` builds the tree a bot keeps between
moves. One search, two trees that build the same tree under the same seed:

- `common`: what the trees share (settings, statistics, moving the root, the move choice);
- `python_tree`: the reference tree, `BABMCTSTree` over `MCTSNode` objects;
- `native_tree`: the whole search in C++ (`spiel_bounded.native`), `NativeBABMCTSTree`;
- `search`: the entry point and the engine choice.

The rules (bounds, windows, pruning) and their proof are in the manual (docs/algorithms.md).
"""

from spiel_bounded.search.babmcts.common import BABMCTSSettings, BABMCTSTreeBase, MCTSStats
from spiel_bounded.search.babmcts.python_tree import BABMCTSTree
from spiel_bounded.search.babmcts.search import babmcts, make_tree, tree_engine

__all__ = [
    "BABMCTSSettings",
    "BABMCTSTree",
    "BABMCTSTreeBase",
    "MCTSStats",
    "babmcts",
    "make_tree",
    "tree_engine",
]
