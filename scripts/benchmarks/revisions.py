"""The code at an earlier git revision, for suites that measure a change before and after.

The revision is exported with `git archive` into a temporary directory (its native engine built
there when the working tree's is); a suite runs its own module as a script in a subprocess whose
`PYTHONPATH` is that directory (before) or the working tree (after), so that each version imports
only its own `spiel_bounded`. The script prints one JSON line last, which `run_json` returns.
Positions are drawn here, by code of neither version, so that both measure the same ones.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
"""The working tree: the code after the change."""


def short_revision(revision: str) -> str:
    """The abbreviated commit of `revision` (raises on an unknown revision)."""
    return subprocess.run(
        ["git", "rev-parse", "--short", revision],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


def native_built(tree: Path) -> bool:
    """Whether `tree` holds a built native engine (`make native`)."""
    return any((tree / "spiel_bounded" / "native").glob("_engine*.so"))


@contextmanager
def exported(revision: str) -> Iterator[Path]:
    """A temporary directory holding the files of `revision`, removed on exit. Where the working
    tree's native engine is built and `revision` has one, it is built there too (a minute or
    two), so that before and after each run their own C++."""
    with tempfile.TemporaryDirectory() as directory:
        archive = subprocess.run(
            ["git", "archive", revision], cwd=ROOT, check=True, capture_output=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", directory], input=archive, check=True)
        tree = Path(directory)
        if native_built(ROOT) and (tree / "spiel_bounded" / "native" / "src").is_dir():
            _build_native(tree, revision)
        yield tree


def _build_native(tree: Path, revision: str) -> None:
    """Builds the native engine in `tree`; `RuntimeError` with the compiler's last words when
    no engine comes of it (the build is optional elsewhere, and a missing engine would make
    the code before fall back to the Python engines unnoticed)."""
    done = subprocess.run(
        [sys.executable, "setup.py", "-q", "build_ext", "--inplace"],
        cwd=tree,
        env={**os.environ, "SPIEL_BOUNDED_REQUIRE_NATIVE": "1"},
        capture_output=True,
        text=True,
    )
    if done.returncode != 0 or not native_built(tree):
        said = "\n".join(done.stderr.strip().splitlines()[-10:])
        raise RuntimeError(f"the native engine of revision {revision} did not build:\n{said}")


def run_json(pythonpath: Path, script: str, arguments: list[Any]) -> Any:
    """Runs `script` with the JSON of `arguments` as its one argument, importing from
    `pythonpath`; returns the JSON of its last line of output."""
    # The suites import `benchmarks` from the working tree's scripts.
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(pythonpath), str(ROOT / "scripts")])}
    done = subprocess.run(
        [sys.executable, script, json.dumps(arguments)],
        env=env,
        cwd=tempfile.gettempdir(),
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        said = "\n".join(done.stderr.strip().splitlines()[-5:])
        raise RuntimeError(f"{Path(script).name} {arguments} under {pythonpath} failed:\n{said}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def random_positions(game: Any, count: int, plies: tuple[int, int], seed: int) -> list:
    """`count` non-terminal decision positions after a random number of random decisions in
    `plies` (chance outcomes by their probabilities); self-contained, so that both versions of
    the code measure the same positions."""
    import numpy as np

    rng = np.random.default_rng(seed)
    states: list = []
    while len(states) < count:
        state = game.new_initial_state()
        decisions = int(rng.integers(*plies))
        played = 0
        while not state.is_terminal() and (played < decisions or state.is_chance_node()):
            if state.is_chance_node():
                outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rng.choice(outcomes, p=probabilities)))
            else:
                state.apply_action(int(rng.choice(state.legal_actions())))
                played += 1
        if not state.is_terminal():
            states.append(state)
    return states
