"""The `babmcts` bot: BABMCTS as a `SearchBot` over a search that keeps its tree between moves.

`BABMCTSSearch` is the stateful search (`inform_action` and `restart` keep its tree in step with
the game); `BABMCTSBot` is the `SearchBot` that plays it; `SPECS` registers it.

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

from dataclasses import dataclass, replace
from typing import Any, Final

import numpy as np
import pyspiel

from spiel_bounded.bots.base import POLICIES, SearchBot, choose_action
from spiel_bounded.bots.spec import SEED_PARAM, BotSpec, SearchSpec
from spiel_bounded.evaluators import Evaluator, make_evaluator, reseeded
from spiel_bounded.games import TWO_PLAYER_ZERO_SUM_CHANCE, GameInfo
from spiel_bounded.limits import Limits
from spiel_bounded.params import (
    FLAG,
    OPTIONAL_POSITIVE,
    OPTIONAL_POSITIVE_INT,
    OneOf,
    Param,
    check_fields,
    declared,
    pick,
    setting,
)
from spiel_bounded.result import SearchResult
from spiel_bounded.search.babmcts import babmcts, make_tree, tree_engine
from spiel_bounded.search.babmcts.common import BABMCTSSettings, BABMCTSTreeBase

AUTO_POLICY: Final = "auto"
"""The move rule of BABMCTS itself: best lower bound once proved, else most visited open child."""
BOT_POLICIES: Final = (AUTO_POLICY, *POLICIES)
_MOVE_SEED_BOUND: Final = 1 << 31  # fits RolloutEvaluator's seed and C++ ints


@dataclass(frozen=True, kw_only=True)
class BABMCTSBotSettings:
    """What the BABMCTS bot adds to the search's settings.

    Attributes:
        policy: "auto" (BABMCTS's own rule: best lower bound once proved, else the most visited
            unpruned child) or a `POLICIES` rule over the root children's bounds.
        reuse_tree: Keep the subtree below the new position between moves.
    """

    policy: str = setting(
        AUTO_POLICY,
        "move choice: auto (best lower bound once proved, else most visited unpruned child), "
        "or from root bounds: " + ", ".join(POLICIES),
        OneOf(BOT_POLICIES),
    )
    reuse_tree: bool = setting(True, "keep the subtree below the new position between moves", FLAG)

    def __post_init__(self) -> None:
        check_fields(self)


class BABMCTSSearch:
    """BABMCTS as a stateful `bots.base.Search`: one tree kept (or not) between moves.

    The tree follows the game through `inform_action` (other players' moves and chance
    outcomes) and, at each search, through the state's history, so drivers that inform nothing
    (or not chance outcomes) still reuse it.
    """

    def __init__(
        self,
        game: pyspiel.Game,
        *,
        evaluator: str | Evaluator,
        rollouts: int,
        settings: BABMCTSSettings,
        limits: Limits,
        bot_settings: BABMCTSBotSettings,
        seed: int,
    ) -> None:
        self._game = game
        self.settings = settings
        self.limits = limits
        self._reuse = bot_settings.reuse_tree
        self._policy = bot_settings.policy
        self._rng = np.random.default_rng(seed)
        self._evaluator_name = evaluator if isinstance(evaluator, str) else None
        # Built once (and checked now); its playouts, if any, reseeded each move.
        self._evaluator = make_evaluator(evaluator, game, rollouts=rollouts, seed=seed)
        tree_engine(game, self._evaluator, settings)  # engine="native" unavailable: refused now
        self.tree: BABMCTSTreeBase | None = None

    def _evaluator_for(self, move_seed: int) -> Evaluator:
        if self._evaluator_name is None:  # an object: used as it is
            return self._evaluator
        return reseeded(self._evaluator, self._game, move_seed)

    def __call__(self, state: pyspiel.State) -> SearchResult:
        move_seed = int(self._rng.integers(0, _MOVE_SEED_BOUND))
        evaluator = self._evaluator_for(move_seed)
        tree = self.tree
        if tree is not None and self._reuse:
            tree.sync(state)
            tree.evaluator = evaluator
            tree.reseed(move_seed)
        else:
            tree = make_tree(state, evaluator=evaluator, settings=self.settings, rng=move_seed)
        result = tree.search(self.limits)
        self.tree = tree if self._reuse else None
        if self._policy != AUTO_POLICY:
            action = choose_action(result, self._policy, np.random.default_rng(move_seed))
            if action != result.action:
                result = replace(result, action=action, pv=tree.principal_variation(action))
        return result

    def inform_action(self, state: pyspiel.State, player_id: int, action: int) -> None:
        """Follows `action`, taken by `player_id` in `state` (the state before the action).

        Raises:
            ValueError: `state` is terminal, `player_id` is not the player to move in it, or
                `action` is not one of its legal actions (chance outcomes at a chance node).
        """
        action = _checked_informed_action(state, player_id, action)
        tree = self.tree
        if tree is None:
            return
        if state.child(action).is_terminal():
            self.tree = None
            return
        tree.sync(state)
        tree.advance(action)

    def restart(self) -> None:
        self.tree = None


class BABMCTSBot(SearchBot):
    """Plays BABMCTS moves; with `reuse_tree`, keeps the subtree below the new position.

    A `SearchBot` over a `BABMCTSSearch`; `last_result` describes the move played (its action
    and its principal variation in the tree).
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
        self._babmcts = BABMCTSSearch(
            game,
            evaluator=evaluator,
            rollouts=rollouts,
            settings=settings or BABMCTSSettings(),
            limits=limits or Limits(),
            bot_settings=BABMCTSBotSettings(policy=policy, reuse_tree=reuse_tree),
            seed=seed,
        )
        super().__init__(game, player_id, self._babmcts, policy=None, seed=seed)

    @property
    def settings(self) -> BABMCTSSettings:
        """The search settings of every move."""
        return self._babmcts.settings

    @property
    def limits(self) -> Limits:
        """The node and time limits of every move."""
        return self._babmcts.limits

    @property
    def tree(self) -> BABMCTSTreeBase | None:
        """The kept tree (None before the first move, after a restart, or without reuse)."""
        return self._babmcts.tree


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


def _build(
    game: pyspiel.Game, info: GameInfo, player_id: int, params: dict[str, Any]
) -> pyspiel.Bot:
    """A `BABMCTSBot` from checked parameters, read as its search's spec reads them (`SEARCH`:
    the limits, and what "auto" evaluates with). Without a count the bot thinks for the time or
    nodes it is given; with no limit at all it runs `DEFAULT_SIMULATIONS` per move."""
    evaluator = params["evaluator"]
    return BABMCTSBot(
        game,
        player_id,
        evaluator=SEARCH.auto_evaluator if evaluator == "auto" else evaluator,
        rollouts=params["rollouts"],
        settings=BABMCTSSettings(**pick(BABMCTSSettings, params)),
        limits=SEARCH.limits_of(params),
        reuse_tree=params["reuse_tree"],
        policy=params["policy"],
        seed=params["seed"],
    )


SEARCH: Final = SearchSpec(
    function=babmcts,
    settings=BABMCTSSettings,
    limits={
        "seconds": Param(None, "time limit per move (None: unlimited)", OPTIONAL_POSITIVE),
        "nodes": Param(
            None, "tree nodes created per move (None: unlimited)", OPTIONAL_POSITIVE_INT
        ),
    },
    limits_of=lambda params: Limits(nodes=params["nodes"], seconds=params["seconds"]),
    auto_evaluator="rollout",
    seed_keyword="rng",
    proves=True,
)
"""One BABMCTS search (no tree kept): what the epsilon sweep calls; the bot keeps its tree."""

_SEARCH_PARAMS: Final = {name: param for name, param in SEARCH.params.items() if name != "seed"}

SPECS: Final = (
    BotSpec(
        name="babmcts",
        description=(
            "BABMCTS: MCTS whose nodes carry proven bounds, alpha-beta windows prune selection; "
            "stops once the root is proved to within epsilon; keeps its tree between moves"
        ),
        params={**_SEARCH_PARAMS, **declared(BABMCTSBotSettings), **SEED_PARAM},
        requirements=TWO_PLAYER_ZERO_SUM_CHANCE,
        build=_build,
        search=SEARCH,
    ),
)
