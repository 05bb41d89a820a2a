"""The commands the README and the manual show run as written on a fresh clone (issue 23).

Each command runs in its own copy of the committed `configs/` and `results/` (what a fresh clone
holds), in this process. Commands that play games get flags appended that shrink the tournament
(2 games per pairing, two bots, 0.01 s per move, in-process): they run the rest as written, so a
config error, an output directory holding committed results of another config, or committed
results that no longer match their config still fail here.
"""

from __future__ import annotations

import filecmp
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from spiel_bounded.arena.config import load_config
from spiel_bounded.arena.schedule import make_schedule, mismatch
from spiel_bounded.arena.store import GameStore
from tests.helpers import documentation, run_cli

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
DOCS = documentation()
PROGRAM = "python scripts/round_robin.py"


def documented_commands() -> list[str]:
    """The `round_robin.py` lines of the documentation's shell blocks (comments cut), then `make
    run`'s command from the Makefile."""
    commands = []
    for block in re.findall(r"```sh\n(.*?)```", DOCS, re.DOTALL):
        for line in block.splitlines():
            if line.startswith(PROGRAM):
                commands.append(line.split(" # ")[0].strip())
    makefile = (ROOT / "Makefile").read_text()
    (run,) = re.findall(r"^run:.*\n\t\$\(PY\) (scripts/round_robin\.py .*)$", makefile, re.M)
    commands.append(f"python {run.strip()}")
    return list(dict.fromkeys(commands))


COMMANDS = documented_commands()


def shrunk(args: list[str]) -> list[str]:
    """`args` plus the flags that make the tournament tiny (none for --report_only)."""
    if "--report_only" in args:
        return args
    (config,) = [arg.split("=", 1)[1] for arg in args if arg.startswith("--config=")] or [
        args[args.index("--config") + 1]
    ]
    labels = [entry.label for entry in load_config(config).tournament.bots]
    return [
        *args,
        "--games_per_pairing=2",
        "--seconds_per_move=0.01",
        f"--bots={labels[0]},{labels[-1]}",
        "--executor=inline",
        "--quiet",
    ]


@pytest.fixture
def clone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory holding what a fresh clone has of configs/ and results/."""
    for name in ("configs", "results"):
        shutil.copytree(ROOT / name, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def changed_files(left: Path, right: Path) -> list[str]:
    """Files that differ between two directory trees (or are in only one of them)."""
    compare = filecmp.dircmp(left, right)
    found = [str(left / name) for name in (*compare.diff_files, *compare.left_only)]
    found += [str(right / name) for name in compare.right_only]
    for name in compare.common_dirs:
        found += changed_files(left / name, right / name)
    return found


def test_the_documentation_shows_these_commands() -> None:
    assert len(COMMANDS) >= 4, COMMANDS
    assert any("--report_only --config" in command for command in COMMANDS)


@pytest.mark.parametrize("command", COMMANDS)
def test_a_documented_command_runs_on_a_fresh_clone(
    command: str,
    clone: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    args = shlex.split(command)
    assert args[:2] == ["python", "scripts/round_robin.py"]
    code, out, err = run_cli(shrunk(args[2:]), capsys, monkeypatch)
    assert code == 0, f"{command}\n{err}"
    assert "## " in out  # the summary was printed
    if "--report_only" not in args:
        # A documented run writes under runs/ (not committed), never into committed results.
        assert changed_files(ROOT / "results", clone / "results") == []


def test_make_run_states_the_quick_tournament_size_and_a_measured_range() -> None:
    (paragraph,) = [part for part in README.split("\n\n") if "`make run` is `" in part]
    games = len(make_schedule(load_config(str(ROOT / "configs/quick.toml")).tournament))
    assert f"{games} games" in paragraph, paragraph
    # One figure measured once is not what a user on a loaded machine gets: a range.
    assert re.search(r"\d+(\.\d+)? to \d+(\.\d+)? min", paragraph), paragraph


SCRIPT_COMMAND = re.compile(r"python (scripts/\w+\.py)((?: --?[\w.=,:/'\"()-]+)*)")


def script_commands() -> dict[str, set[str]]:
    """Every `python scripts/NAME.py --flag ...` the documentation shows, in code blocks or inline:
    the flags each script is shown with."""
    shown: dict[str, set[str]] = {}
    for script, arguments in SCRIPT_COMMAND.findall(DOCS):
        names = {arg.split("=", 1)[0].lstrip("-") for arg in arguments.split() if arg[0] == "-"}
        shown.setdefault(script, set()).update(names)
    return shown


@pytest.mark.parametrize("script", sorted(script_commands()))
def test_every_documented_script_exists_and_takes_the_flags_shown(script: str) -> None:
    path = ROOT / script
    assert path.is_file(), f"the documentation shows {script}, which does not exist"
    completed = subprocess.run(
        [sys.executable, str(path), "--helpfull"], capture_output=True, text=True, cwd=ROOT
    )
    assert completed.returncode == 0, completed.stderr
    defined = set(re.findall(r"^\s+--(?:\[no\])?([\w.]+)", completed.stdout, re.MULTILINE))
    unknown = sorted(script_commands()[script] - defined)
    assert not unknown, f"the documentation shows {script} with flags it does not define: {unknown}"


@pytest.mark.parametrize(
    "line",
    [line for line in DOCS.splitlines() if line.startswith("python -m spiel_bounded ")],
)
def test_the_documented_bots_commands_run(line: str, capsys: pytest.CaptureFixture[str]) -> None:
    from spiel_bounded.__main__ import main

    args = shlex.split(line.split(" # ")[0])[3:]
    assert main(args) == 0
    assert capsys.readouterr().out.strip()


MATCHING = re.findall(
    r"`(?:results/)?(round_robin(?:_[a-z0-9_]+)?)`",
    DOCS[DOCS.index("that match their configs today are") :].split("\n\n")[0],
)


def test_the_results_the_manual_says_match_their_configs_do() -> None:
    assert {
        "round_robin",
        "round_robin_babmcts_control",
        "round_robin_babmcts_native",
        "round_robin_babmcts_time_kept",
    } <= set(MATCHING), MATCHING
    configs = {}
    for path in sorted((ROOT / "configs").glob("*.toml")):
        output = re.search(r'^output = "results/(\w+)"', path.read_text(), re.MULTILINE)
        if output:
            configs[output.group(1)] = path
    # ... and "the four `round_robin_experiments_q*`":
    wanted = MATCHING + [name for name in configs if name.startswith("round_robin_experiments_q")]
    for name in wanted:
        config = load_config(str(configs[name]))
        records = GameStore(ROOT / "results" / name).read_records()
        assert mismatch(records, make_schedule(config.tournament), name) is None, name


def test_the_adding_a_bot_example_passes_check_bot(monkeypatch: pytest.MonkeyPatch) -> None:
    """The manual's "Adding a bot" module, as printed, registers a bot that `check_bot` passes
    and the registry offers (in a copy of the registry, so other tests see the package's)."""
    import types

    from spiel_bounded import registry
    from spiel_bounded.testing import check_bot

    (code,) = re.findall(r"```python\n(# spiel_bounded/bots/greedy\.py\n.*?)```", DOCS, re.S)
    module = types.ModuleType("greedy")
    monkeypatch.setitem(sys.modules, "greedy", module)  # dataclasses look their module up
    exec(compile(code, "docs/contributing.md (greedy.py)", "exec"), module.__dict__)
    with registry.registered(*module.SPECS):
        for game in ("tic_tac_toe", "connect_four"):
            assert check_bot("greedy", game, {"evaluator": "heuristic"})
        assert "greedy" in registry.bots_for("tic_tac_toe")
        assert "greedy" not in registry.bots_for("backgammon")
        with pytest.raises(ValueError, match="already registered: greedy"):
            registry.register(*module.SPECS)
    assert "greedy" not in registry.bots_for("tic_tac_toe")  # the block leaves no trace
