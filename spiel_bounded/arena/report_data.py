"""What a tournament report holds: its tables (built by `report`) and summary.md (`summary`)."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from spiel_bounded.arena.plackett_luce_fit import PlackettLuceTables


@dataclass(frozen=True, kw_only=True)
class Report:
    """Everything the report shows.

    Attributes:
        pairings: Per game and pair: W/D/L, rates with intervals, seat split.
        bots: Per game and bot: time and nodes per move, errors.
        ratings: Per scope (each game, then "all games") and bot: Elo with interval.
        errors: Games that raised.
        scores: Per game, the matrix of each row bot's score against each column bot.
        paired: Per two-player game and pair: pentanomial statistics (`paired.paired_table`).
        plackett_luce: Per scope and bot: ratings from finishing orders
            (`plackett_luce.plackett_luce_table`).
        plackett_luce_fit: Per scope with tables of three or more bots: the same model fitted
            by maximum likelihood, order-free, each bot's rating and each pair's lead
            (`plackett_luce_fit.plackett_luce_fit_tables`).
        sprt: Per two-bot pairing, the SPRT's result when the tournament has one
            (`report_statistics.sprt_table`).
        markdown: summary.md.
    """

    pairings: pd.DataFrame
    bots: pd.DataFrame
    ratings: pd.DataFrame
    errors: pd.DataFrame
    scores: dict[str, pd.DataFrame] = field(default_factory=dict)
    paired: pd.DataFrame = field(default_factory=pd.DataFrame)
    plackett_luce: pd.DataFrame = field(default_factory=pd.DataFrame)
    plackett_luce_fit: PlackettLuceTables = field(default_factory=PlackettLuceTables.empty)
    sprt: pd.DataFrame = field(default_factory=pd.DataFrame)
    markdown: str = ""
