"""The schedule: every table, every seat equally often, stable seeds shared by paired seatings."""

from __future__ import annotations

from collections import Counter

from spiel_bounded import registry
from spiel_bounded.arena import make_schedule, parse_config
from spiel_bounded.arena.records import GameRecord
from spiel_bounded.arena.schedule import (
    REMOVED_PARAMETERS,
    changed_parameters,
    mismatch,
    params_hash,
    seatings,
)

TREE3 = "bounded_random_tree(branching=2,depth=3,seed=1,players=3)"


def bots(*labels: str) -> str:
    return "".join(f'[[bots]]\nlabel = "{label}"\nbot = "random"\n' for label in labels)


def schedule(tournament: str, labels: tuple[str, ...] = ("a", "b", "c", "d")) -> tuple:
    config = parse_config(f"[tournament]\n{tournament}\n{bots(*labels)}")
    return make_schedule(config.tournament)


def seat_counts(matches: tuple) -> dict[tuple[str, tuple[str, ...]], Counter]:
    counts: dict[tuple[str, tuple[str, ...]], Counter] = {}
    for match in matches:
        table = counts.setdefault((match.game, match.table), Counter())
        table.update((label, seat) for seat, label in enumerate(match.labels))
    return counts


def test_all_pairs_each_bot_takes_each_seat_equally_often() -> None:
    matches = schedule('games = ["tic_tac_toe", "connect_four"]\ngames_per_pairing = 6')
    assert len(matches) == 2 * 6 * 6  # two games, C(4, 2) tables, 6 games each
    counts = seat_counts(matches)
    assert len(counts) == 12
    for (_, table), counter in counts.items():
        assert counter == {(label, seat): 3 for label in table for seat in range(2)}
    assert len({match.game_id for match in matches}) == len(matches)


def test_schedule_is_round_by_round_and_seatings_share_the_seed() -> None:
    matches = schedule('games = ["tic_tac_toe"]\ngames_per_pairing = 4')
    rounds = [match.round for match in matches]
    assert rounds == sorted(rounds)  # a partial run covers every table evenly
    by_round: dict[tuple, set[int]] = {}
    for match in matches:
        by_round.setdefault((match.table, match.round), set()).add(match.seed)
    assert all(len(seeds) == 1 for seeds in by_round.values())
    assert len({next(iter(seeds)) for seeds in by_round.values()}) == len(by_round)


def test_seeds_are_deterministic_and_belong_to_the_game_not_its_position() -> None:
    first = schedule('games = ["tic_tac_toe"]\ngames_per_pairing = 4\nseed = 5')
    again = schedule('games = ["tic_tac_toe"]\ngames_per_pairing = 4\nseed = 5')
    assert first == again
    more = schedule(
        'games = ["tic_tac_toe"]\ngames_per_pairing = 4\nseed = 5', ("a", "b", "c", "d", "e")
    )
    seeds = {match.game_id: match.seed for match in more}
    assert all(seeds[match.game_id] == match.seed for match in first)
    other = schedule('games = ["tic_tac_toe"]\ngames_per_pairing = 4\nseed = 6')
    assert [match.seed for match in other] != [match.seed for match in first]


def test_focus_pairs_focus_bots_with_everyone() -> None:
    matches = schedule(
        'games = ["tic_tac_toe"]\ngames_per_pairing = 2\npairing = "focus"\nfocus = ["a", "b"]'
    )
    tables = {match.table for match in matches}
    assert tables == {("a", "b"), ("a", "c"), ("a", "d"), ("b", "c"), ("b", "d")}


def test_three_players_rotate_or_permute_fairly() -> None:
    rotated = schedule(f'games = ["{TREE3}"]\ngames_per_pairing = 3')
    assert {match.table for match in rotated} == {
        ("a", "b", "c"),
        ("a", "b", "d"),
        ("a", "c", "d"),
        ("b", "c", "d"),
    }
    for (_, table), counter in seat_counts(rotated).items():
        assert counter == {(label, seat): 1 for label in table for seat in range(3)}
    permuted = schedule(f'games = ["{TREE3}"]\ngames_per_pairing = 6\nseating = "permute"')
    orders = Counter(match.labels for match in permuted if match.table == ("a", "b", "c"))
    assert len(orders) == 6 and set(orders.values()) == {1}


def test_baseline_tables_hold_copies_of_the_baseline() -> None:
    matches = schedule(
        f'games = ["{TREE3}"]\ngames_per_pairing = 6\npairing = "baseline"\nbaseline = "d"'
    )
    assert {match.table for match in matches} == {("a", "d", "d"), ("b", "d", "d"), ("c", "d", "d")}
    for (_, table), counter in seat_counts(matches).items():
        assert {seat: counter[table[0], seat] for seat in range(3)} == {0: 2, 1: 2, 2: 2}


def test_seatings() -> None:
    assert seatings(2, ("x", "y"), "rotate") == [("x", "y"), ("y", "x")]
    assert seatings(3, ("x", "y", "y"), "permute") == [
        ("x", "y", "y"),
        ("y", "x", "y"),
        ("y", "y", "x"),
    ]


def test_bots_carry_their_parameters_and_hash() -> None:
    config = parse_config(
        '[tournament]\ngames = ["tic_tac_toe"]\ngames_per_pairing = 2\nseconds_per_move = 0.5\n'
        '[[bots]]\nlabel = "x"\nbot = "bounded_ab"\nparams = { epsilon = 0.1 }\n'
        '[[bots]]\nlabel = "y"\nbot = "bounded_ab"\nparams = { epsilon = 0.1, seconds = 0.5 }\n'
    )
    x, y = make_schedule(config.tournament)[0].seats
    assert x.params == {"epsilon": 0.1, "seconds": 0.5}
    assert x.params_hash == y.params_hash  # the same bot, however it was written


AB_CONFIG = (
    '[tournament]\ngames = ["tic_tac_toe"]\ngames_per_pairing = 2\n'
    '[[bots]]\nlabel = "ab"\nbot = "bounded_ab"\nparams = { epsilon = 0.1, depth = 2 }\n'
    '[[bots]]\nlabel = "r"\nbot = "random"\n'
)


def _records_with_hash(matches: tuple, label: str, stored: str) -> list[GameRecord]:
    """One record per scheduled game, the seat of `label` carrying the hash `stored`."""
    return [
        GameRecord(
            game_id=match.game_id,
            game=match.game,
            round=match.round,
            seats=match.labels,
            bots=tuple(seat.bot for seat in match.seats),
            params_hashes=tuple(
                stored if seat.label == label else seat.params_hash for seat in match.seats
            ),
            seed=match.seed,
            returns=(0.0, 0.0),
            moves=0,
            seat_moves=(0, 0),
            seconds_per_move=(0.0, 0.0),
            max_seconds=(0.0, 0.0),
            nodes_per_move=(None, None),
            actions=(),
            duration=0.0,
        )
        for match in matches
    ]


def test_a_removed_parameter_at_its_old_default_keeps_the_games() -> None:
    """The documented migrations (`former_hashes`): games played before the alpha-beta bots
    gained `engine` ran on the Python engine with 500,000-entry tables, and those played before
    `reference_engine` left carry a hash that covers it at its default, False; they are the same
    bot's games, and still scheduled, when the bot is pinned to the Python engine. At
    `reference_engine = True`, or for a bot on another engine, they are not."""
    config = AB_CONFIG.replace("depth = 2 }", 'depth = 2, engine = "python" }')
    matches = make_schedule(parse_config(config).tournament)
    seat = next(seat for match in matches for seat in match.seats if seat.label == "ab")
    full = registry.check_params(registry.get_spec("bounded_ab"), {**seat.params, "seed": 0})
    del full["seed"]
    assert "reference_engine" not in full and full["tt_capacity"] is None
    assert seat.params_hash == params_hash("bounded_ab", full)
    old = {name: value for name, value in full.items() if name != "engine"}
    old["tt_capacity"] = 500_000
    before_engines = params_hash("bounded_ab", old)
    before = params_hash("bounded_ab", {**old, "reference_engine": False})
    assert seat.former_hashes == (before_engines, before)
    for stored in (before_engines, before):
        assert mismatch(_records_with_hash(matches, "ab", stored), matches, "t.toml") is None
        assert changed_parameters(_records_with_hash(matches, "ab", stored), matches) == []
    other = params_hash("bounded_ab", {**old, "reference_engine": True})
    wrong = mismatch(_records_with_hash(matches, "ab", other), matches, "t.toml")
    assert wrong is not None and f"ab (bounded_ab: {other} in games.csv" in wrong
    assert changed_parameters(_records_with_hash(matches, "ab", other), matches) == ["ab"]
    auto = make_schedule(parse_config(AB_CONFIG).tournament)
    native_seat = next(seat for match in auto for seat in match.seats if seat.label == "ab")
    assert native_seat.former_hashes == ()  # the Python engine's games are not the native bot's


def test_removed_parameters_are_gone_from_their_bots() -> None:
    for bot, removed in REMOVED_PARAMETERS.items():
        assert not set(removed) & set(registry.get_spec(bot).params), bot


# That every committed results directory the manual says matches its config still does
# (round_robin, the babmcts and experiments ones, three of them through this migration) is
# tests/test_documented_commands.py's test_the_results_the_manual_says_match_their_configs_do.
