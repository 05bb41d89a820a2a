"""Exit statuses of the command-line programs: 0 after --help, 2 for a flag that does not parse
(absl's `app.run` exits 1 for both)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from absl import flags
from absl.testing import flagsaver

from spiel_bounded import commandline

ROOT = Path(__file__).resolve().parents[1]

# round_robin.py's are in test_arena_cli.py.
SCRIPTS = ["scripts/epsilon_sweep.py", "scripts/train_value_net.py"]


@pytest.mark.parametrize("script", SCRIPTS)
def test_help_exits_0(script: str) -> None:
    result = subprocess.run(
        [sys.executable, script, "--help"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert "--config" in result.stdout


@pytest.mark.parametrize("script", SCRIPTS)
def test_a_flag_that_does_not_parse_exits_2_naming_it(script: str) -> None:
    result = subprocess.run(
        [sys.executable, script, "--workers=abc"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2, result.stderr
    assert result.stderr == (
        "error: flag --workers=abc: invalid literal for int() with base 10: 'abc'\n"
        f"(python {script} --help describes the flags)\n"
    )


def test_parse_flags_returns_the_arguments_left_and_passes_other_exits_on() -> None:
    with flagsaver.flagsaver():
        assert commandline.parse_flags(["prog", "rest"]) == ["prog", "rest"]

    class Stop(flags.BooleanFlag):
        def parse(self, argument: str) -> None:
            sys.exit(3)

    name = "commandline_test_stop"
    flags.DEFINE_flag(Stop(name, False, "exits 3 when given"))
    try:
        with flagsaver.flagsaver(), pytest.raises(SystemExit) as stop:
            commandline.parse_flags(["prog", f"--{name}"])
        assert stop.value.code == 3
    finally:
        delattr(flags.FLAGS, name)


@pytest.mark.parametrize(
    "script", sorted(str(p.relative_to(ROOT)) for p in ROOT.glob("scripts/*.py"))
)
def test_every_script_follows_the_exit_statuses(script: str) -> None:
    help_run = subprocess.run(
        [sys.executable, script, "--help"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert help_run.returncode == 0, help_run.stderr
    bad = subprocess.run(
        [sys.executable, script, "--no_such_flag_anywhere"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert bad.returncode == 2, bad.stderr


@pytest.mark.parametrize("script", ["scripts/round_robin.py", *SCRIPTS])
def test_a_command_starts_without_the_plotting_and_compiling_libraries(script: str) -> None:
    """matplotlib and numba cost about a second of every start: a command imports them when it
    draws or compiles, not before parsing its flags."""
    probe = (
        "import runpy, sys\n"
        f"sys.argv = [{script!r}, '--help']\n"
        "try:\n"
        f"    runpy.run_path({script!r}, run_name='__main__')\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(sorted(name for name in ('matplotlib', 'numba') if name in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == "[]"


def test_write_or_print_writes_the_file_or_prints(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    commandline.write_or_print("a table\n", str(tmp_path / "out.md"))
    assert (tmp_path / "out.md").read_text() == "a table\n" and capsys.readouterr().out == ""
    commandline.write_or_print("a table\n", None)
    assert capsys.readouterr().out == "a table\n"
