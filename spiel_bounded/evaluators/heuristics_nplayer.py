"""Per-player heuristics for n-player games: chinese_checkers, maedn and yacht.

Each scorer turns a per-player strength into winning chances `pi = softmax(sharpness * s)`,
mixed with `FLOOR` of the uniform so that no chance is 0 or 1, and returns every player's
expected return `pi_p * W + (1 - pi_p) * L`, W the winner's return and L a loser's. W + (n - 1) L
is the game's constant sum (0), so the values keep it and lie strictly inside [L, W].

chinese_checkers (W = n - 1, L = -1): each player's distance to go is the sum over its pegs of
the hex distance to the far tip of its target triangle (the triangle opposite its home), read
from `str(state)`: 17 rows of the star, cells in doubled coordinates (row, character column), a
digit d for a peg of player d - 1. Progress `s_p = (D_start - D_p) / (D_start - D_done)` is 0 at
the start and 1 with every peg home.

maedn (W = n - 1, L = -1): from each player's `observation_tensor` (its own frame: field i of
the track is i steps past its start field), the progress of its pieces (a piece out of play 0,
on track field i: i + 1, on goal field g: 41 + g) minus, for each piece on the track, its
progress times `MAEDN_HIT_CHANCE` per opponent piece 1 to 6 fields behind it; `s_p` is that over
the progress of a finished player (170).

yacht (W = 1, L = -1 / (n - 1), as OpenSpiel's ranking gives without ties): each player's
expected final score is its total plus `YACHT_EXPECTED` for every category it has left, and
`s_p` is that over the spread `YACHT_SPREAD * sqrt(1 + categories left on average)`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final

import numpy as np
import pyspiel

CC_SHARPNESS: Final = 6.0
"""chinese_checkers: how sharply a lead in progress turns into a winning chance."""
MAEDN_SHARPNESS: Final = 6.0
"""maedn: how sharply a lead in progress turns into a winning chance."""
MAEDN_HIT_CHANCE: Final = 1 / 6
"""maedn: share of a piece's progress at risk per opponent piece 1-6 fields behind it."""
FLOOR: Final = 0.05
"""Share of the uniform chance mixed in: values stay strictly inside the range."""
YACHT_EXPECTED: Final = (2.0, 5.0, 8.0, 11.0, 14.0, 17.0, 22.0, 10.0, 12.0, 12.0, 12.0, 12.0)
"""yacht: rough expected score of each category (Ones .. Sixes, Chance, Four of a Kind, Full
House, Small Straight, Large Straight, Yacht) when filled later in the game."""
YACHT_SPREAD: Final = 8.0
"""yacht: standard deviation of a player's final score per remaining category, roughly."""
_YACHT_LABELS: Final = (
    "Ones", "Twos", "Threes", "Fours", "Fives", "Sixes",
    "Chance", "4Kind", "Full", "SmStr", "LgStr", "Yacht",
)  # fmt: skip
_MAEDN_TRACK: Final = 40
_MAEDN_GOAL_FIELDS: Final = 4
_MAEDN_MAX_PLAYERS: Final = 4
_MAEDN_FINISHED: Final = 41 + 42 + 43 + 44
_ROWS: Final = 17


def expected_returns(strengths: Sequence[float], win: float, lose: float) -> list[float]:
    """Every player's expected return when winning chances are `softmax(strengths)` mixed with
    `FLOOR` of the uniform; `win + (n - 1) * lose` must be 0 (the last value is set to keep the
    sum exactly 0)."""
    top = max(strengths)
    weights = [math.exp(strength - top) for strength in strengths]
    total = sum(weights)
    n = len(strengths)
    chances = [(1 - FLOOR) * weight / total + FLOOR / n for weight in weights]
    values = [lose + chance * (win - lose) for chance in chances]
    values[-1] = -sum(values[:-1])
    return values


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
        n = self._players
        return expected_returns(
            [CC_SHARPNESS * value for value in self.progress(text)], n - 1.0, -1.0
        )

    def score(self, text: str) -> float:
        """Player 0's value normalised to [-1, 1] (the evaluator's common `score`)."""
        n = self._players
        return (self.values(text)[0] + 1) / (n / 2) - 1


class MaednScorer:
    """Values maedn states for every player (see the module docstring)."""

    def __init__(self, game: pyspiel.Game) -> None:
        self._players = game.num_players()
        size = game.observation_tensor_size()
        self._goal_start = 4 * _MAEDN_TRACK
        self._out_start = self._goal_start + 4 * _MAEDN_GOAL_FIELDS * _MAEDN_MAX_PLAYERS
        if size < self._out_start + _MAEDN_MAX_PLAYERS:
            raise ValueError(
                "the maedn heuristic does not understand this OpenSpiel version's observation "
                f"tensor ({size} values)"
            )

    def progress(self, state: pyspiel.State) -> list[float]:
        """Every player's progress at risk (see the module docstring), 1 when finished."""
        n = self._players
        result = []
        for player in range(n):
            tensor = np.asarray(state.observation_tensor(player))
            track = tensor[: self._goal_start].reshape(_MAEDN_TRACK, 4)
            goal = tensor[self._goal_start : self._goal_start + 4 * _MAEDN_GOAL_FIELDS]
            own = np.flatnonzero(track[:, player])
            opponents = np.delete(track[:, :n], player, axis=1).sum(axis=1)
            total = float(np.sum(own + 1))
            for field in own:
                behind = sum(opponents[(field - step) % _MAEDN_TRACK] for step in range(1, 7))
                total -= (field + 1) * min(1.0, MAEDN_HIT_CHANCE * behind)
            goal_fields = np.flatnonzero(goal.reshape(_MAEDN_GOAL_FIELDS, 4)[:, player])
            total += float(np.sum(41 + goal_fields))
            result.append(total / _MAEDN_FINISHED)
        return result

    def values(self, state: pyspiel.State) -> Sequence[float]:
        """Every player's expected return (they sum to 0, strictly inside [-1, n - 1])."""
        strengths = [MAEDN_SHARPNESS * value for value in self.progress(state)]
        return expected_returns(strengths, self._players - 1.0, -1.0)

    def score(self, state: pyspiel.State) -> float:
        """Player 0's value normalised to [-1, 1] (the evaluator's common `score`)."""
        return (self.values(state)[0] + 1) / (self._players / 2) - 1


class YachtScorer:
    """Values yacht states for every player (see the module docstring)."""

    def __init__(self, game: pyspiel.Game) -> None:
        if not self.supports(game):
            parameters = game.get_parameters()
            dice = {key: parameters.get(key) for key in ("num_dice", "dice_sides")}
            raise ValueError(
                f"the yacht heuristic assumes 5 six-sided dice, got {dice}; use "
                "evaluator='rollout' for other dice"
            )
        self._players = game.num_players()

    @staticmethod
    def supports(game: pyspiel.Game) -> bool:
        """Whether `game` plays with the 5 six-sided dice the expected scores assume."""
        parameters = game.get_parameters()
        return bool(parameters.get("num_dice") == 5 and parameters.get("dice_sides") == 6)

    def expected_scores(self, text: str) -> tuple[list[float], float]:
        """Every player's expected final score, and the categories left per player on average."""
        scores: list[float] = []
        left = 0
        for block in text.split("\nPlayer ")[1:]:
            header, *lines = block.strip().split("\n")
            total = float(header.split("total: ")[1].rstrip("):"))
            filled = {line.split(":")[0].strip() for line in lines if ":" in line}
            remaining = [
                value
                for label, value in zip(_YACHT_LABELS, YACHT_EXPECTED, strict=True)
                if label not in filled
            ]
            left += len(remaining)
            scores.append(total + sum(remaining))
        if len(scores) != self._players:
            raise ValueError(f"the yacht heuristic cannot read this state: {text!r}")
        return scores, left / self._players

    def values(self, text: str) -> Sequence[float]:
        """Every player's expected return (they sum to 0, inside [-1/(n-1), 1])."""
        scores, left = self.expected_scores(text)
        spread = YACHT_SPREAD * math.sqrt(1.0 + left)
        n = self._players
        return expected_returns([score / spread for score in scores], 1.0, -1.0 / (n - 1))

    def score(self, text: str) -> float:
        """Player 0's value normalised to [-1, 1] (the evaluator's common `score`)."""
        return float(self.values(text)[0])
