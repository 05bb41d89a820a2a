"""`GameRecord`, the typed record of one finished game, and its one-line CSV form.

A row of games.csv is one physical line: per-seat values are joined with `;` (labels cannot
contain it), and the error is stored JSON-encoded so that its newlines are escaped: an object
`{"kind": ..., "trace": ...}`, or (rows written before error kinds existed) a bare string.

Which errors count as a finished game (`GameRecord.finished`, see `ERROR_KINDS`): an error of
the game itself (`play`: a bot raised or chose an illegal move, the game raised) or one that
killed its worker process twice (`crash`) is a result, kept on resume like a win or a loss. An
error before the game could start (`setup`: the game or a bot could not be built) or in the
machinery that runs it (`runner`) says nothing about the bots: the game is played again when the
run is resumed.
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

PLAY: Final = "play"
CRASH: Final = "crash"
SETUP: Final = "setup"
RUNNER: Final = "runner"
ERROR_KINDS: Final = {
    PLAY: "a bot raised or chose an illegal move, or the game raised, during play",
    CRASH: "the game killed its worker process (a crash in native code), twice",
    SETUP: "the game or a bot could not be built (replayed on resume)",
    RUNNER: "the executor could not run the game (replayed on resume)",
}
"""Kinds of error record -> what they mean."""
FINISHED_KINDS: Final = frozenset({PLAY, CRASH})
"""Error kinds that count as a finished game (kept on resume); the others are replayed."""

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
        error_seat: The seat whose bot raised (or was being built, or was choosing a move when
            the worker process died), None when no bot was acting.
        error: The traceback (or what happened) when the game ended in an error, else "".
        error_kind: One of `ERROR_KINDS` when the game ended in an error ("" for rows written
            before error kinds existed, which count as "play"), else "".
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
    error_kind: str = ""

    @property
    def ok(self) -> bool:
        """True when the game finished without an error."""
        return not self.error

    @property
    def opening_plies(self) -> int:
        """Decision plies of the random opening (played before any bot chose)."""
        return self.moves - sum(self.seat_moves)

    @property
    def finished(self) -> bool:
        """True when the game counts as played: no error, or an error of `FINISHED_KINDS`.

        A game that is not finished is played again when the run is resumed.
        """
        return self.ok or (self.error_kind or PLAY) in FINISHED_KINDS

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
            "error": _error_cell(self.error, self.error_kind),
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
            **_parse_error_cell(row["error"]),
        )


def latest(records: Sequence[GameRecord]) -> list[GameRecord]:
    """The last record of each game id, in first-seen order (a game is counted once).

    A game id appears more than once when a game that was not finished (see `finished`), or
    one replayed on request, was played again: its last record is its result.
    """
    by_id: dict[str, GameRecord] = {}
    for record in records:
        by_id.pop(record.game_id, None)
        by_id[record.game_id] = record
    return list(by_id.values())


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


def _error_cell(error: str, kind: str) -> str:
    if not error:
        return ""
    if not kind:
        return json.dumps(error)
    return json.dumps({"kind": kind, "trace": error})


def _parse_error_cell(cell: str) -> dict[str, str]:
    if not cell:
        return {"error": "", "error_kind": ""}
    value = json.loads(cell)
    if isinstance(value, str):
        return {"error": value, "error_kind": ""}
    if (
        not isinstance(value, dict)
        or value.get("kind") not in ERROR_KINDS
        or not isinstance(value.get("trace"), str)
    ):
        raise ValueError(
            f"error cell {cell[:60]!r}: accepted: a JSON string or "
            f'{{"kind": one of {", ".join(ERROR_KINDS)}, "trace": a string}}'
        )
    return {"error": value["trace"], "error_kind": value["kind"]}


def _split(cell: str) -> tuple[str, ...]:
    return tuple(cell.split(SEP)) if cell else ()


def _float(value: float) -> str:
    if math.isnan(value):
        return "nan"
    return repr(float(value))


def pair_order(labels: Sequence[str], order: Sequence[str]) -> list[str]:
    """The distinct `labels` in the tournament's label `order` (unknown labels last, by name):
    the order a pairing's bot and opponent are reported in."""
    rank = {label: index for index, label in enumerate(order)}
    return sorted(set(labels), key=lambda label: (rank.get(label, len(rank)), label))
