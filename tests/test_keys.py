"""Transposition keys: equal keys mean equal states, in every game the searches accept.

The check: two states with equal keys have the same player to move, legal moves (chance
outcomes), terminality and returns, and keep them along the same random continuation to the end
of the game (a move counter or a repetition rule shows up only later). The states come from
seeded random playouts, which meet the same position again at a later move or by another move
order, plus hand-made collisions of the old key `(current_player(), str(state))`.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Hashable, Iterable, Sequence

import pyspiel
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spiel_bounded.games import TWO_PLAYER_ZERO_SUM_CHANCE, game_info, unsupported_reasons
from spiel_bounded.limits import Limits
from spiel_bounded.search import alphabeta, keys
from spiel_bounded.testing import random_positions, search_fingerprint
from tests import alphabeta_reference
from tests.helpers import HashEvaluator

Key = Callable[[pyspiel.State], Hashable]


def old_key(state: pyspiel.State) -> Hashable:
    """The key the searches used before: right for some games only."""
    return (state.current_player(), str(state))


def signature(state: pyspiel.State) -> tuple:
    if state.is_terminal():
        return ("terminal", tuple(state.returns()))
    if state.is_chance_node():
        return ("chance", tuple(state.chance_outcomes()))
    return (state.current_player(), tuple(state.legal_actions()))


def parting(a: pyspiel.State, b: pyspiel.State, seed: int, plies: int) -> str | None:
    """Plays the same random moves in `a` and `b`; describes where they part, or None."""
    rng = random.Random(seed)
    a, b = a.clone(), b.clone()
    for ply in range(plies + 1):
        sig_a, sig_b = signature(a), signature(b)
        if sig_a != sig_b:
            return f"after {ply} common moves: {sig_a} vs {sig_b}"
        if a.is_terminal() or ply == plies:
            return None
        if a.is_chance_node():
            action = rng.choice([outcome for outcome, _ in a.chance_outcomes()])
        else:
            action = rng.choice(a.legal_actions())
        a.apply_action(action)
        b.apply_action(action)
    return None


def playout_states(
    game: pyspiel.Game, playouts: int, seed: int, expand_every: int = 0
) -> Iterable[pyspiel.State]:
    """Every state of `playouts` seeded random games, and, from every `expand_every`-th state
    (none for 0), states a search meets there too: every child (two dice rolls, two rerolls)
    and the ends of two move orders (see `transposed`)."""
    rng = random.Random(seed)
    count = 0
    for _ in range(playouts):
        state = game.new_initial_state()
        while True:
            yield state
            if state.is_terminal():
                break
            count += 1
            if state.is_chance_node():
                outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
            else:
                outcomes, probabilities = tuple(state.legal_actions()), None
            if expand_every and count % expand_every == 0:
                yield from (state.child(action) for action in outcomes)
                for length in (3, 5, 7):
                    yield from transposed(state, rng, length)
            state = state.child(rng.choices(outcomes, probabilities)[0])


def transposed(state: pyspiel.State, rng: random.Random, length: int) -> list[pyspiel.State]:
    """Plays `length` random actions, then the same with the first and last swapped; returns
    both ends when the swapped order is legal too (a transposition, when they are equal)."""
    actions = []
    end = state
    for _ in range(length):
        if end.is_terminal():
            return []
        if end.is_chance_node():
            legal = [outcome for outcome, _ in end.chance_outcomes()]
        else:
            legal = end.legal_actions()
        actions.append(rng.choice(legal))
        end = end.child(actions[-1])
    actions[0], actions[-1] = actions[-1], actions[0]
    other = state
    for action in actions:
        if other.is_terminal():
            return []
        if other.is_chance_node():
            legal = [outcome for outcome, _ in other.chance_outcomes()]
        else:
            legal = other.legal_actions()
        if action not in legal:
            return []
        other = other.child(action)
    return [end, other]


def same_key_pairs(
    states: Iterable[pyspiel.State], key: Key
) -> Iterable[tuple[Hashable, pyspiel.State, pyspiel.State]]:
    """Each state whose key an earlier state with another history had, with that state."""
    seen: dict[Hashable, pyspiel.State] = {}
    for state in states:
        k = key(state)
        other = seen.setdefault(k, state)
        if other is not state and other.history() != state.history():
            yield k, other, state


def first_parting(
    states: Iterable[pyspiel.State],
    key: Key,
    continuations: int = 2,
    plies: int = 1000,
    max_pairs: int | None = None,
) -> str | None:
    """The first pair of states with equal keys whose futures part, described; or None.

    At most `max_pairs` pairs are played on (None: all).
    """
    pairs = same_key_pairs(states, key)
    for k, other, state in pairs if max_pairs is None else itertools.islice(pairs, max_pairs):
        for seed in range(continuations):
            where = parting(other, state, seed, plies)
            if where is not None:
                return f"{other.history()} and {state.history()} share key {k!r}; {where}"
    return None


def play(game: pyspiel.Game, actions: Sequence[int]) -> pyspiel.State:
    state = game.new_initial_state()
    for action in actions:
        state.apply_action(action)
    return state


def chess_moves(moves: str) -> pyspiel.State:
    state = pyspiel.load_game("chess").new_initial_state()
    for move in moves.split():
        state.apply_action(state.parse_move_to_action(move))
    return state


def witnesses() -> dict[str, tuple[pyspiel.State, pyspiel.State, list[int]]]:
    """Hand-made collisions of the old key: two states with the same player and string, and
    moves after which they part."""
    amazons = pyspiel.load_game("amazons(board_size=6)")
    go = pyspiel.load_game("go(board_size=5)")
    knight = chess_moves("b1c3 g8f6 c3b1 f6g8 b1c3")
    after = []
    for move in ["g8h6", "c3e4", "h6g8", "e4c3"]:
        after.append(knight.parse_move_to_action(move))
        knight.apply_action(after[-1])
    return {
        # X moves the queen from 24 (or 29) to 25 and shoots at 5, O answers, then X picks up
        # the other queen: same board, but the moves of different queens are legal.
        "amazons(board_size=6)": (
            play(amazons, [24, 25, 5, 1, 0, 1, 29]),
            play(amazons, [29, 25, 5, 1, 0, 1, 24]),
            [],
        ),
        # Same FEN (counters included); in the second the position after b1c3 has been seen
        # twice, so g8h6 c3e4 h6g8 e4c3 ends the game there by threefold repetition.
        "chess": (
            chess_moves("g1f3 g8f6 f3g1 f6g8 b1c3"),
            chess_moves("b1c3 g8f6 c3b1 f6g8 b1c3"),
            after,
        ),
        # Same board and history length; only in the second was the last move a pass (25),
        # so Black's pass ends the game there.
        "go(board_size=5)": (play(go, [0, 25, 1, 2]), play(go, [0, 2, 1, 25]), [25]),
    }


# Per game: random playouts, and every how many states to add children and transpositions (0:
# never), that make the old key collide on their own.
RANDOM_COLLISIONS = {
    "checkers": (60, 0),
    "quoridor(board_size=5)": (30, 0),
    "oware": (150, 0),
    "pig(horizon=40)": (10, 0),
    "xiangqi": (20, 0),
    "chinese_checkers": (20, 0),
    "banqi": (20, 0),
    "maedn": (5, 0),
    "einstein_wurfelt_nicht": (2, 5),
    "yacht": (2, 5),
    "backgammon(max_player_turns=30)": (20, 0),
}


def pool(game_string: str, playouts: int, expand_every: int, seed: int) -> list[pyspiel.State]:
    game = pyspiel.load_game(game_string)
    witness = witnesses().get(game_string)
    states = playout_states(game, playouts, seed, expand_every)
    return [*(witness[:2] if witness else ()), *states]


@pytest.mark.parametrize("game_string", RANDOM_COLLISIONS)
def test_the_old_key_confuses_different_states(game_string: str) -> None:
    """The check below has teeth: with `(player, str(state))` it finds states that part."""
    states = pool(game_string, *RANDOM_COLLISIONS[game_string], seed=0)
    assert first_parting(states, old_key) is not None


@pytest.mark.parametrize("game_string", witnesses())
def test_witnesses_are_different_states_with_one_old_key(game_string: str) -> None:
    first, second, moves = witnesses()[game_string]
    assert old_key(first) == old_key(second)
    signatures = []
    for state in (first.clone(), second.clone()):
        for move in moves:
            state.apply_action(move)
        signatures.append(signature(state))
    assert signatures[0] != signatures[1]
    key = keys.key_function(pyspiel.load_game(game_string))
    assert key(first) != key(second)


# Per game, as above, for each example: games whose key was changed, then games whose string
# was audited as the whole state.
KEYED_GAMES = {
    "amazons(board_size=6)": (20, 2),
    "checkers": (40, 5),
    "quoridor(board_size=5)": (30, 5),
    "oware": (20, 5),
    "pig(horizon=40)": (10, 5),
    "xiangqi": (2, 10),
    "chess": (2, 5),
    "go(board_size=5)": (4, 5),
    "backgammon(max_player_turns=30)": (3, 5),
    "tic_tac_toe": (50, 5),
    "connect_four": (20, 5),
    "breakthrough(rows=6,columns=5)": (20, 5),
    "clobber(rows=4,columns=4)": (20, 5),
    "dots_and_boxes": (20, 5),
    "mancala": (20, 5),
    "nim": (30, 5),
    "nine_mens_morris": (5, 5),
    "othello": (10, 5),
    "pentago": (5, 5),
    "ultimate_tic_tac_toe": (10, 5),
}


@settings(max_examples=2, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
@pytest.mark.parametrize("game_string", KEYED_GAMES)
def test_equal_keys_mean_equal_states(game_string: str, seed: int) -> None:
    game = pyspiel.load_game(game_string)
    states = pool(game_string, *KEYED_GAMES[game_string], seed)
    key = keys.key_function(game)
    assert first_parting(states, key, continuations=3, max_pairs=40) is None


@pytest.mark.parametrize(
    "game_string",
    [
        name
        for name in KEYED_GAMES
        if name.split("(")[0] not in ("chess", "go", "oware", "ultimate_tic_tac_toe")
    ],
)
def test_the_pools_meet_transpositions(game_string: str) -> None:
    """The check above is not vacuous: its states share keys (the history keys of chess, go and
    oware never do; ultimate_tic_tac_toe's forced boards make transpositions rare)."""
    game = pyspiel.load_game(game_string)
    pairs = same_key_pairs(pool(game_string, *KEYED_GAMES[game_string], 0), keys.key_function(game))
    assert next(iter(pairs), None) is not None


def test_checkers_key_holds_the_no_capture_counter_and_the_last_capture() -> None:
    """The counter is the number of moves since the number of pieces last fell (read from the
    board, not from the action encoding the key uses)."""
    game = pyspiel.load_game("checkers")
    key = keys.key_function(game)
    pieces = None
    since_capture = 0
    for state in playout_states(game, 5, seed=3):
        count = sum(str(state).count(piece) for piece in "o8+*")
        if not state.history() or count < pieces:
            since_capture = 0
        else:
            since_capture += 1
        pieces = count
        history = state.history()
        assert key(state)[2] == min(since_capture, 40)
        assert key(state)[3] == (history[-1] if history and since_capture == 0 else None)


def test_pig_key_counts_decisions_from_any_root() -> None:
    game = pyspiel.load_game("pig")
    states = list(playout_states(game, 3, seed=1))
    fresh = keys.key_function(game)
    for root in states[:: max(1, len(states) // 20)]:
        bound = keys.key_function(game, root)
        below = [s for s in states if s.history()[: len(root.history())] == root.history()]
        assert all(bound(s) == fresh(s) for s in below)
    # Decisions are the actions taken at decision nodes (OpenSpiel's total_moves_).
    for state in states:
        decisions = sum(1 for step in state.full_history() if step.player >= 0)
        assert fresh(state)[2] == decisions


def test_chance_count_key_counts_the_chance_outcomes() -> None:
    """Carried down from a root, or counted afresh, it is the number of chance outcomes."""
    game = pyspiel.load_game("backgammon")
    states = list(playout_states(game, 1, seed=2))
    root = next(s for s in states[40:] if not s.is_chance_node())
    below = [s for s in states if len(s.history()) > len(root.history())]
    top_down = keys.key_function(game, root)
    afresh = keys.key_function(game)
    for state in below[:60]:
        chance = sum(1 for step in state.full_history() if step.player < 0)
        assert top_down(state)[2] == afresh(state)[2] == chance
    assert keys.key_function(game, root)(states[3])[2] == afresh(states[3])[2]  # above the root


def accepted_games() -> list[str]:
    """Every registered game (default parameters) that the alpha-beta searches accept."""
    kinds = pyspiel.GameType
    names = []
    for game_type in pyspiel.registered_games():
        if (
            game_type.dynamics != kinds.Dynamics.SEQUENTIAL
            or game_type.information != kinds.Information.PERFECT_INFORMATION
            or game_type.utility != kinds.Utility.ZERO_SUM
            or not game_type.min_num_players <= 2 <= game_type.max_num_players
            or "game" in game_type.parameter_specification  # a wrapper of another game
        ):
            continue
        game = pyspiel.load_game(game_type.short_name)
        if not unsupported_reasons(game_info(game), TWO_PLAYER_ZERO_SUM_CHANCE):
            names.append(game_type.short_name)
    return names


def test_every_game_the_searches_accept_has_an_audited_key() -> None:
    """A game added to OpenSpiel gets the history (safe) until someone audits its string."""
    accepted = accepted_games()
    assert "chess" in accepted and "backgammon" in accepted
    assert sorted(set(accepted) - set(keys.KEY_RULES)) == []
    assert keys.key_rule(pyspiel.load_game("kuhn_poker")).kind == "history"


def test_changed_keys() -> None:
    """The games whose key is not `(player, str(state))`, and what their strings omit."""
    changed = {name for name, rule in keys.KEY_RULES.items() if rule.kind != "string"}
    assert changed == {
        "amazons",
        "antichess",
        "backgammon",
        "banqi",
        "checkers",
        "chess",
        "chinese_checkers",
        "crazyhouse",
        "cursor_go",
        "einstein_wurfelt_nicht",
        "go",
        "lines_of_action",
        "maedn",
        "oware",
        "pig",
        "quoridor",
        "shogi",
        "xiangqi",
        "yacht",
    }
    assert all(keys.KEY_RULES[name].omits for name in changed)


@pytest.mark.parametrize(
    ("game_string", "search", "depth"),
    [("pig", "bounded_star1", 3), ("checkers", "bounded_ab", 3), ("tic_tac_toe", "bounded_ab", 5)],
)
def test_the_engine_keys_its_table_by_the_games_key_rule(
    game_string: str, search: str, depth: int
) -> None:
    """The engine writes the key `(player, str(state))` out on its hot path, which is right only
    where it is the game's key (tic_tac_toe; not pig or checkers, whose strings omit counters):
    it searches exactly as the readable oracle, which always calls `key_function`."""
    game = pyspiel.load_game(game_string)
    assert (keys.key_rule(game).kind == "string") is (game_string == "tic_tac_toe")
    for state in random_positions(game, 3, plies=(2, 10), seed=5):
        arguments = {"evaluator": HashEvaluator(game), "limits": Limits(depth=depth)}
        engine = search_fingerprint(getattr(alphabeta, search)(state, **arguments))
        oracle = search_fingerprint(alphabeta_reference.search(search, state, **arguments))
        assert engine == oracle


def test_the_written_out_string_key_is_string_key() -> None:
    """`(player, str(state))`, and `(CHANCE, str(state))` at chance nodes, is `string_key`."""
    chance = int(pyspiel.PlayerId.CHANCE)
    for state in playout_states(pyspiel.load_game("backgammon"), 1, seed=0):
        if state.is_chance_node():
            assert (chance, str(state)) == keys.string_key(state)
        elif not state.is_terminal():
            assert (state.current_player(), str(state)) == keys.string_key(state)


def test_unknown_key_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown key kind 'board'"):
        keys.KeyRule(kind="board")
