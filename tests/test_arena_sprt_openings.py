"""Tournaments with an SPRT that stops pairings, and with opening suites; their report."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pyspiel
import pytest

from spiel_bounded.arena import (
    ConfigError,
    DaskExecutor,
    GameStore,
    InlineExecutor,
    ProcessExecutor,
    make_schedule,
    parse_config,
    report_from_directory,
    run_tournament,
)
from spiel_bounded.arena.openings import (
    OpeningError,
    balanced_openings,
    parse_openings,
    play_opening,
    random_openings,
)
from spiel_bounded.arena.report_files import write_report
from spiel_bounded.arena.sprt import SPRTSettings, replay
from spiel_bounded.arena.stopping import SPRTStopper
from spiel_bounded.evaluators import make_evaluator


def sprt_config(
    output: Path,
    *,
    games: int = 200,
    sprt: str = "{ elo0 = 0, elo1 = 150 }",
    extra: str = "",
    opening_moves: int = 1,
):
    text = f"""
[tournament]
games = ["tic_tac_toe"]
games_per_pairing = {games}
opening_moves = {opening_moves}
sprt = {sprt}
{extra}

[run]
output = "{output}"
workers = 2

[report]
bootstrap = 0

[[bots]]
label = "ab"
bot = "bounded_ab"
params = {{ depth = 9 }}

[[bots]]
label = "rand"
bot = "random"
"""
    return parse_config(text, source="test.toml")


def test_an_sprt_stops_its_pairing_once_decided_and_the_report_agrees(tmp_path: Path) -> None:
    config = sprt_config(tmp_path)
    result = run_tournament(config, executor=InlineExecutor())
    ((key, status),) = result.decided.items()
    assert key == ("tic_tac_toe", "ab", "rand") and status.decision == "H1"
    assert status.llr >= status.upper
    # Inline: nothing runs past the decision, so exactly its pairs were played.
    assert result.played == 2 * status.pairs < 200
    assert result.skipped == 200 - result.played
    again = run_tournament(config, executor=InlineExecutor())
    assert (again.played, again.skipped) == (0, 200 - result.played)
    assert again.decided == result.decided
    report = report_from_directory(tmp_path)
    row = report.sprt.iloc[0]
    assert (row["decision"], row["pairs_to_decision"]) == ("H1", status.pairs)
    assert row["llr"] == pytest.approx(status.llr)
    assert "## SPRT" in report.markdown and "H1 accepted" in report.markdown
    written = {path.name for path in write_report(report, tmp_path)}
    assert {"sprt.csv", "paired.csv", "plackett_luce.csv", "ratings_plackett_luce.png"} <= written


def test_worker_processes_stop_starting_games_of_a_decided_pairing(tmp_path: Path) -> None:
    config = sprt_config(tmp_path)
    result = run_tournament(config, executor=ProcessExecutor(2))
    ((_, status),) = result.decided.items()
    # Games already running when it decided finish, and games of later rounds may have finished
    # while an earlier round was still playing: more than the decision's games, far from all.
    assert 2 * status.pairs <= result.played < 200
    assert result.played + result.skipped == 200
    row = report_from_directory(tmp_path).sprt.iloc[0]
    assert (row["decision"], row["pairs_to_decision"]) == ("H1", status.pairs)


def test_the_stopper_waits_for_every_earlier_round() -> None:
    config = sprt_config(Path("unused"), games=40, sprt="{ elo0 = 0, elo1 = 400 }")
    schedule = make_schedule(config.tournament)
    stopper = SPRTStopper(config.tournament.sprt, ["ab", "rand"], schedule, [])
    from tests.helpers import game_record as record_of

    won = {
        match.game_id: record_of(match.round, match.labels, (1.0, -1.0))
        for match in schedule
        if match.labels[0] == "ab"
    }
    lost = {
        match.game_id: record_of(match.round, match.labels, (-1.0, 1.0))
        for match in schedule
        if match.labels[0] == "rand"
    }
    results = {**won, **lost}
    # ab wins everything, but round 0 is unfinished: nothing counts yet.
    later = [match for match in schedule if match.round > 0]
    assert all(stopper.add(_renamed(results[m.game_id], m.game_id)) is None for m in later)
    assert stopper.wanted(schedule[0])
    first = [match for match in schedule if match.round == 0]
    statuses = [stopper.add(_renamed(results[m.game_id], m.game_id)) for m in first]
    expected = replay([2.0] * 20, config.tournament.sprt)
    assert expected.decision == "H1" and expected.pairs < 20
    assert statuses[-1] == expected  # every round counted, up to the first crossing
    assert not stopper.wanted(schedule[0])


def _renamed(record, game_id):  # type: ignore[no-untyped-def]
    from dataclasses import replace

    return replace(record, game_id=game_id, game="tic_tac_toe")


@pytest.mark.parametrize(
    ("sprt", "message"),
    [
        ("{ elo0 = 10, elo1 = 5 }", "elo1 must be more than elo0"),
        ("{ elo0 = 0, elo1 = 5, gamma = 1 }", "unknown key.*gamma; accepted: elo0, elo1"),
        ("5", "must be a table"),
        ("{ elo0 = 0, elo1 = 5, alpha = 0 }", "alpha must be a number > 0"),
    ],
)
def test_bad_sprt_settings_are_refused(sprt: str, message: str, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"test.toml: \[tournament\] sprt: " + message):
        sprt_config(tmp_path, sprt=sprt)


def test_an_sprt_needs_two_player_games(tmp_path: Path) -> None:
    text = f"""
[tournament]
games = ["pig(players=3)"]
games_per_pairing = 3
sprt = {{ elo0 = 0, elo1 = 5 }}
[run]
output = "{tmp_path}"
[[bots]]
label = "a"
bot = "random"
[[bots]]
label = "b"
bot = "random"
[[bots]]
label = "c"
bot = "random"
"""
    with pytest.raises(ConfigError, match=r"has 3 players \(accepted: two-player games\)"):
        parse_config(text, source="test.toml")


# -- opening suites ---------------------------------------------------------------------------


def test_an_opening_suite_is_played_in_every_seating_round_by_round(tmp_path: Path) -> None:
    suite = tmp_path / "openings.txt"
    suite.write_text("# two openings\n4 0\n\n0 8  # corners\n")
    config = sprt_config(
        tmp_path / "out",
        games=6,
        sprt="{ elo0 = 0, elo1 = 400 }",
        extra=f'openings = "{suite}"',
        opening_moves=0,
    )
    assert config.tournament.opening_lines == {"tic_tac_toe": ((4, 0), (0, 8))}
    schedule = make_schedule(config.tournament)
    assert [(match.round, match.opening) for match in schedule] == [
        (0, (4, 0)),
        (0, (4, 0)),
        (1, (0, 8)),
        (1, (0, 8)),
        (2, (4, 0)),
        (2, (4, 0)),
    ]
    run_tournament(config, executor=InlineExecutor())
    for record in GameStore(tmp_path / "out").read_records():
        assert record.actions[:2] == schedule[2 * record.round].opening
        assert sum(record.seat_moves) == record.moves - 2  # the bots play after the opening
    # The suite is part of what is played: another suite is another tournament.
    before = config.tournament.fingerprint()
    suite.write_text("4 0\n0 2\n")
    changed = sprt_config(
        tmp_path / "out",
        games=6,
        sprt="{ elo0 = 0, elo1 = 400 }",
        extra=f'openings = "{suite}"',
        opening_moves=0,
    )
    assert changed.tournament.fingerprint() != before


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("4 x\n", r"line 1: '4 x' is not a list of integer actions"),
        ("# nothing\n", "holds no opening"),
        ("4 4\n", r"opening 1 \(4 4\) cannot be played in tic_tac_toe\(\): action 4 at ply 1"),
        ("0 3 1 4 2\n", "the game is over after it"),
    ],
)
def test_bad_opening_suites_are_refused(text: str, message: str, tmp_path: Path) -> None:
    suite = tmp_path / "openings.txt"
    suite.write_text(text)
    with pytest.raises(ConfigError, match=r"\[tournament\] openings: .*" + message):
        sprt_config(tmp_path, extra=f'openings = "{suite}"', opening_moves=0)


def test_a_missing_suite_or_one_with_random_plies_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read the opening suite"):
        sprt_config(tmp_path, extra=f'openings = "{tmp_path / "none.txt"}"', opening_moves=0)
    suite = tmp_path / "openings.txt"
    suite.write_text("4\n")
    text = sprt_config(tmp_path).text.replace(
        "opening_moves = 1", f'opening_moves = 1\nopenings = "{suite}"'
    )
    with pytest.raises(ConfigError, match="cannot be combined with opening_moves = 1"):
        parse_config(text, source="test.toml")


def test_suites_per_game_and_random_plies_for_the_others(tmp_path: Path) -> None:
    suite = tmp_path / "openings.txt"
    suite.write_text("3 2\n")
    text = sprt_config(tmp_path, games=4).text.replace(
        'games = ["tic_tac_toe"]',
        f'games = ["tic_tac_toe", "connect_four"]\nopenings = {{ tic_tac_toe = "{suite}" }}',
    )
    config = parse_config(text, source="test.toml")
    assert config.tournament.openings == {"tic_tac_toe": str(suite)}
    assert {(m.game, m.opening, m.opening_moves) for m in make_schedule(config.tournament)} == {
        ("tic_tac_toe", (3, 2), 0),
        ("connect_four", (), 1),
    }
    with pytest.raises(ConfigError, match=r"unknown game\(s\) 'chess'; accepted: tic_tac_toe"):
        sprt_config(tmp_path, extra=f'openings = {{ chess = "{suite}" }}')
    with pytest.raises(ConfigError, match="must be a file name or a table of game = file name"):
        sprt_config(tmp_path, extra="openings = 3")


def test_suites_for_games_with_chance_or_covering_every_game_with_random_plies_are_refused(
    tmp_path: Path,
) -> None:
    suite = tmp_path / "openings.txt"
    suite.write_text("0\n")
    text = sprt_config(tmp_path).text
    chance = text.replace('games = ["tic_tac_toe"]', 'games = ["pig"]').replace(
        "opening_moves = 1", f'openings = "{suite}"'
    )
    with pytest.raises(ConfigError, match="opening suites are for games without chance nodes"):
        parse_config(chance, source="test.toml")
    every = text.replace(
        "opening_moves = 1", f'opening_moves = 1\nopenings = {{ tic_tac_toe = "{suite}" }}'
    )
    with pytest.raises(ConfigError, match="gives every game a suite, so opening_moves = 1"):
        parse_config(every, source="test.toml")


def test_an_opening_that_is_not_legal_in_play_is_an_error_record() -> None:
    from dataclasses import replace

    from spiel_bounded.arena.play import play_match

    config = sprt_config(Path("unused"), games=2)
    match = replace(make_schedule(config.tournament)[0], opening=(4, 4), opening_moves=0)
    record = play_match(match)
    assert not record.ok and "opening ply 1 (4 4) is action 4, which is not legal" in record.error


def test_elo_differences_beyond_1000_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="elo1 must be a number in \\[-1000, 1000\\]"):
        sprt_config(tmp_path, sprt="{ elo0 = 0, elo1 = 10000 }")


def test_parse_openings_skips_comments_and_blank_lines() -> None:
    assert parse_openings("1 2 3\n# c\n\n 4 5 # d\n", "s") == ((1, 2, 3), (4, 5))
    with pytest.raises(OpeningError, match="s holds no opening"):
        parse_openings("", "s")


def test_balanced_openings_are_distinct_near_even_and_playable() -> None:
    game = pyspiel.load_game("connect_four")
    heuristic = make_evaluator("heuristic", game)
    suite = balanced_openings(
        game,
        random_openings(game, plies=4, candidates=300, rng=np.random.default_rng(3)),
        count=10,
        value_of=lambda state: heuristic.evaluate(state)[0],
        margin=0.1,
    )
    assert len(suite) == 10
    assert len({item.opening for item in suite}) == 10
    values = [abs(item.value) for item in suite]
    assert values == sorted(values) and values[-1] <= 0.1
    for item in suite:
        state, problem = play_opening(game, item.opening)
        assert problem is None and len(item.opening) == 4
        assert heuristic.evaluate(state)[0] == pytest.approx(item.value)


def test_random_openings_are_distinct_playable_and_in_the_order_drawn() -> None:
    game = pyspiel.load_game("tic_tac_toe")
    drawn = random_openings(game, plies=5, candidates=500, rng=np.random.default_rng(2))
    assert len(set(drawn)) == len(drawn) > 100
    assert all(len(opening) == 5 and play_opening(game, opening)[1] is None for opening in drawn)
    again = random_openings(game, plies=5, candidates=50, rng=np.random.default_rng(2))
    assert again == drawn[: len(again)]
    # Five plies of tic_tac_toe never end it; seven can: those draws are dropped.
    longer = random_openings(game, plies=7, candidates=300, rng=np.random.default_rng(2))
    assert longer and all(play_opening(game, opening)[1] is None for opening in longer)


def test_the_sprt_settings_bounds() -> None:
    settings = SPRTSettings(elo0=0, elo1=20, alpha=0.05, beta=0.05)
    assert settings.lower == pytest.approx(-2.944, abs=1e-3)
    assert settings.upper == pytest.approx(2.944, abs=1e-3)


@pytest.mark.skipif(
    importlib.util.find_spec("distributed") is None, reason="needs the cluster extra"
)
def test_a_dask_run_cancels_the_games_of_a_decided_pairing(tmp_path: Path) -> None:
    from distributed import LocalCluster

    config = sprt_config(tmp_path)
    with LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        result = run_tournament(config, executor=DaskExecutor(1, cluster.scheduler_address))
    ((_, status),) = result.decided.items()
    assert status.decision == "H1"
    assert 2 * status.pairs <= result.played < 200
    report = report_from_directory(tmp_path)
    assert report.sprt.iloc[0]["pairs_to_decision"] == status.pairs


def test_played_out_openings_give_draws_then_as_many_wins_to_each_seat() -> None:
    game = pyspiel.load_game("tic_tac_toe")

    def outcome_of(state: pyspiel.State) -> float:
        # A made-up result per opening: draws are rare, seat 0 wins twice as often as seat 1.
        code = sum(state.history()) % 7
        return 0.0 if code == 0 else 1.0 if code < 5 else -1.0

    suite = balanced_openings(
        game,
        random_openings(game, plies=2, candidates=400, rng=np.random.default_rng(5)),
        count=12,
        value_of=lambda state: 0.0,
        margin=0.1,
        outcome_of=outcome_of,
    )
    outcomes = [item.outcome for item in suite]
    draws = outcomes.count(0.0)
    assert draws >= 1 and outcomes[:draws] == [0.0] * draws
    assert outcomes.count(1.0) == outcomes.count(-1.0) >= 1
    assert len(suite) == 12 and len({item.opening for item in suite}) == len(suite)
    for item in suite:
        state, _ = play_opening(game, item.opening)
        assert item.outcome == outcome_of(state)
