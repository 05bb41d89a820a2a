"""Replays recorded tournament games and checks that today's bots choose the recorded moves.

For each results directory, the games whose every seat is clock-free (a simulation, node or
depth limit and no time limit: the moves depend only on the seeds) are rebuilt from the stored
config and played again by the arena's own `play_match`, with the recorded seeds; the actions
must equal the recorded ones. This is the check that a refactoring changed no behaviour.

    python scripts/replay_check.py --results=results/round_robin_babmcts_sims --games=30

Exits non-zero when a replayed game differs (or no game could be replayed).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from absl import flags

from spiel_bounded import commandline
from spiel_bounded.arena.config import parse_config
from spiel_bounded.arena.play import play_match
from spiel_bounded.arena.records import GameRecord, latest
from spiel_bounded.arena.schedule import Match, SeatBot, make_schedule
from spiel_bounded.arena.store import GameStore

_RESULTS = flags.DEFINE_list(
    "results",
    ["results/round_robin_babmcts_sims"],
    "Results directories (each with run.json and games.csv).",
)
_GAMES = flags.DEFINE_integer("games", 30, "Games to replay per directory (a seeded sample).")
_SEED = flags.DEFINE_integer("seed", 0, "Seed of the sample.")

_ALPHA_BETA = ("bounded_ab", "bounded_star1", "bounded_star2")


def clock_free(seat: SeatBot) -> bool:
    """True when the seat's moves depend on its seed only, not on the clock."""
    params = seat.params
    if params.get("seconds") is not None:
        return False
    if seat.bot in _ALPHA_BETA:  # no limit at all means the default time limit
        return params.get("depth") is not None or params.get("nodes") is not None
    if seat.bot == "babmcts":
        return params.get("simulations", 1000) is not None or params.get("nodes") is not None
    return seat.bot in ("openspiel_ab", "mcts", "python_mcts", "random")


def replayable(directory: Path) -> tuple[list[tuple[GameRecord, Match]], int]:
    """The finished, clock-free games of a results directory with their scheduled matches,
    and how many finished games there are in all."""
    store = GameStore(directory)
    manifest = store.read_manifest()
    if manifest is None:
        raise SystemExit(f"{directory}: no run.json")
    config = parse_config(manifest.config_text, source=manifest.config_source)
    matches = {match.game_id: match for match in make_schedule(config.tournament)}
    records = [record for record in latest(store.read_records()) if record.ok]
    pairs = []
    for record in records:
        match = matches.get(record.game_id)
        if match is None or match.seed != record.seed:
            continue  # played with overrides the stored config does not hold
        # Parameter hashes are not compared: they cover every parameter with its default, so a
        # newly exposed setting changes them without changing a move.
        if all(clock_free(seat) for seat in match.seats):
            pairs.append((record, match))
    return pairs, len(records)


def main(argv: Sequence[str]) -> None:
    del argv
    failures = replayed = 0
    for name in _RESULTS.value:
        directory = Path(name)
        pairs, total = replayable(directory)
        rng = np.random.default_rng(_SEED.value)
        chosen = sorted(rng.choice(len(pairs), size=min(_GAMES.value, len(pairs)), replace=False))
        print(
            f"{directory}: {len(pairs)} of {total} finished games are clock-free; "
            f"replaying {len(chosen)}"
        )
        started = time.perf_counter()
        differ = 0
        for index in chosen:
            record, match = pairs[index]
            again = play_match(match)
            replayed += 1
            if not (again.ok and again.actions == record.actions):
                differ += 1
                where = next(
                    (
                        i
                        for i, (a, b) in enumerate(zip(again.actions, record.actions, strict=False))
                        if a != b
                    ),
                    min(len(again.actions), len(record.actions)),
                )
                print(
                    f"  DIFFERS {record.game_id}: first difference at action {where}"
                    + (f"; error: {again.error.splitlines()[-1]}" if again.error else "")
                )
        failures += differ
        print(f"  {len(chosen) - differ} identical, {time.perf_counter() - started:.0f} s")
    print(f"replayed {replayed} games, {failures} differ")
    if failures or not replayed:
        sys.exit(1)


if __name__ == "__main__":
    commandline.run(main, program="python scripts/replay_check.py")
