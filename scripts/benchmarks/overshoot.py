"""Suite `overshoot`: time per move against the time limit, the code before a change and after.

Every bot that takes a time limit plays one move from each of a set of seeded random positions of
each game, timed around `bot.step` as the arena times a move. The overshoot of a move is its
time over the limit, in percent of the limit; moves that ended before the limit (a proved value)
are left out. The code before the change is a git revision (`--overshoot_before`), exported with
`git archive` into a temporary directory; each (game, bot, limit) is measured in a subprocess
for each version, before and after one after the other, so that both see the same machine.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from absl import flags

from benchmarks import revisions

_GAMES = flags.DEFINE_list(
    "overshoot_games",
    [
        "chess",
        "checkers",
        "go(board_size=9)",
        "connect_four",
        "breakthrough",
        "amazons",
        "hex",
        "othello",
        "oware",
        "backgammon",
    ],
    "Games to measure.",
)
_LIMITS = flags.DEFINE_list("overshoot_limits", ["0.05", "0.2"], "Time limits in seconds.")
_POSITIONS = flags.DEFINE_integer("overshoot_positions", 20, "Positions (moves) per game.")
_SEED = flags.DEFINE_integer("overshoot_seed", 2026, "Seed of the random positions.")
_BEFORE = flags.DEFINE_string(
    "overshoot_before", "HEAD", "Git revision of the code before the change."
)


@dataclass(frozen=True)
class Moves:
    """Times of the moves of one (game, bot, limit) under one version of the code."""

    limit: float
    step: tuple[float, ...]  # seconds around bot.step
    search: tuple[float, ...]  # the search's own stats.seconds
    stopped_by_time: tuple[bool, ...]

    def overshoots(self, times: tuple[float, ...]) -> list[float]:
        """Percent over the limit of the moves stopped by the clock."""
        return [
            100.0 * (t / self.limit - 1.0)
            for t, timed in zip(times, self.stopped_by_time, strict=True)
            if timed
        ]


def _bots(game: str) -> list[str]:
    import pyspiel

    chance = pyspiel.load_game(game).get_type().chance_mode
    deterministic = chance == pyspiel.GameType.ChanceMode.DETERMINISTIC
    return ["bounded_ab" if deterministic else "bounded_star2", "babmcts"]


def measure(game: str, bot: str, limit: float, positions: int, seed: int) -> dict:
    """Runs in the subprocess: the moves of one (game, bot, limit), as a JSON-able dict."""
    import pyspiel

    import spiel_bounded

    loaded = pyspiel.load_game(game)
    states = revisions.random_positions(loaded, positions + 1, (4, 30), seed)
    step, search, timed = [], [], []
    for index, state in enumerate(states):
        params: dict = {"seconds": limit}
        if bot == "babmcts":
            params.update(simulations=None, reuse_tree=False)
        player = spiel_bounded.load_bot(bot, loaded, state.current_player(), **params)
        start = time.perf_counter()
        player.step(state)
        seconds = time.perf_counter() - start
        if index == 0:
            continue  # warm-up: first use of the game's evaluator and tables
        stats = player.last_result.stats
        step.append(seconds)
        search.append(stats.seconds)
        timed.append(stats.stopped_by == "seconds")
    return {"limit": limit, "step": step, "search": search, "stopped_by_time": timed}


def _run_version(pythonpath: Path, game: str, bot: str, limit: float) -> Moves:
    arguments = [game, bot, limit, _POSITIONS.value, _SEED.value]
    data = revisions.run_json(pythonpath, __file__, arguments)
    return Moves(
        data["limit"], tuple(data["step"]), tuple(data["search"]), tuple(data["stopped_by_time"])
    )


def _cell(values: list[float]) -> str:
    if not values:
        return "- | -"
    return f"{statistics.fmean(values):+.1f} | {max(values):+.1f}"


def run(repeats: int) -> list[str]:
    """Runs the suite; returns its Markdown section (`repeats` is not used: every move counts)."""
    revision = revisions.short_revision(_BEFORE.value)
    load_before = os.getloadavg()[0]
    lines = [
        "## Time per move against the time limit",
        "",
        f"Settings: positions={_POSITIONS.value} per game (random openings of 4-29 plies, seed "
        f"{_SEED.value}), limits {', '.join(_LIMITS.value)} s, bots at their defaults with "
        "`seconds` set (babmcts: `simulations=None`, `reuse_tree=False`). Overshoot = time over "
        "the limit in percent of the limit, mean and max over the moves the clock stopped "
        "(n: how many, before/after; the others were proved earlier). 'step' is timed around "
        "`bot.step`, as "
        "the arena does; 'search' is the search's own `stats.seconds`. Before: revision "
        f"{revision}; after: the working tree; measured one after the other for each row.",
        "",
        "| game | bot | limit (s) | n | before: step mean % | step max % | search mean % | "
        "search max % | after: step mean % | step max % | search mean % | search max % |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    with revisions.exported(revision) as before_dir:
        for game in _GAMES.value:
            for bot in _bots(game):
                for limit in map(float, _LIMITS.value):
                    old = _run_version(before_dir, game, bot, limit)
                    new = _run_version(revisions.ROOT, game, bot, limit)
                    n = f"{sum(old.stopped_by_time)}/{sum(new.stopped_by_time)}"
                    lines.append(
                        f"| {game} | {bot} | {limit:g} | {n} | {_cell(old.overshoots(old.step))} "
                        f"| {_cell(old.overshoots(old.search))} "
                        f"| {_cell(new.overshoots(new.step))} "
                        f"| {_cell(new.overshoots(new.search))} |"
                    )
    load_after = os.getloadavg()[0]
    return [
        *lines,
        "",
        f"Load average (1 min) on the {os.cpu_count()}-core machine: {load_before:.1f} at the "
        f"start, {load_after:.1f} at the end (other processes running make single moves "
        "late by whole time slices).",
        "",
    ]


if __name__ == "__main__":
    print(json.dumps(measure(*json.loads(sys.argv[1]))))
