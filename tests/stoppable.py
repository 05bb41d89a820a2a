"""Running the three long jobs' command lines in a subprocess, stopping them, and checking that
nothing they started is left behind.

`drive` runs a script (scripts/round_robin.py, scripts/epsilon_sweep.py,
scripts/train_value_net.py) as `python SCRIPT ARGS` would, after replacing the job's class by a
blocking one when BLOCK_ENV holds a JSON object `{"run": [KEY, ...], "marks": DIRECTORY}`: the
tasks whose key is listed run, every other one touches a file in DIRECTORY (named by its worker's
pid and a counter) and then waits until its worker is killed. So a test knows, without timing,
when the listed tasks are recorded and the others are in flight. The blocking job reads
BLOCK_ENV when it is built, in the main process, and carries it to its workers (local processes
or Dask workers) when it is pickled. This module is importable by those workers (not a test
module).
"""

from __future__ import annotations

import itertools
import json
import os
import runpy
import signal
import subprocess
import sys
import time
from collections.abc import Hashable, Mapping, Sequence
from contextlib import suppress
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BLOCK_ENV = "SPIEL_BOUNDED_TEST_BLOCK_JOBS"
BLOCK_SECONDS = 600.0
"""How long a blocked task waits at most (only a guard: its worker is killed long before)."""
DEADLINE = 120.0
"""How long a test waits for something that must happen (only a guard against a hang)."""

_counter = itertools.count()


def _settings() -> tuple[frozenset[str], str]:
    data = json.loads(os.environ[BLOCK_ENV])
    return frozenset(str(key) for key in data["run"]), str(data["marks"])


def _block(marks: str, key: Hashable) -> None:
    (Path(marks) / f"{os.getpid()}-{next(_counter)}").write_text(str(key))
    deadline = time.monotonic() + BLOCK_SECONDS
    while time.monotonic() < deadline:
        time.sleep(0.05)
    raise RuntimeError(f"task {key!r} was blocked for {BLOCK_SECONDS} s and never killed")


def _blocking(base: type) -> type:
    """A subclass of the job class `base` whose `work` blocks the tasks not in BLOCK_ENV."""

    class Blocking(base):  # type: ignore[misc, valid-type]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            allowed, marks = _settings()
            object.__setattr__(self, "_allowed", allowed)
            object.__setattr__(self, "_marks", marks)

        def work(self, task: Any, watch: Any) -> Any:
            key = self.key(task)
            if str(key) not in self._allowed:
                _block(self._marks, key)
            return super().work(task, watch)

    Blocking.__name__ = Blocking.__qualname__ = f"Blocking{base.__name__}"
    return Blocking


def _job_classes() -> dict[str, type]:
    from spiel_bounded.arena.job import TournamentJob
    from spiel_bounded.runs.records import RecordJob
    from spiel_bounded.training.generate import SelfPlayJob

    return {cls.__name__: cls for cls in (TournamentJob, RecordJob, SelfPlayJob)}


# The blocking classes live at module level under their own names, so that pickle finds them.
BlockingTournamentJob = _blocking(_job_classes()["TournamentJob"])
BlockingRecordJob = _blocking(_job_classes()["RecordJob"])  # the sweep's
BlockingSelfPlayJob = _blocking(_job_classes()["SelfPlayJob"])


def _install() -> None:
    from spiel_bounded.arena import runner as arena_runner
    from spiel_bounded.experiments import runner as sweep_runner
    from spiel_bounded.training import generate

    arena_runner.TournamentJob = BlockingTournamentJob  # type: ignore[misc]
    sweep_runner.RecordJob = BlockingRecordJob  # type: ignore[misc]
    generate.SelfPlayJob = BlockingSelfPlayJob  # type: ignore[misc]


def drive() -> None:
    """`python -c "from tests.stoppable import drive; drive()" SCRIPT ARGS...`."""
    script, *args = sys.argv[1:]
    # As started from a terminal: a process inherits an ignored SIGINT from its parent, and the
    # test runner's worker can be one (the ctrl-c tests then timed out in full-suite runs only).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    if os.environ.get(BLOCK_ENV):
        _install()
    sys.argv = [script, *args]
    runpy.run_path(script, run_name="__main__")


def python_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """This environment with ROOT first on PYTHONPATH, less BLOCK_ENV, plus `extra`."""
    env = {key: value for key, value in os.environ.items() if key != BLOCK_ENV}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    env.update(extra or {})
    return env


def start_cli(
    script: str,
    args: Sequence[str],
    *,
    run: Sequence[Hashable] | None = None,
    marks: Path | None = None,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    stderr: Path | None = None,
) -> subprocess.Popen[str]:
    """Starts scripts/SCRIPT with `args` in a new session (its own process group, whose id is
    its pid); with `run`, only the tasks of those keys run, the others block (see the module
    docstring) and say so in `marks`. `env` adds to the environment; `stderr` is a file to
    write stderr into (default: a pipe)."""
    extra = dict(env or {})
    if run is not None:
        assert marks is not None
        marks.mkdir(parents=True, exist_ok=True)
        extra[BLOCK_ENV] = json.dumps({"run": [str(key) for key in run], "marks": str(marks)})
    return subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from tests.stoppable import drive; drive()",
            str(ROOT / "scripts" / script),
            *args,
        ],
        cwd=cwd or ROOT,
        env=python_env(extra),
        start_new_session=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE if stderr is None else open(stderr, "w"),
        text=True,
    )


def wait_until(condition: Any, process: subprocess.Popen[str] | None, what: str) -> None:
    """Waits until `condition()` holds; fails if `process` ends first or after DEADLINE."""
    deadline = time.monotonic() + DEADLINE
    while not condition():
        if process is not None and process.poll() is not None:
            _, stderr = process.communicate()
            raise AssertionError(
                f"the run ended (status {process.returncode}) before {what}: {stderr}"
            )
        assert time.monotonic() < deadline, f"{what} did not happen within {DEADLINE} s"
        time.sleep(0.02)


def blocked(marks: Path) -> int:
    """How many tasks are blocked (have said so in `marks`)."""
    return sum(1 for _ in marks.iterdir()) if marks.is_dir() else 0


def living_in_group(pgid: int) -> list[int]:
    """Pids of the processes of process group `pgid` that are alive (zombies left out: dead,
    only waiting for a parent to collect their status)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue  # gone meanwhile
        # pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses.
        state, _, group = stat[stat.rindex(")") + 2 :].split()[:3]
        if int(group) == pgid and state != "Z":
            found.append(int(entry.name))
    return found


def assert_group_ends(pgid: int) -> None:
    """Fails unless every process of group `pgid` (workers, multiprocessing's resource tracker,
    ...) ends within DEADLINE; kills what is left either way."""
    deadline = time.monotonic() + DEADLINE
    while (left := living_in_group(pgid)) and time.monotonic() < deadline:
        time.sleep(0.05)
    if left:
        described = [
            Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")[:200]
            for pid in left
            if Path(f"/proc/{pid}").exists()
        ]
        kill_group(pgid)
        raise AssertionError(f"processes left behind in group {pgid}: {described}")


def kill_group(pgid: int) -> None:
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)
