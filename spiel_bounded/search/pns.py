"""Proof-number search (df-pn; Nagai 2002, after Allis, van der Meulen & van den Herik 1994) and
bounded multi-outcome proof-number search (Saffidine & Cazenave, ECAI 2012).

`pns` proves or disproves "the player to move wins" (or, with `goal="draw"`, "at least
draws"); `bounded_pns` asks "value >= o" over the game's terminal values until the root's proven
interval is at most epsilon wide. Every node carries proven bounds, so `lower` / `upper` /
`children` are proven whatever the limits. The numbers, the bounds, transpositions and the memory
cap are explained in the manual (docs/algorithms.md); the native engine (`native/src/pns.cc`)
follows this module step for step, and this module stays the reference.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, replace
from typing import Any, Final

import pyspiel

from spiel_bounded.games import (
    TWO_PLAYER_ZERO_SUM,
    check_epsilon,
    require_decision_state,
)
from spiel_bounded.limits import Budget, Limits, SearchStopped
from spiel_bounded.native import (
    ENGINES,
    available,
    check_engine,
    engine_module,
    time_arguments,
    warn_fallback,
)
from spiel_bounded.params import FLAG, NON_NEGATIVE, POSITIVE_INT, OneOf, check_fields, setting
from spiel_bounded.result import GAME_VALUE, Interval, SearchResult, SearchStats, StopReason
from spiel_bounded.search.keys import history_key, key_function, key_rule
from spiel_bounded.search.outcomes import bad_terminal, outcome_reason, terminal_values
from spiel_bounded.search.tt import DEFAULT_CAPACITY

INF: Final = 1 << 60
"""The infinite proof or disproof number (of a disproved or proved node)."""

GOALS: Final = ("win", "draw")


@dataclass(frozen=True, kw_only=True)
class PNSSettings:
    """Settings of `pns` (df-pn)."""

    goal: str = setting("win", "prove the mover wins (win) or at least draws (draw)", OneOf(GOALS))
    # For the player to move at the root: "win" is value > 0 (the draw value), "draw" value >= 0.
    transpositions: bool = setting(True, "share table entries between move orders", FLAG)
    # The key: the game's transposition key (`spiel_bounded.search.keys`) prefixed with the move
    # number. Off keys entries by the history of actions: the table then serves only revisits of
    # the same node.
    tt_capacity: int = setting(
        DEFAULT_CAPACITY,
        "transposition-table entries at most (about 380 bytes each on connect_four)",
        POSITIVE_INT,
    )
    # When full, the entries with the least work below them are dropped (docs/algorithms.md).
    engine: str = setting(
        "auto",
        "auto (native when built), native (required) or python",
        OneOf(ENGINES),
    )
    # The native engine (`spiel_bounded.native`) follows this module step for step: at a node
    # limit it visits the same nodes and ends with the same root children, bounds and numbers,
    # also when the table fills (the collection rule reads the works alone).

    def __post_init__(self) -> None:
        check_fields(self)


@dataclass(frozen=True, kw_only=True)
class BoundedPNSSettings:
    """Settings of `bounded_pns` (bounded multi-outcome proof-number search)."""

    epsilon: float = setting(0.0, "tolerance in utility units (0: the exact value)", NON_NEGATIVE)
    # The search stops once the root interval is at most this wide.
    transpositions: bool = setting(True, "share table entries between move orders", FLAG)
    # Keys and, below, capacity as in `PNSSettings` (see the comments there).
    tt_capacity: int = setting(
        DEFAULT_CAPACITY,
        "transposition-table entries at most (about 380 bytes each on connect_four)",
        POSITIVE_INT,
    )
    engine: str = setting(
        "auto",
        "auto (native when built), native (required) or python",
        OneOf(ENGINES),
    )
    # The native engine (`spiel_bounded.native`) follows this module step for step: at a node
    # limit it visits the same nodes and ends with the same root children, bounds and numbers,
    # also when the table fills (the collection rule reads the works alone).

    def __post_init__(self) -> None:
        check_fields(self)


class _Children:
    """A node's children while it is searched: actions, states, keys, bounds and numbers.
    `lower` and `upper` are proven bounds for the attacker (the player to move at the root)."""

    __slots__ = ("actions", "dn", "keys", "lower", "pn", "states", "upper")

    def __init__(self) -> None:
        self.actions: list[int] = []
        self.states: list[pyspiel.State | None] = []
        self.keys: list[Hashable] = []
        self.lower: list[float] = []
        self.upper: list[float] = []
        self.pn: list[int] = []
        self.dn: list[int] = []


class _DFPNSearch:
    """df-pn over the questions "value >= goal" with proven bounds; one search call's state.
    Every value (goal, bounds, table entries) is the attacker's: the player to move at the root.

    A table entry is a list `[lower, upper, pn, dn, question, work]`: the proven bounds, the numbers
    of the question `question` (an integer id; the numbers of any other question are unknown),
    and the nodes searched below the entry so far.
    """

    def __init__(
        self,
        state: pyspiel.State,
        budget: Budget,
        *,
        floor: float,
        ceiling: float,
        outcomes: frozenset[float] | None,
        transpositions: bool,
        capacity: int,
    ) -> None:
        game = state.get_game()
        self.game = game
        self.attacker = state.current_player()
        self.budget = budget
        self.floor = floor
        self.ceiling = ceiling
        self.outcomes = outcomes
        self.base_key = key_function(game, state) if transpositions else history_key
        self.capacity = capacity
        self.table: dict[Hashable, list] = {}
        self.goal = ceiling
        self.question = 0
        self.tt_hits = 0
        self.collections = 0
        self.max_ply = 0
        self.root_children: _Children | None = None
        self.stop_width = -1.0  # the root returns once upper - lower <= stop_width

    def key(self, state: pyspiel.State) -> Hashable:
        return (state.move_number(), self.base_key(state))

    def ask(self, goal: float) -> None:
        """Starts a new question "value >= goal": every stored number becomes stale."""
        self.goal = goal
        self.question += 1

    def _terminal_value(self, state: pyspiel.State) -> float:
        value = float(state.player_return(self.attacker))
        if self.outcomes is not None and value not in self.outcomes:
            raise bad_terminal(self.game, self.outcomes, value, str(state))
        return value

    def _expand(self, state: pyspiel.State) -> _Children:
        """Generates every child, with bounds and numbers from terminals and the table."""
        children = _Children()
        budget = self.budget
        table = self.table
        goal = self.goal
        question = self.question
        floor, ceiling = self.floor, self.ceiling
        for action in state.legal_actions():
            budget.countdown -= 1
            if budget.countdown <= 0:
                budget.checkpoint()
            child = state.child(action)
            children.actions.append(action)
            if child.is_terminal():
                lower = upper = self._terminal_value(child)
                children.states.append(None)
                children.keys.append(None)
                pn, dn = (0, INF) if lower >= goal else (INF, 0)
            else:
                key = self.key(child)
                children.states.append(child)
                children.keys.append(key)
                entry = table.get(key)
                if entry is None:
                    lower, upper, pn, dn = floor, ceiling, 1, 1
                else:
                    self.tt_hits += 1
                    lower, upper = entry[0], entry[1]
                    if entry[4] == question:
                        pn, dn = entry[2], entry[3]
                    else:
                        pn, dn = 1, 1
                if lower >= goal:
                    pn, dn = 0, INF
                elif upper < goal:
                    pn, dn = INF, 0
            children.lower.append(lower)
            children.upper.append(upper)
            children.pn.append(pn)
            children.dn.append(dn)
        return children

    def _renumber(self, children: _Children) -> _Children:
        """The numbers of the current question for children expanded under an earlier one,
        their bounds tightened by the table."""
        table, goal, question = self.table, self.goal, self.question
        for i, key in enumerate(children.keys):
            lower, upper = children.lower[i], children.upper[i]
            pn, dn = 1, 1
            entry = None if key is None else table.get(key)
            if entry is not None:
                lower, upper = max(lower, entry[0]), min(upper, entry[1])
                if entry[4] == question:
                    pn, dn = entry[2], entry[3]
            if lower >= goal:
                pn, dn = 0, INF
            elif upper < goal:
                pn, dn = INF, 0
            children.lower[i], children.upper[i], children.pn[i], children.dn[i] = (
                lower,
                upper,
                pn,
                dn,
            )
        return children

    def mid(
        self, state: pyspiel.State, key: Hashable, th_pn: int, th_dn: int, ply: int
    ) -> tuple[float, float, int, int]:
        """Searches `state` until pn >= th_pn or dn >= th_dn; returns (lower, upper, pn, dn)."""
        start = self.budget.nodes
        if ply > self.max_ply:
            self.max_ply = ply
        attacking = state.current_player() == self.attacker
        if ply > 0:
            children = self._expand(state)
        elif self.root_children is None:
            children = self.root_children = self._expand(state)
        else:
            # The root keeps its children across questions, so that its bounds never regress
            # when the table has dropped their entries (see `_renumber`).
            children = self._renumber(self.root_children)
        c_lower, c_upper, c_pn, c_dn = children.lower, children.upper, children.pn, children.dn
        goal = self.goal
        count = len(c_pn)
        while True:
            if attacking:
                lower, upper = max(c_lower), max(c_upper)
            else:
                lower, upper = min(c_lower), min(c_upper)
            if lower >= goal:
                pn, dn = 0, INF
            elif upper < goal:
                pn, dn = INF, 0
            elif attacking:
                pn, dn = min(c_pn), min(sum(c_dn), INF)
            else:
                pn, dn = min(sum(c_pn), INF), min(c_dn)
            if pn >= th_pn or dn >= th_dn or (ply == 0 and upper - lower <= self.stop_width):
                break
            # The most proving child: smallest pn at an OR node, smallest dn at an AND node.
            numbers = c_pn if attacking else c_dn
            best = 0
            first = second = INF
            for i in range(count):
                number = numbers[i]
                if number < first:
                    second = first
                    first = number
                    best = i
                elif number < second:
                    second = number
            if attacking:
                child_th_pn = min(th_pn, second + 1)
                child_th_dn = th_dn - dn + c_dn[best]
            else:
                child_th_dn = min(th_dn, second + 1)
                child_th_pn = th_pn - pn + c_pn[best]
            child = children.states[best]
            assert child is not None  # a terminal child is solved, so never the best unsolved
            r_lower, r_upper, r_pn, r_dn = self.mid(
                child, children.keys[best], child_th_pn, child_th_dn, ply + 1
            )
            # Intersected with what this node knew: a child whose table entries were dropped
            # comes back with looser bounds, which must not undo a proof (nor loop forever).
            if r_lower < c_lower[best]:
                r_lower = c_lower[best]
            if r_upper > c_upper[best]:
                r_upper = c_upper[best]
            if r_lower >= goal:
                r_pn, r_dn = 0, INF
            elif r_upper < goal:
                r_pn, r_dn = INF, 0
            c_lower[best], c_upper[best], c_pn[best], c_dn[best] = r_lower, r_upper, r_pn, r_dn
        self._store(key, lower, upper, pn, dn, self.budget.nodes - start)
        return lower, upper, pn, dn

    def _store(
        self, key: Hashable, lower: float, upper: float, pn: int, dn: int, work: int
    ) -> None:
        table = self.table
        entry = table.get(key)
        if entry is not None:
            # Both intervals hold the value, so their intersection does too.
            entry[0] = max(entry[0], lower)
            entry[1] = min(entry[1], upper)
            entry[2], entry[3], entry[4] = pn, dn, self.question
            entry[5] += work
            return
        if len(table) >= self.capacity:
            self._collect()  # makes a new table
        self.table[key] = [lower, upper, pn, dn, self.question, work]

    def _collect(self) -> None:
        """Drops the entries with the least work: every entry at or below the median work."""
        self.collections += 1
        works = sorted(entry[5] for entry in self.table.values())
        cut = works[(len(works) - 1) // 2]
        self.table = {key: entry for key, entry in self.table.items() if entry[5] > cut}

    def search_root(self, root: pyspiel.State) -> tuple[float, float, int, int]:
        """Answers the current question at the root (infinite thresholds)."""
        return self.mid(root, self.key(root), INF, INF, 0)


def _use_native(engine: str, algorithm: str) -> bool:
    """Whether the `engine` setting runs the native engine ("auto": when it is built; the
    searches have no evaluator)."""
    check_engine(engine)
    if engine == "python":
        return False
    if engine == "auto" and not available():
        warn_fallback()
        return False
    engine_module(algorithm)  # "native" where it is unavailable: the error says why
    return True


@dataclass(frozen=True, slots=True)
class _Run:
    """What one engine's search produced: the root's children (None when the root was not
    expanded), the root interval its questions proved, and the stats."""

    children: _Children | None
    lower: float
    upper: float
    stats: SearchStats


def _native_run(
    state: pyspiel.State,
    algorithm: str,
    limits: Limits,
    budget: Budget,
    clock: Callable[[], float],
    *,
    floor: float,
    ceiling: float,
    goal: float | None,
    epsilon: float,
    outcomes: tuple[float, ...] | None,
    transpositions: bool,
    capacity: int,
) -> _Run:
    """The search on the native engine (`spiel_bounded.native`), with the same rules: `goal`
    for `pns`, None for `bounded_pns` (questions on `outcomes`)."""
    game = state.get_game()

    def refuse(value: float, text: str) -> None:
        raise bad_terminal(game, outcomes or (), value, text)

    outcome: Any = engine_module(algorithm).pns(
        state,
        floor=floor,
        ceiling=ceiling,
        goal=goal,
        epsilon=epsilon,
        outcomes=list(outcomes or ()),
        bad_terminal=refuse if outcomes is not None else None,
        transpositions=transpositions,
        key_kind=key_rule(game).kind,
        tt_capacity=capacity,
        max_nodes=limits.nodes,
        **time_arguments(limits, budget, clock),
    )
    stats = SearchStats(
        nodes=outcome.nodes,
        tt_hits=outcome.tt_hits,
        depth=outcome.depth,
        seconds=budget.elapsed(),
        stopped_by=outcome.stopped_by,
        engine="native",
    )
    children = None
    if outcome.expanded:
        children = _Children()
        children.actions = list(outcome.actions)
        children.lower = list(outcome.lower)
        children.upper = list(outcome.upper)
        children.pn = list(outcome.pn)
        children.dn = list(outcome.dn)
    return _Run(children, outcome.root_lower, outcome.root_upper, stats)


def _check_limits(limits: Limits, algorithm: str) -> None:
    if limits.depth is not None:
        raise ValueError(
            f"{algorithm} has no depth limit (a proof goes as deep as it must); got "
            f"depth={limits.depth}: limit it by nodes or seconds"
        )


def _stats(engine: _DFPNSearch, budget: Budget, stopped_by: StopReason) -> SearchStats:
    return SearchStats(
        nodes=budget.nodes,
        tt_hits=engine.tt_hits,
        depth=engine.max_ply,
        seconds=budget.elapsed(),
        stopped_by=stopped_by,
    )


def _intervals(children: _Children) -> dict[int, Interval]:
    return {
        action: Interval(lower, upper)
        for action, lower, upper in zip(
            children.actions, children.lower, children.upper, strict=True
        )
    }


def pns(
    state: pyspiel.State,
    *,
    limits: Limits | None = None,
    settings: PNSSettings | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> SearchResult:
    """Depth-first proof-number search (df-pn; Nagai 2002) from `state` for the player to move.

    Proves or disproves `settings.goal` for the player to move: "win" (value > 0) or "draw"
    (value >= 0), under node and time limits. A disproved win is followed by the draw question
    on what the limits have left, so that the move played is a drawing one when one exists (the
    result then answers that question, with the bounds of both).

    Args:
        state: A non-terminal decision state of a two-player zero-sum deterministic
            perfect-information game.
        limits: `nodes` (states stepped into, re-expansions included) and `seconds`; `depth`
            is refused (proof-number search has no horizon). With none, the search runs until
            the question is answered.
        settings: Goal, transpositions and table capacity.
        clock: Seconds for the time limit (tests inject a fake clock).

    Returns:
        When the question is answered (`stats.stopped_by == "solved"`): `lower`
        and `upper` are proven bounds on the root value from the solved subtrees (a proved
        win in a win / draw / loss game is [1, 1]; a disproved one has upper <= 0), and
        `action` a proving move (proved), or else the move with the best proven bounds. When a
        limit stopped it first (another `stopped_by`): `action` is the most promising move by the
        numbers (the smallest proof number, then the largest disproof number), an estimate;
        `lower`, `upper` and `children` are still bounds proved so far (the whole range when
        nothing was), but the goal is unanswered; `bounds_on` is the game value either way.
        `children` holds every root move's bounds,
        `pv` the action only, `stats.depth` the deepest ply expanded, `stats.tt_hits` the
        children found in the table.

    Raises:
        ValueError: An unsupported game (chance nodes, not two players, not zero-sum, ...), a
            terminal or chance state, or a depth limit.
    """
    limits = limits or Limits()
    settings = settings or PNSSettings()
    budget = Budget(limits, clock=clock)
    info = require_decision_state(state, "pns", TWO_PLAYER_ZERO_SUM)
    _check_limits(limits, "pns")
    native = _use_native(settings.engine, "pns")

    def ask(goal: float, nodes: int | None) -> _Run:
        if not native:  # the Python search counts its nodes on `budget` itself
            return _python_pns(state, budget, info.min_utility, info.max_utility, goal, settings)
        return _native_run(
            state,
            "pns",
            replace(limits, nodes=nodes),
            budget,
            clock,
            floor=info.min_utility,
            ceiling=info.max_utility,
            goal=goal,
            epsilon=0.0,
            outcomes=None,
            transpositions=settings.transpositions,
            capacity=settings.tt_capacity,
        )

    # "value > 0" is "value >= the next float above 0"; "value >= 0" is itself.
    run = ask(math.nextafter(0.0, math.inf) if settings.goal == "win" else 0.0, limits.nodes)
    if settings.goal == "win" and _disproved(run):
        # No win: a drawing move is still better than any other, so ask for one with what the
        # limits have left (every move's "no win" bound stays proved).
        left = None if limits.nodes is None else limits.nodes - (run.stats.nodes or 0)
        if left is None or left > 0:
            run = _asked_again(run, ask(0.0, left))
    children, stats = run.children, run.stats
    stopped_by = stats.stopped_by
    lower, upper = info.min_utility, info.max_utility
    if children is None:  # stopped before the root was expanded
        action = state.legal_actions()[0]
        return SearchResult(
            action=action, lower=lower, upper=upper, pv=(action,), stats=stats, bounds_on=GAME_VALUE
        )
    lower, upper = max(children.lower), max(children.upper)  # the root is an attacker (MAX) node
    actions = children.actions
    if stopped_by == "solved":
        # A proving move when proved; otherwise the best proven bounds.
        index = max(
            range(len(actions)),
            key=lambda i: (children.pn[i] == 0, children.lower[i], children.upper[i]),
        )
    else:
        index = min(range(len(actions)), key=lambda i: (children.pn[i], -children.dn[i]))
    action = actions[index]
    return SearchResult(
        action=action,
        lower=lower,
        upper=upper,
        children=_intervals(children),
        pv=(action,),
        stats=stats,
        bounds_on=GAME_VALUE,  # from solved subtrees only, whether or not the search ended
    )


def bounded_pns(
    state: pyspiel.State,
    *,
    limits: Limits | None = None,
    settings: BoundedPNSSettings | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> SearchResult:
    """Bounded multi-outcome proof-number search (Saffidine & Cazenave 2012) from `state`.

    Narrows the proven interval [lower, upper] of the root value, for the player to move, by df-pn
    on the questions "value >= o" for terminal values o, until `upper - lower <= epsilon`.

    Args:
        state: A non-terminal decision state of a two-player zero-sum deterministic
            perfect-information game with a known set of terminal values
            (`terminal_values`).
        limits: `nodes` and `seconds` as in `pns`; `depth` is refused.
        settings: Epsilon, transpositions and table capacity.
        clock: Seconds for the time limit (tests inject a fake clock).

    Returns:
        A `SearchResult` whose `[lower, upper]` always contains the root value (proven, also
        when a limit stopped the search) and is at most epsilon wide when
        `stats.stopped_by == "solved"`; `action` is the pessimistic move (the root child with
        the best lower bound, then the best upper bound, then the most promising by the
        numbers of the question in progress), within epsilon of optimal when solved;
        `children` every root move's bounds.

    Raises:
        ValueError: An unsupported game (as `pns`, and a game whose set of terminal values is
            not known), a terminal or chance state, a depth limit, or a terminal value outside
            the game's declared set.
    """
    limits = limits or Limits()
    settings = settings or BoundedPNSSettings()
    budget = Budget(limits, clock=clock)
    info = require_decision_state(state, "bounded_pns", TWO_PLAYER_ZERO_SUM)
    _check_limits(limits, "bounded_pns")
    game = state.get_game()
    outcomes = terminal_values(game)
    if outcomes is None:
        raise ValueError(f"bounded_pns cannot play {info.description}: {outcome_reason(game)}")
    epsilon = float(settings.epsilon)
    check_epsilon(epsilon, info, "bounded_pns")
    if _use_native(settings.engine, "bounded_pns"):
        run = _native_run(
            state,
            "bounded_pns",
            limits,
            budget,
            clock,
            floor=outcomes[0],
            ceiling=outcomes[-1],
            goal=None,
            epsilon=epsilon,
            outcomes=outcomes,
            transpositions=settings.transpositions,
            capacity=settings.tt_capacity,
        )
    else:
        run = _python_bounded_pns(state, budget, outcomes, epsilon, settings)
    children, stats = run.children, run.stats
    lower, upper = run.lower, run.upper
    if children is None:
        action = state.legal_actions()[0]
        return SearchResult(
            action=action, lower=lower, upper=upper, pv=(action,), stats=stats, bounds_on=GAME_VALUE
        )
    lower, upper = max(children.lower), max(children.upper)
    actions = children.actions
    index = max(
        range(len(actions)),
        key=lambda i: (children.lower[i], children.upper[i], -children.pn[i], children.dn[i]),
    )
    action = actions[index]
    return SearchResult(
        action=action,
        lower=lower,
        upper=upper,
        children=_intervals(children),
        pv=(action,),
        stats=stats,
        bounds_on=GAME_VALUE,
    )


def _disproved(run: _Run) -> bool:
    """Whether `run` answered its question with no at every root move."""
    return (
        run.stats.stopped_by == "solved"
        and run.children is not None
        and all(pn != 0 for pn in run.children.pn)
    )


def _asked_again(first: _Run, second: _Run) -> _Run:
    """`second` (a later question at the same root, on the same budget) with the bounds both
    proved: intervals intersected, nodes and table hits added."""
    children = second.children
    if children is None or first.children is None:  # stopped before it expanded the root
        return first
    earlier = {
        action: (lower, upper)
        for action, lower, upper in zip(
            first.children.actions, first.children.lower, first.children.upper, strict=True
        )
    }
    bounds = [earlier[action] for action in children.actions]
    children.lower = [max(mine, old[0]) for mine, old in zip(children.lower, bounds, strict=True)]
    children.upper = [min(mine, old[1]) for mine, old in zip(children.upper, bounds, strict=True)]
    stats = replace(
        second.stats,
        nodes=(first.stats.nodes or 0) + (second.stats.nodes or 0),
        tt_hits=(first.stats.tt_hits or 0) + (second.stats.tt_hits or 0),
        depth=max(first.stats.depth, second.stats.depth),
    )
    return _Run(children, max(first.lower, second.lower), min(first.upper, second.upper), stats)


def _python_pns(
    state: pyspiel.State,
    budget: Budget,
    floor: float,
    ceiling: float,
    goal: float,
    settings: PNSSettings,
) -> _Run:
    engine = _DFPNSearch(
        state,
        budget,
        floor=floor,
        ceiling=ceiling,
        outcomes=None,
        transpositions=settings.transpositions,
        capacity=settings.tt_capacity,
    )
    engine.ask(goal)
    stopped_by: StopReason = "solved"
    start = budget.nodes
    try:
        budget.tick()  # the root
        engine.search_root(state)
    except SearchStopped as stop:
        stopped_by = stop.reason
    stats = replace(_stats(engine, budget, stopped_by), nodes=budget.nodes - start)
    return _Run(engine.root_children, floor, ceiling, stats)


def _python_bounded_pns(
    state: pyspiel.State,
    budget: Budget,
    outcomes: tuple[float, ...],
    epsilon: float,
    settings: BoundedPNSSettings,
) -> _Run:
    engine = _DFPNSearch(
        state,
        budget,
        floor=outcomes[0],
        ceiling=outcomes[-1],
        outcomes=frozenset(outcomes),
        transpositions=settings.transpositions,
        capacity=settings.tt_capacity,
    )
    engine.stop_width = epsilon
    lower, upper = outcomes[0], outcomes[-1]
    stopped_by: StopReason = "solved"
    try:
        budget.tick()  # the root
        while upper - lower > epsilon:
            engine.ask(_threshold(outcomes, lower, upper))
            new_lower, new_upper, _, _ = engine.search_root(state)
            lower, upper = max(lower, new_lower), min(upper, new_upper)
    except SearchStopped as stop:
        stopped_by = stop.reason
    return _Run(engine.root_children, lower, upper, _stats(engine, budget, stopped_by))


def _threshold(outcomes: tuple[float, ...], lower: float, upper: float) -> float:
    """The outcome in (lower, upper] nearest the middle of [lower, upper] (the lower one on a
    tie)."""
    middle = 0.5 * (lower + upper)
    candidates = [value for value in outcomes if lower < value <= upper]
    return min(candidates, key=lambda value: (abs(value - middle), value))
