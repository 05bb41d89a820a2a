"""Benchmarks: our searches against OpenSpiel's own, measured side by side in one run.

    python scripts/bench.py --suites=alphabeta --output results/bench.md
    python scripts/bench.py --suites=overshoot --repeats=1 --overshoot_before=<revision> \
        --output=results/bench_overshoot.md
    python scripts/bench.py --suites=pns --repeats=1 --output=results/bench_pns.md
    python scripts/bench.py --suites=before_after --before_after_revision=<revision> \
        --output=results/bench_before_after.md
    python scripts/bench.py --suites=memory --repeats=1 --output=results/bench_memory.md
    python scripts/bench.py --suites=value_net --output=results/bench_value_net.md
    python scripts/bench.py --suites=native --output=results/bench_native.md
    python scripts/bench.py --suites=selfplay --output=results/bench_selfplay.md

Each suite is a module of `scripts/benchmarks` with `run(repeats) -> list[str]` returning its
Markdown section, listed in `SUITES`; the file written starts with the command and the machine.
"""

from __future__ import annotations

import platform
import sys
import time
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path

from absl import app, flags

from spiel_bounded import commandline

sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchmarks import (
    alphabeta,
    before_after,
    chance,
    equivalence,
    mcts,
    memory,
    native,
    nplayer,
    overshoot,
    pns,
    selfplay,
    value_net,
)  # after the path set-up

SUITES = {
    "alphabeta": alphabeta.run,
    "before_after": before_after.run,
    "chance": chance.run,
    "equivalence": equivalence.run,
    "mcts": mcts.run,
    "memory": memory.run,
    "native": native.run,
    "nplayer": nplayer.run,
    "overshoot": overshoot.run,
    "pns": pns.run,
    "selfplay": selfplay.run,
    "value_net": value_net.run,
}

# Suite flags start with these prefixes (ab_, chance_, equivalence_, mcts_, nplayer_, ...).
SUITES_FLAG_PREFIXES = (
    "ab",
    "before",
    "chance",
    "equivalence",
    "mcts",
    "memory",
    "native",
    "nplayer",
    "overshoot",
    "pns",
    "selfplay",
    "value",
)

_SUITES = flags.DEFINE_list(
    "suites",
    ["alphabeta", "chance", "mcts"],
    f"Suites to run, from: {', '.join(SUITES)} (overshoot and before_after compare with a "
    "revision: --overshoot_before, --before_after_revision).",
)
_OUTPUT = flags.DEFINE_string("output", "results/bench.md", "Markdown file to write.")
_REPEATS = flags.DEFINE_integer("repeats", 3, "Timed repeats; the median is reported.")


def main(argv: Sequence[str]) -> None:
    unknown = sorted(set(_SUITES.value) - set(SUITES))
    if unknown:
        raise app.UsageError(
            f"unknown suite(s) {', '.join(unknown)}; accepted: {', '.join(SUITES)}",
            exitcode=commandline.USAGE_ERROR,
        )
    given = [
        flags.FLAGS[name].serialize()
        for name in sorted(flags.FLAGS)
        if name.split("_", 1)[0] in SUITES_FLAG_PREFIXES and flags.FLAGS[name].present
    ]
    lines = [
        "# Benchmarks",
        "",
        f"Command: `python scripts/bench.py --suites={','.join(_SUITES.value)} "
        f"--repeats={_REPEATS.value} {' '.join([*given, f'--output={_OUTPUT.value}'])}` "
        "(other suite flags at their defaults).",
        f"Machine: {platform.machine()}, Python {platform.python_version()}, open_spiel "
        f"{metadata.version('open_spiel')}, run {time.strftime('%Y-%m-%d')}. Seconds are the "
        f"median of {_REPEATS.value} runs.",
        "",
    ]
    for suite in _SUITES.value:
        lines += SUITES[suite](_REPEATS.value)
    text = "\n".join(lines)
    Path(_OUTPUT.value).write_text(text)
    print(text)


if __name__ == "__main__":
    commandline.run(main, program="python scripts/bench.py")
