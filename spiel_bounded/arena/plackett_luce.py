"""Ratings from finishing orders: the Weng-Lin Plackett-Luce model of the `openskill` package.

Pairwise Elo (`ratings`) splits a table of n players into n (n - 1) / 2 two-player games won by
the higher return; a finishing order says more (who came second of four) and counts once. Here
each finished game is one finishing order of the bots at the table, from their returns (a bot
holding several seats counts with its mean return; equal returns share a rank), and
`openskill.models.PlackettLuce` (Weng & Lin, JMLR 12, 2011) updates every bot's rating, a normal
belief of mean `mu` and deviation `sigma` (initially 25 and 25 / 3), after each table.

The updates are sequential, so the order of the games matters a little: games are taken round
by round (the order the schedule plays them in), within a round by game id, which makes the
ratings a function of the set of games, not of the order games.csv holds them in. Reported per
bot: mu, sigma, the 95% interval `mu -/+ 1.96 sigma`, the conservative ordinal `mu - 3 sigma`
(openskill's `ordinal()`, what a leaderboard sorts by), and the tables played.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import numpy as np
import pandas as pd
from openskill.models import PlackettLuce

from spiel_bounded.arena.ratings import ALL_GAMES
from spiel_bounded.arena.records import GameRecord
from spiel_bounded.arena.stats import Z95

PLACKETT_LUCE_START: Final = PlackettLuce().mu
"""A rating's mu before any game (openskill's default, 25)."""
PLACKETT_LUCE_COLUMNS: Final = (
    "scope",
    "bot",
    "mu",
    "sigma",
    "low",
    "high",
    "ordinal",
    "tables",
)


def finishing_order(record: GameRecord) -> tuple[list[str], list[int]]:
    """The distinct bots at a finished table and their ranks (1 first; ties share a rank)."""
    returns: dict[str, list[float]] = {}
    for label, value in zip(record.seats, record.returns, strict=True):
        returns.setdefault(label, []).append(value)
    labels = list(returns)
    means = [float(np.mean(returns[label])) for label in labels]
    ranks = [1 + sum(other > mine for other in means) for mine in means]
    return labels, ranks


def _play_order(record: GameRecord) -> tuple[int, str]:
    return record.round, record.game_id


def plackett_luce(records: Sequence[GameRecord], labels: Sequence[str]) -> pd.DataFrame:
    """Plackett-Luce ratings of the bots over `records` (finished games with at least two
    distinct bots; others are left out), in the order of `labels`; `PLACKETT_LUCE_COLUMNS`
    without `scope`."""
    model = PlackettLuce()
    ratings = {label: model.rating(name=label) for label in labels}
    tables = dict.fromkeys(labels, 0)
    for record in sorted(records, key=_play_order):
        if not record.ok:
            continue
        bots, ranks = finishing_order(record)
        if len(bots) < 2:
            continue
        for bot in bots:
            if bot not in ratings:
                ratings[bot] = model.rating(name=bot)
                tables[bot] = 0
            tables[bot] += 1
        updated = model.rate([[ratings[bot]] for bot in bots], ranks=[float(r) for r in ranks])
        for bot, (rating,) in zip(bots, updated, strict=True):
            ratings[bot] = rating
    rows = []
    for label in [label for label in ratings if tables[label]]:
        rating = ratings[label]
        half = Z95 * rating.sigma
        rows.append(
            (
                label,
                rating.mu,
                rating.sigma,
                rating.mu - half,
                rating.mu + half,
                rating.ordinal(),
                tables[label],
            )
        )
    return pd.DataFrame(rows, columns=list(PLACKETT_LUCE_COLUMNS[1:]))


def plackett_luce_table(records: Sequence[GameRecord], order: Sequence[str]) -> pd.DataFrame:
    """Plackett-Luce ratings per game (scope: the game string) and over all games (scope
    `ALL_GAMES`, when there are several), in the order of `order`."""
    games = sorted({record.game for record in records})
    frames = []
    scopes = [(game, [r for r in records if r.game == game]) for game in games]
    if len(games) > 1:
        scopes.append((ALL_GAMES, list(records)))
    for scope, chosen in scopes:
        frame = plackett_luce(chosen, order)
        if not frame.empty:
            frames.append(frame.assign(scope=scope))
    if not frames:
        return pd.DataFrame(columns=list(PLACKETT_LUCE_COLUMNS))
    return pd.concat(frames, ignore_index=True)[list(PLACKETT_LUCE_COLUMNS)]
