"""The finite sets of terminal values that `bounded_pns` asks its questions over.

`bounded_pns` (`search.pns`) proves thresholds "value >= o" for the outcomes o a game can end
with, so it plays only games whose set of terminal values is known and small: those listed in
`TERMINAL_VALUES` (win / draw / loss, audited against OpenSpiel 2.0.2) and `bounded_random_tree`
with `integer_values=1`. A search checks every terminal value it meets against the set.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Final

import pyspiel

from spiel_bounded.games import game_description

_WIN_DRAW_LOSS: Final = (-1.0, 0.0, 1.0)

TERMINAL_VALUES: Final[Mapping[str, tuple[float, ...]]] = {
    name: _WIN_DRAW_LOSS
    for name in (
        "amazons",
        "breakthrough",
        "checkers",
        "chess",
        "clobber",
        "connect_four",
        "dots_and_boxes",
        "go",
        "gomoku",
        "havannah",
        "hex",
        "hive",
        "lines_of_action",
        "mancala",
        "mnk",
        "nim",
        "nine_mens_morris",
        "othello",
        "oware",
        "pentago",
        "quoridor",
        "tic_tac_toe",
        "twixt",
        "ultimate_tic_tac_toe",
        "y",
    )
}
"""Games whose every terminal return lies in a small known set: win / draw / loss as +1 / 0 / -1
(some never draw; a superset is harmless), while the game's utility range is [-1, 1]. A search
checks every terminal value it meets against the set and raises `ValueError` on one outside
it."""

MAX_OUTCOMES: Final = 64
"""Most terminal values `bounded_pns` accepts (one question per threshold at most)."""

SYNTHETIC: Final = "bounded_random_tree"


def terminal_values(game: pyspiel.Game) -> tuple[float, ...] | None:
    """The sorted set of terminal values of `game` for a player, or None when not known.

    Known: the games of `TERMINAL_VALUES`, and `bounded_random_tree` with `integer_values=1`
    and at most `MAX_OUTCOMES` integers in its range.
    """
    name = game.get_type().short_name
    if name in TERMINAL_VALUES:
        # A parameter may turn the result into a score (dots_and_boxes' utility_margin): the
        # table holds only while the utility range is that of win / draw / loss.
        values = TERMINAL_VALUES[name]
        if (game.min_utility(), game.max_utility()) == (values[0], values[-1]):
            return values
        return None
    if name == SYNTHETIC:
        params = game.get_parameters()
        if params.get("integer_values"):
            low = math.ceil(float(params["min_value"]))
            high = math.floor(float(params["max_value"]))
            if high - low + 1 <= MAX_OUTCOMES:
                return tuple(float(v) for v in range(low, high + 1))
    return None


UNKNOWN_OUTCOMES: Final = (
    "its set of terminal values is not known to be small (bounded_pns accepts the win / draw / "
    f"loss games {', '.join(sorted(TERMINAL_VALUES))} with utilities in [-1, 1], and {SYNTHETIC} "
    f"with integer_values=1 and at most {MAX_OUTCOMES} integers in its range)"
)
"""Why `bounded_pns` refuses a game whose set of terminal values is not known."""


def outcome_reason(game: pyspiel.Game) -> str:
    """`UNKNOWN_OUTCOMES` when `bounded_pns` cannot play `game` for want of a known set of
    terminal values, else ""."""
    return "" if terminal_values(game) is not None else UNKNOWN_OUTCOMES


def bad_terminal(
    game: pyspiel.Game, outcomes: Iterable[float], value: float, text: str
) -> ValueError:
    """The error for a terminal value outside the game's declared set (`text`: the state)."""
    return ValueError(
        f"terminal value {value} of {game_description(game)} is not in its declared set of "
        f"terminal values {sorted(outcomes)}:\n{text}"
    )
