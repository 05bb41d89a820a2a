"""Deliberately misbehaving bots for the arena tests, given to the arena as extra bot factories.

They live in an importable module (not a test module) so that worker processes started with
the spawn method can unpickle the factories. `drive` runs a tournament from a subprocess (the
SIGKILL tests), with these bots available.
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pyspiel

from spiel_bounded.arena import (
    InlineExecutor,
    ProcessExecutor,
    Terminated,
    load_config,
    run_tournament,
)
from spiel_bounded.registry import load_bot

ROOT = Path(__file__).resolve().parents[1]

BLOCK_ENV = "SPIEL_BOUNDED_TEST_BLOCK"
BLOCKED_DIR_ENV = "SPIEL_BOUNDED_TEST_BLOCKED_DIR"
FAIL_BUILD_ENV = "SPIEL_BOUNDED_TEST_FAIL_BUILD"


class _RandomBot(pyspiel.Bot):
    """Uniformly random legal moves (a pure-Python bot the tests can subclass)."""

    def __init__(self, seed: int) -> None:
        pyspiel.Bot.__init__(self)
        self._rng = np.random.default_rng(seed)

    def step(self, state: pyspiel.State) -> int:
        legal = state.legal_actions()
        return int(legal[self._rng.integers(len(legal))])

    def restart_at(self, state: pyspiel.State) -> None:
        pass

    def inform_action(self, state: pyspiel.State, player_id: int, action: int) -> None:
        pass


class _RaisingBot(_RandomBot):
    def step(self, state: pyspiel.State) -> int:
        raise RuntimeError("deliberate failure in the raising bot")


class _IllegalBot(_RandomBot):
    def step(self, state: pyspiel.State) -> int:
        return state.num_distinct_actions() + 7


class _CrashingBot(_RandomBot):
    def step(self, state: pyspiel.State) -> int:
        os.kill(os.getpid(), signal.SIGKILL)  # what a segfault in native code looks like
        raise AssertionError("unreachable")


class _ExitingBot(_RandomBot):
    def step(self, state: pyspiel.State) -> int:
        os._exit(3)  # what a worker that fails by itself (not by a signal) looks like


class _BlockingBot(_RandomBot):
    """Random moves, but waits forever on its first move while BLOCK_ENV is set; then it
    creates a file named by its pid in the directory BLOCKED_DIR_ENV names, if any."""

    def step(self, state: pyspiel.State) -> int:
        if os.environ.get(BLOCK_ENV) == "1" and os.environ.get(BLOCKED_DIR_ENV):
            (Path(os.environ[BLOCKED_DIR_ENV]) / str(os.getpid())).touch()
        while os.environ.get(BLOCK_ENV) == "1":
            time.sleep(0.05)
        return super().step(state)


class _SegfaultingEvaluator:
    """Faults on its first call: from inside a native search, what a crash in C++ looks like."""

    name = "segfaulting"

    def evaluate(self, state: pyspiel.State) -> list[float]:
        ctypes.string_at(0)  # reads address 0: SIGSEGV
        raise AssertionError("unreachable")


def native_crashing_bot(
    game: pyspiel.Game, player: int, params: Mapping[str, Any], seed: int
) -> Any:
    """`bounded_ab` on the native engine whose search dies of a segfault."""
    return load_bot(
        "bounded_ab", game, player, depth=2, engine="native", evaluator=_SegfaultingEvaluator()
    )


def random_bot(game: pyspiel.Game, player: int, params: Mapping[str, Any], seed: int) -> Any:
    return _RandomBot(seed)


def raising_bot(game: pyspiel.Game, player: int, params: Mapping[str, Any], seed: int) -> Any:
    return _RaisingBot(seed)


def illegal_bot(game: pyspiel.Game, player: int, params: Mapping[str, Any], seed: int) -> Any:
    return _IllegalBot(seed)


def crashing_bot(game: pyspiel.Game, player: int, params: Mapping[str, Any], seed: int) -> Any:
    return _CrashingBot(seed)


def exiting_bot(game: pyspiel.Game, player: int, params: Mapping[str, Any], seed: int) -> Any:
    return _ExitingBot(seed)


def crashing_factory(game: pyspiel.Game, player: int, params: Mapping[str, Any], seed: int) -> Any:
    os.kill(os.getpid(), signal.SIGKILL)  # a crash while the bot is being built
    raise AssertionError("unreachable")


def blocking_bot(game: pyspiel.Game, player: int, params: Mapping[str, Any], seed: int) -> Any:
    return _BlockingBot(seed)


def failing_factory(game: pyspiel.Game, player: int, params: Mapping[str, Any], seed: int) -> Any:
    raise ValueError("deliberate failure while building the bot")


def flaky_factory(game: pyspiel.Game, player: int, params: Mapping[str, Any], seed: int) -> Any:
    """A random bot that cannot be built while FAIL_BUILD_ENV is set (a missing file, say)."""
    if os.environ.get(FAIL_BUILD_ENV) == "1":
        raise ValueError("deliberate failure while building the flaky bot")
    return _RandomBot(seed)


EXTRA_BOTS = {
    "test_random": random_bot,
    "test_raising": raising_bot,
    "test_illegal": illegal_bot,
    "test_crashing": crashing_bot,
    "test_native_crashing": native_crashing_bot,
    "test_crashing_factory": crashing_factory,
    "test_exiting": exiting_bot,
    "test_blocking": blocking_bot,
    "test_failing_factory": failing_factory,
    "test_flaky_factory": flaky_factory,
}


def drive(config_path: str, executor: str) -> None:
    """Runs the tournament of `config_path` with the test bots ("inline" or "process").

    Stopped by Ctrl-C or SIGTERM, it exits as the command line does: 128 + the signal's number.
    """
    # A process inherits an ignored or blocked SIGINT from its parent (Python then installs no
    # KeyboardInterrupt handler): give this one a terminal's Ctrl-C whatever the test runner's
    # process did before starting it.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    signal.signal(signal.SIGINT, signal.default_int_handler)
    config = load_config(config_path, extra_bots=EXTRA_BOTS)
    runner = InlineExecutor() if executor == "inline" else ProcessExecutor(1)
    try:
        run_tournament(config, executor=runner, extra_bots=EXTRA_BOTS)
    except KeyboardInterrupt as error:
        sys.stderr.write(f"stopped: {error!r}\n")
        sys.exit(128 + (error.signum if isinstance(error, Terminated) else signal.SIGINT))


DEADLINE = 120.0


def write_config(path: Path, output: Path, games_per_pairing: int, bots: list[str]) -> Path:
    text = (
        f'[tournament]\ngames = ["tic_tac_toe"]\ngames_per_pairing = {games_per_pairing}\n'
        f'[run]\noutput = "{output}"\n'
    )
    for index, bot in enumerate(bots):
        text += f'[[bots]]\nlabel = "b{index}"\nbot = "{bot}"\n'
    path.write_text(text)
    return path


def start(
    config: Path, executor: str, *, block: bool, env: Mapping[str, str] | None = None
) -> subprocess.Popen[bytes]:
    env = {key: value for key, value in {**os.environ, **(env or {})}.items() if key != BLOCK_ENV}
    if block:
        env[BLOCK_ENV] = "1"
    code = f"from tests.arena_bots import drive; drive({str(config)!r}, {executor!r})"
    return subprocess.Popen(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=env,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
