"""The native n-player engines against the Python ones: same nodes, values, moves and children.

At a fixed depth, `engine="native"` must visit the same number of nodes and return the same
move, root vector (or value), root children and counts as `engine="python"` (issue 38): max^n
in every pruning mode and move ordering, directed offensive, BRS+ and MP-Mix, on every n-player
game of the atlas (with arbitrary hashed leaf vectors called back from C++, and with the
package's heuristics) and on the synthetic trees (a game implemented in Python, called back).
Also: node limits, an injected clock, Ctrl-C, a bad evaluator value, and the bots.
"""

from __future__ import annotations

import signal
import zlib
from collections.abc import Callable
from typing import Any

import numpy as np
import pyspiel
import pytest

from spiel_bounded import load_bot
from spiel_bounded.evaluators import make_evaluator
from spiel_bounded.limits import Limits
from spiel_bounded.native import available
from spiel_bounded.result import SearchResult
from spiel_bounded.search.brs import BRSSettings, brs_plus
from spiel_bounded.search.maxn import (
    PRUNINGS,
    TRUE_MINIMUM,
    MaxnSettings,
    directed_offensive,
    maxn,
)
from spiel_bounded.search.mpmix import MPMixSettings, mp_mix
from spiel_bounded.testing import search_fingerprint
from tests.helpers import FakeClock

pytestmark = pytest.mark.skipif(not available(), reason="the native engine is not built")

ENGINES = ("python", "native")
GAMES = [
    ("chinese_checkers(players=3)", 3),
    ("chinese_checkers(players=4)", 2),
    ("chinese_checkers(players=6)", 2),
    ("maedn(players=3)", 3),
    ("maedn(players=4)", 3),
    ("pig(players=3,winscore=20)", 3),
    ("yacht(players=3)", 1),
]
IDS = [name for name, _ in GAMES]
POSITIONS = ((0, 1), (1, 9), (2, 30))  # (seed, plies)
ORDERINGS = ("none", "evaluator")
TREES = [
    "players=3,depth=6,branching=3",
    "players=3,depth=5,branching=3,chance=0.3,chance_outcomes=2",
    "players=4,depth=5,branching=3",
]


class VectorHashEvaluator:
    """Arbitrary but deterministic leaf vectors that keep max^n's pruning bounds: a hashed
    point of the simplex (coarse, so ties occur) spread between every player's lower bound and
    the constant sum, shrunk toward the even split where a value would pass the maximum."""

    name = "vector hash"

    def __init__(self, game: pyspiel.Game, salt: int = 0) -> None:
        self._players = game.num_players()
        self._low = TRUE_MINIMUM.get(game.get_type().short_name, game.min_utility())
        self._high = game.max_utility()
        self._sum = game.utility_sum()
        self._salt = salt

    def evaluate(self, state: pyspiel.State) -> list[float]:
        text = f"{self._salt}|{state.current_player()}|{state}".encode()
        digest = zlib.crc32(text)
        weights = [(digest >> (3 * player)) % 4 for player in range(self._players)]
        even = self._sum / self._players
        if sum(weights) == 0:
            return [even] * self._players
        span = self._sum - self._players * self._low
        values = [self._low + span * weight / sum(weights) for weight in weights]
        top = max(values)
        if top > self._high:
            shrink = (self._high - even) / (top - even)
            values = [even + (value - even) * shrink for value in values]
        return values


def _position(game: pyspiel.Game, seed: int, plies: int) -> pyspiel.State | None:
    """A decision state after `plies` random actions, or None when the game ended first."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    while len(state.history()) < plies or state.is_chance_node():
        if state.is_terminal():
            return None
        if state.is_chance_node():
            actions, probabilities = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(actions, p=np.asarray(probabilities))))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    return None if state.is_terminal() else state


def _positions(game: pyspiel.Game) -> list[pyspiel.State]:
    found = [_position(game, seed, plies) for seed, plies in POSITIONS]
    return [state for state in found if state is not None]


def _fingerprint(result: SearchResult) -> dict[str, Any]:
    stats = result.stats
    return {
        **search_fingerprint(result),
        "values": result.values,
        "researches": stats.researches,
        "research_nodes": stats.research_nodes,
        "bounds_on": result.bounds_on,
    }


def _both(run: Callable[[str], SearchResult]) -> list[dict[str, Any]]:
    """The fingerprints of `run(engine)` on the Python and the native engine."""
    found = []
    for engine in ENGINES:
        result = run(engine)
        assert result.stats.engine == engine
        found.append(_fingerprint(result))
    return found


def _maxn(
    state: pyspiel.State, evaluator: Any, depth: int, pruning: str, ordering: str
) -> Callable[[str], SearchResult]:
    return lambda engine: maxn(
        state,
        evaluator=evaluator,
        limits=Limits(depth=depth),
        settings=MaxnSettings(pruning=pruning, ordering=ordering, engine=engine),
    )


@pytest.mark.parametrize(("name", "depth"), GAMES, ids=IDS)
@pytest.mark.parametrize("pruning", PRUNINGS)
def test_maxn_every_pruning_and_ordering(pruning: str, name: str, depth: int) -> None:
    game = pyspiel.load_game(name)
    for index, state in enumerate(_positions(game)):
        evaluator = VectorHashEvaluator(game, index)
        for ordering in ORDERINGS:
            python, native = _both(_maxn(state, evaluator, depth, pruning, ordering))
            assert python == native, (index, ordering)


@pytest.mark.parametrize(("name", "depth"), GAMES, ids=IDS)
def test_maxn_with_the_heuristic_called_back(name: str, depth: int) -> None:
    game = pyspiel.load_game(name)
    evaluator = make_evaluator("heuristic", game)
    for state in _positions(game)[:2]:
        for pruning in ("none", "speculative"):
            python, native = _both(_maxn(state, evaluator, depth, pruning, "evaluator"))
            assert python == native, pruning


@pytest.mark.parametrize(("name", "depth"), GAMES, ids=IDS)
def test_directed_offensive(name: str, depth: int) -> None:
    game = pyspiel.load_game(name)
    for index, state in enumerate(_positions(game)):
        evaluator = VectorHashEvaluator(game, index)
        for target in (None, (state.current_player() + 1) % game.num_players()):
            python, native = _both(
                lambda engine, state=state, evaluator=evaluator, target=target: directed_offensive(
                    state,
                    evaluator=evaluator,
                    limits=Limits(depth=depth),
                    target=target,
                    engine=engine,
                )
            )
            assert python == native, (index, target)


@pytest.mark.parametrize(("name", "depth"), GAMES, ids=IDS)
def test_brs_plus(name: str, depth: int) -> None:
    game = pyspiel.load_game(name)
    for index, state in enumerate(_positions(game)):
        evaluator = VectorHashEvaluator(game, index)
        python, native = _both(
            lambda engine, state=state, evaluator=evaluator: brs_plus(
                state,
                evaluator=evaluator,
                limits=Limits(depth=depth + ("yacht" not in name)),
                settings=BRSSettings(engine=engine),
            )
        )
        assert python == native, index


@pytest.mark.parametrize(("name", "depth"), GAMES[:5], ids=IDS[:5])
def test_mp_mix_runs_its_choice_on_the_named_engine(name: str, depth: int) -> None:
    game = pyspiel.load_game(name)
    evaluator = make_evaluator("heuristic", game)
    for state in _positions(game):
        results = [
            mp_mix(
                state,
                evaluator=evaluator,
                limits=Limits(depth=min(depth, 2)),
                settings=MPMixSettings(
                    defensive_threshold=0.02, offensive_threshold=0.02, engine=engine
                ),
            )
            for engine in ENGINES
        ]
        assert results[0].choice == results[1].choice
        assert [result.stats.engine for result in results] == list(ENGINES)
        assert _fingerprint(results[0]) == _fingerprint(results[1])


@pytest.mark.parametrize("params", TREES)
def test_synthetic_trees_a_python_game_called_back(params: str) -> None:
    game = pyspiel.load_game(f"bounded_random_tree({params})")
    state = _position(game, 0, 0)
    assert state is not None
    for evaluator in (make_evaluator("zero", game), VectorHashEvaluator(game)):
        for depth in (3, 6):
            for pruning in PRUNINGS:
                python, native = _both(_maxn(state, evaluator, depth, pruning, "evaluator"))
                assert python == native, (depth, pruning)
            python, native = _both(
                lambda engine, evaluator=evaluator, depth=depth: brs_plus(
                    state,
                    evaluator=evaluator,
                    limits=Limits(depth=depth),
                    settings=BRSSettings(engine=engine),
                )
            )
            assert python == native, depth


def test_the_zero_evaluator_has_a_cpp_twin_and_auto_runs_it() -> None:
    game = pyspiel.load_game("chinese_checkers(players=3)")
    state = _position(game, 5, 12)
    assert state is not None
    result = maxn(state, evaluator=make_evaluator("zero", game), limits=Limits(depth=3))
    assert result.stats.engine == "native"
    python, native = _both(_maxn(state, make_evaluator("zero", game), 3, "speculative", "none"))
    assert python == native
    # A Python evaluator without a C++ twin runs the Python engine on "auto".
    result = maxn(state, evaluator=VectorHashEvaluator(game), limits=Limits(depth=2))
    assert result.stats.engine == "python"


@pytest.mark.parametrize("nodes", [1, 50, 3_000])
def test_a_node_limit_stops_both_engines_at_the_same_node(nodes: int) -> None:
    game = pyspiel.load_game("chinese_checkers(players=3)")
    state = _position(game, 4, 20)
    assert state is not None
    evaluator = VectorHashEvaluator(game)
    for run in (
        lambda engine: maxn(
            state,
            evaluator=evaluator,
            limits=Limits(nodes=nodes),
            settings=MaxnSettings(engine=engine),
        ),
        lambda engine: brs_plus(
            state,
            evaluator=evaluator,
            limits=Limits(nodes=nodes),
            settings=BRSSettings(engine=engine),
        ),
    ):
        python, native = _both(run)
        assert python == native
        assert native["stopped_by"] == "nodes" and native["nodes"] == nodes


def test_a_bad_value_from_a_called_back_evaluator_is_the_python_error() -> None:
    class Unbounded:
        name = "broken"

        def evaluate(self, state: pyspiel.State) -> list[float]:
            return [1.0, 1.0, 0.5]  # in range, but the sum passes the constant sum 0

    state = pyspiel.load_game("chinese_checkers(players=3)").new_initial_state()
    with pytest.raises(ValueError, match=r"evaluator 'broken' returned .* constant sum"):
        maxn(
            state,
            evaluator=Unbounded(),
            limits=Limits(depth=2),
            settings=MaxnSettings(engine="native"),
        )


@pytest.mark.parametrize("search", ["maxn", "brs_plus"])
def test_an_injected_clock_stops_a_native_search(search: str) -> None:
    clock = FakeClock()
    game = pyspiel.load_game("chinese_checkers(players=3)")

    class Slow:
        name = "slow"

        def evaluate(self, state: pyspiel.State) -> tuple[float, float, float]:
            clock.now += 0.001
            return (0.0, 0.0, 0.0)

    state = game.new_initial_state()
    limits = Limits(seconds=0.5)
    if search == "maxn":
        result = maxn(
            state,
            evaluator=Slow(),
            limits=limits,
            settings=MaxnSettings(engine="native"),
            clock=clock,
        )
    else:
        result = brs_plus(
            state,
            evaluator=Slow(),
            limits=limits,
            settings=BRSSettings(engine="native"),
            clock=clock,
        )
    assert result.stats.stopped_by == "seconds" and result.stats.engine == "native"
    assert 0.5 <= clock.now <= 0.51  # it stops within one evaluation of the limit
    assert result.action in state.legal_actions()


@pytest.mark.parametrize("search", ["maxn", "brs_plus"])
def test_a_signal_stops_a_native_search(search: str) -> None:
    class Interrupted(Exception):
        pass

    def interrupt(signum: int, frame: object) -> None:
        raise Interrupted

    game = pyspiel.load_game("chinese_checkers(players=3)")
    state = game.new_initial_state()
    evaluator = make_evaluator("zero", game)
    previous = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, 0.2)
    try:
        with pytest.raises(Interrupted):  # unlimited: only the signal can end it
            if search == "maxn":
                maxn(state, evaluator=evaluator, settings=MaxnSettings(engine="native"))
            else:
                brs_plus(state, evaluator=evaluator, settings=BRSSettings(engine="native"))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize("name", ["maxn", "brs_plus", "offensive", "mp_mix"])
def test_bots_say_which_engine_ran(name: str) -> None:
    game = pyspiel.load_game("chinese_checkers(players=3)")
    state = game.new_initial_state()
    for engine, expected in (("native", "native"), ("python", "python")):
        bot = load_bot(name, game, 0, depth=2, engine=engine)
        assert bot.step(state) in state.legal_actions()
        assert bot.last_result.stats.engine == expected
    bot = load_bot(name, game, 0, depth=2, evaluator="zero")
    bot.step(state)
    assert bot.last_result.stats.engine == "native"
