"""The report against numbers worked out by hand, Elo on results with a known order, the CLI."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from open_spiel.python.algorithms import elo

from spiel_bounded.arena import (
    GameRecord,
    GameStore,
    ReportSettings,
    build_report,
    plots,
    write_report,
)
from spiel_bounded.arena.ratings import pairwise_outcomes, rate
from spiel_bounded.arena.records import header_line
from spiel_bounded.arena.report_files import report_from_directory
from spiel_bounded.arena.settings import TournamentSettings
from spiel_bounded.arena.store import Manifest
from spiel_bounded.arena.time_targets import TimeTarget, time_targets
from spiel_bounded.stats import wilson
from tests.helpers import game_record

ROOT = Path(__file__).resolve().parents[1]
TRACE = json.dumps("Traceback (most recent call last):\n  ...\nRuntimeError: boom, again")

# game_id, seats, returns, seat_moves, seconds_per_move, max_seconds, nodes_per_move
# (error row: error_seat 0, i.e. C raised)
GAMES = [
    ("g1", "A;B", "1.0;-1.0", "3;2", "0.1;0.01", "0.2;0.02", "100;"),
    ("g2", "B;A", "1.0;-1.0", "3;2", "0.01;0.4", "0.02;0.5", ";200"),
    ("g3", "A;B", "0.0;0.0", "5;4", "0.2;0.01", "0.3;0.01", "50;"),
    ("g4", "B;A", "-1.0;1.0", "3;3", "0.01;0.1", "0.01;0.1", ";100"),
    ("g5", "A;C", "1.0;-1.0", "3;2", "0.1;0.05", "0.1;0.05", "10;"),
    ("g6", "C;A", "-1.0;1.0", "3;3", "0.05;0.3", "0.05;0.3", ";20"),
    ("g7", "B;C", "0.0;0.0", "5;4", "0.02;0.05", "0.02;0.05", ";"),
    ("g8", "C;B", "", "0;0", "nan;nan", "nan;nan", ";"),
]


def write_games(directory: Path) -> None:
    lines = [header_line()]
    for game_id, seats, returns, moves, seconds, longest, nodes in GAMES:
        error, error_seat = (
            (f'"{TRACE.replace(chr(34), chr(34) * 2)}"', "0")
            if not returns
            else (
                "",
                "",
            )
        )
        total = sum(int(value) for value in moves.split(";"))
        lines.append(
            f"{game_id},tic_tac_toe,0,{seats},x;x,h;h,1,{returns},{total},{moves},{seconds},"
            f"{longest},{nodes},,1.0,{error_seat},{error}\n"
        )
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "games.csv").write_text("".join(lines))


def row(frame, **keys):  # type: ignore[no-untyped-def]
    mask = np.ones(len(frame), dtype=bool)
    for key, value in keys.items():
        mask &= frame[key] == value
    (index,) = np.flatnonzero(mask)
    return frame.iloc[index]


def test_wilson_interval_matches_hand_computation() -> None:
    # p = 1/2, n = 4: centre 1/2, half-width z / (1 + z^2/n) * sqrt(1/16 + z^2/64) = 0.349961.
    assert wilson(2, 4) == pytest.approx((0.150039, 0.849961), abs=1e-6)
    assert wilson(2, 2) == pytest.approx((0.342380, 1.0), abs=1e-6)
    assert all(math.isnan(value) for value in wilson(0, 0))
    # A perfect score's interval reaches 1 exactly (computed, it rounded to just below for some
    # counts, and the learning curve's error bars came out negative).
    for trials in range(1, 200):
        assert wilson(trials, trials)[1] == 1.0 and wilson(0, trials)[0] == 0.0


def test_report_numbers_match_a_hand_computed_results_file(tmp_path: Path) -> None:
    write_games(tmp_path)
    records = GameStore(tmp_path).read_records()
    report = build_report(records, ReportSettings(bootstrap=0), order=["A", "B", "C"])
    pairings = report.pairings

    ab = row(pairings, bot="A", opponent="B")
    # A beat B in g1 (as P0) and g4 (as P1), drew g3 (as P0), lost g2 (as P1).
    assert (ab["games"], ab["wins"], ab["draws"], ab["losses"]) == (4, 2, 1, 1)
    assert ab["score"] == 0.625
    assert (ab["score_as_p0"], ab["games_as_p0"]) == (0.75, 2)
    assert (ab["score_as_p1"], ab["games_as_p1"]) == (0.5, 2)
    assert (ab["win_low"], ab["win_high"]) == pytest.approx((0.150039, 0.849961), abs=1e-6)
    assert (ab["draw_low"], ab["draw_high"]) == pytest.approx((0.045587, 0.699358), abs=1e-6)
    assert (ab["score_low"], ab["score_high"]) == pytest.approx((0.219427, 0.908101), abs=1e-6)

    ac = row(pairings, bot="A", opponent="C")
    assert (ac["games"], ac["wins"], ac["draws"], ac["losses"], ac["score"]) == (2, 2, 0, 0, 1.0)
    assert (ac["score_as_p0"], ac["score_as_p1"]) == (1.0, 1.0)
    bc = row(pairings, bot="B", opponent="C")  # g8 raised: left out
    assert (bc["games"], bc["wins"], bc["draws"], bc["losses"]) == (1, 0, 1, 0)

    matrix = report.scores["tic_tac_toe"]
    assert matrix.loc["A", "B"] == 0.625 and matrix.loc["B", "A"] == 0.375
    assert math.isnan(matrix.loc["A", "A"])

    bots = report.bots
    a = row(bots, bot="A")
    assert (a["games"], a["moves"], a["errors"]) == (6, 19, 0)
    # Seconds: 3(.1) + 2(.4) + 5(.2) + 3(.1) + 3(.1) + 3(.3) = 3.6 over 19 moves.
    assert a["seconds_per_move"] == pytest.approx(3.6 / 19)
    assert a["max_seconds_per_move"] == 0.5
    # Nodes: 3(100) + 2(200) + 5(50) + 3(100) + 3(10) + 3(20) = 1340.
    assert a["nodes_per_move"] == pytest.approx(1340 / 19)
    assert a["nodes_per_second"] == pytest.approx(1340 / 3.6)
    b = row(bots, bot="B")
    assert (b["games"], b["moves"], b["errors"]) == (6, 17, 0)
    assert b["seconds_per_move"] == pytest.approx(0.22 / 17)
    assert math.isnan(b["nodes_per_move"])
    c = row(bots, bot="C")
    assert (c["moves"], c["errors"], c["seconds_per_move"]) == (9, 1, pytest.approx(0.05))

    assert list(report.errors["game_id"]) == ["g8"]
    assert list(report.errors["raised_by"]) == ["C"]
    assert list(report.errors["error"]) == ["RuntimeError: boom, again"]
    assert "| A | B | 4 | 2 | 1 | 1 | 50.0 [15.0, 85.0] |" in report.markdown
    # Each side's time per move in the pairing's games (g1-g4): A 2.4 s over 13 moves, B 0.01.
    assert (ab["seconds_per_move"], ab["opponent_seconds_per_move"]) == pytest.approx(
        (2.4 / 13, 0.01)
    )
    assert "62.5 [21.9, 90.8] | 184.62 | 10.00 | 75.0 (2) | 50.0 (2) |" in report.markdown
    assert "| g8 | C | RuntimeError: boom, again |" in report.markdown

    written = {path.name for path in write_report(report, tmp_path)}
    assert written >= {"summary.md", "pairings.csv", "bots.csv", "ratings.csv", "errors.csv"}
    assert {"heatmap_tic_tac_toe.png", "ratings.png"} <= written
    assert (tmp_path / "ratings.png").read_bytes().startswith(b"\x89PNG")


def synthetic_records(order: list[str], games: int, wins: int) -> list[GameRecord]:
    """Every pair plays `games` games; the bot earlier in `order` wins `wins` of them."""
    records = []
    for i, strong in enumerate(order):
        for weak in order[i + 1 :]:
            for number in range(games):
                seats = (strong, weak) if number % 2 == 0 else (weak, strong)
                won = number < wins
                winner = strong if won else weak
                returns = tuple(1.0 if label == winner else -1.0 for label in seats)
                record = game_record(number // 2, seats, returns)
                records.append(
                    replace(
                        record, game_id=f"{strong}-{weak}-{number}", game="synthetic", seed=number
                    )
                )
    return records


def test_elo_recovers_a_known_order_with_bootstrap_intervals() -> None:
    order = ["best", "good", "fair", "weak"]
    shuffled = ["fair", "weak", "best", "good"]
    outcomes = pairwise_outcomes(synthetic_records(order, 60, 42), shuffled)
    ratings = rate(outcomes, shuffled, anchor="weak", bootstrap=200, rng=np.random.default_rng(1))
    by_bot = ratings.set_index("bot")
    elos = [by_bot.loc[label, "elo"] for label in order]
    assert elos == sorted(elos, reverse=True) and elos[-1] == 0.0
    assert all(by_bot["low"] <= by_bot["elo"]) and all(by_bot["elo"] <= by_bot["high"])
    assert by_bot.loc["best", "low"] > by_bot.loc["fair", "high"]
    assert set(by_bot["games"]) == {180}
    # The same numbers as OpenSpiel's function on the matrices, shifted to the anchor.
    wins = np.zeros((4, 4), dtype=int)
    for i, label in enumerate(shuffled):
        for j, other in enumerate(shuffled):
            if i != j:
                strong = order.index(label) < order.index(other)
                wins[i, j] = 42 if strong else 18
    direct = elo.compute_ratings_from_matrices(wins)
    expected = direct - direct[shuffled.index("weak")]
    assert [by_bot.loc[label, "elo"] for label in shuffled] == pytest.approx(expected)


def test_more_players_count_each_pair_at_the_table() -> None:
    base = synthetic_records(["x", "y"], 1, 1)[0]
    three = GameRecord(
        **{
            **base.__dict__,
            "game_id": "t1",
            "seats": ("x", "y", "z"),
            "returns": (0.5, 0.5, -1.0),
        }
    )
    copies = GameRecord(
        **{**base.__dict__, "game_id": "t2", "seats": ("y", "x", "x"), "returns": (1.0, 0.0, -1.0)}
    )
    outcomes = pairwise_outcomes([three, copies], ["x", "y", "z"])
    scores = {(item.game_id, item.bot, item.opponent): item.score for item in outcomes.itertuples()}
    assert scores == {
        ("t1", "x", "y"): 0.5,
        ("t1", "x", "z"): 1.0,
        ("t1", "y", "z"): 1.0,
        ("t2", "x", "y"): 0.0,  # x's mean return -0.5 against y's 1.0
    }
    assert list(outcomes[outcomes["game_id"] == "t2"]["seat"]) == [-1]


def test_report_only_from_the_command_line(tmp_path: Path) -> None:
    write_games(tmp_path)
    result = subprocess.run(
        [sys.executable, "scripts/round_robin.py", "--report_only", f"--output={tmp_path}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "| A | B | 4 | 2 | 1 | 1 |" in result.stdout
    assert "--report_only --output" in (tmp_path / "summary.md").read_text()


def test_the_command_line_names_config_errors(tmp_path: Path) -> None:
    config = tmp_path / "bad.toml"
    config.write_text(
        '[tournament]\ngames = ["tic_tac_toe"]\ngames_per_pairing = 0\n'
        '[[bots]]\nlabel = "a"\nbot = "random"\n[[bots]]\nlabel = "b"\nbot = "random"\n'
    )
    result = subprocess.run(
        [sys.executable, "scripts/round_robin.py", f"--config={config}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2
    assert f"error: {config}: [tournament] games_per_pairing: must be an integer >= 1" in (
        result.stderr
    )


def test_a_report_of_errors_only_or_of_nothing(tmp_path: Path) -> None:
    write_games(tmp_path)
    errors = [record for record in GameStore(tmp_path).read_records() if not record.ok]
    for records in (errors, []):
        report = build_report(records, ReportSettings(bootstrap=10))
        assert report.pairings.empty and report.ratings.empty
        assert len(report.errors) == len(records)
        write_report(report, tmp_path / f"out{len(records)}")


def test_heatmap_cells_labels_and_colour_bar_are_all_percentages() -> None:
    matrix = pd.DataFrame(
        [[np.nan, 0.625, 1.0], [0.375, np.nan, np.nan], [0.0, np.nan, np.nan]],
        index=["A", "B", "C"],
        columns=["A", "B", "C"],
    )
    figure = plots.heatmap_figure(matrix, "t")
    axes, bar = figure.axes
    (image,) = axes.images
    assert image.get_clim() == (0.0, 100.0)
    assert np.ma.getdata(image.get_array())[0, 1] == 62.5
    labels = sorted(text.get_text() for text in axes.texts)
    assert labels == ["0", "100", "38", "62"]  # 62.5 and 37.5 round to even
    assert bar.get_ylim() == (0.0, 100.0)
    assert "%" in bar.get_ylabel()


TOURNAMENT = {
    "games": ["tic_tac_toe", "connect_four"],
    "games_per_pairing": 2,
    "seconds_per_move": 0.1,
    "bots": [
        {
            "label": "A",
            "bot": "python_mcts",
            "params": {},
            "per_game": {"tic_tac_toe": {"simulations": 10}, "connect_four": {"simulations": 20}},
        },
        {
            "label": "B",
            "bot": "bounded_ab",
            "params": {},
            "per_game": {"connect_four": {"seconds": 0.5}},
        },
        {"label": "C", "bot": "random", "params": {}, "per_game": {}},
        {"label": "D", "bot": "openspiel_ab", "params": {"depth": 3}, "per_game": {}},
        {"label": "E", "bot": "not_in_the_registry", "params": {"depth": 3}, "per_game": {}},
    ],
}


def test_time_targets_are_time_limits_or_calibrations_to_the_time_per_move() -> None:
    targets = time_targets(TournamentSettings.from_canonical(TOURNAMENT))
    assert targets["tic_tac_toe", "A"] == TimeTarget(
        seconds=0.1, calibrated=True, budget="simulations 10"
    )
    assert targets["connect_four", "A"].budget == "simulations 20"
    assert targets["tic_tac_toe", "B"] == TimeTarget(seconds=0.1)  # seconds_per_move
    assert targets["connect_four", "B"] == TimeTarget(seconds=0.5)  # its own
    assert targets["tic_tac_toe", "D"] == TimeTarget(seconds=0.1, calibrated=True, budget="depth 3")
    assert ("tic_tac_toe", "C") not in targets and ("tic_tac_toe", "E") not in targets
    # Without a time per move, only the bots' own limits remain.
    stored = TournamentSettings.from_canonical({**TOURNAMENT, "seconds_per_move": None})
    assert time_targets(stored) == {("connect_four", "B"): TimeTarget(seconds=0.5)}


def test_a_calibrated_bot_misses_its_target_by_more_than_half_either_way_a_limit_only_above() -> (
    None
):
    calibrated = TimeTarget(seconds=0.05, calibrated=True, budget="depth 6")
    assert calibrated.missed(0.089)  # openspiel_ab in the issue's `make run`: 1.78x
    assert not calibrated.missed(0.074) and not calibrated.missed(0.026)
    assert calibrated.missed(0.024)
    limit = TimeTarget(seconds=0.05)
    assert not limit.missed(0.001)  # a solved position needs no time
    assert not limit.missed(0.074) and limit.missed(0.076)
    assert not calibrated.missed(math.nan)
    whole = TimeTarget(seconds=0.1, calibrated=True, budget="depth 9", whole_game=True)
    assert not whole.missed(0.0003) and whole.missed(0.2)  # depth 9 solves tic_tac_toe


def test_a_depth_that_reaches_the_end_of_the_game_is_no_under_use() -> None:
    tournament = {
        "games": ["tic_tac_toe", "connect_four"],
        "games_per_pairing": 2,
        "seconds_per_move": 0.1,
        "bots": [{"label": "ab", "bot": "openspiel_ab", "params": {"depth": 9}}],
    }
    targets = time_targets(TournamentSettings.from_canonical(tournament))
    assert targets["tic_tac_toe", "ab"].whole_game  # 9 plies at most
    assert not targets["connect_four", "ab"].whole_game  # 42


def test_the_summary_names_the_bots_that_missed_their_time_target(tmp_path: Path) -> None:
    write_games(tmp_path)
    tournament = {
        "games": ["tic_tac_toe"],
        "games_per_pairing": 2,
        "seconds_per_move": 0.1,
        "bots": [
            {"label": "A", "bot": "openspiel_ab", "params": {"depth": 3}, "per_game": {}},
            {"label": "B", "bot": "bounded_ab", "params": {}, "per_game": {}},
            {"label": "C", "bot": "random", "params": {}, "per_game": {}},
        ],
    }
    GameStore(tmp_path).write_manifest(
        Manifest(
            fingerprint="f",
            tournament=tournament,
            labels=("A", "B", "C"),
            scheduled=8,
            config_source="t.toml",
            config_text="",
            report={"bootstrap": 0},
            created="now",
        )
    )
    report = report_from_directory(tmp_path)
    a, b, c = (row(report.bots, bot=label) for label in "ABC")
    # A: 3.6 s over 19 moves = 189.47 ms against its calibration to 100 ms.
    assert (a["target"], a["calibrated_with"], a["missed_target"]) == (
        "calibrated",
        "depth 3",
        True,
    )
    assert a["time_ratio"] == pytest.approx(1.8947, abs=1e-4)
    assert (b["target"], b["missed_target"]) == ("limit", False)  # 12.9 ms, under its limit
    assert (c["target"], math.isnan(c["target_seconds_per_move"])) == ("", True)
    assert (
        "- A on tic_tac_toe: 189.47 ms per move (longest 500.00 ms) against 100.00 ms "
        "(calibrated to it with depth 3): 1.9x"
    ) in report.markdown
    assert "| tic_tac_toe | A | 19 | 189.47 ! | 500.00 | 100.00 (calibrated: depth 3) |" in (
        report.markdown
    )
    assert "| tic_tac_toe | B | 17 | 12.94 | 20.00 | 100.00 (limit) |" in report.markdown
    # Without run.json there is no target, and no warning.
    assert (
        "off target"
        not in build_report(
            GameStore(tmp_path).read_records(), ReportSettings(bootstrap=0)
        ).markdown
    )


@pytest.mark.parametrize("reorder", ["reversed", "shuffled"])
def test_the_report_depends_on_the_set_of_games_not_their_order_in_games_csv(
    tmp_path: Path, reorder: str
) -> None:
    # A Dask run writes games.csv in the order games finish; the Elo bootstrap resampled the
    # pairings in the order they first appeared, so identical games gave other intervals.
    source = ROOT / "results" / "round_robin_experiments_q4_chance"
    written = {}
    for name in ("file_order", reorder):
        directory = tmp_path / name
        directory.mkdir()
        (directory / "run.json").write_bytes((source / "run.json").read_bytes())
        header, *rows = (source / "games.csv").read_text().splitlines(keepends=True)
        if name == "reversed":
            rows.reverse()
        elif name == "shuffled":
            np.random.default_rng(7).shuffle(rows)
        (directory / "games.csv").write_text(header + "".join(rows))
        report = report_from_directory(
            directory, ReportSettings(anchor=None, bootstrap=200, seed=0), command="same"
        )
        written[name] = {path.name: path.read_bytes() for path in write_report(report, directory)}
    assert written[reorder].keys() == written["file_order"].keys()
    for file_name, data in written["file_order"].items():
        assert written[reorder][file_name] == data, f"{file_name} depends on the row order"
