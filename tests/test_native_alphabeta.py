"""The native alpha-beta engine against the Python one: same nodes, bounds, moves and PV.

At a fixed depth, with a table that does not fill, `engine="native"` must visit the same number
of nodes and return the same move, bounds, root children, principal variation and counts as
`engine="python"` (issue 38): on the committed equivalence grid, on every game of the atlas the
alpha-beta family plays (with arbitrary hashed leaf values, called back from C++, and with the
evaluators that have a C++ twin), and on the synthetic trees (a game implemented in Python,
called back). Also: errors raised in a callback, Ctrl-C, the time limit on an injected clock,
and what happens where the engine is unavailable.
"""

from __future__ import annotations

import json
import signal
from pathlib import Path
from typing import Any

import numpy as np
import pyspiel
import pytest

from spiel_bounded import load_bot
from spiel_bounded.evaluators import make_evaluator
from spiel_bounded.evaluators.value_net import ModelConfig
from spiel_bounded.games import UNDO_EXACT_GAMES
from spiel_bounded.limits import Limits
from spiel_bounded.native import available, engine_module
from spiel_bounded.search.alphabeta import (
    AlphaBetaSettings,
    bounded_ab,
    bounded_star1,
    bounded_star2,
    paranoid,
)
from spiel_bounded.search.alphabeta import search as alphabeta_search
from spiel_bounded.testing import (
    equivalence_cases,
    fingerprint_differences,
    search_fingerprint,
)
from tests.helpers import FakeClock, HashEvaluator, run_without_native, write_network

pytestmark = pytest.mark.skipif(not available(), reason="the native engine is not built")

FINGERPRINTS = Path(__file__).resolve().parents[1] / "results/equivalence/alphabeta.json"

DETERMINISTIC = [
    ("amazons", 2),
    ("antichess", 2),
    ("breakthrough", 3),
    ("checkers", 3),
    ("chess", 2),
    ("clobber", 2),
    ("connect_four", 4),
    ("crazyhouse", 2),
    ("cursor_go(board_size=5)", 3),
    ("dots_and_boxes", 3),
    ("go(board_size=5)", 2),
    ("gomoku(size=5,connect=4)", 2),
    ("havannah(board_size=4)", 2),
    ("hex(board_size=5)", 2),
    ("hive", 2),
    ("lines_of_action", 2),
    ("mancala", 4),
    ("mnk(m=4,n=4,k=3)", 3),
    ("nim", 4),
    ("nine_mens_morris", 3),
    ("othello", 3),
    ("oware", 3),
    ("pentago", 2),
    ("quoridor(board_size=5,wall_count=2)", 2),
    ("shogi", 2),
    ("tic_tac_toe", 9),
    ("twixt(board_size=6)", 2),
    ("ultimate_tic_tac_toe", 3),
    ("xiangqi", 2),
    ("y(board_size=5)", 2),
]
CHANCE = [
    ("backgammon", 1),
    ("banqi", 2),
    ("einstein_wurfelt_nicht", 2),
    ("pig(winscore=20)", 3),
]
NPLAYER = [
    ("chinese_checkers(players=3)", 2),
    ("chinese_checkers(players=4)", 2),
    ("maedn(players=3)", 2),
    ("pig(players=3,winscore=20)", 2),
    ("yacht(players=3)", 1),
]


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


def _both(search: Any, state: pyspiel.State, evaluator: Any, depth: int, **settings: Any) -> Any:
    """The fingerprints of `search` on the Python and the native engine (fresh evaluators)."""
    found = []
    for engine in ("python", "native"):
        result = search(
            state,
            evaluator=evaluator(),
            limits=Limits(depth=depth),
            settings=AlphaBetaSettings(engine=engine, **settings),
        )
        assert result.stats.engine == engine
        found.append(search_fingerprint(result))
    return found


def test_the_whole_equivalence_grid_gives_the_committed_fingerprints() -> None:
    committed = json.loads(FINGERPRINTS.read_text())
    differences = [
        line
        for case in equivalence_cases()
        for line in fingerprint_differences(
            case.key, committed.get(case.key), case.run(engine="native")
        )
    ]
    assert differences == []


@pytest.mark.parametrize(("name", "depth"), DETERMINISTIC, ids=[name for name, _ in DETERMINISTIC])
def test_deterministic_games(name: str, depth: int) -> None:
    game = pyspiel.load_game(name)
    for seed, plies in ((0, 0), (1, 5), (2, 12)):
        state = _position(game, seed, plies)
        if state is None:
            continue
        for epsilon in (0.0, 0.25 * (game.max_utility() - game.min_utility())):
            python, native = _both(
                bounded_ab,
                state,
                lambda seed=seed: HashEvaluator(game, seed),
                depth,
                epsilon=epsilon,
            )
            assert python == native, (name, seed, epsilon)


@pytest.mark.parametrize(
    ("search", "name", "plies", "depth"),
    [(bounded_ab, "connect_four", 6, 7), (bounded_star1, "pig(winscore=20)", 6, 7)],
    ids=["bounded_ab", "bounded_star1"],
)
def test_a_full_table_refuses_the_same_entries_on_both_engines(
    search: Any, name: str, plies: int, depth: int
) -> None:
    """A table that fills (at a slot count that is no power of two; after a growth step) takes
    the same entries and refuses the same ones on both engines: the searches stay equal, and each
    differs from the search with a table that does not fill."""
    game = pyspiel.load_game(name)
    state = _position(game, 3, plies)
    assert state is not None
    unfilled = _both(search, state, lambda: HashEvaluator(game, 3), depth)[0]
    for capacity in (700, 1_500):
        python, native = _both(
            search, state, lambda: HashEvaluator(game, 3), depth, tt_capacity=capacity
        )
        assert python == native, capacity
        assert native != unfilled, capacity


def test_amazons_transpositions_on_the_board_key() -> None:
    """The native table keys amazons by its cells (its text, one character a cell, is not
    built): searches 9 plies deep, whose iterations find the states the iteration before stored
    (table hits), search exactly as the Python engine, which keys by the text."""
    game = pyspiel.load_game("amazons(board_size=6)")
    hits = 0
    for seed in range(3):
        state = _position(game, seed, 30)
        assert state is not None
        python, native = _both(bounded_ab, state, lambda seed=seed: HashEvaluator(game, seed), 9)
        assert python == native, seed
        hits += native["tt_hits"]
    assert hits > 0


@pytest.mark.parametrize(("name", "depth"), CHANCE, ids=[name for name, _ in CHANCE])
@pytest.mark.parametrize("search", [bounded_star1, bounded_star2], ids=lambda f: f.__name__)
def test_chance_games(search: Any, name: str, depth: int) -> None:
    game = pyspiel.load_game(name)
    for seed, plies in ((0, 1), (1, 6)):
        state = _position(game, seed, plies)
        if state is None:
            continue
        for epsilon, policy in ((0.0, "uniform"), (0.2, "uniform"), (0.2, "carry")):
            python, native = _both(
                search,
                state,
                lambda seed=seed: HashEvaluator(game, seed),
                depth,
                epsilon=epsilon,
                chance_epsilon=policy,
            )
            assert python == native, (name, seed, epsilon, policy)


@pytest.mark.parametrize(("name", "depth"), NPLAYER, ids=[name for name, _ in NPLAYER])
def test_paranoid_on_nplayer_games(name: str, depth: int) -> None:
    game = pyspiel.load_game(name)
    for seed, plies in ((0, 1), (1, 9)):
        state = _position(game, seed, plies)
        if state is None:
            continue
        python, native = _both(paranoid, state, lambda: make_evaluator("heuristic", game), depth)
        assert python == native, (name, seed)


@pytest.mark.parametrize(
    ("name", "search", "depth", "late"),
    [
        ("chinese_checkers(players=3)", paranoid, 4, 60),
        ("breakthrough(rows=5,columns=5)", bounded_ab, 4, 6),
    ],
)
def test_a_network_values_children_alike_by_undo_and_by_copies(
    name: str,
    search: Any,
    depth: int,
    late: int,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """In games whose undo is exact, a native search hands the network its state to apply and
    undo the children at the depth limit on; copying each child instead gives the same search
    (positions deep in a game: a chinese_checkers copy grows with the moves played)."""
    game = pyspiel.load_game(name)
    path = write_network(
        tmp_path / "model.npz", game, ModelConfig(width=16, depth=2), "next_mover", seed=5
    )
    found = []
    for undo_games in (UNDO_EXACT_GAMES, frozenset()):
        monkeypatch.setattr(alphabeta_search, "UNDO_EXACT_GAMES", undo_games)
        for seed, plies in ((0, 4), (1, late)):
            state = _position(game, seed, plies)
            assert state is not None
            result = search(
                state,
                evaluator=make_evaluator(f"net:{path}", game),
                limits=Limits(depth=depth),
                settings=AlphaBetaSettings(engine="native"),
            )
            assert result.stats.engine == "native"
            found.append(search_fingerprint(result))
    assert found[:2] == found[2:]


@pytest.mark.parametrize("evaluator", ["zero", "heuristic"], ids=lambda name: f"{name} twin in C++")
@pytest.mark.parametrize("name", ["tic_tac_toe", "connect_four", "breakthrough"])
def test_evaluators_with_a_cpp_twin(name: str, evaluator: str) -> None:
    game = pyspiel.load_game(name)
    state = _position(game, 3, 4)
    assert state is not None
    for settings in (
        {},
        {"transpositions": False},
        {"move_ordering": False},
        {"iterative_deepening": False},
    ):
        python, native = _both(
            bounded_ab, state, lambda: make_evaluator(evaluator, game), 4, **settings
        )
        assert python == native, settings


@pytest.mark.parametrize(
    "params",
    [
        "depth=6,branching=3,transpositions=1",
        "depth=6,branching=3,chance=0.3,chance_outcomes=3",
        "depth=5,branching=3,players=3,chance=0.2",
    ],
)
def test_synthetic_trees_a_python_game_called_back(params: str) -> None:
    game = pyspiel.load_game(f"bounded_random_tree({params})")
    state = _position(game, 0, 0)
    assert state is not None
    chance = "chance" in params
    search = paranoid if "players=3" in params else bounded_star2 if chance else bounded_ab
    for epsilon in (0.0, 0.3):
        python, native = _both(
            search, state, lambda: make_evaluator("heuristic", game), 6, epsilon=epsilon
        )
        assert python == native, epsilon


def test_a_node_limit_stops_both_engines_at_the_same_iteration() -> None:
    game = pyspiel.load_game("connect_four")
    state = _position(game, 4, 6)
    results = [
        search_fingerprint(
            bounded_ab(
                state,
                evaluator=make_evaluator("heuristic", game),
                limits=Limits(nodes=20_000),
                settings=AlphaBetaSettings(engine=engine),
            )
        )
        for engine in ("python", "native")
    ]
    assert results[0] == results[1]
    assert results[1]["stopped_by"] == "nodes" and results[1]["nodes"] == 20_000


def test_a_bad_value_from_a_called_back_evaluator_is_the_python_error() -> None:
    class OutOfRange:
        name = "broken"

        def evaluate(self, state: pyspiel.State) -> list[float]:
            return [3.0, -3.0]

    state = pyspiel.load_game("tic_tac_toe").new_initial_state()
    with pytest.raises(ValueError, match=r"evaluator 'broken' returned 3\.0 on tic_tac_toe"):
        bounded_ab(
            state,
            evaluator=OutOfRange(),
            limits=Limits(depth=3),
            settings=AlphaBetaSettings(engine="native"),
        )


def test_an_injected_clock_stops_a_native_search() -> None:
    clock = FakeClock()

    class Slow:
        name = "slow"

        def evaluate(self, state: pyspiel.State) -> tuple[float, float]:
            clock.now += 0.001
            return (0.0, 0.0)

    state = pyspiel.load_game("connect_four").new_initial_state()
    result = bounded_ab(
        state,
        evaluator=Slow(),
        limits=Limits(seconds=0.5),
        settings=AlphaBetaSettings(engine="native"),
        clock=clock,
    )
    assert result.stats.stopped_by == "seconds" and result.stats.engine == "native"
    assert 0.5 <= clock.now <= 0.51  # it stops within one evaluation of the limit
    assert result.action in state.legal_actions()


def test_a_signal_stops_a_native_search() -> None:
    class Interrupted(Exception):
        pass

    def interrupt(signum: int, frame: object) -> None:
        raise Interrupted

    state = pyspiel.load_game("connect_four").new_initial_state()
    previous = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, 0.2)
    try:
        with pytest.raises(Interrupted):  # unlimited: only the signal can end it
            bounded_ab(
                state,
                evaluator=make_evaluator("zero", state.get_game()),
                settings=AlphaBetaSettings(engine="native"),
            )
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_bots_say_which_engine_ran() -> None:
    game = pyspiel.load_game("connect_four")
    state = game.new_initial_state()
    for engine, expected in (("auto", "native"), ("native", "native"), ("python", "python")):
        bot = load_bot("bounded_ab", game, 0, depth=3, engine=engine)
        assert bot.step(state) in state.legal_actions()
        assert bot.last_result.stats.engine == expected
    # "auto" with an evaluator that has no C++ twin runs the Python engine (every named
    # evaluator has one now: a Python object has none).
    backgammon = pyspiel.load_game("backgammon")
    roll = backgammon.new_initial_state()
    roll.apply_action(roll.legal_actions()[0])
    result = bounded_star2(
        roll,
        evaluator=HashEvaluator(backgammon, 0),
        limits=Limits(depth=1),
        settings=AlphaBetaSettings(engine="auto"),
    )
    assert result.stats.engine == "python"
    bot = load_bot("bounded_star2", "backgammon", 0, depth=1, engine="auto")
    bot.step(roll)
    assert bot.last_result.stats.engine == "native"  # the heuristic's twin


def test_without_the_native_engine_auto_falls_back_and_native_is_a_clear_error() -> None:
    script = """
import warnings
from spiel_bounded import load_bot
import pyspiel
state = pyspiel.load_game("tic_tac_toe").new_initial_state()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    for _ in range(3):
        bot = load_bot("bounded_ab", "tic_tac_toe", 0, depth=2)
        bot.step(state)
        assert bot.last_result.stats.engine == "python"
print(len(caught), caught[0].message)
try:
    load_bot("bounded_ab", "tic_tac_toe", 0, depth=2, engine="native").step(state)
except ValueError as error:
    print(error)
"""
    warned, refused = run_without_native(script)
    assert warned.startswith("1 the native engine is disabled (SPIEL_BOUNDED_NATIVE=0)")
    assert "engine='native' was asked for, but the native engine is disabled" in refused
    assert "engine='auto' or 'python' runs the Python engine" in refused


@pytest.mark.parametrize("name", ["connect_four", "connect_four(rows=5,columns=4)", "breakthrough"])
def test_the_text_searches_read_is_the_state_string(name: str) -> None:
    module = engine_module("test")
    game = pyspiel.load_game(name)
    root = game.new_initial_state()
    for seed in range(20):
        rng = np.random.default_rng(seed)
        state = root.clone()
        while True:
            text, from_history = module.state_text(root, state)
            assert text == str(state)
            assert from_history == name.startswith("connect_four")
            if state.is_terminal():
                break
            state.apply_action(int(rng.choice(state.legal_actions())))
