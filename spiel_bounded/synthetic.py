"""Seeded random game trees, registered as the OpenSpiel game `bounded_random_tree`.

The trees are the test oracle for the search algorithms in this package and a research domain in
their own right: every property a search cares about (branching, depth, number of players, chance
nodes, value range, ties, zero-sum or general-sum, transpositions) is a game parameter, and every
tree is a pure function of its parameters, so the same game string always gives the same tree.

Importing this module registers the game::

    import pyspiel
    import spiel_bounded.synthetic  # noqa: F401  (registers the game)

    game = pyspiel.load_game("bounded_random_tree(branching=3,depth=6,seed=7)")

or, from Python, `make_game(branching=3, depth=6, seed=7)`, which also accepts integers for the
float parameters (OpenSpiel's game-string parser is strict: write `chance=1.0`, not `chance=1`).

Parameters (defaults in `DEFAULT_PARAMETERS`):

- `branching` (int >= 1): legal actions at every decision node, `0 .. branching - 1`.
- `depth` (int >= 1): decision plies from the root to every terminal.
- `seed` (int): selects the tree.
- `players` (int, 2 .. 16): player `ply % players` moves at decision ply `ply`.
- `chance` (float in [0, 1]): probability that a chance node precedes a decision ply. 0 gives a
  deterministic game, 1 a chance node before every decision ply; in between, whether a node has
  one is decided by hashing the seed and the node's path (or position), so it is fixed per node.
- `chance_outcomes` (int, 1 .. 65536): outcomes `0 .. chance_outcomes - 1` at a chance node. Their
  probabilities are seeded, non-uniform (ratios up to 4), all > 0, and are multiples of 2**-30,
  so they are exact in floating point and sum to exactly 1.0 in any order.
- `min_value`, `max_value` (float, min < max): the range of every player's return.
- `zero_sum` (0 or 1, default 1): 1 needs a symmetric range, `min_value == -max_value = -M`.
  With 2 players the leaf returns are `(v, -v)`, `v` uniform in [-M, M]. With n >= 3 players
  they are cyclic differences `v_i = x_i - x_(i+1 mod n)` of `x_i` uniform in [0, M], which lie
  in [-M, M] and sum to 0 (the last one is computed as minus the sum of the others, so the sum
  taken left to right is exactly 0.0). 0 gives independent returns uniform in [min, max] and a
  GENERAL_SUM game.
- `integer_values` (0 or 1): 1 draws the same quantities as integers (uniform over the integers
  of the range), so leaf values tie often - for testing tie handling.
- `transpositions` (0 or 1): 0 makes every node distinct: its string is the path of actions from
  the root. 1 makes a node a *position*: (decision ply, whether the chance node before this ply
  is resolved, each player's sum of own actions, sum of chance outcomes). Different move orders
  reach the same position; the position string is the whole state, and the chance-node
  placement, chance probabilities and leaf values are functions of it, so equal strings have
  identical subtrees.
- `ordered` (0 or 1): 1 makes a best-first tree, the best case of alpha-beta (Knuth & Moore
  1975): at every decision node action 0 is optimal for the mover. Values are assigned top-down:
  the root's is drawn from the range, action 0 inherits its parent's value, and any other action
  gets a value drawn between the parent's value and the end of the range that is worse for the
  mover; a leaf's returns are `(v, -v)` for its value v, so every node's minimax value is the
  value it was given. Needs two players, `zero_sum=1`, `chance=0` and `transpositions=0`.

All randomness is a splitmix64-style integer hash of the seed and the node's path or position;
no global random state is used. The exact brute-force solvers that serve as oracles for these
trees (and any perfect-information game small enough) are in `spiel_bounded.oracles`.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import pyspiel

from spiel_bounded.params import Checker, Flag, Number

__all__ = [
    "DEFAULT_PARAMETERS",
    "GAME_TYPE",
    "SHORT_NAME",
    "SyntheticGame",
    "SyntheticState",
    "TreeParams",
    "make_game",
]

SHORT_NAME = "bounded_random_tree"
PLAYOUT_SAMPLES = 3
"""Playouts averaged by `SyntheticState.playout_returns` (the trees' heuristic)."""
MAX_PLAYERS = 16
MAX_CHANCE_OUTCOMES = 1 << 16

DEFAULT_PARAMETERS: dict[str, int | float] = {
    "branching": 3,
    "depth": 4,
    "seed": 0,
    "players": 2,
    "chance": 0.0,
    "chance_outcomes": 2,
    "min_value": -1.0,
    "max_value": 1.0,
    "zero_sum": 1,
    "integer_values": 0,
    "transpositions": 0,
    "ordered": 0,
}

_Type = pyspiel.GameType


def _game_type(*, chance: bool, zero_sum: bool) -> Any:
    return pyspiel.GameType(
        short_name=SHORT_NAME,
        long_name="Bounded seeded random game tree",
        dynamics=_Type.Dynamics.SEQUENTIAL,
        chance_mode=(
            _Type.ChanceMode.EXPLICIT_STOCHASTIC if chance else _Type.ChanceMode.DETERMINISTIC
        ),
        information=_Type.Information.PERFECT_INFORMATION,
        utility=_Type.Utility.ZERO_SUM if zero_sum else _Type.Utility.GENERAL_SUM,
        reward_model=_Type.RewardModel.TERMINAL,
        max_num_players=MAX_PLAYERS,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=False,
        provides_factored_observation_string=False,
        parameter_specification=DEFAULT_PARAMETERS,
    )


# The registered type describes the default game (deterministic, zero-sum); each loaded game
# reports its own chance mode and utility through `game.get_type()`.
GAME_TYPE = _game_type(chance=False, zero_sum=True)

_TERMINAL = int(pyspiel.PlayerId.TERMINAL)
_CHANCE = int(pyspiel.PlayerId.CHANCE)

# ---------------------------------------------------------------------------------------------
# Hashing: splitmix64's finaliser, in pure Python (a numpy Generator per node is ~100x slower).

_MASK = (1 << 64) - 1
_EDGE_MUL = 0xD1342543DE82EF95  # odd: the path hash is a polynomial in the actions, then mixed
_SALT_ROOT = 0x6A09E667F3BCC908
_SALT_CHANCE_NODE = 0xBB67AE8584CAA73B
_SALT_PROBABILITY = 0x3C6EF372FE94F82B
_SALT_VALUE = 0xA54FF53A5F1D36F1
_SALT_PLAYOUT = 0x510E527FADE682D1
_PROBABILITY_BITS = 30
_PROBABILITY_ONE = 1 << _PROBABILITY_BITS
_INV_2_53 = 1.0 / (1 << 53)


def _mix(z: int) -> int:
    """splitmix64: a bijective, well-mixing hash of a 64-bit integer."""
    z = (z + 0x9E3779B97F4A7C15) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


def _child_key(key: int, action: int) -> int:
    return _mix((key * _EDGE_MUL + action + 1) & _MASK)


def _uniform(h: int) -> float:
    """A float in [0, 1) from the top 53 bits of a hash."""
    return (h >> 11) * _INV_2_53


def _uniform_int(h: int, low: int, high: int) -> int:
    """An integer in [low, high] from a hash (multiply-shift, no modulo bias worth noting)."""
    return low + (((high - low + 1) * h) >> 64)


# ---------------------------------------------------------------------------------------------
# Parameters.


def _fail(name: str, value: object, accepted: str) -> ValueError:
    return ValueError(f"{SHORT_NAME}: parameter '{name}' must be {accepted}; got {value!r}")


_CHECKS: Final[dict[str, Checker]] = {
    "branching": Number(minimum=1, integer=True, lenient=True),
    "depth": Number(minimum=1, integer=True, lenient=True),
    "seed": Number(integer=True, lenient=True),
    "players": Number(minimum=2, maximum=MAX_PLAYERS, integer=True, lenient=True),
    "chance": Number(minimum=0, maximum=1, lenient=True),
    "chance_outcomes": Number(minimum=1, maximum=MAX_CHANCE_OUTCOMES, integer=True, lenient=True),
    "min_value": Number(lenient=True),
    "max_value": Number(lenient=True),
    "zero_sum": Flag(zero_one=True),
    "integer_values": Flag(zero_one=True),
    "transpositions": Flag(zero_one=True),
    "ordered": Flag(zero_one=True),
}
"""The check of every parameter (the one set of checkers in `spiel_bounded.params`)."""


def _checked(name: str, value: object) -> Any:
    try:
        return _CHECKS[name](value)
    except ValueError as error:
        raise ValueError(f"{SHORT_NAME}: parameter '{name}' {error}") from None


@dataclass(frozen=True, kw_only=True)
class TreeParams:
    """The validated parameters of a `bounded_random_tree` game, plus the tree's hash functions.

    Attributes mirror the game parameters (see the module docstring); flags are bools.
    """

    branching: int
    depth: int
    seed: int
    players: int
    chance: float
    chance_outcomes: int
    min_value: float
    max_value: float
    zero_sum: bool
    integer_values: bool
    transpositions: bool
    ordered: bool = False

    @classmethod
    def from_dict(cls, params: dict[str, Any] | None) -> TreeParams:
        """Validates a parameter dict (missing keys take their defaults).

        Args:
            params: Parameter name to value; ints are accepted for float parameters.

        Returns:
            The validated parameters.

        Raises:
            ValueError: A parameter is unknown or out of range; the message names it, its value
                and what is accepted.
        """
        given = dict(params or {})
        unknown = sorted(set(given) - set(DEFAULT_PARAMETERS))
        if unknown:
            raise ValueError(
                f"{SHORT_NAME}: unknown parameter(s) {unknown}; accepted parameters are "
                f"{sorted(DEFAULT_PARAMETERS)}"
            )
        p = {**DEFAULT_PARAMETERS, **given}

        v = {name: _checked(name, value) for name, value in p.items()}
        min_value, max_value = v["min_value"], v["max_value"]
        if not min_value < max_value:
            raise _fail("max_value", p["max_value"], f"a number > min_value ({min_value})")
        if v["zero_sum"] and min_value != -max_value:
            raise _fail(
                "zero_sum",
                p["zero_sum"],
                f"0 when the value range [{min_value}, {max_value}] is not symmetric "
                "(zero_sum=1 needs min_value == -max_value)",
            )
        if v["integer_values"] and math.ceil(min_value) > math.floor(max_value):
            raise _fail(
                "integer_values",
                p["integer_values"],
                f"0 when no integer lies in [{min_value}, {max_value}]",
            )
        if v["ordered"]:
            for name, needed in (("players", 2), ("zero_sum", 1), ("chance", 0.0)):
                if p[name] != needed:
                    raise _fail(
                        "ordered", p["ordered"], f"0 when {name} is not {needed} (got {p[name]})"
                    )
            if v["transpositions"]:
                raise _fail("ordered", p["ordered"], "0 when transpositions=1")
        return cls(**v)

    def to_dict(self) -> dict[str, int | float]:
        """The parameters with OpenSpiel's types (ints, and floats for the float parameters)."""
        return {
            "branching": self.branching,
            "depth": self.depth,
            "seed": self.seed,
            "players": self.players,
            "chance": self.chance,
            "chance_outcomes": self.chance_outcomes,
            "min_value": self.min_value,
            "max_value": self.max_value,
            "zero_sum": int(self.zero_sum),
            "integer_values": int(self.integer_values),
            "transpositions": int(self.transpositions),
            "ordered": int(self.ordered),
        }

    def __deepcopy__(self, memo: dict[int, Any]) -> TreeParams:
        # Immutable and shared by every state; OpenSpiel deep-copies a state's attributes on
        # clone(), so this keeps cloning cheap.
        return self

    # -- the tree, as functions of a node key (a hash of the seed and the path or position) --

    def root_key(self) -> int:
        """The key of the root's path (path mode only)."""
        return _mix((self.seed & _MASK) ^ _SALT_ROOT)

    def has_chance_node(self, key: int) -> bool:
        """Whether the node with this key, at the start of a decision ply, is a chance node."""
        if self.chance >= 1.0:
            return True
        if self.chance <= 0.0:
            return False
        return _uniform(_mix(key ^ _SALT_CHANCE_NODE)) < self.chance

    def chance_distribution(self, key: int) -> list[tuple[int, float]]:
        """The (outcome, probability) pairs of the chance node with this key.

        Probabilities are k / 2**30 with integer k >= 1: exact floats summing to exactly 1.0.
        """
        n = self.chance_outcomes
        base = _mix(key ^ _SALT_PROBABILITY)
        # Weights in [1, 4] (scaled by 2**20): non-uniform, but no outcome is negligible.
        weights = [_uniform_int(_mix(base + i), 1 << 20, 4 << 20) for i in range(n)]
        total = sum(weights)
        ticks = [w * _PROBABILITY_ONE // total for w in weights[:-1]]
        ticks.append(_PROBABILITY_ONE - sum(ticks))
        return [(i, t / _PROBABILITY_ONE) for i, t in enumerate(ticks)]

    def leaf_returns(self, key: int) -> list[float]:
        """The players' returns at the terminal with this key (see the module docstring)."""
        n = self.players
        hashes = [_mix(key ^ (_SALT_VALUE + i)) for i in range(n)]
        if self.zero_sum:
            top = self.max_value
            if n == 2:
                if self.integer_values:
                    m = math.floor(top)
                    v = float(_uniform_int(hashes[0], -m, m))
                else:
                    v = -top + 2.0 * top * _uniform(hashes[0])
                return [v, -v]
            if self.integer_values:
                m = math.floor(top)
                x = [float(_uniform_int(h, 0, m)) for h in hashes]
            else:
                x = [top * _uniform(h) for h in hashes]
            values = [x[i] - x[i + 1] for i in range(n - 1)]
            last = 0.0
            for v in values:
                last -= v
            # Mathematically x[n-1] - x[0], within [-top, top]; clipping only guards rounding.
            values.append(min(top, max(-top, last)))
            return values
        low, high = self.min_value, self.max_value
        if self.integer_values:
            lower, upper = math.ceil(low), math.floor(high)
            return [float(_uniform_int(h, lower, upper)) for h in hashes]
        return [min(high, low + (high - low) * _uniform(h)) for h in hashes]

    def value_between(self, key: int, low: float, high: float) -> float:
        """A value drawn from [low, high] by the node's key (an integer with `integer_values`)."""
        h = _mix(key ^ _SALT_VALUE)
        if self.integer_values:
            return float(_uniform_int(h, math.ceil(low), math.floor(high)))
        return min(high, low + (high - low) * _uniform(h))


# ---------------------------------------------------------------------------------------------
# The OpenSpiel game.


class SyntheticGame(pyspiel.Game):
    """A seeded random game tree (`bounded_random_tree`); see the module docstring."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        """Builds the game.

        Args:
            params: Game parameters (missing ones take their defaults).

        Raises:
            ValueError: A parameter is invalid.
        """
        tree = TreeParams.from_dict(params)
        has_chance = tree.chance > 0.0
        info = pyspiel.GameInfo(
            num_distinct_actions=tree.branching,
            max_chance_outcomes=tree.chance_outcomes if has_chance else 0,
            num_players=tree.players,
            min_utility=tree.min_value,
            max_utility=tree.max_value,
            utility_sum=0.0 if tree.zero_sum else None,
            max_game_length=2 * tree.depth if has_chance else tree.depth,
        )
        game_type = _game_type(chance=has_chance, zero_sum=tree.zero_sum)
        super().__init__(game_type, info, tree.to_dict())
        self.tree = tree
        self.root_node = _Node.root(tree)

    def new_initial_state(self) -> SyntheticState:
        """Returns the root of the tree."""
        return SyntheticState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> _StringObserver:
        """Returns the observer behind observation and information-state strings."""
        if params:
            raise ValueError(f"{SHORT_NAME}: observation parameters not supported; got {params}")
        return _StringObserver()


class _Node:
    """An immutable tree node: everything a `SyntheticState` knows, shared between clones."""

    __slots__ = ("at_chance", "key", "ply", "rolled", "sums", "text", "tree", "value")

    def __init__(
        self,
        tree: TreeParams,
        ply: int,
        rolled: bool,
        sums: tuple[int, ...],
        key: int,
        text: str,
        value: float = 0.0,
    ) -> None:
        self.tree = tree
        self.ply = ply  # decision plies played
        self.rolled = rolled  # the chance node before this decision ply is resolved
        self.sums = sums  # transposition mode: per-player sums of own actions, then chance sum
        self.key = key  # hash of the seed and the path (or position): determines the subtree
        self.text = text
        self.value = value  # ordered trees: the node's minimax value for player 0
        self.at_chance = not rolled and ply < tree.depth and tree.has_chance_node(key)

    def __deepcopy__(self, memo: dict[int, Any]) -> _Node:
        # OpenSpiel's clone() deep-copies the state's attributes; nodes are immutable.
        return self

    @staticmethod
    def root(tree: TreeParams) -> _Node:
        if tree.transpositions:
            sums = (0,) * (tree.players + 1)
            return _Node(tree, 0, False, sums, *_position(tree.seed, 0, False, sums))
        key = tree.root_key()
        value = tree.value_between(key, tree.min_value, tree.max_value) if tree.ordered else 0.0
        return _Node(tree, 0, False, (), key, "path:", value)

    def child(self, action: int) -> _Node:
        tree = self.tree
        if self.at_chance:
            ply, rolled = self.ply, True
            if tree.transpositions:
                sums = (*self.sums[:-1], self.sums[-1] + action)
            else:
                return _Node(
                    tree, ply, rolled, (), _child_key(self.key, action), f"{self.text} c{action}"
                )
        else:
            ply, rolled = self.ply + 1, False
            if tree.transpositions:
                mover = self.ply % tree.players
                sums = (*self.sums[:mover], self.sums[mover] + action, *self.sums[mover + 1 :])
            else:
                key = _child_key(self.key, action)
                value = self.value
                if tree.ordered and action > 0:
                    # Player 0 maximises its value, player 1 minimises it: any move but the
                    # first is at most as good for the mover.
                    if self.ply % 2 == 0:
                        value = tree.value_between(key, tree.min_value, value)
                    else:
                        value = tree.value_between(key, value, tree.max_value)
                return _Node(tree, ply, rolled, (), key, f"{self.text} {action}", value)
        return _Node(tree, ply, rolled, sums, *_position(tree.seed, ply, rolled, sums))

    def leaf_returns(self) -> list[float]:
        """The players' returns at this terminal."""
        if self.tree.ordered:
            return [self.value, -self.value]
        return self.tree.leaf_returns(self.key)


@functools.lru_cache(maxsize=1 << 16)
def _position(seed: int, ply: int, rolled: bool, sums: tuple[int, ...]) -> tuple[int, str]:
    """The key and string of a position (transposition mode).

    The key hashes the seed and the position only, so equal positions reached by different
    paths have equal keys, hence identical subtrees.
    """
    key = _mix((seed & _MASK) ^ _SALT_ROOT)
    key = _child_key(key, 2 * ply + rolled)
    for total in sums:
        key = _child_key(key, total)
    moves = ",".join(str(s) for s in sums[:-1])
    return key, f"ply={ply} rolled={int(rolled)} sums={moves};{sums[-1]}"


class SyntheticState(pyspiel.State):
    """A node of a `bounded_random_tree`.

    The node is identified by its string: the path of actions from the root (`"path: 0 2 c1 1"`,
    with chance outcomes prefixed by `c`) or, with transpositions, the position
    (`"ply=2 rolled=1 sums=0,2;1"`: per-player sums of own actions, then the sum of chance
    outcomes; `rolled=1` once the chance node before this decision ply is resolved).
    """

    def __init__(self, game: SyntheticGame) -> None:
        """Creates the root; call `game.new_initial_state()` instead."""
        super().__init__(game)
        self._node: _Node = game.root_node

    @property
    def ply(self) -> int:
        """The number of decision plies played so far."""
        return self._node.ply

    @property
    def key(self) -> int:
        """The 64-bit hash that determines this node's subtree (for tests and tooling)."""
        return self._node.key

    def current_player(self) -> int:
        """Returns the player to move, or CHANCE / TERMINAL."""
        node = self._node
        if node.ply >= node.tree.depth:
            return _TERMINAL
        if node.at_chance:
            return _CHANCE
        return node.ply % node.tree.players

    def is_terminal(self) -> bool:
        """Returns True after `depth` decision plies."""
        return self._node.ply >= self._node.tree.depth

    def _legal_actions(self, player: int) -> list[int]:
        """Returns the legal actions of a decision node: `0 .. branching - 1`."""
        node = self._node
        if node.ply >= node.tree.depth:
            return []
        return list(range(node.tree.branching))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """Returns the (outcome, probability) pairs of a chance node."""
        node = self._node
        if not node.at_chance:
            return []
        return node.tree.chance_distribution(node.key)

    def _apply_action(self, action: int) -> None:
        """Moves to the child reached by `action` (a chance outcome at chance nodes)."""
        self._node = self._node.child(action)

    def playout_returns(self, samples: int = PLAYOUT_SAMPLES) -> list[float]:
        """The mean returns of `samples` seeded playouts from this node: every move and chance
        outcome is picked by hashing the node's key with the playout's number, so the estimate
        is deterministic, and as the mean of real leaves it keeps the tree's value range and
        constant sum (the heuristic evaluator of these trees)."""
        node = self._node
        tree = node.tree
        total = [0.0] * tree.players
        for sample in range(samples):
            walk = node
            while walk.ply < tree.depth:
                pick = _mix(walk.key ^ (_SALT_PLAYOUT + sample))
                if walk.at_chance:
                    walk = walk.child(pick % tree.chance_outcomes)
                else:
                    walk = walk.child(pick % tree.branching)
            for player, value in enumerate(walk.leaf_returns()):
                total[player] += value
        return [value / samples for value in total]

    def _action_to_string(self, player: int, action: int) -> str:
        """Returns `c<outcome>` for chance outcomes and `p<player>:<action>` for moves."""
        if player == _CHANCE:
            return f"c{action}"
        return f"p{player}:{action}"

    def returns(self) -> list[float]:
        """Returns the leaf values at terminals and zeros elsewhere."""
        node = self._node
        if node.ply < node.tree.depth:
            return [0.0] * node.tree.players
        return node.leaf_returns()

    def __str__(self) -> str:
        """The node's path (or, with transpositions, its position); deterministic."""
        return self._node.text


class _StringObserver:
    """Observer (OpenSpiel's PyObserver interface) whose string is the state's string."""

    def __init__(self) -> None:
        self.tensor = np.zeros(0, np.float32)
        self.dict: dict[str, np.ndarray] = {}

    def set_from(self, state: SyntheticState, player: int) -> None:
        """No tensor to fill."""

    def string_from(self, state: SyntheticState, player: int) -> str:
        """The state's string (the game has perfect information)."""
        return str(state)


if SHORT_NAME not in pyspiel.registered_names():
    pyspiel.register_game(GAME_TYPE, SyntheticGame)


def make_game(**params: int | float) -> Any:
    """Loads a `bounded_random_tree` through `pyspiel.load_game`.

    Unlike a game string, ints are accepted for the float parameters.

    Args:
        **params: Game parameters; missing ones take their defaults.

    Returns:
        The loaded `pyspiel.Game` (a `SyntheticGame`).

    Raises:
        ValueError: A parameter is invalid.
    """
    tree = TreeParams.from_dict(params)
    given = {k: v for k, v in tree.to_dict().items() if k in params}
    return pyspiel.load_game(SHORT_NAME, given)
