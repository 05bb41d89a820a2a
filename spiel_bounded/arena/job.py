"""A tournament as a job of the shared engine (`spiel_bounded.runs`): one task per game.

A game's task is its `Match`; its record the `GameRecord` that `play.play_match` returns. While
a game is played its watch holds the acting seat, the phase (building a bot, choosing a move)
and the moves played, so that a game that kills its worker process twice is recorded as a
`crash` naming the signal and the seat that was acting; a worker that could not play the game
at all gives a `runner` error, played again on resume.
"""

from __future__ import annotations

from collections.abc import Hashable

from spiel_bounded.arena.play import BUILDING, STEPPING, WATCH_SIZE, error_record, play_match
from spiel_bounded.arena.records import CRASH, RUNNER, GameRecord
from spiel_bounded.arena.schedule import Match
from spiel_bounded.runs.executors import Death, Watch


class TournamentJob:
    """Plays `Match`es (see the module docstring)."""

    watch_size = WATCH_SIZE

    def work(self, task: Match, watch: Watch | None) -> GameRecord:
        return play_match(task, watch=watch)

    def key(self, task: Match) -> Hashable:
        return task.game_id

    def describe(self, task: Match, death: Death) -> str:
        seat, phase, moves = death.watch[:WATCH_SIZE] if death.watch else (-1, -1, 0)
        acting = _acting(seat, phase)
        if acting is not None:
            who = f"seat {acting} ({task.labels[acting]})"
            doing = (
                f"was choosing a move at ply {moves}" if phase == STEPPING else "was being built"
            )
            return f"{death.how} while {who} {doing}"
        return f"{death.how} while no bot was acting (ply {moves})"

    def crashed(self, task: Match, death: Death) -> GameRecord:
        seat, phase, moves = death.watch[:WATCH_SIZE] if death.watch else (-1, -1, 0)
        first = f"; the first time: {death.first}" if death.first else ""
        if death.signal_name is not None:
            message = (
                "the game killed its worker process twice (a crash in native code, or killed "
                f"from outside): {self.describe(task, death)}{first}"
            )
            kind = CRASH
        else:
            message = (
                "the worker process ended without a result, twice (a failure of the worker, not "
                f"of the game): {self.describe(task, death)}{first}"
            )
            kind = RUNNER
        return error_record(
            task, message, kind=kind, seat=_acting(seat, phase), moves=max(moves, 0)
        )

    def failed(self, task: Match, message: str) -> GameRecord:
        return error_record(task, f"the game {message}", kind=RUNNER)


def _acting(seat: int, phase: int) -> int | None:
    """The seat whose bot was being built or choosing a move, None when none was."""
    return seat if phase in (BUILDING, STEPPING) and seat >= 0 else None
