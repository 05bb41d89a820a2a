"""The C++ twins of the evaluators equal their Python evaluators (issue 38, item 5).

The heuristics of the games with chance (backgammon, pig) and of the n-player games
(chinese_checkers, maedn, yacht) and the seeded playouts equal Python's to 1e-12 (they are
built to be equal to the last bit) for every player, chance nodes included; value networks equal
the numpy reference within 1e-6. Bad input gives clear errors, and a search with a twin equals
the Python engine's search.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pyspiel
import pytest

from spiel_bounded import native
from spiel_bounded.evaluators import make_evaluator
from spiel_bounded.evaluators.heuristics import HeuristicEvaluator
from spiel_bounded.evaluators.seeded_rollout import SeededRolloutEvaluator
from spiel_bounded.evaluators.value_net import (
    ModelConfig,
    ValueNetEvaluator,
)
from spiel_bounded.evaluators.value_net.layout import layout_for
from spiel_bounded.games import UNDO_EXACT_GAMES
from spiel_bounded.limits import Limits
from spiel_bounded.search.alphabeta import (
    AlphaBetaSettings,
    bounded_ab,
    bounded_star2,
    paranoid,
)
from spiel_bounded.search.native_evaluators import _twin, native_evaluator
from spiel_bounded.testing import random_positions, search_fingerprint
from tests.helpers import write_network

if not native.available():
    pytest.skip(
        f"the native engine is unavailable: {native.unavailable_reason()}",
        allow_module_level=True,
    )

ENGINE = native.engine_module("test_native_evaluators")
MODELS = Path(__file__).resolve().parents[1] / "results/models"


def positions(game: pyspiel.Game, count: int, seed: int, plies: int) -> list[pyspiel.State]:
    """`count` seeded random non-terminal states after 0 to `plies` - 1 actions, chance nodes
    included (every legal action equally likely, chance outcomes too: reading yacht's 7,776
    outcome probabilities would cost most of the test)."""
    rng = np.random.default_rng(seed)
    states: list[pyspiel.State] = []
    while len(states) < count:
        state = game.new_initial_state()
        for _ in range(int(rng.integers(plies))):
            if state.is_terminal():
                break
            actions = state.legal_actions()
            state.apply_action(actions[int(rng.integers(len(actions)))])
        if not state.is_terminal():
            states.append(state)
    return states


def assert_twin_values(
    python: Any, twin: Any, states: list[pyspiel.State], players: int, tolerance: float
) -> None:
    """Every player's twin value (by `values` and by `value`) is within `tolerance` of
    `python.evaluate`."""
    worst = 0.0
    for state in states:
        expected = list(python.evaluate(state))
        found = twin.values(state)
        assert len(found) == players == len(expected)
        for player in range(players):
            single = twin.value(state, player)
            assert single == found[player]
            difference = abs(single - expected[player])
            worst = max(worst, difference)
            assert difference <= tolerance, (str(state), player, single, expected[player])
    assert worst <= tolerance


# -- the hand-written heuristics ------------------------------------------------------------

HEURISTIC_GAMES = [
    ("amazons", 200, 150),
    ("amazons(board_size=6)", 200, 30),
    ("backgammon", 300, 80),
    ("backgammon(scoring_type=full_scoring)", 300, 80),  # gammons
    ("backgammon(hyper_backgammon=true)", 200, 40),
    ("pig", 300, 60),
    ("pig(winscore=20)", 300, 40),
    ("pig(players=3)", 300, 60),
    ("pig(players=4,winscore=30)", 300, 60),
    ("pig(diceoutcomes=4,winscore=50)", 200, 60),
    ("pig(piglet=true,winscore=20)", 200, 60),
    ("chinese_checkers", 200, 120),
    ("chinese_checkers(players=3)", 300, 120),
    ("chinese_checkers(players=4)", 200, 120),
    ("chinese_checkers(players=6)", 200, 120),
    ("maedn", 200, 120),
    ("maedn(players=3)", 300, 120),
    ("maedn(players=4)", 300, 120),
    ("yacht", 200, 60),
    ("yacht(players=3)", 300, 60),
]


@pytest.mark.parametrize(("name", "count", "plies"), HEURISTIC_GAMES)
def test_heuristics_equal_python(name: str, count: int, plies: int) -> None:
    game = pyspiel.load_game(name)
    twin = ENGINE.heuristic_evaluator(game)
    assert twin is not None and twin.name == "heuristic"
    states = positions(game, count, seed=len(name), plies=plies)
    if game.get_type().chance_mode != pyspiel.GameType.ChanceMode.DETERMINISTIC:
        assert any(state.is_chance_node() for state in states)
    assert_twin_values(HeuristicEvaluator(game), twin, states, game.num_players(), 1e-12)


def test_the_native_twin_is_the_one_searches_run() -> None:
    game = pyspiel.load_game("pig(players=3)")
    heuristic = make_evaluator("heuristic", game)
    twin = native_evaluator("auto", "t", heuristic, game, lambda: abs)
    assert twin is not None and twin.name == "heuristic"
    # Made once per evaluator and game (a network's parameters are copied into C++ once).
    assert native_evaluator("auto", "t", heuristic, game, lambda: abs) is twin
    other = pyspiel.load_game("pig(players=2)")
    assert native_evaluator("auto", "t", heuristic, other, lambda: abs) is not twin


@pytest.mark.parametrize("name", ["othello", "chess", "hex", "yacht(num_dice=4)"])
def test_games_without_a_twin_give_none(name: str) -> None:
    assert ENGINE.heuristic_evaluator(pyspiel.load_game(name)) is None


def test_pig_without_dice_is_refused_as_in_python() -> None:
    game = pyspiel.load_game("pig(diceoutcomes=1)")
    with pytest.raises(ValueError, match="diceoutcomes >= 2") as python:
        HeuristicEvaluator(game)
    with pytest.raises(ValueError, match="diceoutcomes >= 2") as cpp:
        ENGINE.heuristic_evaluator(game)
    assert str(cpp.value) == str(python.value)


# -- seeded playouts ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "rollouts", "count"),
    [
        ("connect_four", 1, 60),
        ("tic_tac_toe", 3, 60),
        ("pig(winscore=20)", 2, 40),
        ("chinese_checkers(players=3)", 1, 8),
        ("maedn(players=3)", 1, 10),
    ],
)
def test_seeded_playouts_equal_python(name: str, rollouts: int, count: int) -> None:
    game = pyspiel.load_game(name)
    python = SeededRolloutEvaluator(game, rollouts=rollouts)
    twin = _twin(ENGINE, python, game)
    assert twin is not None and twin.name == "seeded_rollout"
    states = positions(game, count, seed=rollouts, plies=30)
    assert_twin_values(python, twin, states, game.num_players(), 0.0)


def test_seeded_playouts_need_one_playout() -> None:
    with pytest.raises(ValueError, match="rollouts must be >= 1"):
        ENGINE.seeded_rollout_evaluator(0)


# -- value networks -------------------------------------------------------------------------


NETWORKS = [
    ("connect_four", ModelConfig(width=32, depth=2), 40),
    ("connect_four", ModelConfig(kind="conv", channels=4, conv_layers=2, width=16, depth=1), 40),
    ("tic_tac_toe", ModelConfig(kind="conv", channels=3, conv_layers=1, width=8, depth=0), 9),
    ("breakthrough(rows=5,columns=5)", ModelConfig(kind="conv", channels=4, width=8), 40),
    ("backgammon", ModelConfig(width=24, depth=2), 60),
    ("pig", ModelConfig(width=16, depth=2), 40),
    ("pig(players=4)", ModelConfig(width=16, depth=1), 40),  # "shares" outputs
    ("chinese_checkers(players=3)", ModelConfig(width=16, depth=1), 60),
    ("maedn(players=4)", ModelConfig(width=16, depth=1), 60),
    ("yacht(players=3)", ModelConfig(width=16, depth=0), 40),
    ("connect_four", ModelConfig(width=32, depth=2, inputs="threats"), 40),
    ("connect_four(rows=5,columns=6,x_in_row=3)", ModelConfig(width=8, inputs="threats"), 30),
    ("connect_four(rows=4,columns=5,x_in_row=2)", ModelConfig(width=8, inputs="threats"), 20),
    ("connect_four(rows=3,columns=3,x_in_row=4)", ModelConfig(width=8, inputs="threats"), 9),
    ("tic_tac_toe", ModelConfig(kind="conv", channels=3, width=8, inputs="threats"), 9),
    ("hex(board_size=5)", ModelConfig(width=8, inputs="connections"), 20),
    ("amazons(board_size=6)", ModelConfig(width=8, inputs="territory"), 30),
    ("clobber", ModelConfig(width=8, inputs="contacts"), 20),
    (
        "hex(num_rows=3,num_cols=5,plain_obs_tensor=true)",
        ModelConfig(width=8, inputs="connections"),
        12,
    ),
]


@pytest.mark.parametrize(
    ("chance_view", "lifted_view"), [("next_mover", "restored"), ("player_0", "observed")]
)
@pytest.mark.parametrize(("name", "model", "plies"), NETWORKS)
def test_networks_equal_the_numpy_reference(
    name: str, model: ModelConfig, plies: int, chance_view: str, lifted_view: str, tmp_path: Path
) -> None:
    game = pyspiel.load_game(name)
    path = write_network(
        tmp_path / "model.npz", game, model, chance_view, seed=len(name), lifted_view=lifted_view
    )
    python = ValueNetEvaluator(game, path, engine="numpy")
    twin = _twin(ENGINE, python, game)
    assert twin is not None and twin.name == "value_net"
    states = positions(game, 200, seed=len(name), plies=plies)
    assert_twin_values(python, twin, states, game.num_players(), 1e-6)


@pytest.mark.parametrize(
    "model", sorted(path.parent.name for path in MODELS.glob("*/model.npz")) or ["none"]
)
def test_committed_networks_equal_the_numpy_reference(model: str) -> None:
    if model == "none":
        pytest.skip("no committed model.npz under results/models")
    path = MODELS / model
    game_string = _committed_game(path)
    game = pyspiel.load_game(game_string)
    python = ValueNetEvaluator(game, path, engine="numpy")
    twin = _twin(ENGINE, python, game)
    assert twin is not None
    states = positions(game, 200, seed=5, plies=40)
    assert_twin_values(python, twin, states, game.num_players(), 1e-6)


def _committed_game(path: Path) -> str:
    from spiel_bounded.evaluators.value_net import load_checkpoint

    return load_checkpoint(path).game


def _params(game: pyspiel.Game, model: ModelConfig) -> dict[str, np.ndarray]:
    return {
        name: np.zeros(shape, np.float32)
        for name, shape in layout_for(game, model).shapes().items()
    }


def _network(game: pyspiel.Game, model: ModelConfig, params: dict[str, Any], **changes: Any) -> Any:
    arguments = {
        "kind": model.kind,
        "width": model.width,
        "depth": model.depth,
        "channels": model.channels,
        "conv_layers": model.conv_layers,
        "inputs": model.inputs,
        "chance_view": "next_mover",
        "lifted_view": "restored",
        **changes,
    }
    return ENGINE.value_net_evaluator(game, params=params, **arguments)


def test_a_network_whose_weights_do_not_fit_is_refused() -> None:
    game = pyspiel.load_game("connect_four")
    model = ModelConfig(width=8, depth=1)
    assert _network(game, model, _params(game, model)).name == "value_net"

    params = _params(game, model)
    params["dense_0/kernel"] = np.zeros((10, 8), np.float32)
    with pytest.raises(ValueError, match=r"'dense_0/kernel' has shape \[10, 8\].*needs \[129, 8\]"):
        _network(game, model, params)
    params = _params(game, model)
    del params["out/bias"]
    with pytest.raises(ValueError, match=r"missing parameter 'out/bias'.*expected shape \[1\]"):
        _network(game, model, params)
    params = _params(game, model)
    params["dense_1/kernel"] = np.zeros((8, 8), np.float32)
    with pytest.raises(ValueError, match=r"unexpected parameter.*'dense_1/kernel'"):
        _network(game, model, params)
    with pytest.raises(ValueError, match="'dense_0/kernel' has shape"):
        _network(game, model, _params(game, model), width=9)  # the declared shape is wider
    with pytest.raises(ValueError, match="unknown model kind 'rnn'"):
        _network(game, model, _params(game, model), kind="rnn")
    with pytest.raises(ValueError, match="unknown inputs 'lines'; accepted: observation, threats"):
        _network(game, model, _params(game, model), inputs="lines")
    othello = pyspiel.load_game("othello")
    with pytest.raises(ValueError, match="othello has none; accepted: connect_four"):
        _network(othello, model, _params(othello, model), inputs="threats")
    wide = pyspiel.load_game("connect_four(rows=8,columns=9)")
    with pytest.raises(ValueError, match=r"at most 64 cells; .*has 72"):
        _network(wide, model, _params(wide, model), inputs="threats")
    with pytest.raises(ValueError, match=r"othello is not one; accepted: hex \(any size\)"):
        _network(othello, model, _params(othello, model), inputs="connections")
    with pytest.raises(ValueError, match=r"othello is not one; accepted: amazons \(any size\)"):
        _network(othello, model, _params(othello, model), inputs="territory")
    with pytest.raises(ValueError, match=r"othello is not one; accepted: clobber \(boards of"):
        _network(othello, model, _params(othello, model), inputs="contacts")
    with pytest.raises(ValueError, match="unknown chance view 'x'"):
        _network(game, model, _params(game, model), chance_view="x")
    with pytest.raises(ValueError, match="unknown lifted view 'x'; accepted: restored, observed"):
        _network(game, model, _params(game, model), lifted_view="x")
    with pytest.raises(ValueError, match="not an array"):
        _network(game, model, {**_params(game, model), "out/bias": "zero"})


def test_a_conv_network_needs_a_board_observation() -> None:
    game = pyspiel.load_game("backgammon")
    model = ModelConfig(width=8, depth=1)
    with pytest.raises(ValueError, match=r"conv model reads a board.*shape \[200\]"):
        _network(game, model, _params(game, model), kind="conv")


# -- a position's children valued from the parent (`Evaluator::BeginChildren`) ---------------

# Placement games (connect_four, tic_tac_toe: a move changes two entries), the generic path
# (connect_four's egocentric observation changes whole planes, othello's moves flip pieces),
# widths that are not a multiple of 8, and a network whose first layer is its output.
CHILDREN = [
    ("connect_four", ModelConfig(width=32, depth=2), 40),
    ("connect_four(rows=5,columns=6,x_in_row=3)", ModelConfig(width=20, depth=1), 30),
    ("connect_four(egocentric_obs_tensor=true)", ModelConfig(width=16, depth=2), 40),
    ("connect_four(rows=3,columns=3,x_in_row=4)", ModelConfig(width=8, depth=0), 9),  # draws
    ("tic_tac_toe", ModelConfig(width=16, depth=2), 9),
    ("breakthrough(rows=5,columns=5)", ModelConfig(width=24, depth=2), 40),
    ("othello", ModelConfig(width=16, depth=1), 60),
    ("chinese_checkers(players=3)", ModelConfig(width=16, depth=1), 80),
    ("hex(board_size=5)", ModelConfig(width=16, depth=1), 20),  # edge flags: many entries change
    ("connect_four", ModelConfig(width=32, depth=2, inputs="threats"), 40),
    ("tic_tac_toe", ModelConfig(width=16, depth=1, inputs="threats"), 9),
    ("hex(board_size=5)", ModelConfig(width=16, depth=1, inputs="connections"), 20),
    ("amazons(board_size=6)", ModelConfig(width=16, depth=1, inputs="territory"), 90),
    ("amazons", ModelConfig(width=16, depth=1, inputs="territory"), 120),  # planes across words
    ("clobber", ModelConfig(width=16, depth=1, inputs="contacts"), 20),
    ("clobber(rows=8,columns=8)", ModelConfig(width=16, depth=1, inputs="contacts"), 40),
]


def assert_children_equal_the_built_children(
    twin: Any,
    game: pyspiel.Game,
    states: list[pyspiel.State],
    start_search: bool,
    undo: bool = False,
) -> int:
    """Every child of every state, for every player, valued from the parent (`child_leaves`) is
    what building it gives: its return when terminal, else the network's value of it, to the
    last bit (the first layer's sums are exact in float64, whatever their order). Returns the
    number of terminal children."""
    terminal = 0
    for state in states:
        for player in range(game.num_players()):
            leaves = ENGINE.child_leaves(twin, state, player, start_search=start_search, undo=undo)
            assert leaves is not None
            assert len(leaves) == len(state.legal_actions())
            for move, leaf in zip(state.legal_actions(), leaves, strict=True):
                child = state.child(move)
                if child.is_terminal():
                    expected = (child.player_return(player), True)
                    terminal += 1
                else:
                    expected = (twin.value(child, player), False)
                assert leaf == expected, (str(state), move, player)
    return terminal


@pytest.mark.parametrize("undo", [False, True])
@pytest.mark.parametrize(("name", "model", "plies"), CHILDREN)
def test_children_from_the_parent_equal_the_built_children(
    name: str, model: ModelConfig, plies: int, undo: bool, tmp_path: Path
) -> None:
    """With `undo`, as searches do in games whose undo is exact, children that are not
    placements are made by applying and undoing the move on the parent (which must end as it
    began: `child_leaves` checks)."""
    game = pyspiel.load_game(name)
    if undo and game.get_type().short_name not in UNDO_EXACT_GAMES:
        pytest.skip("the game's undo is not exact: searches copy its states")
    path = write_network(tmp_path / "model.npz", game, model, "next_mover", seed=3)
    twin = _twin(ENGINE, ValueNetEvaluator(game, path, engine="numpy"), game)
    states = positions(game, 100, seed=7, plies=plies)
    terminal = assert_children_equal_the_built_children(twin, game, states, True, undo)
    assert terminal > 0 or name in ("othello", "chinese_checkers(players=3)", "amazons")
    # One search from the initial state: each parent's sums are brought up to date from the
    # last parent's instead of made afresh.
    ENGINE.child_leaves(twin, game.new_initial_state(), 0, undo=undo)
    assert_children_equal_the_built_children(twin, game, states, False, undo)


def test_children_of_the_committed_connect_four_network(tmp_path: Path) -> None:
    game = pyspiel.load_game("connect_four")
    python = ValueNetEvaluator(game, MODELS / "connect_four", engine="numpy")
    twin = _twin(ENGINE, python, game)
    states = positions(game, 100, seed=11, plies=40)
    assert assert_children_equal_the_built_children(twin, game, states, start_search=True) > 0
    # A game played on: consecutive parents a move or two apart, as in a search.
    rng = np.random.default_rng(2)
    line = [game.new_initial_state()]
    while not line[-1].is_terminal():
        actions = line[-1].legal_actions()
        line.append(line[-1].child(actions[int(rng.integers(len(actions)))]))
    ENGINE.child_leaves(twin, line[0], 0)
    assert_children_equal_the_built_children(twin, game, line[:-1], start_search=False)


def test_children_where_the_first_layer_sums_are_not_exact(tmp_path: Path) -> None:
    """A weight of 2^-100 beside weights near 1 needs more than float64's 53 bits: each parent's
    sum is then made afresh, and a child's value may differ from the built child's in the last
    bits of the sum only."""
    game = pyspiel.load_game("connect_four")
    model = ModelConfig(width=16, depth=1)
    params = {
        name: (np.random.default_rng(1).standard_normal(shape) / 8).astype(np.float32)
        for name, shape in layout_for(game, model).shapes().items()
    }
    params["dense_0/kernel"][5, 3] = 2.0**-100
    twin = _network(game, model, params)
    ENGINE.child_leaves(twin, game.new_initial_state(), 0)
    for state in positions(game, 60, seed=4, plies=30):
        leaves = ENGINE.child_leaves(twin, state, 0, start_search=False)
        for move, (value, terminal) in zip(state.legal_actions(), leaves, strict=True):
            child = state.child(move)
            assert terminal == child.is_terminal()
            expected = child.player_return(0) if terminal else twin.value(child, 0)
            assert value == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(
    ("name", "model"),
    [
        ("connect_four", ModelConfig(kind="conv", channels=4, conv_layers=1, width=8, depth=1)),
        ("backgammon", ModelConfig(width=8, depth=1)),  # chance nodes
    ],
)
def test_no_children_from_the_parent_for_conv_models_or_chance(
    name: str, model: ModelConfig, tmp_path: Path
) -> None:
    game = pyspiel.load_game(name)
    path = write_network(tmp_path / "model.npz", game, model, "next_mover")
    twin = _twin(ENGINE, ValueNetEvaluator(game, path, engine="numpy"), game)
    assert ENGINE.child_leaves(twin, positions(game, 1, seed=0, plies=10)[0], 0) is None


# -- searches with a twin -------------------------------------------------------------------


def _start(game: pyspiel.Game, seed: int, plies: int) -> pyspiel.State:
    state = random_positions(game, 1, plies=plies, seed=seed)[0]
    assert state.current_player() >= 0
    return state


def _both(search: Any, state: pyspiel.State, evaluator: Any, depth: int) -> list[Any]:
    found = []
    for engine in ("python", "native"):
        result = search(
            state,
            evaluator=evaluator(),
            limits=Limits(depth=depth),
            settings=AlphaBetaSettings(engine=engine),
        )
        assert result.stats.engine == engine
        found.append(search_fingerprint(result))
    return found


@pytest.mark.parametrize(
    ("name", "depth", "plies"),
    [("pig", 3, 4), ("pig(winscore=30)", 4, 10), ("backgammon", 1, 6), ("backgammon", 2, 20)],
)
def test_star2_with_a_native_heuristic_equals_python(name: str, depth: int, plies: int) -> None:
    game = pyspiel.load_game(name)
    for seed in (0, 1):
        state = _start(game, seed, plies)
        python, native_run = _both(
            bounded_star2, state, lambda: make_evaluator("heuristic", game), depth
        )
        assert python == native_run, (name, seed)


@pytest.mark.parametrize(
    ("name", "depth"),
    [("chinese_checkers(players=3)", 2), ("maedn(players=4)", 2), ("yacht(players=3)", 1)],
)
def test_paranoid_with_a_native_nplayer_heuristic_equals_python(name: str, depth: int) -> None:
    game = pyspiel.load_game(name)
    state = _start(game, 2, 6)
    python, native_run = _both(paranoid, state, lambda: make_evaluator("heuristic", game), depth)
    assert python == native_run


def test_star2_with_native_seeded_playouts_equals_python() -> None:
    game = pyspiel.load_game("pig(winscore=20)")
    state = _start(game, 3, 4)
    python, native_run = _both(
        bounded_star2, state, lambda: SeededRolloutEvaluator(game, rollouts=1), 2
    )
    assert python == native_run


@pytest.mark.parametrize(
    "name", ["chinese_checkers(players=3)", "pig(players=3,winscore=20)", "tic_tac_toe"]
)
def test_native_playouts_give_every_player_the_returns_of_the_same_playouts(name: str) -> None:
    game = pyspiel.load_game(name)
    low, high = game.min_utility(), game.max_utility()
    rollout = ENGINE.rollout_evaluator(4, 7, low, high)
    for state in positions(game, 20, 3, 12):
        values = rollout.values(state)
        assert len(values) == game.num_players()
        assert all(low <= value <= high for value in values)
        assert abs(sum(values)) < 1e-9  # constant-sum (0) returns keep their sum


class _BuiltLeaves:
    """A native network's values read back from Python: the native engine then builds every leaf
    and values it alone (a callback evaluator has no `BeginChildren`)."""

    name = "value_net"

    def __init__(self, twin: Any) -> None:
        self._twin = twin

    def evaluate(self, state: pyspiel.State) -> list[float]:
        return list(self._twin.values(state))


@pytest.mark.parametrize(
    ("name", "model", "depth", "plies"),
    [
        ("connect_four", ModelConfig(width=32, depth=2), 5, 10),
        ("tic_tac_toe", ModelConfig(width=16, depth=2), 4, 2),
        ("breakthrough(rows=5,columns=5)", ModelConfig(width=24, depth=1), 3, 8),
        ("othello", ModelConfig(width=16, depth=1), 3, 12),
    ],
)
def test_a_search_with_children_from_the_parent_equals_one_that_builds_them(
    name: str, model: ModelConfig, depth: int, plies: int, tmp_path: Path
) -> None:
    game = pyspiel.load_game(name)
    path = write_network(tmp_path / "model.npz", game, model, "next_mover", seed=5)
    network = ValueNetEvaluator(game, path, engine="numpy")
    built = _BuiltLeaves(_twin(ENGINE, network, game))
    native_engine = AlphaBetaSettings(engine="native")
    for seed in range(3):
        state = _start(game, seed, plies)
        found = bounded_ab(
            state, evaluator=network, limits=Limits(depth=depth), settings=native_engine
        )
        expected = bounded_ab(
            state, evaluator=built, limits=Limits(depth=depth), settings=native_engine
        )
        assert search_fingerprint(found) == search_fingerprint(expected), (name, seed)


def test_the_committed_connect_four_network_searches_as_on_the_python_engine() -> None:
    """Depth 6 as self-play searches: the same move, bounds within 1e-6 of the numpy network's
    on the Python engine (which builds every leaf)."""
    game = pyspiel.load_game("connect_four")
    network = ValueNetEvaluator(game, MODELS / "connect_four", engine="numpy")
    for seed in range(4):
        state = _start(game, seed, 4 + 3 * seed)
        results = [
            bounded_ab(
                state,
                evaluator=network,
                limits=Limits(depth=6),
                settings=AlphaBetaSettings(engine=engine),
            )
            for engine in ("python", "native")
        ]
        python, native_run = results
        assert native_run.stats.engine == "native"
        assert native_run.action == python.action, seed
        assert native_run.lower == pytest.approx(python.lower, abs=1e-6)
        assert native_run.upper == pytest.approx(python.upper, abs=1e-6)
