"""Fast hand-written heuristics for amazons, backgammon, breakthrough, connect_four, pig and
tic_tac_toe.

The games with chance, backgammon and pig, have their own heuristics in `heuristics_chance`: they
estimate winning chances from the side to move (they also value chance nodes, which OpenSpiel's
`expectiminimax` evaluates at the depth limit) and support every player count pig allows. The rest
of this docstring is about the deterministic two-player games.

Every deterministic heuristic computes an integer *score* from player 0's point of view (positive:
player 0 is better off) by reading `str(state)`, and `HeuristicEvaluator` maps it to per-player
values

    v = 0.95 * tanh(score / scale),  values = (mid + half * v, mid - half * v)

where `mid` and `half` are the centre and half-width of `[game.min_utility(), game.max_utility()]`.
So `value[p]` is player p's estimated utility, the two values mirror each other around the middle
of the range, and no value ever reaches a bound: a heuristic never claims a proven result.

The heuristics are static (they ignore whose turn it is) and built for speed: they run at every
leaf of a pure-Python alpha-beta search, so they avoid per-cell Python loops.

- connect_four and tic_tac_toe (`_LineScorer`): every window of `x_in_row` consecutive cells
  (row, column or diagonal) that holds pieces of only one player is worth `4 ** (n - 1)` to that
  player, where n is the number of their pieces in it (1, 4, 16 for connect four; 64 for a
  completed four), plus `CONNECT_FOUR_CENTRE_BONUS` per piece in the centre column(s) in
  connect_four. Each board line is cut out of `str(state)` with one C-level slice and looked up in
  a table of line scores filled on first use.
- amazons (`heuristics_amazons.AmazonsScorer`): the territory each side reaches first by queen
  moves, and its mobility, read from the observation (not the text); 6x6, 8x8 and 10x10.
- breakthrough (`_BreakthroughScorer`): for each player, `BREAKTHROUGH_PIECE` per piece plus,
  for a piece at distance d from its home row, `d + BREAKTHROUGH_ADVANCE * d**2 / (rows - 2)**2`
  (rounded down), an extra `BREAKTHROUGH_NEAR_PROMOTION` for a piece one step from the goal row,
  and `BREAKTHROUGH_DEFENDED` per piece defended by a friendly piece diagonally behind it.
  Summed over windows of two adjacent rows, each cut out of `str(state)` and looked up in a
  table filled on first use, like the lines of connect_four.
  Board sizes come from the game's `rows`/`columns` parameters (connect_four: also `x_in_row`).

Each scorer checks at construction that `str(initial state)` has the layout it relies on, so an
OpenSpiel version that prints boards differently fails loudly instead of scoring garbage.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import partial
from operator import itemgetter
from typing import Final

import pyspiel

from spiel_bounded.evaluators.heuristics_amazons import AMAZONS_SCALE, AmazonsScorer
from spiel_bounded.evaluators.heuristics_chance import BackgammonScorer, PigScorer
from spiel_bounded.evaluators.heuristics_nplayer import (
    ChineseCheckersScorer,
    MaednScorer,
    YachtScorer,
)
from spiel_bounded.games import game_description

HEURISTIC_GAMES: Final = (
    "amazons",
    "backgammon",
    "bounded_random_tree",
    "breakthrough",
    "chinese_checkers",
    "connect_four",
    "maedn",
    "pig",
    "tic_tac_toe",
    "yacht",
)
"""Short names of the games `HeuristicEvaluator` supports (pig, chinese_checkers, maedn, yacht
and the synthetic trees: any number of players)."""
CHANCE_HEURISTIC_GAMES: Final = ("backgammon", "pig")
"""The supported games with chance nodes, whose heuristics also value chance nodes."""

LINE_WEIGHT_BASE: Final = 4
"""A window holding n pieces of one player only is worth `LINE_WEIGHT_BASE ** (n - 1)`."""
CONNECT_FOUR_CENTRE_BONUS: Final = 2
"""Connect four: score per piece in the centre column (both centre columns if even)."""
CONNECT_FOUR_SCALE: Final = 48.0
TIC_TAC_TOE_SCALE: Final = 8.0

BREAKTHROUGH_PIECE: Final = 10
"""Breakthrough: score per piece."""
BREAKTHROUGH_ADVANCE: Final = 8
"""Breakthrough: advancement bonus one step from the goal row (quadratic in the distance)."""
BREAKTHROUGH_NEAR_PROMOTION: Final = 10
"""Breakthrough: extra score for a piece one step from the goal row."""
BREAKTHROUGH_DEFENDED: Final = 1
"""Breakthrough: score per piece defended by a friendly piece diagonally behind it."""
BREAKTHROUGH_SCALE: Final = 30.0

LEAF_MEMO_SIZE: Final = 1 << 18
"""Boards remembered by `HeuristicEvaluator.leaf_value` (the memo is emptied when full)."""

_CONFIDENCE: Final = 0.95  # |v| < 0.95 of the half-range: values stay strictly inside the range


def has_heuristic(game: pyspiel.Game) -> bool:
    """True when `HeuristicEvaluator` has a heuristic for `game` (yacht: with its default 5
    six-sided dice)."""
    short_name = game.get_type().short_name
    if short_name == "yacht":
        return YachtScorer.supports(game)
    return bool(short_name in HEURISTIC_GAMES)


class _LineTable(dict[str, int]):
    """Line string -> signed score of the windows inside it, computed on first use."""

    def __init__(self, score: Callable[[str], int]) -> None:
        super().__init__()
        self._score = score

    def __missing__(self, key: str) -> int:
        value = self._score(key)
        self[key] = value
        return value


def line_score(line: str, window: int, mine: str = "x", theirs: str = "o", centre: int = 0) -> int:
    """The score of one board line for the player owning `mine` (the reference definition).

    Args:
        line: The cells of the line, one character each.
        window: Pieces in a row needed to win (`x_in_row`).
        mine: The character of the scoring player's pieces.
        theirs: The character of the opponent's pieces.
        centre: Bonus per own piece minus opponent piece anywhere in the line.

    Returns:
        Sum over the windows of the line: `LINE_WEIGHT_BASE ** (n - 1)` for a window with n >= 1
        own pieces and no opponent piece, minus the same for the opponent; plus the centre bonus.
    """
    total = centre * (line.count(mine) - line.count(theirs))
    for start in range(len(line) - window + 1):
        cells = line[start : start + window]
        own, other = cells.count(mine), cells.count(theirs)
        if own and not other:
            total += LINE_WEIGHT_BASE ** (own - 1)
        elif other and not own:
            total -= LINE_WEIGHT_BASE ** (other - 1)
    return total


class _LineScorer:
    """Sums the scores of all board lines of an m,n,k board printed row by row.

    The board is `rows` lines of `columns` cells, each line `stride` characters apart in the
    string (`stride = columns + 1` with the newline). Lines are rows, columns and both diagonal
    directions; those shorter than `window` hold no window and are skipped.
    """

    def __init__(
        self, rows: int, columns: int, stride: int, window: int, centre_bonus: int
    ) -> None:
        plain = _LineTable(lambda line: line_score(line, window))
        centre = _LineTable(lambda line: line_score(line, window, centre=centre_bonus))
        centre_columns = {(columns - 1) // 2, columns // 2} if centre_bonus else set()
        slices: list[slice] = []
        tables: list[_LineTable] = []

        def add(row: int, column: int, d_row: int, d_column: int, table: _LineTable) -> None:
            length = 0
            while 0 <= row + length * d_row < rows and 0 <= column + length * d_column < columns:
                length += 1
            if length >= window or table is centre:  # short centre columns: the bonus only
                start = row * stride + column
                step = d_row * stride + d_column
                slices.append(slice(start, start + step * (length - 1) + 1, step))
                tables.append(table)

        for row in range(rows):
            add(row, 0, 0, 1, plain)
        for column in range(columns):
            add(0, column, 1, 0, centre if column in centre_columns else plain)
        for column in range(columns):  # down-right diagonals from the top row and left column
            add(0, column, 1, 1, plain)
        for row in range(1, rows):
            add(row, 0, 1, 1, plain)
        for column in range(columns):  # down-left diagonals from the top row and right column
            add(0, column, 1, -1, plain)
        for row in range(1, rows):
            add(row, columns - 1, 1, -1, plain)
        self._cut: Callable[[str], tuple[str, ...]]
        if len(slices) > 1:
            self._cut = itemgetter(*slices)
        else:  # itemgetter with one key returns the item itself, not a 1-tuple
            self._cut = lambda text: tuple(text[part] for part in slices)
        self._tables = tables
        self.lines = len(slices)
        self.through: dict[int, tuple[tuple[slice, _LineTable], ...]] = {}
        """String index of a cell -> the lines through it, as (slice, score table)."""
        for part, table in zip(slices, tables, strict=True):
            for cell in range(part.start, part.stop, part.step):
                self.through[cell] = (*self.through.get(cell, ()), (part, table))

    def __call__(self, text: str) -> int:
        return sum(map(dict.__getitem__, self._tables, self._cut(text)))


class ConnectFourChildren:
    """Values of a connect_four state's children, scored from the parent without building them.

    A move adds one piece, so a child's score is the parent's plus, for each line through the
    new piece, the line's new score minus its old one (four lines instead of all of them). The
    child is terminal when one of those lines holds `x_in_row` of the mover's pieces in a row
    (no line held one before, or the parent would be over) or when the board is full. The
    results are exactly those of building the child and calling `evaluate` (or reading its
    return when terminal): same integer score, same arithmetic (tests).
    """

    def __init__(
        self,
        scorer: _LineScorer,
        rows: int,
        columns: int,
        window: int,
        values: Callable[[int, int], float],
        returns: tuple[float, float, float],
    ) -> None:
        stride = columns + 1
        self._scorer = scorer
        self._values = values
        self._win, self._loss, self._draw = returns
        # Each column's cells from the bottom row up (pieces fall to the last line printed).
        self._columns = [
            tuple((rows - 1 - row) * stride + column for row in range(rows))
            for column in range(columns)
        ]
        self._runs = ("x" * window, "o" * window)

    def __call__(self, state: pyspiel.State, player: int) -> Callable[[int], tuple[float, bool]]:
        """For `state` (not terminal), a function: legal move -> (value of the child for
        `player`, whether the child is terminal), the value being the child's return when it is
        terminal and its heuristic value otherwise."""
        text = str(state)
        base = self._scorer(text)
        mover = state.current_player()
        piece = "xo"[mover]
        run = self._runs[mover]
        through = self._scorer.through
        columns = self._columns
        value_of = self._values
        won = self._win if mover == player else self._loss
        draw = self._draw

        def child(move: int) -> tuple[float, bool]:
            for cell in columns[move]:
                if text[cell] == ".":
                    break
            after = text[:cell] + piece + text[cell + 1 :]
            score = base
            for part, table in through.get(cell, ()):
                line = after[part]
                if run in line:
                    return won, True
                score += table[line] - table[text[part]]
            if "." not in after:
                return draw, True
            return value_of(score, player), False

        return child


class _BreakthroughScorer:
    """Material, advancement and defended pieces, from player 0's side, by pairs of rows.

    `str(state)` prints one line per row, top row first: a one-character row label, the cells
    ('b' black = player 0, moving down; 'w' white = player 1, moving up; '.' empty) and a
    newline, then a line of column letters. Every term of the score involves one row (a piece's
    weight) or two adjacent rows (a piece defended from diagonally behind), so the score is a
    sum over the windows of rows (r, r + 1): window r counts row r's pieces (the last window
    also the last row's) and the defences between its two rows. Each window is cut out of the
    string with one C-level slice and looked up in a table of window scores filled on first use.
    """

    def __init__(self, rows: int, columns: int) -> None:
        stride = columns + 2
        goal = rows - 1
        weight = [0] * rows  # by distance from the home row
        for distance in range(goal):
            weight[distance] = (
                BREAKTHROUGH_PIECE
                + distance
                + (BREAKTHROUGH_ADVANCE * distance * distance) // max(1, (goal - 1) ** 2)
            )
        weight[goal - 1] += BREAKTHROUGH_NEAR_PROMOTION
        weight[goal] = BREAKTHROUGH_PIECE + 2 * (BREAKTHROUGH_ADVANCE + BREAKTHROUGH_NEAR_PROMOTION)
        self.weights = tuple(weight)

        def material(cells: str, row: int) -> int:
            return sum(
                weight[row] if cell == "b" else -weight[goal - row] if cell == "w" else 0
                for cell in cells
            )

        def defended(defenders: str, cells: str, piece: str) -> int:
            padded = "." + defenders + "."
            return sum(
                cell == piece and piece in (padded[column], padded[column + 2])
                for column, cell in enumerate(cells)
            )

        def window_score(row: int, text: str) -> int:
            upper = text[1 : 1 + columns]
            lower = text[stride + 1 : stride + 1 + columns]
            score = material(upper, row) + BREAKTHROUGH_DEFENDED * (
                defended(upper, lower, "b") - defended(lower, upper, "w")
            )
            if row + 1 == goal:
                score += material(lower, goal)
            return score

        self._tables = [_LineTable(partial(window_score, row)) for row in range(goal)]
        windows = [slice(row * stride, (row + 2) * stride) for row in range(goal)]
        self._cut: Callable[[str], tuple[str, ...]]
        if len(windows) > 1:
            self._cut = itemgetter(*windows)
        else:  # itemgetter with one key returns the item itself, not a 1-tuple
            self._cut = lambda text: tuple(text[part] for part in windows)

    def __call__(self, text: str) -> int:
        return sum(map(dict.__getitem__, self._tables, self._cut(text)))


def _scorer(game: pyspiel.Game, short_name: str) -> tuple[Callable[[str], int], float]:
    """The score function (of `str(state)`) and the tanh scale for a supported game.

    Raises:
        ValueError: `str(state)` does not have the expected layout (a different OpenSpiel
            version, or a board whose labels are not ASCII).
    """
    params = game.get_parameters()
    text = str(game.new_initial_state())
    scorer: Callable[[str], int]
    if short_name == "connect_four":
        rows, columns = int(params["rows"]), int(params["columns"])
        window = int(params["x_in_row"])
        scorer = _LineScorer(rows, columns, columns + 1, window, CONNECT_FOUR_CENTRE_BONUS)
        expected, scale = ("." * columns + "\n") * rows, CONNECT_FOUR_SCALE
    elif short_name == "tic_tac_toe":
        scorer = _LineScorer(3, 3, 4, 3, 0)
        expected, scale = "...\n...\n...", TIC_TAC_TOE_SCALE
    elif short_name == "breakthrough":
        rows, columns = int(params["rows"]), int(params["columns"])
        scorer = _BreakthroughScorer(rows, columns)
        # Layout only: one label character, the cells and a newline per row, then the letters.
        expected = text if len(text) == (rows + 1) * (columns + 2) and text.isascii() else ""
        scale = BREAKTHROUGH_SCALE
    else:
        raise AssertionError(short_name)  # unreachable: callers check HEURISTIC_GAMES
    if text != expected:
        raise ValueError(
            f"the {short_name} heuristic does not understand how {game_description(game)} "
            f"prints its initial state: {text!r}"
        )
    return scorer, scale


class HeuristicEvaluator:
    """Values states of the games in `HEURISTIC_GAMES` with a fast hand-written heuristic.

    connect_four, breakthrough, tic_tac_toe, amazons: `evaluate(state)` returns
    `(mid + half * v, mid - half * v)` with `v = 0.95 * tanh(score(state) / scale)`, a static
    score (see the module docstring). backgammon and pig: the values come from an estimated
    winning chance given the side to move (see `heuristics_chance`). chinese_checkers, maedn and
    yacht: every player's expected return from estimated winning chances (see
    `heuristics_nplayer`). The synthetic trees (`bounded_random_tree`): the mean returns of a
    few seeded playouts (`SyntheticState.playout_returns`). `evaluate` accepts chance nodes in
    the games that have them. `value[p]` is player p's estimated utility, inside the utility
    range and keeping a constant-sum game's sum.

    Attributes:
        name: "heuristic".
        game_name: The game's short name.
    """

    name = "heuristic"

    def __init__(self, game: pyspiel.Game) -> None:
        """Builds the heuristic for `game`.

        Args:
            game: A loaded OpenSpiel game whose short name is in `HEURISTIC_GAMES`.

        Raises:
            ValueError: The game has no heuristic, or prints its states in a layout the
                heuristic does not understand (or pig with `diceoutcomes` < 2).
        """
        short_name = game.get_type().short_name
        if short_name not in HEURISTIC_GAMES:
            raise ValueError(
                f"no heuristic for {game_description(game)}; heuristics exist for: "
                f"{', '.join(HEURISTIC_GAMES)}"
            )
        self.game_name: str = short_name
        low, high = float(game.min_utility()), float(game.max_utility())
        self._mid = 0.5 * (low + high)
        self._half = 0.5 * (high - low) * _CONFIDENCE
        self._values: Callable[[pyspiel.State], Sequence[float]]
        self._score: Callable[[pyspiel.State], float]
        self.scorer: object = None
        """The game's scorer (e.g. `PigScorer`; the line scorer of the board games; None for
        the synthetic trees)."""
        self._text_score: Callable[[str], int] | None = None
        self._inverse_scale = 0.0
        if short_name == "maedn":
            maedn = MaednScorer(game)
            self.scorer = maedn
            self._values, self._score = maedn.values, maedn.score
        elif short_name == "amazons":
            amazons = AmazonsScorer(game)
            self.scorer = amazons
            self._inverse_scale = 1.0 / AMAZONS_SCALE
            self._score = amazons.score
            self._values = lambda state: self._pair(amazons.score(state) * self._inverse_scale)
        elif short_name == "bounded_random_tree":
            self._values = _playout_returns
            self._score = lambda state: (_playout_returns(state)[0] - self._mid) / self._half
        elif short_name in CHANCE_HEURISTIC_GAMES or short_name in ("chinese_checkers", "yacht"):
            text_scorer: BackgammonScorer | PigScorer | ChineseCheckersScorer | YachtScorer
            if short_name == "backgammon":
                text_scorer = BackgammonScorer(game)
            elif short_name == "pig":
                text_scorer = PigScorer(game)
            elif short_name == "yacht":
                text_scorer = YachtScorer(game)
            else:
                text_scorer = ChineseCheckersScorer(game)
            self.scorer = text_scorer
            values, score = text_scorer.values, text_scorer.score
            self._values = lambda state: values(str(state))
            self._score = lambda state: score(str(state))
        else:
            text_score, scale = _scorer(game, short_name)
            self.scorer = text_score
            self._inverse_scale = 1.0 / scale
            self._text_score = text_score
            self._score = lambda state: text_score(str(state))
            self._values = lambda state: self._pair(text_score(str(state)) * self._inverse_scale)
            if short_name == "connect_four":
                assert isinstance(text_score, _LineScorer)
                params = game.get_parameters()
                self.child_leaves = ConnectFourChildren(
                    text_score,
                    int(params["rows"]),
                    int(params["columns"]),
                    int(params["x_in_row"]),
                    self._player_value,
                    (float(game.max_utility()), float(game.min_utility()), 0.0),
                )

    child_leaves: Callable[[pyspiel.State, int], Callable[[int], tuple[float, bool]]] | None = None
    """connect_four only (else None): `child_leaves(state, player)(move)` is `(value, terminal)`
    of the child for `player`, the child's return or its `evaluate` value, without building it
    (`ConnectFourChildren`). Searches use it for the children at their depth limit."""

    def _pair(self, scaled: float) -> tuple[float, float]:
        offset = self._half * math.tanh(scaled)
        return (self._mid + offset, self._mid - offset)

    def _player_value(self, score: int, player: int) -> float:
        """`_pair(score / scale)[player]`, computed the same way to the last bit."""
        offset = self._half * math.tanh(score * self._inverse_scale)
        return self._mid + offset if player == 0 else self._mid - offset

    def leaf_value(self, player: int) -> Callable[[pyspiel.State], float] | None:
        """A function `state -> evaluate(state)[player]`, equal to the last bit but faster
        (one call, and a memo of the last `LEAF_MEMO_SIZE` boards: transposed leaves are scored
        once), for connect_four, breakthrough and tic_tac_toe; None for the other games."""
        if self._text_score is None:
            return None
        text_score, inverse_scale = self._text_score, self._inverse_scale
        mid, half, tanh = self._mid, self._half, math.tanh
        sign = 1.0 if player == 0 else -1.0
        memo: dict[str, float] = {}

        def value(state: pyspiel.State) -> float:
            text = str(state)
            known = memo.get(text)
            if known is None:
                if len(memo) >= LEAF_MEMO_SIZE:
                    memo.clear()
                known = memo[text] = mid + sign * (half * tanh(text_score(text) * inverse_scale))
            return known

        return value

    def score(self, state: pyspiel.State) -> float:
        """The raw heuristic score of `state` from player 0's side (positive: player 0 better).

        An integer for the two-player board games; for the others, player 0's value
        normalised to about [-1, 1].
        """
        return self._score(state)

    def evaluate(self, state: pyspiel.State) -> Sequence[float]:
        """Per-player values of `state`: `value[p]` estimates player p's utility.

        Args:
            state: A state of the game the evaluator was built for (backgammon, pig, maedn,
                yacht and the synthetic trees: chance nodes included).

        Returns:
            One value per player, inside the utility range (strictly, except on the synthetic
            trees, whose estimate is a mean of leaves).
        """
        return self._values(state)


def _playout_returns(state: pyspiel.State) -> Sequence[float]:
    returns: Sequence[float] = state.playout_returns()
    return returns
