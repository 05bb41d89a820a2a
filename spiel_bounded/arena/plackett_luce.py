"""Ratings from finishing orders: the Weng-Lin Plackett-Luce model of the `openskill` package.

Pairwise Elo (`ratings`) splits a table of n players into n (n - 1) / 2 two-player games won by
the higher return; a finishing order says more (who came second of four) and counts once. Here
each finished game is one finishing order of the bots at the table, from their returns (a bot
holding several seats counts with its mean return; equal returns share a rank), and
`openskill.models.PlackettLuce` (Weng & Lin, JMLR 12, 2011) updates every bot's rating, a normal
belief of mean `mu` and deviation `sigma` (initially 25 and 25 / 3), after each table.

The updates are sequential, and their order matters: a bot's last games weigh most. In a
tournament's schedule order (by round, then by table) that is systematic; on the 120
chinese_checkers games of `results/round_robin_nplayer_ratings` it put paranoid at mu 35.0,
while 20 random orders of the same games gave 23.7 to 29.3. So the ratings are the mean over
`ORDERS` seeded random orders of the games (sorted by game id first, so the result is a function
of the set of games): mu and sigma are the means of each order's, and `order_sd` is the
standard deviation of mu over the orders (how much the order alone moves it). Reported per bot:
mu, sigma, the 95% interval `mu -/+ 1.96 sigma`, the conservative ordinal `mu - 3 sigma`
(openskill's `ordinal()`, what a leaderboard sorts by), `order_sd`, and the tables played.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import numpy as np
import pandas as pd
from openskill.models import PlackettLuce

from spiel_bounded.arena.ratings import ALL_GAMES
from spiel_bounded.arena.records import GameRecord
from spiel_bounded.stats import Z95

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
    "order_sd",
    "tables",
)
ORDERS: Final = 32
"""Random orders of the games the ratings are averaged over."""
ORDER_SEED: Final = 2026


def finishing_order(record: GameRecord) -> tuple[list[str], list[int]]:
    """The distinct bots at a finished table and their ranks (1 first; ties share a rank)."""
    returns: dict[str, list[float]] = {}
    for label, value in zip(record.seats, record.returns, strict=True):
        returns.setdefault(label, []).append(value)
    labels = list(returns)
    means = [float(np.mean(returns[label])) for label in labels]
    ranks = [1 + sum(other > mine for other in means) for mine in means]
    return labels, ranks


def _rate_in_order(
    model: PlackettLuce, tables: Sequence[tuple[list[str], list[int]]], labels: Sequence[str]
) -> dict[str, Any]:
    """Each bot's rating after `tables` (bots, ranks), rated one after the other."""
    ratings = {label: model.rating(name=label) for label in labels}
    for bots, ranks in tables:
        updated = model.rate([[ratings[bot]] for bot in bots], ranks=[float(r) for r in ranks])
        for bot, (rating,) in zip(bots, updated, strict=True):
            ratings[bot] = rating
    return ratings


def plackett_luce(
    records: Sequence[GameRecord], labels: Sequence[str], *, orders: int = ORDERS
) -> pd.DataFrame:
    """Plackett-Luce ratings of the bots over `records` (finished games with at least two
    distinct bots; others are left out), averaged over `orders` seeded random orders of the
    games, in the order of `labels` (bots not in it follow); `PLACKETT_LUCE_COLUMNS` without
    `scope`."""
    tables = []
    for record in sorted(records, key=lambda record: record.game_id):
        if not record.ok:
            continue
        bots, ranks = finishing_order(record)
        if len(bots) >= 2:
            tables.append((bots, ranks))
    played = {bot for bots, _ in tables for bot in bots}
    present = [label for label in labels if label in played]
    present += sorted(played - set(present))
    count = {label: sum(label in bots for bots, _ in tables) for label in present}
    model = PlackettLuce()
    rng = np.random.default_rng(ORDER_SEED)
    mus = np.zeros((orders, len(present)))
    sigmas = np.zeros((orders, len(present)))
    for index in range(orders):
        shuffled = [tables[i] for i in rng.permutation(len(tables))]
        ratings = _rate_in_order(model, shuffled, present)
        mus[index] = [ratings[label].mu for label in present]
        sigmas[index] = [ratings[label].sigma for label in present]
    rows = []
    for column, label in enumerate(present):
        mu, sigma = float(mus[:, column].mean()), float(sigmas[:, column].mean())
        rows.append(
            (
                label,
                mu,
                sigma,
                mu - Z95 * sigma,
                mu + Z95 * sigma,
                mu - 3.0 * sigma,
                float(mus[:, column].std()),
                count[label],
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
