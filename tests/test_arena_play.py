"""One game: the arena's own loop, its records, replay from a record, and errors as records."""

from __future__ import annotations

import math

import pyspiel
import pytest

from spiel_bounded.arena import Match, make_schedule, parse_config, play_match
from tests.arena_bots import EXTRA_BOTS

CHANCE_TREE = "bounded_random_tree(branching=2,depth=4,seed=3,chance=1.0)"


def matches(game: str, first: str, second: str, *, opening: int = 0, count: int = 2) -> tuple:
    text = (
        f'[tournament]\ngames = ["{game}"]\ngames_per_pairing = {count}\n'
        f"opening_moves = {opening}\n"
        f'[[bots]]\nlabel = "one"\n{first}\n[[bots]]\nlabel = "two"\n{second}\n'
    )
    config = parse_config(text, extra_bots=EXTRA_BOTS)
    return make_schedule(config.tournament, EXTRA_BOTS)


def replay(match: Match, actions: tuple[int, ...]) -> list[float]:
    state = pyspiel.load_game(match.game).new_initial_state()
    for action in actions:
        assert action in (
            [outcome for outcome, _ in state.chance_outcomes()]
            if state.is_chance_node()
            else state.legal_actions()
        )
        state.apply_action(action)
    assert state.is_terminal()
    return state.returns()


def test_a_game_is_recorded_completely_and_replays_from_its_record() -> None:
    first, second = matches(
        "tic_tac_toe", 'bot = "bounded_ab"\nparams = { depth = 9 }', 'bot = "random"'
    )
    for match in (first, second):
        record = play_match(match)
        assert record.ok, record.error
        assert record.seats == match.labels and record.seed == match.seed
        assert record.bots == tuple(seat.bot for seat in match.seats)
        assert record.params_hashes == tuple(seat.params_hash for seat in match.seats)
        assert list(record.returns) == replay(match, record.actions)
        assert record.moves == len(record.actions) == sum(record.seat_moves)
        ab = match.labels.index("one")
        assert record.returns[ab] >= 0  # a perfect player never loses tic_tac_toe
        assert record.nodes_per_move[ab] is not None and record.nodes_per_move[ab] > 0
        assert record.nodes_per_move[1 - ab] is None  # the stock random bot counts no nodes
        assert all(value >= 0 for value in record.seconds_per_move)
        assert all(
            high >= mean
            for high, mean in zip(record.max_seconds, record.seconds_per_move, strict=True)
        )
        assert record.duration > 0


def test_chance_outcomes_come_from_the_game_seed() -> None:
    match = matches(CHANCE_TREE, 'bot = "random"', 'bot = "random"')[0]
    record = play_match(match)
    assert record.ok, record.error
    assert record.moves == 4 and len(record.actions) == 8  # a chance node before every ply
    assert list(record.returns) == replay(match, record.actions)
    assert play_match(match).actions == record.actions


def test_random_opening_is_played_by_the_arena_and_shared_by_both_seatings() -> None:
    first, second = matches("tic_tac_toe", 'bot = "test_random"', 'bot = "test_random"', opening=3)
    one, two = play_match(first), play_match(second)
    assert one.actions[:3] == two.actions[:3]
    assert sum(one.seat_moves) == one.moves - 3


@pytest.mark.parametrize(
    ("bot", "expected"),
    [
        ("test_raising", "RuntimeError: deliberate failure in the raising bot"),
        ("test_illegal", "IllegalActionError: two (seat"),
        ("test_failing_factory", "ValueError: deliberate failure while building the bot"),
    ],
)
def test_a_bot_that_raises_gives_an_error_record(bot: str, expected: str) -> None:
    for match in matches("tic_tac_toe", 'bot = "random"', f'bot = "{bot}"'):
        record = play_match(match)
        assert not record.ok
        assert expected in record.error
        assert "Traceback" in record.error
        assert record.error_seat == match.labels.index("two")
        assert record.returns == ()
        assert math.isnan(record.seconds_per_move[record.error_seat]) or bot == "test_illegal"


def test_a_move_with_no_new_node_counts_zero_and_uncounted_nodes_stay_absent() -> None:
    # BABMCTS proves tic_tac_toe (17,000 simulations from the start) and then plays
    # from its kept tree, creating no node on some moves: a real count of 0, not "not counted".
    (match, _) = matches(
        "tic_tac_toe",
        'bot = "babmcts"\nparams = { simulations = 100000 }',
        'bot = "openspiel_ab"\nparams = { depth = 9 }',
    )
    record = play_match(match)
    assert record.ok, record.error
    bab = match.labels.index("one")
    assert record.nodes_per_move[bab] is not None
    assert record.nodes_per_move[1 - bab] is None  # alpha_beta_search counts no nodes
