"""Per-player heuristics for n-player games: chinese_checkers.

chinese_checkers: each player's distance to go is the sum over its pegs of the hex distance to
the far tip of its target triangle (the triangle opposite its home), read from `str(state)`:
17 rows of the star, cells in doubled coordinates (row, character column), a digit d for a peg
of player d - 1. Progress `s_p = (D_start - D_p) / (D_start - D_done)` is 0 at the start and 1
with every peg home. Players' winning chances are `pi = softmax(CC_SHARPNESS * s)`, mixed with
`CC_FLOOR` of the uniform so that no chance is 0 or 1, and the value of player p is its expected
return `n * pi_p - 1`: a winner gets n - 1 and the others -1, so the values sum to 0 (the game's
constant sum) and lie strictly inside [-1, n - 1].
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final

import pyspiel

CC_SHARPNESS: Final = 6.0
"""How sharply a lead in progress turns into a winning chance."""
CC_FLOOR: Final = 0.05
"""Share of the uniform chance mixed in: values stay strictly inside the range."""
_ROWS: Final = 17


def _cells(text: str) -> dict[tuple[int, int], str]:
    rows = text.split("\n")[:_ROWS]
    return {
        (row, column): char
        for row, line in enumerate(rows)
        for column, char in enumerate(line)
        if char != " "
    }


def _distance(a: tuple[int, int], b: tuple[int, int]) -> int:
    rows, columns = abs(a[0] - b[0]), abs(a[1] - b[1])
    return rows + max(0, (columns - rows) // 2)


class ChineseCheckersScorer:
    """Values chinese_checkers states for every player (see the module docstring)."""

    def __init__(self, game: pyspiel.Game) -> None:
        self._players = game.num_players()
        start = _cells(str(game.new_initial_state()))
        if len(start) != 121:
            raise ValueError(
                "the chinese_checkers heuristic does not understand how this OpenSpiel version "
                f"prints the board ({len(start)} cells, expected 121)"
            )
        centre_row = (_ROWS - 1) // 2
        centre_column = sum(column for _, column in start) // len(start)
        self._tips: list[tuple[int, int]] = []
        self._start: list[int] = []
        self._done: list[int] = []
        for player in range(self._players):
            home = [cell for cell, char in start.items() if char == str(player + 1)]
            target = [(2 * centre_row - row, 2 * centre_column - column) for row, column in home]
            tip = max(target, key=lambda cell: _distance(cell, (centre_row, centre_column)))
            self._tips.append(tip)
            self._start.append(sum(_distance(cell, tip) for cell in home))
            self._done.append(sum(_distance(cell, tip) for cell in target))

    def progress(self, text: str) -> list[float]:
        """Every player's progress: 0 at the start, 1 with every peg in its target triangle."""
        pegs: list[list[tuple[int, int]]] = [[] for _ in range(self._players)]
        for cell, char in _cells(text).items():
            if char.isdigit():
                pegs[int(char) - 1].append(cell)
        return [
            (self._start[p] - sum(_distance(cell, self._tips[p]) for cell in pegs[p]))
            / (self._start[p] - self._done[p])
            for p in range(self._players)
        ]

    def values(self, text: str) -> Sequence[float]:
        """Every player's expected return (they sum to 0, strictly inside [-1, n - 1])."""
        progress = self.progress(text)
        top = max(progress)
        weights = [math.exp(CC_SHARPNESS * (value - top)) for value in progress]
        total = sum(weights)
        n = self._players
        chances = [(1 - CC_FLOOR) * weight / total + CC_FLOOR / n for weight in weights]
        values = [n * chance - 1 for chance in chances]
        values[-1] = -sum(values[:-1])
        return values

    def score(self, text: str) -> float:
        """Player 0's value normalised to [-1, 1] (the evaluator's common `score`)."""
        n = self._players
        return (self.values(text)[0] + 1) / (n / 2) - 1
