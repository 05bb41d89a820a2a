"""Pairwise outcomes and Elo ratings with bootstrap confidence intervals.

Every finished game gives one outcome per pair of distinct bots at its table: the bot with the
higher return wins, equal returns are a draw (a bot with several seats, like copies of a
baseline, counts with its mean return). For two-player games this is the game's result.

Ratings come from OpenSpiel's own `open_spiel.python.algorithms.elo.compute_ratings_from_matrices`
(Hunter's MM algorithm for the Bradley-Terry model, Ann. Statist. 32, 2004; a draw counts as half
a win for each side, and a smoothing of 0.01 wins is added to every pair). OpenSpiel puts the
lowest rating at 0; here ratings are shifted so that the anchor bot is at 0 (or their mean is 0).
The 95% intervals are percentile bootstrap intervals: the games of every pairing (and game) are
resampled with replacement, keeping each pairing's number of games, and the ratings recomputed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Final

import numpy as np
import pandas as pd
from open_spiel.python.algorithms import elo

from spiel_bounded.arena.records import GameRecord, pair_order

OUTCOME_COLUMNS = (
    "game",
    "game_id",
    "bot",
    "opponent",
    "score",
    "seat",
    "opponent_seat",
    "round",
)


ALL_GAMES: Final = "all games"
"""The scope of ratings over every game of a tournament."""


def pairwise_outcomes(records: Sequence[GameRecord], order: Sequence[str]) -> pd.DataFrame:
    """One row per finished game and pair of distinct bots at its table.

    Columns: game, game_id, bot, opponent (bot before opponent in `order`), score (of `bot`:
    1 win, 0.5 draw, 0 loss), seat and opponent_seat (-1 for a bot holding several seats),
    round (the game's round: the seatings of a round share their seed).
    Games that ended in an error are left out.
    """
    rows = []
    for record in records:
        if not record.ok:
            continue
        seats: dict[str, list[int]] = {}
        for seat, label in enumerate(record.seats):
            seats.setdefault(label, []).append(seat)
        labels = pair_order(record.seats, order)
        for bot, opponent in combinations(labels, 2):
            mine = float(np.mean([record.returns[seat] for seat in seats[bot]]))
            theirs = float(np.mean([record.returns[seat] for seat in seats[opponent]]))
            score = 1.0 if mine > theirs else 0.0 if mine < theirs else 0.5
            rows.append(
                (
                    record.game,
                    record.game_id,
                    bot,
                    opponent,
                    score,
                    seats[bot][0] if len(seats[bot]) == 1 else -1,
                    seats[opponent][0] if len(seats[opponent]) == 1 else -1,
                    record.round,
                )
            )
    return pd.DataFrame(rows, columns=list(OUTCOME_COLUMNS))


def outcome_counts(outcomes: pd.DataFrame) -> pd.DataFrame:
    """Wins, draws and losses of `bot` against `opponent`, per game and pair."""
    if outcomes.empty:
        return pd.DataFrame(columns=["game", "bot", "opponent", "wins", "draws", "losses"])
    frame = outcomes.assign(
        wins=(outcomes["score"] == 1.0).astype(int),
        draws=(outcomes["score"] == 0.5).astype(int),
        losses=(outcomes["score"] == 0.0).astype(int),
    )
    keys = ["game", "bot", "opponent"]
    return frame.groupby(keys, sort=False)[["wins", "draws", "losses"]].sum().reset_index()


@dataclass(frozen=True)
class _Pairs:
    """Where each row of an `outcome_counts` frame goes in the matrices over `size` bots."""

    bots: np.ndarray
    opponents: np.ndarray
    size: int

    @classmethod
    def of(cls, counts: pd.DataFrame, labels: Sequence[str]) -> _Pairs:
        index = {label: position for position, label in enumerate(labels)}
        rows = counts[["bot", "opponent"]].itertuples(index=False, name=None)
        pairs = np.array([(index[bot], index[opponent]) for bot, opponent in rows], dtype=np.intp)
        pairs = pairs.reshape(-1, 2)
        return cls(bots=pairs[:, 0], opponents=pairs[:, 1], size=len(labels))

    def matrices(self, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Win and draw matrices (wins[i, j]: games bot i won against bot j) from one
        (wins, draws, losses) row per pair."""
        wins = np.zeros((self.size, self.size), dtype=np.int64)
        draws = np.zeros((self.size, self.size), dtype=np.int64)
        np.add.at(wins, (self.bots, self.opponents), values[:, 0])
        np.add.at(wins, (self.opponents, self.bots), values[:, 2])
        np.add.at(draws, (self.bots, self.opponents), values[:, 1])
        np.add.at(draws, (self.opponents, self.bots), values[:, 1])
        return wins, draws


def elo_ratings(wins: np.ndarray, draws: np.ndarray, anchor: int | None = None) -> np.ndarray:
    """Elo ratings from win and draw matrices, anchor at 0 (None: mean 0)."""
    ratings = np.asarray(elo.compute_ratings_from_matrices(wins, draws), dtype=float)
    return ratings - (ratings[anchor] if anchor is not None else ratings.mean())


def rate(
    outcomes: pd.DataFrame,
    labels: Sequence[str],
    *,
    anchor: str | None,
    bootstrap: int,
    rng: np.random.Generator,
) -> pd.DataFrame:
    """Elo ratings of the bots in `outcomes`, with 95% bootstrap intervals.

    Args:
        outcomes: Rows of `pairwise_outcomes` (any mix of games).
        labels: Bots in display order; those without games are left out.
        anchor: The bot rated 0 (None, or a bot without games: the mean rating is 0).
        bootstrap: Resamples for the intervals (0: no intervals, NaN bounds).
        rng: Source of the resampling.

    Returns:
        Columns bot, elo, low, high, games (pairwise games the bot took part in).
    """
    counts = outcome_counts(outcomes)
    played = set(counts["bot"]) | set(counts["opponent"])
    present = [label for label in labels if label in played]
    if not present:
        return pd.DataFrame(columns=["bot", "elo", "low", "high", "games"])
    anchor_index = present.index(anchor) if anchor in present else None
    pairs = _Pairs.of(counts, present)
    observed = counts[["wins", "draws", "losses"]].to_numpy()
    wins, draws = pairs.matrices(observed)
    ratings = elo_ratings(wins, draws, anchor_index)
    low = np.full(len(present), np.nan)
    high = np.full(len(present), np.nan)
    if bootstrap > 0:
        totals = observed.sum(axis=1)
        # Resampling a pairing's games with replacement draws its (wins, draws, losses) from a
        # multinomial with the observed proportions: one draw per pairing and sample.
        resampled = np.stack(
            [
                rng.multinomial(total, row / total, size=bootstrap)
                for row, total in zip(observed, totals, strict=True)
            ],
            axis=1,
        )
        samples = np.empty((bootstrap, len(present)))
        for sample in range(bootstrap):
            sample_wins, sample_draws = pairs.matrices(resampled[sample])
            samples[sample] = elo_ratings(sample_wins, sample_draws, anchor_index)
        low, high = np.percentile(samples, [2.5, 97.5], axis=0)
    games = {label: 0 for label in present}
    for (bot, opponent), total in zip(
        counts[["bot", "opponent"]].itertuples(index=False, name=None),
        counts[["wins", "draws", "losses"]].sum(axis=1),
        strict=True,
    ):
        games[bot] += int(total)
        games[opponent] += int(total)
    return pd.DataFrame(
        {
            "bot": present,
            "elo": ratings,
            "low": low,
            "high": high,
            "games": [games[label] for label in present],
        }
    )
