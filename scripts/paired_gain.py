"""How much more each bot of a tournament scored than a control bot against the same opponents,
paired by round.

    python scripts/paired_gain.py \
        --tournament=results/round_robin_confirm_clobber_swindle_second --control=swindle_work

A tournament that seats several bots against one opponent plays each round's opening, seed and
chance outcomes for all of them, so a bot's score minus the control's, round by round, leaves
the openings' spread out of the comparison (`spiel_bounded.arena.paired.paired_gain`). For every
opponent the control played and every other bot that played it, prints a Markdown row (or
writes the table to --output): the rounds both completed, both scores, and the gain with a 95%
interval from resampling rounds. Exit status: 0 done; 2 a bad flag or directory, or a control
that played no one.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from absl import app, flags

from spiel_bounded import commandline
from spiel_bounded.arena.paired import PairedGain, paired_gain
from spiel_bounded.arena.records import GameRecord, latest
from spiel_bounded.arena.store import GameStore, StoreError

_TOURNAMENT = flags.DEFINE_string("tournament", None, "Tournament output directory.")
_CONTROL = flags.DEFINE_string("control", None, "Label of the bot the others are compared with.")
_SEED = flags.DEFINE_integer("seed", 0, "Seed of the resampling.")
_OUTPUT = flags.DEFINE_string("output", None, "Write the table here instead of printing it.")


def gains(records: Sequence[GameRecord], control: str, seed: int) -> list[PairedGain]:
    """Every (bot, opponent) comparison with `control` that `records` hold."""
    opponents: dict[tuple[str, str], set[str]] = {}  # (game, opponent) -> bots that met it
    for record in records:
        if len(record.seats) == 2 and record.seats[0] != record.seats[1]:
            for index, label in enumerate(record.seats):
                opponents.setdefault((record.game, record.seats[1 - index]), set()).add(label)
    found = []
    for (game, opponent), bots in sorted(opponents.items()):
        if control not in bots:
            continue
        for bot in sorted(bots - {control}):
            try:
                found.append(
                    paired_gain(
                        records, game=game, bot=bot, control=control, opponent=opponent, seed=seed
                    )
                )
            except ValueError:
                continue  # met the opponent on other rounds only
    return found


def main(argv: Sequence[str]) -> None:
    commandline.refuse_arguments(argv)
    if _TOURNAMENT.value is None or _CONTROL.value is None:
        raise app.UsageError(
            "--tournament and --control are required", exitcode=commandline.USAGE_ERROR
        )
    try:
        records = latest(GameStore(_TOURNAMENT.value).read_records())
    except (StoreError, OSError) as error:
        sys.stderr.write(f"error: {error}\n")
        sys.exit(commandline.USAGE_ERROR)
    found = gains(records, _CONTROL.value, _SEED.value)
    if not found:
        labels = sorted({label for record in records for label in record.seats})
        sys.stderr.write(
            f"error: {_CONTROL.value!r} shares no opponent with another bot in "
            f"{_TOURNAMENT.value} (its bots: {', '.join(labels) or 'none'})\n"
        )
        sys.exit(commandline.USAGE_ERROR)
    lines = [
        f"Scores against the same opponent on the same rounds of `{_TOURNAMENT.value}`, "
        f"each bot against `{_CONTROL.value}`; 95% intervals from resampling rounds "
        f"(seed {_SEED.value}).",
        "",
        f"| game | opponent | bot | rounds | bot's score | {_CONTROL.value}'s score | gain |",
        "| --- | --- | --- | ---: | ---: | ---: | ---: |",
    ]
    for gain in found:
        lines.append(
            f"| {gain.game} | {gain.opponent} | {gain.bot} | {gain.rounds} | "
            f"{gain.bot_score:.1%} | {gain.control_score:.1%} | "
            f"{100 * gain.gain:+.1f} [{100 * gain.low:+.1f}, {100 * gain.high:+.1f}] points |"
        )
    commandline.write_or_print("\n".join(lines) + "\n", _OUTPUT.value)


if __name__ == "__main__":
    commandline.run(main, program="python scripts/paired_gain.py")
