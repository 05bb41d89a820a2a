"""The command line, run in this process (flags restored after each test)."""

from __future__ import annotations

import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from absl import flags
from absl.testing import flagsaver

from spiel_bounded.arena import Terminated, cli

TREE = "bounded_random_tree(branching=2,depth=3,seed=1)"


def write_config(path: Path, output: Path, games: str = f'["{TREE}"]') -> Path:
    path.write_text(
        f"[tournament]\ngames = {games}\ngames_per_pairing = 2\n"
        f'[run]\noutput = "{output}"\nexecutor = "inline"\n[report]\nbootstrap = 10\n'
        '[[bots]]\nlabel = "a"\nbot = "random"\n[[bots]]\nlabel = "b"\nbot = "random"\n'
    )
    return path


def run_cli(
    args: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> tuple[int, str, str]:
    """Runs `round_robin.py ARGS`; returns the exit code, stdout and stderr."""
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


def raising(error: BaseException) -> Callable[..., Any]:
    def run(*args: Any, **kwargs: Any) -> Any:
        raise error

    return run


@pytest.mark.parametrize(
    ("error", "code", "name"),
    [(Terminated(signal.SIGTERM), 143, "SIGTERM"), (KeyboardInterrupt(), 130, "Ctrl-C")],
)
def test_sigterm_and_ctrl_c_exit_with_the_signal_code_and_say_how_to_resume(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    error: BaseException,
    code: int,
    name: str,
) -> None:
    config = write_config(tmp_path / "t.toml", tmp_path / "out")
    monkeypatch.setattr(cli, "run_tournament", raising(error))
    result = run_cli([f"--config={config}"], capsys, monkeypatch)
    assert result[0] == code
    assert (
        f"stopped by {name}: every finished game is in games.csv; run the same command"
        in (result[2])
    )


def test_games_are_split_on_commas_outside_parentheses_only() -> None:
    assert cli.split_games("go(board_size=9,komi=7.5)") == ["go(board_size=9,komi=7.5)"]
    assert cli.split_games(" tic_tac_toe, go(board_size=9,komi=7.5) ,hex") == [
        "tic_tac_toe",
        "go(board_size=9,komi=7.5)",
        "hex",
    ]
    assert cli.split_games("a(b=c(d=1,e=2),f=3),g") == ["a(b=c(d=1,e=2),f=3)", "g"]
    with pytest.raises(
        ValueError, match=r"'go\(board_size=9': 1 '\(' not closed; accepted: game strings"
    ):
        cli.split_games("go(board_size=9")
    with pytest.raises(ValueError, match=r"the '\)' at position 2 closes no '\('"):
        cli.split_games("go)(")
    with flagsaver.flagsaver():
        flags.FLAGS(["prog", "--games=tic_tac_toe,go(board_size=9,komi=7.5)"])
        assert flags.FLAGS.games == ["tic_tac_toe", "go(board_size=9,komi=7.5)"]
    with flagsaver.flagsaver(), pytest.raises(flags.IllegalFlagValueError, match="not closed"):
        flags.FLAGS(["prog", "--games=go(board_size=9"])


def test_a_game_with_several_parameters_plays_from_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    config = write_config(tmp_path / "t.toml", tmp_path / "out", games='["tic_tac_toe"]')
    code, out, err = run_cli(
        [f"--config={config}", f"--games={TREE},tic_tac_toe"], capsys, monkeypatch
    )
    assert code == 0, err
    assert f"## {TREE}" in out and "## tic_tac_toe" in out
    assert "4 games played" in err
