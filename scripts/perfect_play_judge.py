"""Judges bots' moves by perfect play (connect_four and clobber): errors per move, and what the
openings decided.

    python scripts/perfect_play_judge.py --tournament=DIR --bots=threats64,heuristic --output=FILE
    python scripts/perfect_play_judge.py --openings=configs/openings/connect_four_threats_unseen.txt

Replays the finished games of a tournament directory that the package solves, solves every
position after the random opening (`spiel_bounded.arena.perfect_play`, the native solvers) and
prints a Markdown table (or writes it to --output): for each bot its games, moves, errors (moves
that lowered its solved value) per move with a 95% interval (games resampled), its score, the
score the openings left it with perfect play on both sides, and its games by what the opening
left it and how they ended. With --openings instead, it solves each opening of a suite file and
counts them by their value for the player to move (and the wins in one move), with the time
each took (one solver, its table kept from one opening to the next). Needs the native engine.
Exit status: 0 done; 2 a bad flag, directory, label or suite.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from absl import app, flags

from spiel_bounded import commandline
from spiel_bounded.arena.openings import check_openings, play_opening, read_openings
from spiel_bounded.arena.perfect_play import judge_tournament
from spiel_bounded.arena.store import StoreError
from spiel_bounded.games import load_game
from spiel_bounded.judges.exact import VALUES, exact_solver

_TOURNAMENT = flags.DEFINE_string("tournament", None, "Tournament output directory.")
_BOTS = flags.DEFINE_list("bots", None, "Labels to judge (default: every label that played).")
_OPENINGS = flags.DEFINE_string("openings", None, "Solve the openings of this suite file instead.")
_GAME = flags.DEFINE_string("game", "connect_four", "The game of --openings (or clobber).")
_OUTPUT = flags.DEFINE_string("output", None, "Write the table here instead of printing it.")

_ENDS = ("win", "draw", "loss")


def main(argv: Sequence[str]) -> None:
    commandline.refuse_arguments(argv)
    if (_TOURNAMENT.value is None) == (_OPENINGS.value is None):
        raise app.UsageError(
            "give one of --tournament and --openings", exitcode=commandline.USAGE_ERROR
        )
    try:
        if _OPENINGS.value is not None:
            text = _openings_text(_OPENINGS.value)
        else:
            text = _tournament_text(Path(str(_TOURNAMENT.value)))
    except (StoreError, ValueError, OSError) as error:
        sys.stderr.write(f"error: {error}\n")
        sys.exit(commandline.USAGE_ERROR)
    commandline.write_or_print(text, _OUTPUT.value)


def _openings_text(path: str) -> str:
    game = load_game(_GAME.value)
    solver = exact_solver(game)
    counts: Counter[str] = Counter()
    in_one = 0
    openings = read_openings(path)
    check_openings(game, openings, path)
    seconds = []
    for opening in openings:
        state, _ = play_opening(game, opening)
        started = time.perf_counter()
        values = solver.move_values(state)
        seconds.append(time.perf_counter() - started)
        assert values is not None  # no limit
        counts[VALUES[max(values.values())]] += 1
        in_one += any(state.child(move).is_terminal() and values[move] == 1 for move in values)
    return (
        f"The {len(openings)} openings of `{path}` ({_GAME.value}) solved, for the "
        f"player to move: {counts['win']} won ({in_one} of them in one move), {counts['draw']} "
        f"drawn, {counts['loss']} lost. Every move of each solved in {sum(seconds):.1f} s "
        f"({solver.nodes:,} positions searched; an opening's median "
        f"{statistics.median(seconds):.3f} s, its slowest {max(seconds):.3f} s).\n"
    )


def _tournament_text(directory: Path) -> str:
    results = judge_tournament(directory, _BOTS.value)
    lines = [
        f"Moves against perfect play, `{directory}`: an error lowers the mover's "
        "solved value; 95% intervals from resampling games ([0, 0] for a bot that never errs). "
        "`start` is the score the openings left each bot with perfect play on both sides (the "
        "solved value after the opening, for its seat); the last columns count its games by "
        "that value, as won-drawn-lost at the end.",
        "",
        "| bot | games | moves | errors | per move | 95% interval | score % | start % | "
        "from won | from drawn | from lost |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for result in results:
        ends = [
            "-".join(str(result.outcomes.get((start, end), 0)) for end in _ENDS) for start in _ENDS
        ]
        lines.append(
            f"| {result.label} | {result.games} | {result.moves} | {result.errors} | "
            f"{result.error_rate:.1%} | [{result.low:.1%}, {result.high:.1%}] | "
            f"{100 * result.score:.1f} | {100 * result.start_score:.1f} | "
            + " | ".join(ends)
            + " |"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    commandline.run(main, program="python scripts/perfect_play_judge.py")
