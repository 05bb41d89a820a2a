"""`python -m spiel_bounded bots`: the readable listing of the registered bots."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from spiel_bounded import bots_for, describe_bots, list_bots
from spiel_bounded.__main__ import main


def test_the_listing_shows_every_bot_what_it_plays_and_every_parameter_with_its_default() -> None:
    text = describe_bots()
    assert text.startswith(f"{len(list_bots())} registered bots:")
    for spec in list_bots():
        block = spec.describe()
        assert block in text
        assert block.startswith(f"{spec.name}\n")
        assert f"plays: {spec.plays.split(',')[0]}" in block
        for name, param in spec.params.items():
            default = param.default if isinstance(param.default, str) else repr(param.default)
            default = "required" if param.required else default
            assert f"    {name}  " in block and f" {default} " in block
    assert max(len(line) for line in text.splitlines()) <= 100
    assert str(list_bots()[0]) == list_bots()[0].describe()


def test_what_a_bot_plays_is_said_in_words() -> None:
    specs = {spec.name: spec for spec in list_bots()}
    assert specs["bounded_ab"].plays == (
        "turn-based games with 2 players, zero-sum, no chance nodes, perfect information"
    )
    assert "rewards only at the end, games implemented in C++ only" in specs["mcts"].plays
    assert "3 or more players" in specs["mp_mix"].plays
    assert "known small set of terminal values" in specs["bounded_pns"].plays
    assert "perfect or imperfect information" in specs["random"].plays


def test_one_bot(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bots", "rivest"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("rivest\n  best-first search by min/max approximation")
    assert "    mode " in out and "bounded_ab" not in out


def test_the_bots_for_a_game_and_those_that_cannot_play_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["bots", "--game", "backgammon"]) == 0
    out = capsys.readouterr().out
    able = bots_for("backgammon")
    assert out.startswith(f"{len(able)} of {len(list_bots())} bots can play backgammon:\n\n")
    assert all(f"\n\n{name}\n  " in out for name in able)
    assert "Bots that cannot play backgammon:\n  bounded_ab: it has chance nodes\n" in out
    assert main(["bots", "bounded_ab", "--game", "connect_four"]) == 0
    assert capsys.readouterr().out.endswith("\n\nbounded_ab can play connect_four\n")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["bots", "alphabeta"], "unknown bot 'alphabeta'; registered bots: bounded_ab, "),
        (["bots", "--game", "conect_four"], "unknown game 'conect_four' .*did you mean"),
        ([], "required: COMMAND"),
    ],
)
def test_an_unknown_bot_or_game_is_a_usage_error(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert re.search(message, captured.err)


def test_python_dash_m_runs_it() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "spiel_bounded", "bots", "nope"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert "unknown bot 'nope'; registered bots: bounded_ab" in done.stderr


def test_a_bad_game_string_is_said_once(capfd: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["bots", "--game", "pig(winscore=abc)"])
    assert stop.value.code == 2
    err = capfd.readouterr().err
    assert err.count("Wrong type for parameter winscore") == 1, err


@pytest.mark.parametrize(
    "command",
    [
        [sys.executable, "-m", "spiel_bounded", "bots", "--game", "breakthrough"],
        # Any absl program of the package: `commandline.run` guards its `main`.
        [
            sys.executable,
            "-c",
            "from spiel_bounded.commandline import run; run(lambda argv: print('x' * 10**6))",
        ],
    ],
)
def test_a_reader_that_stops_early_ends_the_program_quietly(command: list[str]) -> None:
    # Issue 40, item 12: `... bots --game breakthrough | head -40` printed a BrokenPipeError
    # traceback. The reader here closes before the program writes anything.
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()
    errors = process.stderr.read().decode()
    assert process.wait(timeout=120) == 0 and errors == "", errors
