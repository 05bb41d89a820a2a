"""The native proof-number and min/max approximation engines against the Python ones.

At a node limit (or with none, to the proof), `engine="native"` must visit the same number of
nodes and return the same move, bounds, root children and counts as `engine="python"` (issue
38): `pns` (both goals) and `bounded_pns` (exact and epsilon-wide), with a table that does not
fill and with a small one that fills (its collection rule is deterministic), on the two-player
games of the atlas, and on the synthetic trees (a game implemented in Python, called back).
Also: node limits, an injected clock, Ctrl-C, bad input, and the bots.
"""

from __future__ import annotations

import signal
from typing import Any

import numpy as np
import pyspiel
import pytest

import spiel_bounded  # noqa: F401  (registers bounded_random_tree)
from spiel_bounded import load_bot
from spiel_bounded.evaluators import make_evaluator
from spiel_bounded.limits import Limits
from spiel_bounded.native import available
from spiel_bounded.search import pns as pns_module
from spiel_bounded.search.pns import BoundedPNSSettings, PNSSettings, bounded_pns, pns
from spiel_bounded.search.rivest import NATIVE_FREE_SECONDS_PER_NODE, RivestSettings, rivest
from spiel_bounded.testing import search_fingerprint
from tests.helpers import FakeClock, HashEvaluator

pytestmark = pytest.mark.skipif(not available(), reason="the native engine is not built")

ENGINES = ("python", "native")
# (game, plies from the start of the positions, node limit)
PNS_GAMES = [
    ("tic_tac_toe", (0, 3), None),
    ("connect_four", (10, 12), 10_000),
    ("nim", (0, 2), 20_000),
    ("breakthrough(rows=5,columns=5)", (6, 10), 6_000),
    ("clobber(rows=4,columns=4)", (2, 5), 6_000),
    ("hex(board_size=3)", (0, 1), None),
    ("hex(board_size=4)", (2, 4), 6_000),
    ("dots_and_boxes", (2, 4), 6_000),
    ("mnk(m=4,n=4,k=3)", (2, 4), 6_000),
    ("oware(num_houses_per_player=3,num_seeds_per_house=2)", (0, 4), 6_000),
    ("quoridor(board_size=5,wall_count=1)", (4, 8), 6_000),
]
TREES = [
    "depth=8,branching=3,integer_values=1,min_value=-3.0,max_value=3.0",
    "depth=7,branching=3,transpositions=1,integer_values=1,min_value=-2.0,max_value=2.0",
]


def _position(game: pyspiel.Game, seed: int, plies: int) -> pyspiel.State | None:
    """A decision state after `plies` random actions, or None when the game ended first."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    while len(state.history()) < plies:
        if state.is_terminal():
            return None
        state.apply_action(int(rng.choice(state.legal_actions())))
    return None if state.is_terminal() else state


def _pns_both(
    state: pyspiel.State, nodes: int | None, bounded: bool, **settings: Any
) -> list[dict[str, Any]]:
    """The fingerprints of pns or bounded_pns on the Python and the native engine."""
    found = []
    for engine in ENGINES:
        if bounded:
            result = bounded_pns(
                state,
                limits=Limits(nodes=nodes),
                settings=BoundedPNSSettings(engine=engine, **settings),
            )
        else:
            result = pns(
                state, limits=Limits(nodes=nodes), settings=PNSSettings(engine=engine, **settings)
            )
        assert result.stats.engine == engine
        found.append(search_fingerprint(result))
    return found


PNS_CONFIGS = [
    (False, {"goal": "win"}),
    (False, {"goal": "draw"}),
    (False, {"goal": "win", "tt_capacity": 40}),
    (False, {"goal": "win", "transpositions": False}),
    (True, {}),
    (True, {"epsilon": 1.0}),
    (True, {"tt_capacity": 40}),
]
CONFIG_IDS = ["win", "draw", "win-small-table", "win-history", "bounded", "bounded-eps1", "bsmall"]


@pytest.mark.parametrize(("bounded", "settings"), PNS_CONFIGS, ids=CONFIG_IDS)
@pytest.mark.parametrize(("name", "plies", "nodes"), PNS_GAMES, ids=[g for g, _, _ in PNS_GAMES])
def test_pns_games(
    name: str, plies: tuple[int, int], nodes: int | None, bounded: bool, settings: dict
) -> None:
    game = pyspiel.load_game(name)
    for seed, ply in enumerate(plies):
        state = _position(game, seed, ply)
        if state is None:
            continue
        python, native = _pns_both(state, nodes, bounded, **settings)
        assert python == native, (name, seed)


@pytest.mark.parametrize("params", TREES)
@pytest.mark.parametrize(("bounded", "settings"), PNS_CONFIGS, ids=CONFIG_IDS)
def test_pns_synthetic_trees_a_python_game_called_back(
    params: str, bounded: bool, settings: dict
) -> None:
    game = pyspiel.load_game(f"bounded_random_tree({params})")
    for seed in range(2):
        state = _position(game, seed, seed)
        assert state is not None
        python, native = _pns_both(state, 3_000, bounded, **settings)
        assert python == native, seed


@pytest.mark.parametrize("nodes", [1, 2, 9, 10, 11, 500])
def test_pns_a_node_limit_stops_both_engines_at_the_same_node(nodes: int) -> None:
    state = _position(pyspiel.load_game("connect_four"), 4, 6)
    assert state is not None
    for bounded in (False, True):
        python, native = _pns_both(state, nodes, bounded)
        assert python == native
        assert native["stopped_by"] == "nodes" and native["nodes"] == nodes


def test_pns_proves_what_python_proves() -> None:
    state = pyspiel.load_game("tic_tac_toe").new_initial_state()
    python, native = _pns_both(state, None, True)
    assert python == native
    assert (native["lower"], native["upper"], native["stopped_by"]) == (0.0, 0.0, "solved")


def test_pns_a_terminal_value_outside_the_set_is_the_python_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Declared integers -1..1 but a tree whose leaves reach -2 and 2: a game lying about its
    # terminal values must fail on both engines with the same message.
    game = pyspiel.load_game(
        "bounded_random_tree(depth=3,branching=2,integer_values=1,min_value=-2.0,max_value=2.0)"
    )
    monkeypatch.setattr(pns_module, "terminal_values", lambda _game: (-1.0, 0.0, 1.0))
    messages = []
    for engine in ENGINES:
        with pytest.raises(ValueError, match="is not in its declared set") as caught:
            bounded_pns(game.new_initial_state(), settings=BoundedPNSSettings(engine=engine))
        messages.append(str(caught.value))
    assert messages[0] == messages[1]


def test_pns_an_injected_clock_stops_a_native_search() -> None:
    clock = FakeClock()
    ticks = 0

    def advancing() -> float:
        nonlocal ticks
        ticks += 1
        clock.now += 0.001
        return clock()

    state = pyspiel.load_game("connect_four").new_initial_state()
    result = pns(
        state, limits=Limits(seconds=0.5), settings=PNSSettings(engine="native"), clock=advancing
    )
    assert result.stats.stopped_by == "seconds" and result.stats.engine == "native"
    assert 0.5 <= clock.now <= 0.52
    assert result.action in state.legal_actions()


def test_pns_a_signal_stops_a_native_search() -> None:
    class Interrupted(Exception):
        pass

    def interrupt(signum: int, frame: object) -> None:
        raise Interrupted

    state = pyspiel.load_game("connect_four").new_initial_state()
    previous = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, 0.2)
    try:
        with pytest.raises(Interrupted):  # unlimited: only the signal can end it
            bounded_pns(state, settings=BoundedPNSSettings(engine="native"))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_pns_bad_input_is_a_clear_error() -> None:
    state = pyspiel.load_game("tic_tac_toe").new_initial_state()
    with pytest.raises(ValueError, match="engine must be one of"):
        pns(state, settings=PNSSettings(engine="fast"))
    with pytest.raises(ValueError, match="depth"):
        pns(state, limits=Limits(depth=3), settings=PNSSettings(engine="native"))
    terminal = state.clone()
    for action in (0, 3, 1, 4, 2):
        terminal.apply_action(action)
    with pytest.raises(ValueError, match="decision state"):
        pns(terminal, settings=PNSSettings(engine="native"))
    with pytest.raises(ValueError):
        bounded_pns(
            pyspiel.load_game("bounded_random_tree(depth=3,branching=2)").new_initial_state(),
            settings=BoundedPNSSettings(engine="native"),
        )
    from spiel_bounded.native import engine_module

    module = engine_module("test")
    with pytest.raises(ValueError, match="tt_capacity"):
        module.pns(
            state,
            floor=-1.0,
            ceiling=1.0,
            goal=0.0,
            epsilon=0.0,
            outcomes=[],
            bad_terminal=None,
            transpositions=True,
            key_kind="string",
            tt_capacity=0,
        )
    with pytest.raises(ValueError, match="unknown key kind"):
        module.pns(
            state,
            floor=-1.0,
            ceiling=1.0,
            goal=0.0,
            epsilon=0.0,
            outcomes=[],
            bad_terminal=None,
            transpositions=True,
            key_kind="nope",
            tt_capacity=10,
        )


@pytest.mark.parametrize("name", ["pns", "bounded_pns"])
def test_pns_bots_say_which_engine_ran(name: str) -> None:
    game = pyspiel.load_game("tic_tac_toe")
    state = game.new_initial_state()
    for engine, expected in (("auto", "native"), ("native", "native"), ("python", "python")):
        bot = load_bot(name, game, 0, nodes=2_000, engine=engine)
        assert bot.step(state) in state.legal_actions()
        assert bot.last_result.stats.engine == expected


# -- rivest ------------------------------------------------------------------------------------

RIVEST_GAMES = [name for name, _, _ in PNS_GAMES]
RIVEST_CONFIGS = [
    ({}, None),
    ({"mode": "generalized"}, None),
    ({"mode": "generalized", "p": 2.5}, 4),
    ({}, 3),
    ({"max_nodes": 300}, None),
]
RIVEST_IDS = ["reverse", "generalized", "generalized-p2.5-depth4", "reverse-depth3", "full-tree"]


def _rivest_both(
    state: pyspiel.State, evaluator: Any, nodes: int | None, depth: int | None, **settings: Any
) -> list[dict[str, Any]]:
    """The fingerprints of rivest on the Python and the native engine (fresh evaluators)."""
    found = []
    for engine in ENGINES:
        result = rivest(
            state,
            evaluator=evaluator(),
            limits=Limits(nodes=nodes, depth=depth),
            settings=RivestSettings(engine=engine, **settings),
        )
        assert result.stats.engine == engine
        found.append(search_fingerprint(result) | {"bounds_on": result.bounds_on})
    return found


@pytest.mark.parametrize(("settings", "depth"), RIVEST_CONFIGS, ids=RIVEST_IDS)
@pytest.mark.parametrize("name", RIVEST_GAMES)
def test_rivest_games_with_a_python_evaluator_called_back(
    name: str, settings: dict, depth: int | None
) -> None:
    game = pyspiel.load_game(name)
    for seed, plies in enumerate((0, 3)):
        state = _position(game, seed, plies)
        if state is None:
            continue
        python, native = _rivest_both(
            state, lambda seed=seed: HashEvaluator(game, seed), 2_000, depth, **settings
        )
        assert python == native, (name, seed)


@pytest.mark.parametrize("evaluator", ["zero", "heuristic"], ids=lambda name: f"{name} twin")
@pytest.mark.parametrize("name", ["tic_tac_toe", "connect_four", "breakthrough"])
def test_rivest_evaluators_with_a_cpp_twin(name: str, evaluator: str) -> None:
    game = pyspiel.load_game(name)
    state = _position(game, 3, 4)
    assert state is not None
    for settings in ({}, {"mode": "generalized"}):
        python, native = _rivest_both(
            state, lambda: make_evaluator(evaluator, game), 3_000, None, **settings
        )
        assert python == native, settings
    result = rivest(state, evaluator=make_evaluator(evaluator, game), limits=Limits(nodes=100))
    assert result.stats.engine == "native"  # "auto": the twin runs natively


def test_rivest_solves_what_python_solves() -> None:
    state = pyspiel.load_game("tic_tac_toe").new_initial_state()
    state.apply_action(4)
    python, native = _rivest_both(state, lambda: HashEvaluator(state.get_game()), None, None)
    assert python == native
    assert native["stopped_by"] == "solved" and native["lower"] == 0.0


@pytest.mark.parametrize(
    "params", [*TREES, "depth=6,branching=4", "depth=7,branching=3,transpositions=1"]
)
@pytest.mark.parametrize(("settings", "depth"), RIVEST_CONFIGS, ids=RIVEST_IDS)
def test_rivest_synthetic_trees_a_python_game_called_back(
    params: str, settings: dict, depth: int | None
) -> None:
    game = pyspiel.load_game(f"bounded_random_tree({params})")
    state = game.new_initial_state()
    python, native = _rivest_both(
        state, lambda: make_evaluator("heuristic", game), 1_500, depth, **settings
    )
    assert python == native


@pytest.mark.parametrize("nodes", [1, 6, 7, 8, 300])
def test_rivest_a_node_limit_stops_both_engines_at_the_same_node(nodes: int) -> None:
    state = _position(pyspiel.load_game("connect_four"), 4, 6)
    assert state is not None
    python, native = _rivest_both(state, lambda: HashEvaluator(state.get_game()), nodes, None)
    assert python == native
    assert native["stopped_by"] == "nodes" and native["nodes"] == nodes


def test_rivest_a_bad_value_from_a_called_back_evaluator_is_the_python_error() -> None:
    class OutOfRange:
        name = "broken"

        def evaluate(self, state: pyspiel.State) -> list[float]:
            return [3.0, -3.0]

    state = pyspiel.load_game("tic_tac_toe").new_initial_state()
    with pytest.raises(ValueError, match=r"evaluator 'broken' returned 3\.0 on tic_tac_toe"):
        rivest(state, evaluator=OutOfRange(), settings=RivestSettings(engine="native"))


def test_rivest_an_injected_clock_stops_a_native_search() -> None:
    clock = FakeClock()

    class Slow:
        name = "slow"

        def evaluate(self, state: pyspiel.State) -> tuple[float, float]:
            clock.now += 0.001
            return (0.0, 0.0)

    state = pyspiel.load_game("connect_four").new_initial_state()
    result = rivest(
        state,
        evaluator=Slow(),
        limits=Limits(seconds=0.5),
        settings=RivestSettings(engine="native"),
        clock=clock,
    )
    assert result.stats.stopped_by == "seconds" and result.stats.engine == "native"
    assert 0.45 <= clock.now <= 0.51
    assert result.action in state.legal_actions()


def test_rivest_a_timed_native_search_stops_in_time_to_free_its_tree() -> None:
    # A frozen clock never reaches the limit: only the time freeing the tree would take stops
    # the search, at 1,000 nodes at the native engine's cost per node.
    game = pyspiel.load_game("connect_four")
    result = rivest(
        game.new_initial_state(),
        evaluator=make_evaluator("heuristic", game),
        limits=Limits(seconds=1_000 * NATIVE_FREE_SECONDS_PER_NODE),
        settings=RivestSettings(engine="native"),
        clock=lambda: 0.0,
    )
    assert result.stats.stopped_by == "seconds" and result.stats.nodes is not None
    assert 990 <= result.stats.nodes <= 1_010
    assert result.stats.seconds == 0.0


def test_rivest_a_signal_stops_a_native_search() -> None:
    class Interrupted(Exception):
        pass

    def interrupt(signum: int, frame: object) -> None:
        raise Interrupted

    state = pyspiel.load_game("connect_four").new_initial_state()
    previous = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, 0.2)
    try:
        with pytest.raises(Interrupted):  # a tree of 10M nodes: only the signal ends it in time
            rivest(
                state,
                evaluator=make_evaluator("zero", state.get_game()),
                settings=RivestSettings(engine="native", max_nodes=10_000_000),
            )
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_rivest_bad_input_is_a_clear_error() -> None:
    state = pyspiel.load_game("tic_tac_toe").new_initial_state()
    zero = make_evaluator("zero", state.get_game())
    with pytest.raises(ValueError, match="engine must be one of"):
        rivest(state, evaluator=zero, settings=RivestSettings(engine="fast"))
    with pytest.raises(ValueError, match="p must be"):
        rivest(state, evaluator=zero, settings=RivestSettings(engine="native", p=1.0))
    terminal = state.clone()
    for action in (0, 3, 1, 4, 2):
        terminal.apply_action(action)
    with pytest.raises(ValueError, match="decision state"):
        rivest(terminal, evaluator=zero, settings=RivestSettings(engine="native"))
    with pytest.raises(ValueError, match="max_nodes must be < 2\\^31"):
        rivest(state, evaluator=zero, settings=RivestSettings(engine="native", max_nodes=1 << 31))


def test_rivest_bots_say_which_engine_ran() -> None:
    game = pyspiel.load_game("connect_four")
    state = game.new_initial_state()
    for engine, expected in (("auto", "native"), ("native", "native"), ("python", "python")):
        bot = load_bot("rivest", game, 0, nodes=500, engine=engine)
        assert bot.step(state) in state.legal_actions()
        assert bot.last_result.stats.engine == expected
