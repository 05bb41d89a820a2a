"""Compares the alpha-beta engine of this checkout with an earlier commit, on one workload.

The same searches (seeded positions, the bot's default settings, heuristic evaluator) run in
fresh processes against the code of both trees: the earlier commit is checked out into a
temporary `git worktree`. Each workload is measured in two ways:

- process CPU time, best of `--rounds` runs per tree, the trees alternated run by run, each
  after one untimed warm-up pass over the same searches;
- instructions counted by `valgrind --tool=callgrind` (when valgrind is installed), minus those
  of the same process without the searches: repeatable whatever else the machine is doing.

Node counts and values must be equal in both trees (a speed change must not change the search).

    python scripts/compare_engines.py --baseline=c048c10 --output=results/engine_speedup.md
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from absl import app, flags

from spiel_bounded import commandline

ROOT = Path(__file__).resolve().parents[1]
WORKLOADS = {
    # name: (game, positions, plies, depth)
    "connect_four": ("connect_four", 8, (4, 11), 8),
    "connect_four_d7": ("connect_four", 8, (4, 11), 7),
    "breakthrough": ("breakthrough", 6, (2, 12), 5),
    "breakthrough_d4": ("breakthrough", 6, (2, 12), 4),
}
_BASELINE = flags.DEFINE_string("baseline", None, "The earlier commit (any git revision).")
_WORKLOADS = flags.DEFINE_list("workloads", list(WORKLOADS), f"Of: {', '.join(WORKLOADS)}.")
_ROUNDS = flags.DEFINE_integer("rounds", 3, "Timed runs per tree and workload.")
_INSTRUCTIONS = flags.DEFINE_list(
    "instructions", ["connect_four_d7", "breakthrough_d4"], "Workloads counted by callgrind."
)
_OUTPUT = flags.DEFINE_string("output", None, "Markdown file to write (else stdout only).")

# Run in a child process: import the package from `tree` only (not an editable install of
# another checkout), build the workload, run it unless told not to, print JSON.
_CHILD = """
import json, sys, time
tree, name, mode = sys.argv[1], sys.argv[2], sys.argv[3]
sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in repr(f).lower()]
sys.path.insert(0, tree)
import pyspiel, spiel_bounded
assert spiel_bounded.__file__.startswith(tree), spiel_bounded.__file__
from spiel_bounded import Limits, bounded_ab, make_evaluator
from spiel_bounded.testing import random_positions
game_name, count, plies, depth = json.loads(sys.argv[4])
game = pyspiel.load_game(game_name)
evaluator = make_evaluator("heuristic", game)
states = random_positions(game, count, plies=tuple(plies), seed=2026)
def search():
    found = []
    for state in states:
        result = bounded_ab(state, evaluator=evaluator, limits=Limits(depth=depth))
        found.append([result.action, result.lower, result.upper, result.stats.evaluations,
                      result.stats.nodes])
    return found
search()  # warm-up: the evaluator's tables of line / row scores fill on first use
start = time.process_time()
values = search() if mode == "run" else []
print(json.dumps({"seconds": time.process_time() - start, "values": values}))
"""


def _child(tree: Path, name: str, run: bool, prefix: list[str] | None = None) -> dict:
    command = [*(prefix or []), sys.executable, "-c", _CHILD, str(tree), name]
    command += ["run" if run else "warm", json.dumps(WORKLOADS[name])]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    return {"out": json.loads(done.stdout.strip().splitlines()[-1]), "err": done.stderr}


def _instructions(tree: Path, name: str, scratch: Path) -> int:
    """Instructions of the searches alone: the run minus the same process without them
    (both after the warm-up pass)."""
    counts = []
    for run in (False, True):
        out = scratch / "callgrind.out"
        prefix = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"]
        found = re.search(r"Collected : (\d+)", _child(tree, name, run, prefix)["err"])
        if found is None:
            raise RuntimeError("valgrind printed no instruction count")
        counts.append(int(found.group(1)))
    return counts[1] - counts[0]


def main(argv: list[str]) -> None:
    del argv
    if _BASELINE.value is None:
        raise app.UsageError(
            "--baseline is required (the earlier commit)", exitcode=commandline.USAGE_ERROR
        )
    unknown = sorted(set(_WORKLOADS.value + _INSTRUCTIONS.value) - set(WORKLOADS))
    if unknown:
        raise app.UsageError(
            f"unknown workload(s) {unknown}; accepted: {', '.join(WORKLOADS)}",
            exitcode=commandline.USAGE_ERROR,
        )
    revision = subprocess.run(
        ["git", "rev-parse", "--short", _BASELINE.value],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    head = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    scratch = Path(tempfile.mkdtemp(prefix="compare_engines_"))
    old = scratch / "baseline"
    subprocess.run(
        ["git", "worktree", "add", "--detach", str(old), revision],
        cwd=ROOT,
        capture_output=True,
        check=True,
    )
    trees = {"baseline": old, "this checkout": ROOT}
    try:
        lines = [
            "# Alpha-beta engine: this checkout against an earlier commit",
            "",
            f"Command: `python scripts/compare_engines.py --baseline={revision} "
            f"--workloads={','.join(_WORKLOADS.value)} --rounds={_ROUNDS.value} "
            f"--instructions={','.join(_INSTRUCTIONS.value)}`, run {time.strftime('%Y-%m-%d')} "
            f"(this checkout: {head}, with its uncommitted changes if any).",
            "",
            "Workloads: seeded positions (seed 2026), `bounded_ab` with the bot's default "
            "settings and the heuristic evaluator, to the depth given, each measured after one "
            "untimed pass over the same searches (the evaluator's score tables fill on first "
            "use, as they do during a bot's first moves). Seconds: process CPU time, best of "
            f"{_ROUNDS.value} runs per tree, the trees alternated.",
            "",
            "| workload | positions | depth | nodes | baseline seconds | seconds | speed-up |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
        ]
        for name in _WORKLOADS.value:
            best: dict[str, float] = {}
            found: dict[str, dict] = {}
            for _ in range(_ROUNDS.value):
                for label, tree in trees.items():
                    out = _child(tree, name, True)["out"]
                    best[label] = min(best.get(label, float("inf")), out["seconds"])
                    found[label] = out
            if found["baseline"]["values"] != found["this checkout"]["values"]:
                raise SystemExit(f"{name}: the two trees searched differently")
            nodes = sum(value[-1] for value in found["baseline"]["values"])
            _, count, _, depth = WORKLOADS[name]
            lines.append(
                f"| {name} | {count} | {depth} | {nodes:,} | "
                f"{best['baseline']:.3f} | {best['this checkout']:.3f} | "
                f"{best['baseline'] / best['this checkout']:.2f}x |"
            )
            print(lines[-1], flush=True)
        if _INSTRUCTIONS.value and shutil.which("valgrind"):
            lines += [
                "",
                "Instructions (valgrind callgrind; the searches alone):",
                "",
                "| workload | baseline instructions | instructions | ratio |",
                "| --- | ---: | ---: | ---: |",
            ]
            for name in _INSTRUCTIONS.value:
                before = _instructions(old, name, scratch)
                after = _instructions(ROOT, name, scratch)
                lines.append(f"| {name} | {before:,} | {after:,} | {before / after:.2f}x |")
                print(lines[-1], flush=True)
        lines.append("")
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(old)], cwd=ROOT, check=False)
        shutil.rmtree(scratch, ignore_errors=True)
    text = "\n".join(lines)
    if _OUTPUT.value:
        Path(_OUTPUT.value).write_text(text)
    print(text)


if __name__ == "__main__":
    commandline.run(main, program="python scripts/compare_engines.py")
