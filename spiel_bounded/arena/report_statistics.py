"""The report's engine-testing figures: paired statistics, SPRT results, Plackett-Luce ratings.

Tables (`sprt_table`) and their markdown sections: `report.build_report` puts the tables in the
report next to the per-game tables and the Elo ratings, `summary` the sections in summary.md.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final

import pandas as pd

from spiel_bounded import markdown
from spiel_bounded.arena.paired import pairs_of
from spiel_bounded.arena.plackett_luce_fit import PRIOR_ELO, PlackettLuceTables
from spiel_bounded.arena.records import GameRecord
from spiel_bounded.arena.settings import ReportSettings
from spiel_bounded.arena.sprt import SPRTSettings, replay

SPRT_COLUMNS: Final = (
    "game",
    "bot",
    "opponent",
    "decision",
    "llr",
    "lower",
    "upper",
    "pairs_to_decision",
    "pairs",
)


def sprt_table(
    records: Sequence[GameRecord], order: Sequence[str], settings: SPRTSettings | None
) -> pd.DataFrame:
    """Per two-bot pairing: the test replayed over its pairs in round order (`sprt.replay`):
    decision ("H0", "H1" or "" while undecided), LLR and bounds at the decision (or after the
    last pair), the pairs it took, and the pairs played in all (games already running when it
    decided finish)."""
    rows = []
    if settings is not None:
        for (game, bot, opponent), pairs in pairs_of(records, order).items():
            status = replay(pairs.points, settings)
            rows.append(
                (
                    game,
                    bot,
                    opponent,
                    status.decision or "",
                    status.llr,
                    status.lower,
                    status.upper,
                    status.pairs,
                    len(pairs.points),
                )
            )
    return pd.DataFrame(rows, columns=list(SPRT_COLUMNS))


def _elo(value: float) -> str:
    return f"{value:+.0f}" if math.isfinite(value) else ("+inf" if value > 0 else "-inf")


def paired_lines(paired: pd.DataFrame, game: str) -> list[str]:
    """The markdown table of one game's paired statistics (none: no lines)."""
    mine = paired[paired["game"] == game]
    if mine.empty:
        return []
    rows = [
        [
            row["bot"],
            row["opponent"],
            str(row["pairs"]),
            row["ptnml"],
            markdown.interval(row["paired_score"], row["paired_low"], row["paired_high"]),
            f"{_elo(row['elo'])} [{_elo(row['elo_low'])}, {_elo(row['elo_high'])}]",
            markdown.percent(row["los"]),
            markdown.percent(row["draw_ratio"]),
            str(row["unpaired"]),
        ]
        for row in mine.to_dict("records")
    ]
    header = ["bot", "opponent", "pairs", "Ptnml(0-2)", "score %", "Elo", "LOS %", "draw %"]
    return [
        "Paired: the two seatings of a round share their seed (opening, chance), so each round "
        "is one pair; `Ptnml(0-2)` counts the pairs where `bot` made 0, 0.5, 1, 1.5 and 2 "
        "points; score and Elo intervals (95%) come from the variance of the pairs; LOS is the "
        "likelihood that `bot` is the stronger; `unpaired` games (partner missing or raised) "
        "are left out.",
        "",
        *markdown.table([*header, "unpaired"], rows, "llrlrrrrr"),
    ]


def sprt_lines(sprt: pd.DataFrame, settings: SPRTSettings | None) -> list[str]:
    """The SPRT section (none without a test)."""
    if settings is None:
        return []
    lines = [
        "## SPRT",
        "",
        f"H0: `bot` is {settings.elo0:g} Elo stronger than `opponent`; H1: {settings.elo1:g} "
        f"(logistic Elo); alpha {settings.alpha:g}, beta {settings.beta:g}: H0 is accepted at "
        f"LLR <= {settings.lower:.2f}, H1 at LLR >= {settings.upper:.2f}. The pentanomial "
        "(generalised) SPRT as fishtest computes it, over the pairs in round order; the run "
        "stopped each pairing at its decision (pairs already playing finished, counted in "
        "`pairs played`).",
        "",
    ]
    if sprt.empty:
        return [*lines, "No finished pair.", ""]
    rows = [
        [
            row["game"],
            row["bot"],
            row["opponent"],
            f"{row['decision']} accepted" if row["decision"] else "undecided",
            f"{row['llr']:.2f}",
            str(row["pairs_to_decision"]),
            str(2 * row["pairs_to_decision"]),
            str(row["pairs"]),
        ]
        for row in sprt.to_dict("records")
    ]
    header = ["game", "bot", "opponent", "result", "LLR", "pairs", "games", "pairs played"]
    return [*lines, *markdown.table(header, rows, "llllrrrr"), ""]


def plackett_luce_lines(ratings: pd.DataFrame) -> list[str]:
    """The Plackett-Luce section."""
    lines = [
        "## Ratings from finishing orders (Plackett-Luce)",
        "",
        "Weng-Lin Bayesian ratings under the Plackett-Luce model (the `openskill` package): each "
        "finished game is one finishing order of the bots at the table by their returns (equal "
        "returns tie; a bot in several seats counts with its mean return), rated once, not split "
        "into pairs. `mu` starts at 25 and `sigma` at 8.33; interval: mu +- 1.96 sigma; "
        "ordinal: mu - 3 sigma, the conservative estimate leaderboards sort by. The updates are "
        "sequential, so the figures are means over 32 seeded random orders of the games; "
        "`order sd` is how much the order alone moves mu.",
        "",
    ]
    if ratings.empty:
        return [*lines, "No finished game.", ""]
    rows = [
        [
            row["scope"],
            row["bot"],
            f"{row['mu']:.2f}",
            f"{row['sigma']:.2f}",
            f"[{row['low']:.2f}, {row['high']:.2f}]",
            f"{row['ordinal']:.2f}",
            f"{row['order_sd']:.2f}",
            str(row["tables"]),
        ]
        for row in ratings.to_dict("records")
    ]
    header = ["scope", "bot", "mu", "sigma", "95% interval", "ordinal", "order sd", "games"]
    return [*lines, *markdown.table(header, rows, "llrrrrrr"), ""]


def plackett_luce_fit_lines(tables: PlackettLuceTables, settings: ReportSettings) -> list[str]:
    """The section of the maximum-likelihood Plackett-Luce fit (only when some table seated
    three or more distinct bots)."""
    ratings = tables.ratings
    if ratings.empty:
        return []
    anchor = f"{settings.anchor} is at 0" if settings.anchor else "centred on their mean"
    lines = [
        "## Plackett-Luce by maximum likelihood",
        "",
        "The same model fitted to all finishing orders at once (the result does not depend on "
        "the order of the games), on the Elo scale: a difference of D means finishing ahead of "
        "the other bot 1 / (1 + 10^(-D/400)) of the time. Equal returns are an order not "
        "observed (the likelihood sums over the tied bots' orders), so a tie says nothing about "
        f"the tied bots; {anchor}. Intervals: 95% percentile bootstrap over "
        f"{settings.bootstrap} resamples of each table's games. Only games whose tables seat "
        "three or more distinct bots.",
        "",
    ]
    rows = [
        [
            row["scope"],
            row["bot"] + ("" if row["bounded"] else " (prior)"),
            f"{row['elo']:+.0f}",
            "-" if math.isnan(row["low"]) else f"[{row['low']:+.0f}, {row['high']:+.0f}]",
            str(row["tables"]),
        ]
        for row in ratings.to_dict("records")
    ]
    header = ["scope", "bot", "Elo scale", "95% interval", "games"]
    lines += [*markdown.table(header, rows, "llrrr"), ""]
    if not ratings["bounded"].all():
        lines += [
            "(prior): the games alone do not bound this bot's strength against the others' "
            "(it never finished ahead of them, or never behind, directly or through other "
            f"bots); the prior of {PRIOR_ELO:.0f} Elo holds it, so its figures say little.",
            "",
        ]
    leads = [
        [
            row["scope"],
            row["bot"],
            row["opponent"],
            f"{row['lead']:+.0f}",
            "-" if math.isnan(row["low"]) else f"[{row['low']:+.0f}, {row['high']:+.0f}]",
        ]
        for row in tables.leads.to_dict("records")
    ]
    lines += [
        "Each pair's lead (`bot`'s strength minus `opponent`'s), with its interval from the same "
        "resamples: an interval clear of 0 says which of the two is ahead.",
        "",
        *markdown.table(["scope", "bot", "opponent", "lead", "95% interval"], leads, "lllrr"),
        "",
    ]
    return lines
