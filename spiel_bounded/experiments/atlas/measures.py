"""What the atlas measures of one game: each function is one task's work and returns a typed
result (`asdict` of it is the task record's `data`).

- `game_facts`: branching factor and length from seeded random playouts, the terminal values
  seen, the rates of `child` and `clone` + `apply_action`, and whether `undo_action` is exact.
- `calibrate_depth`: the deepest depth at which the epsilon-0 search of a game's first positions
  stays within a node budget (Q1 then searches every position at that depth).
- `versus_openspiel`: our epsilon-0 search against OpenSpiel's `alpha_beta_search` (or
  `expectiminimax` with chance) at depths 1, 2, ... up to the first depth at which OpenSpiel's
  search needs more than a time budget, values checked equal at every depth.
- `solve_position`: `pns`, `bounded_pns` or `bounded_ab` to the end of a small variant, within a
  node cap.
- `trace_interval`: the proven root interval of `bounded_ab`, `babmcts` or `bounded_pns` at
  growing node budgets (a fresh search per budget).
- `pruning_nodes`: max^n at a fixed depth with one pruning mode.

Seconds are process time (`time.process_time`) so that other processes on the machine change
them less than wall time; only the call rates of `game_facts` (short loops) are wall-clock.
"""

from __future__ import annotations

import statistics
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import pyspiel
from open_spiel.python.algorithms import minimax

from spiel_bounded.evaluators import make_evaluator
from spiel_bounded.experiments.positions import Position
from spiel_bounded.experiments.tasks import make_task, run_task
from spiel_bounded.games import game_info, load_game
from spiel_bounded.limits import Limits
from spiel_bounded.result import SearchResult
from spiel_bounded.search.alphabeta import AlphaBetaSettings, bounded_ab
from spiel_bounded.search.babmcts import babmcts
from spiel_bounded.search.babmcts.common import BABMCTSSettings
from spiel_bounded.search.maxn import MaxnSettings, maxn
from spiel_bounded.search.pns import BoundedPNSSettings, bounded_pns, pns

RATE_STATES: Final = 200
"""States (spread over the playouts) whose children are timed for the rates."""
RATE_ACTIONS: Final = 16
"""Legal actions per timed state at most."""
UNDO_CHECKS: Final = 400
"""Random (state, action) pairs on which `undo_action` is checked."""
VALUE_TOLERANCE: Final = 1e-9
"""Values that differ by less are the same (float rounding of weighted chance values)."""
PLAYOUT_TRIES: Final = 100
"""Random playouts tried per position asked before `random_position_list` gives up."""
ABANDON: Final = 5
"""OpenSpiel's search at one depth is given up after this many times its time budget."""
TERMINAL_VALUES_KEPT: Final = 12
"""Distinct terminal returns of player 0 listed (more are counted, not listed)."""
SOLVERS: Final = ("pns", "bounded_pns", "bounded_ab")
TRACERS: Final = ("bounded_ab", "babmcts", "bounded_pns")


def leaf_params(evaluator: str, rollouts: int) -> dict[str, Any]:
    """A search's leaf parameters: the evaluator, and its playouts when not 1 (so that the tasks
    of one playout keep the parameters, and ids, they had before playouts could be set)."""
    return {"evaluator": evaluator, **({"rollouts": rollouts} if rollouts != 1 else {})}


def random_position_list(
    game_string: str, count: int, plies: tuple[int, int], seed: int
) -> list[Position]:
    """`count` seeded positions (decision nodes) after `plies[0] .. plies[1]` random decision
    plies (both included), chance outcomes sampled by their probabilities. A playout that ends
    before its ply count is started again.

    Raises:
        ValueError: `PLAYOUT_TRIES` x `count` playouts did not give `count` positions (the
            game ends before the plies asked, or at once).
    """
    game = load_game(game_string)
    rng = np.random.default_rng(seed)
    positions: list[Position] = []
    for _ in range(PLAYOUT_TRIES * count):
        if len(positions) == count:
            break
        target = int(rng.integers(plies[0], plies[1] + 1))
        state = game.new_initial_state()
        played = 0
        while not state.is_terminal() and (played < target or state.is_chance_node()):
            if state.is_chance_node():
                outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rng.choice(outcomes, p=probabilities)))
                continue
            state.apply_action(int(rng.choice(state.legal_actions())))
            played += 1
        if not state.is_terminal():
            positions.append(Position(game_string, tuple(state.history())))
    if len(positions) < count:
        raise ValueError(
            f"{game_string}: {PLAYOUT_TRIES * count} random playouts gave {len(positions)} of "
            f"the {count} non-terminal positions asked after {plies[0]} to {plies[1]} plies; "
            "the game ends before that (or at once): ask for fewer plies"
        )
    return positions


# ----------------------------------------------------------------------------- game facts


@dataclass(frozen=True, kw_only=True)
class GameFacts:
    """A game's measured facts.

    Attributes:
        players, chance, min_utility, max_utility, max_game_length: As OpenSpiel declares them.
        playouts: Seeded uniformly random playouts measured.
        cut: Playouts stopped at the ply cap before the end (their plies count as length).
        branching_mean: Mean number of legal actions over the decision nodes visited.
        branching_max: The most legal actions seen.
        length_mean, length_min, length_max: Decision plies per playout.
        terminal_values: Distinct returns of player 0 seen at the end (at most
            `TERMINAL_VALUES_KEPT`, sorted); `terminal_value_count` counts them all.
        child_per_second: `state.child(a)` calls per second over sampled states.
        apply_per_second: `clone()` + `apply_action(a)` per second over the same.
        undo: "exact", "wrong: ..." (the first difference) or "missing: ..." (the error).
    """

    players: int
    chance: bool
    min_utility: float
    max_utility: float
    max_game_length: int
    playouts: int
    cut: int
    branching_mean: float
    branching_max: int
    length_mean: float
    length_min: int
    length_max: int
    terminal_values: tuple[float, ...]
    terminal_value_count: int
    child_per_second: float
    apply_per_second: float
    undo: str


def game_facts(game_string: str, *, playouts: int, max_plies: int, seed: int) -> GameFacts:
    """Measures `GameFacts` from `playouts` seeded random playouts of at most `max_plies`
    decision plies each."""
    game = load_game(game_string)
    rng = np.random.default_rng(seed)
    branching: list[int] = []
    lengths: list[int] = []
    terminal: set[float] = set()
    visited: list[pyspiel.State] = []
    cut = 0
    for _ in range(playouts):
        state = game.new_initial_state()
        plies = 0
        while not state.is_terminal() and plies < max_plies:
            if state.is_chance_node():
                outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rng.choice(outcomes, p=probabilities)))
                continue
            actions = state.legal_actions()
            branching.append(len(actions))
            _reservoir(visited, state, len(branching), rng)
            state.apply_action(int(rng.choice(actions)))
            plies += 1
        lengths.append(plies)
        if state.is_terminal():
            terminal.add(float(state.returns()[0]))
        else:
            cut += 1
    child_rate, apply_rate = _rates(visited)
    info = game_info(game)
    return GameFacts(
        players=game.num_players(),
        chance=info.has_chance,
        min_utility=info.min_utility,
        max_utility=info.max_utility,
        max_game_length=game.max_game_length(),
        playouts=playouts,
        cut=cut,
        branching_mean=statistics.fmean(branching) if branching else 0.0,
        branching_max=max(branching, default=0),
        length_mean=statistics.fmean(lengths),
        length_min=min(lengths),
        length_max=max(lengths),
        terminal_values=tuple(sorted(terminal))[:TERMINAL_VALUES_KEPT],
        terminal_value_count=len(terminal),
        child_per_second=child_rate,
        apply_per_second=apply_rate,
        undo=undo_check(visited, rng),
    )


def _reservoir(
    sample: list[pyspiel.State], state: pyspiel.State, seen: int, rng: np.random.Generator
) -> None:
    """Keeps `sample` a uniform sample of at most `RATE_STATES` of the `seen` states so far."""
    if len(sample) < RATE_STATES:
        sample.append(state.clone())
        return
    slot = int(rng.integers(seen))
    if slot < RATE_STATES:
        sample[slot] = state.clone()


def _rates(states: Sequence[pyspiel.State]) -> tuple[float, float]:
    """Wall-clock calls per second of `child(a)` and of `clone()` + `apply_action(a)` over
    `states`."""
    pairs = [(state, action) for state in states for action in state.legal_actions()[:RATE_ACTIONS]]
    if not pairs:
        return 0.0, 0.0
    started = time.perf_counter()
    for state, action in pairs:
        state.child(action)
    child_seconds = time.perf_counter() - started
    started = time.perf_counter()
    for state, action in pairs:
        copy = state.clone()
        copy.apply_action(action)
    apply_seconds = time.perf_counter() - started
    return len(pairs) / max(child_seconds, 1e-9), len(pairs) / max(apply_seconds, 1e-9)


def undo_check(states: Sequence[pyspiel.State], rng: np.random.Generator) -> str:
    """ "exact" when `apply_action` then `undo_action` restores every sampled state (its string,
    history, player to move and legal actions, and the child reached again)."""
    checked = 0
    for state in states:
        for action in state.legal_actions():
            if checked >= UNDO_CHECKS:
                return "exact"
            if rng.random() > 0.5:
                continue
            checked += 1
            copy = state.clone()
            player = copy.current_player()
            copy.apply_action(action)
            try:
                copy.undo_action(player, action)
            except Exception as error:  # pyspiel raises its own error types
                return f"missing: {_last_line(error)}"
            try:
                difference = _undo_difference(state, copy, action)
            except Exception as error:  # the undone state may be broken
                return f"wrong: the undone state raises ({_last_line(error)})"
            if difference:
                at = len(state.history())
                return f"wrong: the {difference} differs after undo ({at} actions in)"
    return "exact" if checked else "not checked: no state sampled"


def _undo_difference(state: pyspiel.State, undone: pyspiel.State, action: int) -> str:
    """What differs between `state` and its copy after apply + undo ("" when nothing)."""
    for what, before, after in (
        ("string", str(state), str(undone)),
        ("history", state.history(), undone.history()),
        ("player", state.current_player(), undone.current_player()),
        ("legal actions", state.legal_actions(), undone.legal_actions()),
        ("child", str(state.child(action)), str(undone.child(action))),
    ):
        if before != after:
            return what
    return ""


def _last_line(error: Exception) -> str:
    lines = str(error).strip().splitlines()
    return (lines[-1] if lines else type(error).__name__)[:120]


# ---------------------------------------------------------------------------- calibration


@dataclass(frozen=True, kw_only=True)
class Calibration:
    """The depth Q1 searches at.

    Attributes:
        algorithm: The search calibrated.
        depth: The deepest depth whose median epsilon-0 nodes stay within `budget` (at least 1).
        budget: The node budget.
        by_depth: (depth, median nodes) of every depth tried.
        reason: Why the calibration stopped there.
    """

    algorithm: str
    depth: int
    budget: int
    by_depth: tuple[tuple[int, float], ...]
    reason: str


def calibrate_depth(
    positions: Sequence[Position],
    *,
    algorithm: str,
    evaluator: str,
    budget: int,
    max_depth: int,
    rollouts: int = 1,
) -> Calibration:
    """Searches `positions` at epsilon 0 at depths 1, 2, ... and picks the deepest whose median
    node count is within `budget`. Each search is capped at budget + 1 nodes: a capped search is
    over budget, and its count shows as budget + 1 in `by_depth`."""
    by_depth: list[tuple[int, float]] = []
    chosen, reason = 1, f"max_depth {max_depth} reached"
    for depth in range(1, max_depth + 1):
        nodes, solved = [], 0
        for position in positions:
            record = run_task(
                make_task(
                    run="calibrate",
                    algorithm=algorithm,
                    set="calibrate",
                    index=0,
                    position=position,
                    fraction=0.0,
                    params={
                        "depth": depth,
                        "nodes": budget + 1,
                        **leaf_params(evaluator, rollouts),
                    },
                )
            )
            if not record.ok:
                raise RuntimeError(record.error)
            nodes.append(record.nodes if record.proved else budget + 1)
            solved += record.stopped_by == "solved"
        median = statistics.median(nodes)
        by_depth.append((depth, median))
        if median > budget:
            reason = f"depth {depth} needs {median:,.0f} nodes (median), over the budget"
            break
        chosen = depth
        if solved == len(positions):
            reason = f"depth {depth} solves every position"
            break
    return Calibration(
        algorithm=algorithm, depth=chosen, budget=budget, by_depth=tuple(by_depth), reason=reason
    )


# ------------------------------------------------------------------------- against OpenSpiel


@dataclass(frozen=True, kw_only=True)
class OpenSpielComparison:
    """Our epsilon-0 search against OpenSpiel's at the same depth and evaluator.

    Attributes:
        theirs: "alpha_beta_search" or "expectiminimax".
        depth: The deepest depth compared (the last OpenSpiel finished within its budget).
        ours_nodes, ours_seconds: Our search at `depth`.
        theirs_nodes, theirs_seconds: OpenSpiel's at `depth` (nodes: calls of its recursion,
            counted in one run; seconds from a second, uncounted one).
        ours_value, theirs_value: The root value for the player to move at `depth`.
        depths: Depths compared (1 .. depth).
        mismatches: Depths at which our bounds are not both within `VALUE_TOLERANCE` of
            OpenSpiel's value.
    """

    theirs: str
    depth: int
    ours_nodes: int
    ours_seconds: float
    theirs_nodes: int
    theirs_seconds: float
    ours_value: float
    theirs_value: float
    depths: int
    mismatches: int


def versus_openspiel(
    position: Position,
    *,
    algorithm: str,
    evaluator: str,
    seconds: float,
    max_depth: int,
    rollouts: int = 1,
) -> OpenSpielComparison:
    """Compares `algorithm` (bounded_ab or bounded_star2, epsilon 0, the bot's defaults) with
    OpenSpiel's search at depths 1, 2, ... until OpenSpiel needs more than `seconds` at a depth
    (that depth is still compared) or `max_depth`.

    At each depth OpenSpiel's search runs twice: first counting its nodes, given up (and the
    comparison ended at the depth before) when it runs over `ABANDON` x `seconds`, so that one
    more ply of a wide game cannot take hours; then timed, uncounted."""
    state = position.state()
    game = state.get_game()
    player = state.current_player()
    leaf = make_evaluator(evaluator, game, rollouts=rollouts)

    def value_function(leaf_state: pyspiel.State) -> float:
        return float(leaf.evaluate(leaf_state)[player])

    chance = game_info(game).has_chance

    def theirs(depth: int) -> float:
        if chance:
            value, _ = minimax.expectiminimax(state, depth, value_function, player)
        else:
            value, _ = minimax.alpha_beta_search(
                game,
                state,
                value_function=value_function,
                maximum_depth=depth,
                maximizing_player_id=player,
            )
        return float(value)

    mismatches = 0
    last: dict[str, Any] = {}
    for depth in range(1, max_depth + 1):
        try:
            with _counting(chance, deadline=time.process_time() + ABANDON * seconds) as counter:
                theirs(depth)
        except _Abandoned:
            break
        started = time.process_time()
        their_value = theirs(depth)
        their_seconds = time.process_time() - started
        record = run_task(
            make_task(
                run="openspiel",
                algorithm=algorithm,
                set="openspiel",
                index=0,
                position=position,
                fraction=0.0,
                params={"depth": depth, **leaf_params(evaluator, rollouts)},
            )
        )
        if not record.ok:
            raise RuntimeError(record.error)
        # Ours is an interval at most epsilon = 0 wide up to rounding (a chance node's weighted
        # bounds can differ in the last bit); it must hold theirs.
        mismatches += (
            abs(record.lower - their_value) > VALUE_TOLERANCE
            or abs(record.upper - their_value) > VALUE_TOLERANCE
        )
        last = {
            "depth": depth,
            "ours_nodes": record.nodes,
            "ours_seconds": record.seconds,
            "theirs_nodes": counter[0],
            "theirs_seconds": their_seconds,
            "ours_value": record.lower,
            "theirs_value": their_value,
        }
        if their_seconds > seconds or record.stopped_by == "solved":
            break
    if not last:
        raise RuntimeError(
            f"OpenSpiel's search ran over {ABANDON * seconds:g} s at depth 1; nothing compared"
        )
    return OpenSpielComparison(
        theirs="expectiminimax" if chance else "alpha_beta_search",
        depths=last["depth"],
        mismatches=mismatches,
        **last,
    )


_PATCHING: Final = threading.Lock()


class _Abandoned(Exception):
    """OpenSpiel's search ran past its deadline."""


@contextmanager
def _counting(chance: bool, *, deadline: float) -> Iterator[list[int]]:
    """Counts the calls of OpenSpiel's recursive search function while inside, and stops the
    search (`_Abandoned`) once the process time passes `deadline`.

    The count replaces the function in OpenSpiel's module, for the whole process: `_PATCHING`
    keeps a second thread (a Dask worker with several threads) from counting at the same time.
    """
    name = "expectiminimax" if chance else "_alpha_beta"
    with _PATCHING:
        original = getattr(minimax, name)
        count = [0]

        def counted(*args: Any, **kwargs: Any) -> Any:
            count[0] += 1
            if not count[0] & 1023 and time.process_time() > deadline:
                raise _Abandoned
            return original(*args, **kwargs)

        setattr(minimax, name, counted)
        try:
            yield count
        finally:
            setattr(minimax, name, original)


# -------------------------------------------------------------------------------- solving


@dataclass(frozen=True, kw_only=True)
class SolveOutcome:
    """One search run to prove a position.

    Attributes:
        algorithm: One of `SOLVERS`.
        solved: It answered within the cap (pns: its question, win or not; the others: the
            exact value).
        nodes, seconds: What it used.
        lower, upper: Its proven root interval for the player to move (game value).
        stopped_by: `SearchStats.stopped_by`.
    """

    algorithm: str
    solved: bool
    nodes: int
    seconds: float
    lower: float
    upper: float
    stopped_by: str


def solve_position(position: Position, *, algorithm: str, nodes: int) -> SolveOutcome:
    """Runs `algorithm` (one of `SOLVERS`) on `position` to the end, within `nodes` nodes:
    `pns` proving a win, `bounded_pns` at epsilon 0, `bounded_ab` without depth limit or
    iterative deepening (its transposition table and move ordering on)."""
    state = position.state()
    started = time.process_time()
    result = _prove(state, algorithm, nodes)
    return SolveOutcome(
        algorithm=algorithm,
        solved=result.stats.stopped_by == "solved",
        nodes=int(result.stats.nodes or 0),
        seconds=time.process_time() - started,
        lower=result.lower,
        upper=result.upper,
        stopped_by=result.stats.stopped_by,
    )


def _prove(state: pyspiel.State, algorithm: str, nodes: int) -> SearchResult:
    limits = Limits(nodes=nodes)
    if algorithm == "pns":
        return pns(state, limits=limits)
    if algorithm == "bounded_pns":
        return bounded_pns(state, limits=limits, settings=BoundedPNSSettings())
    if algorithm == "bounded_ab":
        return bounded_ab(
            state,
            evaluator=make_evaluator("zero", state.get_game()),
            limits=limits,
            settings=AlphaBetaSettings(iterative_deepening=False),
        )
    raise ValueError(f"unknown solver {algorithm!r}; accepted: {', '.join(SOLVERS)}")


# ------------------------------------------------------------------------------- tracing


@dataclass(frozen=True, kw_only=True)
class IntervalTrace:
    """The proven root interval (game value, player to move) against the node budget.

    Attributes:
        algorithm: One of `TRACERS`.
        budgets: The node budgets, one fresh search each.
        nodes: Nodes each search used.
        lower, upper: Its interval on the game value: the whole range where the search's bounds
            are not about the game value (a depth-limited `bounded_ab` iteration).
    """

    algorithm: str
    budgets: tuple[int, ...]
    nodes: tuple[int, ...]
    lower: tuple[float, ...]
    upper: tuple[float, ...]


def trace_interval(
    position: Position, *, algorithm: str, budgets: Sequence[int], seed: int
) -> IntervalTrace:
    """Searches `position` afresh at each budget and keeps the proven interval: `bounded_ab`
    with iterative deepening (interval proven only once solved), `babmcts` with random
    playouts, `bounded_pns` at epsilon 0. Stops early once a search solves the root."""
    state = position.state()
    game = state.get_game()
    info = game_info(game)
    search = _tracer(algorithm, game, seed)
    used, lower, upper, done = [], [], [], []
    for budget in budgets:
        result = search(state, Limits(nodes=budget))
        about_game = result.bounds_on.kind == "game"
        done.append(budget)
        used.append(int(result.stats.nodes or 0))
        lower.append(result.lower if about_game else info.min_utility)
        upper.append(result.upper if about_game else info.max_utility)
        if result.stats.stopped_by == "solved" and about_game:
            break
    return IntervalTrace(
        algorithm=algorithm,
        budgets=tuple(done),
        nodes=tuple(used),
        lower=tuple(lower),
        upper=tuple(upper),
    )


def _tracer(
    algorithm: str, game: pyspiel.Game, seed: int
) -> Callable[[pyspiel.State, Limits], SearchResult]:
    if algorithm == "bounded_ab":
        zero = make_evaluator("zero", game)
        return lambda state, limits: bounded_ab(state, evaluator=zero, limits=limits)
    if algorithm == "babmcts":
        rollout = make_evaluator("rollout", game, seed=seed)
        settings = BABMCTSSettings(simulations=10**9)
        return lambda state, limits: babmcts(
            state, evaluator=rollout, limits=limits, settings=settings, rng=seed
        )
    if algorithm == "bounded_pns":
        return lambda state, limits: bounded_pns(state, limits=limits)
    raise ValueError(f"unknown algorithm {algorithm!r}; accepted: {', '.join(TRACERS)}")


# ----------------------------------------------------------------------------- max^n pruning


@dataclass(frozen=True, kw_only=True)
class PruningPoint:
    """Max^n at a fixed depth with one pruning mode.

    Attributes:
        pruning: none, shallow, last_branch or speculative.
        depth: The depth searched.
        completed: The depth was completed within the node cap.
        nodes, seconds: What it used.
        values: The root's max^n value vector.
        action: The move chosen.
    """

    pruning: str
    depth: int
    completed: bool
    nodes: int
    seconds: float
    values: tuple[float, ...]
    action: int


def pruning_nodes(
    position: Position,
    *,
    pruning: str,
    depth: int,
    evaluator: str,
    nodes: int,
    rollouts: int = 1,
) -> PruningPoint:
    """Max^n from `position` to `depth` with `pruning` (move ordering by the evaluator)."""
    state = position.state()
    leaf = make_evaluator(evaluator, state.get_game(), rollouts=rollouts)
    started = time.process_time()
    result = maxn(
        state,
        evaluator=leaf,
        limits=Limits(depth=depth, nodes=nodes),
        settings=MaxnSettings(pruning=pruning),
    )
    return PruningPoint(
        pruning=pruning,
        depth=depth,
        completed=result.stats.depth >= depth or result.stats.stopped_by == "solved",
        nodes=int(result.stats.nodes or 0),
        seconds=time.process_time() - started,
        values=tuple(float(v) for v in (result.values or ())),
        action=result.action,
    )
