"""The mixed evaluator, `"mix:W:FIRST+SECOND"`: its values are the weighted mean of its two
evaluators' for every player, in Python and in its C++ twin (children valued from the parent
included), its specs are checked with messages that say what is accepted, and searches with it
agree across engines."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyspiel
import pytest

from spiel_bounded import native
from spiel_bounded.evaluators import MixedEvaluator, make_evaluator, reseeded
from spiel_bounded.evaluators.mixed import MixSpec, parse_mix
from spiel_bounded.evaluators.value_net import ModelConfig
from spiel_bounded.games import UNDO_EXACT_GAMES
from spiel_bounded.limits import Limits
from spiel_bounded.registry import load_bot
from spiel_bounded.search.alphabeta import AlphaBetaSettings, bounded_ab
from spiel_bounded.search.native_evaluators import _twin, has_twin, reusable_twin
from spiel_bounded.testing import random_positions, search_fingerprint
from tests.helpers import write_network
from tests.markers import needs_native


def test_a_spec_names_its_weight_and_two_evaluators() -> None:
    assert parse_mix("mix:0.25:net:a/b.npz+rollout") == MixSpec("net:a/b.npz", "rollout", 0.25)
    assert parse_mix("mix:.5:heuristic+zero") == MixSpec("heuristic", "zero", 0.5)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("mix:0:zero+rollout", "strictly between 0 and 1"),
        ("mix:1:zero+rollout", "strictly between 0 and 1"),
        ("mix:nan:zero+rollout", "strictly between 0 and 1"),
        ("mix:half:zero+rollout", "'half' is not a number"),
        ("mix:0.5:zero", "exactly two evaluators"),
        ("mix:0.5:zero+", "exactly two evaluators"),
        ("mix:0.5:+zero", "exactly two evaluators"),
        ("mix:0.5:zero+rollout+heuristic", "exactly two evaluators"),
        ("mix:0.5:mix:0.5:zero+rollout", "mixes a mix"),
    ],
)
def test_malformed_specs_say_what_is_wrong(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_mix(spec)
    with pytest.raises(ValueError, match=message):
        make_evaluator(spec, pyspiel.load_game("tic_tac_toe"))


@pytest.mark.parametrize(
    ("evaluator", "message"),
    [
        ("mix:0.5:bogus+rollout", "got .bogus."),
        ("mix:0.5:auto+rollout", "auto is not mixed"),
        ("mix:1.5:zero+rollout", "strictly between 0 and 1"),
    ],
)
def test_a_bot_refuses_a_bad_mix_before_it_plays(evaluator: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        load_bot("bounded_ab", pyspiel.load_game("tic_tac_toe"), 0, evaluator=evaluator)


def test_values_are_the_weighted_mean_for_every_player() -> None:
    game = pyspiel.load_game("connect_four")
    heuristic = make_evaluator("heuristic", game)
    playouts = make_evaluator("seeded_rollout", game, rollouts=2)
    mixed = make_evaluator("mix:0.3:heuristic+seeded_rollout", game, rollouts=2)
    assert isinstance(mixed, MixedEvaluator) and mixed.name == "mix:0.3:heuristic+seeded_rollout"
    for state in random_positions(game, 40, plies=(0, 30), seed=1):
        expected = 0.7 * np.asarray(heuristic.evaluate(state)) + 0.3 * np.asarray(
            playouts.evaluate(state)
        )
        found = mixed.evaluate(state)
        np.testing.assert_allclose(found, expected, rtol=0, atol=1e-12)
        assert all(-1.0 <= value <= 1.0 for value in found)


def test_a_value_outside_the_range_is_named() -> None:
    game = pyspiel.load_game("tic_tac_toe")

    class TooHigh:
        name = "too_high"

        def evaluate(self, state: pyspiel.State) -> list[float]:
            return [2.0, -2.0]

    mixed = MixedEvaluator(TooHigh(), make_evaluator("zero", game), 0.5, game)
    with pytest.raises(ValueError, match=r"'too_high' returned 2\.0"):
        mixed.evaluate(game.new_initial_state())


# -- the C++ twin ---------------------------------------------------------------------------


def _network(game: pyspiel.Game, tmp_path: Path, inputs: str = "observation") -> str:
    model = ModelConfig(width=16, depth=1, inputs=inputs)
    return str(write_network(tmp_path / "model.npz", game, model, "next_mover", seed=4))


MIXES = [
    ("connect_four", "mix:0.5:net:{net}+seeded_rollout", "observation", 30),
    ("connect_four", "mix:0.25:seeded_rollout+net:{net}", "observation", 30),
    ("clobber", "mix:0.5:net:{net}+seeded_rollout", "contacts", 16),
    ("breakthrough(rows=5,columns=5)", "mix:0.75:net:{net}+seeded_rollout", "observation", 30),
    ("tic_tac_toe", "mix:0.5:seeded_rollout+net:{net}", "observation", 9),
]


@needs_native
@pytest.mark.parametrize(("name", "spec", "inputs", "plies"), MIXES)
def test_the_twin_equals_python(
    name: str, spec: str, inputs: str, plies: int, tmp_path: Path
) -> None:
    game = pyspiel.load_game(name)
    python = make_evaluator(spec.format(net=_network(game, tmp_path, inputs)), game)
    engine = native.engine_module("test_mixed_evaluator")
    twin = _twin(engine, python, game)
    assert twin is not None and twin.name == "mix" and has_twin(python, game)
    for state in random_positions(game, 60, plies=(0, plies), seed=2):
        expected = list(python.evaluate(state))
        found = twin.values(state)
        for player in range(game.num_players()):
            assert twin.value(state, player) == found[player]
            assert abs(found[player] - expected[player]) <= 1e-6, (str(state), player)


@needs_native
@pytest.mark.parametrize(("name", "spec", "inputs", "plies"), MIXES)
@pytest.mark.parametrize("undo", [False, True])
def test_children_from_the_parent_equal_the_built_children(
    name: str, spec: str, inputs: str, plies: int, undo: bool, tmp_path: Path
) -> None:
    """The network values each child from its parent's sums and the other evaluator values it
    built: exactly what valuing the built child with the whole mix gives."""
    game = pyspiel.load_game(name)
    if undo and game.get_type().short_name not in UNDO_EXACT_GAMES:
        pytest.skip("the game's undo is not exact: searches copy its states")
    python = make_evaluator(spec.format(net=_network(game, tmp_path, inputs)), game)
    engine = native.engine_module("test_mixed_evaluator")
    twin = _twin(engine, python, game)
    for state in random_positions(game, 40, plies=(0, plies), seed=3):
        for player in range(game.num_players()):
            leaves = engine.child_leaves(twin, state, player, start_search=True, undo=undo)
            assert leaves is not None
            for move, leaf in zip(state.legal_actions(), leaves, strict=True):
                child = state.child(move)
                if child.is_terminal():
                    assert leaf == (child.player_return(player), True)
                else:
                    assert leaf == (twin.value(child, player), False), (str(state), move)


@needs_native
def test_a_mix_without_a_network_has_no_children_path() -> None:
    game = pyspiel.load_game("tic_tac_toe")
    engine = native.engine_module("test_mixed_evaluator")
    twin = _twin(engine, make_evaluator("mix:0.5:zero+seeded_rollout", game), game)
    leaves = engine.child_leaves(twin, game.new_initial_state(), 0, start_search=True, undo=False)
    assert leaves is None


@needs_native
def test_a_mix_with_playouts_is_made_afresh_each_search() -> None:
    """A rollout evaluator draws a new seed each search; so does a mix that holds one."""
    game = pyspiel.load_game("tic_tac_toe")
    assert reusable_twin("auto", "t", make_evaluator("mix:0.5:zero+rollout", game), game) is None
    kept = reusable_twin("auto", "t", make_evaluator("mix:0.5:zero+seeded_rollout", game), game)
    assert kept is not None


@needs_native
def test_the_native_engine_refuses_a_bad_weight() -> None:
    engine = native.engine_module("test_mixed_evaluator")
    zero = engine.constant_evaluator([0.0, 0.0])
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        engine.mixed_evaluator(zero, zero, 1.0, -1.0, 1.0)


@needs_native
@pytest.mark.parametrize(
    ("name", "spec", "depth", "plies"),
    [
        ("connect_four", "mix:0.5:heuristic+seeded_rollout", 4, 8),
        ("clobber", "mix:0.3:zero+seeded_rollout", 3, 6),
    ],
)
def test_searches_agree_across_engines(name: str, spec: str, depth: int, plies: int) -> None:
    """Both evaluators' twins equal Python to the last bit here (a network's only to 1e-6), so
    the whole searches must agree."""
    game = pyspiel.load_game(name)
    for state in random_positions(game, 3, plies=plies, seed=5):
        found = []
        for engine in ("python", "native"):
            result = bounded_ab(
                state,
                evaluator=make_evaluator(spec, game, rollouts=2),
                limits=Limits(depth=depth),
                settings=AlphaBetaSettings(engine=engine),
            )
            assert result.stats.engine == engine
            found.append(search_fingerprint(result))
        assert found[0] == found[1], (name, str(state))


@needs_native
def test_a_bot_with_a_mix_plays_legal_moves_natively(tmp_path: Path) -> None:
    game = pyspiel.load_game("clobber")
    spec = f"mix:0.5:net:{_network(game, tmp_path, 'contacts')}+rollout"
    state = game.new_initial_state()
    bots = [load_bot("bounded_ab", game, seat, evaluator=spec, nodes=2_000) for seat in (0, 1)]
    while not state.is_terminal():
        bot = bots[state.current_player()]
        move = bot.step(state)
        assert move in state.legal_actions()
        assert bot.last_result.stats.engine == "native"
        state.apply_action(move)


def test_reseeding_renews_the_playouts_and_keeps_the_rest() -> None:
    game = pyspiel.load_game("tic_tac_toe")
    mixed = make_evaluator("mix:0.5:heuristic+rollout", game)
    again = reseeded(mixed, game, 7)
    assert isinstance(again, MixedEvaluator) and again is not mixed
    assert again.first is mixed.first and again.second is not mixed.second
    assert again.weight == mixed.weight and again.name == mixed.name
    state = game.new_initial_state()
    assert reseeded(mixed, game, 7).evaluate(state) == again.evaluate(state)
    plain = make_evaluator("mix:0.5:heuristic+seeded_rollout", game)
    assert reseeded(plain, game, 7) is plain


def test_babmcts_reseeds_a_mix_each_move() -> None:
    """A move's search depends on its move seed, not on the playouts of the moves before: two
    bots of one seed that searched different positions first search the next one alike."""
    game = pyspiel.load_game("connect_four")
    params = {"evaluator": "mix:0.5:heuristic+rollout", "seed": 3, "simulations": 200}
    params["engine"] = "python"  # its playouts draw from the stream as many times as they run
    bots = [load_bot("babmcts", game, 0, reuse_tree=False, **params) for _ in range(2)]
    for bot, first in zip(bots, (0, 6), strict=True):
        start = game.new_initial_state()
        start.apply_action(first)
        start.apply_action(3)
        bot.step(start)
    state = game.new_initial_state()
    for move in (3, 3):
        state.apply_action(move)
    results = [bot.step(state) and bot.last_result for bot in bots]
    assert results[0].children == results[1].children
    assert results[0].visits == results[1].visits


@pytest.mark.parametrize(
    "spec",
    [
        "mix:0.3:heuristic+seeded_rollout",
        "mix:0.4:net:{net}+rollout",
        "mix:0.25:zero+net:{net}",
    ],
)
def test_the_leaf_value_is_the_evaluated_value_to_the_last_bit(spec: str, tmp_path: Path) -> None:
    """The Python engine's fast path (`leaf_value`) equals `evaluate`, playouts drawn alike."""
    game = pyspiel.load_game("connect_four")
    spec = spec.format(net=_network(game, tmp_path))
    states = random_positions(game, 30, plies=(0, 30), seed=6)
    for player in range(2):
        fast = make_evaluator(spec, game, seed=9).leaf_value(player)
        slow = make_evaluator(spec, game, seed=9)
        for state in states:
            assert fast(state) == slow.evaluate(state)[player], (spec, str(state))


@needs_native
def test_a_mix_without_a_twin_draws_no_seed_from_its_playouts() -> None:
    game = pyspiel.load_game("tic_tac_toe")

    class Plain:
        name = "plain"

        def evaluate(self, state: pyspiel.State) -> list[float]:
            return [0.0, 0.0]

    playouts = make_evaluator("rollout", game, seed=5)
    engine = native.engine_module("test_mixed_evaluator")
    assert _twin(engine, MixedEvaluator(playouts, Plain(), 0.5, game), game) is None
    assert playouts.draw_seed() == make_evaluator("rollout", game, seed=5).draw_seed()
