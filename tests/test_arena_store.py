"""games.csv rows and the store: one line per game, torn tails ignored and repaired."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import pytest

from spiel_bounded.arena import GameRecord, GameStore, StoreError
from spiel_bounded.arena.records import header_line, parse_lines

RECORD = GameRecord(
    game_id="bounded_random_tree(branching=2,depth=3,seed=1)|a,b|0",
    game="bounded_random_tree(branching=2,depth=3,seed=1)",
    round=0,
    seats=("a", "b"),
    bots=("bounded_ab", "random"),
    params_hashes=("0123456789", "abcdefabcd"),
    seed=12345,
    returns=(1.0, -1.0),
    moves=3,
    seat_moves=(2, 1),
    seconds_per_move=(0.125, 1e-06),
    max_seconds=(0.25, 1e-06),
    nodes_per_move=(1234.5, None),
    actions=(0, 1, 1),
    duration=0.5,
)


def test_records_round_trip_through_one_csv_line() -> None:
    error = replace(
        RECORD,
        returns=(),
        error='Traceback (most recent call last):\n  File "x", line 1\nValueError: a, "b"\n',
        error_seat=1,
        seconds_per_move=(0.5, math.nan),
        max_seconds=(0.5, math.nan),
        nodes_per_move=(None, None),
    )
    for record in (RECORD, error):
        line = record.to_line()
        assert line.endswith("\n") and line.count("\n") == 1
        (parsed,) = parse_lines([line])
        assert parsed.to_line() == line
    (parsed,) = parse_lines([error.to_line()])
    assert parsed.error == error.error and parsed.error_seat == 1
    assert math.isnan(parsed.seconds_per_move[1])
    assert parse_lines([RECORD.to_line()]) == [RECORD]


def test_store_appends_reads_and_ignores_then_repairs_a_torn_tail(tmp_path: Path) -> None:
    store = GameStore(tmp_path / "out")
    with store.appending() as appender:
        appender.append(RECORD.to_line())
        appender.append(replace(RECORD, game_id="second").to_line())
    path = store.games_path
    assert path.read_text().startswith(header_line())
    whole = path.read_bytes()
    # A torn tail: half of a third row, without its newline.
    path.write_bytes(whole + replace(RECORD, game_id="third").to_line().encode()[:40])
    assert [record.game_id for record in store.read_records()] == [RECORD.game_id, "second"]
    with store.appending() as appender:  # opening for appending cuts the torn tail first
        appender.append(replace(RECORD, game_id="fourth").to_line())
    assert [record.game_id for record in store.read_records()] == [
        RECORD.game_id,
        "second",
        "fourth",
    ]
    assert path.read_bytes().startswith(whole)


def test_a_foreign_file_is_refused(tmp_path: Path) -> None:
    store = GameStore(tmp_path)
    store.games_path.write_text("a,b,c\n1,2,3\n")
    with pytest.raises(StoreError, match=r"header is not that of this version's games\.csv"):
        store.read_records()
    store.games_path.write_text(header_line() + "not,a,record\n")
    with pytest.raises(StoreError, match="data line 1"):
        store.read_records()
