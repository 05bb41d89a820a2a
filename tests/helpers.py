"""Shared test tools: deterministic arbitrary evaluators and random reachable positions."""

from __future__ import annotations

import math
import os
import subprocess
import sys
import textwrap
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pyspiel
import pytest
from hypothesis import strategies as st

if TYPE_CHECKING:
    from spiel_bounded.arena.records import GameRecord
    from spiel_bounded.evaluators.value_net import ModelConfig


class HashEvaluator:
    """Arbitrary but deterministic leaf values: a hash of the position mapped into the range.

    Arbitrary leaf values exercise every pruning path, unlike a smooth heuristic; values are
    multiples of 1/8 of the range so that ties occur too.
    """

    name = "hash"

    def __init__(self, game: pyspiel.Game, salt: int = 0) -> None:
        self._low = game.min_utility()
        self._high = game.max_utility()
        self._salt = salt
        self.calls = 0

    def value_for(self, state: pyspiel.State, player: int) -> float:
        return self.evaluate(state)[player]

    def evaluate(self, state: pyspiel.State) -> Sequence[float]:
        self.calls += 1
        text = f"{self._salt}|{state.current_player()}|{state}".encode()
        step = zlib.crc32(text) % 9
        value = self._low + (self._high - self._low) * step / 8
        return (value, self._low + self._high - value)


class FakeClock:
    """Seconds that pass only when a test says so; counts its reads."""

    def __init__(self) -> None:
        self.now = 0.0
        self.reads = 0

    def __call__(self) -> float:
        self.reads += 1
        return self.now


class ClockedEvaluator:
    """Another evaluator whose every evaluation takes `cost` seconds of a fake clock."""

    def __init__(self, inner: HashEvaluator, clock: FakeClock, cost: float) -> None:
        self.name = f"clocked {inner.name}"
        self._inner = inner
        self._clock = clock
        self._cost = cost

    def evaluate(self, state: pyspiel.State) -> Sequence[float]:
        self._clock.now += self._cost
        return self._inner.evaluate(state)


ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))
"""The documentation a user reads: the README and the manual's pages."""


def documentation() -> str:
    """Every page of `DOCUMENTS`, one after the other."""
    return "\n\n".join(path.read_text() for path in DOCUMENTS)


def play_random(state: pyspiel.State, choices: Sequence[int]) -> pyspiel.State:
    """Plays `choices` (each taken modulo the number of legal moves) while not terminal."""
    state = state.clone()
    for choice in choices:
        if state.is_terminal():
            break
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[choice % len(outcomes)][0])
        else:
            actions = state.legal_actions()
            state.apply_action(actions[choice % len(actions)])
    return state


def move_lists(max_moves: int) -> st.SearchStrategy[list[int]]:
    """Random move choices for `play_random`."""
    return st.lists(st.integers(min_value=0, max_value=1000), max_size=max_moves)


def run_without_native(script: str) -> list[str]:
    """The lines `script` prints, run in a fresh interpreter with the native engine disabled
    (`SPIEL_BOUNDED_NATIVE=0`)."""
    environment = {**os.environ, "SPIEL_BOUNDED_NATIVE": "0"}
    done = subprocess.run(
        [sys.executable, "-c", script], env=environment, capture_output=True, text=True, check=True
    )
    return done.stdout.strip().splitlines()


def run_cli(
    args: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> tuple[int, str, str]:
    """Runs `round_robin.py ARGS` in this process; returns the exit code, stdout and stderr."""
    from absl import flags
    from absl.testing import flagsaver

    from spiel_bounded.arena import cli

    argv = ["scripts/round_robin.py", *args]
    monkeypatch.setattr(sys, "argv", argv)
    code: Any = 0
    with flagsaver.flagsaver():
        try:
            cli.main(flags.FLAGS(argv))
        except SystemExit as error:
            code = error.code
    out, err = capsys.readouterr()
    return int(code or 0), out, err


def write_network(
    path: Path,
    game: pyspiel.Game,
    model: ModelConfig,
    chance_view: str,
    seed: int = 0,
    lifted_view: str = "restored",
) -> Path:
    """A random network of the scale training gives (weights ~ 1 / sqrt(fan in)), saved as the
    package saves them."""
    from spiel_bounded.evaluators.value_net import Checkpoint, save_checkpoint
    from spiel_bounded.evaluators.value_net.features import Features
    from spiel_bounded.evaluators.value_net.layout import layout_for
    from spiel_bounded.games import game_info

    rng = np.random.default_rng(seed)
    params = {
        name: (rng.standard_normal(shape) / np.sqrt(np.prod(shape[:-1]) or 1)).astype(np.float32)
        for name, shape in layout_for(game, model).shapes().items()
    }
    checkpoint = Checkpoint(
        game=game_info(game).description,
        observation_shape=Features(game).observation_shape,
        model=model,
        params=params,
        chance_view=chance_view,
        lifted_view=lifted_view,
    )
    return save_checkpoint(path, checkpoint)


def sweep_config(directory: Path, executor: str = "process") -> Path:
    path = directory / "sweep.toml"
    path.write_text(
        textwrap.dedent(
            f"""
            [sweep]
            epsilon_fractions = [0.0, 0.2]
            positions_directory = "{directory / "positions"}"
            [run]
            output = "{directory / "out"}"
            workers = 2
            executor = "{executor}"
            [[sets]]
            name = "tree_b3_d4"
            game = "bounded_random_tree(branching=3,depth=4)"
            seed = 1
            count = 2
            [[runs]]
            label = "bounded_ab"
            algorithm = "bounded_ab"
            sets = ["tree_b3_d4"]
            params = {{ depth = 4 }}
            """
        )
    )
    return path


def selfplay_config(directory: Path, games: int = 4) -> Path:
    path = directory / "train.toml"
    path.write_text(
        textwrap.dedent(
            f"""
            [data]
            game = "tic_tac_toe"
            games = {games}
            bot = "bounded_ab"
            bot_params = {{ depth = 1 }}
            [output]
            directory = "{directory / "model"}"
            data_directory = "{directory / "data"}"
            """
        )
    )
    return path


def game_record(round_: int, seats: tuple[str, str], returns: tuple[float, float]) -> GameRecord:
    """A two-player game record of round `round_` with only what the paired statistics read."""
    from spiel_bounded.arena.records import GameRecord

    return GameRecord(
        game_id=f"g|{','.join(seats)}|{round_}",
        game="g",
        round=round_,
        seats=seats,
        bots=("random", "random"),
        params_hashes=("h", "h"),
        seed=round_,
        returns=returns,
        moves=1,
        seat_moves=(1, 0),
        seconds_per_move=(0.0, math.nan),
        max_seconds=(0.0, math.nan),
        nodes_per_move=(None, None),
        actions=(0,),
        duration=0.0,
    )


def table_record(number: int, seats: tuple[str, ...], returns: tuple[float, ...]) -> GameRecord:
    """A record of game "g", round `number`, with these seats and returns (any number of seats)."""
    from dataclasses import replace

    return replace(
        game_record(0, ("a", "b"), (0.0, 0.0)),
        game_id=f"g|{','.join(seats)}|{number}",
        round=number,
        seats=seats,
        bots=("random",) * len(seats),
        params_hashes=("h",) * len(seats),
        returns=returns,
        seat_moves=(1,) + (0,) * (len(seats) - 1),
        seconds_per_move=(0.0,) + (math.nan,) * (len(seats) - 1),
        max_seconds=(0.0,) + (math.nan,) * (len(seats) - 1),
        nodes_per_move=(None,) * len(seats),
    )
