"""`GameRecord`, the typed record of one finished game, and its one-line CSV form.

A row of games.csv is one physical line: per-seat values are joined with `;` (labels cannot
contain it), and the error traceback is stored JSON-encoded so that its newlines are escaped.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

SEP: Final = ";"

COLUMNS: Final = (
    "game_id",
    "game",
    "round",
    "seats",
    "bots",
    "params_hashes",
    "seed",
    "returns",
    "moves",
    "seat_moves",
    "seconds_per_move",
    "max_seconds",
    "nodes_per_move",
    "actions",
    "duration",
    "error_seat",
    "error",
)
"""Columns of games.csv, in order."""


@dataclass(frozen=True, kw_only=True)
class GameRecord:
    """One finished game (or one that raised).

    Attributes:
        game_id: The schedule's key of the game (`game|labels in seat order|round`).
        game: OpenSpiel game string.
        round: Repetition of the table.
        seats: Bot labels in seat order.
        bots: Registry names in seat order.
        params_hashes: Hash of each seat's bot name and full parameters.
        seed: The game's seed.
        returns: Each seat's return (empty when the game raised).
        moves: Decision plies played, random opening included (chance outcomes excluded).
        seat_moves: Moves each seat's bot chose (the random opening excluded).
        seconds_per_move: Each seat's mean wall-clock seconds per `step()` (NaN: no move).
        max_seconds: Each seat's longest `step()` in seconds (NaN: no move).
        nodes_per_move: Each seat's mean nodes per move, None when the bot does not report
            nodes (stock OpenSpiel bots).
        actions: Every action applied, chance outcomes included: the game can be replayed.
        duration: Wall-clock seconds of the whole game, bot construction included.
        error_seat: The seat whose bot raised, None when no bot (or no game) raised.
        error: The traceback when the game raised, else "".
    """

    game_id: str
    game: str
    round: int
    seats: tuple[str, ...]
    bots: tuple[str, ...]
    params_hashes: tuple[str, ...]
    seed: int
    returns: tuple[float, ...]
    moves: int
    seat_moves: tuple[int, ...]
    seconds_per_move: tuple[float, ...]
    max_seconds: tuple[float, ...]
    nodes_per_move: tuple[float | None, ...]
    actions: tuple[int, ...]
    duration: float
    error_seat: int | None = None
    error: str = ""

    @property
    def ok(self) -> bool:
        """True when the game finished without an error."""
        return not self.error

    def to_row(self) -> dict[str, str]:
        """The record as CSV cells (strings), one per column."""
        return {
            "game_id": self.game_id,
            "game": self.game,
            "round": str(self.round),
            "seats": SEP.join(self.seats),
            "bots": SEP.join(self.bots),
            "params_hashes": SEP.join(self.params_hashes),
            "seed": str(self.seed),
            "returns": SEP.join(map(_float, self.returns)),
            "moves": str(self.moves),
            "seat_moves": SEP.join(map(str, self.seat_moves)),
            "seconds_per_move": SEP.join(map(_float, self.seconds_per_move)),
            "max_seconds": SEP.join(map(_float, self.max_seconds)),
            "nodes_per_move": SEP.join(
                "" if value is None else _float(value) for value in self.nodes_per_move
            ),
            "actions": " ".join(map(str, self.actions)),
            "duration": _float(self.duration),
            "error_seat": "" if self.error_seat is None else str(self.error_seat),
            "error": json.dumps(self.error) if self.error else "",
        }

    def to_line(self) -> str:
        """The record as one CSV line, newline included."""
        buffer = io.StringIO()
        csv.writer(buffer, lineterminator="\n").writerow(
            [self.to_row()[column] for column in COLUMNS]
        )
        line = buffer.getvalue()
        assert line.count("\n") == 1, "a games.csv row must be one line"
        return line

    @classmethod
    def from_row(cls, row: Mapping[str, str]) -> GameRecord:
        """Parses a CSV row; `ValueError` when a cell is malformed."""
        missing = [column for column in COLUMNS if column not in row or row[column] is None]
        if missing:
            raise ValueError(f"missing column(s) {', '.join(missing)}")
        return cls(
            game_id=row["game_id"],
            game=row["game"],
            round=int(row["round"]),
            seats=_split(row["seats"]),
            bots=_split(row["bots"]),
            params_hashes=_split(row["params_hashes"]),
            seed=int(row["seed"]),
            returns=tuple(float(value) for value in _split(row["returns"])),
            moves=int(row["moves"]),
            seat_moves=tuple(int(value) for value in _split(row["seat_moves"])),
            seconds_per_move=tuple(float(value) for value in _split(row["seconds_per_move"])),
            max_seconds=tuple(float(value) for value in _split(row["max_seconds"])),
            nodes_per_move=tuple(
                None if value == "" else float(value) for value in row["nodes_per_move"].split(SEP)
            ),
            actions=tuple(int(value) for value in row["actions"].split()),
            duration=float(row["duration"]),
            error_seat=int(row["error_seat"]) if row["error_seat"] else None,
            error=json.loads(row["error"]) if row["error"] else "",
        )


def header_line() -> str:
    """The CSV header line, newline included."""
    return ",".join(COLUMNS) + "\n"


def parse_lines(lines: Sequence[str]) -> list[GameRecord]:
    """Parses complete CSV data lines (no header); `ValueError` names the bad line."""
    records = []
    reader = csv.DictReader(lines, fieldnames=list(COLUMNS), strict=True)
    for number, row in enumerate(reader, start=1):
        if None in row:
            raise ValueError(f"data line {number}: more cells than the {len(COLUMNS)} columns")
        try:
            records.append(GameRecord.from_row(row))
        except (ValueError, TypeError, json.JSONDecodeError) as error:
            raise ValueError(f"data line {number}: {error}") from None
    return records


def _split(cell: str) -> tuple[str, ...]:
    return tuple(cell.split(SEP)) if cell else ()


def _float(value: float) -> str:
    if math.isnan(value):
        return "nan"
    return repr(float(value))
