"""Makes a balanced opening suite for `[tournament] openings` (issue 26).

    python scripts/make_openings.py --game=connect_four --plies=4 --count=50 --depth=8 \
        --output=configs/openings/connect_four.txt

Draws distinct openings of `--plies` uniformly random moves, values the position after each with
`bounded_ab` at `--depth` (epsilon 0, the game's heuristic at the leaves), and keeps the
`--count` whose value for player 0 is closest to a draw (within `--margin` of the middle of the
value range), most balanced first. A value near a draw does not make an opening balanced in
play: with `--play_depth=D` each opening is also played out between two `bounded_ab` at depth D
and the suite takes the drawn ones, then equally many won by each seat. The file starts with
comments naming the command, and each line's comment gives its searched value (and result).
With `--unseen=DIR,...` the suite takes no opening whose position a network's training reached:
each DIR is a self-play directory (holding `games/`) or a training loop's directory (`runs/GAME`,
whose `gen_*/games/` are self-play directories), and a position played or kept as a label there
is left out.
Exit status: 0 done; 2 a bad flag or game; 1 too few balanced openings.
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pyspiel
from absl import flags

from spiel_bounded import AlphaBetaSettings, Limits, bounded_ab, commandline, make_evaluator
from spiel_bounded.arena.openings import balanced_openings, random_openings
from spiel_bounded.games import load_game
from spiel_bounded.training.game_files import GAMES_DIR, finished_games
from spiel_bounded.training.openings import unseen_among

_GAME = flags.DEFINE_string("game", None, "OpenSpiel game string (deterministic, two players).")
_PLIES = flags.DEFINE_integer("plies", 4, "Random moves per opening.")
_COUNT = flags.DEFINE_integer("count", 50, "Openings in the suite.")
_DEPTH = flags.DEFINE_integer("depth", 8, "Depth of the bounded_ab search valuing an opening.")
_MARGIN = flags.DEFINE_float("margin", 0.1, "Largest distance from a draw, in utility units.")
_CANDIDATES = flags.DEFINE_integer("candidates", 600, "Random openings drawn.")
_SEED = flags.DEFINE_integer("seed", 0, "Seed of the random openings.")
_OUTPUT = flags.DEFINE_string("output", None, "The suite file to write.")
_PLAY_DEPTH = flags.DEFINE_integer(
    "play_depth",
    0,
    "Play each opening out between two bounded_ab at this depth and keep drawn openings, then "
    "equally many won by each seat (0: select by search value only).",
)

_UNSEEN = flags.DEFINE_list(
    "unseen",
    [],
    "Self-play or training-loop directories whose positions (played or labels) no opening may be.",
)

PROGRAM = "python scripts/make_openings.py"


def self_play_directories(paths: Sequence[str]) -> list[Path]:
    """Each of `paths` if it holds games, else its generations' self-play directories
    (`gen_*/games`) that do; `ValueError` naming a path with none."""
    found: list[Path] = []
    for text in paths:
        path = Path(text)
        inside = [path] if finished_games(path) else sorted(path.glob(f"gen_*/{GAMES_DIR}"))
        inside = [directory for directory in inside if finished_games(directory)]
        if not inside:
            raise ValueError(
                f"--unseen: {path} holds no self-play games; accepted: a directory with "
                f"{GAMES_DIR}/ or a training loop's directory whose gen_*/{GAMES_DIR}/ have them"
            )
        found += inside
    return found


def main(argv: Sequence[str]) -> None:
    if len(argv) > 1 or _GAME.value is None or _OUTPUT.value is None:
        sys.stderr.write(f"usage: {PROGRAM} --game=GAME --output=FILE [--plies ...]\n")
        sys.exit(2)
    try:
        game = load_game(_GAME.value)
    except ValueError as error:
        sys.stderr.write(f"error: {error}\n")
        sys.exit(2)
    kind = game.get_type()
    if game.num_players() != 2 or kind.chance_mode != pyspiel.GameType.ChanceMode.DETERMINISTIC:
        sys.stderr.write(
            f"error: {_GAME.value} is not a deterministic two-player game; accepted: the games "
            "bounded_ab plays\n"
        )
        sys.exit(2)
    try:
        training = self_play_directories(_UNSEEN.value)
    except ValueError as error:
        sys.stderr.write(f"error: {error}\n")
        sys.exit(2)
    evaluator = make_evaluator("heuristic", game)
    limits = Limits(depth=_DEPTH.value)
    settings = AlphaBetaSettings(epsilon=0.0)

    def value_for_player_0(state: pyspiel.State) -> float:
        result = bounded_ab(state, evaluator=evaluator, limits=limits, settings=settings)
        value = 0.5 * (result.lower + result.upper)
        return value if state.current_player() == 0 else -value

    def outcome_for_player_0(state: pyspiel.State) -> float:
        play = Limits(depth=_PLAY_DEPTH.value)
        state = state.clone()
        while not state.is_terminal():
            move = bounded_ab(state, evaluator=evaluator, limits=play, settings=settings).action
            state.apply_action(move)
        return float(state.returns()[0])

    drawn = random_openings(
        game,
        plies=_PLIES.value,
        candidates=_CANDIDATES.value,
        rng=np.random.default_rng(_SEED.value),
    )
    if training:
        drawn = unseen_among(_GAME.value, drawn, training)
    suite = balanced_openings(
        game,
        drawn,
        count=_COUNT.value,
        value_of=value_for_player_0,
        margin=_MARGIN.value,
        outcome_of=outcome_for_player_0 if _PLAY_DEPTH.value > 0 else None,
    )
    command = f"{PROGRAM} {shlex.join(sys.argv[1:])}"
    lines = [
        f"# {len(suite)} openings of {_PLIES.value} random plies for {_GAME.value}, balanced by",
        f"# bounded_ab at depth {_DEPTH.value} ({evaluator.name} leaves): value for player 0",
        f"# within {_MARGIN.value:g} of a draw. Made with: {command}",
    ]
    if _PLAY_DEPTH.value > 0:
        lines.append(
            f"# Played out by two bounded_ab at depth {_PLAY_DEPTH.value}: the drawn openings, "
            "then equally many won by each seat (comment: value, then player 0's return)."
        )
    if training:
        lines.append(
            f"# None of them a position of the {len(training)} self-play directories under "
            f"{', '.join(_UNSEEN.value)}."
        )
    lines += [
        f"{' '.join(map(str, item.opening))}  # {item.value:+.3f}"
        + (f" {item.outcome:+g}" if item.outcome is not None else "")
        for item in suite
    ]
    output = Path(_OUTPUT.value)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text("\n".join(lines) + "\n")
    sys.stdout.write(f"wrote {len(suite)} openings to {output}\n")
    if len(suite) < _COUNT.value:
        sys.stderr.write(
            f"only {len(suite)} of {_COUNT.value} openings within the margin: draw more "
            "--candidates or widen --margin\n"
        )
        sys.exit(1)


if __name__ == "__main__":
    commandline.run(main, program=PROGRAM)
