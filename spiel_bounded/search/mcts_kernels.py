"""The compiled half of BABMCTS: selection and backup over a structure-of-arrays tree (numba).

These kernels are the hot loops of `BABMCTSTree.simulate` (its `_select` and `_back_up`,
`search/mcts.py`, the reference) for games without chance nodes and without priors, over flat
arrays instead of `MCTSNode` objects; `search/mcts_compiled.py` drives them and does the pyspiel
calls. Every float operation is the reference's, in the same order, so both give bit-identical
statistics and bounds (tested).

Layout (rows are nodes, in creation order; the root is `counters[ROOT]`):

- `floats[node]`: `LOWER`, `UPPER` (proven bounds, player 0's utility), `W` (sum of backed-up
  values), `Q` (`W / n`), `RS` (`1 / sqrt(n)`);
- `ints[node]`: `PLAYER` (0, 1 or `TERMINAL_PLAYER`), `N` (visits), `FIRST` and `COUNT` (its
  children are the edges `FIRST .. FIRST + COUNT - 1`; `COUNT` is -1 before expansion), `NEXT`
  (edges `FIRST .. FIRST + NEXT - 1` have their child created: UCT expands in edge order);
- `edges[edge]`: `CHILD` (the child's row, -1 until created), `ACTION` (its action);
- `params`: `VMIN`, `VMAX`, `EPS` (the pruning tolerance: 0 without pruning), `UCT_C`,
  `EPSILON` (the root is proved once `UPPER - LOWER <= EPSILON`), `PRUNE` (1.0: windows tightened
  by the bounds of the nodes passed; 0.0: the window stays `[VMIN, VMAX]`);
- `scratch`: the counters `CUTOFFS`, `FALLBACKS`, `DEPTH` (this search's), `USED` (rows in
  use), `EDGES` (edges in use), `ROOT`, `LEAF_EDGE` and `LEAF_DEPTH` (set by `select`), then
  the selected path
  (`path(scratch)`: rows) and its actions (`path_actions(scratch)`), each `(len(scratch) -
  COUNTERS) // 2` long. (Fewer arrays make a call from Python cheaper: ~0.09 us per array.)

Importing this module imports numba; the kernels are compiled on first use and cached on disk
(`cache=True`), so a process pays the compilation once, and later processes only load it.
"""

from __future__ import annotations

import math
from typing import Final

import numba
import numpy as np

LOWER: Final = 0
UPPER: Final = 1
W: Final = 2
Q: Final = 3
RS: Final = 4
FLOAT_FIELDS: Final = 5

PLAYER: Final = 0
N: Final = 1
FIRST: Final = 2
COUNT: Final = 3
NEXT: Final = 4
INT_FIELDS: Final = 5

VMIN: Final = 0
VMAX: Final = 1
EPS: Final = 2
UCT_C: Final = 3
EPSILON: Final = 4
PRUNE: Final = 5
PARAMS: Final = 6

CUTOFFS: Final = 0
FALLBACKS: Final = 1
DEPTH: Final = 2
USED: Final = 3
EDGES: Final = 4
ROOT: Final = 5
LEAF_EDGE: Final = 6
LEAF_DEPTH: Final = 7
COUNTERS: Final = 8

CHILD: Final = 0
ACTION: Final = 1
EDGE_FIELDS: Final = 2

TERMINAL_PLAYER: Final = -4  # OpenSpiel's PlayerId.TERMINAL
NO_CHILD: Final = -1
CORRUPT: Final = -1  # `select`'s answer when an open node has no open child
SOLVED: Final = -2  # `step`'s answer when the root is proved
DONE: Final = -3  # `step`'s answer when it was not asked to select


@numba.njit(cache=True)
def path(scratch: np.ndarray) -> np.ndarray:
    """The rows of the selected path (a view of `scratch`)."""
    length = (scratch.shape[0] - COUNTERS) // 2
    return scratch[COUNTERS : COUNTERS + length]


@numba.njit(cache=True)
def path_actions(scratch: np.ndarray) -> np.ndarray:
    """The actions of the selected path (a view of `scratch`)."""
    length = (scratch.shape[0] - COUNTERS) // 2
    return scratch[COUNTERS + length : COUNTERS + 2 * length]


@numba.njit(cache=True)
def _widest_open_child(
    floats: np.ndarray, edges: np.ndarray, first: int, count: int, alpha: float, beta: float
) -> int:
    """The child whose window is the widest among those with open bounds (the reference's
    `_fallback` at a decision node); -1 when every child is closed."""
    best = -1
    best_gap = -math.inf
    for j in range(count):
        kid = edges[first + j, CHILD]
        kid_lower = floats[kid, LOWER]
        kid_upper = floats[kid, UPPER]
        if kid_upper <= kid_lower:
            continue
        gap = min(beta, kid_upper) - max(alpha, kid_lower)
        if gap > best_gap:
            best = j
            best_gap = gap
    return best


@numba.njit(cache=True)
def select(
    floats: np.ndarray, ints: np.ndarray, edges: np.ndarray, params: np.ndarray, scratch: np.ndarray
) -> int:
    """Descends from the root with alpha-beta windows and UCT until a child is to be created.

    Writes the rows of the nodes passed, root first, to `path[0 .. k]` and the actions between
    them to `actions[0 .. k - 1]` (`path(scratch)`, `path_actions(scratch)`), where k, the edges
    descended, is returned and kept in `LEAF_DEPTH`. Then either `path[k]` is not expanded yet
    (`LEAF_EDGE` is -1; the caller expands it and creates its first child), or `LEAF_EDGE` is
    the edge of the child to create and `actions[k]` its action. Returns `CORRUPT` when an open
    node has no open child (the bounds are corrupt; the reference raises).
    """
    vmin = params[VMIN]
    vmax = params[VMAX]
    eps = params[EPS]
    uct_c = params[UCT_C]
    prune = params[PRUNE] != 0.0
    counters = scratch
    path_rows = path(scratch)
    actions = path_actions(scratch)
    node = counters[ROOT]
    alpha = vmin
    beta = vmax
    cutoffs = 0
    k = 0
    path_rows[0] = node
    while True:
        if prune:
            lower = floats[node, LOWER]
            upper = floats[node, UPPER]
            if lower > alpha:
                alpha = lower
            if upper < beta:
                beta = upper
        count = ints[node, COUNT]
        if count < 0:
            counters[LEAF_EDGE] = NO_CHILD
            break
        first = ints[node, FIRST]
        created = ints[node, NEXT]
        if created < count:  # UCT tries every child once first; such a child is never pruned
            counters[LEAF_EDGE] = first + created
            actions[k] = edges[first + created, ACTION]
            break
        sign = 1.0 if ints[node, PLAYER] == 0 else -1.0
        explore = uct_c * math.sqrt(math.log(ints[node, N]))
        best = -math.inf
        chosen = -1
        for j in range(count):
            kid = edges[first + j, CHILD]
            kid_lower = floats[kid, LOWER]
            kid_upper = floats[kid, UPPER]
            top = beta if beta < kid_upper else kid_upper
            if top <= (alpha if alpha > kid_lower else kid_lower) + eps:
                cutoffs += 1
                continue
            score = sign * floats[kid, Q] + explore * floats[kid, RS]
            if score > best:
                best = score
                chosen = j
        if chosen < 0:
            counters[FALLBACKS] += 1
            chosen = _widest_open_child(floats, edges, first, count, alpha, beta)
            if chosen < 0:
                counters[CUTOFFS] += cutoffs
                return CORRUPT
        actions[k] = edges[first + chosen, ACTION]
        node = edges[first + chosen, CHILD]
        k += 1
        path_rows[k] = node
    counters[CUTOFFS] += cutoffs
    counters[LEAF_DEPTH] = k
    return k


@numba.njit(cache=True)
def _rebound(
    floats: np.ndarray, ints: np.ndarray, edges: np.ndarray, node: int, vmin: float, vmax: float
) -> bool:
    """Recomputes a decision node's bounds from its children (max for player 0, min for player
    1, a child not created counting as [vmin, vmax]); True when they changed."""
    first = ints[node, FIRST]
    count = ints[node, COUNT]
    if ints[node, PLAYER] == 0:
        lower = vmin
        upper = vmin
        for j in range(count):
            kid = edges[first + j, CHILD]
            if kid < 0:
                upper = vmax
            else:
                if floats[kid, LOWER] > lower:
                    lower = floats[kid, LOWER]
                if floats[kid, UPPER] > upper:
                    upper = floats[kid, UPPER]
    else:
        lower = vmax
        upper = vmax
        for j in range(count):
            kid = edges[first + j, CHILD]
            if kid < 0:
                lower = vmin
            else:
                if floats[kid, LOWER] < lower:
                    lower = floats[kid, LOWER]
                if floats[kid, UPPER] < upper:
                    upper = floats[kid, UPPER]
    if lower == floats[node, LOWER] and upper == floats[node, UPPER]:
        return False
    floats[node, LOWER] = lower
    floats[node, UPPER] = upper
    return True


@numba.njit(cache=True)
def shuffle_one_word(actions: np.ndarray, word: int) -> None:
    """`mcts_base.shuffle_actions` for a one-run plan (at most 20 actions), given its word."""
    count = actions.shape[0]
    for i in range(count - 1):
        digit = word % (count - i)
        word //= count - i
        j = i + digit
        swap = actions[i]
        actions[i] = actions[j]
        actions[j] = swap


@numba.njit(cache=True)
def expand(
    ints: np.ndarray, edges: np.ndarray, scratch: np.ndarray, node: int, legal: np.ndarray
) -> int:
    """Gives `node` the children `legal` (in that order, none created); returns the first edge."""
    first = scratch[EDGES]
    count = legal.shape[0]
    for j in range(count):
        edges[first + j, ACTION] = legal[j]
        edges[first + j, CHILD] = NO_CHILD
    scratch[EDGES] = first + count
    ints[node, FIRST] = first
    ints[node, COUNT] = count
    ints[node, NEXT] = 0
    return first


@numba.njit(cache=True)
def _add_and_backup(
    floats: np.ndarray,
    ints: np.ndarray,
    edges: np.ndarray,
    params: np.ndarray,
    scratch: np.ndarray,
    k: int,
    edge: int,
    player: int,
    value: float,
) -> None:
    """Creates the child at `edge` of `path[k]` (a terminal one when `player` is negative, as
    `TERMINAL_PLAYER`, with bounds `[value, value]`), then backs `value` up the path: visit
    statistics of every node, bounds while they keep changing (the reference's backup)."""
    vmin = params[VMIN]
    vmax = params[VMAX]
    counters = scratch
    path_rows = path(scratch)
    child = counters[USED]
    counters[USED] = child + 1
    terminal = player < 0
    if terminal:
        floats[child, LOWER] = value
        floats[child, UPPER] = value
    else:
        floats[child, LOWER] = vmin
        floats[child, UPPER] = vmax
    floats[child, W] = 0.0
    floats[child, Q] = 0.0
    floats[child, RS] = 0.0
    ints[child, PLAYER] = player
    ints[child, N] = 0
    ints[child, FIRST] = 0
    ints[child, COUNT] = -1
    ints[child, NEXT] = 0
    edges[edge, CHILD] = child
    ints[path_rows[k], NEXT] += 1
    k += 1
    path_rows[k] = child
    if k > counters[DEPTH]:
        counters[DEPTH] = k
    changed = terminal
    for j in range(k, -1, -1):
        node = path_rows[j]
        n = ints[node, N] + 1
        ints[node, N] = n
        w = floats[node, W] + value
        floats[node, W] = w
        floats[node, Q] = w / n
        floats[node, RS] = 1.0 / math.sqrt(n)
        if j < k and changed:
            changed = _rebound(floats, ints, edges, node, vmin, vmax)


@numba.njit(cache=True)
def step(
    floats: np.ndarray,
    ints: np.ndarray,
    edges: np.ndarray,
    params: np.ndarray,
    scratch: np.ndarray,
    legal: np.ndarray,
    word: int,
    player: int,
    value: float,
    select_next: int,
) -> int:
    """Ends the simulation `select` began and, when asked (`select_next` != 0), selects for the
    next one.

    When `select` stopped at a node to expand (`LEAF_EDGE` is -1), that node gets the children
    `legal`, first shuffled by `shuffle_one_word` with `word` unless `word` is -1 (then `legal`
    is in expansion order already), and the child created is the first; else the child at
    `LEAF_EDGE` is created. The child is a terminal
    with value `value` when `player` is `TERMINAL_PLAYER`, else a node of `player` whose leaf
    value is `value`; `value` is backed up. Returns `SOLVED` when the root is now proved, `DONE`
    when `select_next` is False, else what `select` returns for the next simulation. The arrays
    must have room for the node and the edges this call adds (the caller grows them).
    """
    k = scratch[LEAF_DEPTH]
    edge = scratch[LEAF_EDGE]
    if edge < 0:
        if word >= 0:
            shuffle_one_word(legal, word)
        edge = expand(ints, edges, scratch, path(scratch)[k], legal)
    _add_and_backup(floats, ints, edges, params, scratch, k, edge, player, value)
    root = scratch[ROOT]
    if floats[root, UPPER] - floats[root, LOWER] <= params[EPSILON]:
        return SOLVED
    if select_next == 0:
        return DONE
    return select(floats, ints, edges, params, scratch)


@numba.njit(cache=True)
def compact(
    floats: np.ndarray, ints: np.ndarray, edges: np.ndarray, scratch: np.ndarray, new_root: int
) -> None:
    """Keeps only the subtree of `new_root` (which becomes the root), moved in place to the
    first rows and edges, in depth-first order; updates `USED`, `EDGES` and `ROOT`.

    Rows move in place: the subtree keeps its creation order, so a node's new row is never after
    its old one. Edges are copied first: a node's edges were allocated when it was expanded,
    which need not follow creation order.
    """
    counters = scratch
    used = counters[USED]
    keep = np.zeros(used, dtype=np.bool_)
    keep[new_root] = True
    # Creation order puts a parent before its children, so one forward pass marks the subtree.
    for node in range(new_root, used):
        if keep[node] and ints[node, COUNT] > 0:
            first = ints[node, FIRST]
            for j in range(ints[node, COUNT]):
                kid = edges[first + j, CHILD]
                if kid >= 0:
                    keep[kid] = True
    row = np.full(used, -1, dtype=np.int64)
    rows = 0
    for node in range(used):
        if keep[node]:
            row[node] = rows
            rows += 1
    old = edges[: counters[EDGES]].copy()
    kept_edges = 0
    for node in range(used):
        if not keep[node]:
            continue
        target = row[node]
        for f in range(FLOAT_FIELDS):
            floats[target, f] = floats[node, f]
        count = ints[node, COUNT]
        first = ints[node, FIRST]
        ints[target, PLAYER] = ints[node, PLAYER]
        ints[target, N] = ints[node, N]
        ints[target, COUNT] = count
        ints[target, NEXT] = ints[node, NEXT]
        if count > 0:
            for j in range(count):
                kid = old[first + j, CHILD]
                edges[kept_edges + j, ACTION] = old[first + j, ACTION]
                edges[kept_edges + j, CHILD] = row[kid] if kid >= 0 else NO_CHILD
            ints[target, FIRST] = kept_edges
            kept_edges += count
        else:
            ints[target, FIRST] = 0
    counters[USED] = rows
    counters[EDGES] = kept_edges
    counters[ROOT] = 0
