"""Judges bots' backgammon moves by GNU Backgammon: mean equity loss per move, in millipoints.

    python scripts/gnubg_judge.py --tournament=results/round_robin_value_net_backgammon_v3
    python scripts/gnubg_judge.py --tournament=DIR --bots=ab_net,ab_heuristic --plies=2

Replays the finished backgammon games of a tournament directory and, at every move of each bot
(the random opening left out), compares the move with gnubg's choice
(`spiel_bounded.arena.equity_loss`). Prints a Markdown table (or writes it to --output) with
each bot's games, moves, mean loss per move with its 95% interval (games resampled) and the
share of moves that were gnubg's choice. Needs the gnubg extra: pip install
'spiel-bounded[gnubg]'. Exit status: 0 done; 2 a bad flag, directory or label.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from absl import app, flags

from spiel_bounded import commandline
from spiel_bounded.arena.equity_loss import judge_tournament
from spiel_bounded.arena.store import GameStore, StoreError
from spiel_bounded.games import load_game
from spiel_bounded.judges.backgammon import PLIES, check_backgammon

_TOURNAMENT = flags.DEFINE_string("tournament", None, "Tournament output directory.")
_BOTS = flags.DEFINE_list("bots", None, "Labels to judge (default: every label that played).")
_PLIES = flags.DEFINE_integer("plies", 0, "gnubg's lookahead: 0, 1 or 2.")
_OUTPUT = flags.DEFINE_string("output", None, "Write the table here instead of printing it.")


def main(argv: Sequence[str]) -> None:
    commandline.refuse_arguments(argv)
    if _TOURNAMENT.value is None:
        raise app.UsageError("--tournament is required", exitcode=commandline.USAGE_ERROR)
    if _PLIES.value not in PLIES:
        raise app.UsageError(
            f"--plies must be one of {PLIES}, got {_PLIES.value}", exitcode=commandline.USAGE_ERROR
        )
    directory = Path(_TOURNAMENT.value)
    try:
        labels = _BOTS.value or sorted(
            {
                label
                for record in GameStore(directory).read_records()
                if not check_backgammon(load_game(record.game))
                for label in record.seats
            }
        )
        results = [judge_tournament(directory, label, plies=_PLIES.value) for label in labels]
    except (StoreError, ValueError, OSError) as error:
        sys.stderr.write(f"error: {error}\n")
        sys.exit(commandline.USAGE_ERROR)
    lines = [
        f"Equity loss per move against GNU Backgammon's choice ({_PLIES.value}-ply), "
        f"`{directory}`; millipoints, 95% intervals from resampling games.",
        "",
        "| bot | games | moves | loss per move | 95% interval | gnubg's choice |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for result in results:
        lines.append(
            f"| {result.label} | {result.games} | {result.moves} | {result.mean:.1f} | "
            f"[{result.low:.1f}, {result.high:.1f}] | {result.best_share:.1%} |"
        )
    text = "\n".join(lines) + "\n"
    commandline.write_or_print(text, _OUTPUT.value)


if __name__ == "__main__":
    commandline.run(main, program="python scripts/gnubg_judge.py")
