"""The `alphazero` bot: a checkpoint of OpenSpiel's JAX AlphaZero, playing with OpenSpiel's MCTS.

The checkpoints come from `tests/alphazero_runs.py` (the `alphazero_runs` fixture, tiny runs of
the trainer's own pieces); without the alphazero extra those tests skip, and the refusal
without it is tested by hiding chex.
"""

from __future__ import annotations

import json
import math
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pyspiel
import pytest

from spiel_bounded import bots_for, describe_bots, load_bot
from spiel_bounded.arena import make_schedule, parse_config, play_match
from spiel_bounded.bots import alphazero
from spiel_bounded.testing import DRIVERS, check_bot, random_positions

ROOT = Path(__file__).resolve().parents[1]
TTT = "tic_tac_toe"
PIG = "pig(winscore=30)"


def _tree(node: Any) -> tuple:
    """An MCTS node and everything below it, as comparable values."""
    return (
        node.action,
        node.player,
        node.prior,
        node.explore_count,
        node.total_reward,
        tuple(_tree(child) for child in node.children),
    )


def test_the_latest_checkpoint_is_the_last_committed(alphazero_runs: dict[str, Path]) -> None:
    run = alphazero_runs[TTT]
    bot = load_bot("alphazero", TTT, 0, checkpoint=str(run))
    # checkpoint--1 (after step 2) was committed after checkpoint-1, despite its number.
    assert bot.checkpoint.path == run / "checkpoint--1"
    assert bot.checkpoint.step == -1 and bot.checkpoint.directory == run
    config = json.loads((run / "config.json").read_text())
    assert (bot.simulations, bot.uct_c, bot.seconds) == (4, 1.41, None)
    assert bot.simulations == config["max_simulations"]
    named = load_bot("alphazero", TTT, 0, checkpoint=run / "checkpoint-0", simulations=9, uct_c=3)
    assert named.checkpoint.path == run / "checkpoint-0" and named.checkpoint.step == 0
    assert (named.simulations, named.uct_c) == (9, 3.0)


def test_the_weights_are_restored(alphazero_runs: dict[str, Path]) -> None:
    """Trained weights, not the initial ones the network is built with (checkpoint-0 holds
    those): a checkpoint that failed to restore would answer like checkpoint-0."""
    game = pyspiel.load_game(TTT)
    state = game.new_initial_state()
    outputs = []
    for name in ("checkpoint-0", "checkpoint-1", "checkpoint--1"):
        found = alphazero.find_checkpoint(alphazero_runs[TTT] / name)
        model = alphazero.load_model(found, game)
        value, policy = model.inference(state.observation_tensor(), state.legal_actions_mask())
        outputs.append(np.append(policy, value))
    assert not np.allclose(outputs[0], outputs[1]) and not np.allclose(outputs[1], outputs[2])


def test_a_relative_checkpoint_path_loads(
    alphazero_runs: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Orbax refuses relative paths; the bot resolves them (configs name checkpoints relative
    to the repository)."""
    run = alphazero_runs[TTT]
    monkeypatch.chdir(run.parent)
    bot = load_bot("alphazero", TTT, 0, checkpoint=run.name, simulations=4)
    state = pyspiel.load_game(TTT).new_initial_state()
    assert bot.step(state) in state.legal_actions()


@pytest.mark.parametrize("game_string", [TTT, PIG])  # Flax NNX and linen
def test_compiled_inference_is_openspiels(
    game_string: str, alphazero_runs: dict[str, Path]
) -> None:
    game = pyspiel.load_game(game_string)
    found = alphazero.find_checkpoint(alphazero_runs[game_string])
    compiled = alphazero.load_model(found, game)
    plain = alphazero.load_model(found, game, jit=False)
    assert type(plain).__name__ == "Model"  # OpenSpiel's own
    for state in random_positions(game, 6, plies=(0, 6), seed=1):
        observation, mask = state.observation_tensor(), state.legal_actions_mask()
        value, policy = compiled.inference(observation, mask)
        expected_value, expected_policy = plain.inference(observation, mask)
        assert isinstance(policy, np.ndarray)
        np.testing.assert_allclose(policy, np.asarray(expected_policy), atol=1e-6)
        assert float(value) == pytest.approx(float(expected_value), abs=1e-6)


@pytest.mark.parametrize("game_string", [TTT, PIG])
def test_the_clocked_search_is_openspiels_search(
    game_string: str, alphazero_runs: dict[str, Path]
) -> None:
    """Without its clock, the loop that `seconds` uses builds OpenSpiel's tree, node for node
    (pig: chance nodes inside the tree)."""
    game = pyspiel.load_game(game_string)
    for state in random_positions(game, 3, plies=(0, 5), seed=4):
        trees = []
        for clocked in (False, True):
            bot = load_bot("alphazero", game, 0, checkpoint=str(alphazero_runs[game_string]))
            search = bot.bot
            search.max_simulations = 30
            root = (
                search.timed_search(state, math.inf, 30) if clocked else search.mcts_search(state)
            )
            assert root.explore_count == 30
            trees.append(_tree(root))
        assert trees[0] == trees[1]


def test_a_clock_too_short_for_any_simulation_still_gives_a_move(
    alphazero_runs: dict[str, Path],
) -> None:
    game = pyspiel.load_game(TTT)
    bot = load_bot("alphazero", game, 0, checkpoint=str(alphazero_runs[TTT]), seconds=1e-9)
    state = game.new_initial_state()
    assert bot.step(state) in state.legal_actions()
    assert bot.bot.timed_search(state, 0.0).explore_count == 2


def test_full_games_against_random(alphazero_runs: dict[str, Path]) -> None:
    """In every seat under both of OpenSpiel's drivers: legal moves only, the same game from the
    same seed, refusals of the states no bot moves in (`tests/test_conformance.py` plays
    tic_tac_toe and pig against MCTS the same way)."""
    params = {"checkpoint": str(alphazero_runs[TTT]), "simulations": 8}
    played = check_bot("alphazero", TTT, params, opponent="random")
    assert {(game.seat, game.driver) for game in played} == {
        (seat, driver) for seat in (0, 1) for driver in DRIVERS
    }


def test_the_same_seed_plays_the_same_moves(alphazero_runs: dict[str, Path]) -> None:
    game = pyspiel.load_game(PIG)
    states = random_positions(game, 8, plies=(0, 12), seed=2)

    def moves(seed: int) -> list[int]:
        checkpoint = str(alphazero_runs[PIG])
        bots = [load_bot("alphazero", game, p, checkpoint=checkpoint, seed=seed) for p in (0, 1)]
        return [bots[state.current_player()].step(state) for state in states]

    assert moves(3) == moves(3)


def test_it_plays_in_a_tournament(alphazero_runs: dict[str, Path]) -> None:
    """Through the arena: config, schedule (its `seconds` gets the tournament's time per move),
    one game per seating."""
    text = (
        f'[tournament]\ngames = ["{TTT}"]\ngames_per_pairing = 2\nseconds_per_move = 0.02\n'
        f'[[bots]]\nlabel = "az"\nbot = "alphazero"\n'
        f'params = {{ checkpoint = "{alphazero_runs[TTT]}" }}\n'
        '[[bots]]\nlabel = "random"\nbot = "random"\n'
    )
    schedule = make_schedule(parse_config(text).tournament)
    assert len(schedule) == 2
    for match in schedule:
        (seat,) = [seat for seat in match.seats if seat.bot == "alphazero"]
        assert seat.params["seconds"] == 0.02
        record = play_match(match)
        assert record.ok, record.error
        assert sum(record.returns) == 0


# -- errors --------------------------------------------------------------------------------------


def test_the_checkpoint_is_required() -> None:
    with pytest.raises(ValueError, match="parameter 'checkpoint' of bot 'alphazero' is required"):
        load_bot("alphazero", TTT, 0)
    assert re.search(
        r"\n    checkpoint +required +the AlphaZero output", describe_bots("alphazero")
    )


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"simulations": 1}, "parameter 'simulations'.*an integer >= 2 or None, got 1"),
        ({"uct_c": 0}, "parameter 'uct_c'.*> 0"),
        ({"jit": "yes"}, "parameter 'jit'.*True or False"),
        ({"checkpoint": ""}, "parameter 'checkpoint'.*must be a path"),
        ({"checkpoint": 3}, "parameter 'checkpoint'.*must be a path"),
    ],
)
def test_bad_parameters_are_refused(params: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        load_bot("alphazero", TTT, 0, **{"checkpoint": "somewhere", **params})


def _copy(run: Path, tmp_path: Path) -> Path:
    copied = tmp_path / "run"
    shutil.copytree(run, copied)
    return copied


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda run: run / "missing", r"'.*/missing' does not exist; expected the output dir"),
        (lambda run: run / "config.json", r"'.*/config.json' is a file; expected"),
        (
            lambda run: (run / "config.json").unlink() or run,
            r"no config.json in .*/run; expected the output directory",
        ),
        (
            lambda run: (run / "config.json").unlink() or run / "checkpoint-0",
            r"'.*/checkpoint-0': no config.json in its parent directory",
        ),
        (
            lambda run: (run / "config.json").write_text("{ not json") and run,
            r"cannot read .*config.json \(Expecting",
        ),
        (
            lambda run: (run / "config.json").write_text('{"game": "tic_tac_toe"}') and run,
            r"config.json lacks nn_api_version, nn_model, .*; expected the config.json of "
            "OpenSpiel 2's JAX AlphaZero",
        ),
        (
            lambda run: [shutil.rmtree(path) for path in run.glob("checkpoint-*")] and run,
            "holds config.json but no checkpoint-N directory",
        ),
    ],
)
def test_a_missing_or_broken_run_names_the_path_and_what_was_expected(
    damage: Any, message: str, alphazero_runs: dict[str, Path], tmp_path: Path
) -> None:
    path = damage(_copy(alphazero_runs[TTT], tmp_path))
    with pytest.raises(ValueError, match=message):
        load_bot("alphazero", TTT, 0, checkpoint=str(path))


@pytest.mark.parametrize("api_run", [TTT, PIG])
def test_a_corrupt_checkpoint_names_it_and_what_was_expected(
    api_run: str, alphazero_runs: dict[str, Path], tmp_path: Path
) -> None:
    run = _copy(alphazero_runs[api_run], tmp_path)
    checkpoint = run / "checkpoint-0"
    for path in checkpoint.rglob("*"):
        if path.is_file():
            path.write_bytes(b"\0" * 7)
    with pytest.raises(
        ValueError, match=r"cannot restore alphazero checkpoint '.*/checkpoint-0': "
    ):
        load_bot("alphazero", api_run, 0, checkpoint=str(checkpoint))
    shutil.rmtree(checkpoint)
    checkpoint.mkdir()
    with pytest.raises(ValueError, match="expected an Orbax checkpoint written by OpenSpiel's JAX"):
        load_bot("alphazero", api_run, 0, checkpoint=str(checkpoint))


def test_another_games_checkpoint_is_refused(alphazero_runs: dict[str, Path]) -> None:
    run = str(alphazero_runs[TTT])
    with pytest.raises(
        ValueError,
        match=r"checkpoint '.*/checkpoint--1' was trained on tic_tac_toe \(config.json 'game'\), "
        "but the bot was asked to play connect_four; load it for tic_tac_toe, or train",
    ):
        load_bot("alphazero", "connect_four", 0, checkpoint=run)
    with pytest.raises(ValueError, match=r"trained on pig\(winscore=30\).* asked to play pig"):
        load_bot("alphazero", "pig", 0, checkpoint=str(alphazero_runs[PIG]))


def test_a_game_the_trainer_cannot_play_is_refused_before_any_file_is_read() -> None:
    with pytest.raises(ValueError, match=r"bot 'alphazero' cannot play kuhn_poker: .*imperfect"):
        load_bot("alphazero", "kuhn_poker", 0, checkpoint="no such directory")
    for game in ("chinese_checkers(players=3)", "2048", "matrix_rps"):
        assert "alphazero" not in bots_for(game)
    assert {"alphazero", "bounded_ab"} <= set(bots_for("connect_four"))


def test_without_the_extra_the_bot_is_refused_naming_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "chex", None)  # as if chex were not installed
    reason = "it needs OpenSpiel's AlphaZero dependencies, the alphazero extra (chex not installed)"
    assert alphazero.missing_extra().startswith(reason)
    assert "alphazero" not in bots_for(TTT)
    with pytest.raises(
        ValueError,
        match=re.escape(f"bot 'alphazero' cannot play tic_tac_toe: {reason}: ")
        + re.escape("pip install 'spiel-bounded[alphazero]'"),
    ):
        load_bot("alphazero", TTT, 0, checkpoint="anywhere")
    # Found but failing to import (a broken install) is an ImportError with the same advice.
    with pytest.raises(ImportError, match=r"install the extra: pip install 'spiel-bounded\["):
        alphazero.import_dependency("chex")


# -- the documented training command -------------------------------------------------------------

FLAGFILE = ROOT / "configs" / "alphazero_connect_four.flags"
RUN = "runs/alphazero/connect_four"
COMMAND = (
    "python -m open_spiel.python.examples.alpha_zero "
    f'--flagfile=configs/alphazero_connect_four.flags --path="$PWD/{RUN}"'
)


def _flags(path: Path) -> dict[str, str]:
    flags = {}
    for line in path.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            name, _, value = line.removeprefix("--").partition("=")
            flags[name] = value
    return flags


def test_the_manual_shows_the_connect_four_training_command() -> None:
    readme = (ROOT / "docs" / "value-networks.md").read_text()
    assert COMMAND in readme
    flags = _flags(FLAGFILE)
    assert flags["game"] == "connect_four" and flags["evaluators"] == "0"
    assert "path" not in flags  # Orbax needs it absolute: the command gives it
    assert f'checkpoint = "{RUN}"' in readme  # the tournament entry reads it


PARSE_FLAGS = """
import json
from absl import flags
from open_spiel.python.examples import alpha_zero
flags.FLAGS(["alpha_zero", "--flagfile=configs/alphazero_connect_four.flags", "--path=/tmp/x"])
flagged = flags.FLAGS.get_key_flags_for_module(alpha_zero)
print(json.dumps({flag.name: flag.value for flag in flagged if flag.present}))
"""


def test_the_example_parses_the_flagfile() -> None:
    """Every flag is one the example defines, with a value it accepts (in another process:
    importing the example changes multiprocessing's start method)."""
    if alphazero.missing_extra():
        pytest.skip(alphazero.missing_extra())
    completed = subprocess.run(
        [sys.executable, "-c", PARSE_FLAGS], capture_output=True, text=True, cwd=ROOT
    )
    assert completed.returncode == 0, completed.stderr[-2000:]
    parsed = json.loads(completed.stdout.splitlines()[-1])
    assert set(parsed) == set(_flags(FLAGFILE)) | {"path"}
    assert parsed["nn_api"] == "nnx" and parsed["max_steps"] == 16


QUIET_LOAD = """
import pyspiel
from absl import app
from spiel_bounded import load_bot

def main(argv):
    bot = load_bot("alphazero", "tic_tac_toe", 0, checkpoint=argv[1], simulations=4)
    bot.step(pyspiel.load_game("tic_tac_toe").new_initial_state())

app.run(main)
"""


def test_loading_and_playing_print_nothing(alphazero_runs: dict[str, Path]) -> None:
    """Orbax's and JAX's INFO lines (checkpointer made, restore, no TPU) stay out of a
    tournament's output, under absl's logging as in the command-line scripts."""
    completed = subprocess.run(
        [sys.executable, "-c", QUIET_LOAD, str(alphazero_runs[TTT])],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert completed.returncode == 0, completed.stderr[-2000:]
    assert completed.stdout == "" and completed.stderr == ""
