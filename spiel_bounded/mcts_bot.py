"""`BABMCTSBot`: BABMCTS as a `pyspiel.Bot` that keeps its tree between moves.

A sibling of `SearchBot` (bots.py): the search is stateful, so `step`, `inform_action`,
`restart_at` and `restart` manage a `BABMCTSTree` instead of calling a stateless search.

Randomness: the bot owns one `numpy.random.Generator` seeded with `seed`. Every move draws one
integer from it, and that integer alone seeds the move's search (expansion order, chance
sampling), its rollout evaluator (when the evaluator was given by name) and the tie-breaks of the
move choice. So the sequence of per-move seeds depends only on `seed` and the number of moves
played, not on the tree: a bot that reuses its tree and one that does not search each move with
the same seed and budget. Both then decide identically whenever the searches prove the root with
epsilon = 0 and the optimal move is unique (a proved root decides by the exact values); with a
budget too small to prove the root, the reused tree's extra statistics may of course lead to
another (usually better informed) move.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Final

import numpy as np
import pyspiel

from spiel_bounded.bots import POLICIES, check_policy, choose_action
from spiel_bounded.evaluators import Evaluator, make_evaluator
from spiel_bounded.games import GameInfo
from spiel_bounded.limits import DEFAULT_SECONDS, Limits
from spiel_bounded.result import SearchResult
from spiel_bounded.search.mcts import BABMCTSSettings, BABMCTSTree

AUTO_POLICY: Final = "auto"
"""The move rule of BABMCTS itself: best lower bound once proved, else most visited open child."""
BOT_POLICIES: Final = (AUTO_POLICY, *POLICIES)
_MOVE_SEED_BOUND: Final = 1 << 31  # fits RolloutEvaluator's seed and C++ ints


class BABMCTSBot(pyspiel.Bot):
    """Plays BABMCTS moves; with `reuse_tree`, keeps the subtree below the new position.

    Works with `pyspiel.evaluate_bots` (C++) and `open_spiel.python.algorithms.evaluate_bots`.
    The tree follows the game through `inform_action` (other players' moves and chance outcomes)
    and, at `step`, through the state's history, so drivers that inform nothing (or not chance
    outcomes) still reuse it. `last_result` holds the `SearchResult` of the most recent move,
    describing the move played (its action and principal variation).
    """

    def __init__(
        self,
        game: pyspiel.Game,
        player_id: int,
        *,
        evaluator: str | Evaluator = "rollout",
        rollouts: int = 1,
        settings: BABMCTSSettings | None = None,
        limits: Limits | None = None,
        reuse_tree: bool = True,
        policy: str = AUTO_POLICY,
        seed: int = 0,
    ) -> None:
        """Builds the bot.

        Args:
            game: The game (two players, zero-sum, perfect information; chance allowed).
            player_id: The seat the bot plays.
            evaluator: A name for `make_evaluator` ("rollout", "zero", "heuristic") or an
                `Evaluator` object (used as is, its randomness its own).
            rollouts: Playouts per evaluation of the "rollout" evaluator.
            settings: BABMCTS settings (simulations per move, epsilon, memory cap, ...).
            limits: Node and time limits per move.
            reuse_tree: Keep the tree between moves.
            policy: "auto" (BABMCTS's own rule) or a `bots.POLICIES` rule over the root
                children's bounds.
            seed: Seed of all the bot's randomness.

        Raises:
            ValueError: A bad policy or evaluator name, or a game the evaluator cannot value.
        """
        pyspiel.Bot.__init__(self)
        self._game = game
        self._player_id = player_id
        self._settings = settings or BABMCTSSettings()
        self._limits = limits or Limits()
        self._reuse = reuse_tree
        self._policy = policy if policy == AUTO_POLICY else check_policy(policy)
        self._rng = np.random.default_rng(seed)
        self._rollouts = rollouts
        self._evaluator_name = evaluator if isinstance(evaluator, str) else None
        # Built once (and checked now) unless it is a per-move seeded rollout evaluator.
        self._evaluator = make_evaluator(evaluator, game, rollouts=rollouts, seed=seed)
        self._tree: BABMCTSTree | None = None
        self.counts_nodes = True
        self.last_result: SearchResult | None = None

    @property
    def player_id(self) -> int:
        return self._player_id

    @property
    def settings(self) -> BABMCTSSettings:
        """The search settings of every move."""
        return self._settings

    @property
    def limits(self) -> Limits:
        """The node and time limits of every move."""
        return self._limits

    @property
    def tree(self) -> BABMCTSTree | None:
        """The kept tree (None before the first move, after a restart, or without reuse)."""
        return self._tree

    def _evaluator_for(self, move_seed: int) -> Evaluator:
        if self._evaluator_name == "rollout":
            return make_evaluator("rollout", self._game, rollouts=self._rollouts, seed=move_seed)
        return self._evaluator

    def step_with_policy(self, state: pyspiel.State) -> tuple[list[tuple[int, float]], int]:
        move_seed = int(self._rng.integers(0, _MOVE_SEED_BOUND))
        evaluator = self._evaluator_for(move_seed)
        tree = self._tree
        if tree is not None and self._reuse:
            tree.sync(state)
            tree.evaluator = evaluator
            tree.reseed(move_seed)
        else:
            tree = BABMCTSTree(state, evaluator=evaluator, settings=self._settings, rng=move_seed)
        result = tree.search(self._limits)
        self._tree = tree if self._reuse else None
        action = result.action
        if self._policy != AUTO_POLICY:
            action = choose_action(result, self._policy, np.random.default_rng(move_seed))
            if action != result.action:
                result = replace(result, action=action, pv=tree.principal_variation(action))
        self.last_result = result
        return [(action, 1.0)], action

    def step(self, state: pyspiel.State) -> int:
        return self.step_with_policy(state)[1]

    def provides_policy(self) -> bool:
        return True

    def inform_action(self, state: pyspiel.State, player_id: int, action: int) -> None:
        """Follows `action`, taken by `player_id` in `state` (the state before the action).

        Raises:
            ValueError: `state` is terminal, `player_id` is not the player to move in it, or
                `action` is not one of its legal actions (chance outcomes at a chance node).
        """
        action = _checked_informed_action(state, player_id, action)
        tree = self._tree
        if tree is None:
            return
        if state.child(action).is_terminal():
            self._tree = None
            return
        tree.sync(state)
        tree.advance(action)

    def restart_at(self, state: pyspiel.State) -> None:
        self._tree = None
        self.last_result = None

    def restart(self) -> None:
        self._tree = None
        self.last_result = None


def _checked_informed_action(state: pyspiel.State, player_id: int, action: int) -> int:
    """`action` as an int, or `ValueError` when it cannot have been played in `state`."""
    expected = "inform_action takes the state before the action, its player and a legal action"
    if state.is_terminal():
        raise ValueError(f"inform_action got a terminal state; {expected}")
    if player_id != state.current_player():
        raise ValueError(
            f"inform_action got player {player_id}, but player {state.current_player()} is to "
            f"move; {expected}"
        )
    if state.is_chance_node():
        legal = [outcome for outcome, _ in state.chance_outcomes()]
    else:
        legal = state.legal_actions()
    if isinstance(action, bool) or not isinstance(action, int | np.integer) or action not in legal:
        shown = ", ".join(map(str, legal[:20])) + (", ..." if len(legal) > 20 else "")
        raise ValueError(
            f"inform_action got action {action!r}, which is not legal in the given state "
            f"(legal: {shown}); {expected}"
        )
    return int(action)


def build_babmcts(
    game: pyspiel.Game, info: GameInfo, player_id: int, params: dict[str, Any]
) -> pyspiel.Bot:
    """The registry's factory: a `BABMCTSBot` from checked registry parameters.

    `params` holds epsilon, simulations, seconds, nodes, uct_c, evaluator ("auto" means
    rollout), rollouts, policy, reuse_tree, max_nodes and seed. With no simulation, node or time
    limit at all, the bot takes `DEFAULT_SECONDS` per move.
    """
    simulations, nodes, seconds = params["simulations"], params["nodes"], params["seconds"]
    if simulations is None and nodes is None and seconds is None:
        seconds = DEFAULT_SECONDS
    settings = BABMCTSSettings(
        epsilon=params["epsilon"],
        uct_c=params["uct_c"],
        simulations=simulations,
        max_nodes=params["max_nodes"],
    )
    evaluator = params["evaluator"]
    return BABMCTSBot(
        game,
        player_id,
        evaluator="rollout" if evaluator == "auto" else evaluator,
        rollouts=params["rollouts"],
        settings=settings,
        limits=Limits(nodes=nodes, seconds=seconds),
        reuse_tree=params["reuse_tree"],
        policy=params["policy"],
        seed=params["seed"],
    )
