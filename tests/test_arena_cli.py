"""The command line, run in this process (flags restored after each test)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from absl import flags
from absl.testing import flagsaver

from spiel_bounded import commandline
from spiel_bounded.arena import Terminated, cli, settings
from spiel_bounded.runs.executors import EXECUTORS
from tests.helpers import run_cli

TREE = "bounded_random_tree(branching=2,depth=3,seed=1)"


def write_config(path: Path, output: Path, games: str = f'["{TREE}"]') -> Path:
    path.write_text(
        f"[tournament]\ngames = {games}\ngames_per_pairing = 2\n"
        f'[run]\noutput = "{output}"\nexecutor = "inline"\n[report]\nbootstrap = 10\n'
        '[[bots]]\nlabel = "a"\nbot = "random"\n[[bots]]\nlabel = "b"\nbot = "random"\n'
    )
    return path


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


def test_an_unusable_output_directory_is_an_error_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "out").write_text("a file")
    config = write_config(tmp_path / "t.toml", tmp_path / "out")
    code, _, err = run_cli([f"--config={config}"], capsys, monkeypatch)
    assert code == 2
    assert err == (
        f"error: {tmp_path / 'out'}: cannot be used as the output directory: "
        f"{tmp_path / 'out'} is a file, not a directory; accepted: a directory (created if "
        "missing)\n"
    )


def played(tmp_path: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A finished run's config (its results in tmp_path/out)."""
    config = write_config(tmp_path / "t.toml", tmp_path / "out")
    code, _, err = run_cli([f"--config={config}"], capsys, monkeypatch)
    assert code == 0, err
    return config


def test_report_only_reads_run_json_and_never_writes_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    played(tmp_path, capsys, monkeypatch)
    manifest = tmp_path / "out" / "run.json"
    before = (manifest.read_bytes(), manifest.stat().st_mtime_ns)
    (tmp_path / "out" / "summary.md").unlink()
    code, out, err = run_cli(["--report_only", f"--output={tmp_path / 'out'}"], capsys, monkeypatch)
    assert code == 0, err
    assert "| a | b | 2 |" in out and (tmp_path / "out" / "summary.md").exists()
    assert (manifest.read_bytes(), manifest.stat().st_mtime_ns) == before


def test_report_only_in_a_directory_it_cannot_write_prints_the_report_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    played(tmp_path, capsys, monkeypatch)

    def read_only(report: Any, directory: Path) -> list[Path]:
        path = directory / "pairings.csv"
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(cli, "write_report", read_only)
    code, out, err = run_cli(["--report_only", f"--output={tmp_path / 'out'}"], capsys, monkeypatch)
    assert code == 1
    assert "| a | b | 2 |" in out
    assert err == (
        f"error: cannot write the report files into {tmp_path / 'out'} (Permission denied: "
        f"{tmp_path / 'out' / 'pairings.csv'}); the report above was printed only\n"
    )


def test_a_damaged_run_json_says_how_to_recover_and_the_config_recovers_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    config = played(tmp_path, capsys, monkeypatch)
    manifest = tmp_path / "out" / "run.json"
    manifest.write_text(manifest.read_text()[:100])
    code, _, err = run_cli(["--report_only", f"--output={tmp_path / 'out'}"], capsys, monkeypatch)
    assert code == 2
    assert err.startswith(f"error: {manifest}: unreadable (not JSON: ")
    assert "rebuilt from the config that played them: run that config again (--config FILE" in err
    assert "or report with --report_only --config FILE, which does not need it" in err

    # --report_only --config: the config stands in for run.json, which is left as it is;
    # the output directory is the config's.
    damaged = manifest.read_bytes()
    code, out, err = run_cli(["--report_only", f"--config={config}"], capsys, monkeypatch)
    assert code == 0, err
    assert "| a | b | 2 |" in out
    assert f"--report_only --config {config}" in out
    assert manifest.read_bytes() == damaged

    # Running the config again rebuilds run.json and plays nothing.
    code, out, err = run_cli([f"--config={config}"], capsys, monkeypatch)
    assert code == 0, err
    assert "run.json was missing or damaged: rebuilt from" in err
    assert "0 games played" in err
    assert json.loads(manifest.read_text())["scheduled"] == 2
    (kept,) = (tmp_path / "out").glob("run.json.damaged-*")
    assert kept.read_bytes() == damaged


def test_report_only_with_a_config_that_did_not_play_the_games_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    config = played(tmp_path, capsys, monkeypatch)
    config.write_text(
        config.read_text().replace("games_per_pairing = 2", "seed = 7\ngames_per_pairing = 2")
    )
    code, _, err = run_cli(["--report_only", f"--config={config}"], capsys, monkeypatch)
    assert code == 2
    assert "holds 2 game(s) that" in err and "another seed" in err


def test_the_commands_that_played_the_games_survive_a_rebuilt_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    config = played(tmp_path, capsys, monkeypatch)
    first = f"python scripts/round_robin.py --config={config}"
    again = f"python scripts/round_robin.py --config={config} --workers=1"
    games = tmp_path / "out" / "games.csv"
    games.write_text("".join(games.read_text().splitlines(keepends=True)[:-1]))  # one game less
    code, _, err = run_cli([f"--config={config}", "--workers=1"], capsys, monkeypatch)
    assert code == 0, err
    assert "1 games played" in err
    # A run with nothing left to play played none of the games: it is not named.
    code, _, err = run_cli([f"--config={config}", "--quiet"], capsys, monkeypatch)
    assert code == 0, err
    assert "0 games played" in err
    summary = tmp_path / "out" / "summary.md"
    (tmp_path / "out" / "summary.md").unlink()
    code, out, err = run_cli(["--report_only", f"--output={tmp_path / 'out'}"], capsys, monkeypatch)
    assert code == 0, err
    rebuild = f"python scripts/round_robin.py --report_only --output {tmp_path / 'out'}"
    line = f"Games played with `{first}`, then `{again}`; report rebuilt with `{rebuild}`."
    assert line in out and line in summary.read_text()


def test_results_whose_run_json_names_no_command_keep_the_one_in_summary_md(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Committed results were written before run.json kept the commands.
    played(tmp_path, capsys, monkeypatch)
    manifest = tmp_path / "out" / "run.json"
    data = json.loads(manifest.read_text())
    del data["commands"]
    manifest.write_text(json.dumps(data))
    summary = tmp_path / "out" / "summary.md"
    original = "python scripts/round_robin.py --config configs/default.toml"
    text = summary.read_text()
    start = text.index("Games played with")
    text = (
        text[:start]
        + f"Games played with `{original}`; report rebuilt with `old`."
        + (text[text.index("\n", start) :])
    )
    summary.write_text(text)
    code, out, err = run_cli(["--report_only", f"--output={tmp_path / 'out'}"], capsys, monkeypatch)
    assert code == 0, err
    line = f"Games played with `{original}`; report rebuilt with `python scripts/round_robin.py "
    assert line in out and line in summary.read_text()
    # And a second rebuild keeps it again.
    code, out, err = run_cli(["--report_only", f"--output={tmp_path / 'out'}"], capsys, monkeypatch)
    assert line in summary.read_text()


ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    "command",
    [
        ["scripts/round_robin.py"],
        # What the installed `spiel-bounded-arena` wrapper does: __main__ has no docstring.
        ["-c", "import sys; from spiel_bounded.arena.cli import run; sys.exit(run())"],
    ],
    ids=["round_robin.py", "spiel-bounded-arena"],
)
def test_both_programs_print_the_same_usage_with_help(command: list[str]) -> None:
    result = subprocess.run(
        [sys.executable, *command, "--help"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr  # absl's own app.run exits 1 after the help
    assert result.stdout.startswith(cli.USAGE), result.stdout[:400]
    assert "--[no]retry_errors: Also play again the games whose result is an error" in (
        result.stdout
    )


def test_a_usage_error_prints_a_short_usage_and_the_message_not_the_whole_help(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, err = run_cli([], capsys, monkeypatch)
    assert (code, out) == (2, "")
    program = "python scripts/round_robin.py"
    assert err == (
        f"usage: {program} --config FILE [--FIELD=VALUE ...] [--force_new | --retry_errors]\n"
        f"       {program} --report_only (--output DIR | --config FILE)\n"
        f"       {program} --report_only --output DIR --pool=RUN_DIR,RUN_DIR[,...]\n"
        "error: --config FILE is required (or --report_only --output DIR)\n"
        f"({program} --help describes the flags)\n"
    )


@pytest.mark.parametrize("flag", ["force_new", "retry_errors"])
def test_report_only_refuses_flags_that_only_a_run_uses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, flag: str
) -> None:
    code, _, err = run_cli(
        ["--report_only", f"--output={tmp_path}", f"--{flag}"], capsys, monkeypatch
    )
    assert code == 2
    assert (
        f"error: --report_only plays nothing, so --{flag} would do nothing; use one or the other"
        in err
    )


def test_report_only_with_a_config_uses_its_output_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    config = played(tmp_path, capsys, monkeypatch)
    (tmp_path / "out" / "summary.md").unlink()
    code, _, err = run_cli(["--report_only", f"--config={config}"], capsys, monkeypatch)
    assert code == 0, err
    assert (tmp_path / "out" / "summary.md").exists()


def test_retry_errors_reaches_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    config = write_config(tmp_path / "t.toml", tmp_path / "out")
    seen: dict[str, Any] = {}

    def record(*args: Any, **kwargs: Any) -> Any:
        seen.update(kwargs)
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "run_tournament", record)
    run_cli([f"--config={config}", "--retry_errors"], capsys, monkeypatch)
    assert seen["retry_errors"] is True
    run_cli([f"--config={config}"], capsys, monkeypatch)
    assert seen["retry_errors"] is False


@pytest.mark.parametrize(
    ("flag", "message"),
    [
        ("--games=go(board_size=9", "flag --games=go(board_size=9: 'go(board_size=9': 1 '(' not "),
        ("--games_per_pairing=abc", "flag --games_per_pairing=abc: invalid literal for int()"),
        ("--no_such_flag", "Unknown command line flag 'no_such_flag'"),
    ],
)
def test_a_flag_that_does_not_parse_exits_2_with_the_short_usage(
    capsys: pytest.CaptureFixture[str], flag: str, message: str
) -> None:
    program = "python scripts/round_robin.py"
    with flagsaver.flagsaver(), pytest.raises(SystemExit) as stop:
        commandline.parse_flags(
            ["scripts/round_robin.py", flag], usage=cli.SHORT_USAGE.format(program=program)
        )
    assert stop.value.code == 2  # absl's parser exits 1
    err = capsys.readouterr().err
    assert err.startswith(f"usage: {program} --config FILE"), err
    assert f"error: {message}" in err
    assert err.endswith("(round_robin.py --help describes the flags)\n")


def test_a_game_openspiel_cannot_load_is_named_once_on_stderr(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # OpenSpiel prints "OpenSpiel exception: MESSAGE" on fd 2 before raising; our error quotes
    # MESSAGE, so the CLI holds that line back.
    config = write_config(tmp_path / "t.toml", tmp_path / "out")
    code, out, err = run_cli(
        [f"--config={config}", "--games=connect_four(rows=x)"], capfd, monkeypatch
    )
    assert (code, out) == (2, "")
    message = "Wrong type for parameter rows. Expected type: kInt, got kString with x"
    assert err.count(message) == 1, err
    assert err == (
        "error: --games (command line): entry 0 'connect_four(rows=x)' is not a loadable "
        f"OpenSpiel game: cannot load game 'connect_four(rows=x)': {message}\n"
    )


def test_what_native_code_writes_while_a_config_loads_is_kept_unless_the_error_says_it(
    capfd: pytest.CaptureFixture[str],
) -> None:
    def native(text: str) -> None:
        os.write(2, text.encode())

    with pytest.raises(ValueError, match="bad thing"), commandline.native_errors_said_once():
        native("OpenSpiel exception: bad thing\nOpenSpiel exception: other\nnote\n")
        raise ValueError("it failed: bad thing")
    assert capfd.readouterr().err == "OpenSpiel exception: other\nnote\n"
    with commandline.native_errors_said_once():
        native("OpenSpiel exception: kept when nothing is raised\n")
    assert capfd.readouterr().err == "OpenSpiel exception: kept when nothing is raised\n"


def test_a_fresh_run_says_how_to_rebuild_its_report_not_that_it_was_rebuilt(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    config = played(tmp_path, capsys, monkeypatch)
    line = (
        f"Games played with `python scripts/round_robin.py --config={config}`; rebuild this "
        f"report with `python scripts/round_robin.py --report_only --output {tmp_path / 'out'}`."
    )
    summary = (tmp_path / "out" / "summary.md").read_text()
    assert line in summary and "report rebuilt" not in summary


def test_the_help_of_each_choice_flag_lists_every_accepted_value() -> None:
    for name, values in (
        ("pairing", settings.PAIRINGS),
        ("seating", settings.SEATINGS),
        ("executor", EXECUTORS),
    ):
        assert flags.FLAGS[name].help.endswith(f"(one of {', '.join(values)})."), name
    assert "tables" in flags.FLAGS["pairing"].help
