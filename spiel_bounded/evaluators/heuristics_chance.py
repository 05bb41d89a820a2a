"""Heuristics for two games with chance nodes: backgammon (`BackgammonScorer`, a race model in
pips with contact terms) and pig (`PigScorer`, a race in turns fitted to the exact winning
probabilities).

Both read `str(state)` only, so they value decision nodes, chance nodes and terminal states
alike, and both estimate winning chances whose expected utilities, scaled by 0.95, are the
values (strictly inside the utility range, summing to zero like the returns). The models, their
constants and how well they fit are in the manual (docs/bots.md, "The chance games'
heuristics").
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from operator import itemgetter
from typing import Final

import pyspiel

from spiel_bounded.games import game_description

_CONFIDENCE: Final = 0.95  # |v| <= 0.95 of the half-range: values stay strictly inside the range
_PHI_SLOPE: Final = 1.702  # logistic(1.702 x) approximates the standard normal CDF Phi(x)

# --------------------------------------------------------------------------- backgammon

BACKGAMMON_MEAN_ROLL: Final = 49 / 6
"""Mean pips of one roll (doubles count four times): 8.17."""
BACKGAMMON_RACE_VARIANCE: Final = 2.262
"""Variance of a race's pip difference per pip still to move (18.47 / 8.17)."""
BACKGAMMON_RACE_OFFSET: Final = 16.0
"""Added to the race variance so that short races do not become certainties."""
BACKGAMMON_CONTACT_VARIANCE: Final = 400.0
"""Extra variance (pips squared) while the sides are in contact: hits swing the race."""
BACKGAMMON_WASTAGE: Final = 1.0
"""Pips added per checker not yet borne off (bear-off wastage)."""
BACKGAMMON_ON_ROLL: Final = 4.0
"""Pips worth being about to roll (half a mean roll)."""
BACKGAMMON_DIRECT_SHOT: Final = 11 / 36
"""Chance that a blot 1-6 pips in front of an opponent checker is hit."""
BACKGAMMON_INDIRECT_SHOT: Final = 5 / 36
"""Chance that a blot 7-12 pips in front of an opponent checker is hit."""
BACKGAMMON_HIT_TEMPO: Final = 4
"""Pips lost by a hit on top of the pips the checker had travelled."""
BACKGAMMON_OWN_RISK: Final = 0.35
"""Weight of the exposure of the side about to move (it moves before the opponent can hit)."""
BACKGAMMON_BLOCK: Final = 2.0
"""Pips per made point in front of the opponent's rearmost checker."""
BACKGAMMON_PRIME: Final = 2.0
"""Pips per point beyond the first in the longest run of such blocking points."""
BACKGAMMON_GAMMON_MARGIN: Final = 3.0
"""Pips to bear the first checker off once all are home (gammon estimate)."""

_BG_POINTS: Final = 24
_BG_LINE: Final = 16  # 15 characters and a newline per line of the drawing
_BG_BOARD: Final = 13 * _BG_LINE  # 13 lines of board drawing, then the text lines
_BG_TAIL: Final = "Turn: *\nPrevious player: -1\nExtra turn: 0\nDice: \nBar:\nScores, X: 0, O: 0\n"
_FIELD: Final = 12  # bits per packed numeric field
_FIELD_MASK: Final = (1 << _FIELD) - 1
_X_PIPS, _O_PIPS, _X_COUNT, _O_COUNT, _X_OUT, _O_OUT = (i * _FIELD for i in range(6))
_X_BLOT, _X_MADE, _O_BLOT, _O_MADE = (6 * _FIELD + i * _BG_POINTS for i in range(4))
_POINTS_MASK: Final = (1 << _BG_POINTS) - 1
_X_HOME: Final = 0x3F << 18  # x (player 0) moves from point 0 up to 23 and bears off from 18-23
_O_HOME: Final = 0x3F  # o (player 1) moves from 23 down to 0 and bears off from 0-5


def _bar_costs() -> tuple[float, ...]:
    """Pips lost per checker on the bar against 0..6 closed home points."""
    costs = []
    for closed in range(7):
        blocked = (closed / 6) ** 2
        rolls = blocked / (1 - blocked) if closed < 6 else 4.0
        costs.append(BACKGAMMON_MEAN_ROLL * rolls)
    return tuple(costs)


_BAR_COST: Final = _bar_costs()


def column(owner: str, count: int, top: bool) -> str:
    """How `str(state)` draws `count` checkers of `owner` on one point, in checker order.

    The drawing stacks up to five checkers from the edge of the board towards the middle; from 6
    to 9 the first cell shows the count, from 10 the first two cells show its digits (read from
    the edge: "1" then the last digit on the top half, the reverse on the bottom half).
    """
    if count <= 5:
        return owner * count + "." * (5 - count)
    if count <= 9:
        return str(count) + owner * 4
    digits = "1" + str(count % 10)
    return (digits if top else digits[::-1]) + owner * 3


def _column_slice(point: int) -> slice:
    """Where the five cells of `point` are in `str(state)`, in checker order."""
    if point < 12:  # bottom half, drawn from row 11 upwards, point 0 at the right
        col = 13 - point if point < 6 else 12 - point
        return slice(11 * _BG_LINE + col, 6 * _BG_LINE + col, -_BG_LINE)
    col = point - 11 if point < 18 else point - 10  # top half, drawn from row 1 downwards
    return slice(_BG_LINE + col, 6 * _BG_LINE + col, _BG_LINE)


def _point_table(point: int, checkers: int) -> dict[str, int]:
    """Column string of `point` -> packed features of that point."""
    table = {"." * 5: 0}
    top = point >= 12
    for count in range(1, checkers + 1):
        bits = (1 << (_X_BLOT if count == 1 else _X_MADE)) << point
        table[column("x", count, top)] = (
            (count * (_BG_POINTS - point) << _X_PIPS)
            + (count << _X_COUNT)
            + (count * max(0, 18 - point) << _X_OUT)
            + bits
        )
        bits = (1 << (_O_BLOT if count == 1 else _O_MADE)) << point
        table[column("o", count, top)] = (
            (count * (point + 1) << _O_PIPS)
            + (count << _O_COUNT)
            + (count * max(0, point - 5) << _O_OUT)
            + bits
        )
    return table


def _longest_run(mask: int) -> int:
    """Length of the longest run of consecutive set bits."""
    run = 0
    while mask:
        mask &= mask >> 1
        run += 1
    return run


def _exposure(blots: int, direct: int, indirect: int, weights: Sequence[int]) -> float:
    """Expected pips lost by the blots in `blots` to direct and indirect shots."""
    total = 0.0
    hit = blots & direct
    while hit:
        low = hit & -hit
        total += BACKGAMMON_DIRECT_SHOT * weights[low.bit_length() - 1]
        hit ^= low
    hit = blots & indirect
    while hit:
        low = hit & -hit
        total += BACKGAMMON_INDIRECT_SHOT * weights[low.bit_length() - 1]
        hit ^= low
    return total


def _race_logit(behind: float, ahead: float, variance: float) -> float:
    """Logit of the chance that the side needing `ahead` pips finishes before `behind`."""
    return _PHI_SLOPE * (behind - ahead) / math.sqrt(variance)


class BackgammonScorer:
    """Backgammon positions -> per-player values (the model: docs/bots.md).

    Attributes:
        checkers: Checkers per player (15; 3 in hyper-backgammon).
        gammons: True when gammons score double (max utility > 1).
    """

    def __init__(self, game: pyspiel.Game) -> None:
        """Builds the point tables and checks how `game` prints its initial state.

        Raises:
            ValueError: `str(state)` does not have the expected layout.
        """
        state = game.new_initial_state()
        text = str(state)
        self.checkers = sum(state.board(0, point) for point in range(_BG_POINTS))
        self.gammons = float(game.max_utility()) > 1.0
        low, high = float(game.min_utility()), float(game.max_utility())
        self._mid = 0.5 * (low + high)
        self._half = 0.5 * (high - low) * _CONFIDENCE
        self._cut = itemgetter(*(_column_slice(point) for point in range(_BG_POINTS)))
        self._tables = [_point_table(point, self.checkers) for point in range(_BG_POINTS)]
        # A blot of x on point p hit loses p + 1 pips, a blot of o on point q loses 24 - q.
        self._x_weights = tuple(p + 1 + BACKGAMMON_HIT_TEMPO for p in range(_BG_POINTS))
        self._o_weights = tuple(_BG_POINTS - q + BACKGAMMON_HIT_TEMPO for q in range(_BG_POINTS))
        try:
            counts = self.counts(text)
        except (KeyError, ValueError, IndexError):
            counts = None
        expected = [(state.board(0, point), state.board(1, point)) for point in range(_BG_POINTS)]
        if text[_BG_BOARD:] != _BG_TAIL or counts != expected:
            raise ValueError(
                f"the backgammon heuristic does not understand how {game_description(game)} "
                f"prints its initial state: {text!r}"
            )

    def counts(self, text: str) -> list[tuple[int, int]]:
        """`(x checkers, o checkers)` on each point 0..23 of `str(state)` (a slow reference)."""
        result = []
        for table, cells in zip(self._tables, self._cut(text), strict=True):
            packed = table[cells]
            result.append(((packed >> _X_COUNT) & _FIELD_MASK, (packed >> _O_COUNT) & _FIELD_MASK))
        return result

    def pips(self, text: str) -> tuple[int, int]:
        """`(x pip count, o pip count)` of `str(state)`, 25 per checker on the bar."""
        packed = sum(map(dict.__getitem__, self._tables, self._cut(text)))
        bar = text[_BG_BOARD:].split("\n", 5)[4]
        return (
            ((packed >> _X_PIPS) & _FIELD_MASK) + 25 * bar.count("x"),
            ((packed >> _O_PIPS) & _FIELD_MASK) + 25 * bar.count("o"),
        )

    def values(self, text: str) -> tuple[float, float]:
        """`(value of player 0, value of player 1)` of the position printed as `text`."""
        v = _CONFIDENCE * self._advantage(text)  # a single game is worth 1 in every scoring
        return (self._mid + v, self._mid - v)

    def score(self, text: str) -> float:
        """Player 0's value normalised to [-1, 1]."""
        return _CONFIDENCE * self._advantage(text) / self._half

    def _advantage(self, text: str) -> float:
        """Player 0's expected result in single games, inside (-1, 1) (or (-2, 2) with gammons)."""
        packed = sum(map(dict.__getitem__, self._tables, self._cut(text)))
        turn, previous, extra, dice, bar = text[_BG_BOARD:].split("\n", 5)[:5]
        bar_x = bar.count("x")
        bar_o = bar.count("o")
        x_count = (packed >> _X_COUNT) & _FIELD_MASK
        o_count = (packed >> _O_COUNT) & _FIELD_MASK
        x_eff = (
            ((packed >> _X_PIPS) & _FIELD_MASK)
            + 25 * bar_x
            + BACKGAMMON_WASTAGE * (x_count + bar_x)
        )
        o_eff = (
            ((packed >> _O_PIPS) & _FIELD_MASK)
            + 25 * bar_o
            + BACKGAMMON_WASTAGE * (o_count + bar_o)
        )
        # Who moves next: 0 (x), 1 (o) or -1 (nobody yet: the opening roll decides).
        mover_char = turn[6]
        if mover_char == "x" or mover_char == "o":
            mover = 0 if mover_char == "x" else 1
            tempo = BACKGAMMON_MEAN_ROLL
            if len(dice) == 8 and dice[6:].isdigit():
                first, second = int(dice[6]), int(dice[7])
                if first != second:
                    tempo = first + second
                else:  # doubles: two actions of two moves each
                    tempo = first * (2 if extra.endswith("1") else 4)
            if mover == 0:
                x_eff -= tempo
                o_eff -= BACKGAMMON_ON_ROLL
            else:
                o_eff -= tempo
                x_eff -= BACKGAMMON_ON_ROLL
        else:  # chance node: the dice are about to be rolled
            mover = -1
            last = previous[17:]
            if last == "0":
                mover = 1
                o_eff -= BACKGAMMON_ON_ROLL
            elif last == "1":
                mover = 0
                x_eff -= BACKGAMMON_ON_ROLL
        x_blots = (packed >> _X_BLOT) & _POINTS_MASK
        x_made = (packed >> _X_MADE) & _POINTS_MASK
        o_blots = (packed >> _O_BLOT) & _POINTS_MASK
        o_made = (packed >> _O_MADE) & _POINTS_MASK
        x_any = x_blots | x_made
        o_any = o_blots | o_made
        # x's rearmost checker (lowest point; -1 on the bar), o's (highest point; 24 on the bar).
        x_back = -1 if bar_x else (x_any & -x_any).bit_length() - 1
        o_back = _BG_POINTS if bar_o else o_any.bit_length() - 1
        variance = BACKGAMMON_RACE_VARIANCE * (max(x_eff, 0.0) + max(o_eff, 0.0))
        variance += BACKGAMMON_RACE_OFFSET
        if (x_any or bar_x) and (o_any or bar_o) and x_back < o_back:  # contact: hits possible
            variance += BACKGAMMON_CONTACT_VARIANCE
            # Points o's checkers hit from 1-6 pips behind (o moves downwards; bar = point 24).
            o_from = o_any | (1 << _BG_POINTS if bar_o else 0)
            shots = o_from >> 1
            shots |= shots >> 1
            shots |= shots >> 2
            shots |= shots >> 2
            o_direct = shots & _POINTS_MASK
            o_indirect = (shots >> 6) & ~o_direct
            # Points x's checkers hit (x moves upwards; from the bar x enters on points 0-5).
            shots = x_any << 1
            shots |= shots << 1
            shots |= shots << 2
            shots |= shots << 2
            if bar_x:
                shots |= 0x3F
            x_direct = shots & _POINTS_MASK
            x_indirect = (shots << 6) & _POINTS_MASK & ~x_direct
            x_risk = _exposure(x_blots, o_direct, o_indirect, self._x_weights)
            o_risk = _exposure(o_blots, x_direct, x_indirect, self._o_weights)
            if mover == 0:
                x_risk *= BACKGAMMON_OWN_RISK
            elif mover == 1:
                o_risk *= BACKGAMMON_OWN_RISK
            else:
                x_risk *= 0.5 + 0.5 * BACKGAMMON_OWN_RISK
                o_risk *= 0.5 + 0.5 * BACKGAMMON_OWN_RISK
            # Made points in front of the opponent's rearmost checker block it.
            x_block = x_made & ((1 << o_back) - 1)
            o_block = o_made & ~((2 << x_back) - 1) & _POINTS_MASK if x_back >= 0 else o_made
            x_eff += (
                x_risk
                + bar_x * _BAR_COST[(o_made & _O_HOME).bit_count()]
                - BACKGAMMON_BLOCK * x_block.bit_count()
                - BACKGAMMON_PRIME * max(0, _longest_run(x_block) - 1)
            )
            o_eff += (
                o_risk
                + bar_o * _BAR_COST[(x_made & _X_HOME).bit_count()]
                - BACKGAMMON_BLOCK * o_block.bit_count()
                - BACKGAMMON_PRIME * max(0, _longest_run(o_block) - 1)
            )
        logit = _race_logit(o_eff, x_eff, variance)
        advantage = math.tanh(0.5 * logit)  # 2 p - 1
        if not self.gammons:
            return advantage
        p_x = 0.5 + 0.5 * advantage
        gammon = 0.0
        if o_count + bar_o == self.checkers:  # o has borne nothing off yet
            need = ((packed >> _O_OUT) & _FIELD_MASK) + 19 * bar_o + BACKGAMMON_GAMMON_MARGIN
            z = _race_logit(need, x_eff, variance)
            gammon += min(p_x, 1.0 / (1.0 + math.exp(-z)))
        if x_count + bar_x == self.checkers:
            need = ((packed >> _X_OUT) & _FIELD_MASK) + 19 * bar_x + BACKGAMMON_GAMMON_MARGIN
            z = _race_logit(need, o_eff, variance)
            gammon -= min(1.0 - p_x, 1.0 / (1.0 + math.exp(-z)))
        return advantage + gammon


# --------------------------------------------------------------------------- pig

PIG_SLOPE: Final = 1.436
"""Logit per standard deviation of the difference in turns still needed."""
PIG_TEMPO: Final = 1.057
"""Turns worth being on turn with nothing banked yet."""
PIG_TURN_RISK: Final = 0.657
"""Tempo lost as the turn total grows to the holding threshold."""


def _pig_outcomes(dice: int, piglet: bool) -> tuple[float, list[tuple[int, float]]]:
    """Bust probability and the (gain, probability) pairs of one roll."""
    bust = 1.0 / dice
    if piglet:
        return bust, [(1, 1.0 - bust)]
    return bust, [(gain, bust) for gain in range(2, dice + 1)]


def pig_turn_tables(winscore: int, dice: int, piglet: bool) -> tuple[int, list[float], list[float]]:
    """The holding threshold and the mean and variance of the turns needed to score x points.

    Args:
        winscore: Points to win.
        dice: Die outcomes (`diceoutcomes`); outcome 1 busts.
        piglet: Piglet rules (a coin: each non-bust roll is worth one point).

    Returns:
        `(h, E, V)`: `h` maximises the expected points of a turn (roll while the turn total is
        below it), and `E[x]`, `V[x]` (x = 0..winscore) are the mean and variance of the
        number of turns, the current one included, that a player holding at `min(h, x)` needs
        to score x more points.
    """
    bust, gains = _pig_outcomes(dice, piglet)
    mean_gain = sum(gain * p for gain, p in gains) / (1.0 - bust)
    hold = max(1, math.ceil((1.0 - bust) / bust * mean_gain - 1e-9))
    banked: dict[int, dict[int, float]] = {}  # threshold -> distribution of the banked points

    def distribution(threshold: int) -> dict[int, float]:
        if threshold not in banked:
            top = threshold + max(gain for gain, _ in gains)
            by_total: list[dict[int, float]] = [{}] * (top + 1)
            for total in range(top, -1, -1):
                if total >= threshold:
                    by_total[total] = {total: 1.0}
                    continue
                out = {0: bust}
                for gain, p in gains:
                    for points, q in by_total[total + gain].items():
                        out[points] = out.get(points, 0.0) + p * q
                by_total[total] = out
            banked[threshold] = by_total[0]
        return banked[threshold]

    mean = [0.0] * (winscore + 1)
    square = [0.0] * (winscore + 1)
    for x in range(1, winscore + 1):
        dist = distribution(min(hold, x))
        stay = dist.get(0, 0.0)
        next_mean = sum(p * mean[x - b] for b, p in dist.items() if 0 < b < x)
        next_square = sum(p * square[x - b] for b, p in dist.items() if 0 < b < x)
        mean[x] = (1.0 + next_mean) / (1.0 - stay)
        square[x] = (1.0 + 2.0 * (stay * mean[x] + next_mean) + next_square) / (1.0 - stay)
    variance = [max(s - m * m, 0.0) for m, s in zip(mean, square, strict=True)]
    return hold, mean, variance


class PigScorer:
    """Pig positions -> per-player values (the model: docs/bots.md).

    Attributes:
        players: Number of players.
        winscore: Points to win.
        hold: Holding threshold of the turn model.
    """

    def __init__(self, game: pyspiel.Game) -> None:
        """Builds the turn tables for the game's parameters.

        Raises:
            ValueError: `diceoutcomes` < 2, or `str(state)` does not have the expected layout.
        """
        params = game.get_parameters()
        self.players = int(game.num_players())
        self.winscore = int(params.get("winscore", 100))
        dice = int(params.get("diceoutcomes", 6))
        piglet = bool(params.get("piglet", False))
        if dice < 2:
            raise ValueError(
                f"the pig heuristic needs diceoutcomes >= 2, got {game_description(game)}"
            )
        self.hold, self._mean, self._variance = pig_turn_tables(self.winscore, dice, piglet)
        self._bust, gains = _pig_outcomes(dice, piglet)
        self._gain = round(sum(gain * p for gain, p in gains) / (1.0 - self._bust))
        # Two-player fast path: the slope folded into the means and the tempo by turn total.
        self._sloped_mean = [PIG_SLOPE * m for m in self._mean]
        self._sloped_tempo = [
            PIG_SLOPE * (PIG_TEMPO - PIG_TURN_RISK * k / self.hold) for k in range(self.hold + 1)
        ]
        low, high = float(game.min_utility()), float(game.max_utility())
        self._mid = 0.5 * (low + high)
        self._half = 0.5 * (high - low) * _CONFIDENCE
        text = str(game.new_initial_state())
        expected = f"Scores: {' '.join(['0'] * self.players)}, Turn total: 0\nCurrent player: 0\n"
        if text != expected:
            raise ValueError(
                f"the pig heuristic does not understand how {game_description(game)} prints its "
                f"initial state: {text!r}"
            )

    def parse(self, text: str) -> tuple[list[int], int, int, bool]:
        """`(scores, turn total, player on turn, rolling)` of `str(state)`."""
        parts = text.split()
        n = self.players
        scores = [int(part) for part in parts[1:n]]
        scores.append(int(parts[n][:-1]))
        return scores, int(parts[n + 3]), int(parts[n + 6]), len(parts) > n + 7

    def values(self, text: str) -> tuple[float, ...]:
        """Per-player values of the position printed as `text`."""
        if self.players != 2:
            n = self.players
            return tuple(
                self._mid + self._half * (n * p - 1.0) / (n - 1) for p in self.chances(text)
            )
        parts = text.split()
        total = int(parts[5])
        one = parts[8] == "1"  # player 1 is on turn
        if one:
            mine, theirs = int(parts[2][:-1]), int(parts[1])
        else:
            mine, theirs = int(parts[1]), int(parts[2][:-1])
        if len(parts) > 9:  # rolling: bust (the opponent moves) or the mean gain
            p = self._bust * (1.0 - self._mover_chance(theirs, mine, 0)) + (
                1.0 - self._bust
            ) * self._mover_chance(mine, theirs, total + self._gain)
        else:
            p = self._mover_chance(mine, theirs, total)
        v = self._half * (2.0 * p - 1.0)
        if one:
            v = -v
        return (self._mid + v, self._mid - v)

    def score(self, text: str) -> float:
        """Player 0's value normalised to [-1, 1]."""
        return (self.values(text)[0] - self._mid) / self._half

    def _mover_chance(self, mine: int, theirs: int, total: int) -> float:
        """Two players: the chance that the player on turn wins."""
        need = self.winscore - mine - total
        if need <= 0:
            return 1.0
        other = self.winscore - theirs
        variance = self._variance
        z = (
            self._sloped_mean[other]
            - self._sloped_mean[need]
            + self._sloped_tempo[min(total, self.hold)]
        ) / math.sqrt(variance[need] + variance[other])
        return 1.0 / (1.0 + math.exp(-z))

    def chances(self, text: str) -> list[float]:
        """Every player's estimated winning chance (the general n-player formula)."""
        return self._chances(*self.parse(text))

    def _chances(self, scores: list[int], total: int, mover: int, rolling: bool) -> list[float]:
        """Every player's winning chance (any number of players)."""
        if not rolling:
            return self._mover_chances(scores, total, mover)
        bust = self._mover_chances(scores, 0, (mover + 1) % self.players)
        keep = self._mover_chances(scores, total + self._gain, mover)
        return [self._bust * b + (1.0 - self._bust) * k for b, k in zip(bust, keep, strict=True)]

    def _mover_chances(self, scores: list[int], total: int, mover: int) -> list[float]:
        """Every player's winning chance with `mover` on turn holding `total`."""
        n = self.players
        if scores[mover] + total >= self.winscore:
            return [1.0 if p == mover else 0.0 for p in range(n)]
        needs = [max(self.winscore - s, 1) for s in scores]
        needs[mover] = self.winscore - scores[mover] - total
        spread = math.sqrt(2.0 / n * sum(self._variance[x] for x in needs))
        strengths = []
        for player, x in enumerate(needs):
            seat = (player - mover) % n
            tempo = -2.0 * PIG_TEMPO * seat / n
            if seat == 0:
                tempo -= PIG_TURN_RISK * min(total, self.hold) / self.hold
            strengths.append(-PIG_SLOPE * (self._mean[x] - tempo) / spread)
        top = max(strengths)
        weights = [math.exp(s - top) for s in strengths]
        norm = sum(weights)
        return [w / norm for w in weights]
