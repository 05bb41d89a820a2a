"""Suite `memory`: what the memory caps of the searches cost, per entry or node.

Each measurement runs one search in a fresh Python process and reads the process's peak
resident memory during the search (`VmHWM`, reset just before it through
`/proc/self/clear_refs`: the imports alone can peak higher than a search). A cap's cost per entry
is the difference between two runs that differ only in the cap (both with a node budget large
enough to fill it), divided by the difference in entries; so the interpreter, pyspiel and the
rest of the search cancel out. The worst case of a default cap is that cost times the default.
Also measured: how much of the peak the process still holds after the search has returned (the
allocator keeps freed memory for reuse; it does not grow over later moves).
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass

from absl import flags

from spiel_bounded.native import available as native_available
from spiel_bounded.registry import get_spec
from spiel_bounded.search.alphabeta import AlphaBetaSettings

_SMALL = flags.DEFINE_integer("memory_small", 100_000, "The smaller cap of each pair.")
_LARGE = flags.DEFINE_integer("memory_large", 200_000, "The larger cap of each pair.")

_PROBE = """
import json, sys
import pyspiel
import spiel_bounded
from spiel_bounded import load_bot

def rss_mb():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096 / 1e6

name, game_string, params = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
game = pyspiel.load_game(game_string)
bot = load_bot(name, game, 0, **params)
state = game.new_initial_state()
before = rss_mb()
with open("/proc/self/clear_refs", "w") as clear:  # the peak from here on, not from the imports
    clear.write("5")
bot.step(state)
with open("/proc/self/status") as status:
    peak = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:")) / 1e3
stats = bot.last_result.stats
print(json.dumps({"before": before, "peak": peak, "after": rss_mb(), "nodes": stats.nodes,
                  "stopped_by": stats.stopped_by, "seconds": stats.seconds}))
"""


@dataclass(frozen=True)
class Cap:
    """A memory cap to measure: the bot, game, its fixed parameters, and the capped parameter."""

    bot: str
    game: str
    params: dict[str, object]
    cap: str
    unit: str
    note: str = ""

    @property
    def default(self) -> int:
        """The cap's default; where that is None (the alpha-beta family's `tt_capacity`), the
        default of the engine that runs (`AlphaBetaSettings.capacity`)."""
        value = get_spec(self.bot).params[self.cap].default
        if value is None:
            native = self.params.get("engine", "auto") != "python" and native_available()
            return AlphaBetaSettings().capacity(native=native)
        return int(value)


CAPS = (
    Cap(
        "bounded_ab",
        "connect_four",
        {"nodes": 3_000_000, "depth": 40, "engine": "native"},
        "tt_capacity",
        "entry",
        "native engine (the default where it is built)",
    ),
    Cap(
        "bounded_ab",
        "connect_four",
        {"nodes": 3_000_000, "depth": 40, "engine": "python"},
        "tt_capacity",
        "entry",
        "Python engine",
    ),
    Cap("pns", "connect_four", {"nodes": 3_000_000}, "tt_capacity", "entry"),
    Cap(
        "babmcts",
        "connect_four",
        {"simulations": 10**7, "engine": "native"},
        "max_nodes",
        "node",
        "native tree (the default where the native engine is built)",
    ),
    Cap(
        "babmcts",
        "connect_four",
        {"simulations": 10**7, "engine": "python"},
        "max_nodes",
        "node",
        "Python tree",
    ),
    Cap("rivest", "connect_four", {"nodes": 10**7}, "max_nodes", "node"),
)


def _probe(cap: Cap, size: int) -> dict[str, float]:
    params = {**cap.params, cap.cap: size}
    completed = subprocess.run(
        [sys.executable, "-c", _PROBE, cap.bot, cap.game, json.dumps(params)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(completed.stdout.splitlines()[-1])


def run(repeats: int) -> list[str]:
    del repeats  # one run per cap: memory does not vary like time
    small, large = _SMALL.value, _LARGE.value
    lines = [
        "## Memory per table entry and tree node",
        "",
        f"Peak resident memory of a fresh process running one search from the start of the "
        f"game with the cap at {small:,} and at {large:,} (budget large enough to fill both); "
        "bytes per unit = peak difference / cap difference. Worst case = that times the "
        "default cap. 'Held after' is the resident memory the process still had once the "
        "search returned, at the larger cap (the allocator keeps it for reuse).",
        "",
        "| bot | game | cap | bytes per unit | default | worst case of the default | "
        "peak at larger cap (MB) | held after (MB) | stopped by |",
        "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for cap in CAPS:
        low, high = _probe(cap, small), _probe(cap, large)
        per_unit = (high["peak"] - low["peak"]) * 1e6 / (large - small)
        worst = per_unit * cap.default / 1e6
        lines.append(
            f"| `{cap.bot}`{', ' + cap.note if cap.note else ''} | {cap.game} | `{cap.cap}` | "
            f"{per_unit:,.0f} per {cap.unit} | "
            f"{cap.default:,} | {worst:,.0f} MB | {high['peak']:,.0f} | "
            f"{high['after'] - high['before']:,.0f} | {low['stopped_by']} / "
            f"{high['stopped_by']} |"
        )
    lines.append("")
    return lines
