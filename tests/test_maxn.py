"""The n-player searches: max^n equals its brute-force oracle and its prunings change no value
or move, only work; paranoid keeps its bound guarantee around the brute-force paranoid value."""

from __future__ import annotations

import zlib
from collections.abc import Sequence

import numpy as np
import pyspiel
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from spiel_bounded import load_bot, make_evaluator, oracles
from spiel_bounded.games import game_info
from spiel_bounded.limits import Limits
from spiel_bounded.registry import bots_for
from spiel_bounded.result import SearchResult
from spiel_bounded.search import brs
from spiel_bounded.search.alphabeta import AlphaBetaSettings, bounded_ab, paranoid
from spiel_bounded.search.brs import brs_plus
from spiel_bounded.search.maxn import (
    MaxnSettings,
    MaxnStats,
    directed_offensive,
    maxn,
    pruning_bounds,
)
from spiel_bounded.synthetic import make_game
from spiel_bounded.testing import random_positions

_FAST = settings(max_examples=30, deadline=None)


class CyclicEvaluator:
    """Deterministic leaf vectors of a zero-sum game: v_i = c (x_i - mean x), x_i hashed from
    the state on a few levels (ties are frequent), c inside the game's range."""

    name = "zero-sum hash"

    def __init__(self, game: pyspiel.Game, levels: int = 5) -> None:
        self._players = game.num_players()
        utility = game.get_type().utility
        constant_sum = utility != pyspiel.GameType.Utility.GENERAL_SUM
        # maedn: -1, tighter than declared
        lowest = pruning_bounds(game_info(game), game).lower if constant_sum else game.min_utility()
        self._scale = 0.999 * min(game.max_utility(), -lowest)
        self._levels = levels

    def evaluate(self, state: pyspiel.State) -> Sequence[float]:
        text = str(state).encode()
        x = [
            zlib.crc32(text + bytes([i])) % self._levels / (self._levels - 1)
            for i in range(self._players)
        ]
        mean = sum(x) / self._players
        values = [self._scale * (value - mean) for value in x]
        values[-1] = -sum(values[:-1])
        return values


def _oracle(state: pyspiel.State, depth: int, evaluate) -> tuple[int, np.ndarray]:
    """The first root move (legal order) with the best max^n value for the mover, by brute force."""
    player = state.current_player()
    best: tuple[int, np.ndarray] | None = None
    for action in state.legal_actions():
        vector = oracles.solve_depth_limited(state.child(action), depth - 1, evaluate)
        if best is None or vector[player] > best[1][player]:
            best = (action, vector)
    assert best is not None
    return best


def _tree(seed: int, players: int, chance: float, integer: bool) -> pyspiel.Game:
    return make_game(
        branching=3,
        depth=5,
        players=players,
        chance=chance,
        chance_outcomes=2,
        integer_values=int(integer),
        seed=seed,
    )


_FAST_MANY = settings(max_examples=150, deadline=None)


def _first_decision(game: pyspiel.Game) -> pyspiel.State:
    """The first decision node from the start (the first outcome at every chance node)."""
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    return state


PRUNED_MODES = ("shallow", "last_branch", "speculative")


def _search_all_modes(
    state: pyspiel.State, evaluator, depth: int, ordering: str
) -> tuple[SearchResult, dict[str, SearchResult]]:
    plain, *pruned = (
        maxn(
            state,
            evaluator=evaluator,
            limits=Limits(depth=depth),
            settings=MaxnSettings(pruning=mode, ordering=ordering),
        )
        for mode in ("none", *PRUNED_MODES)
    )
    return plain, dict(zip(PRUNED_MODES, pruned, strict=True))


def _check_pruning_changes_nothing(plain: SearchResult, pruned: dict[str, SearchResult]) -> None:
    """Same move and root vector; no more first-pass nodes; pruned root moves bounded."""
    for mode, result in pruned.items():
        assert (result.action, result.values) == (plain.action, plain.values), mode
        first_pass = result.stats.nodes - result.stats.research_nodes
        assert first_pass <= plain.stats.nodes, mode
        for move, exact in plain.children.items():
            bounds = result.children[move]
            assert bounds.lower - 1e-12 <= exact.lower <= bounds.upper + 1e-12, (mode, move)
        if mode != "speculative":
            assert result.stats.researches == result.stats.research_nodes == 0


@_FAST_MANY
@given(
    seed=st.integers(0, 10_000),
    players=st.integers(2, 4),
    chance=st.sampled_from([0.0, 0.5]),
    integer=st.booleans(),
    depth=st.integers(1, 5),
)
def test_maxn_equals_the_oracle_and_pruning_changes_nothing(
    seed: int, players: int, chance: float, integer: bool, depth: int
) -> None:
    game = _tree(seed, players, chance, integer)
    state = _first_decision(game)
    evaluator = CyclicEvaluator(game)
    plain, pruned = _search_all_modes(state, evaluator, depth, ordering="none")
    action, vector = _oracle(state, depth, evaluator.evaluate)
    assert plain.action == action
    np.testing.assert_allclose(plain.values, vector, atol=1e-12)
    _check_pruning_changes_nothing(plain, pruned)
    _check_pruning_changes_nothing(*_search_all_modes(state, evaluator, depth, "evaluator"))


@settings(max_examples=50, deadline=None)
@given(
    seed=st.integers(0, 100_000),
    branching=st.integers(2, 4),
    depth=st.integers(4, 7),
    levels=st.integers(2, 6),
)
def test_speculative_pruning_on_three_player_trees(
    seed: int, branching: int, depth: int, levels: int
) -> None:
    """Deeper 3-player trees (up to 4,096 leaves: 3^7, 4^6), few distinct leaf values (many
    ties), both orderings."""
    assume(branching**depth <= 4096)
    game = make_game(branching=branching, depth=depth, players=3, seed=seed)
    state = game.new_initial_state()
    evaluator = CyclicEvaluator(game, levels=levels)
    for ordering in ("none", "evaluator"):
        _check_pruning_changes_nothing(*_search_all_modes(state, evaluator, depth, ordering))


@pytest.mark.parametrize(
    ("game_string", "depth"),
    [
        ("chinese_checkers(players=3)", 3),
        ("chinese_checkers(players=4)", 3),
        ("pig(players=3)", 4),
        ("maedn(players=3)", 3),
    ],
)
def test_pruning_on_catalogue_games(game_string: str, depth: int) -> None:
    game = pyspiel.load_game(game_string)
    evaluator = CyclicEvaluator(game)
    saved = 0
    for state in random_positions(game, 4, plies=(0, 20), seed=3):
        for ordering in ("none", "evaluator"):
            plain, pruned = _search_all_modes(state, evaluator, depth, ordering)
            _check_pruning_changes_nothing(plain, pruned)
            saved += plain.stats.nodes - pruned["speculative"].stats.nodes
    if game_string == "chinese_checkers(players=3)":
        # The cut really happens there; with 4 players the bound (each player >= -1, sum 0)
        # is too loose for these leaf values ever to cut.
        assert saved > 0


def test_two_players_maxn_is_minimax() -> None:
    game = pyspiel.load_game("tic_tac_toe")
    state = game.new_initial_state()
    state.apply_action(4)
    ab = load_bot("bounded_ab", game, 1, depth=9).step(state)
    plain = maxn(state, evaluator=CyclicEvaluator(game), settings=MaxnSettings(pruning="none"))
    assert plain.bounds_game_value and plain.values == (0.0, 0.0)
    assert ab in [a for a, bounds in plain.children.items() if bounds.lower == 0.0]
    pruned = maxn(state, evaluator=CyclicEvaluator(game))
    assert pruned.values == plain.values and pruned.stats.nodes < plain.stats.nodes
    for action, bounds in plain.children.items():
        assert pruned.children[action].lower <= bounds.lower <= pruned.children[action].upper


def test_bad_input_is_refused() -> None:
    general = make_game(branching=2, depth=3, players=3, zero_sum=0, min_value=0, max_value=1)
    state = general.new_initial_state()
    with pytest.raises(ValueError, match="not constant-sum; use pruning='none'"):
        maxn(state, evaluator=CyclicEvaluator(general), settings=MaxnSettings(pruning="shallow"))
    with pytest.raises(ValueError, match="not constant-sum"):
        load_bot("maxn", general, 0, pruning="last_branch")
    with pytest.raises(
        ValueError, match=r"pruning' of bot 'maxn'.*one of auto, none, shallow, last_branch, spec"
    ):
        load_bot("maxn", "chinese_checkers(players=3)", 0, pruning="deep")
    with pytest.raises(ValueError, match="quoridor with more than 2 players is broken"):
        load_bot("maxn", "quoridor(players=3)", 0)

    class Breaking:
        name = "breaking"

        def evaluate(self, state: pyspiel.State) -> Sequence[float]:
            return [0.5, 0.5, 0.5]

    game = pyspiel.load_game("chinese_checkers(players=3)")
    with pytest.raises(ValueError, match=r"exceeds the game's constant sum 0\.0"):
        maxn(game.new_initial_state(), evaluator=Breaking(), limits=Limits(depth=2))

    class BelowMinimum:
        name = "below"

        def evaluate(self, state: pyspiel.State) -> Sequence[float]:
            return [-2.0, 1.0, 1.0]  # inside maedn's declared [-3, 3], below its true -1

    maedn = _first_decision(pyspiel.load_game("maedn(players=3)"))
    with pytest.raises(ValueError, match=r"below the lower bound -1\.0 of every player"):
        maxn(maedn, evaluator=BelowMinimum(), limits=Limits(depth=2))
    plain = maxn(
        maedn,
        evaluator=BelowMinimum(),
        limits=Limits(depth=2),
        settings=MaxnSettings(pruning="none"),
    )
    assert plain.stats.evaluations > 0  # without pruning no bound is needed
    with pytest.raises(ValueError, match=r"ordering' of bot 'maxn'.*one of none, evaluator"):
        load_bot("maxn", "chinese_checkers(players=3)", 0, ordering="best")
    with pytest.raises(ValueError, match=r"3 players \(supported: 2\)"):
        load_bot("bounded_ab", "chinese_checkers(players=3)", 0)


@pytest.mark.parametrize(
    ("seed", "branching", "depth", "integer"),
    [(622, 3, 6, 0), (684, 3, 6, 0), (4, 3, 6, 0), (29, 3, 6, 1), (30, 2, 7, 0)],
)
def test_last_branch_conditions_matter(seed: int, branching: int, depth: int, integer: int) -> None:
    """Trees found by a sweep where last-branch pruning goes wrong without one of its two
    conditions: 622 and 684 need 'only on the parent's last child', 4, 29 and 30 need 'the
    parent's best so far gives the grandparent no more than its bound'."""
    game = make_game(branching=branching, depth=depth, players=3, seed=seed, integer_values=integer)
    state = game.new_initial_state()
    evaluator = CyclicEvaluator(game, levels=3)
    plain, pruned = (
        maxn(
            state,
            evaluator=evaluator,
            limits=Limits(depth=depth),
            settings=MaxnSettings(pruning=mode, ordering="none"),
        )
        for mode in ("none", "last_branch")
    )
    assert (pruned.action, pruned.values) == (plain.action, plain.values)
    assert pruned.stats.nodes < plain.stats.nodes


# -- paranoid ----------------------------------------------------------------------------------


@_FAST
@given(
    seed=st.integers(0, 10_000),
    players=st.integers(2, 4),
    chance=st.sampled_from([0.0, 0.5]),
    depth=st.integers(1, 5),
    epsilon=st.sampled_from([0.0, 0.1, 0.5]),
    probing=st.booleans(),
)
def test_paranoid_is_bounded_around_the_brute_force_paranoid_value(
    seed: int, players: int, chance: float, depth: int, epsilon: float, probing: bool
) -> None:
    game = _tree(seed, players, chance, integer=False)
    state = _first_decision(game)
    evaluator = CyclicEvaluator(game)
    result = paranoid(
        state,
        evaluator=evaluator,
        limits=Limits(depth=depth),
        settings=AlphaBetaSettings(epsilon=epsilon),
        probing=probing,
    )
    exact = oracles.solve_paranoid(state, state.current_player(), depth, evaluator.evaluate)
    assert result.lower - 1e-9 <= exact <= result.upper + 1e-9
    assert result.upper - result.lower <= epsilon + 1e-9
    if result.stats.stopped_by == "solved":  # no leaf evaluated: a proof about the model
        assert result.bounds_on.kind == ("game" if players == 2 else "model")
    else:
        assert result.bounds_on.kind == "depth_limited"


def test_paranoid_on_two_players_is_bounded_ab() -> None:
    game = pyspiel.load_game("connect_four")
    state = game.new_initial_state()
    for action in (3, 3, 2, 4):
        state.apply_action(action)
    limits, settings = Limits(depth=5), AlphaBetaSettings()
    evaluator = CyclicEvaluator(game)
    ours = paranoid(state, evaluator=evaluator, limits=limits, settings=settings)
    ab = bounded_ab(state, evaluator=evaluator, limits=limits, settings=settings)
    assert (ours.lower, ours.upper, ours.action) == (ab.lower, ab.upper, ab.action)
    assert ours.stats.nodes == ab.stats.nodes


def test_paranoid_bot_plays_three_player_games() -> None:
    game = pyspiel.load_game("chinese_checkers(players=3)")
    state = game.new_initial_state()
    bot = load_bot("paranoid", game, 0, depth=2, evaluator="zero")
    assert bot.step(state) in state.legal_actions()


# -- directed offensive ------------------------------------------------------------------------


@_FAST
@given(
    seed=st.integers(0, 10_000),
    players=st.integers(3, 4),
    chance=st.sampled_from([0.0, 0.5]),
    depth=st.integers(1, 5),
    target_offset=st.integers(1, 3),
)
def test_directed_offensive_equals_its_oracle(
    seed: int, players: int, chance: float, depth: int, target_offset: int
) -> None:
    game = _tree(seed, players, chance, integer=True)
    state = _first_decision(game)
    mover = state.current_player()
    target = (mover + target_offset) % players
    if target == mover:
        target = (mover + 1) % players
    evaluator = CyclicEvaluator(game)
    result = directed_offensive(
        state, evaluator=evaluator, limits=Limits(depth=depth), target=target
    )
    best: tuple[int, np.ndarray] | None = None
    for action in state.legal_actions():
        vector = oracles.solve_offensive(
            state.child(action), mover, target, depth - 1, evaluator.evaluate
        )
        if best is None or vector[target] < best[1][target]:
            best = (action, vector)
    assert best is not None
    assert result.action == best[0]
    np.testing.assert_allclose(result.values, best[1], atol=1e-12)


def test_directed_offensive_attacks_the_leader_by_default_and_checks_its_target() -> None:
    game = pyspiel.load_game("chinese_checkers(players=3)")
    state = game.new_initial_state()
    evaluator = CyclicEvaluator(game)
    values = evaluator.evaluate(state)
    leader = max((1, 2), key=lambda p: (values[p], -p))
    default = directed_offensive(state, evaluator=evaluator, limits=Limits(depth=2))
    explicit = directed_offensive(state, evaluator=evaluator, limits=Limits(depth=2), target=leader)
    assert (default.action, default.values) == (explicit.action, explicit.values)
    for target, message in ((0, "another player"), (3, "a player 0..2"), (True, "a player")):
        with pytest.raises(ValueError, match=message):
            directed_offensive(state, evaluator=evaluator, limits=Limits(depth=1), target=target)


# -- MP-Mix and directed offensive bots (the search: test_mpmix.py) ----------------------------


def test_mp_mix_and_offensive_bots_play_and_refuse_bad_input() -> None:
    game = pyspiel.load_game("chinese_checkers(players=3)")
    state = game.new_initial_state()
    thresholds = {"offensive_threshold": 0.0, "defensive_threshold": 0.0}
    bot = load_bot("mp_mix", game, 0, depth=2, evaluator="rollout", **thresholds)
    assert bot.step(state) in state.legal_actions()
    assert bot.last_result.choice is not None and bot.last_result.choice.strategy in (
        "offensive",
        "paranoid",
    )
    assert load_bot("offensive", game, 0, depth=1, target=2).step(state) in state.legal_actions()
    with pytest.raises(ValueError, match="target 0 is not another player"):
        load_bot("offensive", game, 0, target=0)
    with pytest.raises(ValueError, match="offensive_threshold' of bot 'mp_mix'"):
        load_bot("mp_mix", game, 0, offensive_threshold=-1)
    with pytest.raises(ValueError, match=r"it has 2 players \(supported: 3..n\)"):
        load_bot("mp_mix", "tic_tac_toe", 0)


# -- BRS+ --------------------------------------------------------------------------------------


@_FAST
@given(
    seed=st.integers(0, 10_000),
    players=st.integers(2, 4),
    chance=st.sampled_from([0.0, 0.5]),
    depth=st.integers(1, 5),
)
def test_brs_plus_equals_its_brute_force(
    seed: int, players: int, chance: float, depth: int
) -> None:
    game = _tree(seed, players, chance, integer=True)
    state = _first_decision(game)
    evaluator = CyclicEvaluator(game)
    result = brs_plus(state, evaluator=evaluator, limits=Limits(depth=depth))
    root = state.current_player()
    values = {
        action: oracles.solve_brs_plus(state.child(action), root, depth - 1, evaluator.evaluate)
        for action in state.legal_actions()
    }
    best = max(values.values())
    assert result.lower == pytest.approx(best, abs=1e-12)
    assert result.action == next(a for a, v in values.items() if v == best)


def test_brs_plus_bot_plays_three_player_games() -> None:
    game = pyspiel.load_game("chinese_checkers(players=3)")
    state = game.new_initial_state()
    bot = load_bot("brs_plus", game, 0, depth=2, evaluator="zero")
    assert bot.step(state) in state.legal_actions()
    assert bot.last_result.bounds_on.kind == "depth_limited"
    assert bot.last_result.bounds_on.model == "best-reply"


def test_brs_plus_depth_is_bounded_where_players_move_again_through_chance() -> None:
    """In pig a player may roll again and again through chance nodes: if preferred moves were
    free, depth 2 would never end (it ran past 200,000 nodes before the fix)."""
    game = pyspiel.load_game("pig(players=3)")
    state = game.new_initial_state()
    result = brs_plus(state, evaluator=CyclicEvaluator(game), limits=Limits(depth=3, nodes=200_000))
    assert (result.stats.stopped_by, result.stats.depth) == ("depth", 3)


def test_brs_plus_counts_the_children_of_preferred_moves() -> None:
    """Choosing an opponent's preferred move makes and evaluates every child: those states
    count as nodes, so a node budget bounds the evaluator calls (before, 200 nodes made
    thousands of them, and BRS+ reported a sixth of max^n's nodes per second)."""
    game = pyspiel.load_game("chinese_checkers(players=3)")
    state = game.new_initial_state()
    evaluator = make_evaluator("heuristic", game)
    result = brs_plus(state, evaluator=evaluator, limits=Limits(nodes=200))
    assert result.stats.stopped_by == "nodes"
    assert 0 < result.stats.evaluations <= result.stats.nodes <= 200


def test_brs_plus_chooses_each_preferred_move_once_per_search(monkeypatch) -> None:
    """Iterative deepening searches the shallower tree again: each state's preferred move is
    chosen once and remembered, and the values stay those of the brute force (test above)."""
    chosen: list[tuple[int, ...]] = []
    choose = brs.BRSSearch.choose_preferred

    def recording(self, state):
        chosen.append(tuple(state.history()))
        return choose(self, state)

    monkeypatch.setattr(brs.BRSSearch, "choose_preferred", recording)
    game = make_game(branching=3, depth=6, players=3, seed=7)
    state = game.new_initial_state()
    result = brs_plus(state, evaluator=CyclicEvaluator(game), limits=Limits(depth=5))
    assert result.stats.depth == 5
    assert chosen and len(chosen) == len(set(chosen))
    # Without the memo (every call chooses again) the same search chooses more often.
    with_memo = len(chosen)
    chosen.clear()
    monkeypatch.setattr(brs.BRSSearch, "preferred", recording)
    brs_plus(state, evaluator=CyclicEvaluator(game), limits=Limits(depth=5))
    assert len(chosen) > with_memo


@pytest.mark.parametrize("search", [maxn, brs_plus, directed_offensive])
def test_n_player_searches_need_a_decision_state(search) -> None:
    game = make_game(branching=2, depth=2, players=3, chance=1.0, seed=1)
    chance_root = game.new_initial_state()
    name = {maxn: "maxn", brs_plus: "brs_plus", directed_offensive: "directed_offensive"}[search]
    kwargs = {"target": 1} if search is directed_offensive else {}
    with pytest.raises(ValueError, match=f"{name} needs a decision state of bounded_random_tree"):
        search(chance_root, evaluator=CyclicEvaluator(game), **kwargs)


@pytest.mark.parametrize(("seed", "branching", "depth"), [(21, 4, 5), (41, 3, 6), (50, 3, 6)])
def test_speculative_re_search_is_needed(seed: int, branching: int, depth: int) -> None:
    """Trees found by a sweep where speculative pruning without its re-search returns a wrong
    vector: the re-search happens there and restores the unpruned result."""
    game = make_game(branching=branching, depth=depth, players=3, seed=seed)
    state = game.new_initial_state()
    evaluator = CyclicEvaluator(game, levels=3)
    plain, pruned = _search_all_modes(state, evaluator, depth, ordering="none")
    _check_pruning_changes_nothing(plain, pruned)
    speculative = pruned["speculative"].stats
    assert speculative.researches > 0 and speculative.research_nodes > 0


def test_speculative_prunes_more_than_last_branch() -> None:
    expansions = {mode: 0 for mode in PRUNED_MODES}
    for seed in range(3):  # each of the first 10 seeds alone orders the three so
        game = make_game(branching=4, depth=6, players=3, seed=seed)
        _, pruned = _search_all_modes(
            game.new_initial_state(), CyclicEvaluator(game), 6, "evaluator"
        )
        for mode, result in pruned.items():
            expansions[mode] += result.stats.nodes
    assert expansions["speculative"] < expansions["last_branch"] < expansions["shallow"]


def test_every_bot_offered_for_a_general_sum_game_loads_with_its_defaults() -> None:
    game = pyspiel.load_game("bounded_random_tree(players=3,zero_sum=0)")
    state = game.new_initial_state()
    offered = list(bots_for(game))
    assert "maxn" in offered
    for name in offered:
        bot = load_bot(name, game, 0)  # the defaults
        assert bot.step(state) in state.legal_actions(), name
    bot = load_bot("maxn", game, 0, depth=2)
    bot.step(state)
    stats = bot.last_result.stats
    assert isinstance(stats, MaxnStats) and stats.pruning == "none"  # "auto": none is sound
    with pytest.raises(ValueError, match="not constant-sum; use pruning='none'"):
        load_bot("maxn", game, 0, pruning="speculative")


def test_auto_pruning_is_speculative_on_constant_sum_games() -> None:
    game = pyspiel.load_game("chinese_checkers(players=3)")
    state = game.new_initial_state()
    auto = maxn(state, evaluator=make_evaluator("heuristic", game), limits=Limits(depth=2))
    speculative = maxn(
        state,
        evaluator=make_evaluator("heuristic", game),
        limits=Limits(depth=2),
        settings=MaxnSettings(pruning="speculative"),
    )
    assert isinstance(auto.stats, MaxnStats) and auto.stats.pruning == "speculative"
    assert (auto.action, auto.values, auto.stats.nodes) == (
        speculative.action,
        speculative.values,
        speculative.stats.nodes,
    )
